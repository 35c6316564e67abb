"""scikit-learn's tree API on every estimator: feature_importances_,
decision_path, n_classes_, get_depth, get_n_leaves."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.tree import DecisionTreeClassifier

from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier
from optimaltrees.io import model_to_dict
from optimaltrees.model.tree import Tree


def cart_optimal_data():
    """Data on which greedy CART at depth 2 finds the perfect (so optimal)
    tree, with the same splits: x0 > 4.5 first, then x1 on the left and x2
    on the right (no other depth-2 tree is perfect)."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 10, size=(300, 4)).astype(float)
    y = np.where(X[:, 0] <= 4.5, (X[:, 1] > 2.5).astype(int), 2 + (X[:, 2] > 6.5).astype(int))
    return X, y


def node_map(ours: Tree, theirs) -> dict[int, int]:
    """Our node -> scikit-learn's node of the same tree (same splits)."""
    out, stack = {}, [(0, 0)]
    while stack:
        a, b = stack.pop()
        out[a] = b
        if ours.feature[a] >= 0:
            assert ours.feature[a] == theirs.feature[b]
            assert ours.threshold[a] == theirs.threshold[b]
            stack += [(int(ours.children_left[a]), int(theirs.children_left[b])),
                      (int(ours.children_right[a]), int(theirs.children_right[b]))]
    return out


def test_importances_and_decision_path_agree_with_scikit_learn():
    X, y = cart_optimal_data()
    ours = OptimalTreeClassifier(max_depth=2).fit(X, y)
    cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    assert ours.train_error_ == 0 and cart.score(X, y) == 1.0
    mapping = node_map(ours.tree_, cart.tree_)
    np.testing.assert_allclose(ours.feature_importances_, cart.feature_importances_, rtol=1e-12)
    assert ours.feature_importances_.sum() == pytest.approx(1.0)
    path, theirs = ours.decision_path(X), cart.decision_path(X)
    assert sp.issparse(path) and path.format == "csr" and path.shape == (len(X), ours.tree_.node_count)
    order = [mapping[i] for i in range(ours.tree_.node_count)]
    assert np.array_equal(path.toarray(), theirs.toarray()[:, order])
    assert np.all(path.sum(axis=1) == ours.get_depth() + 1)         # a full tree: depth + 1 nodes per row
    leaves = ours.apply(X)
    assert np.all(path.toarray()[np.arange(len(X)), leaves] == 1)
    assert (ours.get_depth(), ours.get_n_leaves()) == (cart.get_depth(), cart.get_n_leaves()) == (2, 4)
    assert ours.n_classes_ == cart.n_classes_ == 4


def test_single_leaf_has_zero_importances():
    X = np.arange(12.0).reshape(6, 2)
    model = OptimalTreeClassifier(max_depth=0).fit(X, [0, 0, 1, 0, 0, 0])
    assert np.array_equal(model.feature_importances_, [0.0, 0.0])
    assert model.get_depth() == 0 and model.get_n_leaves() == 1
    assert np.array_equal(model.decision_path(X).toarray(), np.ones((6, 1)))


def test_unfitted_estimators_have_no_importances():
    for cls in (OptimalTreeClassifier, SATTreeClassifier, DecisionDiagramClassifier):
        assert not hasattr(cls(), "feature_importances_")
        assert not hasattr(cls(), "n_classes_")


def test_sat_importances_count_for_the_input_columns():
    import pandas as pd

    i = np.arange(24)           # every (colour, size) pair twice: both columns are needed
    X = pd.DataFrame({"color": np.array(["red", "blue", "green"])[i % 3],
                      "size": (i % 4 + 1).astype(float), "noise": np.zeros(24)})
    y = ((X["color"] == "red") | (X["size"] > 3.5)).astype(int)
    model = SATTreeClassifier().fit(X, y)
    imp = model.feature_importances_
    assert imp.shape == (3,) and imp.sum() == pytest.approx(1.0)
    assert imp[0] > 0 and imp[1] > 0 and imp[2] == 0
    # by hand, from the tree over Boolean tests
    tests = model.binarizer_.tests_
    by_test = model.tree_.feature_importances()
    expected = np.zeros(3)
    for j, v in enumerate(by_test):
        expected[tests[j].column] += v
    np.testing.assert_allclose(imp, expected)
    path = model.decision_path(X)
    assert path.shape == (len(X), model.tree_.node_count)
    assert np.array_equal(path.sum(axis=1).A1 - 1, _leaf_depths(model.tree_)[model.apply(X)])
    assert model.get_depth() == model.depth_ and model.get_n_leaves() == model.tree_.n_leaves
    assert model.n_classes_ == 2


