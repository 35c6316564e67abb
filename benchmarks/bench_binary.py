#!/usr/bin/env python3
"""Benchmark EXACT search of optimaltrees against pystreed (STreeD) and pydl8.5 on 0/1 data.

Why: on binary features the peers are the established MurTree-style (STreeD)
and DL8.5 solvers, so this is where an exact-search claim has to hold. Every
fit runs in its own process through ``fit_one.py`` (one at a time: the machine
is small and shared); the library order rotates between repeats so drift hits
all of them alike. Results: a markdown report (``--out``, rewritten after each
data set) and the raw JSON lines beside it (``.jsonl``).

    python3 benchmarks/bench_binary.py --python /tmp/benchvenv/bin/python --depths 3 4 --repeats 3

See benchmarks/README.md for the target and how to read the table.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from itertools import combinations

from bench_contree import (REPO, agree, fmt_err, fmt_mb, fmt_ratio, fmt_s, geomean, log,
                           machine_info, run_one, side_summary)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA_DIR = os.path.normpath(os.path.join(REPO, "..", "shared", "datasets", "binary"))
ALL_DATASETS = ["anneal", "audiology", "australian-credit", "breast-wisconsin", "diabetes",
                "german-credit", "heart-cleveland", "hepatitis", "lymph", "mushroom", "pendigits",
                "primary-tumor", "segment", "soybean", "splice-1", "tic-tac-toe", "vote", "zoo-1"]
OURS = "optimaltrees"
DIST_NAME = {"pydl85": "pydl8.5"}  # import name -> distribution name, for the version


def lib_versions(python: str, libs: list[str]) -> str:
    """'lib version, ...' as installed in ``python``."""
    code = ("import importlib.metadata as m, sys\n"
            "for d in sys.argv[1:]:\n"
            "    try: print(m.version(d))\n"
            "    except Exception: print('?')")
    dists = [DIST_NAME.get(lib, lib) for lib in libs]
    res = subprocess.run([python, "-c", code, *dists], capture_output=True, text=True, cwd="/")
    vers = res.stdout.split() if res.returncode == 0 else []
    vers += ["?"] * (len(libs) - len(vers))
    return ", ".join(f"{lib} {v}" for lib, v in zip(libs, vers))


def median_or_none(xs: list) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def depth_section(depth: int, records: list[dict], args: argparse.Namespace) -> tuple[list[str], list[str], list[str]]:
    """(table lines, summary lines, notes) for one depth."""
    peers = [lib for lib in args.libs if lib != OURS] if OURS in args.libs else []
    head = (["dataset", "n", "p"] + [f"{lib} error" for lib in args.libs] + ["agree"]
            + [f"{lib} s" for lib in args.libs] + [f"{lib} MB" for lib in args.libs]
            + [f"ours/{peer}" for peer in peers])
    lines = ["| " + " | ".join(head) + " |",
             "|---|---:|---:|" + "---:|" * len(args.libs) + ":---:|" + "---:|" * (2 * len(args.libs) + len(peers))]
    ratios: dict[str, list[tuple[float, str]]] = {peer: [] for peer in peers}
    proven = {lib: 0 for lib in args.libs}
    notes: list[str] = []
    for ds in args.datasets:
        recs = [r for r in records if r.get("depth") == depth and r.get("dataset") == ds]
        if not recs:
            continue
        summ = {lib: side_summary([r for r in recs if r.get("lib") == lib]) for lib in args.libs}
        for lib, s in summ.items():
            s["median_mb"] = median_or_none([r.get("peak_rss_mb") for r in recs
                                             if r.get("lib") == lib and r.get("status") == "ok"])
            proven[lib] += s["proven"]
            notes += [f"depth {depth}, {ds}, {lib}: {m}" for m in s["messages"]]
        verdicts = {agree(a, b) for a, b in combinations(summ.values(), 2)}
        mark = "✗ BUG" if "✗" in verdicts else ("✓" if verdicts == {"✓"} else "n/a")
        if mark == "✗ BUG":
            notes.append(f"depth {depth}, {ds}: libraries that proved optimality disagree on the error")
        cells = []
        for peer in peers:
            o, p = summ[OURS], summ[peer]
            r = o["median_s"] / p["median_s"] if o["median_s"] is not None and p["median_s"] else None
            if r is not None and o["proven"] and p["proven"]:
                ratios[peer].append((r, ds))
            cells.append("–" if r is None else fmt_ratio(r) + ("†" if o["limited"] or p["limited"] else ""))
        n, p_ = (next((r[key] for r in recs if r.get(key) is not None), "–") for key in ("n", "p"))
        row = ([ds, str(n), str(p_)] + [fmt_err(summ[lib]) for lib in args.libs] + [mark]
               + [fmt_s(summ[lib]["median_s"], summ[lib]) for lib in args.libs]
               + [fmt_mb(summ[lib]["median_mb"]) for lib in args.libs] + cells)
        lines.append("| " + " | ".join(row) + " |")
    summary = []
    for peer in peers:
        gm = geomean([r for r, _ in ratios[peer]])
        worst = max(ratios[peer], default=None)
        summary.append(f"depth {depth}: ours/{peer} geometric mean = {'–' if gm is None else f'{gm:.3f}'} "
                       f"over {len(ratios[peer])} sets proven by both; max = "
                       f"{'–' if worst is None else f'{fmt_ratio(worst[0])} ({worst[1]})'}")
    summary.append(f"depth {depth}: proven optimal — " + ", ".join(f"{lib} {k}" for lib, k in proven.items()))
    return lines, summary, notes


def write_report(path: str, records: list[dict], args: argparse.Namespace, info: dict,
                 cmdline: str, done: bool) -> None:
    body, summaries, notes = [], [], []
    for depth in args.depths:
        if not any(r.get("depth") == depth for r in records):
            continue
        table, summary, depth_notes = depth_section(depth, records, args)
        body += [f"## Depth {depth} (time limit {args.time_limit:g} s)", ""] + table + [""]
        body += [f"- {s}" for s in summary] + [""]
        summaries += summary
        notes += depth_notes
    lines = ["# Exact search on binary data: optimaltrees vs " + ", ".join(l for l in args.libs if l != OURS), ""]
    if not done:
        lines += ["**Partial report (run in progress or interrupted).**", ""]
    lines += [f"Command: `{cmdline}`", "", "| machine | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in info.items()]
    lines += ["", "Timings are medians over repeats on a shared 2-core machine: each fit is a fresh "
              f"process, run one at a time, library order rotated per repeat ({args.repeats} repeats). "
              "s = wall time of `fit()`; MB = median peak RSS of the worker (interpreter + imports + data). "
              "Ratios < 1 mean optimaltrees is faster; geometric means and max use only rows where both "
              "sides proved optimality.", "", "## Summary", ""]
    lines += [f"- {s}" for s in summaries] + [""] + body
    lines += ["Legend: † = not proven optimal / stopped at the time limit (error is an upper bound, time ≈ "
              "limit); a–b = repeats differed; agree: ✓ all proven and equal, ✗ BUG = proven optima differ "
              "or a proven optimum is beaten, n/a = some library did not prove; killed/failed = no result.", ""]
    if notes:
        lines += ["## Notes", ""] + [f"- {x}" for x in notes] + [""]
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines))
    os.replace(path + ".tmp", path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--depths", type=int, nargs="+", default=[3, 4, 5])
    ap.add_argument("--datasets", nargs="+", default=ALL_DATASETS)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds, every library, every depth")
    ap.add_argument("--libs", nargs="+", default=[OURS, "pystreed", "pydl85"])
    ap.add_argument("--python", default=sys.executable, help="interpreter with all the libraries")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "binary.md"))
    ap.add_argument("--data-dir", default=DEFAULT_DATA_DIR)
    args = ap.parse_args(argv)
    for ds in args.datasets:
        if not os.path.exists(os.path.join(args.data_dir, ds + ".txt")):
            ap.error(f"no data file {ds}.txt in {args.data_dir}")

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    out_jsonl = os.path.splitext(args.out)[0] + ".jsonl"
    cmdline = " ".join(shlex.quote(a) for a in ["python3"] + sys.argv)
    info = {k: v for k, v in machine_info(args.python, args.python, OURS, OURS).items() if k != "peer"}
    info["ours"] = lib_versions(args.python, args.libs) + f" ({args.python})"
    info = {("libraries" if k == "ours" else k): v for k, v in info.items()}  # keep the key's place
    log(f"{info['nproc']} cpus, load {info['loadavg_start']}; {info['libraries']}")

    records: list[dict] = []
    total, k, t0 = len(args.depths) * len(args.datasets) * args.repeats * len(args.libs), 0, time.time()
    with open(out_jsonl, "w") as jf:
        jf.write(json.dumps(dict(kind="meta", command=cmdline, **info)) + "\n")
        for depth in args.depths:
            for ds in args.datasets:
                data = os.path.join(args.data_dir, ds + ".txt")
                for rep in range(args.repeats):
                    shift = rep % len(args.libs)
                    for pos, lib in enumerate(args.libs[shift:] + args.libs[:shift]):
                        k += 1
                        rec = run_one(args.python, lib, data, depth, args.time_limit, args.time_limit + 60.0)
                        rec.update(kind="fit", lib=lib, dataset=ds, depth=depth, repeat=rep + 1, order=pos + 1)
                        records.append(rec)
                        jf.write(json.dumps(rec) + "\n")
                        jf.flush()
                        log(f"[{k}/{total}] d{depth} {ds:<17} rep {rep + 1} {lib:<12} "
                            + (f"error {rec.get('error')}, {rec['seconds']:.3f} s, optimal={rec.get('optimal')}"
                               if rec.get("status") == "ok" else f"{rec.get('status')}: {rec.get('message')}"))
                write_report(args.out, records, args, info, cmdline, done=False)
    info["loadavg_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    write_report(args.out, records, args, info, cmdline, done=True)
    log(f"done in {time.time() - t0:.0f} s; wrote {args.out} and {out_jsonl}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
