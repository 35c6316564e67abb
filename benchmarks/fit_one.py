#!/usr/bin/env python3
"""Fit ONE optimal tree with ONE library and print ONE JSON line.

This is the worker of ``bench_contree.py``: every fit runs in a fresh process
so that neither library's import, allocator state nor peak memory leaks into
the other's measurement, and a runaway fit can be killed from outside.

    python fit_one.py --lib {optimaltrees,pycontree,pystreed,pydl85,cart} --data PATH \
                      --depth D [--time-limit S] [--search S --schedule S]

Only the library named by ``--lib`` is imported (the peer ``pycontree`` lives in
its own venv, so the driver runs this file with that venv's interpreter).

Output (a single JSON object on stdout; everything the library itself prints is
sent to stderr so stdout stays parseable):

    lib, dataset, depth, n, p, n_classes, time_limit,
    error        training misclassifications of the fitted tree (int)
    seconds      wall time of the fit() call only (time.perf_counter)
    cpu_seconds  user+sys CPU time of the fit() call (getrusage delta); a value
                 well above ``seconds`` means the fit used several threads
    peak_rss_mb  peak resident set size of the whole worker process
                 (getrusage(RUSAGE_SELF).ru_maxrss, KiB on Linux -> MiB); this
                 includes the interpreter, numpy and the loaded data set
    rss_before_fit_mb  the same peak measured just before fit(), i.e. the
                 baseline; peak_rss_mb - rss_before_fit_mb ~ the fit's own memory
    optimal      True/False, or null when the library cannot tell
    timed_out    True when the library stopped at its time limit
    lower_bound  (optimaltrees only) lower_bound_, if present
    error_predict  misclassifications recomputed from predict(X) (a check of
                 ``error``; null if predict is unavailable)
    status       "ok" or "failed" (then ``message`` holds the exception)
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import resource
import sys
import time
import traceback
import warnings


def _rss_mb() -> float:
    # ru_maxrss is in KiB on Linux (bytes on macOS; we only benchmark on Linux).
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if sys.platform == "darwin":  # pragma: no cover
        kb /= 1024.0
    return round(kb / 1024.0, 1)


def _cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


@contextlib.contextmanager
def _stdout_to_stderr():
    """Redirect file descriptor 1 (also for C/C++ code) to stderr."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def load(path: str):
    import numpy as np

    d = np.loadtxt(path, ndmin=2)
    X = np.ascontiguousarray(d[:, 1:], dtype=np.float64)
    y_raw = d[:, 0]
    y = y_raw.astype(np.int64)
    if not np.array_equal(y, y_raw):
        raise ValueError(f"{path}: labels in the first column are not integers")
    # Both libraries want labels 0..K-1; the shared data already is, but be safe.
    classes, y = np.unique(y, return_inverse=True)
    return X, y.astype(np.int64), len(classes)


def fit_pycontree(X, y, depth, time_limit):
    from pycontree import ConTree

    # pycontree has no "no limit" setting (its default is 600 s); for an
    # unlimited run pass a limit that can never be reached.
    tl = float(time_limit) if time_limit is not None else 1e9
    m = ConTree(max_depth=depth, time_limit=tl)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c0, t0 = _cpu_s(), time.perf_counter()
        m.fit(X, y)
        seconds = time.perf_counter() - t0
        cpu = _cpu_s() - c0
    hit_limit = any("exceeds time limit" in str(w.message) for w in caught)
    cfg = getattr(m, "_config", None)
    if cfg is not None and hasattr(cfg, "is_within_time_limit"):
        hit_limit = hit_limit or not cfg.is_within_time_limit()
    pred = m.predict(X)
    error = int((pred != y).sum())
    # pycontree reports no bound or optimality flag. Its search is exact, so we
    # take: optimal  <=>  it finished before its time limit (no "Fitting exceeds
    # time limit" warning). When it hit the limit, the tree is only the best one
    # found so far and optimality is unknown -> False (not proven).
    return dict(
        error=error,
        error_predict=error,
        seconds=seconds,
        cpu_seconds=cpu,
        optimal=not hit_limit,
        timed_out=hit_limit,
        lower_bound=None,
    )


def fit_pystreed(X, y, depth, time_limit):
    from pystreed import STreeDClassifier

    tl = float(time_limit) if time_limit is not None else 1e9
    m = STreeDClassifier(max_depth=depth, time_limit=tl)
    Xi = X.astype(int)
    if not (Xi == X).all() or Xi.min() < 0 or Xi.max() > 1:
        raise ValueError("pystreed (classification) needs 0/1 features")
    c0, t0 = _cpu_s(), time.perf_counter()
    m.fit(Xi, y)
    seconds = time.perf_counter() - t0
    cpu = _cpu_s() - c0
    error = int((m.predict(Xi) != y).sum())
    # STreeD is exact: finishing before the limit means optimal (the same
    # convention as for pycontree); its solver exposes no bound.
    hit_limit = seconds >= tl * 0.99
    return dict(error=error, error_predict=error, seconds=seconds, cpu_seconds=cpu,
                optimal=not hit_limit, timed_out=hit_limit, lower_bound=None)


