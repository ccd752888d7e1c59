"""The results document: one versioned JSON per run, written atomically, plus CSV.

Every point carries topology, rate_mbit, workload, its sweep parameters and
throughput_mbyte_s, beside the fidelity monitor's verdict. The document also
records the environment the numbers came from (kernel, tools, implementations).
"""
from __future__ import annotations

import csv
import json
import os
import platform
import subprocess
import time
from pathlib import Path

SCHEMA_VERSION = 1
ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "results"

SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Beowulf Netlab results document",
    "type": "object",
    "required": ["schema_version", "tool", "created", "workload", "parameters", "environment", "points"],
    "properties": {
        "schema_version": {"const": SCHEMA_VERSION},
        "tool": {"type": "string"},
        "created": {"type": "string"},
        "workload": {"enum": ["token", "iperf", "filecopy"]},
        "parameters": {"type": "object"},
        "environment": {"type": "object", "required": ["kernel", "tools", "topologies"]},
        "complete": {"type": "boolean"},
        "paper": {"type": "object"},
        "points": {"type": "array", "items": {
            "type": "object",
            "required": ["topology", "rate_mbit", "workload", "throughput_mbyte_s", "placement",
                         "pairs", "repeat", "fidelity"],
            "properties": {
                "topology": {"type": "string"},
                "rate_mbit": {"type": "number", "exclusiveMinimum": 0},
                "workload": {"type": "string"},
                "throughput_mbyte_s": {"type": "number", "minimum": 0},
                "placement": {"type": "string"},
                "pairs": {"type": "integer", "minimum": 1},
                "token_size": {"type": "integer", "minimum": 1},
                "tokens_in_flight": {"type": "integer", "minimum": 1},
                "repeat": {"type": "integer", "minimum": 0},
                "fidelity": {"type": "object", "required": ["suspect"]},
            }}},
    },
}


def _version(cmd: list[str]) -> str | None:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (out.stdout or out.stderr).strip().splitlines()
    return text[0] if text else None


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def environment() -> dict:
    try:
        import mininet.net
        mn = mininet.net.VERSION
    except Exception:  # noqa: BLE001
        mn = None
    commit = _version(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    dirty = _version(["git", "-C", str(ROOT), "status", "--porcelain"])
    return {
        "kernel": platform.release(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "tools": {"mininet": mn, "iperf3": _version(["iperf3", "--version"]),
                  "ovs": _version(["ovs-vsctl", "--version"]), "tc": _version(["tc", "-V"]),
                  "nft": _version(["nft", "--version"])},
        "project_commit": (commit or "unknown") + ("-dirty" if dirty else ""),
        # When br_netfilter is loaded, bridged frames also traverse iptables.
        "bridge_nf_call_iptables": _read("/proc/sys/net/bridge/bridge-nf-call-iptables"),
        "tcp_reordering": _read("/proc/sys/net/ipv4/tcp_reordering"),
        "topologies": {},
    }


def new_document(workload: str, parameters: dict, paper: dict | None = None) -> dict:
    return {"schema_version": SCHEMA_VERSION, "tool": "beowulf-netlab",
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "workload": workload,
            "parameters": parameters, "environment": environment(), "paper": paper or {},
            "complete": False, "points": []}


def write_atomic(doc: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(doc, indent=1, default=str))
    os.replace(tmp, path)


CSV_FIELDS = ["topology", "rate_mbit", "channels", "workload", "placement", "pairs", "token_size",
              "tokens_in_flight", "repeat", "throughput_mbyte_s", "rtt_ms_median", "suspect"]


def write_csv(doc: dict, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for p in doc["points"]:
            w.writerow({**p, "suspect": p["fidelity"].get("suspect") or ""})
    os.replace(tmp, path)


def validate(doc: dict) -> None:
    """Raise jsonschema.ValidationError when the document does not match SCHEMA."""
    import jsonschema
    jsonschema.validate(doc, SCHEMA)


def load(path: str | Path) -> dict:
    doc = json.loads(Path(path).read_text())
    validate(doc)
    return doc
