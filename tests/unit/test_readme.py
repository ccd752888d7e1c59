"""The README orients a newcomer, and every page it leads to is there (no root needed).

- every relative link in README.md and docs/*.md names an existing file, and an anchor
  (`#...`) names a heading of its page, spelt as GitHub spells it;
- the table of contents lists the README's `##` headings, in order (its nested entries the
  `###` headings they point to);
- the first screen (40 lines) holds the two commands, the main job's duration and where the
  claims report is (report.html); the test command is the one CI runs;
- the main job's sample output sits in a fenced block right after its marker line;
- the glossary defines the words the report and the tables use.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]

SETUP = "sudo ./setup.sh && sudo python3 emulate.py"
TESTS = "sudo python3 -m pytest tests"
SAMPLE_MARKER = "<!-- sample: main job output (beowulf_netlab/commands/quick.py) -->"
GLOSSARY_TERMS = ("claim", "verdict", "reproduced", "reproduced in shape", "not reproduced",
                  "not checkable", "calibration point", "tested", "forced by construction",
                  "calibration consequence", "seed",
                  "verified", "derived",
                  "fidelity gate", "repeat", "local-wire", "remote-wire", "view", "hardware profile",
                  "contention", "D", "MB/s")

_FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)


def prose(text: str) -> str:
    """The text without fenced code blocks (headings and links there are not markup)."""
    return _FENCE.sub("", text)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation other than '-' dropped,
    spaces to hyphens (markup such as backticks is punctuation too)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(text: str) -> list[tuple[int, str]]:
    return [(len(m.group(1)), m.group(2)) for m in _HEADING.finditer(prose(text))]


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a page, duplicates numbered as GitHub does (-1, -2, ...)."""
    seen: dict[str, int] = {}
    out = set()
    for _, h in headings(path.read_text()):
        s = slug(h)
        out.add(s if s not in seen else f"{s}-{seen[s]}")
        seen[s] = seen.get(s, 0) + 1
    return out


def links(text: str) -> list[tuple[str, str]]:
    """(text, target) of every Markdown link outside code."""
    return _LINK.findall(_INLINE_CODE.sub("", prose(text)))


def section(text: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", prose(text), re.S | re.M)
    assert m, f"README has no '## {title}' section"
    return m.group(1)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    bad = []
    for text, target in links(page.read_text()):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):          # http:, https:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            bad.append(f"[{text}]({target}): no file {dest}")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"[{text}]({target}): no heading with anchor #{anchor} in {dest.name}")
    assert not bad, "\n".join(bad)


def test_the_pages_link_to_each_other():
    """Every page under docs/ is reachable from the README."""
    targets = {(README.parent / t.partition("#")[0]).resolve() for _, t in links(README.read_text())}
    missing = [p.name for p in PAGES[1:] if p.resolve() not in targets]
    assert not missing, f"docs pages the README does not link: {missing}"


def test_table_of_contents_matches_the_headings():
    text = README.read_text()
    toc = section(text, "Contents")
    entries = re.findall(r"^( *)- \[([^\]]+)\]\(#([^)]+)\)\s*$", toc, re.M)
    assert entries, "the Contents section lists no [heading](#anchor) entries"
    assert len(entries) == len([line for line in toc.splitlines() if line.strip()]), \
        "every line of Contents is one [heading](#anchor) entry"
    level2 = [h for level, h in headings(text) if level == 2 and h != "Contents"]
    assert [t for indent, t, _ in entries if not indent] == level2
    level3 = {h for level, h in headings(text) if level == 3}
    own = anchors(README)
    for indent, title, anchor in entries:
        assert anchor == slug(title), (title, anchor)
        assert anchor in own, anchor
        if indent:
            assert title in level3, title
    # the Contents section comes before the first section it lists
    order = [h for level, h in headings(text) if level == 2]
    assert order[0] == "Contents"


def test_first_screen_orients():
    top = "\n".join(README.read_text().splitlines()[:40])
    for must in (SETUP, TESTS, "about 2.5 minutes", "report.html", "results/"):
        assert must in top, f"the first 40 lines of README.md lack {must!r}"


def test_readme_test_command_is_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(rf"^{re.escape(TESTS)}\s*$", ci, re.M), ".ci/run does not run the README's test command"
    assert "./setup.sh" in ci


