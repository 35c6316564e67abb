"""Suite ``cv``: a cross-validation sweep of one data file over a parameter grid.

Every (setting, seed, fold) is one fit in its own process, so a sweep spreads
over the cluster like any suite: ``optimaltrees bench cv --data FILE
--method tree --depths 2 3 4 --folds 5``.  The report gives each setting's
mean and spread of test accuracy, train accuracy, proven share and time, and
marks the best setting; a PNG shows test accuracy against the setting.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from optimaltrees._optional import require
from optimaltrees.bench.report import fmt, machine_block, markdown_table
from optimaltrees.bench.runner import Job

NAME = "cv"
WORKERS = 2
METHODS = ("tree", "sat", "diagram", "cart")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--data", required=True, help="data file (CSV or whitespace table)")
    ap.add_argument("--label", help="label column (name or index); default as in 'optimaltrees fit'")
    ap.add_argument("--method", choices=METHODS, default="tree")
    ap.add_argument("--depths", nargs="+", type=int, default=[2, 3, 4],
                    help="tree / cart: depths to compare; sat: depth caps")
    ap.add_argument("--strategy", default="exhaustive", help="tree: search strategy")
    ap.add_argument("--skeletons", nargs="+", default=["1,2,2", "1,2,4,4"],
                    help="diagram: skeletons to compare, e.g. 1,2,4,4")
    ap.add_argument("--alpha", type=float, default=0.01, help="diagram: node price")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0], help="one shuffle of the folds per seed")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per fit")


def _settings(args) -> list[dict]:
    if args.method == "diagram":
        return [{"skeleton": [int(w) for w in s.split(",")], "alpha": args.alpha} for s in args.skeletons]
    return [{"depth": d} for d in args.depths]


def _label(setting: dict) -> str:
    return ",".join(map(str, setting["skeleton"])) if "skeleton" in setting else f"depth {setting['depth']}"


def plan(args, out_dir: Path) -> list[Job]:
    if args.folds < 2:
        raise ValueError(f"--folds must be at least 2, got {args.folds}")
    if not Path(args.data).is_file():
        raise FileNotFoundError(f"no such data file: {args.data}")
    jobs = []
    for setting in _settings(args):
        for seed in args.seeds:
            for fold_index in range(args.folds):
                params = dict(data=str(args.data), label=args.label, method=args.method, setting=setting,
                              folds=args.folds, fold=fold_index, seed=seed, time_limit=args.time_limit,
                              strategy=args.strategy)
                key = dict(setting=_label(setting), seed=seed, fold=fold_index)
                jobs.append(Job("optimaltrees.bench.suites.cv:fold", params, key, time_limit=args.time_limit))
    return jobs


def fold(*, data: str, label, method: str, setting: dict, folds: int, fold: int, seed: int,
         time_limit: float | None, strategy: str = "exhaustive") -> dict:
    """Fit on all folds but ``fold`` and score on it (stratified, shuffled by ``seed``)."""
    from sklearn.model_selection import KFold, StratifiedKFold

    from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier
    from optimaltrees.data.tables import read_table

    table = read_table(data, label=label)
    y = table.y
    X = table.X if method == "sat" else table.numeric()
    _, counts = np.unique(y, return_counts=True)
    splitter = (StratifiedKFold if counts.min() >= folds else KFold)(folds, shuffle=True, random_state=seed)
    train, test = list(splitter.split(np.zeros(len(y)), y))[fold]
    if method == "tree":
        model = OptimalTreeClassifier(max_depth=setting["depth"], time_limit=time_limit, search=strategy)
    elif method == "sat":
        model = SATTreeClassifier("errors", max_depth=setting["depth"], time_limit=time_limit)
    elif method == "diagram":
        model = DecisionDiagramClassifier(tuple(setting["skeleton"]), alpha=setting["alpha"],
                                          time_limit=time_limit, random_state=seed)
    else:
        from sklearn.tree import DecisionTreeClassifier

        model = DecisionTreeClassifier(max_depth=setting["depth"], random_state=seed)
    Xtr, Xte = X.iloc[train], X.iloc[test]
    t0 = time.perf_counter()
    model.fit(Xtr, y[train])
    seconds = time.perf_counter() - t0
    return dict(seconds=seconds, train_acc=float(np.mean(model.predict(Xtr) == y[train])),
                test_acc=float(np.mean(model.predict(Xte) == y[test])),
                optimal=bool(getattr(model, "is_optimal_", False)), n_train=len(train), n_test=len(test))


def report(records: list[dict], args, out_dir: Path) -> str:
    ok = [r for r in records if r.get("status") == "ok"]
    order = [_label(s) for s in _settings(args)]
    rows, means = [], {}
    for name in order:
        rs = [r for r in ok if r["setting"] == name]
        if not rs:
            continue
        test = [r["test_acc"] for r in rs]
        means[name] = statistics.fmean(test)
        rows.append([name, len(rs), f"{means[name]:.4f} ± {statistics.pstdev(test):.4f}",
                     f"{statistics.fmean(r['train_acc'] for r in rs):.4f}",
                     f"{sum(r['optimal'] for r in rs)} / {len(rs)}" if args.method != "cart" else "-",
                     fmt(statistics.median(r["seconds"] for r in rs))])
    best = max(means, key=means.get) if means else None
    for row in rows:
        if row[0] == best:
            row[0] = f"**{row[0]}** (best)"
    lines = [f"# Cross-validation: {args.method} on {Path(args.data).name}", "", machine_block(args), "",
             f"{args.folds}-fold cross-validation (stratified when every class has {args.folds} rows), "
             f"seeds {', '.join(map(str, args.seeds))}, {fmt(args.time_limit)} s per fit.", "",
             markdown_table(["setting", "fits", "test accuracy (mean ± sd)", "train accuracy", "proven",
                             "median s"], rows), ""]
    if means:
        Figure = require("matplotlib.figure", "bench", "the benchmark pictures").Figure

        fig = Figure(figsize=(5, 3.2), layout="constrained")
        ax = fig.add_subplot()
        names = [n for n in order if n in means]
        ax.plot(range(len(names)), [means[n] for n in names], marker="o")
        ax.set_xticks(range(len(names)), names)
        ax.set_ylabel("mean test accuracy")
        ax.grid(alpha=0.3)
        picture = out_dir / f"cv-{Path(args.data).stem}-{args.method}.png"
        fig.savefig(picture, dpi=120)
        lines += [f"![test accuracy]({picture.name})", ""]
    failed = [r for r in records if r.get("status") != "ok"]
    if failed:
        lines += ["Fits without a result:", ""] + [f"- {r['setting']} seed {r['seed']} fold {r['fold']}: "
                                                    f"{r.get('status')} {r.get('message', '')}" for r in failed]
    return "\n".join(lines) + "\n"
