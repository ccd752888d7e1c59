import contextlib

import pytest


@pytest.fixture(scope="session")
def caps():
    from netlab.capabilities import probe
    return probe()


@pytest.fixture
def testbed(caps):
    """testbed(topo, **opts) builds a real network and always tears it down."""
    from netlab.network import BuildOptions, Testbed
    from topologies.presets import build_spec

    stack = contextlib.ExitStack()

    def make(topo, switch="auto", bonding="auto", **opts):
        return stack.enter_context(Testbed(build_spec(topo, **opts),
                                           BuildOptions(switch=switch, bonding=bonding), caps))
    with stack:
        yield make