def test_main_job_sample_is_a_fenced_block_after_its_marker():
    lines = README.read_text().splitlines()
    assert lines.count(SAMPLE_MARKER) == 1
    i = lines.index(SAMPLE_MARKER)
    assert lines[i + 1].startswith("```"), "the sample's fenced block must follow its marker line"
    assert "```" in lines[i + 2:], "the sample's fenced block is not closed"


def test_glossary_defines_the_words():
    gloss = section(README.read_text(), "Glossary")
    defined = {t.strip() for t in re.findall(r"(?:\*\*|\*)([^*\n]+?)(?:\*\*|\*)", gloss)}
    missing = [t for t in GLOSSARY_TERMS if t not in defined]
    assert not missing, f"the glossary does not define {missing}"


MEASURED = ROOT / "docs" / "measured.json"
_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
          "ten": 10}


def _seconds(text: str) -> int:
    m = re.match(r"(?:(\d+) min)?\s*(?:(\d+) s)?", text)
    return int(m.group(1) or 0) * 60 + int(m.group(2) or 0)


def test_every_stated_number_is_the_recorded_measurement():
    """The README's durations and counts are docs/measured.json's, each consistent with itself
    (its text is its seconds, its "about" within 15 %) and measured at a commit of this history."""
    import json
    import shutil
    import subprocess
    readme = " ".join(README.read_text().split())
    measured = json.loads(MEASURED.read_text())
    for key, m in measured.items():
        if not isinstance(m, dict):
            continue
        assert m["text"] in readme, f"{key}: the README does not say {m['text']!r} (docs/measured.json)"
        assert m["about"] in readme, f"{key}: the README does not say {m['about']!r}"
        assert _seconds(m["text"]) == m["seconds"], key
        about = float(re.search(r"[\d.]+", m["about"]).group())
        unit = 60 if "minute" in m["about"] else 1
        assert abs(about * unit - m["seconds"]) <= 0.15 * m["seconds"], (key, m["about"], m["seconds"])
        if shutil.which("git") and (ROOT / ".git").exists():
            found = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{m['commit']}^{{commit}}"],
                                   capture_output=True)
            assert found.returncode == 0, f"{key}: commit {m['commit']} is not in this history"
    counts = measured["reproduce_full"]["counts"]
    # what could not fail is counted apart per view (issue 42): once a run records it, the README says it
    forced = r"(?:, (\d+) forced by construction)?"
    # and on the papers' hardware what the sources' ranges cannot decide (issue 41)
    undetermined = r"(?:, (\d+) undetermined by the sources)?"
    m = re.search(r"on today's hosts (\d+) reproduced, (\d+) not reproduced, (\d+) not checkable" + forced +
                  r"; on the papers' hardware (\d+) reproduced, (\d+) not reproduced, (\d+) not checkable" + forced
                  + undetermined, readme)
    assert m, "the first screen's sentence on what the report shows today is gone"
    said = [None if x is None else int(x) for x in m.groups()]
    assert said == [counts[v].get(k) for v in ("today", "paper")
                    for k in ("reproduced", "not reproduced", "not checkable", "forced by construction")] \
        + [counts["paper"].get("undetermined by the sources")]
    assert "no claim was found unable to fail" not in readme     # a property of the old rule, not of a run
    first = "\n".join(README.read_text().splitlines()[:50])
    assert "What it shows today" in first


def test_counts_the_readme_quotes_are_those_of_their_files():
    """'the median of at least six exercise check runs' is what every runs.json holds; the results
    README's schema version is the one the code writes."""
    import json
    from beowulf_netlab.run.upgrade import SCHEMA_VERSION
    readme = " ".join(README.read_text().split())
    m = re.search(r"median of at least (\w+) `exercise check` runs", readme)
    assert m, "the README no longer says how many recorded runs the solutions' median takes"
    runs = {len(json.loads(p.read_text())["runs"]) for p in (ROOT / "beowulf_netlab" / "exercises").glob("*/solutions/runs.json")}
    assert min(runs) == _WORDS[m.group(1)], (m.group(1), runs)
    results_readme = (ROOT / "beowulf_netlab" / "results" / "README.md").read_text()
    assert f"(schema version {SCHEMA_VERSION})" in results_readme
    assert f"| `schema_version` | {SCHEMA_VERSION} " in results_readme
