"""Suite ``binary``: exact search against pystreed (STreeD) and pydl8.5 on 0/1 data.

On binary features the peers are the established MurTree-style (STreeD) and
DL8.5 solvers, so this is where an exact-search claim has to hold.  Every
library fits every (data set, depth) ``--repeats`` times under the same time
limit, one fit at a time, the library order rotating between repeats so that
drift of the shared machine hits all of them alike.  The report has, per
depth, the errors of every library and whether they agree, median seconds
and memory, the ratios ours/peer, and a summary: geometric-mean and max
ratio over the sets both proved, and how many sets each library proved.

With ``--baseline DIR`` the libraries are optimaltrees and ``baseline``,
optimaltrees as found in DIR (the src folder of another built checkout), run
like ours: before and after in one run, ratios ours/baseline = after/before.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from optimaltrees.bench.fits import LIBRARIES, libraries_note, missing_libraries, tie_note
from optimaltrees.bench.report import geo_mean, machine_block, markdown_table, time_scatter
from optimaltrees.bench.runner import Job
from optimaltrees.bench.common import (BASELINE, OURS, agree_all, baseline_note, check_baseline, data_files, fit_job,
                                       fmt_err, fmt_gm, fmt_mb, fmt_ratio, fmt_s, progress_line, ratio, side_notes,
                                       summarise)

NAME = "binary"
WORKERS = 1      # timings: fits must not compete for the 2 cores
DATASETS = ["anneal", "audiology", "australian-credit", "breast-wisconsin", "diabetes", "german-credit",
            "heart-cleveland", "hepatitis", "lymph", "mushroom", "pendigits", "primary-tumor", "segment",
            "soybean", "splice-1", "tic-tac-toe", "vote", "zoo-1"]
LEGEND = ("Legend: † = not proven optimal / stopped at the time limit (error is an upper bound, time ≈ "
          "limit); a–b = repeats differed; agree: ✓ all proven and equal, ✗ BUG = proven optima differ "
          "or a proven optimum is beaten, n/a = some library did not prove; killed/failed = no result.")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--data-dir", default="../shared/datasets/binary",
                    help="folder of NAME.txt files (0/1 features, label in the first column)")
    ap.add_argument("--datasets", nargs="+", default=DATASETS, help="data set names (default: all 18 CP4IM sets)")
    ap.add_argument("--depths", type=int, nargs="+", default=[3, 4, 5], help="tree depths (default: 3 4 5)")
    ap.add_argument("--repeats", type=int, default=3, help="fits per (data set, depth, library) (default 3)")
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="seconds, every library at every depth (default 60; a fit is killed at limit + 60 s)")
    ap.add_argument("--libs", nargs="+", default=[OURS, "pystreed", "pydl85"], choices=list(LIBRARIES), metavar="LIB",
                    help=f"libraries among {', '.join(LIBRARIES)} (default: optimaltrees pystreed pydl85); "
                         "the ratios are optimaltrees over each other one")
    ap.add_argument("--tie-break", choices=["first_found", "fewest_nodes"], default="first_found",
                    help="optimaltrees' tie_break (default first_found: the first optimum proven, as the peers "
                         "and a baseline return); fewest_nodes measures the cost of the fewest-node optimum")
    ap.add_argument("--baseline", metavar="DIR",
                    help="before/after: the libraries become optimaltrees and 'baseline', optimaltrees as found "
                         "in DIR (the src folder of another built checkout), run like ours (replaces --libs)")


def _chosen(args) -> list[str]:
    return [OURS, BASELINE] if getattr(args, "baseline", None) else list(args.libs)


def _libs(args) -> list[str]:
    skipped = getattr(args, "skipped", [])
    return [lib for lib in _chosen(args) if lib not in skipped]


def plan(args, out_dir: Path) -> list[Job]:
    files = data_files(args)
    args.skipped = missing_libraries([lib for lib in _chosen(args) if lib != BASELINE])
    if getattr(args, "baseline", None):
        args.baseline = check_baseline(args.baseline)
    libs = _libs(args)
    jobs = []
    for depth in args.depths:
        for name, path in files.items():
            for rep in range(args.repeats):
                shift = rep % max(1, len(libs))
                for pos, lib in enumerate(libs[shift:] + libs[:shift]):
                    key = dict(dataset=name, depth=depth, lib=lib, repeat=rep + 1, order=pos + 1)
                    jobs.append(fit_job(lib, path, depth, args.time_limit, key,
                                        baseline=getattr(args, "baseline", None),
                                        tie_break=getattr(args, "tie_break", "first_found")))
    args.planned = len(jobs)
    return jobs


def _depth_section(depth: int, records: list[dict], libs: list[str], datasets: list[str]):
    """(table, summary lines, notes, {peer: [(data set, our s, peer s)]}) of one depth."""
    peers = [lib for lib in libs if lib != OURS] if OURS in libs else []
    ratios: dict[str, list[tuple[float, str]]] = {peer: [] for peer in peers}
    cpu_ratios: dict[str, list[float]] = {peer: [] for peer in peers}
    proven = dict.fromkeys(libs, 0)
    rows, notes, same = [], [], 0
    leaves = {peer: [0, 0] for peer in peers}     # sets where ours has fewer leaves, sets with both counts
    dots: dict[str, list] = {peer: [] for peer in peers}
    for name in datasets:
        recs = [r for r in records if r.get("depth") == depth and r.get("dataset") == name]
        if not recs:
            continue
        summ = {lib: summarise([r for r in recs if r.get("lib") == lib]) for lib in libs}
        for lib, s in summ.items():
            proven[lib] += s["proven"]
            notes += side_notes(f"depth {depth}, {name}, {lib}", s)
        mark = agree_all(summ.values())
        same += mark == "✓"
        if mark == "✗ BUG":
            notes.append(f"depth {depth}, {name}: libraries that proved optimality disagree on the error")
        cells, cpu_cells = [], []
        for peer in peers:
            o, p = summ[OURS], summ[peer]
            mine, theirs = (_leaves(recs, lib) for lib in (OURS, peer))
            if mine is not None and theirs is not None:
                leaves[peer][0] += mine < theirs
                leaves[peer][1] += 1
            rt, crt = ratio(o, p), ratio(o, p, "median_cpu_s")
            dots[peer].append((name, o.get("median_s"), p.get("median_s")))
            if rt is not None and o["proven"] and p["proven"]:
                ratios[peer].append((rt, name))
                if crt is not None:
                    cpu_ratios[peer].append(crt)
            cells.append("–" if rt is None else fmt_ratio(rt) + ("†" if o["limited"] or p["limited"] else ""))
            cpu_cells.append("–" if crt is None else fmt_ratio(crt))
        size = [next((r[k] for r in recs if r.get(k) is not None), "–") for k in ("n", "p")]
        rows.append([name, *size] + [fmt_err(summ[lib]) for lib in libs] + [mark]
                    + [fmt_s(summ[lib]) for lib in libs] + [fmt_mb(summ[lib]["median_mb"]) for lib in libs] + cells
                    + cpu_cells)
    head = (["dataset", "n", "p"] + [f"{lib} error" for lib in libs] + ["agree"] + [f"{lib} s" for lib in libs]
            + [f"{lib} MB" for lib in libs] + [f"ours/{peer}" for peer in peers]
            + [f"CPU ours/{peer}" for peer in peers])
    summary = []
    for peer in peers:
        worst = max(ratios[peer], default=None)
        summary.append(f"depth {depth}: ours/{peer} geometric mean = {fmt_gm(geo_mean(r for r, _ in ratios[peer]))} "
                       f"over {len(ratios[peer])} sets proven by both; max = "
                       f"{'–' if worst is None else f'{fmt_ratio(worst[0])} ({worst[1]})'}")
        # CPU seconds: on a shared machine less noisy than wall time (one-thread fits)
        summary.append(f"depth {depth}: ours/{peer} geometric-mean CPU-time ratio = "
                       f"{fmt_gm(geo_mean(cpu_ratios[peer]))} over the same sets")
    summary.append(f"depth {depth}: proven optimal — " + ", ".join(f"{lib} {k}" for lib, k in proven.items())
                   + f"; errors agree (all proven, equal) on {same} of {len(rows)} sets")
    for peer, (fewer, both) in leaves.items():
        if both:
            summary.append(f"depth {depth}: ours has fewer leaves than {peer} on {fewer} of {both} sets")
    return markdown_table(head, rows), summary, notes, dots


def _leaves(recs: list[dict], lib: str) -> int | None:
    """The most leaves of ``lib``'s trees of one set and depth, where its records count them."""
    counts = [r["leaves"] for r in recs if r.get("lib") == lib and r.get("status") == "ok" and "leaves" in r]
    return max(counts) if counts else None


