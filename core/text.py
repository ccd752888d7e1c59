"""Text from hostile places (shards from lab hosts, students' answer files) made safe for
where it goes: a terminal (no control sequences), a CSV cell (no formula), a Markdown cell
(one line, no pipe that breaks the table)."""
from __future__ import annotations

import re
from typing import Any

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def plain(value: Any) -> str:
    """str(value) with control characters (escape sequences, bells, carriage returns) shown as
    '?': printed to a terminal, it cannot move the cursor, retitle the window or hide a line."""
    return _CONTROL.sub("?", str(value))


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
    return plain(value).replace("\n", " ").replace("|", "\\|")
