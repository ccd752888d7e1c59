"""Exercise sheets as pages to hand out (beowulf_netlab/judge/sheet.py): every question and choice, the
task numbers kept, nothing of the sheet run as HTML, no solutions; rendered in Chromium."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from beowulf_netlab import commands  # noqa: E402
from beowulf_netlab.judge import exercise  # noqa: E402
from beowulf_netlab.judge.sheet import inline, page  # noqa: E402

NAMES = [p.name for p in sorted(exercise.EXERCISES_DIR.iterdir()) if (p / "check.json").exists()]
BROWSER = next((b for b in (shutil.which("chromium-headless-shell"), "/usr/bin/chromium-headless-shell")
                if b and Path(b).exists()), None)


@pytest.mark.parametrize("name", NAMES)
def test_a_sheet_page_holds_every_question_and_no_solution(name):
    ex = exercise.load(name)
    text = (exercise.EXERCISES_DIR / name / "README.md").read_text()
    html = page(name, text)
    for q in ex["questions"]:
        assert f"<strong>{q['id']}</strong>" in html, q["id"]
        for c in q.get("choices", []):
            assert inline(c) in html, c
    assert "```" not in html and html.count("<pre>") == text.count("```") // 2
    tasks = re.findall(r"^(\d+)\. ", text.split("## Questions")[0], re.M)
    starts = re.findall(r'<ol start="(\d+)">', html)
    assert starts and set(starts) <= set(tasks) and starts[0] == "1"
    sol = exercise.EXERCISES_DIR / name / "solutions" / "answers.json"
    assert "reference" not in html and sol.read_text()[:40] not in html


def test_sheet_text_cannot_carry_html():
    assert inline("<script>alert(1)</script> **b** `<i>`") == \
        "&lt;script&gt;alert(1)&lt;/script&gt; <strong>b</strong> <code>&lt;i&gt;</code>"


def test_the_command_writes_the_page_and_refuses_solutions(tmp_path, capsys):
    out = tmp_path / "sheet.html"
    assert commands.main(["exercise", "show", "shared-hub", "--html", str(out)]) == 0
    assert out.read_text().startswith("<!doctype html>")
    assert commands.main(["exercise", "show", "shared-hub", "--html", str(out), "--solutions"]) == 2
    assert "never the solutions" in capsys.readouterr().err


@pytest.mark.skipif(BROWSER is None, reason="chromium-headless-shell is not installed (./setup.sh)")
def test_a_sheet_page_renders_in_a_real_browser(tmp_path):
    out = tmp_path / "sheet.html"
    out.write_text(page("shared-hub", (exercise.EXERCISES_DIR / "shared-hub" / "README.md").read_text()))
    png = tmp_path / "sheet.png"
    subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=420,2000", f"--screenshot={png}", out.as_uri()],
                   capture_output=True, timeout=120, check=True)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000   # drawn, not a blank page
