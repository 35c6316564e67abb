"""The diagram MILP of ../shared/papers/notes/odd.md as sparse arrays, so that
any solver takes it (HiGHS through ``passModel``, Gurobi through ``addMConstr``).

Rows are per distinct training point with class counts as weights (rows
with equal features follow one path).  Univariate points hold per-column
*ranks* (0, 1, 2, ... over the distinct values), so a candidate test
"rank_j >= r" is exact whatever the original values (outliers, 1e19,
denormals).  Multivariate points hold features scaled to [0, 1], and the
hyperplane constraints (13)/(14) use big-M values that hold there under
``||a||_1 <= 1``: per point M- = 1 + max_j x_ij + epsilon and
M+ = 1 + max_j x_ij, so flows and sides stay continuous (only lambda, the
arcs y and univariate feature choices are integer; Theorem 1 makes the
flows integral; univariate tests need no lambda, see :func:`build_milp`).
The size is estimated before anything is built (:func:`milp_size`), and the
builder gives up at a deadline.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from optimaltrees.search.diagram.heuristic import Points, Settings, node_penalty
from optimaltrees.search.diagram.skeleton import Placement, Skeleton


@dataclass
class Milp:
    """min c x  s.t.  row_lower <= A x <= row_upper,  lower <= x <= upper, x_j integer where marked."""

    cost: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    integer: np.ndarray
    A: sparse.csc_matrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    index: dict                    # variable block name -> array of column ids
    n_features: int = 0

    @property
    def n_cols(self) -> int:
        return len(self.cost)

    @property
    def n_rows(self) -> int:
        return len(self.row_lower)


class OutOfTime(Exception):
    """The deadline passed while the MILP was being built."""


class _Builder:
    def __init__(self, deadline: float | None = None) -> None:
        self.deadline = deadline
        self.lower: list[np.ndarray] = []
        self.upper: list[np.ndarray] = []
        self.integer: list[np.ndarray] = []
        self.n_cols = 0
        self.r: list[np.ndarray] = []
        self.c: list[np.ndarray] = []
        self.v: list[np.ndarray] = []
        self.lo: list[np.ndarray] = []
        self.hi: list[np.ndarray] = []
        self.n_rows = 0

    def check_time(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfTime

    def cols(self, shape, lb: float, ub: float, integer: bool = False) -> np.ndarray:
        self.check_time()
        size = int(np.prod(shape))
        ids = np.arange(self.n_cols, self.n_cols + size).reshape(shape)
        self.n_cols += size
        self.lower.append(np.full(size, lb, dtype=float))
        self.upper.append(np.full(size, ub, dtype=float))
        self.integer.append(np.full(size, integer))
        return ids

    def rows(self, cols: np.ndarray, vals, lo, hi) -> None:
        """One row per leading index of ``cols`` (R, k); ``vals`` broadcasts to it."""
        self.check_time()
        cols = np.atleast_2d(cols)
        R, k = cols.shape
        vals = np.broadcast_to(np.asarray(vals, dtype=float), (R, k))
        self.r.append(np.repeat(np.arange(self.n_rows, self.n_rows + R), k))
        self.c.append(cols.reshape(-1))
        self.v.append(vals.reshape(-1))
        self.lo.append(np.broadcast_to(np.asarray(lo, dtype=float), (R,)).copy())
        self.hi.append(np.broadcast_to(np.asarray(hi, dtype=float), (R,)).copy())
        self.n_rows += R

    def build(self, cost: np.ndarray, index: dict, n_features: int) -> Milp:
        self.check_time()
        r, c, v = (np.concatenate(x) if x else np.empty(0) for x in (self.r, self.c, self.v))
        keep = v != 0
        A = sparse.csc_matrix((v[keep], (r[keep].astype(np.int64), c[keep].astype(np.int64))),
                              shape=(self.n_rows, self.n_cols))
        A.sum_duplicates()
        return Milp(cost, np.concatenate(self.lower), np.concatenate(self.upper),
                    np.concatenate(self.integer), A, np.concatenate(self.lo), np.concatenate(self.hi), index, n_features)


INF = np.inf


MAX_TEST_NONZEROS = 3_000_000   # above this, univariate splits fall back to big-M rows
MAX_MILP_NONZEROS = 30_000_000  # refused beyond this: ~3 GB to build, far beyond what HiGHS solves
BUILD_RATE = 2_000_000          # nonzeros built (and passed to the solver) per second, conservatively


def milp_size(n_points: int, skeleton: Skeleton, n_features: int, *, n_tests: int | None,
              min_flow: bool = False, fairness: bool = False, error_cuts: int = 0) -> tuple[int, int]:
    """(columns, nonzeros) of :func:`build_milp`, from the sizes alone (Python
    ints, nothing allocated).  ``n_tests``: the candidate tests of univariate
    splits, None for hyperplanes; ``error_cuts``: rows on the error rate
    (cuts and floor).  Exact up to the few per-node rows."""
    P, d = int(n_points), int(n_features)
    m, D, K = skeleton.n_internal, skeleton.depth, skeleton.n_classes
    widths = list(skeleton.widths)
    A = sum(w * (v + K) for w, v in zip(widths, widths[1:] + [0]))
    A_int = sum(w * v for w, v in zip(widths, widths[1:]))       # arcs into internal nodes
    cols = m + 2 * A + 2 * P * m + 2 * P * A
    nnz = (2 * P + P * (2 * (m - 1) + 2 * A_int)                   # (1)
           + 2 * P * (m + A)                                       # (2) (3)
           + 4 * P * A                                             # (9) (10)
           + 8 * A + 4 * m)                                        # (6) (7) (8) (11) (12), roughly
    if n_tests is not None and P * n_tests * m <= MAX_TEST_NONZEROS:
        cols += m * n_tests
        nnz += m * n_tests + 2 * m * P + m * P * n_tests + 2 * m
    else:
        cols += 2 * m * d + m + P * D
        nnz += 2 * m * (2 * P + 2 * P * d) + 2 * m * d + 2 * P * (m + D)   # ..., (4) (5)
    if error_cuts:     # the error-rate column, its dense defining row, and the short cut rows
        cols += 1
        nnz += 1 + 2 * P * m * K + error_cuts * (m + 1)
    if min_flow:
        nnz += (m - 1) * (2 * P + 1)
    if fairness:
        nnz += 4 * P * K * m
    return cols, nnz


def check_milp_size(n_points: int, skeleton: Skeleton, n_features: int, *, n_tests: int | None,
                    min_flow: bool = False, fairness: bool = False, error_cuts: int = 0) -> tuple[int, int]:
    """:func:`milp_size`, or a ValueError naming the sizes when the MILP would
    be beyond :data:`MAX_MILP_NONZEROS` (before anything of that size exists)."""
    cols, nnz = milp_size(n_points, skeleton, n_features, n_tests=n_tests, min_flow=min_flow, fairness=fairness,
                          error_cuts=error_cuts)
    if nnz > MAX_MILP_NONZEROS:
        raise ValueError(
            f"the diagram MILP would have ~{cols:,} variables and ~{nnz:,} nonzeros ({n_points:,} distinct "
            f"rows x {skeleton.n_arcs:,} arcs of the skeleton {skeleton.widths} with {skeleton.n_classes} "
            f"classes), beyond the {MAX_MILP_NONZEROS:,} it can hold: use fewer rows, fewer classes or a "
            "smaller skeleton")
    return cols, nnz


def candidate_tests(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(feature, threshold) of every distinct univariate partition: "x_j >= v"
    for each distinct value v of column j but the smallest, plus "always"
    (feature 0, threshold -inf) so that a node can send every row one way.
    On rank-coded points the comparisons are exact (integers)."""
    feats, values = [0], [-np.inf]
    for j in range(X.shape[1]):
        v = np.unique(X[:, j])[1:]
        feats.extend([j] * len(v))
        values.extend(v.tolist())
    return np.asarray(feats, dtype=np.intp), np.asarray(values, dtype=float)


