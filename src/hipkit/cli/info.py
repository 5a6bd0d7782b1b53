"""``hipkit info``: every platform and device, as rocminfo lists agents."""

from __future__ import annotations

import json

from .. import platforms
from .._errors import HipError
from ..runtime.device import devices


def add_parser(commands) -> None:
    p = commands.add_parser("info", help="list platforms and devices (like rocminfo)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def collect() -> dict:
    """Platforms with their devices' properties, or why each is absent."""
    report: dict = {"platforms": []}
    for name, reason in platforms.status().items():
        entry: dict = {"name": name, "available": not reason}
        if reason:
            entry["reason"] = reason
        else:
            try:
                entry["devices"] = []
                for dev in devices(name):
                    props = dev.properties.as_dict()
                    free, total = dev.mem_info()
                    props["memFree"] = free
                    props["target"] = str(dev.target)
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


def _text(report: dict) -> str:
    lines = []
    for p in report["platforms"]:
        mark = " (default)" if p["name"] == report.get("default") else ""
        lines.append("=" * 60)
        lines.append(f"Platform: {p['name']}{mark}")
        if not p["available"]:
            lines.append(f"  absent: {p['reason']}")
            continue
        for d in p.get("devices", []):
            lines.append(f"  Device {d['index']}")
            width = max(len(k) for k in d)
            for key, value in d.items():
                if key == "index":
                    continue
                if isinstance(value, (list, tuple)):
                    value = " x ".join(str(v) for v in value)
                lines.append(f"    {key:<{width}}  {value}")
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
