"""Invalid inputs and parameters raise ValueError/TypeError with a message
that names the problem."""
import numpy as np
import pytest

from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier  # noqa: E402

X_OK = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
Y_OK = np.array([0, 0, 1, 1])
ERRORS = (ValueError, TypeError)
#: the three estimators, small (input checks come before any search)
EVERY_ESTIMATOR = [
    lambda: OptimalTreeClassifier(max_depth=1),
    lambda: SATTreeClassifier(),
    lambda: DecisionDiagramClassifier((1, 2), time_limit=5),
]
ESTIMATOR_IDS = ["tree", "sat", "diagram"]


def test_sanity_valid_input_fits():
    # guards against every test below passing because fit always raises
    OptimalTreeClassifier(max_depth=2).fit(X_OK, Y_OK)


@pytest.mark.parametrize("bad", [np.nan, float("nan")])
def test_nan_in_X_is_a_missing_value(bad):
    # the tree search takes it as data (tests/estimators/test_missing_values.py);
    # the SAT and diagram estimators still refuse it by name
    X = X_OK.copy()
    X[2, 1] = bad
    assert OptimalTreeClassifier().fit(X, Y_OK).is_optimal_
    with pytest.raises(ValueError, match=r"(?i)nan"):
        SATTreeClassifier().fit(X, Y_OK)


@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_inf_in_X(bad):
    X = X_OK.copy()
    X[0, 0] = bad
    with pytest.raises(ValueError, match=r"(?i)inf"):
        OptimalTreeClassifier().fit(X, Y_OK)


def _complex_inputs():
    """X with one complex value (imaginary part non-zero) in the forms users pass."""
    import pandas as pd

    X = X_OK.astype(complex)
    X[1, 0] = 1 + 2j
    frame = pd.DataFrame({"a": X[:, 0], "b": X_OK[:, 1]})
    mixed = pd.DataFrame({"a": np.array([0.0, 1 + 2j, 2.0, 3.0], dtype=object), "b": X_OK[:, 1]})
    return [X, X.tolist(), frame, mixed]


@pytest.mark.parametrize("make", EVERY_ESTIMATOR, ids=ESTIMATOR_IDS)
@pytest.mark.parametrize("which", range(4))
def test_complex_X_is_refused_not_cast(make, which):
    """A complex value is refused by name, at fit and predict; casting it
    would keep the real part and drop the imaginary one without a word
    (SATTreeClassifier's fit did)."""
    import warnings

    X = _complex_inputs()[which]
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # nor cast first with a ComplexWarning
        with pytest.raises(ValueError, match="Complex data not supported"):
            make().fit(X, Y_OK)
    clf = make().fit(X_OK, Y_OK)
    with pytest.raises(ValueError, match="Complex data not supported"):
        clf.predict(X)


def _time_inputs():
    """Dates and durations in the forms users pass."""
    import pandas as pd

    days = pd.to_datetime(["2020-01-01", "2020-02-01", "2020-03-01", "2020-04-01"])
    return [
        (pd.DataFrame({"when": days, "b": X_OK[:, 1]}), "column 'when' holds dates"),
        (pd.DataFrame({"when": days.tz_localize("UTC"), "b": X_OK[:, 1]}), "column 'when' holds dates"),
        (pd.DataFrame({"took": pd.to_timedelta([1, 2, 3, 4], unit="D"), "b": X_OK[:, 1]}),
         "column 'took' holds durations"),
        (np.array(days.values, dtype="datetime64[D]").reshape(-1, 1), "X holds dates"),
        (np.arange(4).astype("timedelta64[D]").reshape(-1, 1), "X holds durations"),
    ]


