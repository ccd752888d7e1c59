import contextlib

import pytest




@pytest.fixture(scope="session")
def caps():
    from beowulf_netlab.netlab.capabilities import probe
    return probe()


@pytest.fixture
def engine_built(caps):
    """Skip a test of the medium engine where it is not built (a module asks for it with
    pytestmark = pytest.mark.usefixtures("engine_built"))."""
    if not caps.medium_engine:
        pytest.skip("the medium engine is not built (./setup.sh builds it)")


@pytest.fixture
def testbed(caps):
    """testbed(topo, **opts) builds a real network and always tears it down."""
    from beowulf_netlab.netlab.testbed import BuildOptions, Testbed
    from beowulf_netlab.topologies.presets import build_spec

    stack = contextlib.ExitStack()

    def make(topo, switch="auto", bonding="auto", wire="auto", host_path="subtract", **opts):
        return stack.enter_context(Testbed(build_spec(topo, **opts), BuildOptions(
            switch=switch, bonding=bonding, wire=wire, host_path=host_path), caps))
    with stack:
        yield make


def needs_kernel(caps, feature: str) -> None:
    """Skip a test the kernel cannot run, except in NETLAB_REQUIRE_KERNEL mode
    (the lab VM), where a missing feature is a failure, never a skip."""
    from beowulf_netlab.netlab.impls import require_kernel_default
    if not caps.kernel.get(feature):
        if require_kernel_default():
            pytest.fail(f"NETLAB_REQUIRE_KERNEL=1 but this kernel lacks {feature}")
        pytest.skip(f"this kernel has no {feature} (the lab VM stage runs this test)")
