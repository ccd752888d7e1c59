"""The old top-level names (`core`, `netlab`, ...) for a deprecation period, from a checkout only.

Before 0.2 the project installed its subpackages as top-level packages. A checkout keeps one
small file per old name at its top (core.py, netlab.py, ...; never installed, pyproject.toml
lists none) that calls `alias`: the old name becomes the new subpackage itself, with a
DeprecationWarning naming the new import, and a meta-path finder maps every `old.sub` module
onto `beowulf_netlab.old.sub`, so `core.errors.NetlabError is beowulf_netlab.core.errors.NetlabError`.
Nothing in the package imports this module.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

OLD_NAMES = frozenset({"core", "topologies", "netlab", "workloads", "run", "judge", "commands", "labvm"})
NEW = "beowulf_netlab."


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`old.sub` -> the module `beowulf_netlab.old.sub`, once `old` is an alias (the shim ran)."""

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if "." not in fullname or top not in OLD_NAMES or \
                sys.modules.get(top) is not sys.modules.get(NEW + top):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # the import system takes whatever sys.modules holds under the name once this returns
        sys.modules[module.__name__] = importlib.import_module(NEW + module.__name__)


def alias(old: str) -> None:
    """Called by the shim `old.py` at a checkout's top as it is imported: `old` is the new subpackage."""
    new = NEW + old
    warnings.warn(f"`{old}` is an old name of `{new}`, kept in a checkout only, for now: import "
                  f"{new} (e.g. `from {new}.x import y`)", DeprecationWarning, stacklevel=3)
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    sys.modules[old] = importlib.import_module(new)
