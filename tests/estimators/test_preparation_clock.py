"""The time limit and Ctrl-C hold while the data is prepared, not only
while the search runs: encoding categorical columns (the tree's one-hot
tests) and the SAT estimator's reduction (distinct rows, kept tests, chains,
ordinal columns) call a checkpoint between blocks of work.

The checkpoints are tested deterministically: a stand-in clock that runs out
at its k-th call, for every k a fit reaches, must give the flagged majority
leaf, a model that predicts, whichever step it stops.  The block-wise
encoding itself is checked against a cell-by-cell reference."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from optimaltrees import OptimalTreeClassifier, SATTreeClassifier
from optimaltrees.data import binarize, validation
from optimaltrees.data.binarize import Binarizer
from optimaltrees.data.validation import PreparationTimeout, is_missing
from optimaltrees.estimators import _base as fit_module      # the classifier's preparation clock
from optimaltrees.estimators import sat as sat_module
from optimaltrees.io import load_model, save_model
from optimaltrees.search.sat import prepare
from optimaltrees.search.sat.exact import OrdinalTests
from optimaltrees.search.sat.exact import test_chains as chains_of


def _reference(binarizer: Binarizer, cols: list[list]) -> np.ndarray:
    """Every test on every cell, one at a time (NaN: a missing cell of a
    categorical column with missing values kept)."""
    keep = binarizer.keep_numeric
    n = len(cols[0])
    out = np.zeros((n, binarizer.n_tests_))
    for j, t in enumerate(binarizer.tests_):
        for i in range(n):
            v = cols[t.column][i]
            if t.kind == "value":
                out[i, j] = np.nan if is_missing(v) else float(v)
            elif is_missing(v):
                out[i, j] = np.nan if keep else 0.0
            elif t.kind == "threshold":
                out[i, j] = float(v > t.value)
            elif t.kind == "in":
                out[i, j] = float(v in t.value)
            else:
                out[i, j] = float(v == t.value)
    return out


def _mixed_frame(seed: int, n: int, missing: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "grey", "teal"], n).astype(object)
    size = rng.choice(["S", "M", "L"], n).astype(object)
    if missing:
        colour[rng.random(n) < 0.2] = None
        size[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame({"x": np.round(rng.normal(size=n), 1), "colour": colour,
                         "n": rng.integers(0, 6, n), "size": size})


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("keep, subsets, missing", [(False, False, False), (True, False, True),
                                                    (True, True, True), (False, True, False)])
@pytest.mark.parametrize("block_cells", [1, 7, 2 ** 22])
def test_block_wise_encoding_matches_a_cell_by_cell_reference(monkeypatch, seed, keep, subsets,
                                                              missing, block_cells):
    # blocks of one row, a few rows and the whole table give the same matrix
    monkeypatch.setattr(binarize, "CHECK_CELLS", block_cells)
    df = _mixed_frame(seed, 40, missing)
    b = Binarizer(["colour", "size"], keep_numeric=keep, subsets=subsets).fit(df)
    got = b.transform(df)
    assert got.dtype == (np.float64 if keep else np.uint8)
    want = _reference(b, [df[c].tolist() for c in df.columns])
    np.testing.assert_array_equal(got.astype(np.float64), want)


def test_encoding_calls_its_checkpoint_per_block_and_stops_when_it_raises(monkeypatch):
    monkeypatch.setattr(binarize, "CHECK_CELLS", 64)
    df = _mixed_frame(0, 500, missing=True)
    b = Binarizer(["colour", "size"], keep_numeric=True).fit(df)
    calls = []
    b.transform(df, checkpoint=lambda: calls.append(1))
    # per column (and kind of test), one, then one per block of rows of the
    # output (64 cells: 64 // n_tests rows)
    blocks = -(-500 // max(1, 64 // b.n_tests_))
    groups = len(list(b._column_tests()))
    assert groups == b.n_features_in_ and len(calls) == groups * (1 + blocks)

    class Stop(Exception):
        pass

    def stop_at_third():
        calls.append(1)
        if len(calls) == 3:
            raise Stop
    calls.clear()
    with pytest.raises(Stop):
        b.transform(df, checkpoint=stop_at_third)


def test_blockwise_finiteness_check_keeps_its_answers(monkeypatch):
    monkeypatch.setattr(validation, "CHECK_CELLS", 6)
    X = np.zeros((50, 3))
    tick = []
    assert validation._fast_matrix(X, "E", checkpoint=lambda: tick.append(1)) is not None
    assert len(tick) == 25                                    # blocks of 2 rows
    X[47, 2] = np.nan
    assert np.isnan(validation._fast_matrix(X, "E", allow_nan=True, checkpoint=lambda: None)[47, 2])
    with pytest.raises(ValueError, match="contains NaN"):
        validation._fast_matrix(X, "E", checkpoint=lambda: None)
    X[49, 0] = np.inf                                         # in the last block, after the NaN
    with pytest.raises(ValueError, match="infinity"):
        validation._fast_matrix(X, "E", allow_nan=True, checkpoint=lambda: None)


class _Clock:
    """A checkpoint factory whose clock runs out at its k-th call (counted
    over every checkpoint it made), raising ``error``."""

    def __init__(self, k: int | None, error) -> None:
        self.k, self.error, self.calls = k, error, 0

    def __call__(self, *args):
        def checkpoint() -> None:
            self.calls += 1
            if self.k is not None and self.calls >= self.k:
                raise self.error
        return checkpoint


def _count_calls(monkeypatch, module, name, fit) -> int:
    clock = _Clock(None, None)
    monkeypatch.setattr(module, name, clock)
    fit()
    return clock.calls


def test_tree_stopped_while_encoding_returns_the_flagged_majority_leaf(monkeypatch, tmp_path):
    df = _mixed_frame(1, 300, missing=True)
    y = (df["x"] > 0).astype(int).to_numpy()
    monkeypatch.setattr(binarize, "CHECK_CELLS", 256)

    def fit():
        return OptimalTreeClassifier(max_depth=2, time_limit=60,
                                     categorical_features=["colour", "size"]).fit(df, y)
    full = fit()
    n_calls = _count_calls(monkeypatch, fit_module, "preparation_clock", fit)
    assert n_calls > 5                      # columns, encoding blocks, finiteness blocks
    for k in range(1, n_calls + 1):
        monkeypatch.setattr(fit_module, "preparation_clock",
                            _Clock(k, PreparationTimeout()))
        with pytest.warns(UserWarning, match="time_limit=60 s reached"):
            clf = fit()
        assert clf.timed_out_ and not clf.is_optimal_ and not clf.interrupted_
        assert clf.tree_.node_count == 1 and clf.lower_bound_ == 0.0
        assert clf.train_error_ == int(np.sum(y != np.bincount(y).argmax()))
        assert clf.n_features_in_ == 4 and list(clf.feature_names_in_) == list(df.columns)
        # the first 4 calls stop the encoder's fit (one per column): the
        # columns read so far keep their tests; later calls, the full encoder
        assert clf.encoder_.stopped_ == ("time" if k <= 4 else None)
        assert clf.encoder_.tests_ == full.encoder_.tests_[:clf.encoder_.n_tests_]
        assert clf.tree_.n_features == clf.encoder_.n_tests_
        if k > 4:
            assert clf.tree_.n_features == full.tree_.n_features
        # the leaf predicts through its encoder, and so does its model file
        assert (clf.predict(df) == np.bincount(y).argmax()).all()
        assert clf.predict_proba(df).shape == (300, 2)
        path = tmp_path / f"leaf{k}.json"
        save_model(clf, path)
        assert (load_model(path).predict(df) == clf.predict(df)).all()
        with pytest.raises(ValueError, match=r"X lacks the column\(s\) \['size'\]"):
            clf.predict(df.iloc[:, :3])
    # Ctrl-C while the categories are learned or encoded: the same leaf, flagged as interrupted
    for k in (2, 6):
        monkeypatch.setattr(fit_module, "preparation_clock", _Clock(k, KeyboardInterrupt()))
        with pytest.warns(RuntimeWarning, match="interrupted"):
            clf = fit()
        assert clf.interrupted_ and not clf.timed_out_ and clf.tree_.node_count == 1
        assert clf.encoder_.stopped_ == ("Ctrl-C" if k <= 4 else None)


def test_encoder_fit_stopped_at_a_column_keeps_the_columns_read():
    df = _mixed_frame(4, 60, missing=True)
    full = Binarizer(["colour", "size"], keep_numeric=True).fit(df)
    assert full.stopped_ is None
    for stop_at in range(4):
        calls = []

        def checkpoint():
            calls.append(1)
            if len(calls) > stop_at:
                raise PreparationTimeout
        b = Binarizer(["colour", "size"], keep_numeric=True).fit(df, checkpoint)
        assert b.stopped_ == "time" and len(calls) == stop_at + 1
        assert b.tests_ == [t for t in full.tests_ if t.column < stop_at]
        # the unread columns' kinds from their types: numbers numeric, the rest categorical
        assert b.column_kinds_ == full.column_kinds_
        assert b.transform(df).shape == (60, b.n_tests_)
    # without a checkpoint nothing is caught: Ctrl-C is the caller's
    with pytest.raises(KeyboardInterrupt):
        Binarizer(["colour"], keep_numeric=True).fit(pd.DataFrame({"colour": _Explosive(["a", "b"])}))


_KIND_CASES = {     # (X, categorical, keep_numeric): columns whose kind is not their dtype's
    "object numbers and text": (np.array([[1, "a"], [2, "b"], [3, "a"]], dtype=object), "auto", False),
    "list of mixed rows": ([[1, "a"], [2, "b"], [3.5, "a"]], "auto", False),
    "nullable boolean": (pd.DataFrame({"b": pd.array([True, None, False], dtype="boolean"),
                                       "c": ["a", "b", "a"]}), "auto", True),
    "object numbers, not chosen": (pd.DataFrame({"o": pd.Series([1, None, 3], dtype=object),
                                                 "c": ["a", "b", "a"]}), ["c"], True),
    "Int64 with NA": (pd.DataFrame({"i": pd.array([1, None, 3], dtype="Int64"), "c": ["a", "b", "a"]}),
                      "auto", True),
    "category of numbers, none chosen": (pd.DataFrame({"k": pd.Categorical([1, 2, 1])}), "none", False),
    "string of numbers": (pd.DataFrame({"s": pd.array(["1", "2", "1"], dtype="string")}), "none", True),
    "numpy str of numbers": (np.array([["1", "2"], ["3", "4"]]), "auto", False),
    "text after 300 numbers": (np.array([[float(i)] for i in range(300)] + [["x"]], dtype=object), "none",
                               False),
}


@pytest.mark.parametrize("case", list(_KIND_CASES))
def test_a_fit_stopped_before_a_column_gives_it_the_kind_a_complete_fit_gives(case):
    X, categorical, keep = _KIND_CASES[case]

    def stop():
        raise PreparationTimeout
    full = Binarizer(categorical, keep_numeric=keep).fit(X)
    stopped = Binarizer(categorical, keep_numeric=keep).fit(X, stop)
    assert stopped.stopped_ == "time" and stopped.tests_ == []
    assert stopped.column_kinds_ == full.column_kinds_


def test_a_stopped_fit_and_its_leaf_refuse_what_a_complete_fit_refuses(monkeypatch):
    # the unread columns are still checked: NaN for SAT, infinity for both,
    # and at predict time text in a numeric column and missing values where refused
    X = np.array([[0.0, np.nan], [1.0, 2.0], [1.0, 5.0], [0.0, 3.0]])
    y = np.array([0, 1, 1, 0])
    for limit in (1e-9, 60):
        with pytest.raises(ValueError, match="contains NaN in column 'x\\[1\\]'"):
            SATTreeClassifier("depth", time_limit=limit).fit(X, y)
    df = pd.DataFrame({"c": ["a", "b", "b", "a"], "x": [0.0, np.inf, 2.0, 1.0]})
    for limit in (1e-9, 60):
        with pytest.raises(ValueError, match="infinity in column 'x'"):
            OptimalTreeClassifier(time_limit=limit).fit(df, y)
    monkeypatch.setattr(fit_module, "preparation_clock", _Clock(1, PreparationTimeout()))
    df = pd.DataFrame({"c": ["a", "b", "b", "a"], "x": [0.0, 1.0, 2.0, 1.0]})
    with pytest.warns(UserWarning, match="time_limit"):
        clf = OptimalTreeClassifier(time_limit=60).fit(df, y)
    assert clf.encoder_.stopped_ == "time" and clf.encoder_.n_tests_ == 0
    assert (clf.predict(df) == clf.predict(df.assign(x=[np.nan, 0.0, 1.0, 2.0]))).all()   # NaN: data here
    with pytest.raises(ValueError, match="was numeric in fit"):
        clf.predict(df.assign(x=["zz", "q", "r", "w"]))
    with pytest.raises(ValueError, match="infinity"):
        clf.predict(df.assign(x=[np.inf, 0.0, 1.0, 2.0]))
    monkeypatch.setattr(sat_module, "preparation_clock", _Clock(1, PreparationTimeout()))
    with pytest.warns(UserWarning, match="a single leaf"):
        sat = SATTreeClassifier("depth", time_limit=60).fit(df, y)
    assert sat.binarizer_.stopped_ == "time"
    with pytest.raises(ValueError, match="NaN"):
        sat.predict(df.assign(x=[np.nan, 0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match="missing value"):          # an array now, not a DataFrame
        sat.predict(np.array([[None, 0.0], ["b", 1.0], ["a", 2.0], ["b", 1.0]], dtype=object))


class _Explosive(list):
    """A column whose conversion to an array is interrupted (Ctrl-C)."""

    def __array__(self, *args, **kwargs):
        raise KeyboardInterrupt


def test_tree_stopped_while_encoding_still_checks_the_labels(monkeypatch):
    df = _mixed_frame(2, 30, missing=False)
    monkeypatch.setattr(fit_module, "preparation_clock",
                        _Clock(1, PreparationTimeout()))
    est = OptimalTreeClassifier(max_depth=2, time_limit=1, categorical_features=["colour"])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        est.fit(df, np.zeros(29, dtype=int))
    with pytest.raises(ValueError):
        est.fit(df, np.full(30, np.nan))


@pytest.mark.parametrize("objective, route", [("depth", "auto"), ("size", "auto"), ("depth", "sat"),
                                              ("errors", "dp")])
def test_sat_stopped_while_preparing_returns_the_flagged_majority_leaf(monkeypatch, objective, route):
    # numeric columns of many thresholds (chains), repeated rows, a categorical column
    rng = np.random.default_rng(3)
    n = 120
    df = pd.DataFrame({"a": np.round(rng.random(n), 1), "b": rng.integers(0, 9, n),
                       "c": rng.choice(["u", "v", "w"], n)})
    df = pd.concat([df, df.iloc[:20]], ignore_index=True)
    y = ((df["a"] > 0.5) ^ (df["b"] > 4)).astype(int).to_numpy()
    params = dict(objective=objective, time_limit=60)
    if objective == "errors":
        params.update(max_depth=2, errors_search=route)
    else:
        params.update(depth_search=route)

    def fit():
        return SATTreeClassifier(**params).fit(df, y)
    n_calls = _count_calls(monkeypatch, sat_module, "preparation_clock", fit)
    assert n_calls >= 6           # transform, then every step of the reduction
    majority = np.bincount(y).argmax()
    for k in range(1, n_calls + 1):
        monkeypatch.setattr(sat_module, "preparation_clock", _Clock(k, PreparationTimeout()))
        with pytest.warns(UserWarning, match="a single leaf"):
            clf = fit()
        assert clf.timed_out_ and not clf.is_optimal_ and clf.tree_source_ == "leaf"
        assert clf.n_nodes_ == 1 and clf.train_error_ == int(np.sum(y != majority))
        assert (clf.predict(df) == majority).all()
        assert clf.stats_["distinct_examples"] is None


def test_sat_ctrl_c_while_preparing_returns_the_interrupted_leaf(monkeypatch):
    # Ctrl-C while the categories are learned (call 1), encoded or reduced:
    # the flagged majority leaf, as the tree estimator returns, not KeyboardInterrupt
    rng = np.random.default_rng(8)
    df = pd.DataFrame({"a": np.round(rng.random(80), 1), "c": rng.choice(["u", "v", "w"], 80)})
    y = (df["a"] > 0.5).astype(int).to_numpy()

    def fit():
        return SATTreeClassifier("depth", time_limit=60).fit(df, y)
    n_calls = _count_calls(monkeypatch, sat_module, "preparation_clock", fit)
    majority = np.bincount(y).argmax()
    for k in range(1, n_calls + 1):
        monkeypatch.setattr(sat_module, "preparation_clock", _Clock(k, KeyboardInterrupt()))
        with pytest.warns(RuntimeWarning, match="interrupted"):
            clf = fit()
        assert clf.interrupted_ and not clf.timed_out_ and not clf.is_optimal_
        assert clf.tree_source_ == "leaf" and (clf.predict(df) == majority).all()
        assert np.isnan(clf.gap_) and clf.summary_.interrupted


def test_ordinal_tests_over_distinct_rows_match_a_copy_of_those_rows():
    # the DP route reads the distinct rows (rows=) and counts leaves on all rows
    rng = np.random.default_rng(4)
    X = np.round(rng.random((200, 3)), 1)
    X = np.vstack([X, X[:50]])
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    b = Binarizer().fit(X)
    B = b.transform(X)
    chains = chains_of(b.tests_)
    problem = prepare(B, y, 2, allow_conflicts=False, chains=chains)
    first = problem.first_example
    new = OrdinalTests(B, y, 2, chains, rows=first)
    old = OrdinalTests(B[first], problem.row_classes(), 2, chains)
    np.testing.assert_array_equal(new.X, old.X)
    np.testing.assert_array_equal(new.y, old.y)
    from optimaltrees.search.sat.exact import min_depth_dp, min_size_dp
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = []
        for data in (new, old):
            depth = min_depth_dp(data, n_rows=problem.n_rows, n_columns=problem.columns.size)
            size = min_size_dp(data, depth)
            found.append((depth.depth_lower_bound, depth.leaves, size.leaves, size.size_optimal))
    assert found[0] == found[1] and found[0][3]


@pytest.mark.parametrize("pool", [[0.0, -0.0, 1.0, 2.5, 1e-310, 3.0, 1e300, 7.0], [0.0, 1.0],
                                  [0.0, 255.0, 256.0, 3.0, 65535.0, 65536.0, 2.0**32 - 1, 2.0**32],
                                  [-1.0, 0.0, 2.0, np.nan]])
def test_diagram_distinct_rows_match_numpys_sorted_rows(pool):
    # the diagram's points: the byte-string dedupe keeps numpy's lexicographic
    # order (so the MILP and its ties are as before), on ranks, 0/1 columns,
    # floats, and (by numpy itself) negative values and NaN
    from optimaltrees.search.diagram.train import unique_rows
    rng = np.random.default_rng(5)
    for _ in range(200):
        K = rng.choice(pool, size=(int(rng.integers(1, 40)), int(rng.integers(1, 6))))
        want, inverse = np.unique(K, axis=0, return_inverse=True)
        got, got_inverse = unique_rows(K)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got_inverse, inverse.reshape(-1))


@pytest.mark.parametrize("pool", [[0.0, -0.0, 1.0, 2.0, np.nan, np.inf, -np.inf, 5e-324, 1e308],
                                  [0.0, 1.0], [3.5], [-1.0, 1.0, np.nan]])
def test_diagram_column_values_match_numpys_unique(pool):
    # columns of one or two values take the vectorised path, the rest np.unique
    from optimaltrees.search.diagram.train import column_values
    rng = np.random.default_rng(6)
    for _ in range(300):
        A = rng.choice(pool, size=(int(rng.integers(1, 300)), int(rng.integers(1, 6))))
        got = column_values(A)
        assert len(got) == A.shape[1]
        for j, values in enumerate(got):
            np.testing.assert_array_equal(values, np.unique(A[:, j]))


def test_a_diagram_too_large_at_its_distinct_values_is_refused_before_ranking_rows(monkeypatch):
    # a column with 400 distinct values: at least 400 distinct rows, whatever
    # the other columns; with the cap below that size the fit is refused
    # without ranking the rows, and the message says "at least"
    from optimaltrees import DecisionDiagramClassifier
    from optimaltrees.search.diagram import train
    rng = np.random.default_rng(6)
    X = np.column_stack([np.arange(400.0), rng.integers(0, 3, 400)])
    y = (X[:, 0] > 200).astype(int)

    def no_ranking(*args, **kwargs):
        raise AssertionError("rows ranked before the size check")
    monkeypatch.setattr(train, "unique_rows", no_ranking)
    monkeypatch.setattr(train, "MAX_MILP_NONZEROS", 1000)
    with pytest.raises(ValueError, match=r"more than [\d,]+ nonzeros \(at least 400 distinct rows"):
        DecisionDiagramClassifier((1, 2), time_limit=5).fit(X, y)
    # under the cap at 400 rows, the exact count decides (and the fit goes on)
    monkeypatch.undo()
    assert DecisionDiagramClassifier((1, 2), time_limit=5).fit(X, y).score(X, y) == 1.0


def test_sat_stopped_while_preparing_still_refuses_conflicting_rows(monkeypatch):
    # once the rows are encoded a stop still finds the rows no perfect tree
    # fits (one pass); a stop inside the encoding has not seen them: the leaf
    from optimaltrees.search.sat.problem import ConflictingExamplesError
    X = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [2.0, 0.5]] * 5)
    y = np.array([0, 1, 1, 0] * 5)

    def fit():
        return SATTreeClassifier("depth", time_limit=60).fit(X, y)
    calls = []
    Binarizer().fit(X, checkpoint=lambda: calls.append(1)).transform(X, checkpoint=lambda: calls.append(1))
    n_transform = len(calls)                  # the binarizer's fit and its encoding
    clock = _Clock(None, None)
    monkeypatch.setattr(sat_module, "preparation_clock", clock)
    with pytest.raises(ConflictingExamplesError):
        fit()
    assert clock.calls > n_transform          # the reduction's checks come after the encoding's
    for k in range(1, clock.calls + 1):
        monkeypatch.setattr(sat_module, "preparation_clock", _Clock(k, PreparationTimeout()))
        if k <= n_transform:
            with pytest.warns(UserWarning, match="a single leaf"):
                assert fit().tree_source_ == "leaf"
        else:
            with pytest.raises(ConflictingExamplesError, match="rows 0 and 1"):
                fit()


def test_sat_rows_and_labels_of_different_lengths_are_refused_under_a_limit():
    X = np.random.default_rng(7).random((50, 3))
    for limit in (None, 1e-9):
        with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[50, 49\]"):
            SATTreeClassifier(time_limit=limit).fit(X, np.arange(49) % 2)
