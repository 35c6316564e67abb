"""SATTreeClassifier's defaults: a default time limit, a verbose
progress line, and "errors" routed to the exact DP engine, which proves the
same optimum as MaxSAT."""
from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest

from conftest import dataset_path, load_binary

from optimaltrees import SATTreeClassifier
from optimaltrees.estimators._base import DEFAULT_TIME_LIMIT


def load_categorical(name):
    df = pd.read_csv(dataset_path("categorical", f"{name}.csv"), encoding="utf-8-sig")
    return df.iloc[:, :-1], df.iloc[:, -1]


def test_defaults_bound_the_fit_and_route_errors_to_the_dp_engine():
    clf = SATTreeClassifier()
    assert clf.time_limit == DEFAULT_TIME_LIMIT == 60.0
    assert clf.errors_search == "dp" and clf.verbose is False and clf.depth_search == "auto"


@pytest.mark.parametrize("name, depth", [
    ("zoo-1", 2), ("zoo-1", 3),
    # MaxSAT takes 5-6 s here (the DP engine 0.07 s); on lymph, tic-tac-toe,
    # anneal, soybean at depth 2 it is not done in 15 s
    pytest.param("hepatitis", 2, marks=pytest.mark.slow),
    pytest.param("primary-tumor", 2, marks=pytest.mark.slow)])
def test_dp_and_maxsat_prove_the_same_fewest_errors(name, depth):
    X, y = load_binary(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # both finish, proven, without a time-out
        dp = SATTreeClassifier("errors", max_depth=depth).fit(X, y)
        maxsat = SATTreeClassifier("errors", max_depth=depth, errors_search="maxsat").fit(X, y)
    assert dp.train_error_ == maxsat.train_error_
    assert dp.is_optimal_ and maxsat.is_optimal_ and dp.gap_ == maxsat.gap_ == 0.0
    assert dp.summary_.lower_bound == maxsat.summary_.lower_bound == dp.train_error_
    for clf in (dp, maxsat):
        assert clf.depth_ <= depth and clf.tree_source_ == "search"
        assert int((clf.predict(X) != y).sum()) == clf.train_error_


def test_the_dp_route_is_much_faster_on_numeric_rows():
    # the case: 300 numeric rows, fewest errors at depth 3 (MaxSAT ran
    # 9 CPU-minutes); the DP engine proves it in a fraction of a second
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(300, 4)), 2)
    y = ((X[:, 0] + X[:, 1] * X[:, 2] > 0.3) ^ (rng.random(300) < 0.1)).astype(int)
    start = time.perf_counter()
    clf = SATTreeClassifier("errors", max_depth=3).fit(X, y)
    assert time.perf_counter() - start < 10
    assert clf.is_optimal_ and not clf.timed_out_ and clf.stats_["search"] == "dp"
    from optimaltrees import OptimalTreeClassifier
    # binarised midpoint tests are the numeric thresholds: the same optimum
    assert clf.train_error_ == OptimalTreeClassifier(max_depth=3).fit(X, y).train_error_


def test_maxsat_time_out_hints_at_the_dp_route():
    X, y = load_categorical("car")
    with pytest.warns(UserWarning, match="errors_search='dp'"):
        SATTreeClassifier("errors", max_depth=4, categorical="all", time_limit=1,
                          errors_search="maxsat").fit(X, y)


def test_depth_time_out_hints_at_the_dp_depth_search():
    X, y = load_categorical("car")
    with pytest.warns(UserWarning, match="depth_search='auto'"):
        SATTreeClassifier("depth", categorical="all", time_limit=1, depth_search="sat").fit(X, y)


def test_verbose_shows_depth_calls_examples_and_bounds(capsys):
    X, y = load_categorical("mouse")
    clf = SATTreeClassifier("size", categorical="all", verbose=True, depth_search="sat").fit(X, y)
    err = capsys.readouterr().err
    assert "sat (size)" in err and "trying depth" in err and "SAT calls" in err
    assert "examples encoded" in err and "proven >=" in err
    assert f"done: {clf.n_nodes_} nodes, proven fewest at depth {clf.depth_}" in err
    dp = SATTreeClassifier("size", categorical="all", verbose=True).fit(X, y)
    err = capsys.readouterr().err
    assert "DP engine, trying depth 4" in err and "DP engine, fewest nodes at depth 4" in err
    assert f"done: {dp.n_nodes_} nodes, proven fewest at depth {dp.depth_}" in err
    quiet = SATTreeClassifier("size", categorical="all", depth_search="sat").fit(X, y)
    assert capsys.readouterr().err == ""
    assert (quiet.depth_, quiet.n_nodes_) == (clf.depth_, clf.n_nodes_)


def test_verbose_time_out_shows_the_greedy_tree_and_the_bound(capsys):
    X, y = load_categorical("car")
    with pytest.warns(UserWarning, match="time_limit=1 s reached"):
        SATTreeClassifier("depth", categorical="all", time_limit=1, verbose=True,
                          depth_search="sat").fit(X, y)
    err = capsys.readouterr().err
    assert "(greedy tree)" in err and "proven >= depth 2" in err


def test_verbose_errors(capsys):
    X, y = load_categorical("mouse")
    clf = SATTreeClassifier("errors", max_depth=2, categorical="all", verbose=True).fit(X, y)
    err = capsys.readouterr().err
    assert f"done (dp): {clf.train_error_} errors, proven fewest" in err
