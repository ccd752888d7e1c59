"""Disk profiles: the sequential read and write rates an emulated node disk gets.

Why ide-1995 is 1.67 MB/s each way (MB = 10^6 bytes):
  IPPS'96 (docs/papers.md, claim 7): 7 simultaneous all-local copies, no
  network involved, reached at most 11.7 MB/s aggregate, i.e. 11.7 / 7 =
  1.67 MB/s per copy. A local copy reads and writes the same disk. The kernel
  throttle (blk-throttle, cgroup v1 `blkio.throttle.*_bps_device` or v2
  `io.max`) keeps separate read and write budgets that both accrue over wall
  time, so a copy that alternates read() and write() moves at min(read, write)
  (measured: a local copy under 1.67/1.67 runs at 1.67-1.72 MB/s). Hence
  read = write = 1.67 MB/s reproduces the all-local figure, and that case is
  the only one used to calibrate: nothing is tuned to remote-copy numbers.
  The real 520 MB IDE drive's head served reads and writes in turn; a kernel
  throttle with one shared budget (cgroup v2 io.cost) would model that, but it
  is absent on both this platform and cgroup v1. The difference only matters
  for remote copies, which would then read at the full head rate: see
  README "Disk/Net balance".

Disk work on the CPU (a profile's disk.transfer, era-machines.md M4): under PIO
the 1996 CPU moved every disk byte itself, interrupts masked, so the copies and
the node's packets share one CPU. With a hardware profile's disk, each byte a
copy reads or writes is then paid on the node's budget (netlab.hostcost's charge
channel) and the throttle holds the drive's media rate, which a local copy (two
transfers on one CPU) never reaches; a lone transfer reaches it on the demonstration
system (PIO 3.3 MB/s of CPU against a 3.0 MB/s drive), never on the prototype (2.1).
The charge is derived from the same all-local calibration point and nothing
else: a local copy crosses the CPU twice per byte, so under PIO one transfer
costs 1 / (2 x the per-copy rate) (the buffer copy included); under DMA the disk
keeps the calibrated rate and the CPU pays the buffer copy alone (per_byte_ns).
"""
from __future__ import annotations

from dataclasses import dataclass

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.topologies.hardware import MAX_DISK_MBYTE_S, MIN_DISK_MBYTE_S, Profile
from beowulf_netlab.topologies.timescale import scaled_time, shaped_rate

IPPS96_ALL_LOCAL_MBYTE_S = 11.7
IPPS96_COPIES = 7


@dataclass(frozen=True)
class DiskProfile:
    name: str
    read_mbyte_s: float | None    # None: not throttled
    write_mbyte_s: float | None
    source: str
    transfer: str | None = None   # pio | dma: the CPU pays cpu_ns_per_byte per byte moved; None: nothing
    cpu_ns_per_byte: float = 0.0

    @property
    def throttled(self) -> bool:
        return self.read_mbyte_s is not None or self.write_mbyte_s is not None

    def record(self) -> dict:
        out = {"profile": self.name, "read_mbyte_s": self.read_mbyte_s,
               "write_mbyte_s": self.write_mbyte_s, "source": self.source}
        if self.transfer:
            out.update(transfer=self.transfer, cpu_ns_per_byte=round(self.cpu_ns_per_byte, 2))
        return out


_IDE = round(IPPS96_ALL_LOCAL_MBYTE_S / IPPS96_COPIES, 2)
PROFILES: dict[str, DiskProfile] = {
    "ide-1995": DiskProfile("ide-1995", _IDE, _IDE,
                            f"IPPS'96 all-local peak {IPPS96_ALL_LOCAL_MBYTE_S} MB/s / "
                            f"{IPPS96_COPIES} copies (beowulf_netlab/netlab/disk_profiles.py)"),
    "none": DiskProfile("none", None, None, "unthrottled: the host's page cache and loop device"),
}


TODAY_DEFAULT = "ide-1995"   # what today's hosts get by default (today_disk)
HARDWARE = "hardware"    # the --disk value that takes the hardware profile's disk
TRANSFERS = (HARDWARE, "pio", "dma")   # --disk-transfer: the profile's default, or one of its modes


def parse_disk(text: str) -> DiskProfile | None:
    """A profile name, or rates in MB/s: 'R' (both ways) or 'R/W' (read/write);
    None for 'hardware' (the hardware profile decides: see for_hardware)."""
    text = text.strip()
    if text == HARDWARE:
        return None
    if text in PROFILES:
        return PROFILES[text]
    parts = text.split("/")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) not in (1, 2) or any(not (MIN_DISK_MBYTE_S <= v <= MAX_DISK_MBYTE_S) for v in values):
        raise BadInput(f"--disk takes {HARDWARE}, {', '.join(PROFILES)}, or MB/s as R or R/W "
                        f"(read/write, {MIN_DISK_MBYTE_S:g}-{MAX_DISK_MBYTE_S:g}), got {text!r}")
    read, write = values[0], values[-1]
    return DiskProfile(f"{read:g}/{write:g}", read, write, "given by the user")


