"""DecisionDiagramClassifier against an independent brute force over diagrams,
against the ConTree engine in tree mode, and every constraint checked on the
returned model."""
from __future__ import annotations

import os
import signal
import threading
import time
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier
from optimaltrees.search.diagram.skeleton import make_skeleton

from helpers import check_diagram_consistent
from oracle import brute_force_diagram


def _fit(X, y, widths, alpha, **kw):
    return DecisionDiagramClassifier(widths, alpha=alpha, time_limit=None, heuristic_time=0.0,
                                     random_state=0, **kw).fit(X, y)


small_data = st.integers(3, 7).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(0, 3), min_size=2, max_size=2), min_size=n, max_size=n),
    st.lists(st.integers(0, 1), min_size=n, max_size=n)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_data, st.sampled_from([(1,), (1, 2), (1, 1, 1)]), st.sampled_from([0.0, 0.3]))
def test_univariate_optimum_equals_brute_force(data, widths, alpha):
    X = np.array(data[0], dtype=float)
    y = np.array(data[1])
    if len(np.unique(y)) < 2:
        y[0] = 1 - y[0]
    clf = _fit(X, y, widths, alpha)
    assert clf.is_optimal_
    assert clf.objective_ == pytest.approx(brute_force_diagram(X, y, widths, alpha), abs=1e-9)
    check_diagram_consistent(clf, X, y)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(4, 7).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(0, 2), min_size=2, max_size=2), min_size=n, max_size=n),
    st.lists(st.integers(0, 2), min_size=n, max_size=n))))
def test_three_classes_equal_brute_force(data):
    X = np.array(data[0], dtype=float)
    y = np.array(data[1])
    y[:2] = [0, 1]
    y = np.unique(y, return_inverse=True)[1]
    clf = _fit(X, y, (1, 1), 0.1)
    assert clf.is_optimal_
    assert clf.objective_ == pytest.approx(brute_force_diagram(X, y, (1, 1), 0.1), abs=1e-9)
    check_diagram_consistent(clf, X, y)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_data)
def test_tree_mode_equals_brute_force_over_trees(data):
    X = np.array(data[0], dtype=float)
    y = np.array(data[1])
    y[0], y[-1] = 0, 1
    clf = _fit(X, y, (1, 2), 0.0, tree=True)
    assert clf.diagram_.is_tree()
    assert clf.objective_ == pytest.approx(brute_force_diagram(X, y, (1, 2), 0.0, tree=True), abs=1e-9)


def test_tree_mode_matches_the_exact_tree_engine_and_diagrams_never_lose():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(16, 2)).astype(float)
    y = ((X[:, 0] + X[:, 1] > 3) ^ (X[:, 1] > 2)).astype(int)
    y[rng.choice(16, 3, replace=False)] ^= 1
    exact = OptimalTreeClassifier(max_depth=2).fit(X, y)
    tree = _fit(X, y, (1, 2), 0.0, tree=True)
    assert tree.is_optimal_ and tree.diagram_.is_tree()
    assert tree.train_error_ == exact.train_error_
    diagram = _fit(X, y, (1, 2), 0.0)
    assert diagram.is_optimal_ and diagram.train_error_ <= tree.train_error_
    check_diagram_consistent(diagram, X, y)


def test_merges_happen_when_they_pay():
    """XOR-like data that a (1, 2, 1) diagram fits only by merging into the last node."""
    X = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)] * 2, dtype=float)
    y = (X[:, 0].astype(int) ^ X[:, 1].astype(int)) | X[:, 2].astype(int)
    clf = _fit(X, y, (1, 2, 1), 0.0)
    assert clf.is_optimal_ and clf.train_error_ == 0
    check_diagram_consistent(clf, X, y)


