"""emulate.py completion bash|zsh|man: shell completion and the man page, made from the parser.

Both walk the argparse tree that `commands.make_parser` builds (verbs, subverbs, flags, their
choices), so a new flag is completed and documented without anyone editing a script or a page:
docs/beowulf-netlab.1 is this module's `man` output (a unit test keeps the two equal), and
playbooks/setup.yml installs the bash script and the page. No dependency beyond argparse.
"""
from __future__ import annotations

import argparse
import re
import shlex
import sys
from dataclasses import dataclass, field

from beowulf_netlab.core.errors import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_USAGE
from beowulf_netlab.core.version import NAME, RELEASED, __version__
from beowulf_netlab.topologies.presets import PRESETS

SHELLS = ("bash", "zsh", "man")
COMMAND_NAMES = (NAME, "emulate.py")   # what the scripts complete (./emulate.py: bash tries the basename)
FILE, DIR = "@file", "@dir"            # value words meaning "complete a path"
HINTS = {"topology": (*PRESETS, FILE)}  # values argparse cannot list: presets, or a topology file
_WORD = re.compile(r"^[A-Za-z0-9@#._,:+-]+$")


def add_parser(sub) -> None:
    p = sub.add_parser("completion", help="print a shell completion script or the man page",
                       description="Print a completion script for bash or zsh, or the man page (roff), all "
                                   "made from this command line's parser. bash: "
                                   "`source <(beowulf-netlab completion bash)` (./setup.sh installs it in "
                                   "/etc/bash_completion.d); zsh: `source <(beowulf-netlab completion zsh)` "
                                   "after compinit; man: `beowulf-netlab completion man | man -l -`.")
    p.add_argument("shell", choices=SHELLS, help="bash, zsh, or man (the page docs/beowulf-netlab.1)")


def run(args) -> int:
    tree = walk(args.root)
    sys.stdout.write({"bash": bash, "zsh": zsh, "man": man}[args.shell](tree))
    return 0


# ---- the parser as data --------------------------------------------------------------------

@dataclass
class Option:
    flags: list[str]
    metavar: str | None          # None: a flag that takes no value
    values: list[str]            # words offered for its value (may hold FILE/DIR)
    optional_value: bool         # nargs='?' (--contention alone)
    help: str
    required: bool = False


@dataclass
class Positional:
    name: str
    values: list[str]
    many: bool                   # nargs + or *: it takes every later word
    help: str


@dataclass
class Node:
    path: list[str]              # verbs from the top: [], ["topo"], ["topo", "show"]
    description: str
    summary: str = ""
    options: list[Option] = field(default_factory=list)
    positionals: list[Positional] = field(default_factory=list)
    subs: list[Node] = field(default_factory=list)
    subs_required: bool = False


def _values(action: argparse.Action, metavar: str | None) -> list[str]:
    choices = action.choices if action.choices is not None else getattr(action.type, "choices", ())
    names = getattr(action, "completes", None)   # a command's own names (exercises, experiments)
    if names is not None:
        return [*names(), *([FILE] if getattr(action, "or_file", False) else [])]
    if action.dest in HINTS:
        return list(HINTS[action.dest])
    if choices:
        return [str(c) for c in choices]
    if metavar and "DIR" in metavar:
        return [FILE if "FILE" in metavar else DIR]
    if metavar is None or "FILE" in metavar:
        return [FILE]
    return []


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    return " ".join(parser._get_formatter()._expand_help(action).split())   # %(default)s, %%


def walk(parser: argparse.ArgumentParser, path: list[str] | None = None, summary: str = "") -> Node:
    """The parser tree as Nodes, in the order argparse holds the actions."""
    node = Node(path or [], " ".join((parser.description or "").split()), summary)
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            helps = {c.dest: c.help or "" for c in a._choices_actions}
            node.subs_required = bool(a.required)
            node.subs = [walk(p, [*node.path, name], helps.get(name, "")) for name, p in a.choices.items()]
        elif a.option_strings:
            takes = a.nargs != 0
            metavar = (a.metavar or a.dest.upper()) if takes else None
            if takes and a.metavar is None and a.choices:
                metavar = "{" + ",".join(map(str, a.choices)) + "}"
            node.options.append(Option(list(a.option_strings), metavar,
                                       _values(a, a.metavar) if takes else [], a.nargs == "?",
                                       _help(parser, a), bool(a.required)))
        else:
            node.positionals.append(Positional(a.metavar or a.dest, _values(a, None),
                                               a.nargs in ("+", "*"), _help(parser, a)))
    return node


