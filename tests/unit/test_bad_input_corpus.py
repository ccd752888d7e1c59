"""A corpus of bad input across every command: each gets exactly one line on
stderr naming the problem, exit status 2, no traceback, and nothing created.

Runs in-process without root: os.geteuid is patched to a normal user, so a
case whose check came after the root check would say "needs root" and fail
its expected word. Experiment and results files are written to a temp dir
first; the snapshot of what exists is taken after that.

Every case runs as under a python3 without Mininet, whichever interpreter runs
the tests (Mininet is hidden), so a check that came after an import of Mininet
ends as an internal error here, under the system python3 of CI too.
"""
import json
import os
import sys
import types
from pathlib import Path

import pytest

pytest.importorskip("jsonschema")

from beowulf_netlab import commands  # noqa: E402
import hostile_archives  # noqa: E402
from beowulf_netlab.netlab.manifest import STATE_DIR  # noqa: E402
from beowulf_netlab.run.results import RESULTS_DIR  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
EXERCISES = Path(__file__).resolve().parent.parent.parent / "beowulf_netlab" / "exercises"
NOT_A_DIR = "/etc/hostname/sub/out.json"   # a path whose parent is a file: unwritable even for root


def exp(sweep: dict, workload: str = "token", **top) -> dict:
    return {"name": "bad", "workload": workload, "sweep": sweep, **top}


