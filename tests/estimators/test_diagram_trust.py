"""DecisionDiagramClassifier never claims a false optimum, keeps its limits,
and refuses impossible inputs.

Every check here uses the public API only: an optimum claim is compared with
an independent brute force over all univariate diagrams of the skeleton
(with min_flow and max_nodes), and every constraint is recomputed from the
returned model on the training data."""
from __future__ import annotations

import itertools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimaltrees import DecisionDiagramClassifier

from helpers import check_diagram_consistent
from oracle import brute_force_diagram, diagram_split_masks


def best_small_tree(X, y, widths, alpha) -> float:
    """Objective of the best tree of depth <= 2 (that fits the skeleton), by
    exhaustive search: an upper bound on the diagram optimum."""
    n, K = len(y), int(y.max()) + 1
    m = int(np.sum(widths))
    price = alpha / (m - 1) if m > 1 else 0.0
    masks = diagram_split_masks(X)

    def leaf(rows):
        return int(rows.sum() - np.bincount(y[rows], minlength=K).max()) if rows.any() else 0

    best = np.inf
    for mask in masks:
        sides = [~mask, mask]
        options = []
        for rows in sides:
            opts = [(leaf(rows), 0)]
            if len(widths) > 1:
                opts += [(leaf(rows & sub) + leaf(rows & ~sub), 1) for sub in masks]
            options.append(opts)
        for (e0, k0), (e1, k1) in itertools.product(*options):
            if k0 + k1 <= (widths[1] if len(widths) > 1 else 0):
                best = min(best, (e0 + e1) / n + price * (k0 + k1))
    return best


def _fit(X, y, widths, **kw):
    kw = {"alpha": 0.0, "time_limit": None, "heuristic_time": 0.0, "random_state": 0, **kw}
    return DecisionDiagramClassifier(widths, **kw).fit(np.asarray(X, dtype=float), np.asarray(y))


def _recheck(clf, X, y, *, min_flow=0.0, max_nodes=None):
    """The reported numbers are what the returned model does, and (unless the
    status says a constraint is broken) every constraint holds."""
    X = np.asarray(X, dtype=float)
    check_diagram_consistent(clf, X, y)
    if "constraint violated" in clf.status_:
        assert not clf.is_optimal_
        return
    flows = clf.node_flows(X)
    assert np.all(flows[1:] >= min_flow), (flows, clf.status_)
    assert max_nodes is None or clf.n_nodes_ <= max_nodes


# ---------------------------------------------------------------- the examples
def test_outlier_column_is_not_a_false_optimum():
    """1.8e19 squeezed 0 and 5 within 1e-7 of each other: 'optimal' with 1 error
    where a depth-1 tree has 0."""
    X, y = [[1.8e19], [0], [5]], np.array([0, 1, 0])
    clf = _fit(X, y, (1, 2))
    _recheck(clf, X, y)
    assert clf.train_error_ == 0 and clf.is_optimal_


def test_min_flow_holds_next_to_an_outlier():
    """1e9 squeezed 0..5 together: flows [7, 7, 0] under min_flow=2, 'optimal'."""
    X, y = [[0], [1], [2], [3], [4], [5], [1e9]], np.array([0, 0, 1, 1, 0, 0, 1])
    clf = _fit(X, y, (1, 2), min_flow=2)
    _recheck(clf, X, y, min_flow=2)
    assert np.all(clf.node_flows(np.asarray(X, float)) >= 2)
    if clf.is_optimal_:
        assert clf.objective_ == pytest.approx(brute_force_diagram(np.asarray(X, float), y, (1, 2), 0.0, min_flow=2))


@pytest.mark.parametrize("splits", ["univariate", "multivariate"])
def test_denormal_inputs_fit(splits):
    """(X - lo) * (1 / span) with a denormal span was inf * 0 = NaN: 'Input X contains NaN'."""
    X, y = [[0], [5e-324], [1e-323], [1.5e-323]], np.array([0, 1, 0, 1])
    clf = _fit(X, y, (1, 2), splits=splits)
    _recheck(clf, X, y)
    if splits == "univariate":        # exact on the original values: 3 thresholds, 0 errors
        assert clf.train_error_ == 0 and clf.is_optimal_
        assert np.array_equal(clf.predict(np.asarray(X, float)), y)