def test_multivariate_never_worse_and_separates_a_diagonal():
    rng = np.random.default_rng(0)
    X = rng.random((30, 2))
    y = (X[:, 0] + X[:, 1] > 1.0).astype(int)
    uni = _fit(X, y, (1,), 0.0)
    multi = _fit(X, y, (1,), 0.0, splits="multivariate")
    assert multi.is_optimal_ and multi.train_error_ == 0 < uni.train_error_
    check_diagram_consistent(multi, X, y)
    assert "x[0]" in multi.export_text() and "x[1]" in multi.export_text()


def test_constraints_hold_on_the_returned_model():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(24, 3)).astype(float)
    y = ((X[:, 0] > 1) ^ (X[:, 1] > 0)).astype(int)
    group = (X[:, 2] > 1).astype(int)
    y[group == 1] = np.where(rng.random((group == 1).sum()) < 0.8, 0, y[group == 1])
    X = np.column_stack([X, group])
    free = _fit(X, y, (1, 2, 2), 0.0)
    few = _fit(X, y, (1, 2, 2), 0.0, max_nodes=2)
    assert few.n_nodes_ <= 2 and few.is_optimal_ and few.objective_ >= free.objective_ - 1e-12
    stable = _fit(X, y, (1, 2, 2), 0.0, min_flow=0.3)
    flows = stable.node_flows(X)
    assert np.all(flows[1:] >= 0.3 * len(y)) and stable.is_optimal_
    fair = _fit(X, y, (1, 2), 0.0, fairness_ratio=0.9, sensitive=3)
    free = _fit(X, y, (1, 2), 0.0)
    pred = fair.predict(X) == 1
    rates = [pred[group == k].mean() for k in (0, 1)]
    assert rates[0] >= 0.9 * rates[1] - 1e-9 and rates[1] >= 0.9 * rates[0] - 1e-9
    assert fair.fairness_rates_ == pytest.approx(tuple(rates))
    assert fair.objective_ >= free.objective_ - 1e-12
    # the same groups as an array passed to fit
    fair2 = DecisionDiagramClassifier((1, 2), alpha=0.0, fairness_ratio=0.9, time_limit=None,
                                      heuristic_time=0.0).fit(X, y, sensitive=group == 1)
    assert fair2.objective_ == pytest.approx(fair.objective_)


def test_timeout_without_incumbent_returns_the_flagged_heuristic():
    rng = np.random.default_rng(2)
    X = rng.random((400, 6))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.random(400) > 0.4).astype(int)
    with pytest.warns(UserWarning, match=r"time_limit=0.5 s reached: .*not proven optimal"):
        clf = DecisionDiagramClassifier((1, 2, 4, 4), time_limit=0.5, heuristic_time=0.0,
                                        random_state=0).fit(X, y)
    assert not clf.is_optimal_ and clf.gap_ > 0
    assert clf.from_heuristic_ == clf.status_.startswith("heuristic")
    assert clf.objective_ <= clf.heuristic_objective_ + 1e-12
    check_diagram_consistent(clf, X, y)


def test_trace_and_export():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [2, 2], [2, 0]], dtype=float)
    y = np.array(["no", "yes", "yes", "no", "yes", "no"])
    clf = _fit(X, y, (1, 2), 0.0)
    times = [t for t, _, _ in clf.trace_]
    objs = [o for _, o, _ in clf.trace_]
    assert times == sorted(times) and objs == sorted(objs, reverse=True)
    assert objs[-1] == pytest.approx(clf.objective_)
    text = clf.export_text(feature_names=["age", "income"])
    assert "class yes" in text and ("age" in text or "income" in text)
    dot = clf.export_dot()
    assert dot.startswith("digraph") and '"yes"' in dot and "->" in dot
    arcs = clf.diagram_.arcs()
    assert len(arcs) == 2 * clf.n_nodes_
    assert set(clf.predict(X)) <= {"no", "yes"}
    proba = clf.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1) and np.array_equal(clf.classes_[proba.argmax(1)], clf.predict(X))


