"""Estimator behaviour: input types, labels, probabilities, leaf ids,
serialisation, degenerate targets and scikit-learn API compliance."""
import json
import warnings

import numpy as np
import pytest

from helpers import check_tree_invariants
from oracle import brute_force_objective, recompute_error, route

from optimaltrees import (DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier,  # noqa: E402
                          Tree, export_text)


def make_data(n=60, p=3, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.random((n, p)) * 10, 1)
    y = (X[:, 0] > 5).astype(int) + (X[:, 1] > 3).astype(int)
    flip = rng.random(n) < 0.15
    y[flip] = rng.integers(0, k, flip.sum())
    return X, y


# ---------------------------------------------------------------------------
# pandas input and feature names
# ---------------------------------------------------------------------------

def test_pandas_dataframe_feature_names_and_export():
    import pandas as pd
    rng = np.random.default_rng(1)
    df = pd.DataFrame({
        "alpha": rng.integers(0, 5, 40).astype(float),
        "beta": rng.integers(0, 5, 40).astype(float),
        "gamma": np.arange(40) % 3,  # integer column
    })
    y = (df["beta"] > 2).map({True: "big", False: "small"})
    clf = OptimalTreeClassifier(max_depth=1).fit(df, y)
    assert list(clf.feature_names_in_) == ["alpha", "beta", "gamma"]
    assert clf.n_features_in_ == 3
    assert clf.train_error_ == 0
    assert int(clf.tree_.feature[0]) == 1
    text = export_text(clf.tree_, feature_names=clf.feature_names_in_)
    assert "beta" in text
    assert "alpha" not in text and "gamma" not in text
    assert "2.5" in text  # midpoint between 2 and 3
    plain = export_text(clf.tree_)
    assert "beta" not in plain
    # predictions from a DataFrame and from the equivalent array agree
    pred_df = clf.predict(df)
    assert list(pred_df) == list(y)
    with warnings.catch_warnings():
        # scikit-learn convention: a warning that X has no feature names
        warnings.simplefilter("ignore", UserWarning)
        pred_np = clf.predict(df.to_numpy())
    assert np.array_equal(np.asarray(pred_np), np.asarray(pred_df))
    assert clf.score(df, y) == 1.0


def test_pandas_series_target_and_integer_frame():
    import pandas as pd
    X, y = make_data(n=40, seed=3)
    X = np.round(X).astype(np.int64)  # integer dtype columns
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    clf_df = OptimalTreeClassifier(max_depth=2).fit(df, pd.Series(y))
    clf_np = OptimalTreeClassifier(max_depth=2).fit(X, y)
    assert clf_df.objective_ == clf_np.objective_
    assert np.array_equal(clf_df.predict(df), clf_np.predict(X))


def test_refit_on_numpy_forgets_feature_names():
    import pandas as pd
    X, y = make_data(n=30, seed=4)
    clf = OptimalTreeClassifier(max_depth=1)
    clf.fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    assert hasattr(clf, "feature_names_in_")
    clf.fit(X[:, :2], y)
    assert not hasattr(clf, "feature_names_in_")
    assert clf.n_features_in_ == 2


def test_numpy_input_has_no_feature_names():
    X, y = make_data(n=30)
    clf = OptimalTreeClassifier(max_depth=1).fit(X, y)
    assert clf.n_features_in_ == 3
    assert not hasattr(clf, "feature_names_in_")


def test_list_input_accepted():
    X = [[0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [3.0, 0.0]]
    y = [0, 0, 1, 1]
    clf = OptimalTreeClassifier(max_depth=1).fit(X, y)
    assert clf.train_error_ == 0
    assert list(clf.predict(X)) == y


def test_object_dtype_array_of_numbers_accepted():
    X, y = make_data(n=40, seed=17)
    ref = OptimalTreeClassifier(max_depth=2).fit(X, y)
    clf = OptimalTreeClassifier(max_depth=2).fit(X.astype(object), y)
    assert clf.objective_ == ref.objective_
    assert np.array_equal(clf.predict(X.astype(object)), ref.predict(X))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.uint8, bool])
