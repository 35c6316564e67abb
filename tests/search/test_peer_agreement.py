"""Agreement with the peer implementation pycontree on the benchmark data.

The peer's optimal training-error counts are precomputed in
``tests/fixtures/peer_optima.json`` (regenerate with
``tests/fixtures/make_peer_optima.py`` under an interpreter that has pycontree);
tests marked ``peer`` additionally run pycontree live.
"""
import json
import warnings

import numpy as np
import pytest

from conftest import FIXTURES, load_continuous
from helpers import check_tree_invariants
from oracle import depth1_objective, depth2_objective, leaf_sizes, recompute_error

from optimaltrees import OptimalTreeClassifier  # noqa: E402

PEER_FILE = FIXTURES / "peer_optima.json"
PEER = json.loads(PEER_FILE.read_text())["optima"]

DEPTH2 = ["bank", "bean", "bidding", "fault", "magic", "occupancy", "page",
          "raisin", "rice", "segment", "wilt"]
DEPTH3 = ["bank", "raisin", "wilt", "occupancy", "segment", "page", "bidding", "bean", "fault"]

_cache = {}


def load(name):
    if name not in _cache:
        _cache[name] = load_continuous(name)
    return _cache[name]


def test_peer_file_is_complete():
    for name in DEPTH2:
        assert isinstance(PEER[f"{name}:2"], int)
    for name in DEPTH3:
        assert isinstance(PEER[f"{name}:3"], int)
        # deeper trees cannot be worse
        assert PEER[f"{name}:3"] <= PEER[f"{name}:2"]


def _check_optimal_fit(clf, X, y, expected, depth):
    assert clf.train_error_ == expected
    assert clf.objective_ == expected
    assert bool(clf.is_optimal_) is True
    assert clf.lower_bound_ <= expected + 1e-9
    assert clf.lower_bound_ == pytest.approx(expected)
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    check_tree_invariants(clf, X, y, max_depth=depth)


@pytest.mark.parametrize("name", DEPTH2)
def test_depth2_matches_peer(name):
    X, y = load(name)
    clf = OptimalTreeClassifier(max_depth=2).fit(X, y)
    _check_optimal_fit(clf, X, y, PEER[f"{name}:2"], 2)


# Nine sets, about 12 s in all (bean and fault, seven classes each, 4 s each
# since the class floors): part of CI, not "slow".
@pytest.mark.parametrize("name", DEPTH3)
def test_depth3_matches_peer(name):
    X, y = load(name)
    clf = OptimalTreeClassifier(max_depth=3).fit(X, y)
    _check_optimal_fit(clf, X, y, PEER[f"{name}:3"], 3)


@pytest.mark.parametrize("name", ["bank", "raisin"])
@pytest.mark.parametrize("depth", [0, 1])
def test_shallow_depths_against_exhaustive(name, depth):
    X, y = load(name)
    clf = OptimalTreeClassifier(max_depth=depth).fit(X, y)
    _, counts = np.unique(y, return_counts=True)
    expected = len(y) - counts.max() if depth == 0 else depth1_objective(X, y)
    assert clf.train_error_ == expected
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)


@pytest.mark.slow
def test_bank_depth2_against_independent_exhaustive_search():
    """Checks both the engine and the stored peer value against a plain
    exhaustive depth-2 enumeration (no pycontree involved)."""
    X, y = load("bank")
    expected = depth2_objective(X, y)
    assert expected == PEER["bank:2"]
    clf = OptimalTreeClassifier(max_depth=2).fit(X, y)
    assert clf.train_error_ == expected


@pytest.mark.parametrize("name, msl", [("bank", 50), ("raisin", 30), ("wilt", 200)])
def test_min_samples_leaf_on_real_data(name, msl):
    X, y = load(name)
    clf = OptimalTreeClassifier(max_depth=2, min_samples_leaf=msl).fit(X, y)
    assert clf.objective_ >= PEER[f"{name}:2"]
    assert clf.is_optimal_
    sizes = leaf_sizes(clf.tree_, X)
    assert min(sizes.values()) >= msl
    n_node_samples = np.asarray(clf.tree_.n_node_samples)
    assert np.all(n_node_samples[np.asarray(clf.tree_.feature) < 0] >= msl)
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    # msl = 1 is the unconstrained problem
    free = OptimalTreeClassifier(max_depth=2, min_samples_leaf=1).fit(X, y)
    assert free.objective_ == PEER[f"{name}:2"]


@pytest.mark.parametrize("name", ["bank", "wilt", "raisin", "page", "segment"])
@pytest.mark.parametrize("msl", [2, 7, 40])
def test_min_samples_leaf_subsample_against_exhaustive(name, msl):
    """Exact depth-2 optimum with a leaf-size constraint on 160 real rows,
    against the independent exhaustive enumeration."""
    X, y = load(name)
    rows = np.random.default_rng(0).choice(len(y), size=160, replace=False)
    X, y = X[rows], y[rows]
    expected = depth2_objective(X, y, min_samples_leaf=msl)
    clf = OptimalTreeClassifier(max_depth=2, min_samples_leaf=msl).fit(X, y)
    assert clf.objective_ == expected
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    assert min(leaf_sizes(clf.tree_, X).values()) >= msl


