"""Incremental SAT inference of perfect-fit trees (Avellaneda, AAAI 2020).

:func:`min_depth` (DT-depth) tries k = 1, 2, ... and for each k runs the
counterexample loop of Algorithm 3: solve with the examples encoded so far,
check the decoded tree on *all* examples, add a misclassified one, repeat
until the tree fits (k is feasible) or the formula is UNSAT (no tree of depth
k fits even the encoded subset, hence none fits all).  Each depth starts
from no example, as in the paper's code: seeding depth k with the examples
that made depth k-1 infeasible is sound but made the first call at k a hard
search from scratch (on car: minutes instead of seconds).

:func:`min_size` (DT-size) continues on the same solver at the minimum depth:
a leaf counter bounds the labelled leaves by L through an assumption, and a
binary search over L finds the fewest leaves; UNSAT for a bound is final
because the formula only grows.

Neighbourhood repair (not in the paper): a new counterexample usually breaks
the last tree only near one leaf, so each round first asks the solver for a
tree that keeps the last tree's tests on the top levels (as assumptions),
freeing only the bottom ``free`` levels for each ``free`` in ``repair``;
only when no such tree fits the encoded examples does it solve the whole
formula.  The answer is unchanged - infeasibility is only ever concluded from
a call without these assumptions - but most rounds become small local
searches and fewer examples enter the formula.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from optimaltrees.search.sat.decode import PerfectTree, leaf_count
from optimaltrees.search.sat.encoding import TreeEncoding, route
from optimaltrees.search.sat.problem import Problem
from optimaltrees.search.sat.worker import OutOfTime, seconds_left


class NoTreeWithinDepthError(ValueError):
    """No tree of depth <= the cap classifies every training example."""


#: bottom levels a repair may change, tried in turn before a full call
DEFAULT_REPAIR = (4, 6)


@dataclass
class SATStats:
    sat_calls: int = 0                     # solver calls, including repair attempts
    rounds: int = 0                        # trees decoded and checked against all examples
    repaired: int = 0                      # rounds answered by a repair call
    examples_encoded: int = 0
    variables: int = 0
    clauses: int = 0
    depths_tried: list[int] = field(default_factory=list)
    solve_seconds: float = 0.0

    def absorb(self, enc: TreeEncoding) -> None:
        self.examples_encoded = len(enc.encoded)
        self.variables = enc.n_vars
        self.clauses = enc.n_clauses


@dataclass
class SATResult:
    """What the search knows: the best tree so far and how far it is proven."""
    tree: PerfectTree | None
    depth_lower_bound: int                 # every smaller depth is proven infeasible
    leaves: int | None = None              # leaves of the simplified tree
    leaves_lower_bound: int = 1
    depth_optimal: bool = False
    size_optimal: bool = False
    stats: SATStats = field(default_factory=SATStats)
    over_tests: bool = False               # node features index all Boolean tests, not kept columns


@dataclass(frozen=True)
class SATProgress:
    """Where the search is (reported at most every ``progress`` seconds when
    asked for, for a progress display; not a result)."""
    phase: str                     # "depth" (DT-depth) or "size" (DT-size at the minimum depth)
    depth: int                     # depth of the formula being solved
    leaves: int | None             # DT-size: the leaf bound being tried
    lower: int                     # proven: depth ("depth"), or nodes ("size")
    upper: int | None              # best known by the search: nodes ("size"), None ("depth")
    sat_calls: int
    rounds: int
    examples_encoded: int


Report = Callable[[object], None]


class _Ticker:
    """Sends a :class:`SATProgress` through ``report`` every ``every`` seconds."""

    def __init__(self, report: Report | None, every: float | None) -> None:
        self.report = report if every is not None else None
        self.every = every
        self.last = -math.inf

    def __call__(self, make: Callable[[], SATProgress], force: bool = False) -> None:
        if self.report is None:
            return
        now = time.perf_counter()
        if force or now - self.last >= self.every:
            self.last = now
            self.report(make())


def _solve_round(enc: TreeEncoding, assumptions: list[int], last: np.ndarray | None,
                 repair: tuple[int, ...], stats: SATStats) -> bool:
    """One round's satisfiability: first near the last tree (its top levels
    held by assumptions), then, if no such tree fits, the whole formula."""
    if last is not None:
        for free in repair:
            fixed = enc.k - free
            if fixed <= 0:           # frees the whole tree: the full call below
                continue
            nodes = np.arange(1, 1 << fixed)
            hold = enc.F[nodes, last[nodes]].tolist()
            stats.sat_calls += 1
            if enc.solve(assumptions + hold):
                stats.repaired += 1
                return True
    stats.sat_calls += 1
    return enc.solve(assumptions)


def _fit_loop(enc: TreeEncoding, B: np.ndarray, y: np.ndarray, order_rank: np.ndarray,
              per_round: int, stats: SATStats, assumptions=(),
              repair: tuple[int, ...] = DEFAULT_REPAIR,
              start: np.ndarray | None = None, tick=None) -> PerfectTree | None:
    """Algorithm 3: a tree of the encoding's depth that fits every example
    (within the assumptions), or None when there is none.  ``start``: node
    features of a tree to repair first (e.g. the last bound's tree);
    ``tick()`` is called every round (progress)."""
    assumptions = [int(a) for a in assumptions]
    last = start
    while True:
        if tick is not None:
            tick()
        stats.rounds += 1
        t0 = time.perf_counter()
        sat = _solve_round(enc, assumptions, last, repair, stats)
        stats.solve_seconds += time.perf_counter() - t0
        if not sat:
            return None
        node_feature, leaf_class = enc.decode()
        predicted = leaf_class[route(B, node_feature, enc.k)]
        wrong = np.flatnonzero(predicted != y)
        if wrong.size == 0:
            return PerfectTree(enc.k, node_feature, leaf_class)
        last = node_feature
        # the first misclassified examples in the example order
        pick = wrong[np.argsort(order_rank[wrong], kind="stable")[:per_round]]
        enc.add_examples(pick)


def min_depth(problem: Problem, *, max_depth: int | None = None, solver: str = "cadical195",
              per_round: int = 1, order: np.ndarray | None = None,
              repair: tuple[int, ...] = DEFAULT_REPAIR,
              report: Report | None = None,
              progress: float | None = None) -> tuple[SATResult, TreeEncoding | None]:
    """DT-depth: the smallest depth of a tree that fits every example.
    ``progress``: report a :class:`SATProgress` at most this often (seconds).

    Returns the result and the solver state at that depth (for
    :func:`min_size`).  Raises :class:`NoTreeWithinDepthError` past ``max_depth``.
    """
    B, y = problem.B, problem.row_classes()
    stats = SATStats()
    present = np.unique(y)
    order_rank = _order_rank(problem.n_rows, order)
    if present.size <= 1:
        tree = PerfectTree(0, np.full(1, -1), np.array([int(present[0]) if present.size else 0]))
        return SATResult(tree, 0, 1, 1, True, True, stats), None
    k, cap = _depth_range(problem, present.size, max_depth)
    core: list[int] = []                  # the examples that proved the last depth infeasible
    lower = k
    ticker = _Ticker(report, progress)
    while k <= cap:
        stats.depths_tried.append(k)
        enc = TreeEncoding(B, y, problem.n_classes, k, solver=solver)

        def tick(force: bool = False, enc=enc, k=k) -> None:
            ticker(lambda: SATProgress("depth", k, None, k, None, stats.sat_calls, stats.rounds,
                                       len(enc.encoded)), force)

        tick(force=True)
        tree = _fit_loop(enc, B, y, order_rank, per_round, stats, repair=repair, tick=tick)
        stats.absorb(enc)
        if tree is not None:
            leaves = leaf_count(tree, B, y, problem.n_classes)
            result = SATResult(tree, k, leaves, present.size, True, False, stats)
            if report:
                report(result)
            return result, enc
        core = list(enc.encoded)
        enc.delete()
        lower = k + 1
        if report:
            report(SATResult(None, lower, stats=stats))
        k += 1
    if max_depth is not None and lower > max_depth:
        raise NoTreeWithinDepthError(
            f"no tree of depth <= max_depth={max_depth} classifies every training example "
            f"correctly (depth {max_depth} was proven infeasible on {len(core)} of the "
            f"{problem.n_rows} distinct examples); raise max_depth, or use objective='errors' for "
            "the depth-limited tree with the fewest misclassifications")
    raise NoTreeWithinDepthError("no consistent tree exists (conflicting examples)")


def dp_search(B: np.ndarray, y: np.ndarray, n_classes: int, depth: int):
    """The DP engine's optimal tree of depth <= ``depth`` over the 0/1 columns
    of ``B`` (a ``search.contree.SearchResult``, proven optimal), within the
    in-process deadline if any (:class:`OutOfTime` otherwise)."""
    from optimaltrees.search.contree import search_tree

    left = seconds_left()
    if left is not None and left <= 0:
        raise OutOfTime
    found = search_tree(np.asarray(B, dtype=np.float64), np.asarray(y, dtype=np.int64), n_classes,
                        depth, time_limit=left)
    if found.interrupted:
        raise KeyboardInterrupt
    if found.timed_out or found.stopped or found.memory_out:
        raise OutOfTime
    return found


def min_depth_dp(problem: Problem, *, max_depth: int | None = None,
                 report: Report | None = None) -> tuple[SATResult, None]:
    """DT-depth by the library's exact DP engine instead of SAT: the smallest
    depth whose optimal tree makes no error (each infeasible depth is proven
    by the DP's bound).  Often far faster than SAT's UNSAT proofs."""
    B, y = problem.B, problem.row_classes()
    stats = SATStats()
    present = np.unique(y)
    if present.size <= 1:
        return min_depth(problem, max_depth=max_depth, report=report)
    k, cap = _depth_range(problem, present.size, max_depth)
    while k <= cap:
        stats.depths_tried.append(k)
        found = dp_search(B, y, problem.n_classes, k)
        if found.objective == 0:
            tree = _perfect_from_tree(found.tree, k)
            result = SATResult(tree, k, leaf_count(tree, B, y, problem.n_classes), present.size,
                               True, False, stats)
            if report:
                report(result)
            return result, None
        if report:
            report(SATResult(None, k + 1, stats=stats))
        k += 1
    raise NoTreeWithinDepthError(
        f"no tree of depth <= max_depth={max_depth} classifies every training example correctly; "
        "raise max_depth, or use objective='errors' for the depth-limited tree with the fewest "
        "misclassifications")


def _perfect_from_tree(tree, depth: int, test_of=None) -> PerfectTree:
    """A Tree over 0/1 columns (threshold 0.5) as a perfect heap tree of
    ``depth``: a shallow leaf repeats its class below any test.
    ``test_of(feature, threshold)``: the test a split stands for (default:
    its feature; left = the test false)."""
    N = 1 << depth
    node_feature = np.zeros(N, dtype=np.int64)
    leaf_class = np.zeros(N, dtype=np.int64)

    def fill(q: int, node: int, level: int) -> None:
        if level == depth:
            leaf_class[q - N] = int(np.argmax(tree.value[node]))
            return
        f = int(tree.feature[node])
        if f < 0:
            fill(2 * q, node, level + 1)
            fill(2 * q + 1, node, level + 1)
            return
        node_feature[q] = f if test_of is None else test_of(f, float(tree.threshold[node]))
        fill(2 * q, int(tree.children_left[node]), level + 1)
        fill(2 * q + 1, int(tree.children_right[node]), level + 1)

    fill(1, 0, 0)
    return PerfectTree(depth, node_feature, leaf_class)


def min_size(problem: Problem, depth_result: SATResult, enc: TreeEncoding | None, *,
             solver: str = "cadical195", cardinality: str = "counter", per_round: int = 1,
             order: np.ndarray | None = None, repair: tuple[int, ...] = DEFAULT_REPAIR,
             report: Report | None = None, progress: float | None = None) -> SATResult:
    """DT-size: at the minimum depth, the tree with the fewest leaves (nodes = 2L-1)."""
    result = depth_result
    if result.tree is None or result.tree.depth == 0:        # one leaf is minimal
        result.size_optimal = True
        return result
    B, y = problem.B, problem.row_classes()
    if enc is None:                  # the depth came from elsewhere: a fresh formula
        enc = TreeEncoding(B, y, problem.n_classes, result.tree.depth, solver=solver)
        try:
            return min_size(problem, result, enc, solver=solver, cardinality=cardinality,
                            per_round=per_round, order=order, repair=repair, report=report,
                            progress=progress)
        finally:
            enc.delete()
    stats = result.stats
    order_rank = _order_rank(problem.n_rows, order)
    lo, hi = result.leaves_lower_bound, result.leaves
    enc.add_leaf_counter(hi, cardinality)
    ticker = _Ticker(report, progress)
    while lo < hi:
        L = (lo + hi) // 2

        def tick(force: bool = False, L=L, lo=lo, hi=hi) -> None:
            ticker(lambda: SATProgress("size", enc.k, L, 2 * lo - 1, 2 * hi - 1, stats.sat_calls,
                                       stats.rounds, len(enc.encoded)), force)

        tick(force=True)
        tree = _fit_loop(enc, B, y, order_rank, per_round, stats, enc.at_most_leaves(L),
                         repair=repair, start=result.tree.node_feature, tick=tick)
        stats.absorb(enc)
        if tree is None:
            lo = L + 1                     # final: the formula only grows
            result.leaves_lower_bound = lo
        else:
            result.tree = tree
            hi = min(L, leaf_count(tree, B, y, problem.n_classes))
            result.leaves = hi
        if report:
            report(result)
    result.size_optimal = True
    result.leaves_lower_bound = result.leaves
    return result


def _depth_range(problem: Problem, n_present: int, max_depth: int | None) -> tuple[int, int]:
    """First and last depth worth trying: c classes need ceil(log2 c) levels,
    and a consistent tree never needs more levels than features or distinct
    rows minus one (every split of distinct rows leaves both sides smaller)."""
    first = max(1, math.ceil(math.log2(n_present)))
    cap = min(problem.B.shape[1], problem.n_rows - 1)
    if max_depth is not None:
        cap = min(cap, max_depth)
    return first, cap


def _order_rank(n: int, order: np.ndarray | None) -> np.ndarray:
    """rank[i] = position of distinct row i in the order examples are tried."""
    if order is None:
        return np.arange(n)
    rank = np.empty(n, dtype=np.int64)
    rank[np.asarray(order)] = np.arange(n)
    return rank


def infer(problem: Problem, *, objective: str = "depth", max_depth: int | None = None,
          solver: str = "cadical195", cardinality: str = "counter", per_round: int = 1,
          order: np.ndarray | None = None, depth_search: str = "sat",
          repair: tuple[int, ...] = DEFAULT_REPAIR,
          report: Report | None = None, progress: float | None = None) -> SATResult:
    """DT-depth, then DT-size when ``objective == "size"`` (one solver
    throughout).  ``depth_search="dp"`` finds the depth with the DP engine.
    ``progress``: also report a :class:`SATProgress` at most this often."""
    if depth_search == "dp":
        result, enc = min_depth_dp(problem, max_depth=max_depth, report=report)
    else:
        result, enc = min_depth(problem, max_depth=max_depth, solver=solver, per_round=per_round,
                                order=order, repair=repair, report=report, progress=progress)
    try:
        if objective == "size":
            result = min_size(problem, result, enc, solver=solver, cardinality=cardinality,
                              per_round=per_round, order=order, repair=repair, report=report,
                              progress=progress)
    finally:
        if enc is not None:
            enc.delete()
    return result
