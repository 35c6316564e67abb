"""Model files of OptimalTreeRegressor: a loaded regressor predicts exactly
what the saved one did, and a damaged file is refused with a ValueError
naming the entry (never another exception, a hang or a huge allocation).

Each hostile file starts from a real saved regressor with one thing changed."""
from __future__ import annotations

import copy
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimaltrees import OptimalTreeRegressor, RegressionTree
from optimaltrees.io import load_model, model_from_dict, model_to_dict, save_model

from test_model_files import _paths, _refused, _replacements, _set_array, deadline


def _numeric():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(60, 3)).astype(float)
    y = np.where(X[:, 0] > 2, -40.0, 7.5) + 0.25 * X[:, 1] + rng.normal(0, 0.1, 60)
    return X, y


def _mixed():
    """Numeric and categorical columns, with missing values in both."""
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"size": rng.random(60), "colour": rng.choice(["red", "green", "blue"], 60),
                          "n": rng.integers(0, 5, 60).astype(float)})
    y = 3 * frame["size"].to_numpy() + 2.0 * (frame["colour"] == "red").to_numpy() + rng.normal(0, 0.05, 60)
    frame.loc[[1, 7, 19], "size"] = np.nan
    frame.loc[[2, 5], "colour"] = None
    return frame, y


@pytest.fixture(scope="module")
def fitted():
    X, y = _numeric()
    frame, z = _mixed()
    weights = np.random.default_rng(5).integers(0, 4, 60).astype(float)
    return {"numeric": (OptimalTreeRegressor(max_depth=2).fit(X, y), X),
            "mixed": (OptimalTreeRegressor(max_depth=2).fit(frame, z), frame),
            "weighted": (OptimalTreeRegressor(max_depth=2, complexity_cost=0.01).fit(X, y, sample_weight=weights), X)}


@pytest.fixture(scope="module")
def saved(fitted):
    return json.loads(json.dumps(model_to_dict(fitted["numeric"][0])))


def _tree(doc):
    return doc["fitted"]["tree_"]["state"]


def _same_state(a, b) -> None:
    """Every fitted attribute of ``b`` equals ``a``'s, arrays exactly."""
    fitted = sorted(k for k in vars(a) if k.endswith("_") and not k.startswith("_"))
    assert fitted == sorted(k for k in vars(b) if k.endswith("_") and not k.startswith("_"))
    for key in ("tree_",):
        ta, tb = getattr(a, key), getattr(b, key)
        assert type(tb) is RegressionTree
        for field in ("feature", "threshold", "children_left", "children_right", "value", "missing_left",
                      "node_weight", "node_samples", "node_sse"):
            np.testing.assert_array_equal(getattr(ta, field), getattr(tb, field), err_msg=field)
            assert getattr(ta, field).dtype == getattr(tb, field).dtype, field
        assert (ta.n_features, ta.missing_in_training, ta.weighted) == (tb.n_features, tb.missing_in_training,
                                                                        tb.weighted)
    for key in ("train_error_", "objective_", "lower_bound_", "gap_", "is_optimal_", "timed_out_",
                "interrupted_", "total_sse_", "n_features_in_", "fit_time_", "summary_", "stats_", "trace_"):
        assert getattr(a, key) == getattr(b, key), key


# ------------------------------------------------------------------ round trips

@pytest.mark.parametrize("kind", ["numeric", "mixed", "weighted"])
def test_a_loaded_regressor_predicts_exactly_as_the_saved_one(tmp_path, fitted, kind):
    model, X = fitted[kind]
    path = tmp_path / "m.json"
    save_model(model, path, metadata={"label": "price"})
    back, meta = load_model(path, with_metadata=True)
    assert type(back) is OptimalTreeRegressor and meta == {"label": "price"}
    _same_state(model, back)
    assert back.get_params() == model.get_params()
    np.testing.assert_array_equal(back.predict(X), model.predict(X))
    np.testing.assert_array_equal(back.apply(X), model.apply(X))
    assert back.export_text() == model.export_text() and back.export_dot() == model.export_dot()
    assert back.score(X, model.predict(X)) == 1.0