def test_predictions_are_exact_on_extreme_training_values():
    X = np.array([[-1.7e308, 0.0], [0.0, 1e-323], [5.0, 5e-324], [1.7e308, 0.0], [-0.0, 1e19]])
    y = np.array([0, 1, 0, 1, 1])
    clf = _fit(X, y, (1, 2))
    _recheck(clf, X, y)
    assert clf.is_optimal_ and clf.objective_ == pytest.approx(brute_force_diagram(X, y, (1, 2), 0.0))


# ---------------------------------------------------------------- fuzzing
EXTREMES = [0.0, -0.0, 5e-324, 1e-323, 1.5e-323, 1.0, 2.5, 5.0, 1e9, -1e9, 1e19, -1e19, 1.8e19, 1.7e308, -1.7e308]


@st.composite
def extreme_data(draw):
    n = draw(st.integers(3, 6))
    d = draw(st.integers(1, 2))
    values = st.sampled_from(EXTREMES) | st.floats(-10, 10, allow_nan=False, allow_subnormal=True)
    cols = []
    for _ in range(d):
        kind = draw(st.sampled_from(["free", "constant", "outlier"]))
        if kind == "constant":
            cols.append([draw(values)] * n)
        elif kind == "outlier":
            cols.append([float(draw(st.integers(0, 3))) for _ in range(n - 1)] + [draw(st.sampled_from(EXTREMES))])
        else:
            cols.append(draw(st.lists(values, min_size=n, max_size=n)))
    K = draw(st.sampled_from([2, 2, 3]))
    y = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
    y[:2] = [0, 1]
    y = np.unique(y, return_inverse=True)[1].reshape(-1)
    return np.array(cols, dtype=float).T, y


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(extreme_data(), st.sampled_from([(1, 2), (1, 1, 1), (1, 2, 2)]), st.sampled_from([0.0, 0.3]),
       st.sampled_from([None, 2]), st.sampled_from([None, 2]))
def test_fuzz_no_false_optimum_no_broken_constraint(data, widths, alpha, min_flow, max_nodes):
    X, y = data
    kw = {k: v for k, v in (("min_flow", min_flow), ("max_nodes", max_nodes)) if v is not None}
    clf = _fit(X, y, widths, alpha=alpha, **kw)
    _recheck(clf, X, y, min_flow=min_flow or 0.0, max_nodes=max_nodes)
    if not clf.is_optimal_:
        return
    if widths == (1, 2, 2):    # the brute force over this skeleton is too slow: no tree may beat it
        if not kw:
            assert clf.objective_ <= best_small_tree(X, y, widths, alpha) + 1e-9
    else:
        assert clf.objective_ == pytest.approx(
            brute_force_diagram(X, y, widths, alpha, min_flow=min_flow or 0.0, max_nodes=max_nodes), abs=1e-9)


# ---------------------------------------------------------------- refusals
@pytest.mark.skipif(os.name != "posix", reason="limits its memory with the resource module")
def test_a_million_classes_is_refused_before_any_work():
    """It tried to allocate 7 TiB (a subprocess: the old code did not end)."""
    code = textwrap.dedent("""
        import resource, time
        import numpy as np
        from optimaltrees import DecisionDiagramClassifier
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))     # 4 GiB is plenty for a refusal
        n = 1_000_000
        X, y = np.arange(n, dtype=float).reshape(-1, 1), np.arange(n)
        start = time.perf_counter()
        try:
            DecisionDiagramClassifier((1, 2, 4, 4), time_limit=5).fit(X, y)
        except ValueError as exc:
            print("REFUSED", time.perf_counter() - start, exc)
    """)
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("a fit with a million classes was neither refused nor ended within 60 s")
    assert "REFUSED" in out.stdout, out.stderr[-2000:]
    words = out.stdout.split("REFUSED")[1].split()
    assert float(words[0]) < 5 and "arcs" in out.stdout


def test_a_milp_too_large_is_refused_with_its_size():
    rng = np.random.default_rng(0)
    X = rng.random((3000, 1))
    y = np.arange(3000)      # 3000 classes, each row its own: ~36 million nonzeros
    with pytest.raises(ValueError, match="nonzeros"):
        DecisionDiagramClassifier((1,), time_limit=5).fit(X, y)


def test_multivariate_refuses_a_range_beyond_float64():
    X, y = np.array([[-1.7e308], [0.0], [1.7e308]]), np.array([0, 1, 0])
    with pytest.raises(ValueError, match="range"):
        _fit(X, y, (1, 2), splits="multivariate")


