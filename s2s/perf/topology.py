"""What this host is, read from sysfs and /proc: sockets, cores, SMT, caches, CPU model, ISA, clocks.

Everything is read from files (``sys_root``/``proc_root`` can point at a copy for tests); nothing is
measured here. Missing files give ``None`` (containers and some ARM boards have no cache or
cpufreq entries), never an error.
"""
from __future__ import annotations

import os
import platform
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

# ISA extensions worth reporting (x86 and Arm names as /proc/cpuinfo spells them).
_ISA_OF_INTEREST = (
    "sse2", "sse3", "ssse3", "sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512dq",
    "avx512cd", "avx512bw", "avx512vl", "avx512ifma", "avx512vbmi", "avx512_vnni", "avx512_bf16",
    "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8", "avx_vnni",
    "asimd", "fphp", "asimdhp", "asimddp", "sve", "sve2", "sme", "i8mm", "bf16",
)


@dataclass(frozen=True)
class CacheLevel:
    """One cache of the hierarchy (one entry per kind: all instances of L2 are one CacheLevel)."""

    level: int
    type: str                 # "Data", "Instruction" or "Unified"
    size_bytes: int           # of one instance
    line_bytes: int | None
    ways: int | None
    instances: int            # how many of them the online CPUs have
    shared_by: int            # logical CPUs sharing one instance

    @property
    def name(self) -> str:
        return f"L{self.level}" + {"Data": "d", "Instruction": "i"}.get(self.type, "")

    @property
    def holds_data(self) -> bool:
        return self.type in ("Data", "Unified")


@dataclass(frozen=True)
class Topology:
    cpu_model: str
    vendor: str | None
    arch: str
    isa: tuple[str, ...]
    sockets: int
    cores: int                # physical cores, all sockets
    threads_per_core: int
    logical_cpus: int         # online
    usable_cpus: int          # in this process's affinity mask
    numa_nodes: int
    caches: tuple[CacheLevel, ...] = ()
    max_mhz: float | None = None       # cpufreq cpuinfo_max_freq (None on most VMs)
    cpuinfo_mhz: float | None = None   # /proc/cpuinfo "cpu MHz": current clock, or the TSC rate on a VM
    hypervisor: str | None = None      # "KVM", ... when running virtualised
    memory_bytes: int | None = None
    sve_bits: int | None = None

    # --- derived -----------------------------------------------------------------------------
    @property
    def simd_bits(self) -> int:
        """Width of the widest floating-point SIMD registers the CPU has."""
        isa = set(self.isa)
        if "avx512f" in isa:
            return 512
        if "avx" in isa:
            return 256
        if self.sve_bits:
            return self.sve_bits
        if "sse2" in isa or "asimd" in isa or self.arch in ("x86_64", "aarch64", "arm64"):
            return 128
        return 64

    @property
    def simd_name(self) -> str:
        isa = set(self.isa)
        if "avx512f" in isa:
            return "AVX-512"
        if "avx" in isa:
            return "AVX2" if "avx2" in isa else "AVX"
        if self.sve_bits:
            return "SVE"
        if "asimd" in isa or self.arch in ("aarch64", "arm64"):
            return "NEON"
        if "sse2" in isa:
            return "SSE2"
        return "scalar"

    @property
    def fma(self) -> bool:
        return "fma" in self.isa or self.arch in ("aarch64", "arm64")

    @property
    def fma_pipes_bound(self) -> int:
        """Upper bound on vector FMA instructions one core can start per cycle at full width:
        2 on every x86 core to date, 4 on Arm (128-bit pipes: Apple, Neoverse V2)."""
        return 4 if self.arch in ("aarch64", "arm64") else 2

    def cache(self, name: str) -> CacheLevel | None:
        """``"L1"`` (the data cache), ``"L2"``, ``"L3"``: the data-holding cache of that level."""
        level = int(name.lstrip("Ll").rstrip("di") or 0)
        for c in self.caches:
            if c.level == level and c.holds_data:
                return c
        return None

    @property
    def data_caches(self) -> list[CacheLevel]:
        return sorted((c for c in self.caches if c.holds_data), key=lambda c: c.level)

    @property
    def last_level_cache(self) -> CacheLevel | None:
        caches = self.data_caches
        return caches[-1] if caches else None

    def to_json(self) -> dict:
        d = asdict(self)
        d["caches"] = [dict(asdict(c), name=c.name) for c in self.caches]
        d["simd_bits"] = self.simd_bits
        d["simd_name"] = self.simd_name
        d["fma"] = self.fma
        d["isa"] = list(self.isa)
        return d

    @staticmethod
    def from_json(d: dict) -> "Topology":
        fields = {k: v for k, v in d.items() if k in Topology.__dataclass_fields__}
        fields["caches"] = tuple(CacheLevel(**{k: v for k, v in c.items() if k in CacheLevel.__dataclass_fields__})
                                 for c in d.get("caches", ()))
        fields["isa"] = tuple(d.get("isa", ()))
        return Topology(**fields)

    def summary(self) -> str:
        smt = f" × {self.threads_per_core} threads" if self.threads_per_core > 1 else ""
        virt = f", {self.hypervisor} guest" if self.hypervisor else ""
        return (f"{self.cpu_model} ({self.arch}{virt}): {self.sockets} socket(s) × "
                f"{self.cores // max(self.sockets, 1)} cores{smt}, {self.logical_cpus} logical CPUs "
                f"({self.usable_cpus} usable), {self.numa_nodes} NUMA node(s)")

    def caches_summary(self) -> str:
        parts = []
        for c in sorted(self.caches, key=lambda c: (c.level, c.type)):
            share = f", shared by {c.shared_by}" if c.shared_by > 1 else ""
            parts.append(f"{c.name} {format_bytes(c.size_bytes)} ×{c.instances}{share}")
        return "; ".join(parts) or "unknown (no cache information in sysfs)"


