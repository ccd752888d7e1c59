"""Hostile text made safe for a terminal, a spreadsheet and a Markdown table (beowulf_netlab/core/text.py)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from beowulf_netlab.core.text import csv_cell, md_cell, plain  # noqa: E402


def test_escape_sequences_cannot_reach_the_terminal():
    assert plain("lab-a\x1b]0;pwned\x07\x1b[2J\r") == "lab-a?]0;pwned??[2J?"
    assert plain("two\tcolumns\nand lines") == "two?columns?and lines"      # one line, always


def test_bidirectional_controls_and_separators_cannot_reorder_a_line():
    """Trojan Source: an override or isolate shows a line's characters in another order."""
    for c in "\u202e\u202d\u202a\u202b\u202c\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028\u2029\x85":
        assert plain(f"b0{c}evil") == "b0?evil", repr(c)
    assert plain("caf\u00e9 \u03bb \u6f22") == "caf\u00e9 \u03bb \u6f22"      # letters stay


def test_several_lines_stay_lines_each_plain():
    from beowulf_netlab.core.text import plain_lines
    assert plain_lines("head\x1b[2J\nrow\u202e1\r\n") == "head?[2J\nrow?1?\n"


def test_formulas_become_text_and_numbers_stay_numbers():
    assert csv_cell("=HYPERLINK(\"http://x\")") == "'=HYPERLINK(\"http://x\")"
    assert csv_cell("+1") == "'+1" and csv_cell("@SUM(A1)") == "'@SUM(A1)" and csv_cell("-2+3") == "'-2+3"
    assert csv_cell(-2.5) == -2.5 and csv_cell(3) == 3 and csv_cell(None) is None
    assert csv_cell("Ada Lovelace") == "Ada Lovelace"


def test_a_markdown_cell_stays_one_cell():
    assert md_cell("a|b\nc\x1b") == "a\\|b?c?"
