"""Build and cache a Debian 12 guest image with the stock kernel, from Debian packages only.

Why: this platform's kernel has no bonding driver, netem or OVS kernel
datapath, so the code paths users run on stock kernels are tested only in a
guest that has them (README, "Lab VMs", gives the measured build and boot times).

The image is a minbase debootstrap with the testbed's packages already in it
(read from playbooks/setup.yml, so provisioning over SSH has little to do),
turned into an ext4 filesystem without loop mounts (mkfs.ext4 -d) and a qcow2.
The kernel and initrd are copied out for direct kernel boot. A stamp of the
recipe names the cache entry: change the recipe or the package list and the
next run builds a new image; otherwise the cached one boots (~25 s vs ~2 min).
"""
from __future__ import annotations

import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from beowulf_netlab.core.errors import RuntimeFailure
from beowulf_netlab.core.safefile import private_dir

ROOT = Path(__file__).resolve().parents[2]   # the checkout's top (beowulf_netlab/'s parent)
CACHE = Path(os.environ.get("NETLAB_LABVM_CACHE", "/var/cache/beowulf-netlab/labvm"))


def cache() -> Path:
    """The image cache, root's own: it holds the guest's root key and the disk root boots, so
    it is made 0700 when missing and refused (core.safefile.private_dir) when it, or a folder
    above it, could be changed by another user (was a plain mkdir)."""
    return private_dir(CACHE, "lab VM cache", env="NETLAB_LABVM_CACHE")
SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
HOST_TOOLS = {"qemu-system-x86_64": "qemu-system-x86", "qemu-img": "qemu-utils",
              "debootstrap": "debootstrap", "mkfs.ext4": "e2fsprogs", "ssh": "openssh-client",
              "ssh-keygen": "openssh-client"}
# What a bootable, SSH-reachable, Ansible-manageable guest needs besides the testbed.
BASE_PACKAGES = ["linux-image-amd64", "systemd-sysv", "udev", "kmod", "dbus", "iproute2",
                 "openssh-server", "ca-certificates", "python3-apt", "ifupdown", "isc-dhcp-client",
                 "tar", "gzip"]
# Stock-kernel features the lab VM exists to exercise; loaded at boot.
MODULES = ["bonding", "sch_netem", "openvswitch", "ifb"]
DISK_SIZE = "6G"
RECIPE_VERSION = "2"   # 2: the guest's SSH host key is made at build and pinned


class ImageError(RuntimeFailure):
    pass


@dataclass(frozen=True)
class Image:
    """A cached guest: disk, kernel, initrd and the SSH key that logs in as root."""
    dir: Path

    @property
    def disk(self) -> Path:
        return self.dir / "base.qcow2"

    @property
    def kernel(self) -> Path:
        return self.dir / "vmlinuz"

    @property
    def initrd(self) -> Path:
        return self.dir / "initrd.img"

    @property
    def key(self) -> Path:
        return self.dir / "id_ed25519"

    @property
    def known_hosts(self) -> Path:
        """The guest's one host key, made at build: SSH checks it on every connection."""
        return self.dir / "known_hosts"

    def complete(self) -> bool:
        return all(p.exists() for p in (self.disk, self.kernel, self.initrd, self.key,
                                        self.known_hosts, self.dir / "stamp"))


def testbed_packages() -> list[str]:
    """The package list of playbooks/setup.yml (one source of truth)."""
    import yaml
    plays = yaml.safe_load((ROOT / "playbooks" / "setup.yml").read_text())
    return list(plays[0]["vars"]["netlab_packages"])


def missing_host_tools() -> list[str]:
    return sorted({pkg for tool, pkg in HOST_TOOLS.items() if not shutil.which(tool)})


