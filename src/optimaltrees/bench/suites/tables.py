"""Suite ``tables``: depth 3 and 4 on mixed tables, and what the certificate says.

Each table (:mod:`optimaltrees.bench.fits_tables`) has numeric and
categorical columns and missing values; optimaltrees searches it raw, and
pycontree and pystreed get the imputed, one-hot (and, for pystreed,
quantile-binarised) version of the same table, their only way to take it.
Every fit runs on all the table's rows in its own process, libraries
alternating, at each depth and time limit. The report gives, per depth and
limit, each library's training errors, proof and seconds, and ours' lower
bound and gap.
"""
from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from optimaltrees.bench.common import progress_line
from optimaltrees.bench.fits import libraries_note, missing_libraries
from optimaltrees.bench.fits_tables import TABLE_LIBS
from optimaltrees.bench.report import failures_section, machine_block, markdown_table
from optimaltrees.bench.runner import Job

NAME = "tables"
WORKERS = 1
OURS = "optimaltrees"
#: name -> (file under --data-dir, kind): "real" tables as published (one-hot
#: groups folded back), "mixed" numeric sets with every third column made categorical
TABLES = {
    "german-credit": ("diagrams/statlog-german-credit.csv", "real"),
    "seismic-bumps": ("diagrams/seismic-bumps.csv", "real"),
    "bank-mixed": ("continuous/train/bank.txt", "mixed"),
    "rice-mixed": ("continuous/train/rice.txt", "mixed"),
    "wilt-mixed": ("continuous/train/wilt.txt", "mixed"),
    "page-mixed": ("continuous/train/page.txt", "mixed"),
    "occupancy-mixed": ("continuous/train/occupancy.txt", "mixed"),
    "magic-mixed": ("continuous/train/magic.txt", "mixed"),
    "bank-mixed-id": ("continuous/train/bank.txt", "mixed-id"),
    "wilt-mixed-id": ("continuous/train/wilt.txt", "mixed-id"),
}
#: a table with an identifier-like column -> the same table without it
WITH_ID = {"bank-mixed-id": "bank-mixed", "wilt-mixed-id": "wilt-mixed"}


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--data-dir", default="../shared/datasets", help="the shared datasets folder")
    ap.add_argument("--datasets", nargs="+", default=list(TABLES), choices=list(TABLES), metavar="TABLE",
                    help=f"tables among {', '.join(TABLES)} (default: all)")
    ap.add_argument("--depths", type=int, nargs="+", default=[3, 4], help="tree depths (default: 3 4)")
    ap.add_argument("--time-limits", type=float, nargs="+", default=[60.0, 600.0],
                    help="seconds per fit, each a setting of its own (default: 60 600)")
    ap.add_argument("--remove", type=float, default=0.05,
                    help="share of every feature column's values removed at random (default 0.05)")
    ap.add_argument("--libs", nargs="+", default=list(TABLE_LIBS), choices=list(TABLE_LIBS), metavar="LIB",
                    help=f"libraries among {', '.join(TABLE_LIBS)} (default: all)")
    ap.add_argument("--repeats", type=int, default=1, help="fits per (table, depth, limit, library) (default 1)")


def report_name(args) -> str:
    return "tables-" + "-".join(f"{limit:g}s" for limit in args.time_limits)


def plan(args, out_dir: Path) -> list[Job]:
    args.skipped = missing_libraries([lib for lib in args.libs if lib != OURS])
    libs = [lib for lib in args.libs if lib not in args.skipped]
    jobs = []
    for limit in args.time_limits:
        for depth in args.depths:
            for name in args.datasets:
                path, kind = TABLES[name]
                for rep in range(args.repeats):
                    shift = rep % max(1, len(libs))
                    for pos, lib in enumerate(libs[shift:] + libs[:shift]):
                        key = dict(dataset=name, depth=depth, time_limit=limit, lib=lib, repeat=rep + 1,
                                   order=pos + 1)
                        params = dict(data=str(Path(args.data_dir) / path), kind=kind, lib=lib, depth=depth,
                                      time_limit=limit, remove=args.remove)
                        jobs.append(Job("optimaltrees.bench.fits_tables:table_fit", params, key,
                                        time_limit=limit, grace=60.0))
    args.planned = len(jobs)
    return jobs


def _median(recs: list[dict], field: str):
    values = [r[field] for r in recs if r.get(field) is not None]
    return statistics.median(values) if values else None


def _cells(recs: list[dict], ours: bool) -> list[str]:
    if not recs:
        return ["", "", ""] + (["", ""] if ours else [])
    proven = all(r.get("optimal") for r in recs)
    errors = max(r["error"] for r in recs)
    cells = [f"{errors:g}", "✓" if proven else "–", f"{_median(recs, 'seconds'):.3g}"]
    if ours:
        bound = min(r["lower_bound"] for r in recs)
        gap = max(r["gap"] for r in recs)
        cells += [f"{bound:g}", f"{100 * gap:.1f} %"]
    return cells