def test_missing_values_and_unseen_categories_predict_as_before(fitted):
    model, frame = fitted["mixed"]
    assert model.encoder_ is not None and model.tree_.missing_in_training
    back = model_from_dict(json.loads(json.dumps(model_to_dict(model))))
    new = pd.DataFrame({"size": [np.nan, 0.2, 0.9, np.nan], "colour": ["red", None, "purple", None],
                        "n": [np.nan, 1.0, 2.0, 3.0]})
    np.testing.assert_array_equal(back.predict(new), model.predict(new))
    assert list(back.feature_names_in_) == ["size", "colour", "n"]


def test_negative_means_and_a_single_leaf_load(fitted):
    model = fitted["numeric"][0]
    assert model.tree_.value.min() < 0          # means may be negative, unlike class counts
    X, y = _numeric()
    leaf = OptimalTreeRegressor(max_depth=0).fit(X, y)
    back = model_from_dict(json.loads(json.dumps(model_to_dict(leaf))))
    assert back.tree_.node_count == 1 and (back.predict(X) == leaf.predict(X)).all()


# ------------------------------------------------------------------ hostile files

T = ("fitted", "tree_", "state")


def _mutate(doc, path, value):
    entry = doc
    for key in path[:-1]:
        entry = entry[key]
    entry[path[-1]] = value


@pytest.mark.parametrize("path, value, match", [
    (T + ("value", "__ndarray__", 0), {"__float__": "nan"}, r"fitted.tree_.value: the means must be finite; node 0"),
    (T + ("value", "__ndarray__", 2), {"__float__": "-inf"}, "fitted.tree_.value: the means must be finite"),
    (T + ("value", "shape"), [1, 7], r"fitted.tree_.value: a regression tree holds one mean per node"),
    (T + ("node_weight", "__ndarray__", 1), -2.0, "fitted.tree_.node_weight: expected finite numbers >= 0; node 1"),
    (T + ("node_weight", "__ndarray__", 1), {"__float__": "inf"}, "fitted.tree_.node_weight: expected finite"),
    (T + ("node_sse", "__ndarray__", 3), -1e-3, "fitted.tree_.node_sse: expected finite numbers >= 0; node 3"),
    (T + ("node_samples", "__ndarray__", 0), 0.5, r"fitted.tree_.node_samples\[0\]"),
    (T + ("node_samples", "__ndarray__", 0), -3, "fitted.tree_.node_samples: expected finite numbers >= 0"),
    (T + ("node_samples", "dtype"), "<f8", "fitted.tree_.node_samples: dtype"),
    (T + ("node_sse", "shape"), [10**12], "elements, more than a model file may hold"),
    (T + ("children_left", "__ndarray__", 0), 0, "fitted.tree_: "),
    (T + ("feature", "__ndarray__", 0), 9, "fitted.tree_: feature index 9 is out of range"),
    (T + ("n_features",), 5, "fitted.tree_: the tree has 5 features, the model 3"),
    (T + ("weighted",), "yes", "fitted.tree_.weighted"),
    (("fitted", "tree_", "__object__"), "optimaltrees.model.tree:Tree", "only optimaltrees.model.regression_tree"),
    (("fitted", "tree_"), [1, 2], "fitted.tree_"),
    (("fitted", "train_error_"), -1.0, "fitted.train_error_: expected a finite number >= 0"),
    (("fitted", "total_sse_"), {"__float__": "inf"}, "fitted.total_sse_: expected a finite number >= 0"),
    (("fitted", "objective_"), "12", "fitted.objective_: expected a number"),
    (("fitted", "lower_bound_"), {"__float__": "nan"}, "fitted.lower_bound_"),
    (("fitted", "n_features_in_"), 4, "the tree has 3 features, the model 4"),
    (("fitted", "n_features_in_"), 2.0, "fitted.n_features_in_: expected an integer"),
    # contradicts the summary's proof and the fewest-nodes claim (either is named)
    (("fitted", "is_optimal_"), False, "but is_optimal_ is"),
    (("fitted", "fewest_nodes_"), "no", "fitted.fewest_nodes_: expected true or false"),
    (("fitted", "timed_out_"), "no", "fitted.timed_out_: expected true or false"),
    (("fitted", "classes_"), {"__ndarray__": [0, 1], "dtype": "<i8", "shape": [2]},
     "has no fitted attribute 'classes_'"),
    (("fitted", "summary_", "state", "method"), "sat", "method 'sat', but the estimator is OptimalTreeRegressor"),
    (("params", "max_depth"), 1, "fitted.tree_: 7 nodes, more than a tree of depth 1 has"),
    (("params", "max_depth"), 99, r"'max_depth' parameter of OptimalTreeRegressor"),
    (("params", "min_samples_leaf"), 0, r"'min_samples_leaf' parameter"),
    (("params", "splitter"), "best", "OptimalTreeRegressor has no parameter 'splitter'"),
    (("params", "search"), "sideways", r"'search' parameter of OptimalTreeRegressor"),
])
def test_hostile_regressor_files_are_refused_naming_the_entry(saved, path, value, match):
    doc = copy.deepcopy(saved)
    assert _tree(doc)["feature"]["shape"] == [7]        # the fixture's tree is a perfect depth-2 tree
    _mutate(doc, path, value)
    _refused(doc, match)


