"""The depth-two solver of additive objectives from pairwise tables
(``_pair_table.pyx``), forced on every depth-two node, against the brute-force
oracles (squared error; a cost matrix) and against the depth-one scans of
ConTree's search: ties, duplicates, constant features, many ranks, weights,
leaf sizes, node costs, missing values and categories; the incremental
updates, the rebuilds that bound rounding drift, and the memory limit."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from instances import SETTINGS
from oracle import brute_force_sse
from oracle_cost import brute_force_cost

from optimaltrees import OptimalTreeClassifier, OptimalTreeRegressor
from optimaltrees.search.engine import AdditiveLayout, Engine
from optimaltrees.search.engine.options import engine_options

ALWAYS = float("inf")
VALUES = [[0.0, 1.0], [0.0, 1.0, 2.0], [-2.5, 0.0, 0.1, 0.2, 1.0, 3.75, 1e3]]


@st.composite
def tables(draw, max_n=10, max_features=3):
    n = draw(st.integers(2, max_n))
    p = draw(st.integers(1, max_features))
    pool = draw(st.sampled_from(VALUES))
    cols = []
    for _ in range(p):
        if draw(st.integers(0, 5)) == 0:
            cols.append([draw(st.sampled_from(pool))] * n)        # a constant feature
        else:
            cols.append(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)))
    X = np.array(cols, dtype=np.float64).T.reshape(n, p)
    if draw(st.booleans()):
        X[n // 2:] = X[: n - n // 2]                               # duplicate rows
    return X


def _weights(data, n):
    w = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n)))
    if not (w > 0).any():
        w[0] = 1.0
    return w


@settings(max_examples=150, **SETTINGS)
@given(tables(), st.integers(2, 3), st.sampled_from([0.0, 0.0, 0.05]), st.sampled_from([1, 1, 2]),
       st.booleans(), st.sampled_from([1.0, 1e-6, 1e6]), st.data())
def test_squared_error_matches_the_brute_force(X, depth, cost, min_leaf, weighted, scale, data):
    n = len(X)
    y = scale * np.array(data.draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=np.float64)
    w = _weights(data, n) if weighted else None
    if min_leaf > int(n if w is None else (w > 0).sum()):
        return
    sst = brute_force_sse(X, y, 0, 0.0, 1, w)
    want = brute_force_sse(X, y, depth, cost * sst, min_leaf, w)
    with engine_options(pair_tables=ALWAYS):
        reg = OptimalTreeRegressor(max_depth=depth, complexity_cost=cost, min_samples_leaf=min_leaf,
                                   time_limit=None).fit(X, y, sample_weight=w)
    assert reg.is_optimal_
    assert abs(reg.objective_ - want) <= 1e-9 * sst + 1e-300


@settings(max_examples=100, **SETTINGS)
@given(tables(), st.integers(2, 3), st.integers(2, 4), st.sampled_from([0.0, 0.3]), st.sampled_from([1, 2]),
       st.booleans(), st.data())
def test_a_cost_matrix_matches_the_brute_force(X, depth, k, cost_share, min_leaf, weighted, data):
    n = len(X)
    y = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    C = np.array(data.draw(st.lists(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 5.0]), min_size=k, max_size=k),
                                    min_size=k, max_size=k)))
    w = _weights(data, n) if weighted else None
    if min_leaf > int(n if w is None else (w > 0).sum()) or len(np.unique(y)) < 2:
        return
    classes = np.unique(y)
    C = C[np.ix_(classes, classes)]             # the classifier's classes are those present
    y = np.searchsorted(classes, y)
    total = float(n if w is None else w.sum())
    want = brute_force_cost(X, y, depth, C, cost_share * total, min_leaf, w)
    with engine_options(pair_tables=ALWAYS):
        clf = OptimalTreeClassifier(max_depth=depth, complexity_cost=cost_share, min_samples_leaf=min_leaf,
                                    cost_matrix=C, time_limit=None).fit(X, y, sample_weight=w)
    assert clf.is_optimal_
    assert abs(clf.objective_ - want) <= 1e-9 * max(1.0, total * float(C.max()))


@settings(max_examples=60, **SETTINGS)
@given(tables(max_n=8, max_features=2), st.data())
def test_missing_values_and_categories_match_the_brute_force(X, data):
    # missing rows go to one side of a split: two columns, missing below or
    # above every value; a category test is a 0/1 column per category
    n = len(X)
    y = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=np.float64)
    holes = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    colour = np.array(data.draw(st.lists(st.sampled_from(["red", "green", "blue"]), min_size=n, max_size=n)))
    x0 = np.where(holes, np.nan, X[:, 0])
    frame = pd.DataFrame({"x0": x0, "colour": pd.Categorical(colour)})
    indicators = np.stack([(colour == v).astype(float) for v in ("red", "green", "blue")], axis=1)
    expanded = np.column_stack([np.where(holes, -1e9, x0), np.where(holes, 1e9, x0), indicators])
    sst = brute_force_sse(expanded, y, 0)
    want = brute_force_sse(expanded, y, 2)
    with engine_options(pair_tables=ALWAYS):
        reg = OptimalTreeRegressor(max_depth=2, time_limit=None).fit(frame, y)
    assert reg.is_optimal_
    assert abs(reg.objective_ - want) <= 1e-9 * sst + 1e-300


def _engine(X, y, depth, pair_tables, weights=None, memory_limit_mb=float("inf"), min_leaf=1):
    order = np.argsort(X, axis=0, kind="stable").T.astype(np.int32).copy()
    rank = np.array([np.unique(X[:, f], return_inverse=True)[1] for f in range(X.shape[1])], dtype=np.int32)
    n = len(y)
    words = np.random.default_rng(0).integers(0, 2**63 - 1, size=(2, n + 64), dtype=np.int64)
    layout = AdditiveLayout(order, rank, depth, 0.0, min_leaf, words, weights, targets=y, pair_tables=pair_tables)
    engine = Engine(layout, 3, depth, 0.0, 0.0, min_leaf, memory_limit_mb,
                    np.ascontiguousarray(words[0, n:n + 64]), True)
    return engine, layout


def _data(n, p, levels, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, p)).astype(np.float64)
    y = X[:, 0] * 0.7 - np.cos(X[:, -1]) + rng.standard_t(2, size=n)      # heavy-tailed noise: outliers
    return X, (y - y.mean()) / y.std()


@pytest.mark.parametrize("n, p, levels, depth, min_leaf", [
    (300, 12, 2, 3, 1), (400, 6, 5, 3, 1), (250, 5, 9, 3, 3), (120, 4, 3, 4, 1)])
def test_the_tables_and_the_scans_find_the_same_optimum(n, p, levels, depth, min_leaf):
    X, y = _data(n, p, levels, seed=n + p)
    weights = np.random.default_rng(1).uniform(0.5, 2.0, size=n) if levels == 5 else None
    tables, layout = _engine(X, y, depth, ALWAYS, weights, min_leaf=min_leaf)
    scans, _ = _engine(X, y, depth, 0.0, weights, min_leaf=min_leaf)
    with_tables, without = tables.solve(), scans.solve()
    assert not with_tables.aborted and not without.aborted
    assert with_tables.lower_bound == pytest.approx(with_tables.objective, abs=1e-9)
    assert with_tables.objective == pytest.approx(without.objective, rel=1e-12, abs=1e-9)
    rebuilds, updates, complements = layout.pair_stats
    # the depth-two nodes went through the tables, rebuilt and updated
    assert updates > 0 and rebuilds > 0


def test_drift_rebuilds_keep_the_sums_exact_enough():
    # a table moves at most drift_moves rows between rebuilds: with a small
    # bound it is rebuilt over and over, and the optimum stays the same
    X, y = _data(60, 8, 3, seed=7)
    tables, layout = _engine(X, y, 4, ALWAYS)
    assert layout.pairs.drift_moves >= 2 * 60
    layout.pairs.drift_moves = 100
    scans, _ = _engine(X, y, 4, 0.0)
    assert tables.solve().objective == pytest.approx(scans.solve().objective, rel=1e-12, abs=1e-9)
    rebuilds, updates, complements = layout.pair_stats
    assert rebuilds > 2 and updates > rebuilds


def test_a_small_memory_limit_drops_the_tables_not_the_optimum():
    X, y = _data(300, 40, 8, seed=3)
    tables, layout = _engine(X, y, 3, ALWAYS, memory_limit_mb=2.0)
    scans, _ = _engine(X, y, 3, 0.0)
    out = tables.solve()
    assert layout.pair_stats == (0, 0, 0)
    assert out.objective == pytest.approx(scans.solve().objective, rel=1e-12, abs=1e-9)


def test_a_deadline_inside_the_tables_gives_a_true_tree_and_no_proof():
    X, y = _data(20000, 30, 4, seed=5)
    engine, _ = _engine(X, y, 3, ALWAYS)
    out = engine.solve(time_limit=0.05)
    assert out.aborted
    assert out.root >= 0 and out.lower_bound <= out.objective


def _binned(n=600, seed=11):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 14)).astype(np.float64)
    y = 2 * X[:, 0] - X[:, 1] * X[:, 2] + np.where(X[:, 3] > 0, rng.normal(size=n), 0.3 * rng.normal(size=n))
    return X, y


@pytest.mark.parametrize("options", [dict(search="blossom"), dict(search="top-k"), dict(n_jobs=2),
                                     dict(time_limit=60.0), dict(min_samples_leaf=5)])
def test_strategies_threads_and_leaf_sizes_reach_the_tables_optimum(options):
    # the anytime rules, the greedy start and threads search some nodes with
    # scans over rows the tables' children do not have: the optimum is the same
    X, y = _binned()
    leaf = options.get("min_samples_leaf", 1)
    with engine_options(pair_tables=0.0):
        scans = OptimalTreeRegressor(max_depth=3, time_limit=None, min_samples_leaf=leaf).fit(X, y)
    with engine_options(pair_tables=ALWAYS):
        tables = OptimalTreeRegressor(**{"max_depth": 3, "time_limit": None, **options}).fit(X, y)
    assert scans.is_optimal_ and tables.is_optimal_
    assert tables.objective_ == pytest.approx(scans.objective_, rel=1e-9)
