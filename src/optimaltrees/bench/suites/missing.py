"""Suite ``missing``: real tables with missing values and categorical columns.

Each table is read raw (categorical columns as text; the one-hot groups of
the shared diagram files folded back into one column), ``--remove`` of each
feature column's values is removed at random, and three fits of the same
depth run on the same train/validation/test split (50/25/25, seeds
``--seeds``), each in its own process:

* ``optimal-raw``      OptimalTreeClassifier on the raw table: missing values
                       and ``x == v`` tests searched exactly;
* ``optimal-imputed``  the same after median / most-frequent imputation and
                       one-hot encoding (what users of the other optimal-tree
                       libraries must do first);
* ``cart-raw``         scikit-learn's CART (its own missing-value support;
                       one-hot categorical columns).

The report gives mean test accuracy, leaves and median seconds per table.
"""
from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from optimaltrees.bench.common import progress_line
from optimaltrees.bench.fits import MISSING_METHODS
from optimaltrees.bench.report import failures_section, machine_block, markdown_table
from optimaltrees.bench.runner import Job

NAME = "missing"
WORKERS = 1
DATASETS = ("categorical/car.csv", "categorical/monk1.csv", "diagrams/credit-approval.csv",
            "diagrams/hepatitis.csv", "diagrams/breast-cancer-wisconsin.csv", "diagrams/pima-indians-diabetes.csv",
            "diagrams/congressional-voting.csv", "diagrams/heart-disease-cleveland.csv")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--data-dir", default="../shared/datasets", help="the shared datasets folder")
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS), help="tables under --data-dir")
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4], help="splits (default 0-4)")
    ap.add_argument("--depth", type=int, default=3, help="tree depth (default 3)")
    ap.add_argument("--remove", type=float, default=0.1, help="share of values removed at random (default 0.1)")
    ap.add_argument("--methods", nargs="+", default=list(MISSING_METHODS), choices=list(MISSING_METHODS))
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per fit (default 120)")


def plan(args, out_dir: Path) -> list[Job]:
    jobs = []
    for name in args.datasets:
        for seed in args.seeds:
            for method in args.methods:
                key = dict(dataset=Path(name).stem, seed=seed, method=method)
                jobs.append(Job("missing_values", dict(data=str(Path(args.data_dir) / name), seed=seed,
                                                       method=method, depth=args.depth, remove=args.remove,
                                                       time_limit=args.limit), key, time_limit=args.limit))
    args.planned = len(jobs)
    return jobs


def report(records: list[dict], args, out_dir: Path) -> str:
    lines = ["# Missing values and categorical columns: the raw table, searched exactly", ""]
    lines += progress_line(records, args)
    lines += [machine_block(args), "",
              f"Depth {args.depth}; {100 * args.remove:g} % of each feature column's values removed at random "
              f"(MCAR) after reading; seeds {', '.join(map(str, args.seeds))} (50/25/25 stratified splits); "
              f"{args.limit:g} s per fit, each in its own process. test acc = mean over the seeds; "
              "leaves = mean; seconds = median; proven = exact fits proven optimal.", ""]
    rows, summary = [], {m: [] for m in args.methods}
    for name in args.datasets:
        stem = Path(name).stem
        recs = [r for r in records if r.get("dataset") == stem and r.get("status") == "ok"]
        if not recs:
            continue
        first = recs[0]
        row = [stem, first["n"], first["p"], first["categorical"], f"{100 * first['missing_share']:.0f} %"]
        for method in args.methods:
            got = [r for r in recs if r["method"] == method]
            if not got:
                row += ["", "", ""]
                continue
            acc = statistics.fmean(r["test_acc"] for r in got)
            summary[method].append(acc)
            proven = sum(bool(r.get("optimal")) for r in got)
            row += [f"{acc:.3f}", f"{statistics.fmean(r['leaves'] for r in got):.1f}",
                    f"{statistics.median(r['seconds'] for r in got):.3f}"
                    + (f" ({proven}/{len(got)} proven)" if method.startswith("optimal") else "")]
        rows.append(row)
    head = ["data", "rows", "columns", "categorical", "missing"]
    for method in args.methods:
        head += [f"{method} test acc", f"{method} leaves", f"{method} s"]
    lines += ["## Summary", ""]
    lines += [markdown_table(["method", "tables", "mean test accuracy"],
                             [[m, len(v), f"{statistics.fmean(v):.3f}" if v else ""] for m, v in summary.items()]),
              "", "## Per table", "", markdown_table(head, rows), ""]
    lines += failures_section(records, lambda r: f"{r.get('dataset')} seed {r.get('seed')} {r.get('method')}")
    return "\n".join(lines)
