"""Small helpers the suites share to write their markdown reports."""
from __future__ import annotations

import math
import os
import platform
import statistics
import time

from optimaltrees._optional import require


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


def failures_section(records: list[dict], describe, title: str = "Runs without a result") -> list[str]:
    """Report lines listing every record whose status is not "ok", one
    ``- {describe(record)}: {status} {message}`` line each (none if all ran)."""
    failed = [r for r in records if r.get("status") != "ok"]
    if not failed:
        return []
    return ([f"## {title}", ""]
            + [f"- {describe(r)}: {r.get('status')} {r.get('message', '')}" for r in failed] + [""])


def geo_mean(values) -> float | None:
    values = [v for v in values if v is not None and v > 0]
    return math.exp(statistics.fmean(math.log(v) for v in values)) if values else None


def machine_block(args) -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    where = (getattr(args, "runs_on", None) or getattr(args, "scheduler", None)
             or f"local Dask cluster, {getattr(args, 'workers', 1)} worker(s)")
    return (f"Command: `{getattr(args, 'command_line', '')}`  \n"
            f"Machine: {os.cpu_count()} cpus, {platform.machine()}, Python {platform.python_version()}; "
            f"load {load:.2f} at the end; {where}; {time.strftime('%Y-%m-%d %H:%M')}")


def time_scatter(path, points: list[tuple[str, float, float]], *, ours: str, peer: str, title: str) -> str | None:
    """Log-log scatter of (label, our seconds, peer seconds) with the diagonal:
    points below it are data sets where we are faster.  Returns the file name
    (for a markdown image link) or None when there is nothing to draw."""
    points = [(n, a, b) for n, a, b in points if a and b and a > 0 and b > 0]
    if not points:
        return None
    Figure = require("matplotlib.figure", "bench", "the benchmark pictures").Figure

    fig = Figure(figsize=(4.8, 4.4), layout="constrained")
    ax = fig.add_subplot()
    xs, ys = [b for _, _, b in points], [a for _, a, _ in points]
    ax.scatter(xs, ys, s=18)
    for name, a, b in points:
        ax.annotate(name, (b, a), fontsize=6, xytext=(3, 2), textcoords="offset points")
    lo, hi = min(xs + ys) / 1.5, max(xs + ys) * 1.5
    ax.plot([lo, hi], [lo, hi], color="#888888", linestyle="--", linewidth=1)
    ax.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(lo, hi), title=title,
           xlabel=f"{peer} seconds", ylabel=f"{ours} seconds")
    ax.grid(alpha=0.3)
    fig.savefig(path, dpi=120)
    return str(getattr(path, "name", path))
