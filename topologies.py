"""Deprecated: `topologies` is `beowulf_netlab.topologies` now. A checkout's shim, never installed
(beowulf_netlab/_old_names.py): `import topologies` still works here, with a DeprecationWarning."""
from beowulf_netlab._old_names import alias

alias(__name__)