def build_milp(points: Points, skeleton: Skeleton, settings: Settings, *, multivariate: bool = False,
               deadline: float | None = None, error_cuts: list[tuple[float, float]] = (),
               objective_floor: float = 0.0) -> Milp:
    """The MILP.  Univariate splits choose one of the candidate tests with a
    binary per (node, test) and route by it without big-M (tight LP), unless
    that matrix would be too large; multivariate splits use big-M hyperplanes.
    ``error_cuts`` (a, b): "error rate >= a + b * used nodes" rows, and
    ``objective_floor``: "objective >= floor", both from the exact trees
    (:mod:`optimaltrees.search.diagram.trees`): valid for every diagram, and
    far above the relaxation's own error term (which is near 0).
    Raises :class:`OutOfTime` once ``deadline`` (``time.perf_counter``) passes."""
    X, cnt = points.X, points.counts
    P, d = X.shape
    K, m, A, D = skeleton.n_classes, skeleton.n_internal, skeleton.n_arcs, skeleton.depth
    tail, head = skeleton.arc_tail, skeleton.arc_head
    eps = settings.epsilon
    b = _Builder(deadline)
    # univariate: a = e_j and b in [0, 1] (the low side is the negative one;
    # nothing to flip, so no sign variables and no side-swap symmetry);
    # multivariate: a = ap - an with ||a||_1 <= 1 and b in [-1, 1]
    tests = None
    if not multivariate:
        tf, tv = candidate_tests(X)
        if P * len(tf) * m <= MAX_TEST_NONZEROS:
            tests = (tf, tv)
    # lambda (one side per layer, (4) (5)) makes the flows integral where
    # the sides come from hyperplanes; with one chosen test per node a
    # point's side at every node is fixed by integral test choices, so the
    # flows are integral without it (by induction from the root's unit flow)
    lam = b.cols((P, D), 0, 1, integer=True) if tests is None else None
    dn = b.cols((m,), 0, 1)
    yn = b.cols((A,), 0, 1, integer=True)
    yp = b.cols((A,), 0, 1, integer=True)
    wn = b.cols((P, m), 0, 1)
    wp = b.cols((P, m), 0, 1)
    zn = b.cols((P, A), 0, 1)
    zp = b.cols((P, A), 0, 1)
    rank_scale = None
    if tests is None:
        ap = b.cols((m, d), 0, 1, integer=not multivariate)
        an = b.cols((m, d), 0, 1 if multivariate else 0)
        bb = b.cols((m,), -1 if multivariate else 0, 1)
        index = dict(ap=ap, an=an, b=bb)
        if not multivariate:
            # ranks -> [0, 1] per column: neighbours are >= 1 / top apart, so a
            # margin of half that is exact and far above the solver's 1e-7
            top = np.maximum(X.max(axis=0), 1.0) if P else np.ones(d)
            rank_scale = 1.0 / top
            X = X * rank_scale
            eps = min(eps, 0.5 / float(top.max()))
            index.update(rank_scale=rank_scale)
    else:
        tsel = b.cols((m, len(tests[0])), 0, 1, integer=True)
        index = dict(t=tsel, test_feature=tests[0], test_value=tests[1])
    b.lower[1 if lam is not None else 0][0] = 1.0   # the root is always active
    index.update(d=dn, yn=yn, yp=yp, wn=wn, wp=wp, zn=zn, zp=zp)
    if lam is not None:
        index.update(lam=lam)

    arcs_in = [skeleton.arcs_in(v) for v in range(m + K)]
    arcs_out = [skeleton.arcs_out(u) for u in range(m)]
    # (1) flow conservation into every node's two sides
    b.rows(np.stack([wn[:, 0], wp[:, 0]], axis=1), 1.0, 1.0, 1.0)
    for v in range(1, m):
        a = arcs_in[v]
        b.rows(np.hstack([wn[:, [v]], wp[:, [v]], zn[:, a], zp[:, a]]),
               np.r_[1.0, 1.0, -np.ones(2 * len(a))], 0.0, 0.0)
    # (2) (3) each side's flow leaves on its arcs
    for u in range(m):
        a = arcs_out[u]
        b.rows(np.hstack([wn[:, [u]], zn[:, a]]), np.r_[1.0, -np.ones(len(a))], 0.0, 0.0)
        b.rows(np.hstack([wp[:, [u]], zp[:, a]]), np.r_[1.0, -np.ones(len(a))], 0.0, 0.0)
    # (4) (5) one side per layer for each point
    for layer in (range(D) if lam is not None else ()):
        nodes = list(skeleton.layer_nodes(layer))
        b.rows(np.hstack([wn[:, nodes], lam[:, [layer]]]), 1.0, -INF, 1.0)
        b.rows(np.hstack([wp[:, nodes], lam[:, [layer]]]), np.r_[np.ones(len(nodes)), -1.0], -INF, 0.0)
    # (6) an active node has one arc per side
    for u in range(m):
        a = arcs_out[u]
        b.rows(np.r_[yp[a], dn[u]][None], np.r_[np.ones(len(a)), -1.0], 0.0, 0.0)
        b.rows(np.r_[yn[a], dn[u]][None], np.r_[np.ones(len(a)), -1.0], 0.0, 0.0)
    # (7) an active non-root node has an incoming arc; (tree) at most one
    for v in range(1, m):
        a = arcs_in[v]
        b.rows(np.r_[dn[v], yp[a], yn[a]][None], np.r_[1.0, -np.ones(2 * len(a))], -INF, 0.0)
        if settings.tree:
            b.rows(np.r_[yp[a], yn[a]][None], 1.0, -INF, 1.0)
    # (8) arcs only into active nodes (so never both sides into one node)
    internal = head < m
    idx = np.flatnonzero(internal)
    b.rows(np.stack([yp[idx], yn[idx], dn[head[idx]]], axis=1), np.array([1.0, 1.0, -1.0]), -INF, 0.0)
    idx = np.flatnonzero(~internal)
    b.rows(np.stack([yp[idx], yn[idx]], axis=1), 1.0, -INF, 1.0)
    # (9) (10) flow only on existing arcs
    b.rows(np.stack([zp.reshape(-1), np.tile(yp, P)], axis=1), np.array([1.0, -1.0]), -INF, 0.0)
    b.rows(np.stack([zn.reshape(-1), np.tile(yn, P)], axis=1), np.array([1.0, -1.0]), -INF, 0.0)
    # (11) negative target before positive target (only where sides can be swapped)
    for u in (range(m) if multivariate else ()):
        a = arcs_out[u]
        for k, arc in enumerate(a):
            earlier = a[head[a] <= head[arc]]
            b.rows(np.r_[yn[arc], yp[earlier]][None], 1.0, -INF, 1.0)
    # (12) in-degrees non-increasing inside every layer below the root
    for layer in range(1, D):
        nodes = list(skeleton.layer_nodes(layer))
        for u, v in zip(nodes[:-1], nodes[1:]):
            au, av = arcs_in[u], arcs_in[v]
            b.rows(np.r_[yp[au], yn[au], yp[av], yn[av]][None],
                   np.r_[np.ones(2 * len(au)), -np.ones(2 * len(av))], 0.0, INF)
    if tests is not None:
        _test_rows(b, X, tests, tsel, wn, wp)
        # an unused node takes the "always" test (no choice to branch on)
        b.rows(np.stack([tsel[1:, 0], dn[1:]], axis=1), 1.0, 1.0, INF)
    else:
        _hyperplane_block(b, X, multivariate, eps, ap, an, bb, wn, wp)
    _side_constraints(b, points, skeleton, settings, dn, wn, wp, zn, zp, arcs_in)
    # (18) misclassified share plus the price of non-root nodes
    cost = np.zeros(b.n_cols)
    weight = cnt.sum(axis=1)
    n = float(weight.sum())
    term = np.flatnonzero(~internal)
    wrong = (weight[:, None] - cnt[:, head[term] - m]) / n          # (P, terminal arcs)
    cost[zn[:, term]] = wrong
    cost[zp[:, term]] = wrong
    cost[dn[1:]] = node_penalty(skeleton, settings.alpha)
    if len(error_cuts) or objective_floor > 0:
        # one column for the error rate (one dense row defines it), so that each cut is a short row
        rate = b.cols((1,), 0, INF)
        cost = np.r_[cost, 0.0]
        error_cols = np.r_[zn[:, term].reshape(-1), zp[:, term].reshape(-1)]
        error_vals = np.r_[wrong.reshape(-1), wrong.reshape(-1)]
        b.rows(np.r_[rate, error_cols][None], np.r_[1.0, -error_vals], 0.0, 0.0)
        for a, slope in error_cuts:
            b.rows(np.r_[rate, dn][None], np.r_[1.0, np.full(m, -slope)], a, INF)
        if objective_floor > 0:
            b.rows(np.r_[rate, dn[1:]][None], np.r_[1.0, cost[dn[1:]]], objective_floor, INF)
        index.update(error_rate=rate)
    return b.build(cost, index, d)


