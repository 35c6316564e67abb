"""Suite ``exports``: every export of a fitted tree predicts as ``predict``.

``optimaltrees bench exports``

For each table (the numeric sets, the bundled ones, and tables with text
categories and missing values, read raw), one process fits
``OptimalTreeClassifier`` (``--depth``, ``--time-limit``) and runs each
export where it runs (:mod:`optimaltrees.bench.fits_exports`):
``to_sklearn()`` in scikit-learn, ``to_onnx()`` in onnxruntime, and
``export_code`` as Python (executed), SQL (evaluated in SQLite) and C
(compiled and called).  It counts the rows each predicts as ``predict`` on:
every training row; ``--random`` random rows (numbers across each column's
range and training values, text values and an unseen one, 10 % of the cells
missing), where the target is every row for every export; and as many rows
whose numbers also sit at the tree's thresholds or one float64 step beside
them, where scikit-learn's float32 reading sends values within half a
float32 spacing above a threshold the other way (as ``to_sklearn``'s
documentation says), and every other export must still agree.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from optimaltrees.bench.common import progress_line
from optimaltrees.bench.fits_exports import EXPORTS, MIXED_TABLE
from optimaltrees.bench.report import failures_section, machine_block, markdown_table
from optimaltrees.bench.runner import Job

NAME = "exports"
WORKERS = 2
#: the tables, under --data-dir, and the bundled ones (``bundled:NAME``)
DATASETS = tuple(f"continuous/train/{name}.txt" for name in (
    "bank", "bean", "bidding", "fault", "magic", "occupancy", "page", "raisin", "rice", "segment", "wilt")) + (
    "bundled:bank.txt", "bundled:mouse.csv", "categorical/car.csv", "diagrams/credit-approval.csv",
    "synthetic:5000")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--data-dir", default="../shared/datasets", help="the shared datasets folder")
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS),
                    help="tables under --data-dir, bundled:FILE for the library's own, or synthetic:ROWS for "
                         "a table of text categories, numbers and missing values made from --seed")
    ap.add_argument("--depth", type=int, default=3, help="tree depth (default 3)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per fit (default 60)")
    ap.add_argument("--random", type=int, default=10_000, help="random rows per table (default 10000)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random rows")


def _path(args, name: str) -> str:
    if name.startswith("synthetic:"):
        return name
    if name.startswith("bundled:"):
        from importlib import resources

        return str(resources.files("optimaltrees.data") / "files" / name.split(":", 1)[1])
    return str(Path(args.data_dir) / name)


def plan(args, out_dir: Path) -> list[Job]:
    jobs = []
    for name in args.datasets:
        params = dict(data=_path(args, name), depth=args.depth, time_limit=args.time_limit, seed=args.seed,
                      random=args.random)
        jobs.append(Job("optimaltrees.bench.fits_exports:exports_agreement", params, dict(dataset=name),
                        time_limit=args.time_limit + 600))
    args.planned = len(jobs)
    return jobs


def _cell(result: dict | None, rows: int, key: str) -> str:
    if not result:
        return ""
    if "error" in result:
        return "error"
    return "all" if result[key] == rows else f"{result[key]} of {rows}"


def report(records: list[dict], args, out_dir: Path) -> str:
    lines = ["# Exports: to_sklearn, to_onnx and the generated Python, SQL and C against predict", ""]
    lines += progress_line(records, args)
    lines += [machine_block(args), "",
              f"Depth {args.depth}, {args.time_limit:g} s per fit; each table in its own process. For each "
              f"export, the rows it predicts as `predict` on: the training rows; {args.random:,} random rows "
              f"(seed {args.seed}: numbers across each column's range and training values, text values and an "
              f"unseen one); {args.random:,} rows whose numbers also sit at the tree's thresholds or one float64 "
              f"step beside them (seed {args.seed + 1}); 10 % of the cells of both missing. \"all\" is every row.",
              "",
              f"synthetic:ROWS is a table made from the seed: {MIXED_TABLE}.", ""]
    ok = [r for r in records if r.get("status") == "ok"]
    rows, perfect, edges_all, checked = [], 0, 0, 0
    for rec in ok:
        row = [rec["dataset"], rec["n"], rec["p"], "yes" if rec["categorical"] else "", "yes" if rec["missing"] else "",
               rec["leaves"]]
        for export in EXPORTS:
            result = rec.get(export)
            row += [_cell(result, rec["n"], "train"), _cell(result, rec["random"], "random"),
                    _cell(result, rec["random"], "edges")]
            checked += 1
            perfect += bool(result and "error" not in result and result["train"] == rec["n"]
                            and result["random"] == rec["random"])
            edges_all += bool(result and "error" not in result and result["edges"] == rec["random"])
        rows.append(row)
    head = ["data", "rows", "columns", "categories", "missing", "leaves"]
    for export in EXPORTS:
        head += [f"{export} train", f"{export} random", f"{export} at thresholds"]
    lines += ["## Summary", "",
              f"- {perfect} of {checked} (table, export) pairs predict as `predict` on every training row and "
              "every random row (the target: all).",
              f"- {edges_all} of {checked} also on every row at the thresholds (`to_sklearn` reads values as "
              "float32 and is expected to differ there).",
              "", "## Per table", "", markdown_table(head, rows), ""]
    errors = [f"- {rec['dataset']} {export}: {rec[export]['error']}" for rec in ok for export in EXPORTS
              if isinstance(rec.get(export), dict) and "error" in rec[export]]
    if errors:
        lines += ["## Exports that failed", "", *errors, ""]
    lines += failures_section(records, lambda r: str(r.get("dataset")))
    return "\n".join(lines)