def test_a_tree_deeper_than_max_depth_is_refused(saved):
    doc = copy.deepcopy(saved)          # a chain of depth 3 in 7 nodes, max_depth 2
    s = _tree(doc)
    _set_array(s["feature"], [0, -1, 1, -1, 2, -1, -1])
    _set_array(s["children_left"], [1, -1, 3, -1, 5, -1, -1])
    _set_array(s["children_right"], [2, -1, 4, -1, 6, -1, -1])
    _refused(doc, "deeper than 2")


def test_missing_entries_are_refused(saved):
    for key, match in (("tree_", "missing tree_"), ("summary_", "missing summary_"),
                       ("n_features_in_", "missing n_features_in_")):
        doc = copy.deepcopy(saved)
        del doc["fitted"][key]
        _refused(doc, match)
    doc = copy.deepcopy(saved)
    del _tree(doc)["node_sse"]
    _refused(doc, r"missing \['node_sse'\]")


def test_an_encoder_of_other_columns_is_refused(fitted):
    doc = json.loads(json.dumps(model_to_dict(fitted["mixed"][0])))
    doc["fitted"]["n_features_in_"] = 2
    _set_array(doc["fitted"]["feature_names_in_"], ["size", "colour"])
    _refused(doc, "fitted.encoder_: 3 columns")


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(choice=st.data())
def test_random_damage_loads_a_working_regressor_or_raises_value_error(saved, choice):
    """One random change anywhere in a valid file: either ValueError, or a
    regressor that predicts finite values and prints, in bounded time."""
    doc = copy.deepcopy(saved)
    path = choice.draw(st.sampled_from([p for p in _paths(doc) if p]))
    entry = doc
    for key in path[:-1]:
        entry = entry[key]
    old = entry[path[-1]]
    if isinstance(old, int) and not isinstance(old, bool) and choice.draw(st.booleans()):
        new = old + choice.draw(st.integers(-3, 3))
    elif isinstance(entry, dict) and choice.draw(st.integers(0, 5)) == 0:
        del entry[path[-1]]
        new = None
    else:
        new = choice.draw(_replacements)
    if path[-1] in entry or isinstance(entry, list):
        entry[path[-1]] = new
    X = _numeric()[0]
    with deadline(10):
        try:
            model = model_from_dict(doc)
        except ValueError:
            return
        pred = model.predict(X)
        assert pred.shape == (len(X),) and np.all(np.isfinite(pred))
        model.export_text()
