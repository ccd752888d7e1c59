"""Who an answers file and its check record belong to (issue 44): hand-out codes, the record's
seal and the machine it names, and what `grade` flags.

The hand-out deals every roster name a code per exercise, `INDEX-RANDOM`: the index sets the
order of the choices in that student's file (judge.exercise.dealt_order: consecutive indexes
put each choice in every place equally often), the random part makes the code theirs. The
teacher keeps who got which code (the codes file, written beside the bundle, never in it).

`check` writes a record beside the answers file that names the exercise, the student, the
code, the answers file's sha256, the machine (machine-id, boot id, host name) and when, with
what it measured, sealed by a sha256 of all of it. A student owns their VM, so the seal catches
an edit made by hand, not one made by someone who recomputes it; what a copy cannot hide is the
code (dealt to someone else: the codes file says whose) and the machine session (the same boot
of the same machine as a classmate's record).
"""
from __future__ import annotations

import datetime
import hashlib
import json
import re
import secrets
import socket
from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.jsonfile import check_schema, read_json
from beowulf_netlab.core.safefile import write_atomic_bytes
from beowulf_netlab.core.text import plain

TEMPLATE_STUDENT = "your name"
CODES_SUFFIX = ".codes.json"
RECORD_FORMAT = 2          # records before it (no seal, no machine) are made by an older check
MAX_CODES_BYTES = 4 << 20
_CODE = re.compile(r"^(\d{1,4})-([0-9a-f]{8})$")
_FIELD = {"type": "string", "minLength": 1}
CODES_SCHEMA = {
    "type": "object", "required": ["exercises"],
    "properties": {"exercises": {"type": "object", "additionalProperties": {
        "type": "object", "additionalProperties": {
            "type": "object", "required": ["student", "code"],
            "properties": {"student": _FIELD, "code": {"type": "string", "pattern": _CODE.pattern}}}}}}}


def student_key(student) -> str:
    """A name as it is compared: case and spacing do not matter; no name, or the template's
    placeholder, is no student."""
    key = " ".join(plain(student).split()).casefold() if isinstance(student, str) else ""
    return "" if key == TEMPLATE_STUDENT else key


# -- hand-out codes ------------------------------------------------------------------------------

def code_index(code) -> int | None:
    """The index a hand-out code deals the choice orders by, or None for no code or a malformed one."""
    m = _CODE.match(code) if isinstance(code, str) else None
    return int(m.group(1)) if m else None


def deal(exercises: list[str], roster: list[str]) -> dict:
    """A code per exercise and roster name, in roster order (the index is the name's place)."""
    when = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return {"what": "who was dealt which hand-out code (exercise handout); exercise grade --codes reads it. "
                    "The teacher's: never hand it out.",
            "made": when,
            "exercises": {name: {student_key(s): {"student": s, "code": f"{i}-{secrets.token_hex(4)}"}
                                 for i, s in enumerate(roster)} for name in exercises}}


def codes_path(out: Path) -> Path:
    """Where the hand-out keeps its codes: beside the bundle folder, never inside it."""
    out = Path(out).resolve()
    return out.with_name(out.name + CODES_SUFFIX)


def write_codes(path: Path, codes: dict) -> None:
    try:
        write_atomic_bytes(path, json.dumps(codes, indent=1, ensure_ascii=False) + "\n", mode=0o600)
    except OSError as e:
        raise BadInput(f"cannot write the codes file {path}: {e.strerror}; choose another --codes")


def read_codes(path: Path) -> dict:
    """A codes file as the hand-out wrote it (BadInput, one line, when it is not one)."""
    data = read_json(path, "codes file", limit=MAX_CODES_BYTES)
    check_schema(data, CODES_SCHEMA, f"codes file {path}")
    return data


def code_notes(exercise: str, student, code, codes: dict | None) -> list[str]:
    """What the codes file says about an answers file's code: [] when it was dealt to this student."""
    if codes is None:
        return []
    dealt = codes["exercises"].get(exercise)
    if dealt is None:
        return [f"flagged: the codes file deals no code for {exercise}"]
    key = student_key(student)
    mine = dealt.get(key)
    if not isinstance(code, str) or not code:
        return ["no hand-out code: the class's generic template, not the one made for them"] if mine else []
    if mine and mine["code"] == code:
        return []
    owner = next((d["student"] for d in dealt.values() if d["code"] == code), None)
    if owner is not None:
        return [f"flagged: its hand-out code was dealt to {plain(owner)} (a classmate's file under this name?)"]
    return [f"flagged: its hand-out code {plain(code)[:40]!r} was not dealt in this class (edited?)"]


