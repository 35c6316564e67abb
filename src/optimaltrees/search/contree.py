"""Drive the compiled ConTree engine and turn its node pool into a :class:`Tree`."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from typing import Callable

from optimaltrees.anytime import Progress, TracePoint
from optimaltrees.data.encoding import EncodedFeatures, encode_features, threshold_between
from optimaltrees.data.reduction import reduce_problem
from optimaltrees.model.tree import Tree
from optimaltrees.search._contree import Engine, SharedRoot
from optimaltrees.search.strategies import STRATEGIES, run_restarts


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
    trace_trees: list[Tree] = field(default_factory=list)   # the tree of each trace point


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
) -> SearchResult:
    """Minimise errors + node_cost * branching nodes over trees of depth <= max_depth.

    ``X`` must be finite float64 (n, p) and ``y_index`` int labels in [0, n_classes).
    ``node_cost`` and ``max_gap`` are absolute (misclassification units).
    ``strategy`` is "exhaustive" (one ConTree search) or an anytime strategy
    (see :mod:`optimaltrees.search.strategies`) relaxed by ``schedule``.
    ``callback(progress)`` is called on every better tree and every
    ``progress_every`` seconds; returning False stops the search.
    With ``n_threads > 1`` (exhaustive only) one engine per thread claims root
    features from a shared counter and prunes against the best tree of every
    thread; each engine keeps its own buffers and cache.
    """
    start = time.perf_counter()
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown search strategy {strategy!r}; expected one of {STRATEGIES}")
    # Cancelling conflicting duplicates leaves the optimum's position unchanged
    # but shifts the Gini choices of a greedy first tree away from CART's; the
    # anytime strategies keep every row (the conflicts still give the bound).
    cancel = min_samples_leaf <= 1 and strategy == "exhaustive"
    red = reduce_problem(encode_features(X), y_index, n_classes, cancel_rows=cancel)
    enc = red.enc
    y32 = np.ascontiguousarray(red.y, dtype=np.int32)
    if strategy != "exhaustive":
        n_threads = 1
    n_threads = max(1, min(int(n_threads), enc.n_features)) if max_depth >= 2 else 1
    per_engine_mb = -1.0 if memory_limit_mb is None else float(memory_limit_mb) / n_threads
    engines = [
        Engine(enc.order, enc.rank, y32, int(n_classes), int(max_depth), float(node_cost),
               float(max_gap), int(min_samples_leaf), per_engine_mb)
        for _ in range(n_threads)
    ]
    limit = -1.0 if time_limit is None else float(time_limit)
    offset = red.offset
    known = red.conflict_bound

    # the anytime record: every better tree (from any engine) and every better bound
    state = {"best": float("inf"), "lower": known, "restart": 0, "stop": False}
    points: list[tuple[float, float, float, int, int]] = []   # time, objective, lb, engine, root
    shared: list[SharedRoot] = []

    def report(improved: bool) -> object:
        if callback is None:
            return True
        progress = Progress(time.perf_counter() - start, state["best"] + offset,
                            state["lower"] + offset, state["restart"], improved)
        if callback(progress) is False:
            state["stop"] = True
            for s in shared:
                s.stop()
            return False
        return True

    def make_hook(k: int):
        def hook(val, root):
            if val is None:
                return report(False)
            if val < state["best"]:
                state["best"] = val
                points.append((time.perf_counter() - start, val, state["lower"], k, int(root)))
                return report(True)
            return True
        return hook

    for k, engine in enumerate(engines):
        engine.set_hook(make_hook(k), progress_every)
    restart_log = None
    if strategy == "exhaustive" and n_threads == 1:
        outcomes = [engines[0].solve(limit, known)]
    elif strategy == "exhaustive":
        outcomes = _solve_in_threads(engines, limit, known, shared)
    else:
        def on_restart(index: int, best: float, lower: float) -> None:
            state["restart"] = index + 1
            if lower > state["lower"] + 1e-9 and points:
                state["lower"] = lower
                t, obj, _, k, root = points[-1]
                points.append((time.perf_counter() - start, obj, lower, k, root))
            state["lower"] = max(state["lower"], lower)

        def time_left() -> float:
            if limit <= 0:
                return float("inf")
            return limit - (time.perf_counter() - start)

        val, root, lb, timed, restart_log = run_restarts(
            engines[0], strategy, schedule, time_left=time_left, known_lb=known, gap=float(max_gap),
            on_restart=on_restart, stopped=lambda: state["stop"] or bool(engines[0].interrupted))
        outcomes = [(val, lb, root, timed)]
    # every root feature was searched by exactly one engine: the global lower
    # bound is the weakest of theirs, the answer the best of their trees
    best = min(range(n_threads), key=lambda k: outcomes[k][0])
    objective, _, root, _ = outcomes[best]
    if root < 0:
        # stopped before any tree (Ctrl-C at once): the single leaf (pool node 0)
        root = 0
        objective = float(len(red.y) - np.bincount(red.y, minlength=n_classes).max())
    lower_bound = min(o[1] for o in outcomes)
    interrupted = any(bool(e.interrupted) for e in engines)
    stopped = state["stop"] and not interrupted
    timed_out = any(o[3] for o in outcomes) and not interrupted and not stopped
    # the answer always closes the trace (a leaf, a cached root, depth <= 1
    # never pass through the root-improvement hook)
    if not points or objective < points[-1][1] - 1e-12:
        points.append((time.perf_counter() - start, objective, state["lower"], best, int(root)))
    if lower_bound > points[-1][2] + 1e-9:
        _, obj, _, k, r = points[-1]
        points.append((time.perf_counter() - start, obj, lower_bound, k, r))
    pools = [e.tree_arrays() for e in engines]
    tree = _tree_from_pool(pools[best], int(root), enc, red.features, X, y_index, n_classes)
    trace, trace_trees = _trace(points, pools, enc, red.features, X, y_index, n_classes, offset,
                                node_cost)
    stats = {
        "subproblems": sum(int(e.n_subproblems) for e in engines),
        "d2_calls": sum(int(e.n_d2) for e in engines),
        "cache_hits": sum(int(e.n_cache_hits) for e in engines),
        "similarity_prunes": sum(int(e.n_similarity_prunes) for e in engines),
        "derived_counts": sum(int(e.n_derived_counts) for e in engines),
        "cache_entries": sum(int(e.cache_entries) for e in engines),
        "threads": n_threads,
        "features_used": int(len(red.features)),
        "rows_cancelled": red.rows_removed,
    }
    if restart_log is not None:
        stats["restarts"] = restart_log.restarts
        stats["rule_cuts"] = restart_log.rule_cuts
    return SearchResult(tree, float(objective) + offset, float(lower_bound) + offset,
                        bool(timed_out), time.perf_counter() - start, stats, interrupted,
                        stopped, trace, trace_trees)


def _trace(points, pools, enc, features, X, y_index, n_classes, offset, node_cost):
    """Trace points with each tree's recomputed training error."""
    trace: list[TracePoint] = []
    trees: list[Tree] = []
    for t, obj, lb, k, root in points:
        tree = _tree_from_pool(pools[k], root, enc, features, X, y_index, n_classes)
        errors = tree.training_errors()
        objective = obj + offset
        lower = min(lb + offset, objective)
        if trace and lower < trace[-1].lower_bound:
            lower = trace[-1].lower_bound
        trace.append(TracePoint(t, int(errors), float(objective), float(lower)))
        trees.append(tree)
    return trace, trees


