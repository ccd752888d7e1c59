"""Text from hostile places (shards from lab hosts, students' answer files) made safe for
where it goes: a terminal (no control sequences, one line), a CSV cell (no formula), a
Markdown cell (one line, no pipe that breaks the table)."""
from __future__ import annotations

import re
from typing import Any

# C0 (tab and newline too), DEL, C1; the line and paragraph separators; the bidirectional
# controls (Trojan Source: U+061C, U+200E/F, U+202A-E, U+2066-9), which reorder what a line shows
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def plain(value: Any) -> str:
    """str(value) on one line, each control character (escape sequences, bells, carriage
    returns, tabs, newlines, bidirectional overrides) shown as '?': printed to a terminal or
    a report's line, it cannot move the cursor, retitle the window, start a line of its own
    or show its characters in another order."""
    return _CONTROL.sub("?", str(value))


def plain_lines(text: Any) -> str:
    """Text of several lines (a table, a report's summary) with each line made plain."""
    return "\n".join(plain(line) for line in str(text).split("\n"))


def csv_cell(value: Any) -> Any:
    """A value for a spreadsheet cell: numbers as they are; text that a spreadsheet would run
    as a formula (=, +, -, @ first) gets a leading apostrophe (OWASP's CSV-injection advice)."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = plain(value)
    return "'" + text if text.startswith(_FORMULA) else text


def md_cell(value: Any) -> str:
    """Text for one Markdown table cell: one line, no control character, no pipe (the HTML page
    is escaped by its template)."""
    return plain(value).replace("|", "\\|")
