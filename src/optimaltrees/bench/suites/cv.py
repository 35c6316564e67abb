"""Suite ``cv``: a cross-validation sweep of one data file over a parameter grid.

``optimaltrees bench cv --data FILE --method tree --depths 2 3 4 --folds 5``

Every (setting, seed, fold) is one fit.  They run in ``--workers`` local
processes that live for the whole sweep, as scikit-learn's GridSearchCV
does: the file is read, encoded and split once, and a fit costs its search
only.  Each fit keeps its own time limit (``--time-limit``, the estimator's:
at the limit it answers with its best model so far); one without an answer
by the limit plus a minute is killed with its worker, which is replaced.
With ``--scheduler`` every fit is instead a job of its own on that Dask
cluster.  The report gives each setting's mean and spread of test accuracy,
train accuracy, proven share and time, and marks the best setting; a PNG
shows test accuracy against the setting.
"""
from __future__ import annotations

import argparse
import statistics
import time
from functools import lru_cache
from pathlib import Path

from optimaltrees._optional import require
from optimaltrees.bench.common import progress_line
from optimaltrees.bench.report import fmt, machine_block, markdown_table
from optimaltrees.bench.runner import Job, run_jobs_in_workers
from optimaltrees.search.strategies import STRATEGIES

NAME = "cv"
WORKERS = 2
METHODS = ("tree", "sat", "diagram", "cart")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--data", required=True, help="data file (CSV or whitespace table)")
    ap.add_argument("--label", help="label column (name or index); default as in 'optimaltrees fit'")
    ap.add_argument("--drop", nargs="+", default=[], metavar="COLUMN",
                    help="columns that are not features (an identifier, a name)")
    ap.add_argument("--method", choices=METHODS, default="tree")
    ap.add_argument("--depths", nargs="+", type=int, default=[2, 3, 4],
                    help="tree / cart: depths to compare; sat: depth caps")
    ap.add_argument("--strategy", default="exhaustive", choices=sorted(STRATEGIES), help="tree: search strategy")
    ap.add_argument("--skeletons", nargs="+", default=["1,2,2", "1,2,4,4"],
                    help="diagram: skeletons to compare, e.g. 1,2,4,4")
    ap.add_argument("--alpha", type=float, default=0.01, help="diagram: node price")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0], help="one shuffle of the folds per seed")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per fit (default %(default)s)")


def _skeleton(text: str) -> list[int]:
    """'1,2,4,4' as layer widths; anything else named as the flag's value."""
    try:
        widths = [int(w) for w in text.split(",")]
    except ValueError:
        raise ValueError(f"--skeletons: {text!r} is not layer widths such as 1,2,4,4") from None
    if not widths or min(widths) < 1:
        raise ValueError(f"--skeletons: {text!r} is not layer widths such as 1,2,4,4 (each at least 1)")
    return widths


def _settings(args) -> list[dict]:
    if args.method == "diagram":
        return [{"skeleton": _skeleton(s), "alpha": args.alpha} for s in args.skeletons]
    return [{"depth": d} for d in args.depths]


def _label(setting: dict) -> str:
    return ",".join(map(str, setting["skeleton"])) if "skeleton" in setting else f"depth {setting['depth']}"


def plan(args, out_dir: Path) -> list[Job]:
    if args.folds < 2:
        raise ValueError(f"--folds must be at least 2, got {args.folds}")
    if not Path(args.data).is_file():
        raise FileNotFoundError(f"no such data file: {args.data}")
    if args.time_limit is not None and not args.time_limit > 0:
        raise ValueError(f"--time-limit must be a number of seconds > 0, got {args.time_limit:g}")
    drop = list(getattr(args, "drop", None) or [])
    jobs = []
    for setting in _settings(args):
        for seed in args.seeds:
            for fold_index in range(args.folds):
                params = dict(data=str(args.data), label=args.label, method=args.method, setting=setting,
                              folds=args.folds, fold=fold_index, seed=seed, time_limit=args.time_limit,
                              strategy=args.strategy)
                if drop:
                    params["drop"] = drop
                key = dict(setting=_label(setting), seed=seed, fold=fold_index)
                jobs.append(Job("optimaltrees.bench.suites.cv:fold", params, key, time_limit=args.time_limit))
    args.planned = len(jobs)
    return jobs


def run_local(args, jobs: list[Job], on_record) -> list[dict]:
    """Run the sweep's fits in ``args.workers`` persistent local processes,
    with the data read, encoded and split here, once, before they start."""
    drop = tuple(getattr(args, "drop", None) or ())
    data = _data(str(args.data), args.label, args.method, drop)     # errors in the file: here, before any fit
    for seed in args.seeds:
        _splits(str(args.data), args.label, args.method, drop, args.folds, seed)
    if data[0].shape[1] == 0:
        raise ValueError("--drop leaves no feature column")
    make_model(args.method, _settings(args)[0], args.time_limit, args.strategy)   # imports: once, for all workers
    return run_jobs_in_workers(jobs, workers=args.workers, on_record=on_record)


