"""A class's hand-out bundle: what students get, and nothing the teacher keeps.

For each exercise the bundle holds its sheet as a page (judge.sheet) and as Markdown, an
answers template, and with a roster one template per student: the name filled in, a hand-out
code dealt to that student (judge.binding.deal) and the choices in the order the code deals
(judge.exercise.dealt_order). It is built only from the sheet and the questions' text: the
answer key (solutions/) is never read into it. The folder must be new or empty
(core.safefile.fresh_dir), so a bundle is never mixed with what was there, nor written through
a planted link. Who got which code goes to the teacher's codes file, beside the bundle, never in it.
"""
from __future__ import annotations

import json
from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.safefile import fresh_dir, write_atomic_bytes
from beowulf_netlab.core.text import plain
from beowulf_netlab.judge import binding
from beowulf_netlab.judge import exercise as ex_mod
from beowulf_netlab.judge.sheet import page

SHEET_HTML, SHEET_MD, TEMPLATE, PERSONAL = "sheet.html", "sheet.md", "answers-template.json", "answers"

INDEX = """# Exercises: {titles}

For each exercise, in its folder:

1. Read the sheet: `{sheet_html}` (open it in a browser; it prints well) or `{sheet_md}`.
2. Do its tasks on your lab VM, in the project folder (`cd /vagrant` on a Vagrant VM).
3. Fill in your answers file{yours}: replace each `"answer": null` with a number in the unit
   given, or a choice's text or its letter (a, b, c as listed in *your* file).
4. Check it on the same machine (it measures for about 2 minutes):

       sudo python3 emulate.py exercise check EXERCISE YOUR_FILE.json

   It reads your answers as your teacher's grading will (each one answered, blank or
   unreadable), measures, and writes `YOUR_FILE.check.json` beside your file with what it
   measured on your machine: hand in **both** files. It does not say right or wrong (the
   answers are not on your machine): your teacher grades against your own machine's
   measurement. Check once, at the end; the record names your file, your machine and the time.
"""


def file_names(roster: list[str]) -> dict[str, str]:
    """Roster name -> its answers file's name; BadInput when a name is on it twice."""
    out: dict[str, str] = {}
    seen: dict[str, str] = {}
    for name in roster:
        key = ex_mod.student_key(name)
        if not key:
            raise BadInput(f"roster: {plain(name)!r} is not a student's name")
        if key in seen:
            raise BadInput(f"roster: {plain(name)!r} is on it twice (as {plain(seen[key])!r} too)")
        seen[key] = name
        base, n = ex_mod.slug(name), 1
        taken = set(out.values())
        while (candidate := f"{base}{'' if n == 1 else '-' + str(n)}.json") in taken:
            n += 1
        out[name] = candidate
    return out


def write(exercises: list[dict], out: Path, roster: list[str] | None = None,
          codes_file: Path | None = None) -> list[Path]:
    """The bundle for these exercises (judge.exercise.load) into out (new or empty), and with a
    roster the codes dealt into codes_file (default: beside out, judge.binding.codes_path); the
    files written, the codes file last."""
    names = [ex["name"] for ex in exercises]
    files = file_names(roster) if roster else {}
    codes = binding.deal(names, roster) if roster else None
    codes_file = Path(codes_file) if codes_file else binding.codes_path(out)
    if codes is not None and Path(out).resolve() in codes_file.resolve().parents:
        raise BadInput(f"hand-out: the codes file {codes_file} would be inside the bundle, which students get; "
                       "give a --codes outside it")
    fresh_dir(out, "hand-out folder")
    written: list[Path] = []

    def put(path: Path, data: str) -> None:
        try:
            write_atomic_bytes(path, data)
        except OSError as e:
            raise BadInput(f"cannot write {path}: {e.strerror}; choose another --out")
        written.append(path)

    for ex in exercises:
        folder = out / ex["name"]
        markdown = (Path(ex["_dir"]) / "README.md").read_text()
        put(folder / SHEET_HTML, page(ex["name"], markdown))
        put(folder / SHEET_MD, markdown)
        put(folder / TEMPLATE, json.dumps(ex_mod.template(ex), indent=2) + "\n")
        for name, file in files.items():
            code = codes["exercises"][ex["name"]][binding.student_key(name)]["code"]
            put(folder / PERSONAL / file, json.dumps(ex_mod.template(ex, name, code), indent=2) + "\n")
    yours = (f" (`{PERSONAL}/<your name>.json`, made for you: your name is in it; "
             f"`{TEMPLATE}` if there is none)") if files else f" (a copy of `{TEMPLATE}`, your name in it)"
    put(out / "README.md", INDEX.format(titles=", ".join(ex["title"] for ex in exercises),
                                        sheet_html=SHEET_HTML, sheet_md=SHEET_MD, yours=yours))
    if codes is not None:
        binding.write_codes(codes_file, codes)
        written.append(codes_file)
    return written