def _solve_in_threads(engines: list[Engine], time_limit: float, known_lb: float,
                      shared_out: list) -> list[tuple]:
    """Run the engines concurrently (``Engine.solve`` releases the GIL)."""
    shared = SharedRoot()
    shared_out.append(shared)
    for engine in engines:
        engine.share_root_with(shared)
    outcomes: list[tuple | None] = [None] * len(engines)
    errors: list[BaseException] = []
    done = [threading.Event() for _ in engines]

    def run(k: int) -> None:
        try:
            outcomes[k] = engines[k].solve(time_limit, known_lb)
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
                    X: np.ndarray, y_index: np.ndarray, n_classes: int) -> Tree:
    """Copy the subtree at ``root`` out of the engine's shared node pool (preorder),
    in the original feature indices; class counts from the full training data."""
    feat_p, lo_p, hi_p, left_p, right_p = pool
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []

    def emit(node: int, rows: np.ndarray) -> int:
        idx = len(feature)
        feature.append(-1)
        threshold.append(0.0)
        left.append(-1)
        right.append(-1)
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
            feature[idx] = int(features[f])
            threshold[idx] = t
            go_left = column <= t
            left[idx] = emit(int(left_p[node]), rows[go_left])
            right[idx] = emit(int(right_p[node]), rows[~go_left])
        return idx

    emit(root, np.arange(X.shape[0]))
    tree = Tree(feature, threshold, left, right, np.zeros((len(feature), n_classes)), X.shape[1])
    tree.value = tree.decision_path_counts(X, y_index, n_classes)
    return tree
