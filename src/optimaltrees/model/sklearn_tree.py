"""Our trees as scikit-learn's: a fitted ``DecisionTreeClassifier`` or
``DecisionTreeRegressor`` whose ``tree_`` holds the tree, so that
scikit-learn's tools and the ones built on its layout (``plot_tree``,
``export_text``, ``export_graphviz``, SHAP's ``TreeExplainer``, skl2onnx)
read it; categorical tests go through an explicit encoding step.

Two rules of scikit-learn's trees shape the export:

- A row is routed on its values *converted to float32*: node ``i`` sends it
  left when ``float32(x) <= threshold[i]`` (``threshold`` a float64).  With
  ``T = float32(t)`` (to nearest), rounding, being monotone, sends every
  value ``x <= t`` left; a value ``x > t`` goes left only if it rounds to
  ``T`` too, that is, lies within half a float32 spacing above ``t``.
  :func:`float32_mismatches` finds the splits where some value of a column
  does, so they can be refused.
- A categorical test has no threshold form on the raw column: each test
  becomes its own column of codes (members of the tested set first, every
  other value after them, a missing value stays NaN), split at the
  members' end.
"""
from __future__ import annotations

import numpy as np

#: scikit-learn's marks for a leaf's children and for its feature and threshold
_TREE_LEAF = -1
_TREE_UNDEFINED = -2
_F32_MAX = float(np.finfo(np.float32).max)


def float32_thresholds(threshold: np.ndarray) -> np.ndarray:
    """Per node, the float32 nearest to ``threshold`` (as float64):
    scikit-learn's ``float32(x) <= T`` then holds for every ``x <= t``, and
    for an ``x > t`` only when it rounds to ``T`` as well."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(threshold, dtype=np.float64).astype(np.float32).astype(np.float64)


def float32_mismatches(feature: np.ndarray, threshold: np.ndarray, X: np.ndarray) -> list[int]:
    """The split nodes at which some present value of its column in ``X``
    routes differently under scikit-learn's float32 comparison (a value
    beyond float32's range always does: scikit-learn refuses it)."""
    T = float32_thresholds(threshold)
    bad = []
    for node in np.flatnonzero(np.asarray(feature) >= 0):
        x = X[:, feature[node]]
        x = x[~np.isnan(x)]
        with np.errstate(over="ignore", invalid="ignore"):
            theirs = x.astype(np.float32).astype(np.float64)
        if np.any((x <= threshold[node]) != (theirs <= T[node])) or np.any(np.abs(theirs) > _F32_MAX):
            bad.append(int(node))
    return bad