def test_other_numeric_dtypes(dtype):
    X, y = make_data(n=40, seed=18)
    Xd = (X > 5) if dtype is bool else X.astype(dtype)
    clf = OptimalTreeClassifier(max_depth=2).fit(Xd, y)
    ref = OptimalTreeClassifier(max_depth=2).fit(np.asarray(Xd, dtype=np.float64), y)
    assert clf.objective_ == ref.objective_
    assert clf.train_error_ == recompute_error(clf.tree_, np.asarray(Xd, dtype=np.float64), y)


def test_fortran_ordered_and_strided_X():
    X, y = make_data(n=40, seed=19)
    ref = OptimalTreeClassifier(max_depth=2).fit(X, y)
    strided = np.repeat(X, 2, axis=1)[:, ::2]  # non-contiguous view equal to X
    assert np.array_equal(strided, X)
    for Xv in (np.asfortranarray(X), strided):
        clf = OptimalTreeClassifier(max_depth=2).fit(Xv, y)
        assert clf.objective_ == ref.objective_
        assert np.array_equal(clf.predict(Xv), ref.predict(X))
        assert np.array_equal(clf.apply(Xv), ref.apply(X))


def test_column_vector_y_warns_and_is_raveled():
    from sklearn.exceptions import DataConversionWarning
    X, y = make_data(n=40, seed=20)
    ref = OptimalTreeClassifier(max_depth=2).fit(X, y)
    with pytest.warns(DataConversionWarning):
        clf = OptimalTreeClassifier(max_depth=2).fit(X, y.reshape(-1, 1))
    assert clf.objective_ == ref.objective_


# ---------------------------------------------------------------------------
# labels
# ---------------------------------------------------------------------------

def test_string_labels():
    X, yi = make_data(n=50, seed=5)
    names = np.array(["zebra", "ant", "mole"])
    y = names[yi]
    clf = OptimalTreeClassifier(max_depth=2).fit(X, y)
    assert list(clf.classes_) == ["ant", "mole", "zebra"]
    pred = clf.predict(X)
    assert set(np.unique(pred)) <= set(names)
    assert np.asarray(pred).dtype.kind in "UO"
    assert clf.train_error_ == int(np.sum(pred != y))
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    # relabelling does not change the optimum
    clf_int = OptimalTreeClassifier(max_depth=2).fit(X, yi)
    assert clf_int.objective_ == clf.objective_
    check_tree_invariants(clf, X, y, max_depth=2)


def test_integer_labels_are_returned_as_given():
    X, yi = make_data(n=40, seed=6)
    y = yi * 10 - 7  # -7, 3, 13
    clf = OptimalTreeClassifier(max_depth=2).fit(X, y)
    assert list(clf.classes_) == [-7, 3, 13]
    pred = clf.predict(X)
    assert set(np.unique(pred)) <= {-7, 3, 13}
    assert np.asarray(pred).dtype.kind in "iu"


def test_one_class_gives_single_leaf():
    X, _ = make_data(n=25)
    y = np.array(["only"] * 25)
    clf = OptimalTreeClassifier(max_depth=3).fit(X, y)
    assert clf.tree_.node_count == 1
    assert list(clf.classes_) == ["only"]
    assert clf.train_error_ == 0 and clf.objective_ == 0
    assert clf.is_optimal_
    assert list(clf.predict(X[:3])) == ["only"] * 3
    proba = clf.predict_proba(X[:4])
    assert proba.shape == (4, 1)
    assert np.allclose(proba, 1.0)
    assert np.all(clf.apply(X) == 0)


def test_single_sample():
    clf = OptimalTreeClassifier(max_depth=2).fit([[1.0, 2.0]], [5])
    assert clf.tree_.node_count == 1
    assert clf.predict([[100.0, -3.0]]).tolist() == [5]


# ---------------------------------------------------------------------------
# predict_proba / apply / score
# ---------------------------------------------------------------------------