# (id, argv (with {files} placeholders), expected word in the one line)
RUN = [
    ("token-size inf", ["run", "token", "--token-size", "inf"], "--token-size"),
    ("token-size nan", ["run", "token", "--token-size", "nan"], "--token-size"),
    ("token-size 1e999", ["run", "token", "--token-size", "1e999"], "--token-size"),
    ("token-size negative", ["run", "token", "--token-size", "-5"], "--token-size"),
    ("token-size zero", ["run", "token", "--token-size", "0"], "1..16M"),
    ("transport unknown", ["run", "token", "--transport", "quic"], "--transport"),
    ("transport udp token too big", ["run", "token", "--transport", "udp", "--token-size", "2K"], "1472"),
    ("transport udp two in flight", ["run", "token", "--transport", "udp", "--token-size", "64", "--tokens-in-flight", "2"], "--tokens-in-flight 1"),
    ("token-size huge", ["run", "token", "--token-size", "100000M"], "1..16M"),
    ("token-size empty", ["run", "token", "--token-size", ""], "--token-size"),
    ("token-size blank in list", ["run", "token", "--token-size", "1,,2"], "without blanks"),
    ("token-size trailing comma", ["run", "token", "--token-size", "1K, "], "without blanks"),
    ("token-size fraction", ["run", "token", "--token-size", "1.5"], "whole number"),
    ("token-size unicode digits", ["run", "token", "--token-size", "\uff18K"], "--token-size"),
    ("token-size suffix", ["run", "token", "--token-size", "1X"], "--token-size"),
    ("token-size too many", ["run", "token", "--token-size", ",".join(["64"] * 65)], "at most 64"),
    ("tokens in flight 0", ["run", "token", "--tokens-in-flight", "0"], "--tokens-in-flight"),
    ("tokens in flight 65", ["run", "token", "--tokens-in-flight", "65"], "--tokens-in-flight"),
    ("tokens in flight 1.5", ["run", "token", "--tokens-in-flight", "1.5"], "whole number"),
    ("pairs negative", ["run", "token", "--pairs", "-2"], "--pairs"),
    ("pairs-list a node with itself", ["run", "token", "--pairs-list", "b0:b0"], "with itself"),
    ("pairs-list not a pair", ["run", "token", "--pairs-list", "b0"], "SRC:DST"),
    ("pairs-list a node twice", ["run", "token", "--pairs-list", "b0:b1,b1:b2"], "in two pairs"),
    ("pairs-list a node the network lacks", ["run", "token", "--pairs-list", "b0:b99", "--topology", "single-net"], "b99"),
    ("pairs-list with a placement", ["run", "token", "--pairs-list", "b0:b1", "--placement", "local-wire"], "drop --placement"),
    ("pairs-list on iperf", ["run", "iperf", "--pairs-list", "b0:b1"], "does not take --pairs-list"),
    ("remote-wire off a mesh", ["run", "token", "--topology", "single-net", "--placement", "remote-wire"], "needs a mesh"),
    ("sniff pings zero", ["run", "sniff", "--pings", "0"], "--pings"),
    ("sniff listener the network lacks", ["run", "sniff", "--listener", "b99", "--topology", "single-net"], "no node b99"),
    ("pairs zero", ["run", "token", "--pairs", "0"], "--pairs"),
    ("pairs huge", ["run", "token", "--pairs", "513"], "--pairs"),
    ("pairs exceed nodes", ["run", "token", "--pairs", "9", "--topo", "single-net"], "pairs need"),
    ("remote pairs exceed mesh", ["run", "token", "--pairs", "9", "--topo", "switched-mesh",
                                  "--placement", "remote-wire"], "pairs need"),
    ("duration nan", ["run", "token", "--duration", "nan"], "--duration"),
    ("duration inf", ["run", "token", "--duration", "inf"], "--duration"),
    ("duration negative", ["run", "token", "--duration", "-5"], "--duration"),
    ("duration zero", ["run", "token", "--duration", "0"], "0.1..3600"),
    ("duration exponent", ["run", "token", "--duration", "1e9"], "--duration"),
    ("duration over an hour", ["run", "token", "--duration", "3601"], "0.1..3600"),
    ("exchanges zero", ["run", "token", "--exchanges", "0"], "--exchanges"),
    ("exchanges exponent", ["run", "token", "--exchanges", "1e3"], "whole number"),
    ("exchanges huge", ["run", "token", "--exchanges", "99999999999"], "--exchanges"),
    ("repeats list", ["run", "token", "--repeats", "1,3"], "one value"),
    ("repeats zero", ["run", "token", "--repeats", "0"], "--repeats"),
    ("repeats huge", ["run", "token", "--repeats", "101"], "--repeats"),
    ("repeats word", ["run", "token", "--repeats", "two"], "--repeats"),
    ("rate zero", ["run", "token", "--rate", "0"], "--rate-mbit"),
    ("rate negative", ["run", "token", "--rate", "-1"], "--rate-mbit"),
    ("rate too high", ["run", "token", "--rate", "1001"], "--rate-mbit"),
    ("rate word", ["run", "token", "--rate", "fast"], "--rate-mbit"),
    ("rate nan", ["run", "token", "--rate-mbit", "nan"], "--rate-mbit"),
    ("rate inf", ["run", "token", "--rate-mbit", "inf"], "--rate-mbit"),
    ("rate blank", ["run", "token", "--rate", "10,,100"], "without blanks"),
    ("rate too low", ["run", "token", "--rate", "0.01"], "0.1..1000"),
    ("topology unknown", ["run", "token", "--topo", "token-ring"], "single-net"),
    ("topology trailing comma", ["run", "token", "--topo", "single-net,"], "without blanks"),
    ("topology empty", ["run", "token", "--topo", ""], "--topology"),
    ("topology case", ["run", "token", "--topo", "Single-Net"], "--topology"),
    ("channels zero", ["run", "token", "--channels", "0"], "--channels"),
    ("channels nine", ["run", "token", "--channels", "9"], "--channels"),
    ("nodes one", ["run", "token", "--nodes", "1"], "--nodes"),
    ("nodes huge", ["run", "token", "--nodes", "1025"], "--nodes"),
    ("nodes not square", ["run", "token", "--nodes", "15", "--topo", "routed-mesh"], "perfect-square"),
    ("nodes fraction", ["run", "token", "--nodes", "2.5"], "whole number"),
    ("nodes list", ["run", "token", "--nodes", "4,16"], "one value"),
    ("placement unknown", ["run", "token", "--placement", "sideways"], "--placement"),
    ("delay unit", ["run", "token", "--delay", "5 parsecs"], "--delay"),
    ("jitter over delay", ["run", "token", "--topo", "single-net", "--delay", "5ms",
                           "--jitter", "6ms"], "--jitter"),
    ("loss 100", ["run", "token", "--loss", "100%"], "--loss"),
    ("loss negative", ["run", "token", "--loss", "-1"], "--loss"),
    ("relay delay without relays", ["run", "token", "--topo", "single-net", "--relay-delay", "1ms"],
     "no relays"),
    ("delay too long", ["run", "token", "--delay", "20000ms"], "--delay"),
    ("shard zero", ["run", "token", "--shard", "0/2"], "--shard"),
    ("shard beyond", ["run", "token", "--shard", "3/2"], "--shard"),
    ("shard of zero", ["run", "token", "--shard", "1/0"], "--shard"),
    ("shard words", ["run", "token", "--shard", "a/b"], "--shard"),
    ("shard no slash", ["run", "token", "--shard", "1"], "--shard"),
    ("more shards than points", ["run", "token", "--topo", "single-net", "--token-size", "64",
                                 "--pairs", "1", "--shard", "5/5"], "at most 1 shards"),
    ("out under a file", ["run", "token", "--topo", "single-net", "--out", NOT_A_DIR], "cannot write"),
    ("out is a directory", ["run", "token", "--topo", "single-net", "--out", "{tmp}"], "directory"),
    ("png under a file", ["run", "token", "--topo", "single-net", "--png", NOT_A_DIR], "cannot write"),
    ("switch unknown", ["run", "token", "--switch", "bogus"], "--switch"),
    ("wire unknown", ["run", "token", "--wire", "bogus"], "--wire"),
    ("cli wire unknown", ["cli", "--topo", "single-net", "--wire", "hub"], "--wire"),
    ("host path unknown", ["run", "token", "--host-path", "ignore"], "--host-path"),
    ("reproduce host path unknown", ["reproduce", "--host-path", ""], "--host-path"),
    ("bonding unknown", ["run", "token", "--bonding", "bogus"], "--bonding"),
    ("token takes no copies", ["run", "token", "--copies", "3"], "does not take --copies"),
    ("token takes no disk", ["run", "token", "--disk", "none"], "does not take --disk"),
    ("unknown flag", ["run", "token", "--frobnicate"], "unrecognized"),
    ("unknown workload", ["run", "bogus"], "invalid choice"),
    ("no workload", ["run"], "required"),
    ("iperf fractional duration", ["run", "iperf", "--duration", "2.5"], "whole number"),
    ("iperf zero duration", ["run", "iperf", "--duration", "0"], "--duration"),
    ("iperf takes no token size", ["run", "iperf", "--token-size", "1K"], "does not take"),
    ("iperf pairs exceed nodes", ["run", "iperf", "--pairs", "9", "--topo", "single-net"], "pairs need"),
    ("copies over nodes", ["run", "filecopy", "--topo", "single-net", "--copies", "10",
                           "--remote", "0-10"], "nodes"),
    ("remote over copies", ["run", "filecopy", "--topo", "single-net", "--copies", "3",
                            "--remote", "4"], "--remote"),
    ("file size zero", ["run", "filecopy", "--file-size", "0"], "--file-size"),
    ("file size 1e999", ["run", "filecopy", "--file-size", "1e999"], "--file-size"),
    ("file size too small", ["run", "filecopy", "--file-size", "1K"], "4K..256M"),
    ("file size too big", ["run", "filecopy", "--file-size", "300M"], "4K..256M"),
    ("disk unknown", ["run", "filecopy", "--disk", "floppy"], "--disk"),
    ("disk zero", ["run", "filecopy", "--disk", "0"], "--disk"),
    ("disk three rates", ["run", "filecopy", "--disk", "1/2/3"], "--disk"),
    ("disk empty", ["run", "filecopy", "--disk", ""], "--disk"),
    ("remote reversed", ["run", "filecopy", "--remote", "3-1"], "--remote"),
    ("remote billion", ["run", "filecopy", "--remote", "0-1000000000"], "at most 64"),
    ("remote negative", ["run", "filecopy", "--remote", "-1"], "--remote"),
    ("remote word", ["run", "filecopy", "--remote", "a"], "--remote"),
    ("copies zero", ["run", "filecopy", "--copies", "0"], "--copies"),
    ("copies huge", ["run", "filecopy", "--copies", "65"], "--copies"),
    ("remote blank", ["run", "filecopy", "--remote", "0,,1"], "without blanks"),
    ("filecopy takes no token size", ["run", "filecopy", "--token-size", "1K"], "does not take"),
    ("copies need more nodes", ["run", "filecopy", "--topo", "single-net", "--nodes", "10",
                                "--remote", "7"], "14 nodes"),
    ("token buffers past memory", ["run", "token", "--topo", "single-net", "--nodes", "128", "--pairs", "64",
                                   "--token-size", "16M", "--tokens-in-flight", "64"], "GiB available"),
]