@pytest.mark.parametrize("name, depth, gap", [
    ("bank", 2, 0.02), ("segment", 2, 0.05), ("page", 2, 0.01),
    pytest.param("segment", 3, 0.01, marks=pytest.mark.slow),
    pytest.param("page", 3, 0.005, marks=pytest.mark.slow),
    pytest.param("raisin", 3, 0.02, marks=pytest.mark.slow),
])
def test_max_gap_on_real_data(name, depth, gap):
    X, y = load(name)
    opt = PEER[f"{name}:{depth}"]
    clf = OptimalTreeClassifier(max_depth=depth, max_gap=gap).fit(X, y)
    assert opt <= clf.objective_ <= opt + gap * len(y) + 1e-9
    assert clf.lower_bound_ <= opt + 1e-9
    assert clf.objective_ - clf.lower_bound_ <= gap * len(y) + 1e-9
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["segment", "page"])
def test_max_gap_does_not_increase_search_work(name):
    """Allowing a gap can only add pruning; it should never make the search
    explore more subproblems than the exact search (deterministic count from
    stats_, not wall time)."""
    X, y = load(name)
    exact = OptimalTreeClassifier(max_depth=3).fit(X, y)
    gapped = OptimalTreeClassifier(max_depth=3, max_gap=0.05).fit(X, y)
    assert gapped.stats_["subproblems"] <= exact.stats_["subproblems"], (
        f"max_gap=0.05 explored {gapped.stats_['subproblems']} subproblems "
        f"({gapped.fit_time_:.2f}s), exact search {exact.stats_['subproblems']} "
        f"({exact.fit_time_:.2f}s)")


@pytest.mark.slow
@pytest.mark.parametrize("memory_limit", [1, 8])
def test_small_memory_limit_keeps_results_valid(memory_limit):
    """A tight memory limit may cost speed or optimality proofs, never
    correctness of the reported numbers."""
    X, y = load("raisin")
    opt = PEER["raisin:3"]
    clf = OptimalTreeClassifier(max_depth=3, memory_limit=memory_limit, time_limit=60).fit(X, y)
    assert clf.lower_bound_ <= opt + 1e-9
    assert clf.objective_ >= opt
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    if clf.is_optimal_:
        assert clf.objective_ == opt


@pytest.mark.parametrize("name, cost", [("bank", 0.01), ("segment", 0.005), ("wilt", 0.002)])
def test_complexity_cost_on_real_data(name, cost):
    """Objective with a complexity cost is bounded by trees we know: the
    unconstrained optimum plus the cost of its nodes, and the single leaf."""
    X, y = load(name)
    n = len(y)
    free = OptimalTreeClassifier(max_depth=2).fit(X, y)
    clf = OptimalTreeClassifier(max_depth=2, complexity_cost=cost).fit(X, y)
    n_branch = int(np.sum(np.asarray(clf.tree_.feature) >= 0))
    free_branch = int(np.sum(np.asarray(free.tree_.feature) >= 0))
    _, counts = np.unique(y, return_counts=True)
    assert clf.objective_ == pytest.approx(clf.train_error_ + cost * n * n_branch)
    assert clf.objective_ <= free.train_error_ + cost * n * free_branch + 1e-6
    assert clf.objective_ <= n - counts.max() + 1e-9
    assert clf.train_error_ >= PEER[f"{name}:2"]
    assert clf.lower_bound_ <= clf.objective_ + 1e-9
    assert clf.is_optimal_
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)


# ---------------------------------------------------------------------------
# time limit: hard depth-3 instances with a known optimum
# ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("name, limit", [("fault", 1.0), ("rice", 0.5), ("bean", 1.0)])
def test_time_limit_returns_valid_bounds(name, limit):
    key = f"{name}:3"
    assert key in PEER, f"no stored optimum for {key}"
    X, y = load(name)
    opt = PEER[key]
    clf = OptimalTreeClassifier(max_depth=3, time_limit=limit).fit(X, y)
    # generous slack for setup (encoding, thread start-up) on a loaded machine
    assert clf.fit_time_ <= limit + 5.0
    assert clf.lower_bound_ <= opt + 1e-9
    assert clf.objective_ >= opt
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    if clf.is_optimal_:
        assert clf.objective_ == opt
    else:
        assert clf.lower_bound_ <= clf.objective_
    check_tree_invariants(clf, X, y, max_depth=3)


def test_time_limit_not_binding_gives_optimal():
    X, y = load("bank")
    clf = OptimalTreeClassifier(max_depth=2, time_limit=600).fit(X, y)
    assert clf.is_optimal_
    assert clf.objective_ == PEER["bank:2"]


# ---------------------------------------------------------------------------
# live comparison with pycontree
# ---------------------------------------------------------------------------

@pytest.mark.peer
@pytest.mark.slow
@pytest.mark.parametrize("name", ["bank", "raisin"])
@pytest.mark.parametrize("depth", [2, 3])
def test_live_against_pycontree(name, depth):
    import pycontree  # a test dependency
    X, y = load(name)
    model = pycontree.ConTree(max_depth=depth, time_limit=600)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y.astype(np.intc))
    peer_error = int(np.sum(model.predict(X) != y))
    assert peer_error == PEER[f"{name}:{depth}"]
    clf = OptimalTreeClassifier(max_depth=depth).fit(X, y)
    assert clf.train_error_ == peer_error