def test_pandas_names_clone_and_pickle():
    import pandas as pd
    df = pd.DataFrame({"a": [0, 1, 2, 3, 4, 5, 6, 7], "group": [0, 1, 0, 1, 0, 1, 0, 1]})
    y = np.array([0, 0, 0, 1, 1, 1, 1, 0])
    clf = DecisionDiagramClassifier((1, 2), alpha=0.0, fairness_ratio=0.5, sensitive="group",
                                    time_limit=None, heuristic_time=0.0)
    clf.fit(df, y)
    assert "a" in clf.export_text() or "group" in clf.export_text()
    again = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(again.predict(df), clf.predict(df))
    assert clone(clf).get_params() == clf.get_params()
    with pytest.raises(ValueError, match="features"):
        clf.predict(df.to_numpy()[:, :1])


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(skeleton=(2, 2)), ValueError, "root layer"),
    (dict(skeleton=(1, 3)), ValueError, "width 3"),
    (dict(skeleton=()), ValueError, "at least one"),
    (dict(skeleton="124"), TypeError, "sequence"),
    (dict(skeleton=(1, 2.5)), TypeError, "skeleton"),
    (dict(splits="oblique"), ValueError, "splits"),
    (dict(alpha=-1), ValueError, "alpha"),
    (dict(time_limit=0), ValueError, "time_limit"),
    (dict(max_nodes=0), ValueError, "max_nodes"),
    (dict(min_flow=100), ValueError, "min_flow"),
    (dict(fairness_ratio=1.5, sensitive=0), ValueError, "fairness_ratio"),
    (dict(fairness_ratio=0.8), ValueError, "two groups"),
    (dict(sensitive=0), ValueError, "fairness_ratio"),
    (dict(fairness_ratio=0.8, sensitive=1), ValueError, "exactly two values"),
    (dict(fairness_ratio=0.8, sensitive=7), ValueError, "column"),
    (dict(fairness_ratio=0.8, sensitive=0, positive_class=5), ValueError, "positive_class"),
    (dict(solver="cplex"), ValueError, "solver"),
])
def test_bad_parameters_name_the_problem(kwargs, error, match):
    X = np.array([[0, 0], [1, 1], [0, 2], [1, 3]], dtype=float)
    y = np.array([0, 1, 0, 1])
    with pytest.raises(error, match=match):
        DecisionDiagramClassifier(**{"time_limit": 5, **kwargs}).fit(X, y)


def test_bad_data_names_the_problem():
    clf = DecisionDiagramClassifier((1,), time_limit=5)
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(np.array([[0.0], [np.nan]]), np.array([0, 1]))
    with pytest.raises(ValueError, match="one class only"):
        clf.fit(np.array([[0.0], [1.0]]), np.array([1, 1]))
    with pytest.raises(ValueError, match="0 sample"):
        clf.fit(np.zeros((0, 2)), np.zeros(0))
    with pytest.raises(ValueError, match="continuous"):
        clf.fit(np.array([[0.0], [1.0]]), np.array([0.5, 1.5]))
    clf.fit(np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([0, 1]))
    with pytest.raises(ValueError, match="features"):
        clf.predict(np.zeros((2, 3)))


def test_gurobi_missing_or_used():
    X = np.array([[0, 0], [1, 1], [0, 2], [1, 3], [2, 1]], dtype=float)
    y = np.array([0, 1, 0, 1, 1])
    try:
        import gurobipy  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="gurobipy"):
            DecisionDiagramClassifier((1, 2), solver="gurobi").fit(X, y)
        return
    g = _fit(X, y, (1, 2), 0.1, solver="gurobi")
    h = _fit(X, y, (1, 2), 0.1)
    assert g.objective_ == pytest.approx(h.objective_)


def test_skeleton_layout():
    sk = make_skeleton((1, 2, 3), 2)
    assert sk.n_internal == 6 and sk.depth == 3
    # root: 2 nodes + 2 terminals; layer 1: 2 x (3 + 2); layer 2: 3 x 2
    assert sk.n_arcs == 4 + 10 + 6
    assert set(sk.arc_head[sk.arcs_out(5)]) == {6, 7}


