"""``export_code``: the generated Python (run), SQL (evaluated in SQLite) and
C (compiled and called) predict what ``predict`` predicts on every training
row and on random rows, with missing values, categories and text that
Python, SQL or C must escape; what they cannot carry is refused."""
from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.datasets import load_breast_cancer

from helpers import random_rows
from instances import SETTINGS, instances

from optimaltrees import OptimalTreeClassifier, OptimalTreeRegressor, SATTreeClassifier
from optimaltrees.bench.fits_exports import run_c, run_python, run_sql
from optimaltrees.data import load_mouse

HOSTILE = ["red", "gr'een\"", "blue\n", "grey??=", "x'); DROP TABLE t; --", "ünï ☃", "a\\b", "*/ end", "\t"]


def _check_all(model, X, tmp_path, names, text_columns=()):
    expected = model.predict(X)
    np.testing.assert_array_equal(run_python(model.export_code("python"), X), expected)
    sql = run_sql(model.export_code("sql", feature_names=names), X, names)
    if expected.dtype.kind == "f":
        np.testing.assert_array_equal(sql.astype(float), expected)
    else:
        np.testing.assert_array_equal(sql.astype(str), expected.astype(str))
    if shutil.which("cc") is None:
        pytest.fail("a C compiler (cc) is needed to test the C export")
    code = model.export_code("c")
    got = run_c(code, X, tmp_path, text_columns)
    if hasattr(model, "classes_"):
        np.testing.assert_array_equal(model.classes_[got], expected)


def test_numeric_classifier_on_training_and_random_rows(tmp_path):
    X, y = load_breast_cancer(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.05] = np.nan
    model = OptimalTreeClassifier(max_depth=3).fit(X, y)
    names = [f"x{i}" for i in range(X.shape[1])]
    _check_all(model, X, tmp_path, names)
    _check_all(model, random_rows(X, 10_000, 1, missing=0.1), tmp_path, names)


def test_categories_with_hostile_text(tmp_path):
    rng = np.random.default_rng(5)
    n = 500
    colour = rng.choice(HOSTILE, n).astype(object)
    size = rng.normal(size=n)
    level = rng.choice([1, 2, 3], n)
    y = np.where((colour == "gr'een\"") | (size > 1.0), "yes", np.where(colour == "ünï ☃", "maybe", "no"))
    colour[rng.choice(n, 40, replace=False)] = None
    size[rng.choice(n, 40, replace=False)] = np.nan
    X = pd.DataFrame({"col\"our": colour, "size; --": size, "level": pd.Categorical(level)})
    names = list(X.columns)
    for splits in ("one-vs-rest", "subsets"):
        model = OptimalTreeClassifier(max_depth=3, categorical_splits=splits).fit(X, y)
        _check_all(model, X, tmp_path, names, text_columns={0})
        m = 10_000
        new = pd.DataFrame({"col\"our": rng.choice(HOSTILE + ["unseen", None], m),
                            "size; --": random_rows(size.reshape(-1, 1), m, 2, missing=0.1)[:, 0],
                            "level": pd.Categorical(rng.choice([1, 2, 3, 4], m))})
        _check_all(model, new, tmp_path, names, text_columns={0})


def test_regressor(tmp_path):
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :5].copy()
    X[np.random.default_rng(2).random(X.shape) < 0.05] = np.nan
    model = OptimalTreeRegressor(max_depth=3).fit(X, np.nan_to_num(X[:, 0]) * 0.1 + y + np.nan_to_num(X[:, 1]))
    names = ["a", "b", "c", "d", "e"]
    for rows in (X, random_rows(X, 5_000, 3, missing=0.1)):
        expected = model.predict(rows)
        np.testing.assert_array_equal(run_python(model.export_code("python"), rows).astype(float), expected)
        np.testing.assert_array_equal(run_sql(model.export_code("sql", feature_names=names), rows, names)
                                      .astype(float), expected)
        np.testing.assert_array_equal(run_c(model.export_code("c"), rows, tmp_path, value=True), expected)


def test_sat_tree_on_integer_categories(tmp_path):
    X, y, _ = load_mouse()
    model = SATTreeClassifier().fit(X, y)
    names = [f"f{i}" for i in range(X.shape[1])]
    _check_all(model, X, tmp_path, names)


@settings(max_examples=40, **SETTINGS)
@given(instances(max_n=12, max_features=3, max_classes=4), st.integers(1, 3), st.integers(0, 99))
def test_random_instances_in_python_and_sql(inst, depth, seed):
    X, y = inst
    model = OptimalTreeClassifier(max_depth=depth, time_limit=None).fit(X, y)
    rows = np.vstack([X, random_rows(X, 100, seed, missing=0.1)])
    expected = model.predict(rows)
    np.testing.assert_array_equal(run_python(model.export_code("python"), rows).astype(str), expected.astype(str))
    names = [f"c{j}" for j in range(X.shape[1])]
    np.testing.assert_array_equal(run_sql(model.export_code("sql", feature_names=names), rows, names)
                                  .astype(str), expected.astype(str))


def test_what_a_language_cannot_carry_is_refused():
    X = pd.DataFrame({"c": ["z\x00b", "c", "z\x00b", "c"] * 5})     # the test is on the larger value
    y = [0, 1, 0, 1] * 5
    model = OptimalTreeClassifier(max_depth=1).fit(X, y)
    assert run_python(model.export_code("python"), X).tolist() == model.predict(X).tolist()
    for language in ("sql", "c"):
        with pytest.raises(ValueError, match="NUL"):
            model.export_code(language)
    with pytest.raises(ValueError, match="language must be one of"):
        model.export_code("java")
    for name in ("1st", "predict; import os", "", None):
        with pytest.raises(ValueError, match="function_name"):
            model.export_code(function_name=name)
    with pytest.raises(ValueError, match="feature_names has 2 names for 1 columns"):
        model.export_code("sql", feature_names=["a", "b"])