def format_bytes(n: float | None) -> str:
    if n is None:
        return "?"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            v = n / scale
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{int(n)} B"


# --- reading ----------------------------------------------------------------------------------------

def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def parse_cpu_list(text: str | None) -> list[int]:
    """``"0-3,8,10-11"`` -> [0, 1, 2, 3, 8, 10, 11]."""
    out: list[int] = []
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def parse_size(text: str | None) -> int | None:
    """sysfs cache sizes: ``"48K"``, ``"1024K"``, ``"32M"``, ``"512"``."""
    if not text:
        return None
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)i?B?\s*", text, re.I)
    if not m:
        return None
    return int(m.group(1)) * {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}[m.group(2).upper()]


def _cpuinfo_blocks(text: str) -> list[dict[str, str]]:
    blocks, cur = [], {}
    for line in text.splitlines():
        if not line.strip():
            if cur:
                blocks.append(cur)
            cur = {}
            continue
        key, _, value = line.partition(":")
        cur[key.strip()] = value.strip()
    if cur:
        blocks.append(cur)
    return blocks


def read_topology(sys_root: str | Path = "/sys", proc_root: str | Path = "/proc") -> Topology:
    sys_root, proc_root = Path(sys_root), Path(proc_root)
    cpu_dir = sys_root / "devices" / "system" / "cpu"
    blocks = _cpuinfo_blocks(_read(proc_root / "cpuinfo") or "")
    first = blocks[0] if blocks else {}

    model = first.get("model name") or first.get("Model") or first.get("cpu model") or first.get("Processor") \
        or platform.processor() or platform.machine()
    vendor = first.get("vendor_id") or first.get("CPU implementer")
    flags = (first.get("flags") or first.get("Features") or "").split()
    isa = tuple(f for f in _ISA_OF_INTEREST if f in flags)
    hypervisor = None
    if "hypervisor" in flags:
        hypervisor = _read(sys_root / "hypervisor" / "type") or _hypervisor_vendor(proc_root) or "hypervisor"

    online = parse_cpu_list(_read(cpu_dir / "online")) or list(range(os.cpu_count() or 1))
    packages, cores = set(), set()
    for cpu in online:
        topo = cpu_dir / f"cpu{cpu}" / "topology"
        pkg = _int(_read(topo / "physical_package_id"))
        core = _int(_read(topo / "core_id"))
        die = _int(_read(topo / "die_id"))
        if pkg is None or core is None:
            continue
        packages.add(pkg)
        cores.add((pkg, die, core))
    if not cores:  # no sysfs topology: fall back on cpuinfo
        for b in blocks:
            if "core id" in b:
                packages.add(b.get("physical id", "0"))
                cores.add((b.get("physical id", "0"), None, b["core id"]))
    n_logical = len(online)
    n_cores = len(cores) or n_logical
    n_sockets = len(packages) or 1
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = n_logical

    nodes = [p for p in (sys_root / "devices" / "system" / "node").glob("node[0-9]*")]

    max_khz = _int(_read(cpu_dir / f"cpu{online[0]}" / "cpufreq" / "cpuinfo_max_freq"))
    max_mhz = max_khz / 1000 if max_khz else None
    if max_mhz is None:
        # some kernels (Arm) put the maximum in cpuinfo instead
        m = first.get("CPU max MHz")
        max_mhz = float(m) if m else None
    cpuinfo_mhz = None
    if first.get("cpu MHz"):
        try:
            cpuinfo_mhz = max(float(b["cpu MHz"]) for b in blocks if b.get("cpu MHz"))
        except ValueError:
            cpuinfo_mhz = None

    sve = _int(_read(proc_root / "sys" / "abi" / "sve_default_vector_length"))
    return Topology(
        cpu_model=model, vendor=vendor, arch=platform.machine(), isa=isa, sockets=n_sockets, cores=n_cores,
        threads_per_core=max(1, n_logical // n_cores), logical_cpus=n_logical, usable_cpus=usable,
        numa_nodes=max(1, len(nodes)), caches=tuple(_read_caches(cpu_dir, online)), max_mhz=max_mhz,
        cpuinfo_mhz=cpuinfo_mhz, hypervisor=hypervisor, memory_bytes=_memory_bytes(proc_root),
        sve_bits=sve * 8 if sve and "sve" in flags else None,
    )


def _hypervisor_vendor(proc_root: Path) -> str | None:
    # lscpu learns the vendor through CPUID; /sys/hypervisor is Xen-only. The DMI product name is a
    # readable hint on the common clouds.
    for p in ("/sys/class/dmi/id/sys_vendor", "/sys/class/dmi/id/product_name"):
        v = _read(Path(p))
        if v and re.search(r"kvm|qemu|vmware|xen|microsoft|amazon|google|virtualbox", v, re.I):
            return v
    return None


def _read_caches(cpu_dir: Path, online: list[int]) -> list[CacheLevel]:
    seen: dict[tuple[int, str], dict] = {}
    for cpu in online:
        for index in sorted((cpu_dir / f"cpu{cpu}" / "cache").glob("index[0-9]*")):
            level = _int(_read(index / "level"))
            kind = _read(index / "type") or "Unified"
            size = parse_size(_read(index / "size"))
            if level is None or size is None:
                continue
            shared = tuple(parse_cpu_list(_read(index / "shared_cpu_list"))) or (cpu,)
            entry = seen.setdefault((level, kind), {"size": size, "line": _int(_read(index / "coherency_line_size")),
                                                    "ways": _int(_read(index / "ways_of_associativity")),
                                                    "instances": set()})
            entry["instances"].add(shared)
    out = []
    for (level, kind), e in sorted(seen.items()):
        shared_by = max(len(s) for s in e["instances"])
        out.append(CacheLevel(level, kind, e["size"], e["line"], e["ways"], len(e["instances"]), shared_by))
    return out


def _memory_bytes(proc_root: Path) -> int | None:
    for line in (_read(proc_root / "meminfo") or "").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    return None


@dataclass
class LoadInfo:
    """How busy the machine is right now (measurements on a busy machine come out low)."""

    loadavg_1min: float | None
    logical_cpus: int
    notes: list[str] = field(default_factory=list)

    @property
    def busy(self) -> bool:
        return self.loadavg_1min is not None and self.loadavg_1min > 0.5 * self.logical_cpus


def current_load(proc_root: str | Path = "/proc", logical_cpus: int | None = None) -> LoadInfo:
    text = _read(Path(proc_root) / "loadavg")
    load = float(text.split()[0]) if text else None
    return LoadInfo(load, logical_cpus or os.cpu_count() or 1)
