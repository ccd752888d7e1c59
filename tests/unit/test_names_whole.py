"""Names matched whole, integers bounded when read, interface names checked (issue 45, item 4).

JSON Schema's regexes are ECMA-262's, where `$` ends the text; jsonschema runs them with
Python's re.search, where `$` also matches before a final newline, so a node "b0\n" passed
validation and reached Mininet's bash command strings. core.jsonfile.validator matches whole.
"""
import ast
import json
import re
from pathlib import Path

import pytest

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.jsonfile import parse_json, validator, whole

ROOT = Path(__file__).resolve().parent.parent.parent
SKIP = ("tests/", "build/", "engine/", ".git/")


@pytest.mark.parametrize("pattern, want, sample", [
    ("^[a-z][a-z0-9]{0,4}$", r"^[a-z][a-z0-9]{0,4}\Z", "b0"),
    (r"^a\$$", r"^a\$\Z", "a$"),          # an escaped dollar is a character
    ("^[$]+$", r"^[$]+\Z", "$$"),          # so is one in a class
    ("^[]$]+$", r"^[]$]+\Z", "]$"),        # a ] first in a class is a character
    ("^[^]$]$", r"^[^]$]\Z", "a"),
    ("^(a|b$)", r"^(a|b\Z)", "b"),
])
def test_each_end_anchor_becomes_the_end_of_the_text(pattern, want, sample):
    assert whole(pattern) == want
    assert re.search(want, sample) and re.search(pattern, sample + "\n") and not re.search(want, sample + "\n")


def test_pythons_dollar_would_pass_a_trailing_newline():
    """The control: what jsonschema alone accepts."""
    import jsonschema
    schema = {"type": "string", "pattern": "^[a-z][a-z0-9]{0,4}$"}
    jsonschema.validate("b0\n", schema)                                   # passes: the bug
    assert [e.message for e in validator(schema).iter_errors("b0\n")] == ["'b0\\n' does not match '^[a-z][a-z0-9]{0,4}$'"]
    assert list(validator(schema).iter_errors("b0")) == []


def _schemas() -> dict[str, dict]:
    from beowulf_netlab.run.experiment import schema as experiment_schema
    from beowulf_netlab.run.results import SCHEMA as results
    from beowulf_netlab.topologies.files import SCHEMA as topology
    return {"topology": topology, "experiment": experiment_schema(), "results": results}


def _patterns(node) -> list[str]:
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == "pattern" and isinstance(v, str)] + \
            [p for v in node.values() for p in _patterns(v)]
    if isinstance(node, list):
        return [p for v in node for p in _patterns(v)]
    return []


@pytest.mark.parametrize("name", ["topology", "experiment", "results"])
def test_every_name_pattern_in_a_schema_refuses_a_trailing_newline(name):
    """Each pattern ending in $ is checked by the whole-match validator on a string it takes
    plus a newline: refused."""
    schema = _schemas()[name]
    found = [p for p in _patterns(schema) if p.endswith("$")]
    assert found, name
    for p in found:
        sample = next(s for s in ("a", "a0", "b0", "q1", "1/2", "tests/x", "a.b", "abc", "h1")
                      if re.fullmatch(p[1:-1] if p.startswith("^") else p[:-1], s))
        v = validator({"type": "string", "pattern": p})
        assert list(v.iter_errors(sample)) == [] and list(v.iter_errors(sample + "\n")), p


def test_a_topology_file_with_a_newline_in_a_name_is_refused(tmp_path):
    from beowulf_netlab.topologies.files import load
    base = {"name": "t", "summary": "s", "kind": "explicit", "options": {"rate_mbit": 10},
            "wires": [{"name": "h1"}], "nodes": [{"name": "a0", "wires": ["h1"]}, {"name": "a1", "wires": ["h1"]}]}
    for bad in ({**base, "name": "t\n"}, {**base, "wires": [{"name": "h1\n"}]},
                {**base, "nodes": [{"name": "a0\n", "wires": ["h1"]}, {"name": "a1", "wires": ["h1"]}]}):
        f = tmp_path / "t.json"
        f.write_text(json.dumps(bad))
        with pytest.raises(BadInput, match="does not match"):
            load(f)


def test_integers_are_bounded_when_read():
    with pytest.raises(BadInput, match="integer too long to read"):
        parse_json(b'{"a": ' + b"9" * 5000 + b"}", "f")
    with pytest.raises(BadInput, match=r"at a.1: an integer beyond 64 bits \(at most 2\*\*63 - 1\)"):
        parse_json(b'{"a": [0, 9223372036854775808]}', "f")
    assert parse_json(b'{"a": [9223372036854775807, -9223372036854775807, true]}', "f")["a"][0] == 2 ** 63 - 1


def test_interface_names_are_checked_when_a_network_is_described():
    """A wire's 100th port on a 3-character wire, or the 1000th on single-net's, was refused by
    Linux only after 99 ports were built."""
    from beowulf_netlab.topologies.presets import build_spec
    from beowulf_netlab.topologies.spec import SpecError
    build_spec("single-net", nodes=999)
    with pytest.raises(SpecError, match=r"wire w0: .* 16 characters \(bnlXXww0-eth1000\) and Linux allows 15"):
        build_spec("single-net", nodes=1000)


def test_the_run_prefix_length_is_netlabs():
    from beowulf_netlab.netlab.manifest import PREFIX
    from beowulf_netlab.topologies.spec import RUN_PREFIX_CHARS
    assert len(PREFIX) + 2 == RUN_PREFIX_CHARS      # bnl + two hex digits


def test_no_code_anchors_with_a_dollar_and_match():
    """A regex ending in $ used with .match or .search in the code passes a trailing newline:
    code matches names with fullmatch (or \\Z)."""
    bad = []
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(SKIP):
            continue
        tree = ast.parse(path.read_text(), rel)
        dollar = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                  and getattr(node.value.func, "attr", "") == "compile" and node.value.args
                  and isinstance(node.value.args[0], (ast.Constant, ast.JoinedStr))
                  and _ends_in_dollar(node.value.args[0]) for t in node.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("match", "search")
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in dollar):
                bad.append(f"{rel}:{node.lineno}: {node.func.value.id}.{node.func.attr}")
    allowed = {"beowulf_netlab/core/values.py": "numbers: the $ follows \\s*, which takes a newline anyway",
               "beowulf_netlab/netlab/running.py": "a run id, stripped first",
               "beowulf_netlab/judge/sheet.py": "a line of the project's own sheet, from splitlines",
               "beowulf_netlab/commands/completion.py": "words of the project's own flags, from split()",
               "beowulf_netlab/judge/exercise.py": "a letter answer, stripped first (another owner's file)",
               "beowulf_netlab/judge/binding.py": "a hand-out code (another owner's file)"}
    bad = [b for b in bad if b.split(":")[0] not in allowed]
    assert bad == [], "\n".join(bad)


def _ends_in_dollar(node) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.endswith("$") and not node.value.endswith("\\$")
    last = node.values[-1] if node.values else None
    return isinstance(last, ast.Constant) and str(last.value).endswith("$")