def report(records: list[dict], args, out_dir: Path) -> str:
    libs = _libs(args)
    body, summaries, notes = [], [], []
    for depth in args.depths:
        if not any(r.get("depth") == depth for r in records):
            continue
        table, summary, depth_notes, dots = _depth_section(depth, records, libs, args.datasets)
        body += [f"## Depth {depth} (time limit {args.time_limit:g} s)", "", table, ""]
        for peer, pts in dots.items():
            stem = Path(args.out or "binary.md").stem
            picture = time_scatter(out_dir / f"{stem}-d{depth}-{peer}.png", pts, ours=OURS, peer=peer,
                                   title=f"depth {depth}: fit seconds")
            if picture:
                body += [f"![depth {depth}, ours vs {peer}]({picture})", ""]
        body += [f"- {s}" for s in summary] + [""]
        summaries += summary
        notes += depth_notes
    others = ", ".join(lib for lib in libs if lib != OURS) or "no other library"
    lines = [f"# Exact search on binary data: optimaltrees vs {others}", ""]
    lines += progress_line(records, args)
    lines += [machine_block(args), "",
              libraries_note([lib for lib in _chosen(args) if lib != BASELINE], getattr(args, "skipped", [])), "",
              tie_note(getattr(args, "tie_break", "first_found")), ""]
    if getattr(args, "baseline", None):
        lines += [baseline_note(args.baseline), ""]
    lines += ["Timings are medians over repeats on a shared 2-core machine: each fit is a fresh process, run one "
              f"at a time, library order rotated per repeat ({args.repeats} repeats). s = wall time of `fit()`; "
              "MB = median peak RSS of the worker (interpreter + imports + data); CPU = the ratio of median CPU "
              "seconds of `fit()`. Ratios < 1 mean optimaltrees "
              "is faster; geometric means and max use only rows where both sides proved optimality.", "",
              "## Summary", ""]
    lines += [f"- {s}" for s in summaries] + [""] + body + [LEGEND, ""]
    if notes:
        lines += ["## Notes", ""] + [f"- {x}" for x in notes] + [""]
    return "\n".join(lines)