def recipe_stamp(packages: list[str]) -> str:
    text = "\n".join([RECIPE_VERSION, SUITE, MIRROR, DISK_SIZE, *sorted(packages), *MODULES,
                      Path(__file__).read_text()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _run(cmd: list[str], log, **kw) -> None:
    r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, **kw)
    if r.returncode != 0:
        raise ImageError(f"{' '.join(cmd[:3])} ... failed (exit {r.returncode}); see {log.name}")


HOST_KEY_ALIAS = "netlab-labvm"   # the name SSH checks the guest's key under, whatever its port


def _configure_rootfs(rootfs: Path, pubkey: str, host_key: Path) -> None:
    """Everything the guest needs to boot headless, get an address and accept the key, with
    the host key made at build as its only one (the keys the package made are removed)."""
    def write(rel: str, text: str, mode: int = 0o644) -> None:
        path = rootfs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(mode)
    write("etc/hostname", "netlab-vm\n")
    write("etc/hosts", "127.0.0.1 localhost\n127.0.1.1 netlab-vm\n")
    write("etc/fstab", "/dev/vda / ext4 rw,errors=remount-ro 0 1\n")
    write("etc/network/interfaces", "auto lo\niface lo inet loopback\nauto eth0\niface eth0 inet dhcp\n")
    write("etc/resolv.conf", "nameserver 10.0.2.3\n")  # QEMU user networking's DNS
    write("etc/modules-load.d/netlab.conf", "\n".join(MODULES) + "\n")
    write("etc/modprobe.d/netlab.conf", "options bonding max_bonds=0\n")
    write("root/.ssh/authorized_keys", pubkey, 0o600)
    (rootfs / "root/.ssh").chmod(0o700)
    write("etc/ssh/sshd_config.d/netlab.conf", "PermitRootLogin prohibit-password\nUseDNS no\n"
          "HostKey /etc/ssh/ssh_host_ed25519_key\n")
    for old in (rootfs / "etc/ssh").glob("ssh_host_*"):
        old.unlink()
    write("etc/ssh/ssh_host_ed25519_key", host_key.read_text(), 0o600)
    write("etc/ssh/ssh_host_ed25519_key.pub", Path(f"{host_key}.pub").read_text())
    # Hosts behind a TLS-inspecting proxy add their CA here; the guest needs it too for PyPI.
    for crt in glob.glob("/usr/local/share/ca-certificates/*.crt"):
        shutil.copy(crt, rootfs / "usr/local/share/ca-certificates")
    subprocess.run(["chroot", str(rootfs), "update-ca-certificates"], capture_output=True)
    subprocess.run(["chroot", str(rootfs), "systemctl", "enable", "serial-getty@ttyS0.service"],
                   capture_output=True)


def build(force: bool = False, log=None) -> Image:
    """The cached image for the current recipe, building it first if needed."""
    missing = missing_host_tools()
    if missing:
        raise ImageError("the lab VM needs host packages: apt-get install -y " + " ".join(missing))
    packages = sorted(set(BASE_PACKAGES + testbed_packages()))
    stamp = recipe_stamp(packages)
    image = Image(CACHE / stamp)
    if image.complete() and not force:
        return image
    work = Path(tempfile.mkdtemp(prefix="build-", dir=cache()))
    log = log or open(work / "build.log", "w")
    try:
        rootfs = work / "rootfs"
        print(f"labvm: building Debian {SUITE} image ({len(packages)} packages, ~2 min) in {work}",
              file=sys.stderr, flush=True)
        _run(["debootstrap", "--variant=minbase", "--include=" + ",".join(packages), SUITE,
              str(rootfs), MIRROR], log)
        _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "netlab-labvm",
              "-f", str(work / "id_ed25519")], log)
        _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "netlab-labvm-host",
              "-f", str(work / "ssh_host_ed25519_key")], log)
        _configure_rootfs(rootfs, (work / "id_ed25519.pub").read_text(), work / "ssh_host_ed25519_key")
        kind, blob = (work / "ssh_host_ed25519_key.pub").read_text().split()[:2]
        (work / "known_hosts").write_text(f"{HOST_KEY_ALIAS} {kind} {blob}\n")
        for f in ("ssh_host_ed25519_key", "ssh_host_ed25519_key.pub"):
            (work / f).unlink()
        for name, pattern in (("vmlinuz", "vmlinuz-*"), ("initrd.img", "initrd.img-*")):
            found = sorted((rootfs / "boot").glob(pattern))
            if not found:
                raise ImageError(f"no /boot/{pattern} in the guest rootfs; see {log.name}")
            shutil.copy(found[-1], work / name)
        raw = work / "disk.raw"
        _run(["truncate", "-s", DISK_SIZE, str(raw)], log)
        _run(["mkfs.ext4", "-q", "-F", "-L", "netlab", "-d", str(rootfs), str(raw)], log)
        _run(["qemu-img", "convert", "-O", "qcow2", str(raw), str(work / "base.qcow2")], log)
        raw.unlink()
        shutil.rmtree(rootfs)
        (work / "stamp").write_text(stamp + "\n")
        if image.dir.exists():
            shutil.rmtree(image.dir)
        work.rename(image.dir)  # atomic: a half-built image is never taken for a cached one
        for old in CACHE.iterdir():  # keep one image: ~2.3 GB each
            if old.is_dir() and old != image.dir and not old.name.startswith("run-"):
                shutil.rmtree(old, ignore_errors=True)
        return image
    except BaseException:
        if (work / "rootfs").exists():
            shutil.rmtree(work / "rootfs", ignore_errors=True)
        raise