def test_predict_proba_is_leaf_class_frequency():
    X, y = make_data(n=80, k=3, seed=7)
    clf = OptimalTreeClassifier(max_depth=2).fit(X, y)
    rng = np.random.default_rng(0)
    X_new = np.vstack([X, rng.random((30, 3)) * 12 - 1])
    proba = clf.predict_proba(X_new)
    assert proba.shape == (len(X_new), len(clf.classes_))
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert np.all(proba >= 0)
    # leaf frequencies computed from the training data, routed independently
    train_leaf = route(clf.tree_, X)
    new_leaf = route(clf.tree_, X_new)
    for i, leaf in enumerate(new_leaf):
        in_leaf = y[train_leaf == leaf]
        expected = [np.mean(in_leaf == c) for c in clf.classes_]
        assert proba[i] == pytest.approx(expected)
    # predict picks a class of maximal probability
    pred = clf.predict(X_new)
    idx = np.searchsorted(clf.classes_, pred)
    assert np.allclose(proba[np.arange(len(pred)), idx], proba.max(axis=1))


def test_apply_returns_leaf_ids():
    X, y = make_data(n=70, seed=8)
    clf = OptimalTreeClassifier(max_depth=3).fit(X, y)
    leaves = clf.apply(X)
    assert leaves.shape == (len(X),)
    assert np.issubdtype(np.asarray(leaves).dtype, np.integer)
    feature = np.asarray(clf.tree_.feature)
    assert np.all(feature[leaves] == -1)
    assert np.array_equal(leaves, route(clf.tree_, X))
    assert np.array_equal(clf.tree_.apply(X), leaves)
    # training-sample counts per leaf agree with n_node_samples
    counts = np.bincount(leaves, minlength=clf.tree_.node_count)
    leaf_ids = np.flatnonzero(feature == -1)
    assert np.array_equal(counts[leaf_ids], np.asarray(clf.tree_.n_node_samples)[leaf_ids])


def test_score_is_accuracy():
    X, y = make_data(n=60, seed=9)
    clf = OptimalTreeClassifier(max_depth=1).fit(X, y)
    assert clf.score(X, y) == pytest.approx(1 - clf.train_error_ / len(y))
    X2, y2 = make_data(n=40, seed=10)
    assert clf.score(X2, y2) == pytest.approx(np.mean(clf.predict(X2) == y2))


def test_fitted_attributes():
    X, y = make_data(n=50, seed=11)
    clf = OptimalTreeClassifier(max_depth=2)
    assert clf.fit(X, y) is clf
    assert isinstance(clf.tree_, Tree)
    assert isinstance(clf.fit_time_, float) and clf.fit_time_ >= 0
    assert set(clf.stats_) >= {"subproblems", "d2_calls", "cache_hits"}
    assert all(int(v) >= 0 for k, v in clf.stats_.items()
               if k in ("subproblems", "d2_calls", "cache_hits"))
    assert clf.lower_bound_ <= clf.objective_ + 1e-9
    assert clf.is_optimal_
    assert clf.objective_ == clf.train_error_
    assert float(clf.train_error_).is_integer()
    check_tree_invariants(clf, X, y, max_depth=2)


def test_small_exact_case_against_oracle():
    X, y = make_data(n=12, p=2, seed=12)
    for depth in range(4):
        clf = OptimalTreeClassifier(max_depth=depth).fit(X, y)
        assert clf.objective_ == brute_force_objective(X, y, depth)


@pytest.mark.parametrize("method", ["predict", "predict_proba", "apply"])
def test_unfitted_estimator_raises_not_fitted(method):
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        getattr(OptimalTreeClassifier(), method)([[0.0]])


def test_unfitted_score_raises_not_fitted():
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        OptimalTreeClassifier().score([[0.0]], [0])


# ---------------------------------------------------------------------------
# serialisation
# ---------------------------------------------------------------------------