def test_a_quiet_fit_prints_nothing():
    """HiGHS printed its banner on stdout with verbose=False (once per process:
    a fresh one shows it)."""
    code = textwrap.dedent("""
        import numpy as np
        from optimaltrees import DecisionDiagramClassifier
        X = np.array([[0, 0], [1, 1], [0, 2], [1, 3], [2, 1]], dtype=float)
        y = np.array([0, 1, 0, 1, 1])
        DecisionDiagramClassifier((1, 2), time_limit=10, heuristic_time=0.0).fit(X, y)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == "" and out.stderr == ""


# ---------------------------------------------------------------- limits
LIMIT_MARGIN = 1.0   # seconds a fit may run past time_limit (measured: ~0.4)

_RUN = textwrap.dedent("""
    import os, signal, sys, threading, time, warnings, multiprocessing
    import numpy as np
    from optimaltrees import DecisionDiagramClassifier
    from optimaltrees.data import load_bank
    mode, limit = sys.argv[1], float(sys.argv[2])
    X, y = load_bank()
    if mode == "wide":
        rng = np.random.default_rng(0)
        X = rng.random((60, 4)); y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.8).astype(int)
        skeleton = (1, 2, 4, 8, 16, 32, 64, 128, 256)
    else:
        skeleton = (1, 2, 4, 4)
    clf = DecisionDiagramClassifier(skeleton, time_limit=None if mode == "sigint" else limit,
                                    heuristic_time=0.2, random_state=0)
    sent = []
    if mode == "sigint":
        def fire():
            sent.append(time.perf_counter())
            os.kill(os.getpid(), signal.SIGINT)
        threading.Timer(limit, fire).start()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    end = time.perf_counter()
    assert clf.train_error_ == int((clf.predict(X) != y).sum())
    assert not multiprocessing.active_children()
    print("ELAPSED", end - start, "AFTER_SIGNAL", end - sent[0] if sent else -1, clf.is_optimal_, flush=True)
""")


def _run(mode: str, limit: float, timeout: float) -> tuple[float, float, bool]:
    try:
        out = subprocess.run([sys.executable, "-c", _RUN, mode, str(limit)], capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the fit ({mode}, {limit}) did not end within {timeout} s")
    assert out.returncode == 0, out.stderr[-2000:]
    words = out.stdout.split("ELAPSED")[-1].split()
    return float(words[0]), float(words[2]), words[3] == "True"


def test_time_limit_covers_the_whole_fit():
    """bank (1,097 rows), (1, 2, 4, 4): HiGHS presolve runs ~4 s without polling
    its interrupt callbacks; a 5 s limit took 7-8 s."""
    elapsed, _, optimal = _run("limit", 2.0, timeout=60)
    assert elapsed < 2.0 + LIMIT_MARGIN and not optimal


def test_time_limit_holds_for_a_wide_skeleton():
    """(1, 2, ..., 256) on 60 rows: 20 s took 75 s (building, then presolve)."""
    elapsed, _, _ = _run("wide", 3.0, timeout=60)
    assert elapsed < 3.0 + LIMIT_MARGIN


@pytest.mark.ctrl_c
@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_ctrl_c_during_presolve_returns_at_once():
    """SIGINT while HiGHS presolves (no interrupt polls there) used to wait for presolve."""
    _, after, optimal = _run("sigint", 1.5, timeout=60)
    assert 0 <= after < 1.5 and not optimal


def _fit_in_pool_worker(seed):
    X, y = _pool_data(seed)
    clf = DecisionDiagramClassifier((1, 2), time_limit=10).fit(X, y)
    return clf.train_error_, bool(clf.is_optimal_)


def _pool_data(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 2))
    return X, (X[:, 0] > 0.2).astype(int)


def test_fits_inside_a_multiprocessing_pool():
    # pool workers are daemonic and may not start the solver's own process:
    # the solve runs in the worker itself
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(1) as pool:
        errors, proven = pool.apply_async(_fit_in_pool_worker, (0,)).get(timeout=60)
    X, y = _pool_data(0)
    here = DecisionDiagramClassifier((1, 2), time_limit=10).fit(X, y)
    assert (errors, proven) == (here.train_error_, bool(here.is_optimal_)) == (0, True)