def for_spec(setting: str, spec, transfer: str | None = HARDWARE, today: str = TODAY_DEFAULT) -> DiskProfile:
    """The disk every node of this network gets for a --disk setting: its machine's hardware
    profile's (spec.machine.profile, resolved when the spec was built; never reloaded) at its
    time scale; today: what today's hosts get (--today-disk). The workloads' and the
    calibration's one way to ask."""
    return for_hardware(setting, spec.machine.profile, spec.machine.time_scale, transfer, today,
                        spec.params.get("rate_mbit"))


def today_disk(name: str, rate_mbit: float | None = None) -> DiskProfile:
    """The disk today's hosts (a profile without a disk, such as none) get with --disk hardware:
    ide-1995 (the demonstration system's all-local calibration), or a 1996 hardware profile's
    calibrated rate as a plain throttle with nothing on the CPU (today's hosts pay no CPU cost);
    era: the profile built for the wire's rate (prototype-1995 at 10 Mbit/s, demonstration-1996
    at 100). The papers' file-copy figures declare era, so today's view sets each figure's own
    machine's disks against its network and changes only the hosts' CPUs (beowulf_netlab/experiments/*.json
    `choices` says why); without a rate (checking the setting) era is only accepted."""
    from beowulf_netlab.topologies.hardware import ERA, load, profile_names, resolve
    if name == TODAY_DEFAULT:
        return PROFILES[TODAY_DEFAULT]
    if name == ERA and rate_mbit is None:
        return PROFILES[TODAY_DEFAULT]
    if name != ERA and name not in profile_names():
        raise BadInput(f"--today-disk takes {TODAY_DEFAULT}, {ERA} or a hardware profile with a disk "
                       f"({', '.join(profile_names())}), got {name!r}")
    profile = resolve(name, rate_mbit) if name == ERA else load(name)
    if not profile.disk:
        raise BadInput(f"--today-disk {profile.name}: that hardware profile has no disk; use {TODAY_DEFAULT}")
    d = profile.disk
    return DiskProfile(f"{profile.name}-throttle", float(d["read_mbyte_s"]), float(d["write_mbyte_s"]),
                       f"hardware profile {profile.name}'s calibrated rate as a plain throttle, nothing on "
                       f"the CPU (today's hosts): {d['derivation']}")


def transfer_cost(profile: Profile, mode: str) -> tuple[float, float]:
    """(throttle MB/s, CPU ns per byte moved) of a profile's disk under PIO or DMA (module doc)."""
    d = profile.disk
    per_copy = min(float(d["read_mbyte_s"]), float(d["write_mbyte_s"]))
    if mode == "pio":
        return float(d["transfer"]["media_mbyte_s"]), 1e3 / (2 * per_copy)
    return per_copy, float(profile.data["host_cost"]["per_byte_ns"])


def for_hardware(setting: str, profile: Profile | None, time_scale: float = 1.0,
                 transfer: str | None = HARDWARE, today: str = TODAY_DEFAULT,
                 rate_mbit: float | None = None) -> DiskProfile:
    """The disk a node gets: --disk if it names one, else the hardware
    profile's disk (for a profile without one, such as none, or no profile: today_disk(today));
    on a time-scaled network (topologies.timescale) D times slower. With the
    profile's disk and a transfer model, the CPU's share of it (module doc);
    transfer None: the calibrated rate with nothing on the CPU, for workloads
    whose agents pay no charges (the MPI tests)."""
    disk = parse_disk(setting)
    own = profile.disk if profile is not None else None
    model = (own or {}).get("transfer") if profile is not None and profile.host_cost and transfer else None
    if transfer is not None and transfer not in TRANSFERS:
        raise BadInput(f"--disk-transfer takes {', '.join(TRANSFERS)}, got {transfer!r}")
    if model and disk is None:
        mode = model["default"] if transfer == HARDWARE else transfer
        if mode not in model["modes"]:
            raise BadInput(f"--disk-transfer {mode}: the {profile.name} profile's disk ran "
                           f"{' or '.join(model['modes'])} (beowulf_netlab/hardware/{profile.name}.json); use one of those or hardware")
        rate, cpu = transfer_cost(profile, mode)
        disk = DiskProfile(f"{profile.name}-{mode}", rate, rate,
                           f"hardware profile {profile.name}: {profile.disk['derivation']}; {mode.upper()}: "
                           + ("the throttle at the drive's media rate, every byte on the CPU (beowulf_netlab/netlab/disk_profiles.py)"
                              if mode == "pio" else "the calibrated rate, the buffer copy on the CPU"),
                           mode, cpu)
    elif disk is None and own is None:
        disk = today_disk(today, rate_mbit)
    elif disk is None:
        d = profile.disk
        disk = DiskProfile(f"{profile.name}", float(d["read_mbyte_s"]), float(d["write_mbyte_s"]),
                           f"hardware profile {profile.name}: {d['derivation']}")
    if time_scale == 1:
        return disk
    if not disk.throttled:
        raise BadInput(f"--disk {disk.name} (unthrottled) cannot be time-scaled: the host's own disk "
                       "would not run D times slower; give a rate (MB/s) or a profile")
    def slow(rate: float | None) -> float | None:
        return None if rate is None else shaped_rate(rate, time_scale)
    return DiskProfile(f"{disk.name}/D{time_scale:g}", slow(disk.read_mbyte_s), slow(disk.write_mbyte_s),
                       f"{disk.source}; time-scaled: / {time_scale:g}", disk.transfer,
                       scaled_time(disk.cpu_ns_per_byte, time_scale))