def test_json_and_dict_round_trip():
    rng = np.random.default_rng(13)
    X = rng.random((120, 4))  # full-precision thresholds
    y = (X[:, 0] + X[:, 1] ** 2 > 0.8).astype(int) + (X[:, 3] > 0.7)
    clf = OptimalTreeClassifier(max_depth=3).fit(X, y)
    tree = clf.tree_
    s = tree.to_json()
    X_new = rng.random((500, 4)) * 1.2 - 0.1
    X_all = np.vstack([X, X_new])
    for restored in (Tree.from_json(s), Tree.from_dict(tree.to_dict()),
                     Tree.from_dict(json.loads(json.dumps(tree.to_dict())))):
        assert isinstance(restored, Tree)
        assert restored.node_count == tree.node_count
        assert np.array_equal(restored.feature, tree.feature)
        assert np.array_equal(restored.threshold, tree.threshold)  # bit-exact
        assert np.array_equal(restored.children_left, tree.children_left)
        assert np.array_equal(restored.children_right, tree.children_right)
        assert np.array_equal(np.asarray(restored.value), np.asarray(tree.value))
        assert np.array_equal(restored.apply(X_all), tree.apply(X_all))
        assert np.array_equal(restored.predict(X_all), tree.predict(X_all))
    # exact threshold values from the data must also route identically
    thresholds = tree.threshold[tree.feature >= 0]
    X_edge = np.tile(thresholds[:, None], (1, 4))
    assert np.array_equal(Tree.from_json(s).apply(X_edge), tree.apply(X_edge))


def test_estimator_with_restored_tree_predicts_identically():
    import copy
    X, y = make_data(n=60, seed=14)
    y = np.array(["n", "p", "q"])[y]
    clf = OptimalTreeClassifier(max_depth=2).fit(X, y)
    other = copy.deepcopy(clf)
    other.tree_ = Tree.from_json(clf.tree_.to_json())
    assert np.array_equal(other.predict(X), clf.predict(X))
    assert np.allclose(other.predict_proba(X), clf.predict_proba(X))


def test_pickle_round_trip():
    import pickle
    X, y = make_data(n=40, seed=15)
    clf = OptimalTreeClassifier(max_depth=2).fit(X, y)
    clone = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(clone.predict(X), clf.predict(X))


# ---------------------------------------------------------------------------
# scikit-learn compliance
# ---------------------------------------------------------------------------

def test_is_classifier():
    from sklearn.base import is_classifier
    assert is_classifier(OptimalTreeClassifier())


def test_get_set_params_and_clone():
    from sklearn.base import clone
    clf = OptimalTreeClassifier(max_depth=4, complexity_cost=0.01, min_samples_leaf=3)
    params = clf.get_params()
    for key in ("max_depth", "time_limit", "max_gap", "complexity_cost",
                "min_samples_leaf", "memory_limit"):
        assert key in params
    assert params["max_depth"] == 4 and params["min_samples_leaf"] == 3
    c = clone(clf)
    assert c.get_params() == params
    c.set_params(max_depth=1)
    assert c.max_depth == 1 and clf.max_depth == 4


def test_works_in_pipeline_and_cross_validation():
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    X, y = make_data(n=90, seed=16)
    pipe = make_pipeline(StandardScaler(), OptimalTreeClassifier(max_depth=2))
    scores = cross_val_score(pipe, X, y, cv=3)
    # each fold's score is that fold's held-out accuracy of the pipeline
    # fitted on the rest; scaling keeps every column's order, so the tree
    # makes as many training errors as on the raw columns (its thresholds,
    # the shortest decimals between training values, may differ in between)
    from sklearn.model_selection import StratifiedKFold
    for score, (train, test) in zip(scores, StratifiedKFold(3).split(X, y)):
        fitted = pipe.fit(X[train], y[train])
        assert score == pytest.approx(np.mean(fitted.predict(X[test]) == y[test]))
        tree = OptimalTreeClassifier(max_depth=2).fit(X[train], y[train])
        assert fitted[-1].train_error_ == tree.train_error_


# Checks from scikit-learn's estimator suite that are deliberately expected
# to fail, each with the reason.  Keep this list as short as possible: every
# entry documents a real departure from scikit-learn conventions.
EXPECTED_FAILED_CHECKS = {
    # class_weight {0: 1000, 1: 0.0001} on noisy blobs: the exact optimum fills
    # every region without a class-0 training row with class-1 leaves (they
    # cost nothing), and the check wants > 87 % of test rows predicted 0.  It
    # expects a greedy tree held back by min_weight_fraction_leaf=0.01, which
    # OptimalTreeClassifier has no equivalent of (scikit-learn's own tree
    # without it scores 78-80 % here, our optimum 74-76 %).
    "check_class_weight_classifiers": "the exact optimum under extreme class weights; see above",
}


