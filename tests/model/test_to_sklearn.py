"""``to_sklearn()``: scikit-learn's own tree predicts what ours predicts on
every training row and on random rows (missing values, categories, unseen
values, weights), scikit-learn's tools read it, and what float32 cannot
reproduce is refused."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import Pipeline
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor, export_graphviz, export_text, plot_tree

from helpers import random_rows
from instances import SETTINGS, instances

from optimaltrees import OptimalTreeClassifier, OptimalTreeRegressor
from optimaltrees.data import load_bank


def _same_leaves(a: np.ndarray, b: np.ndarray) -> bool:
    """Two leaf numberings that put the rows in the same groups."""
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def _agree(model, sk, X) -> None:
    np.testing.assert_array_equal(sk.predict(X), model.predict(X))
    if hasattr(model, "predict_proba"):
        np.testing.assert_allclose(sk.predict_proba(X), model.predict_proba(X), rtol=1e-12, atol=1e-15)
    if not isinstance(sk, Pipeline):
        assert _same_leaves(sk.apply(X), model.apply(X))
        assert sk.decision_path(X).sum() == model.decision_path(X).sum()


@pytest.mark.parametrize("depth", [1, 3])
def test_numeric_classifier_agrees_on_training_andrandom_rows(depth):
    X, y = load_breast_cancer(return_X_y=True)
    model = OptimalTreeClassifier(max_depth=depth).fit(X, y)
    sk = model.to_sklearn()
    assert isinstance(sk, DecisionTreeClassifier)
    assert sk.tree_.node_count == model.tree_.node_count and sk.get_depth() == model.tree_.max_depth
    np.testing.assert_array_equal(sk.classes_, model.classes_)
    _agree(model, sk, X)
    _agree(model, sk, random_rows(X, 10_000, seed=depth))


def test_missing_values_route_as_ours():
    X, y = load_bank()
    X = X.copy()
    rng = np.random.default_rng(0)
    X[rng.random(X.shape) < 0.1] = np.nan
    model = OptimalTreeClassifier(max_depth=3).fit(X, y)
    assert model.tree_.missing_in_training
    sk = model.to_sklearn()
    _agree(model, sk, X)
    _agree(model, sk, random_rows(X, 10_000, seed=1, missing=0.2))


def test_categories_and_missing_values_through_the_pipeline():
    rng = np.random.default_rng(3)
    n = 400
    colour = rng.choice(["red", "green", "blue", "grey"], n).astype(object)
    size = rng.normal(size=n)
    shape = pd.Categorical(rng.choice(["round", "flat"], n))
    y = np.where((colour == "red") | (size > 1.0), "yes", np.where(shape == "flat", "maybe", "no"))
    size[rng.choice(n, 40, replace=False)] = np.nan
    colour[rng.choice(n, 30, replace=False)] = np.nan
    X = pd.DataFrame({"colour": colour, "size": size, "shape": shape})
    for splits in ("one-vs-rest", "subsets"):
        model = OptimalTreeClassifier(max_depth=3, categorical_splits=splits).fit(X, y)
        sk = model.to_sklearn()
        assert isinstance(sk, Pipeline) and isinstance(sk[-1], DecisionTreeClassifier)
        _agree(model, sk, X)
        m = 10_000
        new = pd.DataFrame({"colour": rng.choice(["red", "green", "blue", "grey", "purple", np.nan], m),
                            "size": random_rows(size.reshape(-1, 1), m, seed=2, missing=0.1)[:, 0],
                            "shape": pd.Categorical(rng.choice(["round", "flat", None], m))})
        _agree(model, sk, new)


def test_regressor_and_its_missing_values():
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :6].copy()
    X[np.random.default_rng(1).random(X.shape) < 0.05] = np.nan
    target = X[:, 0] * 3 + y
    target = np.nan_to_num(target, nan=1.0)
    model = OptimalTreeRegressor(max_depth=2).fit(X, target)
    sk = model.to_sklearn()
    assert isinstance(sk, DecisionTreeRegressor)
    _agree(model, sk, X)
    _agree(model, sk, random_rows(X, 10_000, seed=3, missing=0.1))
    np.testing.assert_allclose(sk.tree_.weighted_n_node_samples, model.tree_.node_weight)


def test_weights_keep_the_probabilities():
    X, y = load_bank()
    w = np.random.default_rng(2).choice([0.5, 1.0, 4.0], size=len(y))
    model = OptimalTreeClassifier(max_depth=2, class_weight="balanced").fit(X, y, sample_weight=w)
    _agree(model, model.to_sklearn(), X)


@settings(max_examples=60, **SETTINGS)
@given(instances(max_n=12, max_features=3, max_classes=4), st.integers(1, 3), st.integers(0, 99))
def test_random_instances_agree(inst, depth, seed):
    X, y = inst
    model = OptimalTreeClassifier(max_depth=depth, time_limit=None).fit(X, y)
    sk = model.to_sklearn()
    _agree(model, sk, X)
    _agree(model, sk, random_rows(X, 200, seed=seed, missing=0.1))


def test_values_float32_cannot_separate_are_refused():
    X = np.array([[1.0], [1.0 + 1e-12], [5.0], [6.0]] * 3)
    y = np.array([0, 1, 1, 1] * 3)
    model = OptimalTreeClassifier(max_depth=1).fit(X, y)
    assert model.train_error_ == 0
    with pytest.raises(ValueError, match="feature 0 splits at .* float32"):
        model.to_sklearn()
    frame = pd.DataFrame({"width": X[:, 0]})
    with pytest.raises(ValueError, match="feature 'width'"):
        OptimalTreeClassifier(max_depth=1).fit(frame, y).to_sklearn()


def test_what_cannot_be_exported_is_refused():
    X, y = load_bank()
    with pytest.raises(NotFittedError):
        OptimalTreeClassifier().to_sklearn()
    costly = OptimalTreeClassifier(max_depth=1, cost_matrix=[[0, 1], [5, 0]]).fit(X, y)
    with pytest.raises(ValueError, match="cost_matrix"):
        costly.to_sklearn()


def test_feature_names_and_scikit_learn_tools():
    import matplotlib

    matplotlib.use("Agg")
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    model = OptimalTreeClassifier(max_depth=2).fit(X, y)
    sk = model.to_sklearn()
    assert list(sk.feature_names_in_) == list(X.columns)
    text = export_text(sk, feature_names=list(X.columns))
    root = X.columns[model.tree_.feature[0]]
    assert text.startswith(f"|--- {root} <=")
    assert "digraph" in export_graphviz(sk, feature_names=list(X.columns))
    boxes = [t.get_text() for t in plot_tree(sk) if "samples" in t.get_text()]
    assert len(boxes) == model.tree_.node_count and boxes[0].startswith(f"x[{model.tree_.feature[0]}] <=")


def test_shap_explains_the_exported_tree():
    shap = pytest.importorskip("shap")
    X, y = load_breast_cancer(return_X_y=True)
    model = OptimalTreeClassifier(max_depth=3).fit(X, y)
    explainer = shap.TreeExplainer(model.to_sklearn())
    values = explainer.shap_values(X[:50])
    # SHAP's additivity: base value + contributions = the tree's probability of class 1
    contrib = values[..., 1] if values.ndim == 3 else values[1]
    base = np.atleast_1d(explainer.expected_value)[-1]
    np.testing.assert_allclose(base + contrib.sum(axis=1), model.predict_proba(X[:50])[:, 1], atol=1e-6)


def test_skl2onnx_converts_the_exported_tree():
    pytest.importorskip("skl2onnx")
    rt = pytest.importorskip("onnxruntime")
    from skl2onnx import to_onnx

    X, y = load_bank()
    model = OptimalTreeClassifier(max_depth=3).fit(X, y)
    onx = to_onnx(model.to_sklearn(), X[:1].astype(np.float32), options={"zipmap": False})
    session = rt.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    label = session.run(None, {session.get_inputs()[0].name: X.astype(np.float32)})[0]
    np.testing.assert_array_equal(label, model.predict(X))


def test_dtreeviz_reads_the_exported_tree(capsys):
    dtreeviz = pytest.importorskip("dtreeviz")
    X, y = load_bank()
    model = OptimalTreeClassifier(max_depth=2).fit(X, y)
    names = ["variance", "skewness", "curtosis", "entropy"]
    viz = dtreeviz.model(model.to_sklearn(), X_train=X, y_train=y, feature_names=names, target_name="forged",
                         class_names=["genuine", "forged"])
    viz.leaf_sizes(display_type="text")          # (drawing needs Graphviz's program; the model is read without it)
    sizes = [int(line.split()[3]) for line in capsys.readouterr().out.splitlines() if line.startswith("leaf ")]
    assert sizes == model.tree_.n_node_samples[model.tree_.feature < 0].tolist()
    root = names[model.tree_.feature[0]]
    assert root in viz.explain_prediction_path(X[0])