EXPERIMENTS = [
    ("experiment unknown name", "nope", None, "experiment list"),
    ("experiment not json", "bad.json", "this is not json", "not valid JSON"),
    ("experiment truncated", "bad.json", '{"workload": "token", "sweep": {', "not valid JSON"),
    ("experiment array", "bad.json", [], "at the top level"),
    ("experiment unknown top key", "bad.json", exp({}, colour="red"), "colour"),
    ("experiment unknown sweep key", "bad.json", exp({"tokens": [1]}), "tokens"),
    ("experiment bogus workload", "bad.json", exp({}, workload="bogus"), "workload"),
    ("experiment token size 0", "bad.json", exp({"token_size": [0]}), "token_size"),
    ("experiment token size Infinity", "bad.json", '{"workload":"token","sweep":{"token_size":[Infinity]}}',
     "token_size"),
    ("experiment repeats 0", "bad.json", exp({"repeats": 0}), "repeats"),
    ("experiment repeats list", "bad.json", exp({"repeats": [1, 3]}), "repeats"),
    ("experiment duration negative", "bad.json", exp({"duration": -5}), "duration"),
    ("experiment duration NaN", "bad.json", '{"workload":"token","sweep":{"duration":NaN}}', "duration"),
    ("experiment disk number", "bad.json", exp({"disk": 5}, workload="filecopy"), "disk"),
    ("experiment disk unknown", "bad.json", exp({"disk": "floppy"}, workload="filecopy"), "--disk"),
    ("experiment missing sweep", "bad.json", {"workload": "token"}, "sweep"),
    # names matched whole, integers bounded when read (issue 45)
    ("experiment name with a trailing newline", "bad.json", {**exp({}), "name": "bad\n"}, "does not match"),
    ("experiment integer of 5000 digits", "bad.json",
     '{"name": "bad", "workload": "token", "sweep": {"repeats": ' + "9" * 5000 + '}}', "integer too long"),
    ("experiment integer beyond 64 bits", "bad.json", exp({"repeats": 2 ** 70}), "beyond 64 bits"),
    ("experiment named as a paper figure", "bad.json",
     {**json.loads((EXERCISES.parent / "experiments" / "ipps96-fig6-balance.json").read_text()),
      "description": "my own sweep under the figure's name"}, "a paper figure's name"),
    ("experiment rate word", "bad.json", exp({"rate_mbit": "fast"}), "rate_mbit"),
    ("experiment topology unknown", "bad.json", exp({"topology": ["token-ring"]}), "topology"),
    ("experiment pairs exceed nodes", "bad.json", exp({"topology": ["single-net"], "pairs": [9]}),
     "pairs need"),
    ("experiment remote billion", "bad.json", exp({"remote": [0, 1000000000]}, workload="filecopy"),
     "remote"),
    ("experiment empty list", "bad.json", exp({"token_size": []}), "token_size"),
    ("experiment fractional size", "bad.json", exp({"token_size": 1.5}), "token_size"),
    ("experiment iperf with token size", "bad.json", exp({"token_size": [1024]}, workload="iperf"),
     "token_size"),
    ("experiment bad paper key", "bad.json", exp({}, paper={"sauce": "x"}), "sauce"),
    ("experiment reference line without y", "bad.json",
     exp({}, paper={"reference_lines": [{"label": "x"}]}), "'y' is a required property"),
    ("experiment reference line of without scale", "bad.json",
     exp({}, paper={"reference_lines": [{"label": "x", "of": {"where": {"remote": 0}}}]}), "'scale' is a required"),
    ("experiment reference line of scale text", "bad.json",
     exp({}, paper={"reference_lines": [{"label": "x", "of": {"where": {}, "scale": "half"}}]}), "not of type 'number'"),
    ("experiment paper measure without kind", "bad.json",
     exp({}, paper={"values": {"x": {"value": 1, "status": "seed", "measure": {}}}}), "'kind' is a required property"),
    ("experiment same_points_as not a list", "bad.json", exp({}, same_points_as="ipps96-fig3-prototype"),
     "same_points_as"),
    ("experiment same_points_as bad name", "bad.json", exp({}, same_points_as=["../x"]), "same_points_as"),
    ("experiment udp token too big", "bad.json",
     exp({"transport": ["udp"], "token_size": [4096], "tokens_in_flight": [1]}), "1472"),
    ("experiment chunk not 4K-aligned", "bad.json", exp({"chunk": 6144}, workload="filecopy"), "multiple of 4K"),
    ("experiment today disk unknown", "bad.json", exp({"today_disk": "ssd-2020"}, workload="filecopy"),
     "--today-disk takes"),
    ("experiment paper unit not text", "bad.json",
     exp({}, paper={"values": {"x": {"value": 1, "status": "seed", "unit": 3}}}), "unit"),
    ("experiment not utf-8", "bad.json", b"\xff\xfe\x00garbage", "UTF-8"),
    ("experiment is a directory", "dir.json", "DIR", "not a regular file"),
    ("experiment axes multiply past the cap", "bad.json",
     exp({"token_size": list(range(1, 65)), "tokens_in_flight": list(range(1, 65)), "pairs": [1, 2, 3, 4],
          "topology": ["single-net", "bonded-dual-net"], "repeats": 100}), "multiply to"),
    ("experiment missing file", "missing.json", None, "cannot read"),
    ("experiment bool nodes", "bad.json", exp({"nodes": True}), "nodes"),
    ("experiment hardware unknown", "bad.json", exp({"hardware": ["486"]}), "hardware"),
    ("experiment hardware number", "bad.json", exp({"hardware": 1995}), "hardware"),
    ("experiment contention bool", "bad.json", exp({"contention": True}), "contention"),
    ("experiment hardware era at 50", "bad.json", exp({"hardware": "era", "rate_mbit": [50]}),
     "no profile was built"),
    ("experiment time scale negative", "bad.json", exp({"time_scale": [-2]}), "time_scale"),
]

