"""Deprecated: `workloads` is `beowulf_netlab.workloads` now. A checkout's shim, never installed
(beowulf_netlab/_old_names.py): `import workloads` still works here, with a DeprecationWarning."""
from beowulf_netlab._old_names import alias

alias(__name__)
