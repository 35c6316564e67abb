"""A decision diagram unfolded to a tree predicts as the diagram, and so do
its exports (scikit-learn, ONNX, Python, SQL); hyperplanes are refused."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from optimaltrees import DecisionDiagramClassifier
from optimaltrees.bench.fits_exports import run_python, run_sql
from optimaltrees.data import load_bank


def _fit(X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return DecisionDiagramClassifier(time_limit=10, **kw).fit(X, y)


def _rows(X, n, seed):
    rng = np.random.default_rng(seed)
    lo, hi = X.min(axis=0), X.max(axis=0)
    return rng.uniform(lo - 1, hi + 1, size=(n, X.shape[1]))


def test_unfolded_diagram_and_its_exports_predict_as_the_diagram():
    X, y = load_bank()
    model = _fit(X[:400], y[:400], skeleton=(1, 2, 2))
    tree = model.diagram_.unfold()
    rows = np.vstack([X, _rows(X, 5_000, 0)])
    expected = model.predict(rows)
    np.testing.assert_array_equal(model.classes_[tree.predict(rows)], expected)
    merges = (model.diagram_.in_degree() > 1).any()
    assert tree.n_leaves >= model.diagram_.n_nodes + 1 or not merges
    np.testing.assert_array_equal(model.to_sklearn().predict(X), model.predict(X))    # training-like rows
    rt = pytest.importorskip("onnxruntime")
    session = rt.InferenceSession(model.to_onnx().SerializeToString(), providers=["CPUExecutionProvider"])
    label, proba = session.run(None, {"X": rows})
    np.testing.assert_array_equal(label, expected)
    np.testing.assert_array_equal(proba, model.predict_proba(rows))
    np.testing.assert_array_equal(run_python(model.export_code("python"), rows).astype(int), expected)
    names = ["a", "b", "c", "d"]
    np.testing.assert_array_equal(run_sql(model.export_code("sql", feature_names=names), rows, names).astype(int),
                                  expected)


def test_categorical_diagram_exports():
    rng = np.random.default_rng(2)
    n = 200
    colour = rng.choice(["red", "green", "blue"], n)
    size = rng.normal(size=n)
    y = np.where((colour == "red") | (size > 1.0), "yes", "no")
    X = pd.DataFrame({"colour": colour, "size": size})
    model = _fit(X, y, skeleton=(1, 2))
    np.testing.assert_array_equal(model.to_sklearn().predict(X), model.predict(X))
    np.testing.assert_array_equal(run_python(model.export_code("python"), X), model.predict(X))


def test_hyperplanes_have_no_tree():
    X, y = load_bank()
    model = _fit(X[:200], y[:200], skeleton=(1, 2), splits="multivariate")
    if all(len(np.flatnonzero(model.diagram_.coef[u])) <= 1 for u in range(model.diagram_.n_nodes)):
        pytest.fail("the multivariate fit used one feature per node: pick data that needs a hyperplane")
    with pytest.raises(ValueError, match="hyperplane"):
        model.to_sklearn()
    with pytest.raises(ValueError, match="hyperplane"):
        model.export_code("c")
