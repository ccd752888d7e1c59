"""The lab VM: a stock-kernel Debian 12 guest under QEMU, for the code paths stock kernels take.

Division of labor: `image` builds and caches the guest image from Debian packages;
`qemu` boots it (KVM or TCG), reaches it over SSH and always stops it; `stage` is CI's
lab-VM stage (provision, the integration suite with every fallback forbidden, a
two-host campaign); `__main__` is its command line (`python3 -m beowulf_netlab.labvm build|stage|run`).
Imports only `core`.
"""
