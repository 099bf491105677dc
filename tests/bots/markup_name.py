"""Plays honestly under a hello name that is rich console markup (a bare closing tag)."""

import _base

_base.run(name="[/]")
