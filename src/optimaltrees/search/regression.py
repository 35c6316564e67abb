"""Regression trees on the one search driver (:mod:`optimaltrees.search.contree`)
and engine: this module puts the targets in the engine's units and the
results back in the user's.

Targets reach the engine centred and scaled, and weights scaled to a mean of
one, so that the engine's absolute tolerances hold at any scale: its
objective is the user's squared error divided by ``unit`` (the total squared
error over the row count)."""
from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import numpy as np

from optimaltrees.anytime import Progress, TracePoint
from optimaltrees.search.contree import SearchResult, _search
from optimaltrees.search.objectives import RegressionArrays, SquaredError, weighted_sse

#: the engine's objective and the tree's recomputed one must agree within this
#: share of the total squared error (rounding of sums; anything more is a bug)
AGREEMENT = 1e-9


@dataclass(frozen=True)
class Targets:
    """The targets as the engine sees them, and the way back."""

    engine_y: np.ndarray            # (y - mean) / spread: root squared error = rows
    engine_w: np.ndarray | None     # weights scaled to a mean of one (None: unweighted)
    unit: float                     # user squared error = engine objective x unit
    total_sse: float                # the root leaf's squared error (SST)


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
    n_threads: int = 1,
    strategy: str = "exhaustive",
    schedule: str = "luby",
    callback=None,
    progress_every: float = 0.5,
    trace_trees: bool = False,
    greedy_start: bool | None = None,
    max_bins: int | None = None,
    cluster: object = None,
) -> SearchResult:
    """Minimise squared error + node_cost * branching nodes over trees of depth <= max_depth.

    ``X``: float64 (n, p), NaN for a missing value (searched: each split
    also chooses the side of the missing rows); ``y``: finite float64
    targets; ``node_cost`` and ``max_gap`` in the targets' squared units,
    finite and >= 0; ``sample_weight`` finite and >= 0 (rows of weight 0 are
    left out).  The other parameters are :func:`~optimaltrees.search.contree.search_tree`'s:
    the same driver runs, over the squared-error engine.  Objective, bound,
    trace and the callback's progress are in the user's squared units."""
    start = time.perf_counter() if clock_start is None else clock_start
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    weight = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    for name, value in (("node_cost", node_cost), ("max_gap", max_gap)):
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    if weight is not None:
        kept = weight > 0
        X, y, weight = X[kept], y[kept], weight[kept]
        min_samples_leaf = min(min_samples_leaf, max(len(y), 1))
    targets = scale_targets(y, weight)
    objective = SquaredError(targets.engine_y, y, weight)
    if targets.total_sse == 0.0 or max_depth == 0:
        # a constant target (or no split allowed): the leaf, proven
        out = RegressionArrays(y, weight)
        out.add(np.arange(len(y)))
        tree = out.tree(X.shape[1])
        sse = tree.squared_error()
        seconds = time.perf_counter() - start
        return SearchResult(tree, sse, sse, False, seconds, {}, False, False,
                            [TracePoint(seconds, sse, sse, sse)], [tree])
    unit = targets.unit

    def in_user_units(progress: Progress) -> object:
        return callback(dataclasses.replace(progress, objective=progress.objective * unit,
                                            lower_bound=progress.lower_bound * unit))

    result = _search(X, objective, int(max_depth), targets.engine_w, node_cost=float(node_cost) / unit,
                     max_gap=float(max_gap) / unit, min_samples_leaf=int(min_samples_leaf),
                     time_limit=time_limit, memory_limit_mb=memory_limit_mb, n_threads=n_threads,
                     strategy=strategy, schedule=schedule,
                     callback=None if callback is None else in_user_units, progress_every=progress_every,
                     clock_start=start, trace_trees=trace_trees, greedy_start=greedy_start,
                     max_bins=max_bins, cluster=cluster)
    # the tree's nodes hold the user's targets: its objective is recomputed in
    # the user's units, and must agree with the engine's (a bug otherwise)
    value = result.tree.squared_error() + node_cost * result.tree.n_branch_nodes
    if abs(result.objective * unit - value) > AGREEMENT * targets.total_sse:
        raise RuntimeError(f"internal error: the search scored its tree {result.objective * unit!r}, "
                           f"the tree recomputes to {value!r}")
    slack = AGREEMENT * targets.total_sse
    lower = min(max(result.lower_bound * unit, 0.0), value)
    if lower >= value - slack and not (result.interrupted or result.stopped):
        lower = value          # met, up to rounding: proven
        result.timed_out = result.memory_out = False
    result.objective, result.lower_bound = value, lower
    result.trace = [TracePoint(p.time, p.error * unit, p.objective * unit, p.lower_bound * unit)
                    for p in result.trace]
    return result
