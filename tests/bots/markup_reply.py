"""Answers its deal with a reply type that is rich console markup (a closing tag that matches nothing)."""

import _base


def hook(msg):
    if msg["type"] == "deal":
        return {"type": "[/oops]"}


_base.run(hook)