def _test_rows(b: _Builder, X, tests, tsel, wn, wp) -> None:
    """One test per node; a point takes a side only if the chosen test sends it there."""
    tf, tv = tests
    m, T = tsel.shape
    B = X[:, tf] >= tv                                   # (P, T) positive side of each test
    b.rows(tsel, 1.0, 1.0, 1.0)
    P = X.shape[0]
    for u in range(m):
        for side, w in ((True, wp), (False, wn)):
            pi, k = np.nonzero(B == side)
            rows_i = np.r_[np.arange(P), pi]
            cols = np.r_[w[:, u], tsel[u, k]]
            vals = np.r_[np.ones(P), -np.ones(len(k))]
            b.r.append(b.n_rows + rows_i)
            b.c.append(cols)
            b.v.append(vals)
            b.lo.append(np.full(P, -INF))
            b.hi.append(np.zeros(P))
            b.n_rows += P


def _hyperplane_block(b: _Builder, X, multivariate, eps, ap, an, bb, wn, wp) -> None:
    """(13) (14) hyperplanes, big-M per point; only nonzero features enter."""
    P, d = X.shape
    m = len(bb)
    xmax = X.max(axis=1) if d else np.zeros(P)
    if multivariate:   # |a . x| <= max_j x_j and |b| <= 1
        m_neg, m_pos = 1.0 + xmax + eps, 1.0 + xmax
    else:              # a . x in [min_j x_j, max_j x_j] and b in [0, 1]
        m_neg, m_pos = xmax + eps, 1.0 - (X.min(axis=1) if d else np.zeros(P))
    nz_i, nz_j = np.nonzero(X)
    for u in range(m):
        _hyperplane_rows(b, X, nz_i, nz_j, ap[u], an[u], bb[u], wn[:, u], m_neg, m_neg - eps, sign=1.0)
        _hyperplane_rows(b, X, nz_i, nz_j, ap[u], an[u], bb[u], wp[:, u], m_pos, m_pos, sign=-1.0)
    # univariate: one feature per node; multivariate: ||a||_1 <= 1
    b.rows(np.hstack([ap, an]), 1.0, 1.0 if not multivariate else -INF, 1.0)


