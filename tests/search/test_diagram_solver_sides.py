"""A multivariate MILP answer is read by the sides its flows chose, not by
its raw hyperplane: HiGHS may put a point on the positive side with its
projection a feasibility tolerance below b (a big-M row relaxed by a flow of
0.9999993).  Read raw, that diagram misclassifies the point and fails its
check; hepatitis (seed 0, skeleton (1, 2, 4, 8)) then came back unproven with
3 nodes, though the solver's one-node diagram is perfect."""
from __future__ import annotations

import numpy as np
import pytest

from optimaltrees.search.diagram.formulation import build_milp, sides_from_vector, start_vector
from optimaltrees.search.diagram.heuristic import Points, Settings, objective
from optimaltrees.search.diagram.skeleton import Placement, make_skeleton
from optimaltrees.search.diagram.train import clean_splits


def _one_node(coef, threshold, skeleton, d):
    plc = Placement.empty(skeleton, d)
    plc.active[0] = True
    plc.coef[0] = coef
    plc.threshold[0] = threshold
    plc.negative[0], plc.positive[0] = skeleton.terminal(0), skeleton.terminal(1)
    return plc


@pytest.mark.parametrize("below", [1.4e-6, 1e-5, 5e-5])   # route() itself forgives 1e-7
def test_the_flows_sides_decide_the_cleaned_threshold(below):
    skeleton = make_skeleton((1,), 2)
    X = np.array([[0.10, 0.20], [0.30, 0.10], [0.60, 0.70], [0.80, 0.90], [0.50, 0.50]])
    counts = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [0, 1]], dtype=float)
    points = Points(X, counts)
    a = np.array([0.5, 0.5])
    b = float(X[4] @ a) + below          # the last point is a hair below the solver's b
    plc = _one_node(a, b, skeleton, 2)
    flows = np.array([[0], [0], [1], [1], [1]], dtype=np.int8)   # but its flow went positive
    raw = clean_splits(plc, points, skeleton, univariate=False)
    read = clean_splits(plc, points, skeleton, univariate=False, solver_sides=flows)
    assert objective(points, skeleton, raw, Settings())[1] == 1           # read raw: one error
    assert objective(points, skeleton, read, Settings())[1] == 0          # as the solver meant
    cls, _, _ = read.route(skeleton, X)
    assert cls.tolist() == [0, 0, 1, 1, 1]
    # the threshold sits strictly between the two sides' projections
    proj = X @ read.coef[0]
    assert proj[:2].max() < read.threshold[0] <= proj[2:].min()


def test_without_flow_a_point_keeps_its_routed_side():
    skeleton = make_skeleton((1,), 2)
    X = np.array([[0.1, 0.1], [0.9, 0.9], [0.5, 0.5]])
    points = Points(X, np.array([[1, 0], [0, 1], [1, 0]], dtype=float))
    plc = _one_node(np.array([0.5, 0.5]), 0.7, skeleton, 2)
    flows = np.array([[0], [1], [-1]], dtype=np.int8)       # -1: the solver sent nothing through
    a = clean_splits(plc, points, skeleton, univariate=False, solver_sides=flows)
    b = clean_splits(plc, points, skeleton, univariate=False)
    assert a.threshold[0] == b.threshold[0]


def test_sides_from_vector_reads_a_start_back():
    """The sides of the MILP's start vector are the placement's own routes."""
    rng = np.random.default_rng(3)
    X = rng.random((12, 3))
    counts = np.zeros((12, 2))
    counts[np.arange(12), (X[:, 0] > 0.5).astype(int)] = 1
    skeleton = make_skeleton((1, 2), 2)
    milp = build_milp(Points(X, counts), skeleton, Settings(), multivariate=True)
    plc = Placement.empty(skeleton, 3)
    plc.active[:2] = True
    plc.coef[0, 0] = plc.coef[1, 1] = 1.0
    plc.threshold[0], plc.threshold[1] = 0.5, 0.4
    plc.negative[0], plc.positive[0] = 1, skeleton.terminal(1)
    plc.negative[1], plc.positive[1] = skeleton.terminal(0), skeleton.terminal(1)
    x = start_vector(milp, Points(X, counts), skeleton, plc)
    got = sides_from_vector(milp, x)
    _, path, sides = plc.route(skeleton, X)
    for i in range(12):
        for layer in range(2):
            u = path[i, layer]
            if u >= 0:
                assert got[i, u] == int(sides[i, layer])
        assert (got[i] >= 0).sum() == (path[i] >= 0).sum()
