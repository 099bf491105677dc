"""What keeping the deals secret costs per game: the HMAC-SHA256 deal seed next to dealing the cards.

A tournament derives one deal seed per table (``referee.contest.deal_secret.deal_seed``); before issue 17 it was a
SHA-256 of the public seed. Both are measured here against ``seeded_deal`` (the cards of one 4-player game) and
against a whole game as ``bench_tournament.py`` measures it, in one run, as ratios.

    python bench/bench_deals.py            # 200,000 derivations each
"""

from __future__ import annotations

import argparse
import hashlib
import time

from referee.contest.deal_secret import DealSecret, deal_seed
from referee.engine import STANDARD, seeded_deal

#: A game of four random bots in ``bench_tournament.py``'s run on this machine takes about 17 ms of wall time
#: (58 games/s); the figure is only the yardstick the HMAC's cost is divided by.
GAME_SECONDS = 1 / 58.1


def per_call(fn: object, n: int) -> float:
    start = time.perf_counter()
    for i in range(n):
        fn(i)  # type: ignore[operator]
    return (time.perf_counter() - start) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=200_000, help="derivations per figure")
    args = parser.parse_args()
    key = DealSecret.new().key
    hmac_s = per_call(lambda b: deal_seed(key, 20261130, b), args.n)
    public_s = per_call(
        lambda b: int.from_bytes(hashlib.sha256(f"referee-tournament/1/0/{b}".encode()).digest()[:8], "big") >> 1,
        args.n,
    )
    deal_s = per_call(lambda b: seeded_deal(b, 4, STANDARD), max(1, args.n // 20))
    print(f"HMAC-SHA256 deal seed:     {hmac_s * 1e6:8.2f} us per table")
    print(f"public SHA-256 seed (old): {public_s * 1e6:8.2f} us per table")
    print(f"seeded_deal, 4 players:    {deal_s * 1e6:8.2f} us per game")
    print(f"HMAC / dealing the cards:  {hmac_s / deal_s:8.4f}")
    share = hmac_s / GAME_SECONDS
    print(f"HMAC / a whole game (~{GAME_SECONDS * 1000:.1f} ms): {share:.6f}  (target: below 0.01)")
    print("target met" if share < 0.01 else "target NOT met")


if __name__ == "__main__":
    main()
