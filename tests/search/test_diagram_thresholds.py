"""Where a univariate diagram's thresholds sit, and how an exact tree's
thresholds are unified so that its equal tests fold into one node.

* A returned diagram's split lies midway between the training values it
  separates at its node (as a tree's and CART's do), never at the edge of
  the gap, and the training rows take the paths the solver counted.
* Folding a tree into a diagram gives splits of one level that test the
  same feature above the same subtrees one threshold wherever one routes
  every training row of each as before: routes and errors stay, nodes can
  only fall."""
import numpy as np
from hypothesis import given, note, settings, strategies as st

from helpers import n_examples
from instances import SETTINGS

from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier
from optimaltrees.search.diagram.heuristic import Settings
from optimaltrees.search.diagram.skeleton import Placement, Skeleton
from optimaltrees.search.diagram.train import encode, split_map
from optimaltrees.search.diagram.trees import _from_tree, _key, _levels, _unify_thresholds, tree_placement


@st.composite
def tables(draw, max_n=40, max_features=3):
    n = draw(st.integers(2, max_n))
    p = draw(st.integers(1, max_features))
    values = st.sampled_from([0.0, 1.0, 2.5, 3.0, -4.0, 7.25, 1e-300, 1e6])
    X = np.array(draw(st.lists(st.lists(values, min_size=p, max_size=p), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    return X, np.unique(y, return_inverse=True)[1].reshape(-1)


def _random_placement(data, skeleton: Skeleton, ranks: np.ndarray) -> Placement:
    """A layered diagram: each used node tests a random column at a random rank
    and sends each side to a node of the next layer or a class."""
    plc = Placement.empty(skeleton, ranks.shape[1])
    plc.active[0] = True
    for layer in range(skeleton.depth):
        for u in skeleton.layer_nodes(layer):
            if not plc.active[u]:
                continue
            j = data.draw(st.integers(0, ranks.shape[1] - 1))
            plc.coef[u, j] = 1.0
            plc.threshold[u] = data.draw(st.integers(0, int(ranks[:, j].max()) + 1))
            nxt = list(skeleton.layer_nodes(layer + 1)) if layer + 1 < skeleton.depth else []
            heads = nxt + [skeleton.terminal(c) for c in range(skeleton.n_classes)]
            for side in (plc.negative, plc.positive):
                side[u] = data.draw(st.sampled_from(heads))
                if side[u] < skeleton.n_internal:
                    plc.active[side[u]] = True
    return plc


@settings(max_examples=n_examples(150), **SETTINGS)
@given(tables(), st.data())
def test_a_univariate_split_sits_midway_in_its_nodes_gap(table, data):
    X, y = table
    K = int(y.max()) + 1
    skeleton = Skeleton((1, 2, 2), max(K, 2))
    enc = encode(X, y, skeleton.n_classes, None, skeleton, Settings(), univariate=True)
    plc = _random_placement(data, skeleton, enc.points.X)
    note(f"X = {X.tolist()!r}; y = {y.tolist()!r}")
    model = enc.to_model(plc, skeleton)
    # the rows take the routes the placement (ranks) gives them
    cls, path, sides = plc.route(skeleton, enc.points.X)
    ranks = np.column_stack([np.searchsorted(v, X[:, j]) for j, v in enumerate(enc.values)]).astype(float)
    point_of = {tuple(r): i for i, r in enumerate(enc.points.X)}
    inverse = np.array([point_of[tuple(r)] for r in ranks])           # each row's point
    assert np.array_equal(model.predict(X), cls[inverse])
    for k, u in enumerate(np.flatnonzero(plc.active)):      # the model keeps the used nodes, in order
        j = int(np.argmax(plc.coef[u]))
        at = path[:, skeleton.layer_of(u)] == u
        left = X[np.isin(inverse, np.flatnonzero(at & ~sides[:, skeleton.layer_of(u)])), j]
        right = X[np.isin(inverse, np.flatnonzero(at & sides[:, skeleton.layer_of(u)])), j]
        t = model.threshold[k]
        if len(left) and len(right):
            lo, hi = left.max(), right.min()
            assert lo < t <= hi
            assert t == hi or t == lo / 2 + hi / 2          # midway, unless the midpoint rounds onto lo


def _leaf_of_each_row(node, Xs: np.ndarray) -> np.ndarray:
    out = np.empty(len(Xs), dtype=object)
    for i, row in enumerate(Xs):
        nd = node
        while nd.split is not None:
            j, thr = nd.split
            nd = nd.right if row[j] >= thr - 1e-7 else nd.left
        out[i] = id(nd)
    return out


@settings(max_examples=n_examples(80), **SETTINGS)
@given(tables(max_n=60), st.integers(2, 4))
def test_unified_thresholds_keep_every_route_and_fold_no_worse(table, depth):
    X, y = table
    K = int(y.max()) + 1
    skeleton = Skeleton((1, 2, 4, 4), max(K, 2))
    enc = encode(X, y, skeleton.n_classes, None, skeleton, Settings(), univariate=True)
    tree = OptimalTreeClassifier(max_depth=depth).fit(X, y).tree_
    note(f"X = {X.tolist()!r}; y = {y.tolist()!r}; depth = {depth}")
    root = _from_tree(tree, split_map(enc, 1e-4))
    before = _leaf_of_each_row(root, enc.points.X)
    widths = [len(level) for level in _levels(root, True)]
    _unify_thresholds(root, enc.points.X, 1.0)
    assert np.array_equal(before, _leaf_of_each_row(root, enc.points.X))
    after = [len(level) for level in _levels(root, True)]
    assert len(after) <= len(widths) and all(a <= b for a, b in zip(after, widths))
    assert _key(root) is not None


def test_a_parity_tree_folds_without_errors():
    """Parity of four features: the optimal depth-4 tree's tests of the last
    feature see different rows, so their thresholds differ; unified, the
    tree folds into the skeleton (1, 2, 4, 4) without a cut (it was cut to
    an 8-node diagram with 28 errors)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.3) ^ (X[:, 2] < -0.2) ^ (X[:, 3] > 0.5)).astype(int)
    tree = OptimalTreeClassifier(max_depth=4, complexity_cost=0.001).fit(X, y).tree_
    skeleton = Skeleton((1, 2, 4, 4), 2)
    enc = encode(X, y, 2, None, skeleton, Settings(), univariate=True)
    plc = tree_placement(tree, skeleton, X.shape[1], split_map(enc, 1e-4), points=enc.points)
    assert plc is not None
    cls, _, _ = plc.route(skeleton, enc.points.X)
    assert np.array_equal(enc.points.counts.argmax(axis=1), cls)       # every point right
    assert plc.active.sum() <= 9
    clf = DecisionDiagramClassifier((1, 2, 4, 4), time_limit=5, random_state=0).fit(X, y)
    assert clf.train_error_ == 0
