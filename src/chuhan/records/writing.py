"""What the text record writers share: PGN (:mod:`chuhan.records.pgn`) and GIB
(:mod:`chuhan.records.gib`) both write ``[Key "value"]`` tags, a blank line, and
movetext with ``{comments}`` wrapped at 80 columns."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["comment_token", "quote_tag_value", "tagged_text", "wrap_tokens"]


def quote_tag_value(value: str) -> str:
    """A tag value as it goes between the quotes: backslashes and quotes escaped, a line
    break made a space (a tag is one line)."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def comment_token(text: str) -> str:
    """A comment as a movetext token: in braces, its own ``}`` made ``)`` (a comment
    cannot hold the brace that ends it)."""
    return "{" + text.replace("}", ")") + "}"


def wrap_tokens(tokens: Iterable[str], width: int = 80) -> str:
    """The tokens joined by spaces, in lines of at most ``width`` characters (a longer
    token stands on a line of its own)."""
    lines: list[str] = []
    current = ""
    for token in tokens:
        if current and len(current) + 1 + len(token) > width:
            lines.append(current)
            current = token
        else:
            current = f"{current} {token}" if current else token
    if current:
        lines.append(current)
    return "\n".join(lines)


def tagged_text(headers: Mapping[str, str], tokens: Iterable[str]) -> str:
    """A record's text: a ``[Key "value"]`` line for each header in order, a blank line,
    and the movetext tokens wrapped."""
    head = "\n".join(f'[{key} "{quote_tag_value(value)}"]' for key, value in headers.items())
    return f"{head}\n\n{wrap_tokens(tokens)}\n"
