"""The primal integral (CA-DL8.5 / Berthold 2013) and the lossless reductions."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from oracle import brute_force_objective
from instances import SETTINGS, instances
from helpers import n_examples

from optimaltrees.anytime import TracePoint, primal_integral
from optimaltrees.data.reduction import reduce_problem


def test_primal_integral_by_hand():
    # no tree for 1 s (gap 1), then 20 errors vs optimum 10 (gap 0.5) for 2 s,
    # then the optimum: P(10) = 1*1 + 0.5*2 + 0 = 2  ->  100 * 2 / 10 = 20
    assert primal_integral([(1.0, 20), (3.0, 10)], 10, 10.0) == pytest.approx(20.0)
    # a greedy tree at t=0 with gap 0.25 that never improves: 25 for any horizon
    for T in (1.0, 60.0):
        assert primal_integral([(0.0, 40)], 30, T) == pytest.approx(25.0)
    # improvements after the horizon do not count
    assert primal_integral([(0.0, 20), (5.0, 10)], 10, 4.0) == pytest.approx(50.0)
    # optimum 0: any positive incumbent has gap 1
    assert primal_integral([(0.0, 5), (1.0, 0)], 0, 2.0) == pytest.approx(50.0)
    # no solution at all
    assert primal_integral([], 3, 5.0) == pytest.approx(100.0)


def test_primal_integral_accepts_trace_points():
    trace = [TracePoint(0.5, 12, 12.0, 0.0), TracePoint(1.5, 6, 6.0, 6.0)]
    assert primal_integral(trace, 6, 2.0) == pytest.approx(100 * (0.5 + 0.5 * 1.0) / 2.0)


def test_primal_integral_rejects_nonsense():
    with pytest.raises(ValueError, match="horizon"):
        primal_integral([(0.0, 1)], 1, 0.0)
    with pytest.raises(ValueError, match="below the optimum"):
        primal_integral([(0.0, 1)], 2, 1.0)
    with pytest.raises(ValueError, match="non-decreasing"):
        primal_integral([(1.0, 3), (0.5, 2)], 2, 2.0)


def test_redundant_features_dropped():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2, 50).astype(float)
    b = rng.normal(size=50)
    X = np.column_stack([a, 1 - a, b, 3 * b + 1, -b, np.full(50, 7.0), a])
    y = rng.integers(0, 2, 50)
    red = reduce_problem(X, y, 2)
    assert list(red.features) == [0, 2]


def test_conflicting_duplicates_cancel():
    X = np.array([[0.0], [0.0], [0.0], [1.0], [1.0], [2.0]])
    y = np.array([0, 1, 1, 0, 1, 2])
    red = reduce_problem(X, y, 3)
    # groups: {0,1,1} lacks class 2, {0,1} lacks class 2: nothing covers all 3 classes
    assert red.offset == 0 and red.rows_removed == 0
    red = reduce_problem(X, np.array([0, 1, 1, 0, 1, 1]), 2)
    assert red.offset == 2 and red.rows_removed == 4
    assert sorted(red.y.tolist()) == [1, 1]
    assert red.conflict_bound == 0


@settings(max_examples=n_examples(150), **SETTINGS)
@given(data=instances(max_n=12, max_features=3, max_classes=3), depth=st.integers(0, 2))
def test_reduction_preserves_the_optimum(data, depth):
    X, y = data
    _, y_index = np.unique(y, return_inverse=True)
    y_index = y_index.reshape(-1)
    k = int(y_index.max()) + 1
    red = reduce_problem(X, y_index, k)
    full = brute_force_objective(X, y_index, depth)
    reduced = brute_force_objective(X[red.rows][:, red.features], red.y, depth)
    assert reduced + red.offset == pytest.approx(full)
    assert red.conflict_bound + red.offset <= full + 1e-9


def test_progress_line_before_the_first_tree_shows_no_nan(capsys):
    """Before any tree the objective is infinite: the line says "-", not "nan%"."""
    from optimaltrees.anytime import Progress, ProgressLine

    line = ProgressLine(10.0)
    line.update(Progress(0.1, float("inf"), 3.0, 0, False))
    line.update(Progress(0.2, 8.0, 4.0, 0, True))
    line.close()
    err = capsys.readouterr().err
    assert "nan" not in err
    assert "best=- bound=3 gap=-" in err
    assert "best=8 bound=4 gap=50.00%" in err