@pytest.mark.parametrize("make", EVERY_ESTIMATOR, ids=ESTIMATOR_IDS)
@pytest.mark.parametrize("which", range(5))
def test_dates_and_durations_are_refused_by_name(make, which):
    """Whether a date is an ordered number or a category is the user's
    choice: the estimators refuse dates and durations with the column's
    name (they used to differ: categories for SAT, a numpy promotion error
    or a cast to days for the others), at fit and at predict."""
    X, message = _time_inputs()[which]
    with pytest.raises(TypeError, match=message):
        make().fit(X, Y_OK)
    if hasattr(X, "columns"):
        clf = make().fit(X.assign(**{X.columns[0]: np.arange(4.0)}), Y_OK)
        with pytest.raises(TypeError, match=message):
            clf.predict(X)


def test_nan_in_X_at_predict_time():
    clf = OptimalTreeClassifier(max_depth=1).fit(X_OK, Y_OK)
    X = X_OK.copy()
    X[1, 0] = np.nan
    assert clf.predict(X).shape == (4,)       # to the larger child


def test_missing_values_in_dataframe():
    import pandas as pd
    df = pd.DataFrame({"a": [1.0, None, 3.0, 4.0], "b": [0.0, 1.0, 0.0, 1.0]})
    assert OptimalTreeClassifier().fit(df, Y_OK).is_optimal_
    with pytest.raises(ValueError, match=r"(?i)nan"):
        SATTreeClassifier().fit(df, Y_OK)


def test_string_X():
    # text columns are categories (categorical_features="from_dtype"); with
    # categorical_features=None every column must be numeric
    X = np.array([["a", "b"], ["c", "d"], ["e", "f"], ["g", "h"]])
    assert "x[0] == " in OptimalTreeClassifier().fit(X, Y_OK).export_text()
    with pytest.raises(ERRORS, match=r"(?i)string|numeric|float|convert|dtype"):
        OptimalTreeClassifier(categorical_features=None).fit(X, Y_OK)


def test_string_column_in_dataframe():
    import pandas as pd
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": ["x", "y", "x", "y"]})
    assert OptimalTreeClassifier().fit(df, Y_OK).encoder_ is not None
    with pytest.raises(ERRORS, match=r"(?i)string|numeric|float|convert|dtype"):
        OptimalTreeClassifier(categorical_features=None).fit(df, Y_OK)


def test_empty_X():
    with pytest.raises(ValueError, match=r"(?i)empty|0 sample|sample|minimum"):
        OptimalTreeClassifier().fit(np.empty((0, 2)), np.empty(0))


@pytest.mark.parametrize("make", EVERY_ESTIMATOR, ids=ESTIMATOR_IDS)
def test_X_without_features(make):
    """An array or a DataFrame with no column: every estimator says so
    (a DataFrame used to reach numpy's 'at least one array or dtype is required')."""
    import pandas as pd

    for X in (np.empty((4, 0)), pd.DataFrame(index=range(4))):
        with pytest.raises(ValueError, match=r"0 feature\(s\)"):
            make().fit(X, Y_OK)


def test_1d_X():
    with pytest.raises(ValueError, match=r"(?i)2D|2-D|two-dim|1D|1-D|reshape|dimension"):
        OptimalTreeClassifier().fit(np.array([0.0, 1.0, 2.0, 3.0]), Y_OK)


def test_3d_X():
    with pytest.raises(ValueError, match=r"(?i)dim|2D|2-D"):
        OptimalTreeClassifier().fit(np.zeros((4, 2, 2)), Y_OK)


@pytest.mark.parametrize("n_y", [3, 5])
def test_inconsistent_lengths(n_y):
    with pytest.raises(ValueError, match=r"(?i)inconsistent|length|number of (samples|rows)|len"):
        OptimalTreeClassifier().fit(X_OK, np.zeros(n_y, dtype=int))


def test_nan_in_y():
    with pytest.raises(ValueError, match=r"(?i)nan"):
        OptimalTreeClassifier().fit(X_OK, np.array([0.0, np.nan, 1.0, 1.0]))


def test_2d_y_is_rejected_or_raveled():
    # a column vector y is accepted by sklearn with a warning; a genuinely
    # multi-output y must be rejected
    with pytest.raises(ValueError):
        OptimalTreeClassifier().fit(X_OK, np.zeros((4, 2), dtype=int))


