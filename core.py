"""Deprecated: `core` is `beowulf_netlab.core` now. A checkout's shim, never installed
(beowulf_netlab/_old_names.py): `import core` still works here, with a DeprecationWarning."""
from beowulf_netlab._old_names import alias

alias(__name__)