def fit_pydl85(X, y, depth, time_limit):
    from pydl85 import DL85Classifier

    Xi = X.astype(int)
    if not (Xi == X).all() or Xi.min() < 0 or Xi.max() > 1:
        raise ValueError("pydl8.5 needs 0/1 features")
    m = DL85Classifier(max_depth=depth, time_limit=0 if time_limit is None else float(time_limit))
    c0, t0 = _cpu_s(), time.perf_counter()
    m.fit(Xi, y)
    seconds = time.perf_counter() - t0
    cpu = _cpu_s() - c0
    error = int((m.predict(Xi) != y).sum())
    timed_out = bool(getattr(m, "timeout_", False))
    return dict(error=error, error_predict=error, seconds=seconds, cpu_seconds=cpu,
                optimal=not timed_out, timed_out=timed_out, lower_bound=None)


def fit_cart(X, y, depth, time_limit):
    from sklearn.tree import DecisionTreeClassifier

    m = DecisionTreeClassifier(max_depth=depth, random_state=0)
    c0, t0 = _cpu_s(), time.perf_counter()
    m.fit(X, y)
    seconds = time.perf_counter() - t0
    cpu = _cpu_s() - c0
    error = int((m.predict(X) != y).sum())
    return dict(error=error, error_predict=error, seconds=seconds, cpu_seconds=cpu,
                optimal=False, timed_out=False, lower_bound=None,
                trace=[[round(seconds, 6), error]])


def fit_optimaltrees(X, y, depth, time_limit, jobs=1, search="exhaustive", schedule="luby"):
    from optimaltrees import OptimalTreeClassifier

    m = OptimalTreeClassifier(max_depth=depth, time_limit=time_limit, n_jobs=jobs,
                              search=search, schedule=schedule)
    c0, t0 = _cpu_s(), time.perf_counter()
    m.fit(X, y)
    seconds = time.perf_counter() - t0
    cpu = _cpu_s() - c0
    error = getattr(m, "train_error_", None)
    error_pred = None
    try:
        error_pred = int((m.predict(X) != y).sum())
    except Exception:  # predict is a check only; never fail the run on it
        pass
    if error is None:
        error = error_pred
    optimal = getattr(m, "is_optimal_", None)
    optimal = None if optimal is None else bool(optimal)
    lb = getattr(m, "lower_bound_", None)
    if lb is not None:
        lb = float(lb)
        lb = int(lb) if lb.is_integer() else lb
    return dict(
        error=None if error is None else int(error),
        error_predict=error_pred,
        seconds=seconds,
        cpu_seconds=cpu,
        optimal=optimal,
        # Proven optimal => not stopped; otherwise it stopped early (time limit).
        timed_out=(optimal is False and time_limit is not None),
        lower_bound=lb,
        fit_time_attr=getattr(m, "fit_time_", None),
        search=search,
        schedule=schedule,
        # the anytime record: (seconds since fit started, errors, lower bound)
        trace=[[round(p.time, 6), int(p.error), float(p.lower_bound)] for p in getattr(m, "trace_", [])],
    )


FITTERS = {"pycontree": fit_pycontree, "optimaltrees": fit_optimaltrees,
           "pystreed": fit_pystreed, "pydl85": fit_pydl85, "cart": fit_cart}
IMPORT_NAME = {"cart": "sklearn"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True, choices=sorted(FITTERS))
    ap.add_argument("--data", required=True, help="path to a space-separated data file")
    ap.add_argument("--depth", required=True, type=int)
    ap.add_argument("--time-limit", type=float, default=None,
                    help="seconds; omit for no limit")
    ap.add_argument("--jobs", type=int, default=1,
                    help="threads for optimaltrees (n_jobs); the peer is single-threaded")
    ap.add_argument("--search", default="exhaustive", help="optimaltrees search strategy")
    ap.add_argument("--schedule", default="luby", help="optimaltrees relaxation schedule")
    args = ap.parse_args(argv)

    dataset = os.path.splitext(os.path.basename(args.data))[0]
    rec = dict(lib=args.lib, dataset=dataset, depth=args.depth,
               time_limit=args.time_limit, status="ok")
    out = os.fdopen(os.dup(1), "w")
    try:
        with _stdout_to_stderr():
            X, y, k = load(args.data)
            rec.update(n=int(X.shape[0]), p=int(X.shape[1]), n_classes=int(k))
            # Import the library before measuring the baseline RSS.
            __import__(IMPORT_NAME.get(args.lib, args.lib))
            rec["rss_before_fit_mb"] = _rss_mb()
            extra = ({"jobs": args.jobs, "search": args.search, "schedule": args.schedule}
                     if args.lib == "optimaltrees" else {})
            rec.update(FITTERS[args.lib](X, y, args.depth, args.time_limit, **extra))
            rec["jobs"] = args.jobs if args.lib == "optimaltrees" else 1
    except Exception as exc:
        traceback.print_exc(file=sys.stderr)
        rec.update(status="failed", message=f"{type(exc).__name__}: {exc}")
    rec["peak_rss_mb"] = _rss_mb()
    for key in ("seconds", "cpu_seconds"):
        if isinstance(rec.get(key), float) and math.isfinite(rec[key]):
            rec[key] = round(rec[key], 6)
    out.write(json.dumps(rec) + "\n")
    out.flush()
    return 0 if rec["status"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