def nodes(root: Node) -> list[Node]:
    """Every node, depth first, the top one first."""
    return [root, *(n for s in root.subs for n in nodes(s))]


# ---- bash and zsh -------------------------------------------------------------------------

def _tables(root: Node) -> dict[str, dict[str, str]]:
    """The lookup tables both scripts read, keyed by "@ verb subverb" (+ " --flag" or "#index")."""
    t: dict[str, dict[str, str]] = {k: {} for k in ("subs", "opts", "vals", "optional", "pos", "rest")}
    for n in nodes(root):
        key = " ".join(["@", *n.path])
        if n.subs:
            t["subs"][key] = " ".join(s.path[-1] for s in n.subs)
        t["opts"][key] = " ".join(f for o in n.options for f in o.flags)
        for o in n.options:
            for f in o.flags:
                if o.metavar is not None:
                    t["vals"][f"{key} {f}"] = " ".join(o.values)
                if o.optional_value:
                    t["optional"][f"{key} {f}"] = "1"
        for i, p in enumerate(n.positionals):
            t["pos"][f"{key}#{i}"] = " ".join(p.values)
            if p.many:
                t["rest"][key] = str(i)
    for table in t.values():
        for k, v in table.items():
            bad = [w for w in [*k.split(), *v.split()] if not _WORD.match(w)]
            assert not bad, f"a word the completion scripts cannot hold: {bad}"
    return t


def _assoc(name: str, table: dict[str, str], shell: str) -> str:
    """An associative array: bash's `[key]=value` rows, zsh's key value pairs."""
    if shell == "bash":
        rows = "".join(f"    [{shlex.quote(k)}]={shlex.quote(v)}\n" for k, v in table.items())
        return f"declare -gA {name}\n{name}=(\n{rows})\n"
    rows = "".join(f"    {shlex.quote(k)} {shlex.quote(v)}\n" for k, v in table.items())
    return f"typeset -gA {name}\n{name}=(\n{rows})\n"


BASH_DRIVER = r'''
# the words of a table's value: @file and @dir complete paths
_beowulf_netlab_offer() {
    local w line
    for w in $1; do
        case $w in
            @file) compopt -o filenames 2>/dev/null
                   while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur") ;;
            @dir)  compopt -o filenames 2>/dev/null
                   while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -d -- "$cur") ;;
            *)     [[ $w == "$cur"* ]] && COMPREPLY+=("$w") ;;
        esac
    done
}

_beowulf_netlab() {
    local cur=${COMP_WORDS[COMP_CWORD]-} prev=${COMP_WORDS[COMP_CWORD-1]-} opt="" key=@ n=0 i=1 w
    COMPREPLY=()
    # which verbs are given, and how many positional words after the last one
    while (( i < COMP_CWORD )); do
        w=${COMP_WORDS[i]}
        if [[ $w == -* ]]; then
            if [[ -n ${_beowulf_netlab_vals["$key $w"]+x} && ${COMP_WORDS[i+1]-} != "=" ]]; then
                # the next word is this flag's value (an optional one only if it is one of its values)
                if [[ -z ${_beowulf_netlab_optional["$key $w"]+x} ||
                      " ${_beowulf_netlab_vals["$key $w"]} " == *" ${COMP_WORDS[i+1]-} "* ]]; then
                    (( i++ ))
                fi
            fi
        elif [[ $w == "=" ]]; then
            (( i++ ))   # --flag=value: bash splits at '='
        elif [[ " ${_beowulf_netlab_subs[$key]-} " == *" $w "* ]]; then
            key="$key $w"; n=0
        else
            (( n++ ))
        fi
        (( i++ ))
    done
    if [[ $cur == "=" ]]; then opt=$prev; cur=""
    elif [[ $prev == "=" ]]; then opt=${COMP_WORDS[COMP_CWORD-2]-}
    elif [[ $prev == -* ]]; then opt=$prev
    fi
    if [[ -n $opt && -n ${_beowulf_netlab_vals["$key $opt"]+x} ]]; then
        _beowulf_netlab_offer "${_beowulf_netlab_vals["$key $opt"]}"
        [[ -z ${_beowulf_netlab_optional["$key $opt"]+x} ]] && return 0
    fi
    if [[ $cur == -* ]]; then
        _beowulf_netlab_offer "${_beowulf_netlab_opts[$key]-}"
    elif [[ -n ${_beowulf_netlab_subs[$key]+x} ]]; then
        _beowulf_netlab_offer "${_beowulf_netlab_subs[$key]}"
    else
        [[ -z ${_beowulf_netlab_pos["$key#$n"]+x} && -n ${_beowulf_netlab_rest[$key]+x} ]] &&
            n=${_beowulf_netlab_rest[$key]}
        _beowulf_netlab_offer "${_beowulf_netlab_pos["$key#$n"]-}"
    fi
    return 0
}
'''

