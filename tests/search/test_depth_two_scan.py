"""D2Split's two-class scan over bit maps (``_scan_two_bits``): 64 rows a
word, each child visiting only the positions its skip leaves, and jumping
over runs of equal values.  Its edge cases are word boundaries, runs that
cross them, leaf sizes and skewed classes, so the data here is larger than
the brute force's usual instances, and checked against the exhaustive
depth-two enumeration."""
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers import depth_two_solver, n_examples
from instances import SETTINGS
from oracle import depth2_objective

from optimaltrees import OptimalTreeClassifier


@contextmanager
def scanned():
    """Every depth-two node searched threshold by threshold with D2Split:
    no histograms, no sweeps."""
    from optimaltrees.search.engine import engine_options

    with engine_options(sweep_after=-1.0), depth_two_solver(0.0, 1 << 30):
        yield


def _runs(seed: int, n: int, p: int, values: int, share: float):
    """Features of ``values`` distinct values (long runs of equal values
    when few), labels from a depth-two rule over them with ``share`` of
    class 1 among the rule's exceptions and 8 % noise."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(n, p)).astype(np.float64)
    rule = (X[:, 0] > values // 2) ^ (X[:, 1 % p] > values // 3)
    y = np.where(rng.random(n) < share, rule, 0).astype(int)
    flip = rng.random(n) < 0.08
    y[flip] = 1 - y[flip]
    return X, y


@pytest.mark.parametrize("n", [64, 65, 130, 257])
@pytest.mark.parametrize("values", [2, 4, 40, 1000])
@pytest.mark.parametrize("share", [0.05, 0.5, 1.0])
def test_two_classes_at_depth_two_are_the_exact_optimum(n, values, share):
    X, y = _runs(n + values, n, 3, values, share)
    with scanned():
        clf = OptimalTreeClassifier(max_depth=2).fit(X, y)
    assert clf.is_optimal_ and clf.train_error_ == depth2_objective(X, y)


@pytest.mark.parametrize("min_leaf", [2, 9, 40])
@pytest.mark.parametrize("values", [3, 50])
def test_leaf_sizes_at_depth_two_are_the_exact_optimum(min_leaf, values):
    X, y = _runs(min_leaf * values, 190, 3, values, 0.3)
    with scanned():
        clf = OptimalTreeClassifier(max_depth=2, min_samples_leaf=min_leaf).fit(X, y)
    assert clf.is_optimal_
    assert clf.train_error_ == depth2_objective(X, y, min_samples_leaf=min_leaf)


@st.composite
def run_data(draw):
    """Two classes over 60-200 rows whose features hold runs of equal
    values of drawn lengths (so runs end anywhere in a 64-row word)."""
    n = draw(st.integers(60, 200))
    p = draw(st.integers(1, 3))
    cols = []
    for _ in range(p):
        lengths = draw(st.lists(st.integers(1, 90), min_size=1, max_size=12))
        col = np.repeat(np.arange(len(lengths)), lengths)
        col = np.resize(col, n)
        cols.append(np.random.default_rng(draw(st.integers(0, 2**16))).permutation(col))
    X = np.column_stack(cols).astype(np.float64)
    seed = draw(st.integers(0, 2**16))
    share = draw(st.sampled_from([0.03, 0.2, 0.5]))
    rng = np.random.default_rng(seed)
    y = ((X[:, 0] > np.median(X[:, 0])) & (rng.random(n) < 0.9)).astype(int)
    y = np.where(rng.random(n) < share, 1 - y, y)
    return X, y


@settings(max_examples=n_examples(60), **SETTINGS)
@given(run_data(), st.sampled_from([1, 3]))
def test_runs_across_words_keep_the_exact_optimum(inst, min_leaf):
    X, y = inst
    with scanned():
        clf = OptimalTreeClassifier(max_depth=2, min_samples_leaf=min_leaf).fit(X, y)
    assert clf.is_optimal_
    assert clf.train_error_ == depth2_objective(X, y, min_samples_leaf=min_leaf)


@contextmanager
def select_mode(mode: str):
    """The scan's r-th-set-bit search forced to ``mode`` (PDEP or popcounts)."""
    from optimaltrees.search.engine import engine_options

    with engine_options(select=mode):
        yield


def _select_modes() -> list[str]:
    """The portable search always; PDEP where this CPU has the instruction."""
    from optimaltrees.search.engine._sorted import pdep_choice

    modes = ["portable"]
    try:
        pdep_choice("pdep")
        modes.append("pdep")
    except ValueError:          # no BMI2 here: the default is the portable search too
        pass
    return modes


@settings(max_examples=n_examples(300), **SETTINGS)
@given(st.integers(1, 2**64 - 1), st.data())
def test_select_bit_finds_the_rth_set_bit(word, data):
    from optimaltrees.search.engine._sorted import select_bit

    ones = [i for i in range(64) if word >> i & 1]
    r = data.draw(st.integers(0, len(ones) - 1))
    for mode in _select_modes():
        assert select_bit(word, r, mode) == (ones[r], ones[r])


def test_select_bit_refuses_a_rank_past_the_popcount():
    from optimaltrees.search.engine import EngineOptions
    from optimaltrees.search.engine._sorted import select_bit

    with pytest.raises(ValueError, match="popcount"):
        select_bit(0b1011, 3)
    with pytest.raises(ValueError, match="select mode"):
        select_bit(0b1011, 1, "fast")
    with pytest.raises(ValueError, match="select must be one of"):
        EngineOptions(select="fast")


@pytest.mark.parametrize("mode", _select_modes())
@pytest.mark.parametrize("values", [2, 40, 1000])
def test_both_selects_give_the_exact_optimum(mode, values):
    """The scan with either search (the full suite runs the CPU's default)."""
    X, y = _runs(values, 257, 3, values, 0.3)
    with scanned(), select_mode(mode):
        clf = OptimalTreeClassifier(max_depth=2).fit(X, y)
    assert clf.is_optimal_ and clf.train_error_ == depth2_objective(X, y)
    X, y = _runs(values + 1, 700, 4, values, 0.5)
    with select_mode(mode):
        deep = OptimalTreeClassifier(max_depth=3).fit(X, y)
    with select_mode("portable"):
        assert deep.is_optimal_ and deep.train_error_ == OptimalTreeClassifier(max_depth=3).fit(X, y).train_error_