RESULTS = [
    ("plot missing file", ["plot", "{tmp}/missing.json"], "cannot read"),
    ("plot not json", ["plot", "{tmp}/garbage.json"], "not valid JSON"),
    ("plot json list", ["plot", "{tmp}/list.json"], "not a results document"),
    ("plot schema invalid", ["plot", "{tmp}/nopoints.json"], "points"),
    ("plot filecopy without file size", ["plot", "{tmp}/nofilesize.json"], "file_size"),
    ("plot newer version", ["plot", "{tmp}/newer.json"], "newer than this tool"),
    ("plot png under a file", ["plot", "{fixtures}/v1-token.json", "--png", NOT_A_DIR], "cannot write"),
    ("plot png of another format", ["plot", "{fixtures}/v1-token.json", "--png", "{tmp}/p.gif"], ".png, .svg or .pdf"),
    ("plot truncated", ["plot", "{tmp}/truncated.json"], "not valid JSON"),
    ("plot empty file", ["plot", "{tmp}/empty.json"], "not valid JSON"),
    ("plot --series of no flow series", ["plot", "{fixtures}/v1-token.json", "--series", "--png",
                                         "{tmp}/s.png"], "no point"),
    ("plot --series point not there", ["plot", "{fixtures}/v5-iperf-series.json", "--series", "--point", "7",
                                       "--png", "{tmp}/s.png"], "--point 7"),
    ("plot --point not a number", ["plot", "{fixtures}/v5-iperf-series.json", "--series", "--point", "1e3"],
     "--point"),
    ("plot --point without --series", ["plot", "{fixtures}/v5-iperf-series.json", "--point", "0", "--png",
                                       "{tmp}/s.png"], "--series"),
    ("merge string point_index", ["merge", "{tmp}/s1.json", "{tmp}/strindex.json", "--out",
                                  "{tmp}/m.json"], "point_index"),
    ("merge different sweeps", ["merge", "{tmp}/s1.json", "{tmp}/s2of7.json", "--out", "{tmp}/m.json"],
     "split the sweep differently"),
    ("merge out under a file", ["merge", "{tmp}/s1.json", "--out", NOT_A_DIR], "cannot write"),
    ("merge without out", ["merge", "{tmp}/s1.json"], "--out"),
    ("merge unsharded", ["merge", "{fixtures}/v1-token.json", "--out", "{tmp}/m.json"], "shard"),
    ("merge overlapping", ["merge", "{tmp}/s1.json", "{tmp}/s1.json", "--out", "{tmp}/m.json"], "twice"),
    ("merge missing file", ["merge", "{tmp}/missing.json", "--out", "{tmp}/m.json"], "cannot read"),
    ("merge nothing", ["merge", "--out", "{tmp}/m.json"], "required"),
    ("merge directories and files", ["merge", "{tmp}", "{tmp}/s1.json", "--out", "{tmp}/m"], "not both"),
    ("merge a directory of no reproduction", ["merge", "{fixtures}", "--out", "{tmp}/m"], "holds no results"),
    # archives read with a budget (issue 45): 2 MB of gzip each, refused in one line
    ("merge long-name header bomb", ["merge", "{tmp}/longname.tgz", "--out", "{tmp}/m"],
     "long-name header of 2147483648 bytes"),
    ("merge pax header bomb", ["merge", "{tmp}/pax.tgz", "--out", "{tmp}/m"], "pax header of 2147483648 bytes"),
    ("merge skipped member bomb", ["merge", "{tmp}/skipped.tgz", "--out", "{tmp}/m"],
     "expands to more than 1024 MiB"),
    ("merge kept member bomb", ["merge", "{tmp}/kept.tgz", "--out", "{tmp}/m"], "larger than 64 MiB"),
    # writes that hold a folder (issue 45): a link in a folder another user can write is not followed
    ("merge out through another user's link", ["merge", "{tmp}/s1.json", "--out", "{tmp}/shared/out/m.json"],
     "symbolic link another user"),
    ("run out through another user's link", ["run", "token", "--topo", "single-net", "--out",
                                             "{tmp}/shared/out/r.json"], "symbolic link another user"),
    ("topo png through another user's link", ["topo", "show", "single-net", "--png", "{tmp}/shared/out/w.png"],
     "symbolic link another user"),
    ("merge reproductions out under a file", ["merge", "{fixtures}", "--out", NOT_A_DIR], "cannot write"),
    ("plot a symbolic link", ["plot", "{tmp}/link.json"], "symbolic link"),
    ("plot a link to /dev/zero", ["plot", "{tmp}/zero.json"], "symbolic link"),
    ("plot /dev/zero", ["plot", "/dev/zero"], "not a regular file"),
    ("plot a FIFO", ["plot", "{tmp}/fifo.json"], "not a regular file"),
    ("plot NaN in a point", ["plot", "{tmp}/nan.json"], "NaN"),
    ("plot a file over the cap", ["plot", "{tmp}/big.json"], "larger than 64 MiB"),
    ("report a FIFO", ["report", "{tmp}/fifo.json"], "not a regular file"),
    ("report a symbolic link", ["report", "{tmp}/link.json"], "symbolic link"),
    ("merge a FIFO shard", ["merge", "{tmp}/s1.json", "{tmp}/fifo.json", "--out", "{tmp}/m.json"],
     "not a regular file"),
    ("merge a shard of 10^15 points", ["merge", "{tmp}/huge.json", "--out", "{tmp}/m.json"],
     "more than any sweep"),
    ("merge a NaN shard", ["merge", "{tmp}/s1.json", "{tmp}/nan.json", "--out", "{tmp}/m.json"], "NaN"),
    ("plot a flow that is a number", ["plot", "{tmp}/flows.json"], "flows"),
    ("report wire bytes that are text", ["report", "{tmp}/wirebytes.json"], "wire_bytes"),
]

