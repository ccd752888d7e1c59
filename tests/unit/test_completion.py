"""Shell completion and the man page, made from the parser (beowulf_netlab/commands/completion.py): the bash
and zsh scripts complete verbs, subverbs, flags and choices; docs/beowulf-netlab.1 is what the
generator makes now (so it cannot go stale) and renders without warnings (no root)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from beowulf_netlab import commands
from beowulf_netlab.commands import completion

ROOT = Path(__file__).resolve().parents[2]
MAN_PAGE = ROOT / "docs" / "beowulf-netlab.1"
REGENERATE = "python3 emulate.py completion man > docs/beowulf-netlab.1"


@pytest.fixture(scope="module")
def tree():
    return completion.walk(commands.make_parser())


@pytest.fixture(scope="module")
def bash_script(tree, tmp_path_factory):
    path = tmp_path_factory.mktemp("completion") / "beowulf-netlab.bash"
    path.write_text(completion.bash(tree))
    return path


def bash_complete(script: Path, words: list[str], cwd: Path | None = None) -> list[str]:
    """COMPREPLY after <TAB> with the cursor at the end of words (the last may be "")."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    prog = (f"source '{script}'\nCOMP_WORDS=({quoted})\nCOMP_CWORD={len(words) - 1}\n"
            "_beowulf_netlab\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", prog], capture_output=True, text=True,
                       timeout=30, cwd=cwd)
    assert r.returncode == 0 and not r.stderr, r.stderr
    return [w for w in r.stdout.splitlines() if w]


needs_bash = pytest.mark.skipif(not shutil.which("bash"), reason="bash not installed")


@needs_bash
@pytest.mark.parametrize("words, expected", [
    (["emulate.py", "ex"], ["experiment", "exercise"]),
    (["emulate.py", "run", "--wire", ""], ["auto", "engine", "tc"]),
    (["beowulf-netlab", "run", "--wire", "t"], ["tc"]),
    (["beowulf-netlab", "run", "--wire", "=", ""], ["auto", "engine", "tc"]),   # --wire=<TAB>
    (["beowulf-netlab", "run", "--wire", "tc", ""], ["token", "iperf", "filecopy", "pfs", "sniff"]),
    (["beowulf-netlab", "run", "token", "--tok"], ["--token-size", "--tokens-in-flight"]),
    (["beowulf-netlab", "topo", ""], ["list", "show"]),
    (["beowulf-netlab", "completion", ""], ["bash", "zsh", "man"]),
    (["beowulf-netlab", "--v"], ["--version"]),
    # an optional value (--contention alone means on): its values, then the positional's
    (["beowulf-netlab", "run", "--contention", "on", "to"], ["token"]),
    # the exercises and the experiments by name (44.5)
    (["beowulf-netlab", "exercise", "check", "me"], ["message-size"]),
    (["beowulf-netlab", "exercise", "show", "s"], ["shared-hub", "software-routing"]),
    (["beowulf-netlab", "experiment", "ipps96-fig5"], ["ipps96-fig5-demonstration"]),
])
def test_bash_completes(bash_script, words, expected):
    got = bash_complete(bash_script, words)
    assert sorted(got) == sorted(expected), got


@needs_bash
def test_bash_completes_verbs_and_presets(bash_script, tree):
    assert bash_complete(bash_script, ["beowulf-netlab", ""]) == [n.path[-1] for n in tree.subs]
    got = bash_complete(bash_script, ["emulate.py", "topo", "show", "bonded-"], cwd=ROOT / "docs")
    assert got == ["bonded-dual-net", "bonded-switched-mesh"]


@needs_bash
def test_bash_completes_file_values(bash_script, tmp_path):
    (tmp_path / "answers.json").write_text("{}")
    (tmp_path / "attic").mkdir()
    assert bash_complete(bash_script, ["beowulf-netlab", "run", "--out", "ans"], cwd=tmp_path) == ["answers.json"]
    assert bash_complete(bash_script, ["beowulf-netlab", "report", "--out", "a"], cwd=tmp_path) == ["attic"]