def progress(rec: dict, done: int, total: int, args) -> str:
    """One line per finished fit: which one, and its test accuracy or why it has none."""
    where = f"[{done}/{total}] {rec.get('setting')}, fold {rec.get('fold', 0) + 1}/{args.folds}"
    if len(args.seeds) > 1:
        where += f", seed {rec.get('seed')}"
    if rec.get("status") != "ok":
        return f"{where}: {rec.get('status')} ({rec.get('message', '')})"
    state = ("proven optimal" if rec.get("optimal") else "time limit" if rec.get("timed_out") else "")
    return (f"{where}: test accuracy {rec['test_acc']:.3f}, train {rec['train_acc']:.3f}"
            f"{', ' + state if state and args.method != 'cart' else ''} ({rec['seconds']:.2f} s)")


@lru_cache(maxsize=4)
def _data(data: str, label, method: str, drop: tuple = ()):
    """(X, y) of a data file as the method takes them: raw columns for SAT, else numbers."""
    from optimaltrees.data.tables import read_table

    table = read_table(data, label=label)
    unknown = [c for c in drop if c not in table.X.columns]
    if unknown:
        raise ValueError(f"--drop: no feature column named {', '.join(map(repr, unknown))}; the feature "
                         f"columns are {', '.join(table.feature_names)}")
    table.X = table.X.drop(columns=list(drop))
    return (table.X if method == "sat" else table.numeric()), table.y


@lru_cache(maxsize=16)
def _splits(data: str, label, method: str, drop: tuple, folds: int, seed: int) -> list:
    """The (train, test) row indices of every fold: stratified when every class
    has ``folds`` rows, shuffled by ``seed`` (scikit-learn's splitters)."""
    import numpy as np
    from sklearn.model_selection import KFold, StratifiedKFold

    y = _data(data, label, method, drop)[1]
    _, counts = np.unique(y, return_counts=True)
    splitter = (StratifiedKFold if counts.min() >= folds else KFold)(folds, shuffle=True, random_state=seed)
    return list(splitter.split(np.zeros(len(y)), y))


def make_model(method: str, setting: dict, time_limit: float | None, strategy: str = "exhaustive",
               seed: int = 0):
    """The estimator of one setting (what every fold of it fits)."""
    from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier

    if method == "tree":
        return OptimalTreeClassifier(max_depth=setting["depth"], time_limit=time_limit, search=strategy)
    if method == "sat":
        return SATTreeClassifier("errors", max_depth=setting["depth"], time_limit=time_limit)
    if method == "diagram":
        return DecisionDiagramClassifier(tuple(setting["skeleton"]), alpha=setting["alpha"],
                                         time_limit=time_limit, random_state=seed)
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(max_depth=setting["depth"], random_state=seed)


def fold(*, data: str, label, method: str, setting: dict, folds: int, fold: int, seed: int,
         time_limit: float | None, strategy: str = "exhaustive", drop=()) -> dict:
    """Fit on all folds but ``fold`` and score on it (stratified, shuffled by ``seed``)."""
    import warnings

    import numpy as np

    drop = tuple(drop)
    X, y = _data(data, label, method, drop)
    train, test = _splits(data, label, method, drop, folds, seed)[fold]
    model = make_model(method, setting, time_limit, strategy, seed)
    Xtr, Xte = X.iloc[train], X.iloc[test]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # "time limit reached": the record says so (timed_out)
        t0 = time.perf_counter()
        model.fit(Xtr, y[train])
        seconds = time.perf_counter() - t0
    summary = getattr(model, "summary_", None)
    return dict(seconds=seconds, train_acc=float(np.mean(model.predict(Xtr) == y[train])),
                test_acc=float(np.mean(model.predict(Xte) == y[test])),
                optimal=bool(getattr(model, "is_optimal_", False)),
                timed_out=bool(getattr(summary, "timed_out", False)), n_train=len(train), n_test=len(test))


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
    complete = len(records) >= getattr(args, "planned", len(records))
    lines = [f"# Cross-validation: {args.method} on {Path(args.data).name}", "", machine_block(args), "",
             *progress_line(records, args),
             f"{args.folds}-fold cross-validation (stratified when every class has {args.folds} rows), "
             f"seeds {', '.join(map(str, args.seeds))}, {fmt(args.time_limit)} s per fit.", "",
             markdown_table(["setting", "fits", "test accuracy (mean ± sd)", "train accuracy", "proven",
                             "median s"], rows), ""]
    if means and complete:      # the picture once, at the end
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
