"""``to_onnx()``: onnxruntime predicts what ``predict`` predicts (labels,
probabilities and values bit for bit) on the training rows and on random
rows, missing values and categories (text and numbers, unseen ones)
included; what ONNX cannot hold is refused."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.datasets import load_breast_cancer

from instances import SETTINGS, instances

from optimaltrees import OptimalTreeClassifier, OptimalTreeRegressor

rt = pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")


def _session(model):
    onx = model.to_onnx()
    return rt.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])


def _run(model, feeds):
    return _session(model).run(None, feeds)


def _near_thresholds(model, X, n, seed, missing=0.1):
    """Random rows, a third of the cells at a threshold or one float64 step beside it."""
    rng = np.random.default_rng(seed)
    lo, hi = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
    out = rng.uniform(lo, hi, size=(n, X.shape[1]))
    tree = model.tree_
    for node in np.flatnonzero((tree.feature >= 0) & np.isfinite(tree.threshold)):
        rows = rng.random(n) < 1 / 3
        t = tree.threshold[node]
        out[rows, tree.feature[node]] = rng.choice([np.nextafter(t, -np.inf), t, np.nextafter(t, np.inf)],
                                                   size=rows.sum())
    out[rng.random(out.shape) < missing] = np.nan
    return out


def test_numeric_classifier_with_missing_values():
    X, y = load_breast_cancer(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.05] = np.nan
    model = OptimalTreeClassifier(max_depth=3).fit(X, y)
    for rows in (X, _near_thresholds(model, X, 10_000, 1)):
        label, proba = _run(model, {"X": rows})
        np.testing.assert_array_equal(label, model.predict(rows))
        np.testing.assert_array_equal(proba, model.predict_proba(rows))


def test_regressor_values_are_exact():
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :8].copy()
    X[np.random.default_rng(1).random(X.shape) < 0.05] = np.nan
    model = OptimalTreeRegressor(max_depth=3).fit(X, y * 1.7 + np.nan_to_num(X[:, 2]))
    for rows in (X, _near_thresholds(model, X, 10_000, 2)):
        (value,) = _run(model, {"X": rows})
        np.testing.assert_array_equal(value[:, 0], model.predict(rows))


def test_cost_matrix_labels():
    X, y = load_breast_cancer(return_X_y=True)
    model = OptimalTreeClassifier(max_depth=2, cost_matrix=[[0, 1], [20, 0]]).fit(X, y)
    label, proba = _run(model, {"X": X})
    np.testing.assert_array_equal(label, model.predict(X))
    np.testing.assert_array_equal(proba, model.predict_proba(X))


def _categorical_feeds(frame: pd.DataFrame) -> dict:
    """One (n, 1) input per column: text as strings (missing: the empty
    string), numbers as doubles (missing: NaN)."""
    feeds = {}
    for name, col in frame.items():
        values = col.astype(object).to_numpy()
        if any(isinstance(v, str) for v in values):
            feeds[name] = np.array(["" if not isinstance(v, str) else v for v in values], dtype=object).reshape(-1, 1)
        else:
            feeds[name] = col.astype(float).to_numpy().reshape(-1, 1)
    return feeds


@pytest.mark.parametrize("splits", ["one-vs-rest", "subsets"])
def test_categories_text_and_numbers_with_missing_and_unseen_values(splits):
    rng = np.random.default_rng(3)
    n = 400
    colour = rng.choice(["red", "green", "blue", "ünï 'x'"], n).astype(object)
    size = rng.normal(size=n)
    level = rng.choice([1.0, 2.0, 3.0], n)
    y = np.where((colour == "red") | (size > 1.0), "yes", np.where(level == 2, "maybe", "no"))
    colour[rng.choice(n, 30, replace=False)] = np.nan
    size[rng.choice(n, 30, replace=False)] = np.nan
    level[rng.choice(n, 30, replace=False)] = np.nan
    X = pd.DataFrame({"colour": colour, "size": size, "level": pd.Categorical(level)})
    model = OptimalTreeClassifier(max_depth=3, categorical_splits=splits).fit(X, y)
    m = 10_000
    new = pd.DataFrame({"colour": rng.choice(["red", "green", "blue", "ünï 'x'", "purple", np.nan], m),
                        "size": np.where(rng.random(m) < 0.1, np.nan, rng.normal(size=m)),
                        "level": pd.Categorical(rng.choice([1.0, 2.0, 3.0, 4.0, np.nan], m))})
    for rows in (X, new):
        label, proba = _run(model, _categorical_feeds(rows))
        np.testing.assert_array_equal(label, model.predict(rows))
        np.testing.assert_array_equal(proba, model.predict_proba(rows))


@settings(max_examples=40, **SETTINGS)
@given(instances(max_n=12, max_features=3, max_classes=4), st.integers(1, 3), st.integers(0, 99))
def test_random_instances(inst, depth, seed):
    X, y = inst
    if y.dtype.kind not in "iU":
        return
    model = OptimalTreeClassifier(max_depth=depth, time_limit=None).fit(X, y)
    rows = np.vstack([X, _near_thresholds(model, X, 100, seed)])
    label, proba = _run(model, {"X": rows})
    np.testing.assert_array_equal(label, model.predict(rows))
    np.testing.assert_array_equal(proba, model.predict_proba(rows))


def test_what_onnx_cannot_hold_is_refused():
    X = np.arange(20, dtype=float).reshape(-1, 1)
    with pytest.raises(ValueError, match="text or integers"):
        OptimalTreeClassifier(max_depth=1).fit(X, [0.0, 1.0] * 10).to_onnx()
    empty = pd.DataFrame({"c": ["", "a", "b", "a"] * 5})
    with pytest.raises(ValueError, match="empty string"):
        OptimalTreeClassifier(max_depth=2).fit(empty, [0, 1, 1, 0] * 5).to_onnx()
    mixed = pd.DataFrame({"c": pd.Series(["a", 1, "b", 2] * 5, dtype=object)})
    with pytest.raises(ValueError, match="mixes text and number"):
        OptimalTreeClassifier(max_depth=2, categorical_features=[0]).fit(mixed, [0, 1, 1, 0] * 5).to_onnx()
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        OptimalTreeRegressor().to_onnx()
