"""The lab-VM mode: with NETLAB_REQUIRE_KERNEL=1 the stock kernel's features
must be present and used; nothing may fall back.

On this project's CI host (no bonding, netem or OVS kernel datapath) these
tests skip; the lab-VM stage runs them with the variable set.
"""
import pytest

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from beowulf_netlab.netlab.impls import require_kernel_default

pytestmark = pytest.mark.skipif(not require_kernel_default(),
                                reason="lab-VM mode only (NETLAB_REQUIRE_KERNEL=1)")


def test_stock_kernel_features_are_present(caps):
    missing = [f for f in ("bonding", "netem") if not caps.kernel.get(f)]
    if not caps.ovs_kernel_datapath:
        missing.append("ovs kernel datapath")
    if not caps.ovs_daemon:
        missing.append("ovs-vswitchd")
    assert not missing, f"lab VM lacks {missing}; capabilities: {caps.as_record()}"


def test_bonded_network_uses_the_kernel_driver(caps, testbed):
    tb = testbed("bonded-dual-net", nodes=2, rate_mbit=10)
    assert tb.environment()["bonding_impl"] == "kernel-balance-rr"
    bond = tb.host("b0").run(["cat", "/proc/net/bonding/b0-bond0"])
    assert "load balancing (round-robin)" in bond, bond


def test_switches_use_the_ovs_kernel_datapath(caps, testbed):
    tb = testbed("switched-mesh", nodes=4, rate_mbit=10)
    assert tb.environment()["switch_impl"] == "ovs-kernel"
    import subprocess
    dps = subprocess.run(["ovs-appctl", "dpctl/dump-dps"], capture_output=True, text=True).stdout
    assert "system@ovs-system" in dps, dps


def test_fallbacks_are_refused(caps, testbed):
    from beowulf_netlab.netlab.testbed import BuildError
    with pytest.raises(BuildError, match="refuses fallbacks"):
        testbed("bonded-dual-net", nodes=2, bonding="nft")