def _node_array(tree, impurity: np.ndarray, samples: np.ndarray, weights: np.ndarray,
                flip: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """scikit-learn's node records of ``tree``; ``flip`` marks the splits
    whose children swap (a categorical test's members go left in its codes)."""
    from sklearn.tree._tree import NODE_DTYPE

    n = tree.node_count
    split = tree.feature >= 0
    nodes = np.zeros(n, dtype=NODE_DTYPE)
    left = np.where(flip, tree.children_right, tree.children_left)
    right = np.where(flip, tree.children_left, tree.children_right)
    nodes["left_child"] = np.where(split, left, _TREE_LEAF)
    nodes["right_child"] = np.where(split, right, _TREE_LEAF)
    nodes["feature"] = np.where(split, tree.feature, _TREE_UNDEFINED)
    nodes["threshold"] = np.where(split, thresholds, _TREE_UNDEFINED)
    nodes["impurity"] = impurity
    nodes["n_node_samples"] = samples
    nodes["weighted_n_node_samples"] = weights
    nodes["missing_go_to_left"] = split & (tree.missing_left != flip)
    return nodes


def _fitted_shell(regression: bool, n_features: int, classes, feature_names, max_depth: int):
    """An estimator fitted on a few dummy rows, for every attribute
    scikit-learn sets in ``fit`` (classes, feature counts and names); its
    ``tree_`` is replaced by ours."""
    import pandas as pd
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    k = 1 if regression else len(classes)
    X = np.zeros((k, n_features))
    if feature_names is not None:
        X = pd.DataFrame(X, columns=[str(c) for c in feature_names])
    if regression:
        return DecisionTreeRegressor(max_depth=max(max_depth, 1)).fit(X, np.zeros(1))
    return DecisionTreeClassifier(max_depth=max(max_depth, 1)).fit(X, np.asarray(classes))


def sklearn_tree(tree, *, classes=None, feature_names=None, flip=None, thresholds=None):
    """A fitted ``DecisionTreeClassifier`` (``classes`` given: the labels of
    ``value``'s columns) or ``DecisionTreeRegressor`` (a ``RegressionTree``)
    predicting what ``tree`` predicts.

    ``thresholds`` replaces the float32 thresholds of the splits (the codes
    of categorical tests); ``flip`` marks splits whose children swap.
    """
    from sklearn.tree._tree import Tree as SkTree

    regression = classes is None
    n = tree.node_count
    flip = np.zeros(n, dtype=bool) if flip is None else np.asarray(flip, dtype=bool)
    T = float32_thresholds(tree.threshold)
    if thresholds is not None:
        T = np.where(np.isnan(thresholds), T, thresholds)
    if regression:
        weights = tree.node_weight
        samples = tree.node_samples
        with np.errstate(invalid="ignore", divide="ignore"):
            impurity = np.where(weights > 0, tree.node_sse / np.where(weights > 0, weights, 1.0), 0.0)
        values = tree.value.reshape(n, 1, 1)
    else:
        weights = tree.value.sum(axis=1)
        samples = tree.n_node_samples
        proba = tree.node_proba()
        impurity = 1.0 - (proba ** 2).sum(axis=1)
        values = proba.reshape(n, 1, tree.n_classes)        # scikit-learn >= 1.4 keeps fractions
    est = _fitted_shell(regression, tree.n_features, classes, feature_names, tree.max_depth)
    sk = SkTree(tree.n_features, np.array([values.shape[2]], dtype=np.intp), 1)
    sk.__setstate__({"max_depth": tree.max_depth, "node_count": n,
                     "nodes": _node_array(tree, impurity, samples, weights, flip, T),
                     "values": np.ascontiguousarray(values, dtype=np.float64)})
    est.tree_ = sk
    return est


def category_codes(tests, n_columns: int, frame_columns=None):
    """A fitted ``ColumnTransformer`` that writes the tree's columns from
    raw rows: a numeric column as it is, a categorical test as codes
    (``OrdinalEncoder``: the tested values 0, 1, ..., every other value
    after them, a missing value NaN); and per test its number of tested
    values (0 for a numeric column).  scikit-learn's encoder knows NaN and
    None as missing; ``pd.NA`` (pandas' nullable strings) it codes as an
    unseen value.

    ``tests``: the encoder's ``BooleanTest`` list; ``frame_columns``: the
    DataFrame columns the model was fitted on (None: an array)."""
    import pandas as pd
    from sklearn.compose import ColumnTransformer
    from sklearn.preprocessing import OrdinalEncoder

    parts, sizes = [], []
    for i, test in enumerate(tests):
        column = test.column if frame_columns is None else frame_columns[test.column]
        if test.kind == "value":
            parts.append((f"t{i}", "passthrough", [column]))
            sizes.append(0)
            continue
        if test.kind not in ("equals", "in"):
            raise ValueError(f"column {test.name!r}: a test of kind {test.kind!r} has no column of codes")
        members = list(test.value) if test.kind == "in" else [test.value]
        if any(m is None for m in members):
            raise ValueError(f"column {test.name!r}: its test separates missing values from its one value, "
                             "which scikit-learn's encoders cannot write as a column")
        try:
            members = sorted(members)          # numeric categories must be sorted for the encoder
        except TypeError:
            pass
        # NaN listed last is a known category, written as NaN (an unknown one would get a code)
        encoder = OrdinalEncoder(categories=[members + [np.nan]], handle_unknown="use_encoded_value",
                                 unknown_value=len(members), encoded_missing_value=np.nan, dtype=np.float64)
        parts.append((f"t{i}", encoder, [column]))
        sizes.append(len(members))
    transformer = ColumnTransformer(parts, remainder="drop", sparse_threshold=0.0)
    # fitted on one row of each test's first member: the encoders know their categories already
    row = [0.0] * n_columns
    for test in tests:
        if test.kind != "value":
            row[test.column] = next(iter(test.value)) if test.kind == "in" else test.value
    sample = (pd.DataFrame([row], columns=list(frame_columns)) if frame_columns is not None
              else np.array([row], dtype=object))
    transformer.fit(sample)
    return transformer, np.array(sizes, dtype=np.int64)


def code_thresholds(threshold: np.ndarray, members: np.ndarray) -> np.ndarray:
    """Thresholds on a categorical test's codes that send rows as our
    threshold ``t`` on its 0/1 column does, with the children swapped (the
    column is 1 for the ``members`` tested values, whose codes come first):
    ``t >= 1`` sends every present value our left, so none may go theirs;
    ``0 <= t < 1`` sends the members our right; ``t < 0`` every present value."""
    return np.where(threshold >= 1, -0.5, np.where(threshold >= 0, members - 0.5, members + 0.5))
