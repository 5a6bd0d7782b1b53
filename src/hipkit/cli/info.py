"""``hipkit info``: every platform and device, as rocminfo and nvidia-smi list them."""

from __future__ import annotations

import json

from .. import __version__, platforms
from .._errors import HipError
from ..runtime.device import devices


def add_parser(commands) -> None:
    p = commands.add_parser("info", help="list platforms and devices (like rocminfo)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def pci_bus_id(props: dict) -> str | None:
    """hipDeviceGetPCIBusId's form, ``domain:bus:device.function``; None off PCI (the CPU)."""
    if not (props["pciDomainID"] or props["pciBusID"] or props["pciDeviceID"]):
        return None
    return f"{props['pciDomainID']:04x}:{props['pciBusID']:02x}:{props['pciDeviceID']:02x}.0"


def collect() -> dict:
    """Platforms with their software versions and their devices' properties,
    or why each is absent.  Device entries hold hipDeviceProp_t's fields by
    HIP's names plus ``memFree``, ``target``, ``isa`` and ``pciBusId``."""
    report: dict = {"hipkit": __version__, "platforms": []}
    for name, reason in platforms.status().items():
        entry: dict = {"name": name, "available": not reason}
        if reason:
            entry["reason"] = reason
        else:
            try:
                platform = platforms.get(name)
                entry["versions"] = platform.versions()
                entry["devices"] = []
                for dev in devices(name):
                    props = dev.properties.as_dict()
                    props["memFree"] = dev.mem_info()[0]
                    props["target"] = str(dev.target)
                    props["isa"] = platform.isa(dev._native)
                    props["pciBusId"] = pci_bus_id(props)
                    entry["devices"].append({"index": dev.index, **props})
            except HipError as exc:
                entry["available"] = False
                entry["reason"] = str(exc)
        report["platforms"].append(entry)
    try:
        report["default"] = platforms.default().name
    except HipError as exc:
        report["default"] = None
        report["error"] = str(exc)
    return report


def _size(nbytes: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}" if nbytes % scale else f"{nbytes // scale} {unit}"
    return f"{nbytes} B"


def _mhz(khz: int) -> str:
    return f"{khz / 1000:.0f} MHz" if khz else "-"


def _device_rows(d: dict) -> list[tuple[str, str]]:
    """What rocminfo shows of an agent, with hipDeviceProp_t's names beside."""
    memory_bus = f"{d['memoryBusWidth']}-bit, {_mhz(d['memoryClockRate'])}" if d["memoryBusWidth"] else "-"
    per_cu = f" (per compute unit {_size(d['maxSharedMemoryPerMultiProcessor'])})"
    return [
        ("Name (name)", d["name"]),
        ("Arch (gcnArchName)", d["gcnArchName"]),
        ("Target", d["target"]),
        ("ISA", d["isa"]),
        ("PCI bus id", d["pciBusId"] or "- (not a PCI device)"),
        ("Compute units (multiProcessorCount)", str(d["multiProcessorCount"])),
        ("Warp size (warpSize)", str(d["warpSize"])),
        ("Max threads per block (maxThreadsPerBlock)", str(d["maxThreadsPerBlock"])),
        ("Max block dims (maxThreadsDim)", " x ".join(map(str, d["maxThreadsDim"]))),
        ("Max grid dims (maxGridSize)", " x ".join(map(str, d["maxGridSize"]))),
        ("Shared memory/LDS per block (sharedMemPerBlock)", _size(d["sharedMemPerBlock"]) + per_cu),
        ("Registers per block (regsPerBlock)", str(d["regsPerBlock"])),
        ("L2 cache (l2CacheSize)", _size(d["l2CacheSize"])),
        ("Constant memory (totalConstMem)", _size(d["totalConstMem"])),
        ("Memory (totalGlobalMem)", f"{_size(d['totalGlobalMem'])} total, {_size(d['memFree'])} free"),
        ("Memory bus (memoryBusWidth, memoryClockRate)", memory_bus),
        ("Clock (clockRate)", _mhz(d["clockRate"])),
        ("Compute capability (major.minor)", f"{d['major']}.{d['minor']}"),
    ]


def _text(report: dict) -> str:
    lines = [f"hipkit {report['hipkit']}"]
    for p in report["platforms"]:
        mark = " (default)" if p["name"] == report.get("default") else ""
        lines.append("=" * 72)
        lines.append(f"Platform: {p['name']}{mark}")
        if not p["available"]:
            lines.append(f"  absent: {p['reason']}")
            continue
        for key, value in p["versions"].items():
            lines.append(f"  {key + ':':<22} {value}")
        for d in p["devices"]:
            lines.append(f"  Device {d['index']}")
            rows = _device_rows(d)
            width = max(len(label) for label, _ in rows)
            lines.extend(f"    {label:<{width}}  {value}" for label, value in rows)
    return "\n".join(lines)


def run(args) -> int:
    report = collect()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(_text(report))
        if report.get("error"):
            print(f"\nno device to use: {report['error']}")
    return 0 if report.get("default") else 1
