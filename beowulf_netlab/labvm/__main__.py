"""python3 -m beowulf_netlab.labvm: a stock-kernel Debian 12 guest under QEMU, for tests and measurements.

  sudo /usr/bin/python3 -m beowulf_netlab.labvm build            build (or reuse) the cached image
  sudo /usr/bin/python3 -m beowulf_netlab.labvm stage [PYTEST..]  the CI stage (see beowulf_netlab/labvm/stage.py)
  sudo /usr/bin/python3 -m beowulf_netlab.labvm run 'CMD'         boot, copy the project in, run CMD there, stop
"""
from __future__ import annotations

import fcntl
import os
import sys

from beowulf_netlab.core.errors import EXIT_USAGE
from beowulf_netlab.core.parser import Parser


def make_parser() -> Parser:
    p = Parser(prog="python3 -m beowulf_netlab.labvm", description=(
        "A Debian 12 lab VM with the stock kernel (bonding, netem, OVS kernel datapath), booted "
        "under QEMU: KVM where the host has kvm_intel/kvm_amd, software emulation (TCG) otherwise. "
        f"The image is cached in {os.environ.get('NETLAB_LABVM_CACHE', '/var/cache/beowulf-netlab/labvm')}."))
    sub = p.add_subparsers(dest="command", parser_class=Parser, metavar="build|stage|run", required=True)
    b = sub.add_parser("build", help="build the guest image, or reuse the cached one",
                       description="Build the guest image from Debian packages (~2-10 min), or reuse "
                                   "the cached one for the same recipe.")
    b.add_argument("--force", action="store_true", help="rebuild even if a cached image exists")
    s = sub.add_parser("stage", help="CI's lab-VM stage: provision, run the integration suite with "
                                     "fallbacks forbidden, run a VM+localhost campaign",
                       description="Boot the guest, provision it with playbooks/setup.yml over SSH, "
                                   "run the integration tests inside with NETLAB_REQUIRE_KERNEL=1, "
                                   "then the two-host campaign test. Exit 0 only if all pass.")
    s.add_argument("pytest_args", nargs="*", help="what pytest runs in the guest (default tests/integration)")
    s.add_argument("--no-campaign", action="store_true", help="skip the VM+localhost campaign test")
    r = sub.add_parser("run", help="boot, provision, copy the project in, run one shell command, stop",
                       description="Boot the guest, provision it, copy the project to /opt/netlab, "
                                   "run COMMAND there as root, print its output, stop the guest.")
    r.add_argument("shell_command", metavar="COMMAND", help="a shell command, run in /opt/netlab")
    return p


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    if os.geteuid() != 0:
        sys.stderr.write("python3 -m beowulf_netlab.labvm: needs root (image build, loop-free mkfs, QEMU): "
                         "run it with sudo\n")
        return EXIT_USAGE
    from beowulf_netlab.labvm.image import ImageError, build, cache
    from beowulf_netlab.labvm.qemu import VMError
    try:
        held = _one_at_a_time(cache())
        if held is None:
            sys.stderr.write("labvm: error: another lab VM command is running on this host (its guest shares "
                             "the image cache and the known host key); wait for it to end\n")
            return EXIT_USAGE
        if args.command == "build":
            image = build(force=args.force)
            print(f"labvm: image ready in {image.dir}")
            return 0
        from beowulf_netlab.labvm.stage import EXCLUDE, GUEST_DIR, Stage, provision
        if args.command == "stage":
            return Stage(args.pytest_args or ["tests/integration"], campaign=not args.no_campaign).run()
        from beowulf_netlab.labvm.image import ROOT
        from beowulf_netlab.labvm.qemu import VM
        with VM(build()) as vm:
            provision(vm)
            vm.push_tree(ROOT, GUEST_DIR, EXCLUDE)
            return vm.run(f"cd {GUEST_DIR} && {args.shell_command}", check=False, capture=False).returncode
    except (ImageError, VMError) as e:
        sys.stderr.write(f"labvm: error: {e}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("labvm: interrupted; the guest was stopped\n")
        return 130


def _one_at_a_time(folder) -> int | None:
    """An exclusive lock on the cache's lock file, held until the process ends, or None when
    another lab VM command holds it: two guests booted at once shared one cache and host key, and
    a CI stage must not meet a developer's (seen: two stages started a minute apart)."""
    fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


if __name__ == "__main__":
    sys.exit(main())
