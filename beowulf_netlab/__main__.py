"""The command line's entry: `python3 -m beowulf_netlab`, the installed `beowulf-netlab`
(pyproject.toml: `console`) and the checkout's emulate.py (`launch`). Imported by nothing in the
package (tests/unit/test_layering.py).

Each re-runs its own script under the interpreter that has Debian's Mininet if needed
(beowulf_netlab/core/interpreter.py), then hands over to `commands.main` under its own name.
"""
import os
import sys


def launch(prog: str, script: str) -> int:
    """Re-run `script` under /usr/bin/python3 if Mininet is not importable here, then the verbs."""
    from beowulf_netlab.core.interpreter import reexec_with_mininet
    os.environ["NETLAB_PROG"] = prog   # the name survives the re-run under /usr/bin/python3
    reexec_with_mininet(script)
    os.environ.pop("NETLAB_PROG", None)   # not handed to the processes the verbs start
    from beowulf_netlab.commands import main
    return main(prog=prog)


def console() -> int:
    """The console script `beowulf-netlab`: what `python3 emulate.py` does."""
    return launch("beowulf-netlab", __file__)


if __name__ == "__main__":
    if __spec__ is None:   # run by path (the re-run under /usr/bin/python3 -I of an installed copy)
        # this package from this folder, by its path: never the folder itself on sys.path (its
        # subpackages are no top-level names), nor its parent, another interpreter's site-packages
        # whose compiled modules (matplotlib's) are not this one's: the rest comes from here
        import importlib.util
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
        spec = importlib.util.spec_from_file_location("beowulf_netlab", os.path.join(here, "__init__.py"),
                                                      submodule_search_locations=[here])
        sys.modules["beowulf_netlab"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["beowulf_netlab"])
    sys.exit(launch(os.environ.get("NETLAB_PROG") or "python3 -m beowulf_netlab", __file__))