def _section(records: list[dict], args, depth: int, limit: float, libs: list[str]) -> tuple[list[str], list[str]]:
    """(table lines, summary lines) of one depth and limit."""
    head = ["table", "rows", "columns (categorical)", "missing"]
    for lib in libs:
        head += [f"{lib} errors", f"{lib} proven", f"{lib} s"] + (["lower bound", "gap"] if lib == OURS else [])
    rows, proven, gaps = [], dict.fromkeys(libs, 0), []
    for name in args.datasets:
        recs = [r for r in records if r.get("dataset") == name and r.get("depth") == depth
                and r.get("time_limit") == limit and r.get("status") == "ok"]
        if not recs:
            continue
        first = recs[0]
        row = [name, first["n"], f"{first['columns']} ({first['categorical']})", f"{100 * first['missing_share']:.1f} %"]
        for lib in libs:
            mine = [r for r in recs if r["lib"] == lib]
            row += _cells(mine, lib == OURS)
            proven[lib] += bool(mine) and all(r.get("optimal") for r in mine)
            if lib == OURS and mine:
                gaps.append((max(r["gap"] for r in mine), name))
        rows.append(row)
    summary = [f"depth {depth}, {limit:g} s: proven — " + ", ".join(f"{lib} {proven[lib]}" for lib in libs)
               + f" of {len(rows)} tables"]
    if gaps:
        worst, where = max(gaps)
        summary.append(f"depth {depth}, {limit:g} s: our gap at most 10 % on {sum(g <= 0.10 for g, _ in gaps)} "
                       f"of {len(gaps)} tables; largest {100 * worst:.1f} % ({where})")
    for with_id, without in WITH_ID.items():
        a, b = (_ours(records, name, depth, limit) for name in (with_id, without))
        if a and b and b["seconds"] > 0:
            summary.append(f"depth {depth}, {limit:g} s: an identifier-like column costs "
                           f"{a['seconds'] / b['seconds']:.1f}× its absence ({without}"
                           + ("" if a["optimal"] else f"; not proven within {limit:g} s") + ")")
    lines = [f"## Depth {depth}, {limit:g} s", "", markdown_table(head, rows), ""]
    return lines, summary


def _ours(records: list[dict], name: str, depth: int, limit: float) -> dict | None:
    """Our fit of one table, depth and limit (median seconds; proven in every repeat)."""
    mine = [r for r in records if r.get("dataset") == name and r.get("depth") == depth and r.get("lib") == OURS
            and r.get("time_limit") == limit and r.get("status") == "ok"]
    if not mine:
        return None
    return dict(seconds=_median(mine, "seconds"), optimal=all(r.get("optimal") for r in mine))


def report(records: list[dict], args, out_dir: Path) -> str:
    libs = [lib for lib in args.libs if lib not in getattr(args, "skipped", [])]
    lines = ["# Mixed tables: exact depth 3 and 4 on numeric and categorical columns with missing values", ""]
    lines += progress_line(records, args)
    lines += [machine_block(args), "", libraries_note(libs, getattr(args, "skipped", [])), ""]
    lines += ["Tables: " + "; ".join(f"{name} ({TABLES[name][0]}, {TABLES[name][1]})" for name in args.datasets)
              + f". A real table's one-hot groups are folded back into one text column; a mixed table is a "
              "numeric set whose every third column (from the second) becomes a text column of its 6 quantile "
              "bins, named in shuffled order; mixed-id adds a text column of nearly all-distinct names (an "
              f"identifier left in the table). Then {100 * args.remove:g} % of every feature column's values are "
              "removed at random (seed 0).", "",
              "optimaltrees searches the raw table (`tie_break=\"first_found\"`, as the peers): missing values and "
              "`x == v` tests exactly. pycontree gets it median / most-frequent imputed and one-hot encoded; "
              "pystreed the same with every numeric column as 0/1 tests at 8 quantiles. Errors are training "
              "errors on all the table's rows, each library in its own encoding (so they differ where the "
              "encodings do). Every fit runs in its own process, libraries alternating; seconds are medians "
              f"over {args.repeats} repeat(s); a dash under proven means the fit hit its limit. Lower bound and "
              "gap are ours (the peers report none).", ""]
    sections, summary = [], []
    for limit in args.time_limits:
        for depth in args.depths:
            body, lines_summary = _section(records, args, depth, limit, libs)
            sections += body
            summary += lines_summary
    lines += ["## Summary", ""] + [f"- {s}" for s in summary] + [""] + sections
    lines += failures_section(records, lambda r: f"{r.get('dataset')} depth {r.get('depth')} "
                                                 f"{r.get('time_limit')} s {r.get('lib')}")
    return "\n".join(lines)