def _side_constraints(b: _Builder, points: Points, skeleton: Skeleton, settings: Settings,
                      dn, wn, wp, zn, zp, arcs_in) -> None:
    """Parsimony, stability and fairness."""
    m = skeleton.n_internal
    cnt = points.counts
    if settings.max_nodes is not None:
        b.rows(dn[None], 1.0, -INF, float(settings.max_nodes))
    weight = cnt.sum(axis=1)
    if settings.min_flow > 0:
        for v in range(1, m):
            b.rows(np.r_[wn[:, v], wp[:, v], dn[v]][None], np.r_[weight, weight, -settings.min_flow], 0.0, INF)
    if settings.fairness is not None:
        positive, ratio = settings.fairness
        into = arcs_in[m + positive]
        g = points.group
        share = [np.where(g == k, weight, 0.0) / weight[g == k].sum() for k in (0, 1)]
        for k in (0, 1):      # rate(k) >= ratio * rate(1 - k)
            coef = share[k] - ratio * share[1 - k]
            cols = np.r_[zn[:, into].reshape(-1), zp[:, into].reshape(-1)]
            vals = np.r_[np.repeat(coef, len(into)), np.repeat(coef, len(into))]
            b.rows(cols[None], vals, 0.0, INF)


def _hyperplane_rows(b: _Builder, X, nz_i, nz_j, ap_u, an_u, b_u, w_u, big_m, rhs, sign: float) -> None:
    """sign * (a . x_i - b) + M_i w_i <= rhs_i for every point i."""
    P = X.shape[0]
    rows_i = np.r_[nz_i, nz_i, np.arange(P), np.arange(P)]
    cols = np.r_[ap_u[nz_j], an_u[nz_j], np.full(P, b_u), w_u]
    vals = np.r_[sign * X[nz_i, nz_j], -sign * X[nz_i, nz_j], np.full(P, -sign), big_m]
    b.r.append(b.n_rows + rows_i)
    b.c.append(cols)
    b.v.append(vals)
    b.lo.append(np.full(P, -INF))
    b.hi.append(np.asarray(rhs, dtype=float).copy())
    b.n_rows += P


