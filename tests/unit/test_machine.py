"""The machine is resolved once: after a spec is built, nothing reads beowulf_netlab/hardware/*.json again."""
from types import SimpleNamespace

import pytest

from beowulf_netlab.core.command import CommandLog
from beowulf_netlab.netlab.disk_profiles import for_spec
from beowulf_netlab.run import calibration
from beowulf_netlab.judge import validation
from beowulf_netlab.run.sweep import Sweep
from beowulf_netlab.topologies import hardware
from beowulf_netlab.topologies.presets import build_spec
from beowulf_netlab.topologies.spec import Machine


def _forbid_profile_reads(monkeypatch) -> None:
    """From here on, loading a profile by name (or listing beowulf_netlab/hardware/) fails the test."""
    def refuse(*_a, **_k):
        raise AssertionError("a hardware profile was read after the spec was built")
    hardware.load.cache_clear()
    monkeypatch.setattr(hardware, "read_json", refuse)
    monkeypatch.setattr(hardware, "profile_names", refuse)


@pytest.fixture(autouse=True)
def _fresh_cache():
    yield
    hardware.load.cache_clear()


def test_the_spec_carries_the_resolved_profile():
    spec = build_spec("single-net", nodes=4, rate_mbit=10, hardware="era", time_scale=5)
    assert spec.machine.profile == hardware.load("prototype-1995")
    assert spec.machine.hardware == hardware.hardware_of(spec) == "prototype-1995"
    assert build_spec("single-net", nodes=4).machine.profile == hardware.load("none")
    assert Machine().profile is None and Machine().hardware == hardware.NONE


def test_disks_calibration_validation_and_testbed_never_reload_a_profile(monkeypatch):
    from beowulf_netlab.netlab.testbed import Testbed
    demo = build_spec("bonded-dual-net", nodes=4, rate_mbit=100, hardware="demonstration-1996", time_scale=2)
    proto = build_spec("single-net", nodes=4, rate_mbit=10, hardware="prototype-1995")
    plain = build_spec("single-net", nodes=4, rate_mbit=10)
    cluster = build_spec("switched-cluster", nodes=4, hardware="pc-2001", time_scale=20)
    sweep = Sweep.make("filecopy", {"topology": ["single-net"], "rate_mbit": [10], "nodes": 4,
                                    "hardware": ["prototype-1995"]})
    points = [{"hardware": "prototype-1995", "x": 1.0}]
    checks = [{"id": "c", "profile": "prototype-1995", "what": "w", "era_value": 1.0, "unit": "u",
               "band": [0.5, 2], "why_band": "b", "source": "s",
               "measure": {"experiment": "e", "metric": "x", "where": {}}}]
    _forbid_profile_reads(monkeypatch)

    pio = for_spec("hardware", demo)                      # the profile's default transfer, / D
    assert pio.transfer == "pio" and pio.name.endswith("/D2")
    assert for_spec("hardware", demo, "dma").transfer == "dma"
    assert for_spec("hardware", proto, None).name == "prototype-1995"
    assert for_spec("hardware", plain).name == "ide-1995"
    assert for_spec("hardware", cluster, None).name.endswith("/D20")
    assert calibration.as_recorded(sweep, proto, {})["disk_profile"] == "prototype-1995-pio"
    assert validation.read(checks[0], {"e": {"points": points}})["values"] == [1.0]

    tb = object.__new__(Testbed)
    tb.spec, tb.impls, tb.medium, tb.contention, tb.build_s, tb.tcp, tb.log = \
        proto, {"bonding": None, "switch": None, "wire": "tc", "host_cost": None}, None, None, 0.0, None, CommandLog()
    tb.opts, tb.host_path = SimpleNamespace(require_kernel=False), None
    tb.caps = SimpleNamespace(tcp_host_default=None, as_record=dict)
    env = tb.environment()
    assert env["hardware"] == "prototype-1995"
    assert env["hardware_profile"]["name"] == "prototype-1995"


def test_validation_reads_points_through_hardware_of():
    """A point without a hardware key ran on `none` (documents before v3)."""
    check = {"id": "c", "profile": "none", "what": "w", "era_value": 1.0, "unit": "u", "band": [0.5, 2],
             "why_band": "b", "source": "s", "measure": {"experiment": "e", "metric": "x", "where": {}}}
    assert validation.read(check, {"e": {"points": [{"x": 1.0}]}})["values"] == [1.0]
