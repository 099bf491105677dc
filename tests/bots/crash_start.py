"""Exits with status 3 before answering hello."""

import sys

sys.exit(3)