ZSH_DRIVER = r'''
# the words of a table's value: @file and @dir complete paths
_beowulf_netlab_offer() {
    local w; local -a plain
    for w in ${=1}; do
        case $w in
            @file) _files ;;
            @dir) _files -/ ;;
            *) plain+=("$w") ;;
        esac
    done
    (( ${#plain} )) && compadd -- "${plain[@]}"
    return 0
}

_beowulf_netlab() {
    local cur=${words[CURRENT]} prev=${words[CURRENT-1]} opt="" key=@ n=0 i=2 w
    while (( i < CURRENT )); do
        w=${words[i]}
        if [[ $w == -*=* ]]; then
            :
        elif [[ $w == -* ]]; then
            if (( ${+_beowulf_netlab_vals[$key $w]} )); then
                if (( ! ${+_beowulf_netlab_optional[$key $w]} )) ||
                   [[ " ${_beowulf_netlab_vals[$key $w]} " == *" ${words[i+1]} "* ]]; then
                    (( i++ ))
                fi
            fi
        elif [[ " ${_beowulf_netlab_subs[$key]} " == *" $w "* ]]; then
            key="$key $w"; n=0
        else
            (( n++ ))
        fi
        (( i++ ))
    done
    if [[ $cur == --*=* ]]; then
        opt=${cur%%=*}
        (( ${+_beowulf_netlab_vals[$key $opt]} )) || return 1
        compset -P '*='
        _beowulf_netlab_offer "${_beowulf_netlab_vals[$key $opt]}"
        return 0
    fi
    if [[ $prev == -* ]] && (( ${+_beowulf_netlab_vals[$key $prev]} )); then
        _beowulf_netlab_offer "${_beowulf_netlab_vals[$key $prev]}"
        (( ${+_beowulf_netlab_optional[$key $prev]} )) || return 0
    fi
    if [[ $cur == -* ]]; then
        _beowulf_netlab_offer "${_beowulf_netlab_opts[$key]}"
    elif (( ${+_beowulf_netlab_subs[$key]} )); then
        _beowulf_netlab_offer "${_beowulf_netlab_subs[$key]}"
    else
        if (( ! ${+_beowulf_netlab_pos[$key#$n]} )) && (( ${+_beowulf_netlab_rest[$key]} )); then
            n=${_beowulf_netlab_rest[$key]}
        fi
        (( ${+_beowulf_netlab_pos[$key#$n]} )) && _beowulf_netlab_offer "${_beowulf_netlab_pos[$key#$n]}"
    fi
    return 0
}
'''


def _script(root: Node, shell: str, driver: str) -> str:
    tables = _tables(root)
    return "".join(_assoc(f"_beowulf_netlab_{k}", v, shell) for k, v in tables.items()) + driver


def bash(root: Node) -> str:
    """A bash completion script (bash 4.2+: associative arrays, declared global so that
    bash-completion may source it from inside a function)."""
    return (f"# bash completion for {' and '.join(COMMAND_NAMES)} {__version__} "
            f"(made by `{NAME} completion bash`)\n" + _script(root, "bash", BASH_DRIVER)
            + f"complete -F _beowulf_netlab {' '.join(COMMAND_NAMES)}\n")