OTHERS = [
    ("capture an unknown wire", ["capture", "w9", "--topo", "single-net", "--out", "{tmp}/w.pcapng"], "no wire w9"),
    ("capture seconds negative", ["capture", "w0", "--topo", "single-net", "--out", "{tmp}/w.pcapng", "--seconds", "-1"], "--seconds"),
    ("capture on the tc wire", ["capture", "w0", "--topo", "single-net", "--out", "{tmp}/w.pcapng", "--wire", "tc"], "medium engine"),
    ("capture under a file", ["capture", "w0", "--topo", "single-net", "--out", "/etc/hostname/sub/w.pcapng"], "cannot write"),
    ("capture not a pcapng name", ["capture", "w0", "--topo", "single-net", "--out", "{tmp}/w.json"], ".pcapng"),
    ("capture limit zero", ["capture", "w0", "--topo", "single-net", "--out", "{tmp}/w.pcapng", "--limit-mb", "0"], "--limit-mb"),
    ("compare missing files", ["compare", "/nonexistent/a.json", "/nonexistent/b.json"], "does not exist"),
    ("compare not json", ["compare", "/etc/hostname", "/etc/hostname"], "not valid JSON"),
    ("topo show unknown", ["topo", "show", "nope"], "single-net"),
    ("topo show nodes zero", ["topo", "show", "single-net", "--nodes", "0"], "--nodes"),
    ("topo show not square", ["topo", "show", "routed-mesh", "--nodes", "15"], "perfect-square"),
    ("topo show rate zero", ["topo", "show", "single-net", "--rate", "0"], "--rate-mbit"),
    ("topo show channels zero", ["topo", "show", "bonded-dual-net", "--channels", "0"], "--channels"),
    ("topo show channels on single", ["topo", "show", "single-net", "--channels", "2"], "does not take"),
    ("topo show png under a file", ["topo", "show", "single-net", "--png", NOT_A_DIR], "cannot write"),
    ("topo unknown verb", ["topo", "frob"], "invalid choice"),
    ("topo show missing file", ["topo", "show", "/nonexistent/net.json"], "topology file"),
    ("topo show file is a folder", ["topo", "show", "/etc/"], "topology file"),
    ("topo show file not json", ["topo", "show", "/etc/hostname.json"], "topology file"),
    ("topo node name with a trailing newline", ["topo", "show", "{tmp}/nl-node.json"], "does not match"),
    ("topo wire name with a trailing newline", ["topo", "show", "{tmp}/nl-wire.json"], "does not match"),
    ("topo name with a trailing newline", ["topo", "show", "{tmp}/nl-name.json"], "does not match"),
    ("topo interface names over 15 characters", ["topo", "show", "{tmp}/long-ifname.json"], "Linux allows 15"),
    ("run on interface names over 15 characters", ["run", "token", "--topo", "single-net", "--nodes", "1000"],
     "Linux allows 15"),
    ("plot integer of 5000 digits", ["plot", "{tmp}/bigint.json"], "integer too long"),
    ("topology file nodes changed", ["run", "iperf", "--topo", "examples/topologies/two-hubs-gateway.json",
                                     "--nodes", "8"], "lists 7 nodes"),
    ("topo show rate list", ["topo", "show", "single-net", "--rate", "10,100"], "one value"),
    ("cli without topo", ["cli"], "--topo"),
    ("cli unknown topo", ["cli", "--topo", "token-ring"], "single-net"),
    ("cli rate zero", ["cli", "--topo", "single-net", "--rate", "0"], "--rate-mbit"),
    ("cli one node", ["cli", "--topo", "single-net", "--nodes", "1"], "--nodes"),
    ("cli rate list", ["cli", "--topo", "single-net", "--rate", "10,100"], "one value"),
    ("cli jitter over delay", ["cli", "--topo", "single-net", "--delay", "5ms", "--jitter", "6ms"],
     "--jitter"),
    ("cli loss 100", ["cli", "--topo", "single-net", "--loss", "100%"], "--loss"),
    ("cli not square", ["cli", "--topo", "routed-mesh", "--nodes", "15"], "perfect-square"),
    ("cli channels huge", ["cli", "--topo", "bonded-dual-net", "--channels", "99"], "--channels"),
    ("cli unknown hardware", ["cli", "--topo", "single-net", "--hardware", "pentium-pro"], "--hardware"),
    ("cli hardware list", ["cli", "--topo", "single-net", "--hardware", "none,prototype-1995"], "one value"),
    ("cli hardware era at 50", ["cli", "--topo", "single-net", "--rate", "50", "--hardware", "era"],
     "no profile was built"),
    ("cli contention maybe", ["cli", "--topo", "single-net", "--contention", "maybe"], "--contention"),
    ("run hardware empty", ["run", "iperf", "--hardware", ""], "--hardware"),
    ("run hardware twice", ["run", "iperf", "--hardware", "none,none"], "twice"),
    ("run contention yes", ["run", "iperf", "--contention", "yes"], "--contention"),
    ("run hardware era at 50", ["run", "iperf", "--rate", "50", "--hardware", "era"], "no profile was built"),
    ("run time scale zero", ["run", "iperf", "--time-scale", "0"], "--time-scale"),
    ("run time scale text", ["run", "iperf", "--time-scale", "fast"], "--time-scale"),
    ("run time scale too slow for the wire", ["run", "iperf", "--rate", "10", "--time-scale", "500"],
     "smaller --time-scale"),
    ("cli time scale list", ["cli", "--topo", "switched-cluster", "--time-scale", "10,20"], "one value"),
    ("run pfs unknown test", ["run", "pfs", "--test", "iozone"], "--test"),
    ("run pfs local fraction over 1", ["run", "pfs", "--local-fraction", "1.5"], "--local-fraction"),
    ("run pfs stripe not 4K", ["run", "pfs", "--topo", "switched-cluster", "--stripe-size", "5000"],
     "multiple of 4K"),
    ("run pfs on a mesh", ["run", "pfs", "--topo", "routed-mesh"], "switched-cluster"),
    ("run pfs volume not whole stripes", ["run", "pfs", "--topo", "switched-cluster", "--stripe-size",
                                          "3M", "--volume", "16M"], "whole number of stripes"),
    ("experiment time scale override", ["experiment", "mache01-pvfs", "--time-scale", "0.5"],
     "--time-scale"),
    ("experiment hardware override unknown", ["experiment", "quick-comparison", "--hardware", "486"],
     "--hardware"),
    ("reproduce contention on both", ["reproduce", "--contention"], "--hardware paper"),
    ("reproduce contention off both", ["reproduce", "--contention", "off"], "--hardware paper"),
    ("reproduce contention auto", ["reproduce", "--contention", "auto", "--hardware", "paper"], "--contention"),
    ("run filecopy chunk under 4K", ["run", "filecopy", "--chunk", "1K"], "4K..16M"),
    ("run filecopy chunk not 4K-aligned", ["run", "filecopy", "--chunk", "6K"], "multiple of 4K"),
    ("run filecopy relays unknown", ["run", "filecopy", "--relays", "busy"], "--relays"),
    ("run filecopy today disk unknown", ["run", "filecopy", "--today-disk", "ssd-2020"], "--today-disk takes"),
    ("run filecopy today disk without one", ["run", "filecopy", "--today-disk", "none"], "has no disk"),
    ("run queue of one frame", ["run", "token", "--topology", "single-net", "--queue-packets", "1"],
     "--queue-packets takes 0"),
    ("run queue negative", ["run", "token", "--queue-packets", "-3"], "--queue-packets"),
    ("run filecopy disk transfer unknown", ["run", "filecopy", "--disk-transfer", "udma"], "--disk-transfer"),
    ("run filecopy dma on the prototype", ["run", "filecopy", "--hardware", "prototype-1995",
                                          "--disk-transfer", "dma"], "ran pio"),
    ("token takes no disk transfer", ["run", "token", "--disk-transfer", "pio"], "does not take"),
    ("run tx gap negative", ["run", "token", "--tx-gap-us", "-5"], "--tx-gap-us"),
    ("run tx gap not a number", ["run", "iperf", "--tx-gap-us", "fast"], "--tx-gap-us"),
    ("run tx gap beyond the shaper at 1000", ["run", "iperf", "--rate", "1000", "--tx-gap-us", "900"],
     "use at most 524 us"),
    ("run tx gap with a relay delay", ["run", "token", "--topo", "routed-mesh", "--tx-gap-us", "40",
                                       "--relay-delay", "5ms"], "use one of them"),
    ("cli tx gap list", ["cli", "--topo", "single-net", "--tx-gap-us", "40,70"], "--tx-gap-us"),
    ("run card latency negative", ["run", "token", "--card-latency-us", "-5"], "--card-latency-us"),
    ("run card latency not a number", ["run", "token", "--card-latency-us", "slow"], "--card-latency-us"),
    ("run card latency too long", ["run", "token", "--card-latency-us", "1e9"], "--card-latency-us"),
    ("reproduce ranges with a value", ["reproduce", "--ranges=yes"], "--ranges"),
    ("reproduce curves with a value", ["reproduce", "--curves=yes"], "--curves"),
    ("reproduce plan as json", ["reproduce", "--plan", "--json"], "drop --json"),
    ("reproduce plan with a value", ["reproduce", "--plan=yes"], "--plan"),
    ("reproduce plan on today with sensitivity", ["reproduce", "--plan", "--sensitivity", "--hardware", "none"],
     "--hardware none"),
    ("reproduce sensitivity on today only", ["reproduce", "--sensitivity", "--hardware", "none"], "--hardware none"),
    ("reproduce hardware unknown", ["reproduce", "--hardware", "486"], "invalid choice"),
    ("exercise unknown", ["exercise", "show", "ethernet-101"], "exercise list"),
    ("exercise no action", ["exercise"], "ACTION"),
    ("exercise start unknown", ["exercise", "start", "ethernet-101"], "exercise list"),
    ("exercise check missing answers", ["exercise", "check", "shared-hub", "{tmp}/none.json"], "cannot read"),
    ("exercise grade roster missing", ["exercise", "grade", "shared-hub", "{tmp}", "--roster",
                                       "{tmp}/none.txt"], "cannot read roster"),
    ("exercise grade roster a FIFO", ["exercise", "grade", "shared-hub", "{tmp}", "--roster",
                                      "{tmp}/fifo.json"], "not a regular file"),
    ("exercise grade codes missing", ["exercise", "grade", "shared-hub", "{tmp}", "--codes",
                                      "{tmp}/none.txt"], "cannot read codes file"),
    ("exercise sheet page under a file", ["exercise", "show", "shared-hub", "--html", NOT_A_DIR], "cannot write"),
    ("exercise sheet page with solutions", ["exercise", "show", "shared-hub", "--html", "{tmp}/s.html",
                                            "--solutions"], "never the solutions"),
    ("exercise check answers not json", ["exercise", "check", "shared-hub", "{fixtures}/README.md"],
     "not valid JSON"),
    ("exercise check answers of another", ["exercise", "check", "channel-bonding",
                                           "{exercises}/shared-hub/solutions/answers.json"], "is for exercise"),
    ("exercise check out under a file", ["exercise", "check", "shared-hub",
                                         "{exercises}/shared-hub/solutions/answers.json", "--out", NOT_A_DIR],
     "cannot write"),
    ("exercise grade not a folder", ["exercise", "grade", "shared-hub", "{fixtures}/README.md"], "not a folder"),
    ("exercise handout without out", ["exercise", "handout", "shared-hub"], "--out"),
    ("exercise handout unknown", ["exercise", "handout", "ethernet-101", "--out", "{tmp}/bundle"], "exercise list"),
    ("exercise handout out not empty", ["exercise", "handout", "shared-hub", "--out", "{fixtures}"], "not empty"),
    ("exercise handout out a file", ["exercise", "handout", "--out", "{fixtures}/README.md"], "not a folder"),
    ("exercise handout roster missing", ["exercise", "handout", "--out", "{tmp}/bundle", "--roster",
                                         "{tmp}/none.txt"], "cannot read roster"),
    ("exercise grade measure and not", ["exercise", "grade", "shared-hub", "{tmp}", "--measure", "--no-measure"],
     "not allowed with"),
    ("exercise grade missing folder", ["exercise", "grade", "shared-hub", "{tmp}/class"], "not a folder"),
    ("doctor extra argument", ["doctor", "now"], "unrecognized"),
    ("clean unknown flag", ["clean", "--all"], "unrecognized"),
    ("inspect run id not hex", ["inspect", "zz"], "two hex digits"),
    ("inspect run id too long", ["inspect", "3ab"], "two hex digits"),
    ("inspect two runs", ["inspect", "3a", "4b"], "unrecognized"),
    ("inspect unknown flag", ["inspect", "--all"], "unrecognized"),
    ("shell no node", ["shell"], "required"),
    ("shell run id not hex", ["shell", "b0", "--run", "q"], "two hex digits"),
    ("shell run id before the node", ["shell", "--run", "../x", "b0"], "--run"),
    ("shell run id empty", ["shell", "b0", "--run=", "--", "ls"], "--run"),
    ("shell unknown flag before --", ["shell", "b0", "--bogus", "--", "ls"], "unrecognized '--bogus'"),
    ("shell run twice", ["shell", "b0", "--run", "3a", "--run", "3b", "--", "ls"], "--run given twice"),
    ("unknown command", ["frobnicate"], "invalid choice"),
    ("experiment shard beyond", ["experiment", "quick-comparison", "--shard", "3/2"], "--shard"),
    ("experiment quick without a quick sweep", ["experiment", "quick-comparison", "--quick"], "no quick sweep"),
    ("reproduce unknown experiment", ["reproduce", "--only", "bogus"], "--only"),
    ("reproduce out under a file", ["reproduce", "--quick", "--out", NOT_A_DIR], "cannot write"),
    ("reproduce shard zero", ["reproduce", "--shard", "0/2"], "--shard"),
    ("reproduce unknown flag", ["reproduce", "--fast"], "unrecognized"),
    ("report missing file", ["report", "{tmp}/missing.json"], "cannot read"),
    ("report document of no experiment", ["report", "{fixtures}/v1-token.json", "--out", "{tmp}/r"],
     "not made from an experiment"),
    ("report the same experiment twice", ["report", "{fixtures}/reproduction/ipps96-fig6-balance.json",
                                          "{fixtures}/reproduction/ipps96-fig6-balance.json", "--out", "{tmp}/r"],
     "two documents"),
    ("report out under a file", ["report", "{fixtures}/reproduction/ipps96-fig6-balance.json",
                                 "--out", NOT_A_DIR], "cannot write"),
    ("report nothing", ["report"], "required"),
]