@pytest.mark.ctrl_c
@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT to this process")
@pytest.mark.parametrize("when, heuristic_time, tree_time", [(1.0, 5.0, None), (2.0, 0.2, None), (4.0, 0.2, 0.5)])
def test_ctrl_c_returns_the_best_diagram(when, heuristic_time, tree_time):
    """Ctrl-C in the heuristic's restarts, the exact tree searches or the
    solver: the best diagram so far, flagged."""
    from optimaltrees.data import load_bank

    X, y = load_bank()
    timer = threading.Timer(when, os.kill, (os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.warns(RuntimeWarning, match="interrupted"):
            # a limit far beyond the signal: a lost Ctrl-C fails the test instead of hanging the suite
            clf = DecisionDiagramClassifier((1, 2, 4, 4), time_limit=100, heuristic_time=heuristic_time,
                                            tree_time=tree_time, random_state=0).fit(X, y)
    finally:
        timer.cancel()
    assert time.perf_counter() - start < 30
    assert clf.interrupted_ and not clf.is_optimal_
    assert clf.train_error_ == int((clf.predict(X) != y).sum())
    assert clf.objective_ <= clf.heuristic_objective_ + 1e-12


@pytest.mark.ctrl_c
@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT to this process")
def test_ctrl_c_during_the_sat_node_bound_without_a_time_limit(monkeypatch):
    """Parity of four features: the folded depth-4 tree is the start (7 nodes,
    or 9 when the optimal tree tests two features in another order on either
    side), and proving that no 6-node diagram is perfect takes the SAT about 30 s.
    Without a time limit the solver still runs in slices: Ctrl-C one second
    into the SAT phase returns the start at once."""
    import optimaltrees.search.diagram.train as train

    real, timers, started = train.node_error_bounds, [], []

    def interrupted_soon(*args, **kwargs):
        timers.append(threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)))
        timers[-1].start()
        started.append(time.perf_counter())
        return real(*args, **kwargs)

    monkeypatch.setattr(train, "node_error_bounds", interrupted_soon)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.3) ^ (X[:, 2] < -0.2) ^ (X[:, 3] > 0.5)).astype(int)
    try:
        with pytest.warns(RuntimeWarning, match="interrupted"):
            clf = DecisionDiagramClassifier((1, 2, 4, 4), time_limit=None, random_state=0).fit(X, y)
    finally:
        for t in timers:
            t.cancel()
    assert len(timers) == 1 and time.perf_counter() - started[0] < 5     # the SAT alone takes ~30 s
    assert clf.interrupted_ and not clf.is_optimal_
    assert clf.train_error_ == 0 and clf.n_nodes_ <= 9 and clf.diagram_source_ in ("exact tree", "sat")
    assert clf.stats_["solver_status"] == "interrupted"


def test_ctrl_c_caught_by_the_heuristics_own_tree_search_is_not_lost(monkeypatch):
    """The heuristic's look-ahead runs the tree engine, which catches Ctrl-C
    and returns its result flagged: the fit must stop there, not go on to an
    unlimited MILP as if nothing had happened."""
    import dataclasses

    import optimaltrees.search.diagram.heuristic as heuristic

    real = heuristic.search_tree

    def interrupted_search(*args, **kwargs):
        return dataclasses.replace(real(*args, **kwargs), interrupted=True)

    monkeypatch.setattr(heuristic, "search_tree", interrupted_search)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    y[:5] = 1 - y[:5]
    with pytest.warns(RuntimeWarning, match="interrupted"):
        clf = DecisionDiagramClassifier((1, 2, 2), time_limit=None, random_state=0).fit(X, y)
    assert clf.interrupted_ and not clf.is_optimal_ and "variables" not in clf.stats_   # no MILP
    assert clf.train_error_ == int((clf.predict(X) != y).sum())