def _leaf_depths(tree: Tree) -> np.ndarray:
    depth = np.zeros(tree.node_count, dtype=int)
    for node in range(tree.node_count):
        if tree.feature[node] >= 0:
            depth[tree.children_left[node]] = depth[tree.children_right[node]] = depth[node] + 1
    return depth


def diagram_model():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    y = np.where(X[:, 0] > 0.3, "a", np.where(X[:, 1] > 0, "b", "c"))
    return X, y, DecisionDiagramClassifier((1, 2, 2), time_limit=20, random_state=0).fit(X, y)


def test_diagram_tree_api():
    X, y, model = diagram_model()
    d = model.diagram_
    assert model.n_classes_ == 3
    path = model.decision_path(X)
    assert sp.isspmatrix_csr(path) and path.shape == (len(X), d.n_nodes + 3)
    dense = path.toarray()
    assert np.all(dense[:, 0] == 1)                                   # the root
    assert np.all(dense[:, d.n_nodes:].sum(axis=1) == 1)              # one terminal each
    assert np.array_equal(np.argmax(dense[:, d.n_nodes:], axis=1), np.searchsorted(model.classes_, model.predict(X)))
    assert np.array_equal(dense[:, :d.n_nodes].sum(axis=0), model.node_flows(X))
    assert np.array_equal(model.apply(X), np.argmax(dense[:, d.n_nodes:], axis=1) + d.n_nodes)
    assert 1 <= model.get_depth() <= d.depth
    assert dense[:, :d.n_nodes].sum(axis=1).max() <= model.get_depth()
    assert len(set(model.predict(X))) <= model.get_n_leaves() <= 3
    imp = model.feature_importances(X, y)
    assert imp.shape == (3,) and imp.sum() == pytest.approx(1.0) and imp[2] < imp[0]
    with pytest.raises(AttributeError, match=r"feature_importances\(X_train, y_train\)"):
        model.feature_importances_
    with pytest.raises(ValueError, match="not fitted on"):
        model.feature_importances(X, np.full(len(X), "zzz"))


def test_diagram_importances_by_hand():
    from optimaltrees.model.diagram import DecisionDiagram

    # root on x0 (class 0 below 0.5), then a node on x1 that both arcs of the root reach
    d = DecisionDiagram(coef=np.array([[1.0, 0.0], [0.0, 1.0]]), threshold=np.array([0.5, 0.5]),
                        negative=np.array([1, 2]), positive=np.array([1, 3]), layer=np.array([0, 1]),
                        n_classes=2, offset=np.zeros(2), scale=np.ones(2), epsilon=0.0)
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([0, 1, 0, 1])
    # the root splits nothing (x0 says nothing about y); the second node separates both classes
    np.testing.assert_allclose(d.feature_importances(X, y), [0.0, 1.0])
    assert d.longest_path() == 2
    assert d.reachable().tolist() == [True, True, True, True]


def test_saved_models_keep_the_api():
    X, y = cart_optimal_data()
    model = OptimalTreeClassifier(max_depth=2).fit(X, y)
    back = load_model_roundtrip(model)
    np.testing.assert_array_equal(back.feature_importances_, model.feature_importances_)
    assert (back.decision_path(X) != model.decision_path(X)).nnz == 0
    Xd, yd, diagram = diagram_model()
    back = load_model_roundtrip(diagram)
    assert back.n_classes_ == 3 and back.get_depth() == diagram.get_depth()
    diagram.n_classes_ = 3                   # an attribute set on it (as by a fit) is stored and read back
    assert load_model_roundtrip(diagram).n_classes_ == 3


def load_model_roundtrip(model):
    import json
    from optimaltrees.io import model_from_dict

    return model_from_dict(json.loads(json.dumps(model_to_dict(model))))