def zsh(root: Node) -> str:
    """A zsh completion script: `source <(beowulf-netlab completion zsh)` after compinit, or
    saved as _beowulf-netlab on $fpath."""
    return (f"#compdef {' '.join(COMMAND_NAMES)}\n"
            f"# zsh completion for {' and '.join(COMMAND_NAMES)} {__version__} "
            f"(made by `{NAME} completion zsh`)\n" + _script(root, "zsh", ZSH_DRIVER)
            + '\nif [[ "${funcstack[1]-}" == _beowulf-netlab ]]; then\n    _beowulf_netlab "$@"\n'
              f"else\n    compdef _beowulf_netlab {' '.join(COMMAND_NAMES)}\nfi\n")


# ---- the man page -------------------------------------------------------------------------

def roff(text: str) -> str:
    """Text safe on a roff line: backslashes escaped, non-ASCII as groff's \\[uXXXX], a line
    never starting with a control character."""
    out = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text.replace("\\", "\\e"))
    return "\\&" + out if out[:1] in (".", "'") else out


def _flag(f: str) -> str:
    return f"\\fB{f.replace('-', chr(92) + '-')}\\fR"


def _usage(n: Node) -> str:
    parts = [f"\\fB{NAME}{''.join(' ' + p for p in n.path)}\\fR"]
    for o in n.options:
        if "-h" in o.flags:
            continue
        shown = _flag(o.flags[0]) + (f" \\fI{roff(o.metavar)}\\fR" if o.metavar else "")
        parts.append(shown if o.required else f"[{shown}]")
    for p in n.positionals:
        parts.append(f"\\fI{roff(p.name)}\\fR" + (" ..." if p.many else ""))
    if n.subs:   # the top one's verbs are the COMMANDS section: too many for one unbreakable word
        verbs = "|".join(s.path[-1] for s in n.subs) if n.path else "\\fICOMMAND\\fR"
        parts.append(verbs if n.subs_required else f"[{verbs}]")
    return " ".join(parts)


def _entries(n: Node) -> list[str]:
    lines = []
    for p in n.positionals:
        words = [v for v in p.values if not v.startswith("@")]
        extra = f" (one of: {', '.join(words)})" if words else ""
        lines += [".TP", f"\\fI{roff(p.name)}\\fR", roff(p.help + extra) or "."]
    for o in n.options:
        if "-h" in o.flags:
            continue
        head = ", ".join(_flag(f) for f in o.flags) + (f" \\fI{roff(o.metavar)}\\fR" if o.metavar else "")
        lines += [".TP", head, roff(o.help) if o.help else "\\&"]
    return lines


EXAMPLES = [
    ("Set up this machine (Debian 12, Ubuntu 22.04/24.04), then run the main job, the quick comparison "
     "of the five 1996 networks (about 2.5 minutes):", ["sudo ./setup.sh", "sudo beowulf-netlab"]),
    ("Every figure of the papers, and the claims report (results/reproduction-TIME-quick/report.html):",
     ["sudo beowulf-netlab reproduce --quick"]),
    ("The presets, and one's wiring (no root needed):",
     ["beowulf-netlab topo list", "beowulf-netlab topo show switched-mesh"]),
    ("The token exchange on the bonded dual bus at 10 Mbit/s, two channels, the tc wire:",
     ["sudo beowulf-netlab run token --topo bonded-dual-net --rate 10 --channels 2 --wire tc"]),
    ("Judge saved results again without running anything:",
     ["beowulf-netlab report results/*.json"]),
    ("Two stored runs point by point (documents or reproduction directories; --json for a program):",
     ["beowulf-netlab compare results/reproduction-A results/reproduction-B"]),
    ("A classroom exercise: the sheet, then a student's answers checked on this machine:",
     ["beowulf-netlab exercise show message-size", "sudo beowulf-netlab exercise check message-size answers.json"]),
    ("Bash completion for this shell:", ["source <(beowulf-netlab completion bash)"]),
]

FILES = [
    ("beowulf_netlab/experiments/*.json", "the papers' figures as experiment files (beowulf_netlab/experiments/schema.json)"),
    ("beowulf_netlab/hardware/*.json", "hardware profiles of the 1996 machines and the 2001 PC"),
    ("beowulf_netlab/claims/claims.json", "the papers' checkable claims, their checks and tolerances"),
    ("beowulf_netlab/exercises/NAME/", "classroom exercises: README.md (the sheet), check.json, solutions/"),
    ("results/", "run documents (JSON, CSV, PNG) and reproductions; beowulf_netlab/results/schema.json describes them. "
                 "An installed copy without a checkout writes results/ in the working folder"),
    ("/run/beowulf-netlab", "manifests of running networks (NETLAB_STATE_DIR), read by clean"),
    ("/var/lib/beowulf-netlab/disks", "the nodes' disk images (NETLAB_DISK_DIR)"),
    ("/etc/bash_completion.d/beowulf-netlab", "bash completion, installed by setup.sh"),
]

