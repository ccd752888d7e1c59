"""Sensitivity: how each claim's verdict moves across the choices the papers leave open.

The papers do not say how many tokens a pair kept in flight, how much a copy
moved per read and write, or how many pairs ran at 100 Mbit/s; each experiment
fixes one value beforehand (never picked to pass). beowulf_netlab/claims/sensitivity.json
lists other values (schema SCHEMA, written to beowulf_netlab/claims/sensitivity.schema.json);
`reproduce --sensitivity` runs each variant of its experiment on the paper's
hardware and the report shows, per claim that reads it, the verdict of the run
beside the verdict with the variant. Reported, never chosen from: the claims'
verdicts stay those of the experiments as written.

Ranges are another matter: a hardware profile's constant that the era sources give only as a
range (topologies.hardware RANGED: its value, low and high) is run at both ends by every
`reproduce` on the paper's hardware (range_variants, derived from the profiles: declared once),
one constant at a time, on the points the claims' checks read in each experiment's quick sweep.
A claim whose outcome differs between the ends is not decided by the sources (`decided`): its
verdict reads UNDETERMINED, the deciding constant named; an end that is not checkable decides
nothing (OPEN).
"""
from __future__ import annotations

from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.jsonfile import TEXT, check_schema, list_file_schema, read_json, write_schema
from beowulf_netlab.core.verdicts import Verdict
from beowulf_netlab.judge.claims import PAPER, judge_all
from beowulf_netlab.run.experiment import experiment_files, load
from beowulf_netlab.run.sweep import axes_for
from beowulf_netlab.topologies.hardware import ERA, NONE, load as load_profile, ranged_constants

PACKAGE = Path(__file__).resolve().parent.parent   # beowulf_netlab/, beside its data folders
VARIANTS_FILE = PACKAGE / "claims" / "sensitivity.json"
SCHEMA_FILE = PACKAGE / "claims" / "sensitivity.schema.json"

SCHEMA = list_file_schema(
    "Beowulf Netlab sensitivity variants",
    "Other values of the choices the papers leave open, each run as a variant of one "
    "experiment; the report shows how the claims reading it move (beowulf_netlab/judge/sensitivity.py).",
    "variants",
    ["id", "experiment", "set", "why"],
    {
            "id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9.-]*$"},
            "experiment": {**TEXT, "description": "beowulf_netlab/experiments/<name>.json"},
            "set": {"type": "object", "minProperties": 1,
                    "description": "axis -> value(s), as in an experiment file's sweep; replaces the "
                                   "experiment's (and its quick) values"},
            "why": {**TEXT, "description": "why this value is open: what the papers leave unsaid"}})


# The setting (an axis of every workload: run.sweep.NETWORK_AXES) that runs each ranged
# constant at another value; a profile's ranged constant missing here is refused (a test).
RANGE_AXES = {"card.tx_gap_us": "tx_gap_us", "card.latency_us": "card_latency_us"}
UNDETERMINED = Verdict.UNDETERMINED
DECIDED, NOT_RUN = "decided", "range ends not run"


def range_variants(experiments: dict[str, list[str]]) -> list[dict]:
    """The range-end variants of the experiments given (name -> the hardware profiles their
    figure ran on; one setting cannot move two profiles' ranges, so an experiment on several,
    `era` across rates, gets none): one per ranged constant of the profile and end, as
    sensitivity variants (id, experiment, set, why) with `range`: {profile, constant, end, value}."""
    out = []
    for name, profiles in experiments.items():
        if len(profiles) != 1 or profiles[0] in (NONE, ERA):
            continue
        hardware = profiles[0]
        data = load_profile(hardware).data
        for constant, (value, low, high) in ranged_constants(data).items():
            axis = RANGE_AXES.get(constant)
            if axis is None:
                raise BadInput(f"hardware profile {hardware}: {constant} is ranged but no setting runs "
                               f"it (beowulf_netlab/judge/sensitivity.py RANGE_AXES)")
            section, key = constant.split(".")
            for end, v in (("low", low), ("high", high)):
                out.append({"id": f"range-{constant.replace('.', '-').replace('_', '-')}-{end}-{name}",
                            "experiment": name, "set": {axis: v},
                            "why": f"{constant} of {hardware} at the {end} end of its range "
                                   f"({low:g}..{high:g}, headline {value:g}): {data[section][key]['source']}",
                            "range": {"profile": hardware, "constant": constant, "end": end, "value": v}})
    return out


