"""Drive the compiled ConTree engine and turn its node pool into a :class:`Tree`."""
from __future__ import annotations

import dataclasses
import math
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from typing import Callable, NamedTuple

from optimaltrees.anytime import Progress, TracePoint
from optimaltrees.data.encoding import EncodedFeatures, coarsen, encode_features, threshold_between
from optimaltrees.data.missing import NO_MISSING, MissingColumns, missing_columns
from optimaltrees.model.tree import Tree
from optimaltrees.search.engine import Engine, SharedRoot, SolveOutcome, build_for
from optimaltrees.search.objectives import CostSensitive, Misclassification, SquaredError
from optimaltrees.search.distributed import solve_on_dask
from optimaltrees.search.strategies import STRATEGIES, greedy_restart, run_restarts


@dataclass
class SearchResult:
    """What one search proved: a tree, its objective, and a lower bound on the optimum."""

    tree: Tree
    objective: float
    lower_bound: float
    timed_out: bool
    seconds: float
    stats: dict = field(default_factory=dict)
    interrupted: bool = False   # stopped by Ctrl-C: the best tree so far, not proven
    stopped: bool = False       # stopped by the callback
    trace: list[TracePoint] = field(default_factory=list)
    trace_trees: list[Tree] = field(default_factory=list)   # each trace point's tree, when asked for
    memory_out: bool = False    # the memory limit stopped the search