# -- the check record ----------------------------------------------------------------------------

def _first_line(path: str) -> str:
    try:
        return Path(path).read_text().strip()[:64]
    except OSError:
        return ""


def machine() -> dict[str, str]:
    """What names this machine and this boot of it: /etc/machine-id (dbus's copy when absent),
    the kernel's random boot id, the host name ("" for what cannot be read)."""
    return {"machine_id": _first_line("/etc/machine-id") or _first_line("/var/lib/dbus/machine-id"),
            "boot_id": _first_line("/proc/sys/kernel/random/boot_id"),
            "hostname": socket.gethostname()[:64]}


def seal(record: dict) -> str:
    """sha256 of the record without its seal, keys sorted: the same bytes wherever computed."""
    body = {k: v for k, v in record.items() if k != "seal"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"),
                                     ensure_ascii=False).encode()).hexdigest()


def make(exercise: str, student, code, answers_sha256: str, measured: dict[str, float], doubts: list[str],
         answered: dict[str, str], *, verdicts: list[dict] | None = None, revealed: bool = False,
         host: dict[str, str] | None = None, when: str | None = None) -> dict:
    """The record `check` writes: whose, of which answers file, where and when, what it measured,
    how each answer reads (answered, blank, unreadable) and, in a teacher's checkout only, the
    verdicts; sealed."""
    record = {"format": RECORD_FORMAT, "exercise": exercise, "student": student, "code": code,
              "answers_sha256": answers_sha256,
              "checked_at": when or datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": host if host is not None else machine(),
              "measured": measured, "measurement_doubts": doubts, "answers": answered}
    if verdicts is not None:
        record["verdicts"] = verdicts
    if revealed:
        record["revealed"] = True
    record["seal"] = seal(record)
    return record


def record_problem(record: dict) -> str | None:
    """Why a record is not one `check` wrote as it stands (an older check's, edited, or made with
    the references shown), or None. The measured values are checked by the caller."""
    if record.get("format") != RECORD_FORMAT or "seal" not in record:
        return "was made by an older check (no seal): run check again"
    if record.get("seal") != seal(record):
        return "was edited after check wrote it (its seal does not match)"
    if record.get("revealed"):
        return "was made by check --reveal (the references were shown)"
    host = record.get("machine")
    if not isinstance(host, dict) or not all(isinstance(host.get(k), str) for k in ("machine_id", "boot_id")):
        return "names no machine"
    return None


def session(record) -> tuple[str, str] | None:
    """(machine id, boot id) of a record, when it names both."""
    host = record.get("machine") if isinstance(record, dict) else None
    if not isinstance(host, dict):
        return None
    mid, boot = host.get("machine_id"), host.get("boot_id")
    return (mid, boot) if isinstance(mid, str) and isinstance(boot, str) and mid and boot else None


def shared(records: dict[str, dict], codes: dict[str, str]) -> dict[str, list[str]]:
    """file -> flags for what two files share that one student's never would: a code (the same
    template), or a record from the same boot of the same machine (a copied record: two students
    never check in one session of one VM, unless they shared it, which the teacher should know)."""
    out: dict[str, list[str]] = {}

    def flag(groups: dict, what: str) -> None:
        for files in groups.values():
            for f in files if len(files) > 1 else []:
                others = ", ".join(plain(o) for o in files if o != f)
                out.setdefault(f, []).append(f"flagged: {what} as {others}")

    by_session: dict[tuple, list[str]] = {}
    for f, r in records.items():
        if (s := session(r)) is not None:
            by_session.setdefault(s, []).append(f)
    flag(by_session, "its check record comes from the same machine session")
    by_code: dict[str, list[str]] = {}
    for f, c in codes.items():
        if code_index(c) is not None:
            by_code.setdefault(c, []).append(f)
    flag(by_code, "the same hand-out code")
    return out