@pytest.mark.skipif(not shutil.which("zsh"), reason="zsh not installed")
def test_zsh_script_completes(tree, tmp_path):
    """The zsh script's function with compadd/compset/_files stood in by shell functions that
    record what would be offered (completion widgets need a terminal)."""
    script = tmp_path / "_beowulf-netlab"
    script.write_text(completion.zsh(tree))
    prog = f"""
compdef() {{ :; }}
compset() {{ [[ $1 == -P ]] && PREFIX=${{PREFIX#*=}} }}
compadd() {{ [[ $1 == -- ]] && shift; local w; for w in "$@"; do [[ $w == ${{PREFIX}}* ]] && OUT+=("$w"); done }}
_files() {{ OUT+=("<files>") }}
source {script}
t() {{ words=("$@"); CURRENT=$#; PREFIX=${{words[CURRENT]}}; OUT=(); _beowulf_netlab; print -r -- "${{OUT[*]}}" }}
t emulate.py ex
t beowulf-netlab run --wire ''
t beowulf-netlab run --wire=e
t beowulf-netlab topo show ''
t beowulf-netlab report ''
"""
    r = subprocess.run(["zsh", "-f", "-c", prog], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and not r.stderr, r.stderr
    assert r.stdout.splitlines() == [
        "experiment exercise", "auto engine tc", "engine",
        "<files> single-net bonded-dual-net switched-mesh routed-mesh bonded-switched-mesh switched-cluster",
        "<files>"]


def test_completion_verb_prints_the_scripts(capsys):
    assert commands.main(["completion", "bash"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("complete -F _beowulf_netlab beowulf-netlab emulate.py")
    assert commands.main(["completion", "zsh"]) == 0
    assert capsys.readouterr().out.startswith("#compdef beowulf-netlab emulate.py")


def test_every_flag_is_in_the_scripts(tree):
    text = completion.bash(tree)
    for node in completion.nodes(tree):
        for option in node.options:
            for flag in option.flags:
                assert flag in text, (node.path, flag)


def test_man_page_is_what_the_generator_makes_now(tree):
    assert MAN_PAGE.read_text() == completion.man(tree), f"docs/beowulf-netlab.1 is stale: run {REGENERATE}"


def test_man_page_documents_every_verb_and_flag(tree):
    page = MAN_PAGE.read_text()
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS", "FILES", "EXAMPLES"):
        assert f"\n.SH {section}\n" in page, section
    for node in completion.nodes(tree)[1:]:
        assert f'.SS "{" ".join(node.path)}"' in page
        for option in node.options:
            assert option.flags[-1].replace("-", "\\-") in page, (node.path, option.flags)


def test_roff_escapes_what_would_be_markup():
    assert completion.roff(".start") == "\\&.start"
    assert completion.roff("a\\b") == "a\\eb"
    assert completion.roff("5 µs") == "5 \\[u00B5]s"


def test_man_page_renders():
    env = {**os.environ, "MANWIDTH": "80", "LC_ALL": "C.UTF-8", "MANPAGER": "cat", "PAGER": "cat"}
    if shutil.which("man"):
        argv = ["man", "--warnings", "-l", str(MAN_PAGE)]
    elif shutil.which("groff"):
        argv = ["groff", "-man", "-Tutf8", "-ww", str(MAN_PAGE)]
    else:
        pytest.skip("neither man nor groff is installed")
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    assert "warning" not in r.stderr, r.stderr
    out = r.stdout
    for heading in ("NAME", "SYNOPSIS", "COMMANDS", "EXIT STATUS", "FILES", "EXAMPLES"):
        assert f"\n{heading}\n" in out, heading
    assert "beowulf-netlab run" in out and "--wire" in out.replace("\u2010", "-")