def search_tree(
    X: np.ndarray,
    y_index: np.ndarray,
    n_classes: int,
    max_depth: int,
    *,
    node_cost: float = 0.0,
    max_gap: float = 0.0,
    min_samples_leaf: int = 1,
    time_limit: float | None = None,
    memory_limit_mb: float | None = None,
    n_threads: int = 1,
    strategy: str = "exhaustive",
    schedule: str = "luby",
    callback: Callable[[Progress], object] | None = None,
    progress_every: float = 0.5,
    clock_start: float | None = None,
    trace_trees: bool = False,
    greedy_start: bool | None = None,
    sample_weight: np.ndarray | None = None,
    max_bins: int | None = None,
    cluster: object = None,
    cost_matrix: np.ndarray | None = None,
) -> SearchResult:
    """Minimise errors + node_cost * branching nodes over trees of depth <= max_depth.

    ``X`` must be finite float64 (n, p) and ``y_index`` int labels in [0, n_classes).
    ``node_cost`` and ``max_gap`` are absolute (misclassification units), finite and >= 0.
    ``strategy`` is "exhaustive" (one ConTree search) or an anytime strategy
    (see :mod:`optimaltrees.search.strategies`) relaxed by ``schedule``.
    ``callback(progress)`` is called on every better tree and every
    ``progress_every`` seconds; returning False stops the search.
    ``time_limit`` counts from ``clock_start`` (a ``time.perf_counter()``
    value; default: now), so a caller's own preparation counts too.
    ``trace_trees``: also rebuild the tree of every trace point
    (``SearchResult.trace_trees``; costs a pass over the data per point).
    With ``n_threads > 1`` (exhaustive only) one engine per thread searches
    the root together with the others, pruning against the best tree of
    every thread: at depth >= 3 they expand one best-first frontier of root
    threshold intervals, at depth two they claim root features from a shared
    counter.  Each engine keeps its own buffers and cache.
    ``greedy_start`` (default: when there is a time limit): the exhaustive
    search starts from the greedy tree, found in milliseconds, so a fit
    stopped early never returns a worse tree than it.
    ``sample_weight`` (finite, >= 0; None: 1 each): errors are summed
    weights, and so are ``node_cost``, ``max_gap``, the objective and the
    bound; rows of weight 0 are left out (``min_samples_leaf`` counts the
    others); the tree's ``value`` holds class weights.
    ``cluster`` (exhaustive only): a ``dask.distributed.Client``, a scheduler
    address or "local": the root's features are shared out as Dask tasks
    (:mod:`optimaltrees.search.distributed`), with the same optimum and bound.
    ``max_bins``: search only the thresholds between at most this many
    quantile bins of each feature (:func:`~optimaltrees.data.encoding.coarsen`);
    the result is then optimal over those thresholds, not over all.
    ``cost_matrix`` (n_classes x n_classes, finite, >= 0; [true, predicted]):
    errors become costs, each leaf predicting its cheapest class.
    """
    start = time.perf_counter() if clock_start is None else clock_start
    # the bounds assume a split never lowers the objective (a leaf's errors are
    # never below what a split must beat), and a gap is a tolerance
    for name, value in (("node_cost", node_cost), ("max_gap", max_gap)):
        if not (isinstance(value, (int, float, np.integer, np.floating)) and math.isfinite(value)
                and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    X = np.asarray(X, dtype=np.float64)
    if sample_weight is not None:
        return _weighted_search(X, y_index, n_classes, max_depth, np.asarray(sample_weight, np.float64),
                                cost_matrix=cost_matrix,
                                node_cost=node_cost, max_gap=max_gap, min_samples_leaf=min_samples_leaf,
                                time_limit=time_limit, memory_limit_mb=memory_limit_mb,
                                n_threads=n_threads, strategy=strategy, schedule=schedule,
                                callback=callback, progress_every=progress_every, clock_start=start,
                                trace_trees=trace_trees, greedy_start=greedy_start, max_bins=max_bins,
                                cluster=cluster)
    return _search(X, _classes(y_index, n_classes, cost_matrix), max_depth, None, node_cost=node_cost,
                   max_gap=max_gap, min_samples_leaf=min_samples_leaf, time_limit=time_limit,
                   memory_limit_mb=memory_limit_mb, n_threads=n_threads, strategy=strategy,
                   schedule=schedule, callback=callback, progress_every=progress_every,
                   clock_start=start, trace_trees=trace_trees, greedy_start=greedy_start,
                   max_bins=max_bins, cluster=cluster)


# A total weight more than this many times the lightest row's is refused: a
# double keeps 53 bits, so beside such a total that row could not change a sum.
MAX_TOTAL_OVER_LIGHTEST = 2.0 ** 50


def _classes(y_index: np.ndarray, n_classes: int, cost_matrix: np.ndarray | None):
    """The classification objective: misclassification, or a cost matrix."""
    if cost_matrix is None:
        return Misclassification(y_index, n_classes)
    return CostSensitive(y_index, n_classes, cost_matrix)


def _weighted_search(X: np.ndarray, y_index: np.ndarray, n_classes: int, max_depth: int,
                     weight: np.ndarray, *, node_cost: float, max_gap: float, callback,
                     cost_matrix: np.ndarray | None = None, **options) -> SearchResult:
    """The search over the rows of positive weight.

    The engine sees the weights scaled by a power of two (exact) so that the
    lightest row weighs 1 to 2, then rounded onto a grid fine enough that
    every sum of them is exact (:func:`_on_exact_grid`): its counts, bounds
    and objectives then add and subtract without rounding, so a perfect tree
    scores exactly 0.  Integer weights (total below 2^51) are on the grid
    already; other weights move by at most 2^-52 of the total weight each.
    The engine compares objectives with an absolute tolerance of 1e-9, so
    the optimum holds to a billionth of the lightest row's weight plus that
    rounding (at most rows x 2^-52 of the total weight).  The tree that
    comes back holds the weights as given."""
    if weight.shape != (X.shape[0],) or not np.all(np.isfinite(weight)) or np.any(weight < 0):
        raise ValueError("sample_weight must hold one finite, non-negative weight per row")
    keep = weight > 0
    if not keep.any():
        raise ValueError("sample_weight is 0 for every row: nothing to fit")
    if not keep.all():
        X, y_index, weight = X[keep], np.asarray(y_index)[keep], weight[keep]
        # as without weights: a leaf of every (remaining) row is always allowed
        options["min_samples_leaf"] = min(options["min_samples_leaf"], X.shape[0])
    low = float(weight.min())
    # checked before scaling, as a ratio (a total of 4e308 is fine when every row weighs 1e308;
    # 1 beside a denormal lightest row overflows the ratio, refused all the same)
    with np.errstate(over="ignore"):
        ratio = float((weight / low).sum())
    if not ratio <= MAX_TOTAL_OVER_LIGHTEST:
        raise ValueError(f"the sample weights total {float(weight.sum()):.6g}, more than 2^50 times the "
                         f"lightest row's {low:.3g}: sums of doubles cannot tell that row from 0; rescale "
                         "the weights, or give the lightest rows weight 0 to leave them out")
    # the lightest row as 1 to 2: weight * 2**-e, exact (every scaled weight below 2^51)
    e = math.frexp(low)[1] - 1
    scaled = _on_exact_grid(np.ldexp(weight, -e))

    def back(v: float) -> float:
        return math.ldexp(v, e) if math.isfinite(v) else v

    def unscaled(progress: Progress) -> object:
        return callback(dataclasses.replace(progress, objective=back(progress.objective),
                                            lower_bound=back(progress.lower_bound)))

    result = _search(X, _classes(y_index, n_classes, cost_matrix), max_depth, scaled,
                     node_cost=math.ldexp(node_cost, -e),
                     max_gap=math.ldexp(max_gap, -e), callback=None if callback is None else unscaled,
                     **options)
    result.objective = back(result.objective)
    result.lower_bound = back(result.lower_bound)
    result.trace = [TracePoint(p.time, back(p.error), back(p.objective), back(p.lower_bound))
                    for p in result.trace]
    result.tree = _with_class_weights(result.tree, X, y_index, n_classes, weight)
    result.trace_trees = [_with_class_weights(t, X, y_index, n_classes, weight) for t in result.trace_trees]
    result.stats["rows_weight_zero"] = int(np.count_nonzero(~keep))
    return result


#: Bytes per row a search needs beside its buffers before it has any tree:
#: the root's candidate thresholds and intervals of one feature grow with
#: its distinct values, and the node pool takes its first block.
WORKING_BYTES_PER_ROW = 40
WORKING_BYTES_BASE = 2**16


def _working_room_mb(n_rows: int) -> float:
    """What a memory limit must leave beside the buffers so that the search
    reaches a first (greedy) tree: a limit that cannot is refused, never met
    with a bare leaf."""
    return (WORKING_BYTES_BASE + WORKING_BYTES_PER_ROW * n_rows) / 2**20


def _on_exact_grid(scaled: np.ndarray) -> np.ndarray:
    """Weights (the lightest 1 to 2, total at most 2^50) rounded to the
    nearest multiple of 2^-g, for the largest g at which every sum of them
    stays below 2^52 grid units: such sums, and their differences, are exact
    in doubles.  No weight rounds to 0 (g >= 1); integers do not move."""
    total = float(scaled.sum())
    g = 51 - math.ceil(math.log2(total))
    return np.ldexp(np.rint(np.ldexp(scaled, g)), -g)


def _with_class_weights(tree: Tree, X: np.ndarray, y_index: np.ndarray, n_classes: int,
                        weight: np.ndarray) -> Tree:
    """``tree`` with ``value`` recounted from the rows of ``X`` and their
    weights as given (the search counted its rounded, scaled copies)."""
    path = tree.decision_path(X).tocoo()
    cells = path.col.astype(np.int64) * n_classes + np.asarray(y_index, dtype=np.int64)[path.row]
    value = np.bincount(cells, weights=weight[path.row], minlength=tree.node_count * n_classes)
    return dataclasses.replace(tree, value=value.reshape(tree.node_count, n_classes), weighted=True)


def _search(X: np.ndarray, objective: Misclassification | SquaredError, max_depth: int,
            weight: np.ndarray | None, *, node_cost: float, max_gap: float, min_samples_leaf: int,
            time_limit: float | None, memory_limit_mb: float | None, n_threads: int, strategy: str,
            schedule: str, callback: Callable[[Progress], object] | None, progress_every: float,
            clock_start: float, trace_trees: bool, greedy_start: bool | None,
            max_bins: int | None = None, cluster: object = None) -> SearchResult:
    """:func:`search_tree` on positive weights (or none), for any ``objective``
    (:mod:`optimaltrees.search.objectives`), in the engine's units."""
    start = clock_start
    nan_columns = missing_columns(X) if np.isnan(X).any() else None
    if nan_columns is not None:
        # NaN: the missing rows placed below, above or between a feature's values
        # (:mod:`optimaltrees.data.missing`); the trees come back in the input's terms
        result = _search(nan_columns.X, objective, max_depth, weight, node_cost=node_cost,
                         max_gap=max_gap, min_samples_leaf=min_samples_leaf, time_limit=time_limit,
                         memory_limit_mb=memory_limit_mb, n_threads=n_threads, strategy=strategy,
                         schedule=schedule, callback=callback, progress_every=progress_every,
                         clock_start=start, trace_trees=trace_trees, greedy_start=greedy_start,
                         max_bins=max_bins, cluster=cluster)
        result.tree = tree_on_inputs(result.tree, nan_columns, X, objective.arrays(weight))
        result.trace_trees = [tree_on_inputs(t, nan_columns, X, objective.arrays(weight))
                              for t in result.trace_trees]
        result.stats["features_with_missing_values"] = int(np.count_nonzero(np.isnan(X).any(axis=0)))
        return result
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown search strategy {strategy!r}; expected one of {tuple(STRATEGIES)}")
    plan = STRATEGIES[strategy]
    # one meaning of "no limit" below this line: math.inf
    limit = math.inf if time_limit is None else float(time_limit)
    if memory_limit_mb is None or memory_limit_mb >= 2.0**40:
        memory_limit_mb = math.inf   # none, or beyond any machine (and beyond size_t in bytes)

    def checkpoint() -> None:
        if time.perf_counter() - start > limit:
            raise _OutOfTime

    # Preparation (sorting every column) takes seconds on millions of rows:
    # the time limit and Ctrl-C stop it too, and the fit gets the best tree
    # known without a search, a single leaf.
    try:
        # Cancelling conflicting duplicates leaves the optimum's position unchanged
        # but shifts the Gini choices of a greedy first tree away from CART's; the
        # anytime strategies keep every row (the conflicts still give the bound).
        cancel = objective.cancels_rows and min_samples_leaf <= 1 and not plan.anytime
        enc = encode_features(X, checkpoint)
        if max_bins is not None:
            checkpoint()
            enc = coarsen(enc, int(max_bins))
        red = objective.reduce(enc, cancel_rows=cancel, checkpoint=checkpoint, weight=weight)
        kept_weight = None if weight is None else weight[red.rows]
        checkpoint()
        enc = red.enc
        fields = objective.engine_fields(red)
        if plan.anytime or cluster is not None:
            n_threads = 1      # (a Dask search shares the root between tasks instead)
        # depth two shares root features between threads, deeper roots share
        # their threshold intervals (any number of threads has work)
        n_threads = (1 if max_depth < 2 else max(1, min(int(n_threads), enc.n_features))
                     if max_depth == 2 else max(1, int(n_threads)))
        engines = []
        for _ in range(n_threads):
            engines.append(build_for(enc.order, enc.rank, fields, int(max_depth),
                                     cost=float(node_cost), gap=float(max_gap),
                                     min_leaf=int(min_samples_leaf),
                                     memory_limit_mb=float(memory_limit_mb) / n_threads,
                                     weights=kept_weight))
            checkpoint()
        if math.isfinite(memory_limit_mb):
            buffers = sum(e.memory_bytes for e in engines) / 2**20
            need = buffers + n_threads * _working_room_mb(enc.n_samples)
            if need > memory_limit_mb:
                raise ValueError(
                    f"memory_limit={memory_limit_mb:g} MB is below the {math.ceil(need * 100) / 100:.2f} MB "
                    "the search needs "
                    f"for {enc.n_samples} rows x {enc.n_features} features at depth "
                    f"{max_depth}{f' on {n_threads} threads' if n_threads > 1 else ''}: its buffers "
                    f"({buffers:.2f} MB) and room for a first tree")
    except _OutOfTime:
        return objective_leaf(objective, X.shape[1], start, weight, interrupted=False)
    except KeyboardInterrupt:
        return objective_leaf(objective, X.shape[1], start, weight, interrupted=True)
    # the engines' clocks start now: give them what is left of the fit's limit
    engine_limit = max(limit - (time.perf_counter() - start), 1e-9)
    offset = red.offset
    known = red.conflict_bound

    # the anytime record: every better tree (from any engine) and every better bound
    state = {"best": float("inf"), "lower": known, "restart": 0, "stop": False}
    points: list[_RootPoint] = []
    shared: list[SharedRoot] = []

    def report(improved: bool) -> object:
        if callback is None:
            return True
        progress = Progress(time.perf_counter() - start, state["best"] + offset,
                            state["lower"] + offset, state["restart"], improved)
        answer = callback(progress)
        # False stops, numpy's too (a comparison of numpy values); None and anything else go on
        if answer is False or (isinstance(answer, np.bool_) and not answer):
            state["stop"] = True
            for s in shared:
                s.stop()
            return False
        return True

    def raise_lower(lower: float) -> None:
        """A better proven bound: the trace and the callback see it."""
        if lower > state["lower"] + 1e-9 and points:
            points.append(points[-1]._replace(seconds=time.perf_counter() - start, lower_bound=lower))
        state["lower"] = max(state["lower"], lower)

    def make_hook(k: int):
        def hook(val, root):
            if val is None:
                # the root's best-first search raises its bound as it goes (every
                # engine's reading is a bound on the same root)
                raise_lower(engines[k].root_lower_bound)
                return report(False)
            if val < state["best"]:
                state["best"] = val
                points.append(_RootPoint(time.perf_counter() - start, val, state["lower"], k, int(root)))
                return report(True)
            return True
        return hook

    for k, engine in enumerate(engines):
        engine.set_hook(make_hook(k), progress_every)
    restart_log = None
    outcomes: list[SolveOutcome]
    share_pools: list[np.ndarray] = []      # the trees of the Dask shares, after the engines' pools
    share_subproblems: list[int] = []
    greedy = None
    if greedy_start is None:
        # a fit that may stop early (the clock or the memory cap) keeps the greedy tree at least
        greedy_start = math.isfinite(limit) or math.isfinite(memory_limit_mb)
    if not plan.anytime and greedy_start and max_depth >= 2:
        greedy = greedy_restart(engines[0], engine_limit, known)
    if greedy is not None and (greedy.aborted or greedy.lower_bound >= greedy.objective - max_gap - 1e-9):
        outcomes = [greedy]               # stopped already, or the greedy tree is proven optimal
        n_threads, engines = 1, engines[:1]
    elif not plan.anytime and cluster is not None:
        upper = math.inf if greedy is None else greedy.objective
        engine_limit = max(limit - (time.perf_counter() - start), 1e-9)
        problem = dict(order=enc.order, rank=enc.rank, **fields, depth=int(max_depth),
                       cost=float(node_cost), gap=float(max_gap), min_leaf=int(min_samples_leaf),
                       memory_limit_mb=float(memory_limit_mb), weights=kept_weight)
        # the local engine holds the greedy tree (if any): it stays a candidate answer
        outcomes = [SolveOutcome(upper, math.inf, -1 if greedy is None else greedy.root, False)]
        # the fit's own deadline, on the wall clock the workers share (the
        # cluster's start and a task's wait in the queue count)
        deadline = time.time() + (limit - (time.perf_counter() - start)) if math.isfinite(limit) else math.inf
        try:
            def on_progress(value: float) -> bool:
                # the cluster's best tree (a callback, a progress line): a stop request
                # from the callback stops the shares, which return their best trees
                improved = value < state["best"]
                state["best"] = min(state["best"], value)
                return report(improved)

            shares, interrupted_shares = solve_on_dask(
                cluster, problem, deadline=deadline, known_lb=known, upper_bound=upper,
                on_progress=on_progress if callback is not None else None, progress_every=progress_every)
        except KeyboardInterrupt:      # Ctrl-C while connecting: the greedy tree (or a leaf), not proven
            shares, interrupted_shares = [], True
            outcomes = [SolveOutcome(upper, known, -1 if greedy is None else greedy.root, True)]
        if interrupted_shares:         # Ctrl-C: the best tree the shares found so far, not proven
            engines[0].interrupted = True
        if any(r.memory_out for r in shares):
            engines[0].memory_out = True
        outcomes += [SolveOutcome(r.objective, r.lower_bound, r.root, r.aborted) for r in shares]
        share_pools = [r.pool for r in shares]
        share_subproblems = [r.subproblems for r in shares]
    elif not plan.anytime:
        upper = math.inf if greedy is None else greedy.objective
        engine_limit = max(limit - (time.perf_counter() - start), 1e-9)
        if n_threads == 1:
            outcomes = [engines[0].solve(engine_limit, known, upper)]
        else:
            outcomes = _solve_in_threads(engines, engine_limit, known, upper, shared)
        if greedy is not None and greedy.objective <= min(o.objective for o in outcomes):
            # nothing better than the greedy tree (still in engine 0's pool)
            outcomes[0] = SolveOutcome(greedy.objective, max(outcomes[0].lower_bound, greedy.lower_bound),
                                       greedy.root, outcomes[0].aborted)
    else:
        def on_restart(index: int, best: float, lower: float) -> None:
            state["restart"] = index + 1
            raise_lower(lower)

        def time_left() -> float:
            return limit - (time.perf_counter() - start)

        run = run_restarts(
            engines[0], strategy, schedule, time_left=time_left, known_lb=known, gap=float(max_gap),
            on_restart=on_restart, stopped=lambda: state["stop"] or bool(engines[0].interrupted),
            thresholds=bool(enc.rank.size) and int(enc.rank.max()) > 1)
        restart_log = run.log
        outcomes = [SolveOutcome(run.objective, run.lower_bound, run.root, run.timed_out)]
    # every root feature was searched by exactly one engine: the global lower
    # bound is the weakest of theirs, the answer the best of their trees
    best = min(range(len(outcomes)), key=lambda k: outcomes[k].objective)
    value, root = outcomes[best].objective, outcomes[best].root
    if root < 0:
        # stopped before any tree (Ctrl-C at once): the single leaf (pool node 0)
        root = 0
        value = objective.leaf_objective(red.rows, kept_weight)
    lower_bound = min(o.lower_bound for o in outcomes)
    interrupted = any(bool(e.interrupted) for e in engines)
    stopped = state["stop"] and not interrupted
    # a solve cut short by the clock or the memory cap whose bound already
    # meets the incumbent has proven it: the stop changed nothing, say so
    proven = lower_bound >= value - 1e-9 * max(1.0, abs(value))
    memory_out = (any(bool(e.memory_out) for e in engines) and not interrupted and not stopped
                  and not proven)
    timed_out = (any(o.aborted for o in outcomes) and not interrupted and not stopped and not memory_out
                 and not proven)
    # the answer always closes the trace (a leaf, a cached root, depth <= 1
    # never pass through the root-improvement hook)
    if not points or value < points[-1].objective - 1e-12:
        points.append(_RootPoint(time.perf_counter() - start, value, state["lower"], best, int(root)))
    if lower_bound > points[-1].lower_bound + 1e-9:
        points.append(points[-1]._replace(seconds=time.perf_counter() - start, lower_bound=lower_bound))
    pools = [e.tree_arrays() for e in engines] + share_pools
    tree = _tree_from_pool(pools[best], int(root), enc, red.features, X, objective.arrays(weight))
    trace, trace_trees = _trace(points, pools, enc, red.features, X, objective, offset, node_cost,
                                trace_trees, weight)
    stats = {key: sum(e.stats[key] for e in engines) for key in engines[0].stats}
    stats["subproblems"] += sum(share_subproblems)
    stats.update({
        "threads": n_threads,
        "subproblems_per_thread": [int(e.stats["subproblems"]) for e in engines],
        "dask_shares": len(share_pools),
        "features_used": int(len(red.features)),
        "rows_cancelled": red.rows_removed,
        "search_megabytes": sum(e.memory_bytes for e in engines) / 2**20,
        "max_bins": max_bins,
    })
    if restart_log is not None:
        stats["restarts"] = restart_log.restarts
        stats["rule_cuts"] = restart_log.rule_cuts
        stats["proof_slices"] = restart_log.proof_slices
        stats["capped_restarts"] = restart_log.capped
    return SearchResult(tree, float(value) + offset, float(lower_bound) + offset,
                        bool(timed_out), time.perf_counter() - start, stats, interrupted,
                        stopped, trace, trace_trees, memory_out)


class _RootPoint(NamedTuple):
    """One step of the anytime record, in the search's own units."""

    seconds: float       # since the fit started
    objective: float     # the best tree's objective (before the reduction's offset)
    lower_bound: float   # the best proven bound then
    engine: int          # which engine's node pool holds the tree ...
    root: int            # ... and its root there


class _OutOfTime(Exception):
    """The time limit passed while the search was being prepared."""


def tree_on_inputs(tree: Tree, cols: MissingColumns, X: np.ndarray, out) -> Tree:
    """A tree found on the engine columns of :func:`missing_columns`, in the
    input's features: a rank threshold becomes the midpoint of the node's
    neighbouring present values (as for any split), the column says where
    missing values go, and each node's statistics are the input rows routed
    again, into ``out`` (the objective's node arrays)."""

    def emit(node: int, rows: np.ndarray) -> int:
        idx = out.add(rows)
        j = int(tree.feature[node])
        if j >= 0:
            f, side = int(cols.source[j]), int(cols.side[j])
            x = X[rows, f]
            go_left = cols.X[rows, j] <= tree.threshold[node]
            if side == NO_MISSING:
                t, nan_left = float(tree.threshold[node]), None
            else:
                present = ~np.isnan(x)
                below, above = x[present & go_left], x[present & ~go_left]
                t = (-np.inf if below.size == 0 else np.inf if above.size == 0
                     else threshold_between(float(below.max()), float(above.min())))
                nan_left = cols.nan_goes_left(j, float(tree.threshold[node]))
            lo = emit(int(tree.children_left[node]), rows[go_left])
            hi = emit(int(tree.children_right[node]), rows[~go_left])
            # no missing value in this feature's training data: the larger child
            out.split(idx, f, t, lo, hi, nan_left if nan_left is not None
                      else int(np.count_nonzero(go_left)) >= int(np.count_nonzero(~go_left)))
        return idx

    emit(0, np.arange(X.shape[0]))
    return out.tree(X.shape[1], missing_in_training=True)


def leaf_result(n_features: int, y_index: np.ndarray, n_classes: int, start: float,
                weight: np.ndarray | None, *, interrupted: bool) -> SearchResult:
    """The single leaf: what a fit stopped (by its time limit, or by Ctrl-C
    when ``interrupted``) before its search started returns; ``start`` is the
    fit's perf_counter start."""
    return objective_leaf(Misclassification(y_index, n_classes), n_features, start, weight,
                          interrupted=interrupted)


def objective_leaf(objective, n_features: int, start: float, weight: np.ndarray | None, *,
                   interrupted: bool) -> SearchResult:
    """:func:`leaf_result` for any objective (in the engine's units)."""
    rows = np.arange(objective.n_rows)
    out = objective.arrays(weight)
    out.add(rows)
    tree = out.tree(n_features)
    value = objective.leaf_objective(rows, weight)
    error = objective.errors(value, 0, 0.0, weight is not None)
    seconds = time.perf_counter() - start
    # a leaf without errors is optimal however early the fit stopped
    timed_out = not interrupted and value > 0
    return SearchResult(tree, value, 0.0, timed_out, seconds, {"prepared": False},
                        interrupted, False, [TracePoint(seconds, error, value, 0.0)], [tree])


def _trace(points: list[_RootPoint], pools, enc, features, X, objective, offset, node_cost,
           with_trees, weight):
    """Trace points; each tree is rebuilt on the data (its error recounted)
    only ``with_trees``: on many rows that costs seconds per point, after the
    time limit.  Otherwise a point's error is its objective less the node
    cost of its tree, exact in the search's integer counts."""
    trace: list[TracePoint] = []
    trees: list[Tree] = []
    for t, obj, lb, k, root in points:
        value = obj + offset
        tree = None
        if with_trees:
            tree = _tree_from_pool(pools[k], root, enc, features, X, objective.arrays(weight))
            trees.append(tree)
        errors = objective.errors(value, _pool_branches(pools[k], root), node_cost, weight is not None, tree)
        lower = min(lb + offset, value)
        if trace and lower < trace[-1].lower_bound:
            lower = trace[-1].lower_bound
        trace.append(TracePoint(t, errors, float(value), float(lower)))
    return trace, trees


def _pool_branches(pool: np.ndarray, root: int) -> int:
    """Branching nodes of the pool's subtree at ``root``."""
    feature, left, right = pool[0], pool[3], pool[4]
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if feature[node] >= 0:
            count += 1
            stack += [int(left[node]), int(right[node])]
    return count


def _solve_in_threads(engines: list[Engine], time_limit: float, known_lb: float, upper_bound: float,
                      shared_out: list) -> list[SolveOutcome]:
    """Run the engines concurrently (``Engine.solve`` releases the GIL)."""
    shared = SharedRoot()
    shared_out.append(shared)
    for engine in engines:
        engine.share_root_with(shared)
    outcomes: list[SolveOutcome | None] = [None] * len(engines)
    errors: list[BaseException] = []
    done = [threading.Event() for _ in engines]

    def run(k: int) -> None:
        try:
            outcomes[k] = engines[k].solve(time_limit, known_lb, upper_bound)
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)
        finally:
            done[k].set()

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(len(engines))]
    for t in threads:
        t.start()
    # Poll with sleep rather than Thread.join: a KeyboardInterrupt inside join()
    # can leave the thread looking finished while it still runs.
    interrupted = False
    pause = 0.0005
    while not all(d.is_set() for d in done):
        try:
            time.sleep(pause)
            pause = min(2 * pause, 0.02)  # small fits return fast, long ones poll gently
        except KeyboardInterrupt:  # Ctrl-C: every engine returns its best tree
            interrupted = True
            shared.stop()
    for t in threads:
        t.join()
    if interrupted:
        engines[0].interrupted = True
    if errors:
        raise errors[0]
    return outcomes  # type: ignore[return-value]


def _tree_from_pool(pool: np.ndarray, root: int, enc: EncodedFeatures, features: np.ndarray,
                    X: np.ndarray, out) -> Tree:
    """Copy the subtree at ``root`` out of the engine's shared node pool (preorder),
    in the original feature indices; each node's statistics (``out``, the
    objective's node arrays) from the full training data, as the rows are
    routed (one pass over the data)."""
    feat_p, lo_p, hi_p, left_p, right_p = pool

    def emit(node: int, rows: np.ndarray) -> int:
        idx = out.add(rows)
        f = int(feat_p[node])
        if f >= 0:
            column = X[rows, features[f]]
            lo = enc.unique_values[f][int(lo_p[node])]
            # midway between this node's neighbouring training values: the
            # search may have seen fewer rows (cancelled duplicates), and any
            # threshold in the gap it chose scores the same
            above = column[column > lo]
            below = column[column <= lo]
            t = threshold_between(float(below.max()), float(above.min()))
            go_left = column <= t
            lo_child = emit(int(left_p[node]), rows[go_left])
            out.split(idx, int(features[f]), t, lo_child, emit(int(right_p[node]), rows[~go_left]))
        return idx

    emit(root, np.arange(X.shape[0]))
    return out.tree(X.shape[1])
