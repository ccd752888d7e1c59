"""A class's results as one page for the teacher (`exercise grade --html`): per question how
many passed, were wrong, blank, unreadable or not judged and the common wrong answers, then every
student's row.

Rendered by the Jinja2 template templates/class.html.j2 with autoescaping on: every student's
name, file name and answer is hostile text (a name may be `<script>`), so nothing of theirs is
marked safe. One self-contained page, no script, nothing fetched, readable at a phone's width:
questions are cards, the students' table scrolls inside its own box, and long answers wrap.
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.safefile import write_atomic_bytes
from beowulf_netlab.core.text import plain
from beowulf_netlab.judge import exercise as ex_mod

TEMPLATES = Path(__file__).resolve().parent / "templates"
MAX_SHOWN, MAX_PROBLEM = 120, 400   # characters of an answer, of a problem shown (the CSV has all)
# a verdict as the students' table shows it: (CSS class, mark)
MARKS = {ex_mod.PASS: ("pass", "\u2713"), ex_mod.FAIL: ("wrong", "\u2717"), ex_mod.BLANK: ("blank", "\u2013"),
         ex_mod.UNREADABLE: ("unreadable", "?"), ex_mod.NOT_JUDGED: ("not-judged", "\u00b7")}


def _short(text: str, limit: int = MAX_SHOWN) -> str:
    text = plain(text)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def render(ex: dict, rows: list[dict], measured: dict[str, float] | None,
           roster: list[str] | None = None, when: str | None = None) -> str:
    """The page's HTML from grade's rows (judge.exercise.grade) and the teacher's measurement."""
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    summary = ex_mod.summarize(ex, rows)
    by_id = {q["id"]: q for q in ex["questions"]}
    for s in summary:
        q = by_id[s["id"]]
        if measured is not None or "measured" not in q["expected"]:
            ref = ex_mod.expected(q, measured or {})
            s["reference"] = f"{ref:.4g}" if isinstance(ref, float) else ref
        else:
            s["reference"] = "each student's own check"
        s["common_wrong"] = [(_short(a), n) for a, n in s["common_wrong"]]
        s["pct"] = {k: round(100 * s[k] / s["total"]) if s["total"] else 0 for k in ex_mod.COUNTED.values()}
    students = [{"student": _short(r["student"]) or "(no name)", "file": _short(r["file"]),
                 "score": r["score"], "max": r["max"], "measurement": r.get("measurement", ""),
                 "marks": [MARKS[r.get(q["id"], ex_mod.UNREADABLE)] for q in ex["questions"]],
                 "problem": _short(r.get("problem", ""), MAX_PROBLEM)}
                for r in sorted(rows, key=lambda r: (ex_mod.student_key(r["student"]) or "\uffff", r["file"]))]
    scores = sorted(r["score"] for r in rows)
    used = {m: sum(r.get("measurement") == m for r in rows)
            for m in (ex_mod.OWN_CHECK, ex_mod.TEACHERS, ex_mod.NO_MEASURE)}
    return env.get_template("class.html.j2").render(
        title=ex["title"], name=ex["name"], questions=summary, students=students,
        ids=[q["id"] for q in ex["questions"]], files=len(rows), max=len(ex["questions"]),
        median=(f"{scores[len(scores) // 2]}" if scores else "-"), used=used,
        absent=[_short(n) for n in ex_mod.absent(rows, roster)],
        when=when or datetime.now().strftime("%Y-%m-%d %H:%M"))


def write(path: Path, html: str) -> None:
    """The page, readable by the teacher only (it holds every answer and the references)."""
    try:
        write_atomic_bytes(path, html, mode=0o600)
    except OSError as e:
        raise BadInput(f"cannot write {path}: {e.strerror}; choose another --html")