def start_vector(milp: Milp, points: Points, skeleton: Skeleton, plc: Placement) -> np.ndarray:
    """Every MILP variable's value for a (canonical) placement: the solver's start."""
    ix = milp.index
    x = np.zeros(milp.n_cols)
    m = skeleton.n_internal
    _, path, sides = plc.route(skeleton, points.X)
    arc_of = np.full((m, m + skeleton.n_classes), -1, dtype=np.intp)    # (tail, head) -> arc id
    arc_of[skeleton.arc_tail, skeleton.arc_head] = np.arange(skeleton.n_arcs)
    x[ix["d"][plc.active]] = 1.0
    if "error_rate" in ix:
        cls, _, _ = plc.route(skeleton, points.X)
        x[ix["error_rate"]] = (points.n - float(points.counts[np.arange(len(cls)), cls].sum())) / points.n
    for u in np.flatnonzero(plc.active):
        x[ix["yn"][skeleton.arc(u, int(plc.negative[u]))]] = 1.0
        x[ix["yp"][skeleton.arc(u, int(plc.positive[u]))]] = 1.0
    for layer in range(skeleton.depth):
        at = np.flatnonzero(path[:, layer] >= 0)
        u, pos = path[at, layer], sides[at, layer]
        if "lam" in ix:
            x[ix["lam"][at, layer]] = pos
        x[np.where(pos, ix["wp"][at, u], ix["wn"][at, u])] = 1.0
        target = np.where(pos, plc.positive[u], plc.negative[u])
        arc = arc_of[u, target]
        if (arc < 0).any():
            raise KeyError("the start diagram uses an arc the skeleton does not have")
        if len(arc):
            x[np.where(pos, ix["zp"][at, arc], ix["zn"][at, arc])] = 1.0
    if "t" in ix:
        tf, tv = ix["test_feature"], ix["test_value"]
        for u in range(m):
            k = 0   # "always" for unused nodes and trivial splits
            if plc.active[u]:
                j = int(np.argmax(np.abs(plc.coef[u])))
                hit = np.flatnonzero((tf == j) & (tv == plc.threshold[u]))
                if len(hit):
                    k = int(hit[0])
                elif plc.threshold[u] > 0:
                    raise ValueError("the start's split is not a candidate test")
            x[ix["t"][u, k]] = 1.0
    else:
        coef = plc.coef.copy()
        coef[~plc.active] = 0.0
        coef[~plc.active, 0] = 1.0   # univariate rows need one feature even when unused
        x[ix["ap"]] = np.maximum(coef, 0.0)
        x[ix["an"]] = np.maximum(-coef, 0.0)
        threshold = np.where(plc.active, plc.threshold, 0.0)
        if "rank_scale" in ix:    # univariate big-M: the rank threshold on the [0, 1]-scaled ranks
            j = np.argmax(np.abs(coef), axis=1)
            threshold = np.clip(threshold, 0.0, None) * ix["rank_scale"][j]
        x[ix["b"]] = threshold
    return x


