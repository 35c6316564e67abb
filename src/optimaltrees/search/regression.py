"""Drive the compiled engine over squared error and turn its node pool into a
:class:`~optimaltrees.model.regression_tree.RegressionTree`.

The engine is the classifier's (``search/engine``: one DP / branch-and-bound
core); its squared-error layout carries the objective.  Targets reach it
centred and scaled, and weights scaled to a mean of one, so that the engine's
absolute tolerances hold at any scale: its objective is the user's squared
error divided by ``unit`` (the total squared error over the row count)."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from optimaltrees.anytime import TracePoint
from optimaltrees.data.encoding import encode_features, threshold_between
from optimaltrees.data.missing import MISSING_LEFT, missing_columns
from optimaltrees.data.reduction import reduce_problem
from optimaltrees.model.regression_tree import RegressionTree
from optimaltrees.search.contree import SearchResult, tree_on_inputs
from optimaltrees.search.engine import build_squared_engine
from optimaltrees.search.strategies import greedy_restart

#: the engine's objective and the tree's recomputed one must agree within this
#: share of the total squared error (rounding of sums; anything more is a bug)
AGREEMENT = 1e-9


class _OutOfTime(Exception):
    """The time limit passed while the search was being prepared."""


@dataclass(frozen=True)
class Targets:
    """The targets as the engine sees them, and the way back."""

    engine_y: np.ndarray            # (y - mean) / spread: root squared error = rows
    engine_w: np.ndarray | None     # weights scaled to a mean of one (None: unweighted)
    unit: float                     # user squared error = engine objective x unit
    total_sse: float                # the root leaf's squared error (SST)


def weighted_sse(y: np.ndarray, w: np.ndarray | None) -> tuple[float, float]:
    """(mean, squared error around it) of the targets, in two passes.

    The deviations are taken from one of the targets first: between close
    values that difference is exact, while the mean itself may not be
    representable (within a rounding unit of the targets), and squaring
    deviations from a rounded mean would add n times that rounding squared."""
    ref = float(y[0])
    d = y - ref
    shift = float(np.average(d, weights=w))
    e = d - shift
    shift += float(np.average(e, weights=w))
    e = d - shift
    return ref + shift, float(np.dot(e * e, np.ones_like(e) if w is None else w))


def _power_of_two(x: float) -> float:
    """The power of two at or just above ``x`` (> 0): dividing by it is exact."""
    return math.ldexp(1.0, math.frexp(x)[1])


def scale_targets(y: np.ndarray, w: np.ndarray | None) -> Targets:
    """Centre and scale the targets (and weights) for the engine.

    Targets and weights are first divided by powers of two (exact) near
    their largest magnitudes, and the spread is measured after dividing by
    the largest deviation, so no sum overflows or underflows on the way.  A
    total squared error beyond what a double holds (about 1e308, or below
    1e-300) is refused: the user's units must change."""
    n = len(y)
    if n == 0:
        return Targets(np.zeros(0), w, 0.0, 0.0)
    y_top = float(np.max(np.abs(y)))
    if y_top == 0.0:
        return Targets(np.zeros(n), None if w is None else w * (n / w.sum()), 0.0, 0.0)
    y_unit = _power_of_two(y_top)
    w_unit = 1.0 if w is None else _power_of_two(float(w.max()))
    ys = y / y_unit
    ws = None if w is None else w / w_unit
    # centred on the corrected mean: an offset left in the engine's targets
    # would enter its sums of squares, though not its leaves' errors
    mean, _ = weighted_sse(ys, ws)
    top = float(np.max(np.abs(ys - mean)))
    total_ws = float(n if ws is None else ws.sum())
    engine_w = None if ws is None else np.ascontiguousarray(ws * (n / total_ws))
    if top == 0.0:
        return Targets(np.zeros(n), engine_w, 0.0, 0.0)
    z = (ys - mean) / top
    _, sst_z = weighted_sse(z, ws)
    spread = math.sqrt(sst_z / total_ws)
    if spread == 0.0:
        return Targets(np.zeros(n), engine_w, 0.0, 0.0)
    # in logarithms first: a float's ** raises OverflowError rather than giving inf
    log_sst = math.log(sst_z) + math.log(w_unit) + 2.0 * math.log(top * y_unit)
    if log_sst > 709.0:
        raise ValueError("the targets' squared error overflows float64: rescale y (e.g. to other units)")
    sst = sst_z * w_unit * (top * y_unit) * (top * y_unit)
    if sst < 1e-300:
        raise ValueError("the targets' squared error underflows float64: rescale y (e.g. to other units)")
    return Targets(np.ascontiguousarray(z / spread), engine_w, sst / n, sst)


