"""Small helpers the suites share to write their markdown reports."""
from __future__ import annotations

import math
import os
import platform
import statistics
import time


def fmt(value, digits: int = 3) -> str:
    """A number for a table cell: blank for None, rounded to ``digits`` significant places."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        return f"{value:.{digits}g}" if abs(value) < 10 ** digits else f"{value:.0f}"
    return str(value)


def markdown_table(head: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def geo_mean(values) -> float | None:
    values = [v for v in values if v is not None and v > 0]
    return math.exp(statistics.fmean(math.log(v) for v in values)) if values else None


def machine_block(args) -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    where = getattr(args, "scheduler", None) or f"local Dask cluster, {getattr(args, 'workers', 1)} worker(s)"
    return (f"Command: `{getattr(args, 'command_line', '')}`  \n"
            f"Machine: {os.cpu_count()} cpus, {platform.machine()}, Python {platform.python_version()}; "
            f"load {load:.2f} at the end; {where}; {time.strftime('%Y-%m-%d %H:%M')}")