def _expected_failed_checks(estimator):
    return EXPECTED_FAILED_CHECKS


from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402


@parametrize_with_checks([OptimalTreeClassifier(max_depth=2),
                          # a small skeleton and short limits keep the 55 checks near a minute
                          DecisionDiagramClassifier((1, 2), time_limit=1, heuristic_time=0.0),
                          # the checks' noisy data needs depth 5-6 (SAT: ~20 s); at the 1 s
                          # limit the greedy tree answers, far from a race with the search
                          SATTreeClassifier(time_limit=1)],
                         expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


# ---------------------------------------------------------------------------
# one fit summary for every estimator; parameters validated by scikit-learn
# ---------------------------------------------------------------------------

from sklearn.utils._param_validation import InvalidParameterError  # noqa: E402

from optimaltrees import FitSummary, SATTreeClassifier  # noqa: E402
from optimaltrees.model.summary import relative_gap  # noqa: E402


def _summary_agrees_with_attributes(clf, method):
    s = clf.summary_
    assert isinstance(s, FitSummary) and s.method == method
    assert s.proven == clf.is_optimal_ and s.gap == clf.gap_
    assert s.timed_out == clf.timed_out_ and s.interrupted == clf.interrupted_
    assert s.fit_seconds == clf.fit_time_ and s.fit_seconds > 0
    assert s.lower_bound <= s.objective
    assert s.gap == pytest.approx(relative_gap(s.objective, s.lower_bound))
    return s


def test_summary_after_proven_fits():
    X, y = make_data()
    tree = OptimalTreeClassifier(max_depth=2).fit(X, y)
    s = _summary_agrees_with_attributes(tree, "tree")
    assert s.proven and s.gap == 0.0 and s.objective == s.lower_bound == tree.train_error_ > 0
    assert not (s.timed_out or s.interrupted or s.memory_out or s.stopped)
    assert s.status == "proven optimal" and s.objective_name == "training errors"
    costly = OptimalTreeClassifier(max_depth=2, complexity_cost=0.01).fit(X, y).summary_
    assert costly.objective_name == "training errors + node cost" and costly.gap == 0.0

    rng = np.random.default_rng(1)
    Xd = rng.integers(0, 4, size=(40, 3)).astype(float)
    yd = np.where(Xd[:, 0] + Xd[:, 1] > 3, "hi", "lo")
    diagram = DecisionDiagramClassifier((1, 2), time_limit=20, random_state=0).fit(Xd, yd)
    s = _summary_agrees_with_attributes(diagram, "diagram")
    assert s.proven and s.gap == 0.0 and s.objective == diagram.objective_ == diagram.lower_bound_
    assert s.status == "proven optimal"

    Xs = X[:30]
    ys = (Xs[:, 0] > 5).astype(int) ^ (Xs[:, 1] > 3).astype(int)
    for objective, value in [("depth", "depth_"), ("size", "n_nodes_")]:
        sat = SATTreeClassifier(objective).fit(Xs, ys)
        s = _summary_agrees_with_attributes(sat, "sat")
        assert s.proven and s.gap == 0.0 and s.objective == s.lower_bound == getattr(sat, value)
    sat = SATTreeClassifier("errors", max_depth=1).fit(X, y)
    s = _summary_agrees_with_attributes(sat, "sat")
    assert s.proven and s.gap == 0.0 and s.objective == sat.train_error_ > 0


def test_tree_gap_is_relative_after_a_timed_out_fit_on_real_data():
    from conftest import load_continuous

    # page, 4378 rows, depth 4: the bound is 7 errors within 0.5 s, no proof within minutes
    # (depth 3 is proven in 0.8 s on a quiet machine: the test passed or failed with the load)
    X, y = load_continuous("page")
    clf = OptimalTreeClassifier(max_depth=4, time_limit=1.0, search="blossom").fit(X, y)
    s = _summary_agrees_with_attributes(clf, "tree")
    assert s.timed_out and not s.proven and "time limit" in s.status
    assert 0 < s.lower_bound < s.objective == clf.train_error_
    assert s.gap == pytest.approx((clf.objective_ - clf.lower_bound_) / clf.objective_)
    assert 0 < clf.gap_ < 1            # a fraction: the absolute gap (about 120 errors) it used to be is > 1
    assert clf.objective_ - clf.lower_bound_ > 1


def test_diagram_summary_after_a_timed_out_fit():
    X, y = make_data(n=80, p=4, k=2, seed=3)
    clf = DecisionDiagramClassifier((1, 2, 4), time_limit=0.3, random_state=0).fit(X, y)
    s = _summary_agrees_with_attributes(clf, "diagram")
    assert s.timed_out and not s.proven and 0 < s.gap <= 1
    assert "time limit" in s.status


def test_sat_summary_when_the_size_search_times_out(monkeypatch):
    """The search stops after the depth is proven, before the size is: the
    summary counts nodes against the proven bound of 2 * leaves - 1."""
    import optimaltrees.estimators.sat as sat_module
    from optimaltrees.search.sat import infer

    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    y = np.array([0, 1, 1, 0])

    def stopped_early(fn, kwargs, remaining, on_report):
        result = infer(**kwargs["search"])       # depth 2, 4 leaves (7 nodes), proven
        result.size_optimal, result.leaves_lower_bound = False, 3
        on_report(result)                        # the search's last report, then the limit
        return None, True, None

    monkeypatch.setattr(sat_module, "run_limited", stopped_early)
    with pytest.warns(UserWarning, match="time_limit=5 s reached"):
        clf = SATTreeClassifier("size", time_limit=5).fit(X, y)
    s = _summary_agrees_with_attributes(clf, "sat")
    assert s.timed_out and not s.proven
    assert (s.objective, s.lower_bound) == (7.0, 5.0)
    assert s.gap == pytest.approx(2 / 7) and s.objective_name == "nodes at the minimum depth"


def test_relative_gap():
    assert relative_gap(10, 10) == 0.0 and relative_gap(0, 0) == 0.0
    assert relative_gap(622 + 100, 100) == pytest.approx(622 / 722)
    assert relative_gap(10, 0) == 1.0
    assert np.isnan(relative_gap(float("nan"), 0))


@pytest.mark.parametrize("estimator", [OptimalTreeClassifier(max_depth=2),
                                       DecisionDiagramClassifier((1, 2), time_limit=1, heuristic_time=0.0),
                                       SATTreeClassifier()],
                         ids=lambda e: type(e).__name__)
def test_every_parameter_is_validated_by_scikit_learn(estimator):
    """scikit-learn's own check: each parameter has a constraint, and a value
    of a wrong type or out of range raises an error that names it."""
    from sklearn.utils.estimator_checks import check_param_validation

    check_param_validation(type(estimator).__name__, estimator)


@pytest.mark.parametrize("estimator, params", [
    (OptimalTreeClassifier, dict(max_depth=True)),
    (OptimalTreeClassifier, dict(time_limit=float("inf"))),
    (OptimalTreeClassifier, dict(n_jobs=0)),
    (OptimalTreeClassifier, dict(memory_limit=np.nan)),
    (DecisionDiagramClassifier, dict(tree=1)),
    (DecisionDiagramClassifier, dict(epsilon=0.5)),
    (DecisionDiagramClassifier, dict(threads=True)),
    (SATTreeClassifier, dict(examples_per_round=False)),
])
def test_bad_parameters_name_themselves(estimator, params):
    X, y = make_data(n=20, k=2)
    (name, value), = params.items()
    with pytest.raises(InvalidParameterError, match=rf"The '{name}' parameter of {estimator.__name__} must be"):
        estimator(**params).fit(X, y)


def test_cross_parameter_checks_remain():
    X, y = make_data(n=20, k=2)
    with pytest.raises(ValueError, match="objective='errors' needs max_depth"):
        SATTreeClassifier("errors").fit(X, y)
    with pytest.raises(ValueError, match="unknown SAT solver 'nosuch'"):
        SATTreeClassifier(solver="nosuch").fit(X, y)