def placement_from_vector(milp: Milp, skeleton: Skeleton, x: np.ndarray) -> Placement:
    """The diagram a solver's answer encodes (d, y rounded at 0.5)."""
    ix = milp.index
    m = skeleton.n_internal
    plc = Placement.empty(skeleton, milp.n_features)
    plc.active[:] = x[ix["d"]] > 0.5
    plc.active[0] = True
    if "t" in ix:
        k = np.argmax(x[ix["t"]], axis=1)
        plc.coef[np.arange(m), ix["test_feature"][k]] = 1.0
        plc.threshold[:] = np.where(np.isfinite(ix["test_value"][k]), ix["test_value"][k], -1.0)
    else:
        plc.coef[:] = x[ix["ap"]] - x[ix["an"]]
        plc.threshold[:] = x[ix["b"]]
        if "rank_scale" in ix:
            # back to ranks: the solver's b lies within 1e-7 of the scaled ranks
            # it separates, which are >= 1 / top apart; round onto the rank grid
            j = np.argmax(np.abs(plc.coef), axis=1)
            plc.coef[:] = 0.0
            plc.coef[np.arange(m), j] = 1.0
            plc.threshold[:] = np.ceil(plc.threshold / ix["rank_scale"][j] - 0.25)
    for name, arr in (("yn", plc.negative), ("yp", plc.positive)):
        on = np.flatnonzero(x[ix[name]] > 0.5)
        arr[skeleton.arc_tail[on]] = skeleton.arc_head[on]
    plc.negative[~plc.active] = -1
    plc.positive[~plc.active] = -1
    plc.coef[~plc.active] = 0.0
    plc.threshold[~plc.active] = 0.0
    return plc


def sides_from_vector(milp: Milp, x: np.ndarray) -> np.ndarray:
    """(points, nodes): the side of each node a solver's answer sends each
    point's flow to: 1 positive, 0 negative, -1 where the point does not pass."""
    wn, wp = x[milp.index["wn"]], x[milp.index["wp"]]
    return np.where(wn + wp > 0.5, wp > wn, -1).astype(np.int8)
