"""Boot a cached guest image under QEMU, reach it over SSH, and always stop it.

KVM is used only where the host has a real hardware hypervisor module
(kvm_intel / kvm_amd): this platform's /dev/kvm is kvm_pvm, on which stock
guest kernels crash, so here the guest runs under TCG (software emulation,
multi-threaded). Which accelerator ran is part of every record.

Each boot writes to a throwaway qcow2 overlay in its own run directory, so the
cached image is never modified; the QEMU process is ours (we hold its PID) and
is killed and the directory removed on exit, Ctrl-C or SIGTERM.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from beowulf_netlab.core.errors import RuntimeFailure
from beowulf_netlab.core.signals import TerminateAsExit
from beowulf_netlab.labvm.image import HOST_KEY_ALIAS, Image, cache


class VMError(RuntimeFailure):
    pass


def accelerator() -> list[str]:
    """QEMU flags: KVM on a real hypervisor, TCG otherwise (see module doc)."""
    if os.path.exists("/dev/kvm") and (os.path.exists("/sys/module/kvm_intel")
                                       or os.path.exists("/sys/module/kvm_amd")):
        return ["-accel", "kvm", "-cpu", "host"]
    return ["-accel", "tcg,thread=multi", "-cpu", "max"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class VM:
    """A running guest. Use as a context manager."""

    def __init__(self, image: Image, memory_mb: int = 2048, cpus: int = 2,
                 boot_timeout: float = 300.0):
        self.image = image
        self.memory_mb = memory_mb
        self.cpus = cpus
        self.boot_timeout = boot_timeout
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.dir: Path | None = None
        self.boot_s = 0.0
        self._signals = TerminateAsExit()

    @property
    def accel(self) -> str:
        return "kvm" if "kvm" in accelerator() else "tcg"

    # -- lifecycle --
    def __enter__(self) -> "VM":
        self._signals.install()
        try:
            self.start()
            self.wait_ssh()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix=f"run-{os.getpid()}-", dir=cache()))
        overlay = self.dir / "overlay.qcow2"
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(self.image.disk),
                        "-F", "qcow2", str(overlay)], check=True)
        self.port = free_port()
        cmd = ["qemu-system-x86_64", *accelerator(), "-smp", str(self.cpus), "-m", str(self.memory_mb),
               "-nographic", "-no-reboot", "-serial", f"file:{self.dir / 'console.log'}",
               "-monitor", "none",
               "-drive", f"file={overlay},if=virtio,format=qcow2",
               "-netdev", f"user,id=n0,hostfwd=tcp:127.0.0.1:{self.port}-:22",
               "-device", "virtio-net-pci,netdev=n0",
               "-kernel", str(self.image.kernel), "-initrd", str(self.image.initrd),
               "-append", "root=/dev/vda rw console=ttyS0 net.ifnames=0 quiet"]
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(self.dir / "qemu.log", "w"), start_new_session=True)

    def wait_ssh(self) -> None:
        deadline = self.t0 + self.boot_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise VMError(f"QEMU exited ({self.proc.returncode}) while booting: "
                              f"{self._tail('qemu.log') or self._tail('console.log')}")
            r = subprocess.run(self.ssh_cmd("true", connect_timeout=5), capture_output=True)
            if r.returncode == 0:
                self.boot_s = time.monotonic() - self.t0
                return
            time.sleep(2)
        raise VMError(f"guest not reachable over SSH after {self.boot_timeout:.0f} s; console: "
                      f"{self._tail('console.log')}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:  # a clean poweroff first: the overlay is thrown away anyway, so don't wait long
                subprocess.run(self.ssh_cmd("systemctl poweroff", connect_timeout=3),
                               capture_output=True, timeout=10)
                self.proc.wait(timeout=20)
            except (subprocess.TimeoutExpired, OSError):
                pass
            if self.proc.poll() is None:
                os.kill(self.proc.pid, signal.SIGKILL)  # our own child, by PID
                self.proc.wait()
        self.proc = None
        if self.dir is not None and not os.environ.get("NETLAB_LABVM_KEEP"):
            shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None
        self._signals.restore()

    # -- talking to the guest --
    def ssh_options(self, connect_timeout: int = 10) -> list[str]:
        return [*self.host_key_options(),
                "-o", "LogLevel=ERROR", "-o", f"ConnectTimeout={connect_timeout}",
                "-o", "BatchMode=yes", "-o", "ServerAliveInterval=15",
                "-i", str(self.image.key), "-p", str(self.port)]

    def host_key_options(self) -> list[str]:
        """The guest's key is the one made at build (labvm.image), checked under one alias
        whatever port this boot forwards: a process that took the port first cannot pose as it."""
        return ["-o", "StrictHostKeyChecking=yes", "-o", f"UserKnownHostsFile={self.image.known_hosts}",
                "-o", f"HostKeyAlias={HOST_KEY_ALIAS}"]

    def ssh_cmd(self, command: str, connect_timeout: int = 10) -> list[str]:
        return ["ssh", *self.ssh_options(connect_timeout), "root@127.0.0.1", command]

    def run(self, command: str, check: bool = True, timeout: float | None = None,
            capture: bool = True, stdin=None) -> subprocess.CompletedProcess:
        r = subprocess.run(self.ssh_cmd(command), capture_output=capture, text=True,
                           timeout=timeout, stdin=stdin)
        if check and r.returncode != 0:
            raise VMError(f"in the guest: {command!r} exited {r.returncode}: "
                          f"{(r.stderr or '')[-500:]}")
        return r

    def push_tree(self, src: Path, dest: str, exclude: tuple[str, ...] = ()) -> None:
        """Copy a directory into the guest (tar over SSH: nothing to install in the guest)."""
        tar = subprocess.Popen(["tar", "-C", str(src), *[f"--exclude={e}" for e in exclude],
                                "-cf", "-", "."], stdout=subprocess.PIPE)
        self.run(f"rm -rf {dest} && mkdir -p {dest} && tar -C {dest} -xf -", stdin=tar.stdout)
        tar.wait()

    def inventory_line(self, name: str = "labvm") -> str:
        """An Ansible inventory host line that reaches this guest."""
        return (f"{name} ansible_host=127.0.0.1 ansible_port={self.port} ansible_user=root "
                f"ansible_ssh_private_key_file={self.image.key} "
                f"ansible_python_interpreter=/usr/bin/python3 "
                f"ansible_ssh_common_args='{' '.join(self.host_key_options())}'")

    def _tail(self, name: str, chars: int = 600) -> str:
        try:
            return (self.dir / name).read_text(errors="replace")[-chars:].replace("\n", " | ")
        except (OSError, TypeError):
            return ""
