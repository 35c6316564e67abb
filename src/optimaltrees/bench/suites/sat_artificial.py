"""Suite ``sat-artificial``: Avellaneda's artificial data (Figure 2): recovering a random tree from examples.

Random depth-5 trees over 10 Boolean features and 2 classes are the
generators; each draws ``--examples`` random rows.  Every (generator,
examples, method) is one fit in its own process; the report gives, per
number of examples and method, the median fit time and the share of
inferred trees *equivalent* to their generator (the same class on all
1,024 inputs):

* ``sat-depth`` / ``sat-size``    the paper's method (incremental SAT);
* ``auto-depth`` / ``auto-size``  SATTreeClassifier's default route (the DP engine);
* ``greedy``                      an unpruned entropy tree (the paper's
  baseline, Weka's J48 without pruning; here scikit-learn's CART).

The paper used 1,000 generators; ``--generators`` sets how many here.
"""
from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from optimaltrees._optional import require
from optimaltrees.bench.common import progress_line
from optimaltrees.bench.report import machine_block, markdown_table
from optimaltrees.bench.runner import Job

NAME = "sat-artificial"
WORKERS = 1
METHODS = ("sat-depth", "sat-size", "auto-depth", "auto-size", "greedy")
EXAMPLES = (50, 100, 200, 400, 800, 1600, 3200)


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--generators", type=int, default=20, help="random generator trees (default 20)")
    ap.add_argument("--examples", nargs="+", type=int, default=list(EXAMPLES),
                    help=f"training examples per fit (default {' '.join(map(str, EXAMPLES))})")
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS),
                    help="methods (default: all; see above)")
    ap.add_argument("--limit", type=float, default=120.0, help="wall seconds per fit (default 120)")


def plan(args, out_dir: Path) -> list[Job]:
    jobs = []
    for examples in args.examples:
        for generator in range(args.generators):
            for method in args.methods:
                key = dict(examples=examples, generator=generator, method=method)
                jobs.append(Job("artificial", dict(generator=generator, examples=examples, method=method),
                                key, time_limit=args.limit, grace=0.0))
    args.planned = len(jobs)
    return jobs


def _cells(records: list[dict], examples: int, method: str):
    recs = [r for r in records if r.get("examples") == examples and r.get("method") == method]
    ok = [r for r in recs if r.get("status") == "ok"]
    return recs, ok


def report(records: list[dict], args, out_dir: Path) -> str:
    lines = ["# SAT inference: the paper's artificial data (Figure 2)", ""]
    lines += progress_line(records, args)
    lines += [machine_block(args), "",
              f"{args.generators} random depth-5 generator trees over 10 Boolean features, 2 classes; each fit "
              f"in its own process, wall limit {args.limit:g} s (a fit past it counts as not equivalent). "
              "seconds = median over the generators; equivalent = share of inferred trees that classify all "
              "1,024 inputs as their generator does.", ""]
    rows = []
    for examples in args.examples:
        for method in args.methods:
            recs, ok = _cells(records, examples, method)
            if not recs:
                continue
            eq = sum(bool(r.get("equivalent")) for r in ok)
            secs = statistics.median(r["seconds"] for r in ok) if ok else None
            rows.append([examples, method, "" if secs is None else f"{secs:.3f}",
                         f"{100 * eq / len(recs):.0f} % ({eq}/{len(recs)})",
                         f"{statistics.fmean(r['depth'] for r in ok):.1f}" if ok else "",
                         f"{statistics.fmean(r['nodes'] for r in ok):.1f}" if ok else ""])
    lines += [markdown_table(["examples", "method", "seconds (median)", "equivalent", "depth", "nodes"], rows), ""]
    picture = _plot(records, args, out_dir)
    if picture:
        lines += [f"![time and equivalence against examples]({picture})", ""]
    return "\n".join(lines)


def _plot(records: list[dict], args, out_dir: Path) -> str | None:
    """The paper's Figure 2: time (solid, left axis) and equivalence share
    (dotted, right axis) against the number of examples."""
    if not records:
        return None
    Figure = require("matplotlib.figure", "bench", "the benchmark pictures").Figure
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.add_subplot()
    share_ax = ax.twinx()
    for i, method in enumerate(args.methods):
        xs, times, shares = [], [], []
        for examples in args.examples:
            recs, ok = _cells(records, examples, method)
            if recs and ok:
                xs.append(examples)
                times.append(statistics.median(r["seconds"] for r in ok))
                shares.append(100 * sum(bool(r.get("equivalent")) for r in ok) / len(recs))
        if xs:
            color = f"C{i}"
            ax.plot(xs, times, color=color, marker="o", label=f"{method} time")
            share_ax.plot(xs, shares, color=color, linestyle=":", marker="x", label=f"{method} equivalent")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("training examples")
    ax.set_ylabel("seconds (median, solid)")
    share_ax.set_ylabel("equivalent to the generator, % (dotted)")
    share_ax.set_ylim(0, 105)
    handles = ax.get_legend_handles_labels()[0] + share_ax.get_legend_handles_labels()[0]
    ax.legend(handles=handles, fontsize=6, loc="center right")
    path = out_dir / f"{Path(args.out or 'sat-artificial.md').stem}.png"
    fig.savefig(path, dpi=120)
    return path.name
