"""D2Split's side maps (``SideMaps.move_sides``): a two-class
depth-two node keeps its rows' sides, labels and value changes as bit maps
between D2Split calls, and a call moves only the rows between its threshold
and the last one.  What can go wrong is state that outlives its node (a
later node at the same address with the same size), a move in the wrong
direction or past a word, and the switch between a fresh start and a move;
so every answer here is checked against the scan that rebuilds everything
per call (maps off), and at depth two against the exhaustive enumeration."""
import warnings
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers import n_examples
from instances import SETTINGS
from oracle import depth2_objective, recompute_objective

from optimaltrees import OptimalTreeClassifier
from test_depth_two_scan import run_data, scanned


@contextmanager
def maps_after(calls: int):
    """Side maps built on a node's ``calls``-th D2Split call (0: never)."""
    from optimaltrees.search.engine import engine_options

    with engine_options(maps_after=calls):
        yield


def _fit(X, y, depth, calls, **kw):
    with maps_after(calls):
        return OptimalTreeClassifier(max_depth=depth, **kw).fit(X, y)


def _distinct(seed: int, n: int, p: int, noise: float = 0.15):
    """Every feature a permutation of n distinct values: any two splits at
    the same position give children of equal sizes, so nodes of one size
    follow each other in the same buffer (the maps must not be reused)."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.permutation(n) for _ in range(p)]).astype(np.float64)
    y = ((X[:, 0] > n / 2) ^ (X[:, 1 % p] > n / 3)).astype(int)
    flip = rng.random(n) < noise
    y[flip] = 1 - y[flip]
    return X, y


def _same(a, b, X, search=True):
    """The same optimum; with ``search`` the same search too (D2Split calls
    and tree), as when only the maps differ."""
    assert a.train_error_ == b.train_error_
    assert a.is_optimal_ and b.is_optimal_
    if search:
        assert a.stats_["d2_calls"] == b.stats_["d2_calls"]
        np.testing.assert_array_equal(a.predict(X), b.predict(X))


@pytest.mark.parametrize("n", [63, 64, 65, 190])
@pytest.mark.parametrize("calls", [1, 2])
def test_depth_two_with_maps_is_the_exact_optimum(n, calls):
    X, y = _distinct(n, n, 3)
    with scanned():
        on = _fit(X, y, 2, calls)
        off = _fit(X, y, 2, 0)
    assert on.stats_["map_moves"] > 0 and off.stats_["map_moves"] == 0
    assert on.train_error_ == depth2_objective(X, y)
    _same(on, off, X)


def _maps_match_the_row_scan(X, y, depth):
    """Maps on (from a node's first call) and off, every node threshold by
    threshold: the same search and tree, its objective recomputed."""
    with scanned():
        on = _fit(X, y, depth, 1)
        off = _fit(X, y, depth, 0)
    assert on.stats_["map_moves"] > 0
    _same(on, off, X)
    assert recompute_objective(on.tree_, X, y) == on.train_error_


@pytest.mark.parametrize("depth, seed", [(3, 0), (3, 1)] + [(4, s) for s in range(8)])
def test_equal_sized_nodes_in_one_buffer_do_not_share_maps(depth, seed):
    """Distinct values on every feature: the depth-three splits' children
    repeat sizes at one address.  Siblings alternate there, so a stale map
    shows only where a child's search ends early and the next node of the
    same size comes to the same buffer: depth four, where it happens on
    some of these seeds (without the epoch, seeds 0 and 2 of the first
    three gave wrong answers)."""
    X, y = _distinct(seed, 150, 4)
    _maps_match_the_row_scan(X, y, depth)


@pytest.mark.parametrize("values, min_leaf, n", [(2, 1, 2500), (5, 7, 1500), (1000, 1, 2500), (40, 7, 600)])
def test_sweeps_histograms_and_maps_together(values, min_leaf, n):
    """The default solver mix with maps (histograms where they pay) against
    the one without (sweeps, histograms), at depth three on up to a few thousand rows (leaf sizes
    switch the similarity bounds off: fewer rows)."""
    rng = np.random.default_rng(values + min_leaf)
    X = rng.integers(0, values, size=(n, 4)).astype(np.float64)
    X[:, 3] = rng.normal(size=n)
    y = ((X[:, 0] + X[:, 3] > values / 2) ^ (rng.random(n) < 0.1)).astype(int)
    on = _fit(X, y, 3, 2, min_samples_leaf=min_leaf)
    off = _fit(X, y, 3, 0, min_samples_leaf=min_leaf)
    _same(on, off, X, search=False)
    assert recompute_objective(on.tree_, X, y) == on.train_error_


def test_the_maps_count_in_the_search_memory_and_replace_the_sweeps():
    """The maps (a position per row and feature, three bits) are allocated
    with the engine, so the memory check before the search sees them; a
    layout with maps never sweeps, so it holds no sweep buffers (a segment
    tree of 32-byte leaves over n ranks, four ints a row)."""
    n, p = 3000, 10
    X, y = _distinct(5, n, p)
    on = _fit(X, y, 2, 1)
    off = _fit(X, y, 2, 0)
    maps = n * p * 4 + 3 * p * ((n + 63) // 64) * 8
    sweep = 4096 * 32 + 4 * n * 4
    assert on.stats_["search_megabytes"] - off.stats_["search_megabytes"] == pytest.approx((maps - sweep) / 2**20)
    assert on.stats_["sweeps"] == 0 and off.stats_["sweeps"] > 0
    _same(on, off, X, search=False)


def test_large_nodes_sweep_with_maps_too():
    """Nodes of 2^14 rows and more still sweep a flat feature where they
    keep maps (the sweep pays there); the optimum is the plain search's
    (no maps, no sweeps)."""
    from optimaltrees.search.engine import engine_options

    rng = np.random.default_rng(3)
    n = 20000
    X = rng.normal(size=(n, 3))
    y = ((X[:, 0] + 0.5 * X[:, 1] > 0) ^ (rng.random(n) < 0.1)).astype(int)
    mapped = _fit(X, y, 2, 2)
    with engine_options(sweep_after=-1.0):
        plain = _fit(X, y, 2, 0)
    assert mapped.stats_["sweeps"] >= 1 and mapped.stats_["map_moves"] > 0
    assert plain.stats_["sweeps"] == 0 and plain.stats_["map_moves"] == 0
    _same(mapped, plain, X, search=False)
    assert recompute_objective(mapped.tree_, X, y) == mapped.train_error_


def test_a_memory_limit_met_without_maps_still_holds():
    """The maps are left out where they would crowd the layout's buffers,
    so a limit the search met without them is still met."""
    import re

    rng = np.random.default_rng(11)
    X = rng.normal(size=(2000, 60))
    y = (X[:, 0] + rng.normal(size=2000) > 0).astype(int)
    with maps_after(0), pytest.raises(ValueError, match="MB the search needs") as err:
        OptimalTreeClassifier(max_depth=3, memory_limit=0.01).fit(X, y)
    need = float(re.search(r"below the ([0-9.]+) MB", str(err.value)).group(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # (stopped at the time or memory limit)
        fit = OptimalTreeClassifier(max_depth=3, memory_limit=need * 1.05, time_limit=3).fit(X, y)
    assert fit.stats_["map_moves"] == 0


def test_depth_one_holds_no_maps():
    """A depth-one search makes one D2Split call a node: no maps are built,
    and none are allocated."""
    X, y = _distinct(4, 500, 5)
    on = _fit(X, y, 1, 2)
    off = _fit(X, y, 1, 0)
    assert on.stats_["map_moves"] == 0
    assert on.stats_["search_megabytes"] == off.stats_["search_megabytes"]
    _same(on, off, X)


def test_threads_keep_their_own_maps():
    X, y = _distinct(9, 400, 6)
    one = _fit(X, y, 3, 1)
    two = _fit(X, y, 3, 1, n_jobs=2)
    assert two.stats_["map_moves"] > 0
    assert one.train_error_ == two.train_error_ and two.is_optimal_


@settings(max_examples=n_examples(40), **SETTINGS)
@given(run_data(), st.sampled_from([1, 3]), st.sampled_from([1, 2]))
def test_runs_across_words_with_maps(inst, min_leaf, calls):
    X, y = inst
    with scanned():
        on = _fit(X, y, 2, calls, min_samples_leaf=min_leaf)
        off = _fit(X, y, 2, 0, min_samples_leaf=min_leaf)
    assert on.train_error_ == depth2_objective(X, y, min_samples_leaf=min_leaf)
    _same(on, off, X)


@settings(max_examples=n_examples(25), **SETTINGS)
@given(st.integers(0, 2**16), st.integers(70, 200), st.integers(2, 4), st.sampled_from([2, 6, 10**6]))
def test_depth_three_with_and_without_maps(seed, n, p, values):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(n, p)).astype(np.float64)
    y = ((X[:, 0] > np.median(X[:, 0])) ^ (rng.random(n) < 0.2)).astype(int)
    with scanned():
        on = _fit(X, y, 3, 1)
        off = _fit(X, y, 3, 0)
    _same(on, off, X)


@contextmanager
def gather_from(entries: int):
    """Moves read the rows' positions in the moved feature's order on
    layouts of at least ``entries`` rows x features (0: always, -1: never)."""
    from optimaltrees.search.engine import engine_options

    with engine_options(gather_entries=entries):
        yield


@pytest.mark.parametrize("depth, seed, n", [(2, 0, 63), (2, 1, 190), (3, 2, 150), (3, 3, 400)]
                         + [(4, s, 150) for s in range(4)])
def test_moves_in_the_features_order_give_the_same_search(depth, seed, n):
    """The ordered copy of the positions (large data) changes how a move
    reads them, never what it moves: the same D2Split calls, the same moves
    and the same tree as the moves that read map_at in row order, and the
    optimum of the scan without maps.  Equal-sized nodes at one address
    (distinct values) check that a copy never outlives its node."""
    X, y = _distinct(seed, n, 4)
    with scanned():
        with gather_from(0):
            ordered = _fit(X, y, depth, 1)
        with gather_from(-1):
            direct = _fit(X, y, depth, 1)
        off = _fit(X, y, depth, 0)
    assert ordered.stats_["map_gathers"] > 0 and direct.stats_["map_gathers"] == 0
    assert ordered.stats_["map_moves"] == direct.stats_["map_moves"] > 0
    _same(ordered, direct, X)
    _same(ordered, off, X)
    assert recompute_objective(ordered.tree_, X, y) == ordered.train_error_


def test_the_ordered_positions_count_in_the_search_memory():
    """A position per row and feature more, allocated with the maps (and
    only from the set size on)."""
    n, p = 3000, 10
    X, y = _distinct(6, n, p)
    with gather_from(0):
        ordered = _fit(X, y, 2, 1)
    with gather_from(n * p + 1):
        direct = _fit(X, y, 2, 1)
    assert ordered.stats_["search_megabytes"] - direct.stats_["search_megabytes"] == pytest.approx(n * p * 4 / 2**20)
    assert direct.stats_["map_gathers"] == 0
    _same(ordered, direct, X)


@settings(max_examples=n_examples(25), **SETTINGS)
@given(st.integers(0, 2**16), st.integers(70, 200), st.integers(2, 4), st.sampled_from([2, 6, 10**6]),
       st.sampled_from([2, 3]))
def test_depth_two_and_three_with_ordered_positions(seed, n, p, values, depth):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(n, p)).astype(np.float64)
    y = ((X[:, 0] > np.median(X[:, 0])) ^ (rng.random(n) < 0.2)).astype(int)
    with scanned(), gather_from(0):
        on = _fit(X, y, depth, 1)
        off = _fit(X, y, depth, 0)
    _same(on, off, X)
    if depth == 2:
        assert on.train_error_ == depth2_objective(X, y)


@pytest.mark.parametrize("seed", [1, 7, 19, 33, 36])
@pytest.mark.parametrize("depth", [2, 3])
def test_hundreds_of_rows_with_maps_match_the_row_scan(seed, depth):
    """Nodes of hundreds to thousands of rows: a child's scan passes whole
    words before its next candidate (a loop of its own), and a candidate
    that is the first of the child's rows in its word takes the previous
    row from the words passed.  The smaller instances above seldom reach
    that path (a stale previous row there went unnoticed by them, and
    failed these seeds)."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(300, 3000)), int(rng.integers(2, 5))
    values = int(rng.choice([3, 20, 200, 10**6]))
    X = rng.integers(0, values, size=(n, p)).astype(np.float64)
    y = ((X[:, 0] > np.median(X[:, 0])) ^ (rng.random(n) < rng.choice([0.05, 0.2, 0.4]))).astype(int)
    _maps_match_the_row_scan(X, y, depth)


# ---------------------------------------------------------------- three classes and more


def _classes(seed: int, n: int, p: int, k: int, values: int, noise: float = 0.2):
    """k classes from a two-feature rule over features of ``values`` distinct
    values (runs of equal values when few), ``noise`` of the labels redrawn."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(n, p)).astype(np.float64)
    cut0, cut1 = np.median(X[:, 0]), np.median(X[:, 1 % p])
    y = ((X[:, 0] > cut0).astype(int) * 2 + (X[:, 1 % p] > cut1)) % k
    redraw = rng.random(n) < noise
    y[redraw] = rng.integers(0, k, size=int(redraw.sum()))
    return X, y


@pytest.mark.parametrize("k", [3, 5, 16])
@pytest.mark.parametrize("n", [63, 64, 65, 190])
def test_many_classes_at_depth_two_with_maps_are_the_exact_optimum(n, k):
    """Three classes and more keep a label map per class: the answer is
    the enumeration's and the search the row scan's, call by call."""
    X, y = _classes(n + k, n, 3, k, 10**6)
    with scanned():
        on = _fit(X, y, 2, 1)
        off = _fit(X, y, 2, 0)
    assert on.stats_["map_moves"] > 0 and off.stats_["map_moves"] == 0
    assert on.train_error_ == depth2_objective(X, y)
    _same(on, off, X)


@pytest.mark.parametrize("seed", [0, 17, 22, 23, 28, 54])
def test_many_classes_with_maps_match_the_row_scan(seed):
    """Hundreds to thousands of rows, 3-7 classes, runs of equal values:
    the same D2Split calls and tree as the scan without maps (whose answers
    the brute-force tests check), the objective recomputed.  A child with a
    single row in a word and its next candidate in a later word takes its
    previous row from the words passed: keeping it only from words of two
    rows or more changed the search on seeds 17, 22, 23, 28 and 54 (of 60
    drawn this way) and on none of the other tests here."""
    rng = np.random.default_rng(1000 + seed)
    n, p, k = int(rng.integers(300, 3000)), int(rng.integers(2, 5)), int(rng.integers(3, 8))
    values, depth = int(rng.choice([3, 20, 200])), int(rng.choice([2, 3]))
    X, y = _classes(seed, n, p, k, values, float(rng.choice([0.05, 0.3])))
    _maps_match_the_row_scan(X, y, depth)


@pytest.mark.parametrize("seed", range(4))
def test_many_classes_at_depth_four_with_maps(seed):
    """Depth four: maps of depth-two nodes under every depth-three split,
    nodes of one size in one buffer, against the row scan."""
    rng = np.random.default_rng(seed)
    X, y = _classes(seed, int(rng.integers(150, 400)), 3, int(rng.integers(3, 6)),
                    int(rng.choice([20, 10**6])), 0.3)
    _maps_match_the_row_scan(X, y, 4)


@settings(max_examples=n_examples(30), **SETTINGS)
@given(run_data(), st.sampled_from([1, 3]), st.integers(3, 6), st.integers(0, 2**16))
def test_many_classes_in_runs_across_words_with_maps(inst, min_leaf, k, seed):
    """Runs of equal values ending anywhere in a word, leaf sizes, and
    labels of k classes: maps on and off give the enumeration's optimum by
    the same search."""
    X, y = inst
    y = (y + np.random.default_rng(seed).integers(0, k, size=len(y)) * (np.arange(len(y)) % 3 == 0)) % k
    with scanned():
        on = _fit(X, y, 2, 1, min_samples_leaf=min_leaf)
        off = _fit(X, y, 2, 0, min_samples_leaf=min_leaf)
    assert on.train_error_ == depth2_objective(X, y, min_samples_leaf=min_leaf)
    _same(on, off, X)


def test_maps_stop_at_sixteen_classes_and_count_a_map_per_class():
    """Up to 16 classes the maps take a position per row and feature, the
    side and change bits and a bit per class; with 17 there are none (a
    candidate's popcount per class would cost more than the row scan)."""
    n, p = 2000, 4
    for k, mapped in ((16, True), (17, False)):
        X, y = _classes(k, n, p, k, 10**6)
        on = _fit(X, y, 2, 1)
        off = _fit(X, y, 2, 0)
        assert (on.stats_["map_moves"] > 0) == mapped
        maps = n * p * 4 + (2 + k) * p * ((n + 63) // 64) * 8 + 2 * k * 4 if mapped else 0
        assert on.stats_["search_megabytes"] - off.stats_["search_megabytes"] == pytest.approx(maps / 2**20)
        _same(on, off, X, search=False)