ARCHIVES = {"longname.tgz": hostile_archives.long_name_bomb, "pax.tgz": hostile_archives.pax_bomb,
            "skipped.tgz": hostile_archives.skipped_bomb, "kept.tgz": hostile_archives.kept_bomb}


def write_files(tmp: Path) -> None:
    token = json.loads((FIXTURES / "v1-token.json").read_text())
    filecopy = json.loads((FIXTURES / "v1-filecopy.json").read_text())
    (tmp / "garbage.json").write_text("not json at all")
    (tmp / "list.json").write_text("[]")
    (tmp / "truncated.json").write_text((FIXTURES / "v1-token.json").read_text()[:200])
    (tmp / "empty.json").write_text("")
    (tmp / "nopoints.json").write_text(json.dumps({k: v for k, v in token.items() if k != "points"}))
    nofs = json.loads(json.dumps(filecopy))
    del nofs["points"][0]["file_size"]
    (tmp / "nofilesize.json").write_text(json.dumps(nofs))
    (tmp / "newer.json").write_text(json.dumps({**token, "schema_version": 99}))
    shard1 = {**token, "shard": "1/2", "total_points": 8}
    shard1["points"] = [p for p in token["points"] if p["point_index"] % 2 == 0]
    (tmp / "s1.json").write_text(json.dumps(shard1))
    bad = {**token, "shard": "2/2", "total_points": 8,
           "points": [{**token["points"][1], "point_index": "1"}]}
    (tmp / "strindex.json").write_text(json.dumps(bad))
    (tmp / "s2of7.json").write_text(json.dumps({**token, "shard": "2/7", "total_points": 8,
                                                "points": [{**token["points"][1], "point_index": 1}]}))
    # hostile inputs a shared machine's users could hand root (issue 33)
    (tmp / "link.json").symlink_to(FIXTURES / "v1-token.json")
    (tmp / "zero.json").symlink_to("/dev/zero")
    os.mkfifo(tmp / "fifo.json")
    (tmp / "nan.json").write_text(json.dumps(token).replace('"throughput_mbyte_s": ', '"throughput_mbyte_s": NaN, "x": ', 1))
    (tmp / "huge.json").write_text(json.dumps({**shard1, "total_points": 10 ** 15}))
    with open(tmp / "big.json", "wb") as f:   # sparse: 64 MiB + 1 of size, no disk (270 cases)
        f.truncate((64 << 20) + 1)
    def topology(name="t", wire="h1", node="a0", n=2):
        return json.dumps({"name": name, "summary": "s", "kind": "explicit", "options": {"rate_mbit": 10},
                           "wires": [{"name": wire}], "nodes": [{"name": node if i == 0 else f"n{i}",
                                                                 "wires": [wire]} for i in range(n)]})
    (tmp / "nl-node.json").write_text(topology(node="a0\n"))
    (tmp / "nl-wire.json").write_text(topology(wire="h1\n"))
    (tmp / "nl-name.json").write_text(topology(name="t\n"))
    (tmp / "long-ifname.json").write_text(topology(wire="abc", n=100))
    (tmp / "bigint.json").write_text(json.dumps(token)[:-1] + ', "x": ' + "9" * 5000 + "}")
    (tmp / "secret").mkdir(mode=0o700)
    (tmp / "shared").mkdir()
    (tmp / "shared").chmod(0o777)            # anyone's: its link could be anyone's
    (tmp / "shared" / "out").symlink_to(tmp / "secret")
    hostile = json.loads(json.dumps(token))
    hostile["points"][0]["flows"] = [5]
    (tmp / "flows.json").write_text(json.dumps(hostile))
    hostile = json.loads(json.dumps(token))
    hostile["points"][0]["fidelity"]["wire_bytes"] = {"w0": "many"}
    (tmp / "wirebytes.json").write_text(json.dumps(hostile))


