"""SATTreeClassifier under a time limit inside pools, joblib and threads:
daemonic processes may not start the worker process, so the
search runs in-process with its SAT calls cut into conflict-budgeted slices,
and the limit still holds."""
from __future__ import annotations

import multiprocessing
import threading
import time
import warnings

import numpy as np
import pytest

from optimaltrees import SATTreeClassifier
from optimaltrees.data import load_mouse
from optimaltrees.search.sat.worker import OutOfTime, run_limited, runs_here, solve_within

#: allowed overrun of time_limit in-process: one slice (~0.1 s), building the
#: tree, and slack for a loaded test machine
MARGIN = 2.0


def _mouse_fit(objective: str = "depth"):
    """Importable (spawn pickles it by name): the bundled mouse data's minimum
    depth (4, proven in ~0.3 s; "size": 15 nodes, ~3 s)."""
    X, y, _ = load_mouse()
    clf = SATTreeClassifier(objective, categorical="all", time_limit=20).fit(X, y)
    return (clf.depth_, clf.n_nodes_, bool(clf.is_optimal_), bool(clf.timed_out_),
            multiprocessing.current_process().daemon, runs_here())


def hard_data(n=400, p=8, seed=0):
    """Consistent but tangled numeric rows: DT-depth needs far more than a second."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.random((n, p)), 2)
    y = ((X[:, 0] > X[:, 1]) ^ (X[:, 2] + X[:, 3] > 1) ^ (X[:, 4] > 0.5)).astype(int)
    return X, y


def _hard_fit(limit: float, objective: str = "depth", **params):
    X, y = hard_data()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)            # the time-out's warning
        clf = SATTreeClassifier(objective, time_limit=limit, **params).fit(X, y)
    return (time.perf_counter() - start, bool(clf.timed_out_), clf.tree_source_, clf.train_error_,
            int((clf.predict(X) != y).sum()))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_fits_inside_a_multiprocessing_pool(method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    with multiprocessing.get_context(method).Pool(1) as pool:
        depth, nodes, proven, timed_out, daemon, here = pool.apply(_mouse_fit)
    assert daemon and here                 # a pool worker: the search ran in-process
    assert (depth, proven, timed_out) == (4, True, False)
    assert _mouse_fit()[:4] == (depth, nodes, proven, timed_out)       # as in a worker process


def test_time_limit_holds_inside_a_pool():
    with multiprocessing.get_context("fork").Pool(1) as pool:
        seconds, timed_out, source, errors, wrong = pool.apply(_hard_fit, (1.0,))
    assert timed_out and seconds < 1.0 + MARGIN
    assert source in ("greedy", "search", "leaf") and errors == wrong


@pytest.mark.parametrize("objective, params", [("depth", {}), ("size", {}),
                                               ("errors", {"max_depth": 4, "errors_search": "maxsat"}),
                                               ("depth", {"depth_search": "dp"})])
def test_time_limit_holds_in_process(objective, params, monkeypatch):
    import optimaltrees.search.sat.worker as worker
    monkeypatch.setattr(worker, "runs_here", lambda: True)
    seconds, timed_out, source, errors, wrong = _hard_fit(1.0, objective, **params)
    assert timed_out and seconds < 1.0 + MARGIN
    assert errors == wrong


def test_joblib_loky_and_threads():
    from joblib import Parallel, delayed

    for backend in ("loky", "threading"):
        depth, size = Parallel(n_jobs=2, backend=backend)(
            delayed(_mouse_fit)(o) for o in ("depth", "size"))
        assert depth[0] == 4 and depth[2] and not depth[3]
        assert size[:4] == (4, 15, True, False)
        if backend == "threading":
            assert depth[5] and size[5]            # not the main thread: in-process


def test_a_thread_keeps_the_limit():
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("out", _hard_fit(1.0)))
    thread.start()
    thread.join(30)
    seconds, timed_out, *_ = box["out"]
    assert timed_out and seconds < 1.0 + MARGIN


def _budgeted(report=None):
    from pysat.examples.genhard import PHP
    from pysat.solvers import Solver

    with Solver(name="cadical195", bootstrap_with=PHP(10).clauses) as solver:
        report("started")
        return solve_within(solver)


def test_solve_within_stops_cadical_at_the_deadline():
    start = time.perf_counter()
    value, timed_out, last = run_limited(_budgeted, {}, 0.5, in_process=True)
    assert (value, timed_out, last) == (None, True, "started")
    assert time.perf_counter() - start < 0.5 + MARGIN
    # the deadline belongs to the run: none is left behind
    from optimaltrees.search.sat.worker import seconds_left
    assert seconds_left() is None


def test_an_exhausted_deadline_raises_before_solving():
    from optimaltrees.search.sat.worker import _here

    _here.deadline = time.monotonic() - 1
    try:
        with pytest.raises(OutOfTime):
            _budgeted(report=lambda _: None)
    finally:
        _here.deadline = None


def test_dask_threads():
    dask = pytest.importorskip("dask")
    out = dask.compute(*[dask.delayed(_mouse_fit)("depth") for _ in range(2)], scheduler="threads")
    assert all(o[0] == 4 and o[2] and not o[3] and o[5] for o in out)


@pytest.mark.slow
def test_dask_distributed_worker_processes():
    # a LocalCluster's worker processes are daemonic (started by a nanny) and
    # run tasks in threads: the search runs in-process there
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        depth, nodes, proven, timed_out, daemon, here = client.submit(_mouse_fit).result(120)
        seconds, limit_hit, *_ = client.submit(_hard_fit, 1.0).result(120)
    assert (depth, proven, timed_out) == (4, True, False) and here
    assert limit_hit and seconds < 1.0 + MARGIN