@pytest.mark.parametrize("depth", [-1, -5])
def test_negative_max_depth(depth):
    with pytest.raises(ValueError, match=r"(?i)depth"):
        OptimalTreeClassifier(max_depth=depth).fit(X_OK, Y_OK)


@pytest.mark.parametrize("depth", [2.5, "3"])
def test_non_integer_max_depth(depth):
    with pytest.raises(ERRORS, match=r"(?i)depth"):
        OptimalTreeClassifier(max_depth=depth).fit(X_OK, Y_OK)


def test_numpy_integer_max_depth_is_fine():
    clf = OptimalTreeClassifier(max_depth=np.int64(2)).fit(X_OK, Y_OK)
    assert clf.train_error_ == 0


@pytest.mark.parametrize("limit", [0, 0.0, -1, -0.5])
def test_non_positive_time_limit(limit):
    with pytest.raises(ValueError, match=r"time_limit"):
        OptimalTreeClassifier(time_limit=limit).fit(X_OK, Y_OK)


def test_non_numeric_time_limit():
    with pytest.raises(ERRORS, match=r"time_limit"):
        OptimalTreeClassifier(time_limit="10").fit(X_OK, Y_OK)


@pytest.mark.parametrize("gap", [-0.1, 1.5])
def test_bad_max_gap(gap):
    with pytest.raises(ValueError, match=r"max_gap"):
        OptimalTreeClassifier(max_gap=gap).fit(X_OK, Y_OK)


def test_negative_complexity_cost():
    with pytest.raises(ValueError, match=r"complexity_cost"):
        OptimalTreeClassifier(complexity_cost=-0.1).fit(X_OK, Y_OK)


@pytest.mark.parametrize("msl", [0, -1, 1.5])
def test_bad_min_samples_leaf(msl):
    with pytest.raises(ERRORS, match=r"min_samples_leaf"):
        OptimalTreeClassifier(min_samples_leaf=msl).fit(X_OK, Y_OK)


@pytest.mark.parametrize("method", ["predict", "predict_proba", "apply"])
@pytest.mark.parametrize("n_features", [1, 3])
def test_predict_with_wrong_number_of_features(method, n_features):
    clf = OptimalTreeClassifier(max_depth=2).fit(X_OK, Y_OK)
    X = np.zeros((3, n_features))
    with pytest.raises(ValueError, match=r"(?i)feature"):
        getattr(clf, method)(X)


def test_score_with_wrong_number_of_features():
    clf = OptimalTreeClassifier(max_depth=2).fit(X_OK, Y_OK)
    with pytest.raises(ValueError, match=r"(?i)feature"):
        clf.score(np.zeros((4, 3)), Y_OK)


@pytest.mark.parametrize("y", [[1, "1", 1, "1"], np.array([0, "0", 1, "1"], dtype=object),
                               ["a", 2, "a", 2]])
def test_text_mixed_with_numbers_in_y(y):
    # numpy would make every label text: 1 and '1' silently one class
    with pytest.raises(ValueError, match="mixes text and non-text labels"):
        OptimalTreeClassifier().fit(X_OK, y)


@pytest.mark.parametrize("y", [[1, None, 0, 1], ["a", "b", float("nan"), "a"],
                               np.array([1, None, 0, 1], dtype=object)])
def test_missing_labels_in_y(y):
    with pytest.raises(ValueError, match=r"missing label.*row\(s\) \[[12]\]"):
        OptimalTreeClassifier().fit(X_OK, y)


def test_huge_min_samples_leaf_allows_only_the_root_leaf():
    clf = OptimalTreeClassifier(max_depth=2, min_samples_leaf=10**12).fit(X_OK, Y_OK)
    assert clf.tree_.node_count == 1 and clf.is_optimal_


def test_huge_memory_limit_means_no_limit():
    clf = OptimalTreeClassifier(max_depth=2, memory_limit=1e300).fit(X_OK, Y_OK)
    assert clf.is_optimal_ and clf.train_error_ == 0