PROJECT = {"core", "topologies", "netlab", "workloads", "run", "judge", "commands"}
PROJECT_PREFIXES = [["beowulf_netlab", pkg] for pkg in sorted(PROJECT)]


def _source(value) -> str:
    """The module a global of some module came from."""
    if isinstance(value, types.ModuleType):
        return value.__name__
    return getattr(value, "__module__", None) or ""


@pytest.fixture(autouse=True)
def without_mininet(monkeypatch):
    """Hide Mininet as if this python3 had none: every mininet module leaves
    sys.modules, and so does every project module holding something of theirs
    (imported at its top), so importing either again fails; all come back after."""
    hidden = {n for n in sys.modules if n == "mininet" or n.startswith("mininet.")}
    grew = True
    while grew:
        grew = False
        for name, mod in list(sys.modules.items()):
            if name in hidden or mod is None or name.split(".")[:2] not in PROJECT_PREFIXES:
                continue
            if any(_source(v) in hidden and not _source(v).startswith(name + ".")
                   for v in vars(mod).values()):
                hidden.add(name)
                grew = True
    for name in hidden:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mininet", None)


def test_mininet_is_hidden():
    with pytest.raises(ImportError):
        import mininet.net  # noqa: F401
    with pytest.raises(ImportError):
        from beowulf_netlab.run.runner import run_sweep  # noqa: F401


