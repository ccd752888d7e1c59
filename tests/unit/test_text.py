"""Hostile text made safe for a terminal, a spreadsheet and a Markdown table (core/text.py)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from core.text import csv_cell, md_cell, plain  # noqa: E402


def test_escape_sequences_cannot_reach_the_terminal():
    assert plain("lab-a\x1b]0;pwned\x07\x1b[2J\r") == "lab-a?]0;pwned??[2J?"
    assert plain("two\tcolumns\nand lines") == "two\tcolumns\nand lines"


def test_formulas_become_text_and_numbers_stay_numbers():
    assert csv_cell("=HYPERLINK(\"http://x\")") == "'=HYPERLINK(\"http://x\")"
    assert csv_cell("+1") == "'+1" and csv_cell("@SUM(A1)") == "'@SUM(A1)" and csv_cell("-2+3") == "'-2+3"
    assert csv_cell(-2.5) == -2.5 and csv_cell(3) == 3 and csv_cell(None) is None
    assert csv_cell("Ada Lovelace") == "Ada Lovelace"


def test_a_markdown_cell_stays_one_cell():
    assert md_cell("a|b\nc\x1b") == "a\\|b c?"
