"""Checks of a fitted OptimalTreeClassifier against its training data that
are computed independently of the package (tree arrays are walked by the
oracle module, never through the package's predict/apply)."""
import os
from contextlib import contextmanager

import numpy as np
import pytest

from oracle import route, tree_depth
from optimaltrees.data.encoding import threshold_between


def n_examples(k):
    """Hypothesis example budget ``k`` scaled by the environment variable
    ``OPTIMALTREES_TEST_SCALE`` (e.g. 20 for a long bug hunt)."""
    return max(1, int(k * float(os.environ.get("OPTIMALTREES_TEST_SCALE", "1"))))


def tree_max_depth_attr(tree):
    """The depth reported by the Tree object (``max_depth`` or ``depth``)."""
    for name in ("max_depth", "depth"):
        if hasattr(tree, name):
            value = getattr(tree, name)
            return value() if callable(value) else value
    raise AssertionError("Tree exposes neither max_depth nor depth")


def check_tree_invariants(clf, X, y, max_depth=None):
    """Structural consistency of ``clf.tree_`` with the training data."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    tree = clf.tree_
    feature = np.asarray(tree.feature)
    threshold = np.asarray(tree.threshold, dtype=np.float64)
    left = np.asarray(tree.children_left)
    right = np.asarray(tree.children_right)
    value = np.asarray(tree.value)
    n_node_samples = np.asarray(tree.n_node_samples)
    n_nodes = int(tree.node_count)
    classes = list(np.asarray(clf.classes_))

    assert len(feature) == len(threshold) == len(left) == len(right) == n_nodes
    assert len(n_node_samples) == n_nodes
    assert value.shape == (n_nodes, len(classes))
    is_leaf = feature < 0
    assert np.array_equal(is_leaf, left < 0)
    assert np.array_equal(is_leaf, right < 0)
    assert np.all(feature[~is_leaf] < X.shape[1])

    # every node reachable from the root exactly once
    seen = np.zeros(n_nodes, dtype=int)
    stack = [0]
    while stack:
        node = stack.pop()
        seen[node] += 1
        assert seen[node] == 1, "node reached twice: not a tree"
        if not is_leaf[node]:
            stack.extend([int(left[node]), int(right[node])])
    assert np.all(seen == 1), "orphan nodes in the tree arrays"

    depth = tree_depth(tree)
    assert tree_max_depth_attr(tree) == depth
    if max_depth is not None:
        assert depth <= max_depth

    # Per-node training rows, routed independently.
    rows_at = {0: np.arange(len(y))}
    order = [0]
    for node in order:
        rows = rows_at[node]
        assert n_node_samples[node] == len(rows), f"n_node_samples wrong at node {node}"
        counts = [int(np.sum(y[rows] == c)) for c in classes]
        assert value[node].tolist() == pytest.approx(counts), f"value wrong at node {node}"
        if is_leaf[node]:
            continue
        f, t = int(feature[node]), threshold[node]
        col = X[rows, f]
        go_left = col <= t
        assert go_left.any() and (~go_left).any(), f"empty child under node {node}"
        a, b = col[go_left].max(), col[~go_left].min()
        assert a <= t < b
        # the shortest decimal between the neighbours, nearest their midpoint
        assert t == threshold_between(float(a), float(b)), (
            f"threshold {t} at node {node} is not the one between {a} and {b}")
        rows_at[int(left[node])] = rows[go_left]
        rows_at[int(right[node])] = rows[~go_left]
        order.extend([int(left[node]), int(right[node])])

    leaves = route(tree, X)
    assert np.array_equal(np.asarray(clf.apply(X)), leaves)
    assert np.array_equal(np.asarray(tree.apply(X)), leaves)
    # predictions: a majority class of the leaf (any class in a tie)
    pred = np.asarray(clf.predict(X))
    for i, leaf in enumerate(leaves):
        k = classes.index(pred[i])
        assert value[leaf, k] == value[leaf].max()
    # Tree.predict works on raw X; it may return labels or class indices.
    tree_pred = np.asarray(tree.predict(X))
    if not np.array_equal(tree_pred, pred):
        assert np.issubdtype(tree_pred.dtype, np.integer)
        assert np.array_equal(np.asarray(clf.classes_)[tree_pred], pred)
    return leaves


def check_diagram_consistent(clf, X, y):
    """A fitted diagram's reported error and objective are what the returned
    diagram does on (X, y), and its bound does not exceed them."""
    errors = int((clf.predict(X) != y).sum())
    assert clf.train_error_ == errors
    m = int(np.sum(clf.skeleton))
    price = clf.alpha / (m - 1) if m > 1 else 0.0
    assert clf.objective_ == pytest.approx(errors / len(y) + price * (clf.n_nodes_ - 1), abs=1e-9)
    assert clf.lower_bound_ <= clf.objective_ + 1e-9


@contextmanager
def depth_two_solver(scans: float, min_rows: int = 0):
    """The depth-two solver choice (inf: histograms on every node, 0: ConTree's
    search, 100: the cost model's default on nodes of any size), restored after."""
    from optimaltrees.search.engine import engine_options

    with engine_options(histogram_scans=scans, histogram_min_rows=min_rows):
        yield


def random_rows(X: np.ndarray, n: int, seed: int, missing: float = 0.0) -> np.ndarray:
    """``n`` rows a little beyond each column's range of ``X``, a third of
    the cells copied from X (training values), a share ``missing`` NaN."""
    rng = np.random.default_rng(seed)
    lo, hi = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
    out = rng.uniform(lo - 0.1 * (hi - lo + 1), hi + 0.1 * (hi - lo + 1), size=(n, X.shape[1]))
    copy = rng.random(out.shape) < 1 / 3
    out[copy] = X[rng.integers(0, len(X), size=out.shape), np.arange(X.shape[1])][copy]
    out[rng.random(out.shape) < missing] = np.nan
    return out


def weights_from(draw, n: int) -> np.ndarray:
    """Row weights for a hypothesis test: halves, units and small integers."""
    from hypothesis import strategies as st

    return np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=n, max_size=n)))


def check_brute_force_classifier(X, y, w, depth: int, share: float, min_leaf: int, options: dict,
                                 tie_break: str = "first_found") -> None:
    """Fit with these engine ``options`` and check the proven objective is
    the brute force's (node cost ``share`` of the rows' weight)."""
    from hypothesis import note
    from oracle import brute_force_objective

    from optimaltrees import OptimalTreeClassifier
    from optimaltrees.search.engine import engine_options

    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r}); w = {None if w is None else w.tolist()!r}")
    total = float(len(y) if w is None else w.sum())
    expected = brute_force_objective(X, y, depth, share * total, min_leaf, w)
    with engine_options(**options):
        clf = OptimalTreeClassifier(max_depth=depth, complexity_cost=share, min_samples_leaf=min_leaf,
                                    tie_break=tie_break, time_limit=None).fit(X, y, sample_weight=w)
    assert clf.is_optimal_
    assert abs(clf.objective_ - expected) <= 1e-9 * max(1.0, total)