def search_regression_tree(
    X: np.ndarray,
    y: np.ndarray,
    max_depth: int,
    *,
    node_cost: float = 0.0,
    max_gap: float = 0.0,
    min_samples_leaf: int = 1,
    time_limit: float | None = None,
    memory_limit_mb: float | None = None,
    sample_weight: np.ndarray | None = None,
    clock_start: float | None = None,
    seed: int = 0,
) -> SearchResult:
    """Minimise squared error + node_cost * branching nodes over trees of depth <= max_depth.

    ``X``: float64 (n, p), NaN for a missing value (searched: each split
    also chooses the side of the missing rows); ``y``: finite float64 targets; ``node_cost``
    and ``max_gap`` in the targets' squared units, finite and >= 0;
    ``sample_weight`` finite and >= 0 (rows of weight 0 are left out).
    ``time_limit`` counts from ``clock_start``.  At the limit the best tree
    found comes back with a valid lower bound (``timed_out``); Ctrl-C
    returns it too (``interrupted``)."""
    start = time.perf_counter() if clock_start is None else clock_start
    limit = math.inf if time_limit is None else float(time_limit)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    weight = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if weight is not None:
        kept = weight > 0
        X, y, weight = X[kept], y[kept], weight[kept]

    def checkpoint() -> None:
        if time.perf_counter() - start > limit:
            raise _OutOfTime

    nan_columns = missing_columns(X) if np.isnan(X).any() else None
    if nan_columns is not None:
        # each feature with missing values as two columns, the missing rows
        # below or above every value; the tree comes back in the input's terms
        result = search_regression_tree(nan_columns.X, y, max_depth, node_cost=node_cost, max_gap=max_gap,
                                        min_samples_leaf=min_samples_leaf, time_limit=time_limit,
                                        memory_limit_mb=memory_limit_mb, sample_weight=weight,
                                        clock_start=start, seed=seed)
        result.tree = tree_on_inputs(result.tree, nan_columns, X, RegressionArrays(y, weight))
        result.trace_trees = [result.tree]
        result.stats["features_with_missing_values"] = int(np.count_nonzero(nan_columns.side == MISSING_LEFT))
        return result
    targets = scale_targets(y, weight)
    try:
        enc = encode_features(X, checkpoint)
        red = reduce_problem(enc, np.zeros(len(y), dtype=np.intp), 1, cancel_rows=False,
                             checkpoint=checkpoint, weights=weight)
        enc = red.enc
        if targets.total_sse == 0.0 or max_depth == 0:
            return _leaf_result(X, y, weight, start, targets, interrupted=False, proven=True)
        cost_e = float(node_cost) / targets.unit
        mb = math.inf if memory_limit_mb is None else float(memory_limit_mb)
        engine = build_squared_engine(enc.order, enc.rank, targets.engine_y, int(max_depth), cost=cost_e,
                                      gap=float(max_gap) / targets.unit, min_leaf=int(min_samples_leaf),
                                      memory_limit_mb=mb, seed=seed, weights=targets.engine_w)
        n = enc.n_samples
        if math.isfinite(mb) and engine.memory_bytes / 2**20 > mb:
            raise ValueError(f"memory_limit={mb:g} MB is below the {engine.memory_bytes / 2**20:.2f} MB the "
                             f"search's buffers need for {n} rows x {enc.n_features} features")
        checkpoint()
    except _OutOfTime:
        return _leaf_result(X, y, weight, start, targets, interrupted=False, proven=False)
    except KeyboardInterrupt:
        return _leaf_result(X, y, weight, start, targets, interrupted=True, proven=False)

    def time_left() -> float:
        return max(limit - (time.perf_counter() - start), 1e-9)

    upper = math.inf
    greedy = None
    if math.isfinite(limit) and max_depth >= 2:
        # a fit that may stop early keeps the greedy tree at least
        greedy = greedy_restart(engine, time_left(), 0.0)
        upper = greedy.objective
    if greedy is not None and (greedy.aborted or greedy.lower_bound >= greedy.objective - 1e-9):
        outcome = greedy
    else:
        outcome = engine.solve(time_left(), 0.0, upper)
        if greedy is not None and greedy.objective <= outcome.objective:
            outcome = type(outcome)(greedy.objective, max(outcome.lower_bound, greedy.lower_bound),
                                    greedy.root, outcome.aborted)
    interrupted = bool(engine.interrupted)
    root = outcome.root if outcome.root >= 0 else 0
    tree = _tree_from_pool(engine.tree_arrays(), int(root), enc, red.features, X, y, weight)
    objective = tree.squared_error() + node_cost * tree.n_branch_nodes
    engine_objective = (outcome.objective if outcome.root >= 0 else
                        float(tree.squared_error() / targets.unit)) * targets.unit
    if abs(engine_objective - objective) > AGREEMENT * targets.total_sse + 1e-300:
        raise RuntimeError(f"internal error: the search scored its tree {engine_objective!r}, the tree "
                           f"recomputes to {objective!r}")
    slack = AGREEMENT * targets.total_sse
    lower = min(max(outcome.lower_bound * targets.unit, 0.0), objective)
    proven = lower >= objective - slack
    if proven:
        lower = objective
    timed_out = bool(outcome.aborted) and not interrupted and not proven
    seconds = time.perf_counter() - start
    stats = dict(engine.stats, features_used=int(len(red.features)), search_megabytes=engine.memory_bytes / 2**20)
    trace = [TracePoint(seconds, tree.squared_error(), objective, lower)]
    return SearchResult(tree, objective, lower, timed_out, seconds, stats, interrupted, False, trace, [tree])