# ------------------------------------------------------------------ found by a hostile review

BIG = 1_700_000_000_000_000_000      # a nanosecond timestamp: neighbours are equal as float64


@pytest.mark.parametrize("make", EVERY_ESTIMATOR[:1] + EVERY_ESTIMATOR[2:], ids=["tree", "diagram"])
@pytest.mark.parametrize("form", ["array", "list", "frame", "frame+text", "nullable"])
def test_integers_that_float64_would_merge_are_refused(make, form):
    """Merged as floats, t, t+1, t+2, t+3 made a 'proven optimal' stump with 2 errors (0 exist)."""
    import pandas as pd
    col = np.array([BIG, BIG + 1, BIG + 2, BIG + 3], dtype=np.int64)
    X = {"array": col[:, None], "list": col[:, None].tolist(),
         "frame": pd.DataFrame({"ts": col}),
         "frame+text": pd.DataFrame({"ts": col, "k": list("abab")}),
         "nullable": pd.DataFrame({"ts": pd.array([BIG, BIG + 1, None, BIG + 3], dtype="Int64")})}[form]
    with pytest.raises(ValueError, match="integers beyond \\+-2\\^53 that are equal as float64"):
        make().fit(X, [0, 0, 1, 1])


def test_large_integers_float64_keeps_apart_still_fit():
    X = np.array([[2 ** 60], [2 ** 60 + 2 ** 10], [2 ** 61], [2 ** 62]], dtype=np.int64)
    model = OptimalTreeClassifier(max_depth=1).fit(X, [0, 0, 1, 1])
    assert model.train_error_ == 0 and model.is_optimal_


def test_pandas_na_in_an_object_array_is_a_missing_value():
    import pandas as pd
    frame = pd.DataFrame({"a": pd.array([1, None, 3, 4], dtype="Int64"), "b": [0.5, 1.5, 2.5, 3.5]})
    X = frame.to_numpy()                       # object array holding pd.NA
    model = OptimalTreeClassifier(max_depth=1).fit(X, [0, 0, 1, 1])
    assert model.train_error_ == 0
    assert model.predict(np.array([[pd.NA, 3.0]], dtype=object)).shape == (1,)
    with pytest.raises(ValueError, match="NaN"):     # where missing values are not supported: said so
        DecisionDiagramClassifier((1, 2)).fit(X, [0, 0, 1, 1])


@pytest.mark.parametrize("tz", [None, "UTC"])
@pytest.mark.parametrize("make", EVERY_ESTIMATOR, ids=ESTIMATOR_IDS)
def test_missing_date_label_is_refused(make, tz):
    import pandas as pd
    y = pd.Series(pd.to_datetime(["2020-01-01", None, "2021-01-01", "2021-01-01"]))
    if tz:
        y = y.dt.tz_localize(tz)
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    with pytest.raises(ValueError, match=r"missing label\(s\) \(NaT\), at row\(s\) \[1\]"):
        make().fit(X, y)
    with pytest.raises(ValueError, match="NaT"):
        make().fit(X, y.to_numpy())


def test_callback_returning_numpy_false_stops():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = ((X[:, 0] + X[:, 1] * X[:, 2] > 0) ^ (rng.random(300) < 0.1)).astype(int)
    calls = []

    def stop(progress):
        calls.append(progress)
        return np.float64(progress.objective) > 1e9          # np.False_
    model = OptimalTreeClassifier(max_depth=3, callback=stop).fit(X, y)
    assert model.stopped_ and len(calls) == 1
    model = OptimalTreeClassifier(max_depth=2, callback=lambda p: None).fit(X, y)
    assert not model.stopped_ and model.is_optimal_


@pytest.mark.parametrize("groups, match", [([None, None, "b", "b"], "missing .* at row\\(s\\) \\[0, 1\\]"),
                                           (np.array([1, "a", 1, "a"], dtype=object), "cannot be ordered"),
                                           ([np.nan, 1.0, 1.0, 2.0], "missing .* at row\\(s\\) \\[0\\]")])