def listing(*dirs: Path) -> dict:
    return {str(d): sorted(os.listdir(d)) if d.exists() else None for d in dirs}


ALL = [(name, argv, word, None) for name, argv, word in RUN + RESULTS + OTHERS] + \
      [(name, ["experiment", fname if content is None and not fname.endswith(".json")
               else "{tmp}/" + fname], word, content) for name, fname, content, word in EXPERIMENTS]


def test_corpus_is_large_enough():
    assert len(ALL) >= 120, len(ALL)
    assert {a[1][0] for a in ALL} >= {"run", "experiment", "plot", "merge", "topo", "cli", "doctor",
                                      "clean", "reproduce", "report"}


@pytest.mark.parametrize("name, argv, word, content", ALL, ids=[a[0] for a in ALL])
def test_bad_input(name, argv, word, content, tmp_path, monkeypatch, capsys):
    write_files(tmp_path)
    for fname, build in ARCHIVES.items():   # 2 MB each: only where a case names one
        if any(fname in a for a in argv):
            (tmp_path / fname).write_bytes(build())
    if content is not None:
        target = tmp_path / argv[1].split("/")[-1]
        if content == "DIR":
            target.mkdir()
        elif isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content if isinstance(content, str) else json.dumps(content))
    argv = [a.replace("{tmp}", str(tmp_path)).replace("{fixtures}", str(FIXTURES))
            .replace("{exercises}", str(EXERCISES)) for a in argv]
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    before = listing(tmp_path, RESULTS_DIR, STATE_DIR)
    try:
        rc = commands.main(argv)
    except SystemExit as e:
        rc = e.code
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert rc == 2, (rc, err)
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    assert "needs root" not in lines[0], f"checked only after the root check: {err}"
    assert word in lines[0], err
    assert listing(tmp_path, RESULTS_DIR, STATE_DIR) == before, "bad input created something"