def _leaf_result(X, y, weight, start, targets: Targets, *, interrupted: bool, proven: bool) -> SearchResult:
    """The single leaf: a constant target (proven), or a fit stopped before its search."""
    out = RegressionArrays(y, weight)
    out.add(np.arange(len(y)))
    tree = out.tree(X.shape[1])
    objective = tree.squared_error()
    seconds = time.perf_counter() - start
    optimal = proven or objective == 0.0
    return SearchResult(tree, objective, objective if optimal else 0.0, not interrupted and not optimal,
                        seconds, {"prepared": False} if not proven else {}, interrupted, False,
                        [TracePoint(seconds, objective, objective, objective if optimal else 0.0)], [tree])


class RegressionArrays:
    """A regression tree's flat arrays, copied out node by node (preorder):
    each node starts as a leaf with the mean, weight and squared error of
    its rows (the node-array builder :func:`contree.tree_on_inputs` fills)."""

    def __init__(self, y: np.ndarray, weight: np.ndarray | None) -> None:
        self.y, self.weight = y, weight
        self.feature: list[int] = []
        self.threshold: list[float] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.missing_left: list[bool] = []
        self.mean: list[float] = []
        self.node_weight: list[float] = []
        self.samples: list[int] = []
        self.sse: list[float] = []

    def add(self, rows: np.ndarray) -> int:
        self.feature.append(-1)
        self.threshold.append(0.0)
        self.left.append(-1)
        self.right.append(-1)
        self.missing_left.append(False)
        w = None if self.weight is None else self.weight[rows]
        mean, err = weighted_sse(self.y[rows], w) if len(rows) else (0.0, 0.0)
        self.mean.append(mean)
        self.node_weight.append(float(len(rows) if w is None else w.sum()))
        self.samples.append(len(rows))
        self.sse.append(err)
        return len(self.feature) - 1

    def split(self, idx: int, feature: int, threshold: float, left: int, right: int,
              missing_left: bool = False) -> None:
        self.feature[idx], self.threshold[idx] = feature, threshold
        self.left[idx], self.right[idx], self.missing_left[idx] = left, right, missing_left

    def tree(self, n_features: int, missing_in_training: bool = False) -> RegressionTree:
        return RegressionTree(self.feature, self.threshold, self.left, self.right, np.array(self.mean)[:, None],
                              n_features, missing_left=self.missing_left if missing_in_training else None,
                              missing_in_training=missing_in_training, weighted=self.weight is not None,
                              node_weight=self.node_weight, node_samples=self.samples, node_sse=self.sse)


def _tree_from_pool(pool: np.ndarray, root: int, enc, features: np.ndarray, X: np.ndarray, y: np.ndarray,
                    weight: np.ndarray | None) -> RegressionTree:
    """Copy the subtree at ``root`` out of the engine's node pool (preorder),
    in the original feature indices, with each node's statistics recounted
    from the training rows routed through it."""
    feat_p, lo_p, _hi_p, left_p, right_p = pool
    out = RegressionArrays(y, weight)

    def emit(node: int, rows: np.ndarray) -> int:
        idx = out.add(rows)
        f = int(feat_p[node])
        if f >= 0:
            column = X[rows, features[f]]
            lo = enc.unique_values[f][int(lo_p[node])]
            t = threshold_between(float(column[column <= lo].max()), float(column[column > lo].min()))
            go_left = column <= t
            left = emit(int(left_p[node]), rows[go_left])
            # no missing value in this feature's training data: the larger child
            # (by weight) takes them, as scikit-learn sends them
            out.split(idx, int(features[f]), t, left, emit(int(right_p[node]), rows[~go_left]))
        return idx

    emit(root, np.arange(X.shape[0]))
    return out.tree(X.shape[1])