def range_variants_of(names: list[str]) -> list[dict]:
    """range_variants of the named experiments, their profiles read from their files (the report
    command, rebuilding a report from stored documents)."""
    files = experiment_files()
    return range_variants({n: [h for h in load(files[n])[0]["hardware"] if h != NONE]
                           for n in names if n in files})


def _with_ends(docs: dict[str, dict], ends: dict[str, dict]) -> dict[str, dict]:
    """The run's documents with the ends' in place of their experiments', the others cut to the
    ends' repeats: a claim reading two experiments would otherwise find a repeat the end did not
    run, and call its repeats noisy."""
    runs = 1 + max((p["repeat"] for d in ends.values() for p in d.get("points", [])), default=0)
    cut = {n: {**d, "points": [p for p in d["points"] if p["repeat"] < runs]} if "points" in d else d
           for n, d in docs.items() if n not in ends}
    return {**cut, **ends}


# What a verdict says about the claim, for comparing the ends of a range: a claim that passes
# whether or not it could have failed passes; a verdict that says nothing (not checkable: a gate,
# noise, a calibration missed) is None; a calibration point or a tested fact is not judged here.
OUTCOME = {Verdict.REPRODUCED: "passes", Verdict.FORCED: "passes", Verdict.IN_SHAPE: "passes in shape",
           Verdict.NOT_REPRODUCED: "fails", Verdict.NOT_CHECKABLE: None}
NOT_EVIDENCE = (Verdict.CALIBRATION, Verdict.TESTED, Verdict.CONSEQUENCE)
OPEN = "an end not checkable"


def decided(claims: list[dict], docs: dict[str, dict], variant_docs: dict[str, dict],
            variants: list[dict], quick: bool = True) -> dict[str, dict]:
    """Per claim judged on the paper view: whether the sources decide its verdict. Each
    (profile's constant, end) replaces every experiment it ran for at once, one constant at a
    time. The ends ran on the experiments' quick sweeps, so a claim's outcomes (OUTCOME) at the
    two ends are compared, and where the run itself was quick (the same points) the run's too:
    UNDETERMINED (the constant and its verdict at each end named) when two outcomes differ;
    `decided` when every end that touches its experiments gave one and none differs; OPEN when
    an end was not checkable (nothing to compare); NOT_RUN when an end is missing."""
    base = {r["id"]: r for r in judge_all(claims, docs, PAPER)}
    ends: dict[tuple[str, str], dict] = {}
    for v in variants:
        r = v.get("range")
        if r:
            ends.setdefault((f'{r["profile"]} {r["constant"]}', r["end"]), {})[v["experiment"]] = (v["id"], r["value"])
    out = {}
    for c in claims:
        touching = {k: e for k, e in ends.items() if any(x in e for x in c["experiments"])}
        if not touching or c["id"] not in base or base[c["id"]]["verdict"] in NOT_EVIDENCE:
            continue
        missing, readings = False, {}
        for (constant, end), exps in touching.items():
            if any(vid not in variant_docs for vid, _ in exps.values()):
                missing = True
                continue
            replaced = _with_ends(docs, {x: variant_docs[vid] for x, (vid, _) in exps.items()})
            got = {r["id"]: r for r in judge_all([c], replaced, PAPER)}[c["id"]]["verdict"]
            readings.setdefault(constant, {})[end] = (next(iter(exps.values()))[1], got)
        run = OUTCOME.get(base[c["id"]]["verdict"])
        moved, unread = [], False
        for k, rs in readings.items():
            said = {OUTCOME.get(g) for _, g in rs.values()} | ({run} if quick else set())
            unread |= None in said or len(rs) < 2
            if len(said - {None}) > 1:
                moved.append(k)
        def text(k: str) -> str:
            return ", ".join(f"{v:g} -> {g}" for _, (v, g) in sorted(readings[k].items(), key=lambda e: e[1][0]))
        if moved:
            out[c["id"]] = {"state": UNDETERMINED, "constant": moved[0],
                            "text": f"{UNDETERMINED}: {moved[0]} decides it ({text(moved[0])})"}
        elif missing:
            out[c["id"]] = {"state": NOT_RUN, "constant": None, "text": NOT_RUN}
        elif unread:
            out[c["id"]] = {"state": OPEN, "constant": None, "text": f"{OPEN}: " + "; ".join(
                f"{k}: {text(k)}" for k in sorted(readings))}
        else:
            out[c["id"]] = {"state": DECIDED, "constant": None,
                            "text": f"{DECIDED} (the same at both ends of {', '.join(sorted(readings))})"}
    return out


