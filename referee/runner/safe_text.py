"""Text a bot controls (names, fault details, offending lines, anything read from a log), made safe to show.

Bots choose their hello names and the lines they write, and the referee repeats those in its terminal output.
Shown as they are, an escape sequence would clear the screen, retitle the window or recolour what follows, a
newline would forge an output line, and rich markup such as ``[/]`` would crash the rich console. So such text
goes through ``visible`` (plain output) or ``literal`` (rich output) first.

``visible`` keeps every printable character and writes each unprintable one as an escape: ``\\n``, ``\\t``,
``\\r``, ``\\xNN`` for the other C0 controls, DEL and C1 controls (so ESC shows as ``\\x1b``), and ``\\uNNNN`` /
``\\UNNNNNNNN`` for the rest of what Python's ``str.isprintable`` rejects (format characters such as bidi
overrides, line and paragraph separators, lone surrogates, non-ASCII spaces, unassigned code points).
JSON outputs do not need this: JSON escapes control characters itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

__all__ = ["line_text", "literal", "visible"]

_SHORT = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(ch: str) -> str:
    if ch.isprintable():
        return ch
    code = ord(ch)
    if ch in _SHORT:
        return _SHORT[ch]
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` on one line with no character a terminal would act on: unprintable characters as escapes."""
    if text.isprintable():
        return text
    return "".join(_escape(ch) for ch in text)


def literal(text: str, style: str = "") -> Text:
    """``text`` for a rich console or table, exactly as written: no markup parsed, unprintables as escapes."""
    from rich.text import Text  # here: the runner's errors use this module, and need no rich

    return Text(visible(text), style=style)


def line_text(line: bytes | str | None, keep: int | None = None, *, mark: str = "", bare: bool = False) -> str | None:
    """A line of the wire as text: bytes decoded leniently (an invalid byte becomes U+FFFD), cut to its first
    ``keep`` bytes (or characters) when longer, with ``mark`` added where it was cut; ``bare``: without the
    newline that ends it. None stays None.

    The one place a bot's (offending) line or a message is turned into text, for a fault record, a log, a check
    report or the terminal (which still shows it through ``visible``)."""
    if line is None:
        return None
    cut = keep is not None and len(line) > keep
    head = line[:keep] if cut else line
    text = head.decode("utf-8", "replace") if isinstance(head, bytes) else head
    if bare:
        text = text.rstrip("\n")
    return text + mark if cut else text
