"""The card values of 23: 1 to ``HIGHEST``. Its own module, so that readers of the protocol can check a card
without loading the deck (and its random dealing)."""

HIGHEST = 23