def apply_decided(verdicts: list[dict], states: dict[str, dict]) -> list[dict]:
    """The paper view's verdicts with `decided`'s states: a claim the range decides keeps its
    verdict; one it does not reads UNDETERMINED (the verdict as run kept as `as_run`)."""
    out = []
    for r in verdicts:
        st = states.get(r["id"])
        r = {**r, "sources": st["text"] if st else "no ranged constant reaches it"}
        if st and st["state"] == UNDETERMINED:
            r = {**r, "as_run": r["verdict"], "verdict": UNDETERMINED,
                 "reason": f"{st['text']}; as run: {r['verdict']}"}
        out.append(r)
    return out


def load_variants(path: Path = VARIANTS_FILE) -> list[dict]:
    data = read_json(path, "sensitivity file")
    check_schema(data, SCHEMA, f"sensitivity file {path}")
    return data["variants"]


def variant_sweep(variant: dict, quick: bool):
    """The variant's experiment with its `set` values in place of the file's (quick ones too)."""
    path = experiment_files().get(variant["experiment"])
    if path is None:
        raise BadInput(f"sensitivity file {VARIANTS_FILE}: variant {variant['id']} names no experiment "
                       f"{variant['experiment']!r}")
    axes = {a.name: a for a in axes_for(read_json(path, "experiment file")["workload"])}
    where = f"sensitivity file {VARIANTS_FILE}: variant {variant['id']}"
    unknown = [k for k in variant["set"] if k not in axes]
    if unknown:
        raise BadInput(f"{where}: {', '.join(unknown)} is not a setting of {variant['experiment']}'s workload")
    override = {k: axes[k].from_json(v, f"{where}: set.{k}") for k, v in variant["set"].items()}
    return load(path, quick=quick, override=override)


def rows(claims: list[dict], docs: dict[str, dict], variant_docs: dict[str, dict],
         variants: list[dict] | None = None) -> list[dict]:
    """Per variant that ran, per claim reading its experiment: the run's verdict and the
    variant's, on the paper's hardware (the variant's document replaces the experiment's)."""
    variants = load_variants() if variants is None else variants
    base = {r["id"]: r for r in judge_all(claims, docs, PAPER)}
    out = []
    for v in variants:
        vdoc = variant_docs.get(v["id"])
        if vdoc is None:
            continue
        reading = [c for c in claims if v["experiment"] in c["experiments"]]
        moved = {r["id"]: r for r in judge_all(reading, {**docs, v["experiment"]: vdoc}, PAPER)}
        for c in reading:
            b, m = base.get(c["id"]), moved[c["id"]]
            out.append({"variant": v["id"], "set": v["set"], "why": v["why"], "claim": c["id"],
                        "verdict": b["verdict"] if b else "not judged", "variant_verdict": m["verdict"],
                        "variant_reason": m.get("reason", ""), "moved": not b or b["verdict"] != m["verdict"]})
    return out


if __name__ == "__main__":
    write_schema(SCHEMA_FILE, SCHEMA)
    print(f"wrote {SCHEMA_FILE}")
