"""Says hello speaking protocol 2."""

import _base


def hook(msg):
    if msg["type"] == "hello":
        return {"type": "hello", "protocol": 2, "name": "from-the-future"}


_base.run(hook)