def test_sensitive_groups_missing_or_mixed_are_named(groups, match):
    with pytest.raises(ValueError, match=match):
        DecisionDiagramClassifier((1, 2), fairness_ratio=0.8, time_limit=5).fit(X_OK, Y_OK, sensitive=groups)


def test_fraction_categories_are_not_saved_inexactly():
    """Saved as floats, 1/3 no longer equalled the data's value: predictions changed after loading."""
    import fractions

    import pandas as pd

    from optimaltrees.io import model_to_dict
    X = pd.DataFrame({"a": [fractions.Fraction(1, 3), fractions.Fraction(2, 3), 1, 2]})
    model = OptimalTreeClassifier(max_depth=1).fit(X, [0, 1, 1, 1])
    with pytest.raises(TypeError, match="cannot store a Fraction exactly"):
        model_to_dict(model)


@pytest.mark.parametrize("fill", [0.0, np.nan])
@pytest.mark.parametrize("make", EVERY_ESTIMATOR, ids=ESTIMATOR_IDS)
def test_sparse_dataframe_columns_are_read_densely(make, fill):
    """A sparse column with a NaN fill value failed in pandas' COO conversion."""
    import warnings

    import pandas as pd
    X = pd.DataFrame({"a": pd.arrays.SparseArray([0.0, 1.0, 0.0, 2.0], fill_value=fill), "b": [1.0, 2, 3, 4]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # nor scikit-learn's "sparse columns found" warning
        model = make().fit(X, [0, 1, 0, 1])
        assert (model.predict(X) == [0, 1, 0, 1]).all()
        assert (model.predict(X[["a"]].sparse.to_dense().assign(b=X["b"])) == [0, 1, 0, 1]).all()


@pytest.mark.parametrize("make", EVERY_ESTIMATOR[:1] + EVERY_ESTIMATOR[2:], ids=["tree", "diagram"])
def test_an_encoding_too_large_is_refused_before_it_is_built(make, monkeypatch):
    """300,000 rows x 100,000 categories would have been a 30-billion-cell matrix."""
    import pandas as pd

    import optimaltrees.data.binarize as binarize
    monkeypatch.setattr(binarize, "MAX_ENCODED_CELLS", 100)
    X = pd.DataFrame({"id": [f"r{i}" for i in range(20)], "a": np.arange(20.0)})
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match="20 rows x 21 tests .*column .id. alone makes 20 tests"):
        make().fit(X, y)
    model = make().fit(X[["a"]].assign(k=list("ab") * 10), y)       # 20 rows x 2-3 tests: fine
    assert model.predict(X[["a"]].assign(k=list("ab") * 10)).shape == (20,)


def test_a_numeric_encoding_too_large_names_its_thresholds(monkeypatch):
    """SAT's tests of a numeric column are thresholds, not categories: the
    refusal says to round or bin it."""
    import optimaltrees.data.binarize as binarize
    from optimaltrees import SATTreeClassifier
    monkeypatch.setattr(binarize, "MAX_ENCODED_CELLS", 100)
    X = np.column_stack([np.arange(20.0) / 7, np.arange(20) % 3])
    with pytest.raises(ValueError, match=r"SATTreeClassifier: .*column 'x\[0\]' alone makes 19 tests "
                                         r"\(one per threshold between its distinct values\): round or bin"):
        SATTreeClassifier(time_limit=5).fit(X, np.arange(20) % 2)


def test_sat_thresholds_between_values_near_the_float_limit_raise_no_warning():
    # the midpoint of two values beyond 8.9e307 overflows; the threshold is
    # then the lower value itself, exact, and numpy's warning stays inside
    import warnings
    from optimaltrees import SATTreeClassifier
    X = np.array([[1.7e308], [1.79e308], [-1.7e308], [-1.79e308], [0.0]])
    y = np.array([0, 1, 0, 1, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = SATTreeClassifier(time_limit=10).fit(X, y)
    assert model.train_error_ == 0 and (model.predict(X) == y).all()
