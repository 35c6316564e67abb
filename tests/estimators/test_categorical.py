"""Categorical columns in the exact tree search: ``x == v`` tests
beside numeric thresholds, checked against the brute force on the same
tests written as 0/1 columns, printed in the user's names and values."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier
from optimaltrees.io import load_model, save_model

from oracle import brute_force_objective

LEVELS = ["red", "green", "blue", "grey"]


def _one_hot(colour: list, levels: list) -> np.ndarray:
    """The oracle's view: one 0/1 column per level (a split on it is x == v
    against the rest), NaN in each where the category is missing."""
    out = np.array([[float(c == v) for v in levels] for c in colour])
    out[[c is None for c in colour]] = np.nan
    return out


def _subset_columns(colour: list, levels: list) -> np.ndarray:
    """The oracle's view of subset splits: one 0/1 column per subset S of the
    levels (x in S), every subset, NaN where the category is missing."""
    import itertools

    subsets = [S for k in range(1, len(levels)) for S in itertools.combinations(levels, k)]
    out = np.array([[float(c in S) for S in subsets] for c in colour]).reshape(len(colour), len(subsets))
    out[[c is None for c in colour]] = np.nan
    return out


tables = st.integers(3, 10).flatmap(lambda n: st.tuples(
    st.lists(st.one_of(st.none(), st.sampled_from(LEVELS)), min_size=n, max_size=n),
    st.lists(st.one_of(st.just(math.nan), st.sampled_from([0.0, 1.5, 2.0, -3.0])), min_size=n, max_size=n),
    st.lists(st.integers(0, 2), min_size=n, max_size=n)))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables, st.integers(1, 3), st.sampled_from(["one-vs-rest", "subsets"]))
def test_categorical_splits_give_the_brute_force_optimum(data, depth, splits):
    colour, size, y = data
    y = np.array(y)
    frame = pd.DataFrame({"colour": pd.Series(colour, dtype=object), "size": size})
    clf = OptimalTreeClassifier(max_depth=depth, categorical_splits=splits).fit(frame, y)
    levels = sorted({c for c in colour if c is not None})
    view = _subset_columns if splits == "subsets" and len(levels) > 1 else _one_hot
    X_oracle = np.column_stack([view(colour, levels), np.array(size)]) if levels else np.array(size)[:, None]
    expected = brute_force_objective(X_oracle, np.unique(y, return_inverse=True)[1], depth)
    assert clf.objective_ == pytest.approx(expected)
    assert clf.is_optimal_
    assert clf.train_error_ == int(np.count_nonzero(clf.predict(frame) != y))


def _shop(n=240, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], n), "size": rng.normal(size=n),
                          "kind": pd.Categorical(rng.choice(["a", "b"], n))})
    y = ((frame.colour == "red") & (frame["size"] > 0)).astype(int).to_numpy()
    return frame, y


def test_the_tree_reads_in_the_users_names_and_values(tmp_path):
    frame, y = _shop()
    clf = OptimalTreeClassifier(max_depth=2).fit(frame, y)
    assert clf.train_error_ == 0 and clf.is_optimal_
    text = clf.export_text()
    assert "colour == red" in text and "colour != red" in text and "size <= " in text
    assert clf.n_features_in_ == 3 and list(clf.feature_names_in_) == ["colour", "size", "kind"]
    importances = clf.feature_importances_
    assert importances.shape == (3,) and importances[2] == 0 and importances.sum() == pytest.approx(1)
    # an unseen category takes the != side; a missing one is a missing value
    new = pd.DataFrame({"colour": ["purple", "red", None], "size": [1.0, 1.0, np.nan],
                        "kind": pd.Categorical(["a", "b", "a"])})
    assert clf.predict(new).tolist()[:2] == [0, 1]
    save_model(clf, tmp_path / "m.json")
    back = load_model(tmp_path / "m.json")
    assert back.export_text() == text
    assert back.predict(frame).tolist() == clf.predict(frame).tolist()


@pytest.mark.parametrize("spec", [[0], ["colour"], [True, False, False]])
def test_categorical_features_names_the_columns(spec):
    frame, y = _shop()
    codes = frame.assign(colour=frame.colour.map({"red": 7, "green": 1, "blue": 3}), kind=0)
    clf = OptimalTreeClassifier(max_depth=2, categorical_features=spec).fit(codes, y)
    assert clf.train_error_ == 0
    assert "colour == 7" in clf.export_text()
    arr = codes.to_numpy(dtype=float)        # a plain array: the column indices or mask still apply
    if not isinstance(spec[0], str):
        assert "x[0] == 7" in OptimalTreeClassifier(max_depth=2, categorical_features=spec).fit(arr, y).export_text()


def test_without_categorical_features_text_is_an_error():
    frame, y = _shop()
    with pytest.raises(ValueError):
        OptimalTreeClassifier(categorical_features=None).fit(frame, y)


@pytest.mark.parametrize("spec, message", [([5], "out of range"), (["nope"], "not a column"),
                                           ([True, False], "entries")])
def test_bad_categorical_features_are_named(spec, message):
    frame, y = _shop()
    with pytest.raises(ValueError, match=message):
        OptimalTreeClassifier(categorical_features=spec).fit(frame, y)


def test_a_numeric_frame_takes_the_plain_path():
    frame = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "b": [1, 0, 1, 0]})
    clf = OptimalTreeClassifier(max_depth=1).fit(frame, [0, 0, 1, 1])
    assert clf.encoder_ is None and clf.is_optimal_


def test_diagrams_take_categorical_columns_too(tmp_path):
    from optimaltrees import DecisionDiagramClassifier

    frame, y = _shop(200)
    clf = DecisionDiagramClassifier((1, 2), time_limit=10, random_state=0).fit(frame, y)
    assert clf.train_error_ == 0 and clf.encoder_ is not None
    text = clf.export_text()
    assert "colour == red" in text and "colour=red" not in text and "size" in text
    assert clf.feature_importances(frame, y).shape == (3,)
    new = pd.DataFrame({"colour": ["purple", "red"], "size": [1.0, 1.0], "kind": pd.Categorical(["a", "b"])})
    assert clf.predict(new).tolist() == [0, 1]                    # unseen: 0 in every colour column
    save_model(clf, tmp_path / "d.json")
    assert load_model(tmp_path / "d.json").predict(frame).tolist() == clf.predict(frame).tolist()
    with pytest.raises(ValueError, match="NaN"):
        clf.predict(new.assign(colour=[None, "red"]))
    # the sensitive attribute may be a categorical column, named as in X
    fair = DecisionDiagramClassifier((1, 2), time_limit=10, random_state=0, fairness_ratio=0.5,
                                     sensitive="kind").fit(frame, y)
    assert list(fair.sensitive_levels_) == ["a", "b"]


def test_subset_splits_print_and_refuse_too_many_values(tmp_path):
    frame = pd.DataFrame({"colour": ["red", "green", "blue", "grey"] * 5, "size": np.arange(20.0)})
    y = frame.colour.isin(["red", "blue"]).astype(int).to_numpy()
    plain = OptimalTreeClassifier(max_depth=1).fit(frame, y)
    clf = OptimalTreeClassifier(max_depth=1, categorical_splits="subsets").fit(frame, y)
    assert plain.train_error_ > 0 and clf.train_error_ == 0
    assert "colour in {" in clf.export_text() and clf.encoder_.n_tests_ == 7 + 1
    save_model(clf, tmp_path / "s.json")
    assert load_model(tmp_path / "s.json").export_text() == clf.export_text()
    assert clf.predict(pd.DataFrame({"colour": ["purple"], "size": [1.0]})).shape == (1,)
    many = pd.DataFrame({"c": [f"v{i}" for i in range(13)], "x": np.arange(13.0)})
    with pytest.raises(ValueError, match="13 values"):
        OptimalTreeClassifier(categorical_splits="subsets").fit(many, np.arange(13) % 2)


def test_review_cases_missing_categories_nullable_dtypes_constant_columns(tmp_path):
    """Found in review: each once printed, crashed or saved wrongly."""
    # a category split that is really "missing against present" says so
    frame = pd.DataFrame({"c": ["a", "a", "b", "b", None, None]})
    clf = OptimalTreeClassifier(max_depth=1).fit(frame, [0, 0, 0, 0, 1, 1])
    assert "c is missing" in clf.export_text() and "c is present" in clf.export_text()
    assert clf.predict(pd.DataFrame({"c": ["a", None]})).tolist() == [0, 1]
    # pandas' nullable text with NA, at fit and at predict
    frame = pd.DataFrame({"c": pd.array(["a", "b", None, "a", "b"], dtype="string"), "x": [1.0, 2, 3, 4, 5]})
    clf = OptimalTreeClassifier(max_depth=2).fit(frame, [0, 1, 1, 0, 1])
    assert clf.encoder_ is not None and clf.train_error_ == 0
    new = pd.DataFrame({"c": pd.array([pd.NA, "a"], dtype="string"), "x": [1.0, 1.0]})
    assert clf.predict(new).shape == (2,)
    # a column that allows no split fits a leaf, not a "0 features" error
    for frame in (pd.DataFrame({"c": ["a"] * 5}), pd.DataFrame({"c": [None] * 5}, dtype=object)):
        assert OptimalTreeClassifier().fit(frame, [0, 1, 0, 1, 1]).tree_.node_count == 1
    # categorical_features as an array (a Boolean mask) survives a model file
    frame, y = _shop()
    clf = OptimalTreeClassifier(max_depth=1, categorical_features=np.array([True, False, True])).fit(frame, y)
    save_model(clf, tmp_path / "mask.json")
    assert load_model(tmp_path / "mask.json").predict(frame).tolist() == clf.predict(frame).tolist()


def test_trees_with_encoders_and_missing_values_draw(tmp_path):
    pytest.importorskip("matplotlib")
    from optimaltrees.plot import plot_model

    frame = pd.DataFrame({"b": [True, False] * 4, "x": [1.0, 2, 3, 4, 5, 6, 7, 8], "c": list("aabbabab")})
    y = [0, 0, 0, 1, 1, 1, 1, 0]
    plot_model(OptimalTreeClassifier(max_depth=2).fit(frame, y))
    frame.loc[0, "x"] = np.nan
    plot_model(OptimalTreeClassifier(max_depth=2).fit(frame, y))


# -- one rule for what is a category -------------------------------------------------

_ESTIMATORS = [lambda: OptimalTreeClassifier(max_depth=2), lambda: SATTreeClassifier(),
               lambda: DecisionDiagramClassifier((1, 2), time_limit=5, heuristic_time=0.1, random_state=0)]


@pytest.mark.parametrize("make", _ESTIMATORS, ids=["tree", "sat", "diagram"])
def test_periods_are_refused_like_dates(make):
    # a Period column was taken as categories while dates were refused
    y = [0, 1, 0, 1, 1, 0]
    for column in (pd.period_range("2020-01", periods=6, freq="M"), pd.date_range("2020-01-01", periods=6)):
        with pytest.raises(TypeError, match=r"column 'when' holds (periods|dates) \("):
            make().fit(pd.DataFrame({"when": column}), y)


@pytest.mark.parametrize("make", _ESTIMATORS, ids=["tree", "sat", "diagram"])
@pytest.mark.parametrize("cells", [[True, 1, False, 0, "a", "a"], [np.False_, 0.0, True, True, "a", "b"]],
                         ids=["python", "numpy"])
def test_booleans_and_equal_numbers_in_one_column_are_refused(make, cells):
    # Python equality put True and 1 (False and 0) in one category, where
    # the same mix of labels is refused
    X = pd.DataFrame({"flag": pd.Series(cells, dtype=object)})
    with pytest.raises(ValueError, match=r"column 'flag' holds .* which Python counts as one value"):
        make().fit(X, [0, 1, 0, 1, 1, 0])


def test_numbers_equal_in_value_are_one_category():
    X = pd.DataFrame({"code": pd.Series([1, 1.0, 2, 2.0, "a", "a"], dtype=object)})
    clf = OptimalTreeClassifier(max_depth=2).fit(X, [0, 0, 1, 1, 0, 0])
    assert clf.train_error_ == 0
    assert sorted({t.value for t in clf.encoder_.tests_}, key=str) == [1, 2, "a"]