ENVIRONMENT = [
    ("NETLAB_DEBUG", "set: an internal error prints its traceback"),
    ("NETLAB_STATE_DIR", "the folder of run manifests (default /run/beowulf-netlab)"),
    ("NETLAB_DISK_DIR", "the folder of node disk images (default /var/lib/beowulf-netlab/disks)"),
    ("NETLAB_REQUIRE_KERNEL", "1: refuse every fallback implementation (the lab-VM test mode)"),
    ("NETLAB_NO_REEXEC", "set: do not re-run under /usr/bin/python3 when Mininet is not importable"),
    ("NETLAB_ENGINE", "the medium engine's binary, beowulf-medium (default: the checkout's "
                      "engine/target/release/beowulf-medium; an installed copy has none: build it in a "
                      "checkout with cargo build --release --manifest-path engine/Cargo.toml)"),
]


def man(root: Node) -> str:
    """The man page (roff, man macros), the same on every host: nothing in it is measured."""
    title = root.description.split(":", 1)[-1].strip().split(".")[0]
    out = [f'.TH "{NAME.upper()}" "1" "{RELEASED}" "{NAME} {__version__}" "User Commands"',
           ".\\\" made by `beowulf-netlab completion man`: edit beowulf_netlab/commands/, not this file",
           ".nh", ".ad l",   # no hyphens inside flags, no stretched usage lines
           ".SH NAME", f"{NAME}, emulate.py \\- {roff(title)}",
           ".SH SYNOPSIS", _usage(root) + " [\\fIARGS\\fR ...]", ".br",
           "\\fBsudo python3 emulate.py\\fR [\\fICOMMAND\\fR] [\\fIARGS\\fR ...]",
           ".SH DESCRIPTION", roff(root.description),
           ".PP", roff(f"{NAME} is the installed name of emulate.py: both re-run themselves under "
                       "/usr/bin/python3 (where Debian's Mininet lives) when started by another "
                       "interpreter. Commands that build networks need root; topo, report, plot, merge, compare, "
                       "exercise list and show, and completion do not. Bad input is one line on "
                       "stderr and exit status 2, before anything is built."),
           ".SH OPTIONS", *_entries(root),
           ".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "print help (of the program, or of a COMMAND after it) and exit",
           ".SH COMMANDS"]
    for n in nodes(root)[1:]:
        out += [f'.SS "{" ".join(n.path)}"', _usage(n), ".PP",
                roff(n.description or n.summary) or "\\&", *_entries(n)]
    out += [".SH EXIT STATUS", ".TP", "0", "success",
            ".TP", str(EXIT_FAILURE), "a run failed, or a check that judges (exercise check, grade) did not pass",
            ".TP", str(EXIT_USAGE), "bad input: a flag, a value or a file the command refuses (one line on stderr)",
            ".TP", str(EXIT_INTERRUPTED), "interrupted (Ctrl-C); the network was taken down",
            ".SH ENVIRONMENT"]
    for name, what in ENVIRONMENT:
        out += [".TP", f"\\fB{name}\\fR", roff(what)]
    out += [".SH FILES", ".PP", roff("Relative paths are in the project's folder (the checkout that holds "
                                     "emulate.py; for `pip install .`, the installed packages' folder).")]
    for path, what in FILES:
        out += [".TP", f"\\fI{roff(path)}\\fR", roff(what)]
    out += [".SH EXAMPLES"]
    for what, commands in EXAMPLES:
        out += [".PP", roff(what), ".PP", ".RS 4", ".nf", *(roff(c) for c in commands), ".fi", ".RE"]
    out += [".SH SEE ALSO", "\\fBmn\\fR(1), \\fBtc\\fR(8), \\fBip\\fR(8), \\fBovs\\-vsctl\\fR(8); "
            "README.md and docs/ in the project's folder"]
    return "\n".join(out) + "\n"
