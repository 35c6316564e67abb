"""The class floor: a tree of depth d has 2^d leaves, so with more classes
than leaves every row of the lightest K - 2^d classes is an error.  The
search cuts a subproblem whose floor (plus one node's cost) reaches its
bound, and D2Split stops scanning a child whose best split makes only the
errors outside its two largest classes.  Checked against the brute force
on many-class data with the histograms off (so every depth-two node is
searched and scanned), with costs, leaf sizes and weights."""
import numpy as np
import pytest
from hypothesis import given, note, settings, strategies as st

from helpers import depth_two_solver, n_examples
from instances import SETTINGS
from oracle import brute_force_objective, depth2_objective, recompute_objective

from optimaltrees import OptimalTreeClassifier

EPS = 1e-9


def searched():
    """Every depth-two node searched with D2Split, none solved by histograms."""
    return depth_two_solver(0.0, 1 << 30)


@st.composite
def many_classes(draw, max_n=14, max_features=3):
    """3-8 classes, drawn cell by cell (hypothesis varies and shrinks each
    one): uniform labels, or two labels that follow the first feature with
    others sprinkled in (every split then misses the sprinkled rows: the
    floor is tight, the case where a floor too high shows)."""
    n = draw(st.integers(2, max_n))
    p = draw(st.integers(1, max_features))
    k = draw(st.integers(3, 8))
    v = draw(st.integers(1, 6))
    X = np.array(draw(st.lists(st.lists(st.integers(0, v), min_size=p, max_size=p),
                               min_size=n, max_size=n)), dtype=np.float64)
    labels = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    if draw(st.booleans()):
        cut = draw(st.integers(0, v))
        extra = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        labels = [lab if e and lab >= 2 else int(X[i, 0] > cut)
                  for i, (lab, e) in enumerate(zip(labels, extra))]
    return X, np.array(labels)


@settings(max_examples=n_examples(200), **SETTINGS)
@given(many_classes(), st.integers(1, 3), st.sampled_from([0.0, 0.05, 0.3]),
       st.sampled_from([1, 2]))
def test_many_classes_match_the_brute_force(inst, depth, cost, min_leaf):
    X, y = inst
    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r})")
    per_node = cost * len(y)
    expected = brute_force_objective(X, y, depth, per_node, min_samples_leaf=min_leaf)
    with searched():
        clf = OptimalTreeClassifier(max_depth=depth, complexity_cost=cost,
                                    min_samples_leaf=min_leaf).fit(X, y)
    assert clf.is_optimal_ and abs(clf.objective_ - expected) < EPS
    assert abs(recompute_objective(clf.tree_, X, y, per_node) - expected) < EPS
    assert clf.lower_bound_ <= expected + EPS


@settings(max_examples=n_examples(120), **SETTINGS)
@given(many_classes(), st.integers(1, 3), st.data())
def test_weighted_many_classes_match_the_brute_force(inst, depth, data):
    X, y = inst
    w = np.asarray(data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]),
                                      min_size=len(y), max_size=len(y))))
    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r}); w = {w.tolist()!r}")
    expected = brute_force_objective(X, y, depth, sample_weight=w)
    with searched():
        clf = OptimalTreeClassifier(max_depth=depth).fit(X, y, sample_weight=w)
    assert clf.is_optimal_ and abs(clf.objective_ - expected) < EPS


def _skewed(seed: int, n: int, p: int, k: int):
    """Noisy rows whose labels follow two features, with k classes of
    falling shares (the light ones spread over every region)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, p)), 2)
    y = (X[:, 0] > 0).astype(int) + 2 * (X[:, 1 % p] > 0.3)
    light = rng.random(n) < 0.2
    y[light] = rng.choice(np.arange(k), size=int(light.sum()), p=np.arange(k, 0, -1) / (k * (k + 1) / 2))
    return X, y


def _banded(seed: int, n: int, p: int, k: int):
    """k ordered classes in bands along a direction, 10 % of labels random:
    each region holds a few classes, as in segment's and page's nodes."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, p)), 2)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1 % p], np.linspace(-1.5, 1.5, k - 1))
    flip = rng.random(n) < 0.1
    y[flip] = rng.integers(0, k, int(flip.sum()))
    return X, y


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [5, 7])
@pytest.mark.parametrize("make", [_skewed, _banded])
def test_depth_two_on_larger_data_is_the_exact_optimum(seed, k, make):
    X, y = make(seed, 220, 4, k)
    expected = depth2_objective(X, y)
    with searched():
        clf = OptimalTreeClassifier(max_depth=2).fit(X, y)
    assert clf.is_optimal_ and clf.train_error_ == expected


def test_the_floor_cuts_subproblems_at_depth_three():
    X, y = _banded(0, 400, 4, 7)
    with searched():
        clf = OptimalTreeClassifier(max_depth=3).fit(X, y)
    assert clf.is_optimal_
    assert clf.stats_["class_prunes"] > 0
    # two classes never have more classes than leaves
    two = OptimalTreeClassifier(max_depth=3).fit(X, y % 2)
    assert two.stats_["class_prunes"] == 0


@settings(max_examples=n_examples(60), **SETTINGS)
@given(many_classes(), st.sampled_from([0.0, 0.05]))
def test_two_threads_match_the_brute_force(inst, cost):
    """Depth three, two threads sharing the root's frontier: each thread's
    nodes below the root use their own floors."""
    X, y = inst
    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r})")
    expected = brute_force_objective(X, y, 3, cost * len(y))
    with searched():
        clf = OptimalTreeClassifier(max_depth=3, complexity_cost=cost, n_jobs=2).fit(X, y)
    assert clf.is_optimal_ and abs(clf.objective_ - expected) < EPS
    assert clf.lower_bound_ <= expected + EPS
