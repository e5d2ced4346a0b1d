"""The chat Markdown FanVise writes, drawn for a terminal.

Answers and cards use the Markdown that Discord and Slack show: **bold**, _italic_ or
*italic*, `code`, ~~strike~~, "# " headings, "- " / "* " list items, [text](url) links and
"> " quotes. On a terminal (`color=True`) bold, italic and code get ANSI styles; in a pipe
the markers are removed, so scripts and tests read plain words. Text without markers is
returned unchanged (numbered choices such as "[1] Approve #1" are never touched).
"""

from __future__ import annotations

import re

BOLD, ITALIC, CODE, DIM, RESET = "\x1b[1m", "\x1b[3m", "\x1b[36m", "\x1b[2m", "\x1b[0m"

_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|(?<![\w])__(?=\S)(.+?)(?<=\S)__(?![\w])")
_ITALIC = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])"
                     r"|(?<![\w])_(?=[^\s_])([^_\n]+?)(?<=[^\s_])_(?![\w])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_BULLET = re.compile(r"^(\s*)[-*]\s+(?=\S)")
_QUOTE = re.compile(r"^>\s?")
#: a code span's text is kept aside while the other markers are read
_HOLD = "\x00{}\x00"


def _style(text: str, start: str, color: bool) -> str:
    return f"{start}{text}{RESET}" if color else text


def render_line(line: str, *, color: bool = False) -> str:
    """One line of chat Markdown for a terminal (see the module docstring)."""
    held: list[str] = []

    def hold(m: re.Match[str]) -> str:
        held.append(_style(m.group(1), CODE, color))
        return _HOLD.format(len(held) - 1)

    heading = _HEADING.match(line)
    if heading:
        line = f"**{heading.group(1)}**" if heading.group(1) else ""
    line = _QUOTE.sub("│ ", line)
    line = _BULLET.sub(lambda m: f"{m.group(1)}• ", line)
    line = _CODE.sub(hold, line)
    line = _LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})", line)
    line = _BOLD.sub(lambda m: _style(m.group(1) or m.group(2), BOLD, color), line)
    line = _ITALIC.sub(lambda m: _style(m.group(1) or m.group(2), ITALIC, color), line)
    line = _STRIKE.sub(lambda m: _style(m.group(1), DIM, color), line)
    for i, text in enumerate(held):
        line = line.replace(_HOLD.format(i), text)
    return line


def render_markdown(text: str, *, color: bool = False) -> str:
    """Chat Markdown for a terminal, line by line; fenced code blocks (```) are kept as
    they are, without their fences."""
    out: list[str] = []
    fenced = False
    for line in (text or "").split("\n"):
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        out.append(line if fenced else render_line(line, color=color))
    return "\n".join(out)


__all__ = ["render_line", "render_markdown"]
