"""Suite ``scale``: fit time and peak memory as the rows grow, against pycontree.

For each data kind (``--kinds``: "synthetic", 10 normal features with a
linear rule and 10 % label noise, or a shared numeric set drawn with
replacement to the size and jittered so every value is distinct), each depth
and each row count (``--rows``, default 10^3 ... 10^6), three fits run one
at a time, each in its own process: optimaltrees exact, optimaltrees with
``max_bins`` (``--bins``, default 256: optimal over the thresholds between
quantile bins) and pycontree (exact).  The report has one table per (kind,
depth), the fitted growth exponent of time in n (least squares on log-log,
over the sizes from ``--slope-from`` rows whose fits finished) and a
log-log plot.
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from optimaltrees.bench.common import progress_line
from optimaltrees.bench.fits import libraries_note, missing_libraries
from optimaltrees.bench.report import failures_section, machine_block, markdown_table
from optimaltrees.bench.runner import Job

NAME = "scale"
WORKERS = 1      # timings: fits must not compete for the 2 cores
SIDES = ("exact", "binned", "pycontree")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--kinds", nargs="+", default=["synthetic"],
                    help='"synthetic" and / or shared numeric set names (default: synthetic)')
    ap.add_argument("--data-dir", default="../shared/datasets/continuous/train",
                    help="folder of the numeric sets named in --kinds")
    ap.add_argument("--rows", type=int, nargs="+", default=[1000, 10000, 100000, 1000000])
    ap.add_argument("--depths", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--bins", type=int, default=256, help="max_bins of the binned fits (default 256)")
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per fit (default 600)")
    ap.add_argument("--slope-from", type=int, default=10000,
                    help="fit the growth exponent on sizes from this many rows (default 10^4)")
    ap.add_argument("--sides", nargs="+", default=list(SIDES), choices=SIDES)
    ap.add_argument("--jobs", type=int, default=1,
                    help="n_jobs of the optimaltrees fits (default 1; pycontree has one thread)")


def plan(args, out_dir: Path) -> list[Job]:
    args.skipped = missing_libraries(["pycontree"]) if "pycontree" in args.sides else []
    jobs = []
    for kind in args.kinds:
        for depth in args.depths:
            for rows in args.rows:
                for side in args.sides:
                    if side == "pycontree" and "pycontree" in args.skipped:
                        continue
                    params = dict(lib="pycontree" if side == "pycontree" else "optimaltrees", kind=kind,
                                  rows=rows, depth=depth, time_limit=args.time_limit,
                                  max_bins=args.bins if side == "binned" else None, data_dir=args.data_dir,
                                  n_jobs=args.jobs)
                    if side == "pycontree":
                        params.pop("max_bins")
                        params.pop("n_jobs")
                    key = dict(kind=kind, depth=depth, rows=rows, side=side)
                    jobs.append(Job("scale_fit", params, key, time_limit=args.time_limit, grace=60.0))
    args.planned = len(jobs)
    return jobs


def slope(points: list[tuple[int, float]]) -> float | None:
    """Least-squares exponent of seconds in rows on a log-log scale."""
    if len(points) < 2:
        return None
    x, y = np.log10([p[0] for p in points]), np.log10([max(p[1], 1e-6) for p in points])
    return float(np.polyfit(x, y, 1)[0])


def _finished(r: dict | None) -> bool:
    return r is not None and r.get("status") == "ok" and not r.get("timed_out")


def _cell(r: dict | None) -> str:
    if r is None:
        return "–"
    if r.get("status") != "ok":
        return r.get("status", "failed")
    return f"{r['seconds']:.3g}" + ("†" if r.get("timed_out") else "")


def _plot(path: Path, series: dict[str, list[tuple[int, float]]], title: str) -> str | None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for name, pts in series.items():
        if pts:
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    ax.set_xlabel("rows")
    ax.set_ylabel("fit seconds")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name


def _memory_per_cell(recs: dict, args) -> str:
    """Bytes per row x feature each side's fit grew its process by, at the
    largest row count it ran (interpreter and data loaded before excluded)."""
    parts = []
    for side in args.sides:
        runs = [r for (n, sd), r in recs.items() if sd == side and r.get("status") == "ok"
                and r.get("peak_rss_mb") is not None and r.get("rss_before_fit_mb") is not None]
        if not runs:
            continue
        r = max(runs, key=lambda rec: rec["n"])
        grown = max(r["peak_rss_mb"] - r["rss_before_fit_mb"], 0.0) * 2 ** 20
        parts.append(f"{side} {grown / (r['n'] * max(r['p'], 1)):.0f} B ({r['n']:,} rows)")
    return ", ".join(parts)


def report(records: list[dict], args, out_dir: Path) -> str:
    lines = ["# Scaling in rows: optimaltrees (exact and binned) vs pycontree", ""]
    lines += progress_line(records, args)
    lines += [machine_block(args), "", libraries_note(["optimaltrees", "pycontree"], getattr(args, "skipped", [])),
              ""]
    lines += [f"Each fit in its own process, one at a time, {args.time_limit:g} s limit (`†`: stopped at the "
              f"limit, not proven). `binned` is `max_bins={args.bins}`: optimal over the thresholds between "
              "at most that many quantile bins per feature, so its errors may exceed the exact optimum. "
              f"optimaltrees fits use {getattr(args, 'jobs', 1)} thread(s) (`n_jobs`), pycontree one. "
              "Peak MB is the worker's peak RSS (interpreter, imports and data included).", ""]
    summary = []
    for kind in args.kinds:
        for depth in args.depths:
            recs = {(r.get("rows"), r.get("side")): r for r in records
                    if r.get("kind") == kind and r.get("depth") == depth}
            if not recs:
                continue
            rows_out, series = [], {s: [] for s in args.sides}
            for n in args.rows:
                cells = [f"{n:,}"]
                for side in args.sides:
                    r = recs.get((n, side))
                    cells += [_cell(r), "–" if r is None or r.get("status") != "ok" else str(r.get("error")),
                              "–" if r is None or r.get("peak_rss_mb") is None else f"{r['peak_rss_mb']:.0f}"]
                    if _finished(r):
                        series[side].append((n, r["seconds"]))
                o, p = recs.get((n, "exact")), recs.get((n, "pycontree"))
                cells.append(f"{o['seconds'] / p['seconds']:.2f}" if _finished(o) and _finished(p) else "–")
                rows_out.append(cells)
            head = ["rows"]
            for side in args.sides:
                head += [f"{side} s", f"{side} errors", f"{side} peak MB"]
            head.append("exact / pycontree")
            lines += [f"## {kind}, depth {depth}", "", markdown_table(head, rows_out), ""]
            exps = {s: slope([pt for pt in pts if pt[0] >= args.slope_from]) for s, pts in series.items()}
            text = ", ".join(f"{s} {e:.2f}" for s, e in exps.items() if e is not None) or "too few finished fits"
            lines += [f"Growth exponent of time in rows (from {args.slope_from:,} rows, finished fits): {text}.", ""]
            memory = _memory_per_cell(recs, args)
            if memory:
                lines += [f"Memory per row x feature (the worker's RSS growth during the fit, at the most rows "
                          f"measured): {memory}.", ""]
            summary.append(f"- {kind}, depth {depth}: exponents {text}" + (f"; bytes per row x feature {memory}"
                                                                            if memory else ""))
            picture = _plot(out_dir / f"{Path(args.out or 'scale.md').stem}-{kind}-d{depth}.png", series,
                            f"{kind}, depth {depth}")
            if picture:
                lines += [f"![{kind} depth {depth}]({picture})", ""]
    lines += ["## Summary", ""] + summary + [""]
    lines += failures_section(records, lambda r: f"{r.get('kind')} depth {r.get('depth')} {r.get('rows')} rows "
                                                 f"{r.get('side')}")
    return "\n".join(lines)
