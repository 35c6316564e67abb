"""The same questions as the SAT and MaxSAT encodings, answered by the
library's exact DP engine on the same Boolean tests (beyond the paper).

The tests of one numeric column form a chain (``x > t_1``, ``x > t_2``, ...),
so the engine reads one ordinal column per chain (:func:`ordinal_matrix`)
and its threshold ``rank <= r - 0.5`` is exactly the test ``chain[r - 1]``
false: every tree over the tests is a tree over the ordinal columns and back.
A tree of depth <= k over 0/1 tests is a perfect tree of depth k whose
shallow leaves repeat their class, so the answers decode like a SAT model's
(:class:`~optimaltrees.search.sat.decode.PerfectTree` over test indices).

* :func:`min_depth_dp`  (DT-depth) the smallest depth whose fewest-errors tree
  has no error; each smaller depth is proven infeasible by the DP's bound;
* :func:`min_size_dp`   (DT-size) at that depth, a cost of 2^-k per branching
  node (below one error, since a depth-k tree has < 2^k of them) makes the
  optimum the zero-error tree with the fewest nodes;
* :func:`min_errors_dp` the fewest misclassifications at a fixed depth.

On the paper's sets these take milliseconds to a second where the SAT loop
takes seconds to minutes (``benchmarks/results/sat/`` and ``sat-table3/``).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from optimaltrees.data.validation import CHECK_CELLS
from optimaltrees.search.sat.decode import PerfectTree, leaf_count
from optimaltrees.search.sat.problem import column_block
from optimaltrees.search.sat.result import (NoTreeWithinDepthError, SATProgress, SATResult, SATStats,
                                            depth_range, min_leaves)
from optimaltrees.search.sat.worker import OutOfTime, seconds_left

Report = Callable[[object], None]


def test_chains(tests) -> list[np.ndarray]:
    """The Boolean tests (a ``Binarizer``'s ``tests_``) as chains for
    :func:`ordinal_matrix`: the threshold tests of one column in ascending
    order (a thermometer: ``x > t_r`` implies every lower one), and every
    other test alone."""
    chains: list[list[int]] = []
    by_column: dict[int, list[int]] = {}
    for i, test in enumerate(tests):
        if test.kind == "threshold":
            if test.column not in by_column:
                by_column[test.column] = []
                chains.append(by_column[test.column])
            by_column[test.column].append(i)
        else:
            chains.append([i])
    for chain in by_column.values():
        chain.sort(key=lambda i: tests[i].value)
    return [np.asarray(c, dtype=np.int64) for c in chains]


def ordinal_matrix(B: np.ndarray, chains: list[np.ndarray], checkpoint=None) -> np.ndarray:
    """One column per chain: how many of its tests are true (for a threshold
    chain, the rank of the value among the thresholds), so that the engine's
    split ``rank <= r - 0.5`` is exactly the test ``chain[r - 1]`` false.
    The engine splits numeric ranks natively: one column per chain instead
    of one per threshold, so numeric columns cost orders of magnitude less.
    ``checkpoint()`` (optional) is called before every chain of several
    tests and between blocks of rows of the single tests."""
    check = checkpoint if checkpoint is not None else (lambda: None)
    X = np.empty((B.shape[0], len(chains)), dtype=np.float64)
    singles = np.array([j for j, c in enumerate(chains) if c.size == 1], dtype=np.int64)
    if singles.size:
        # single tests copied as they are, a block of rows at a time
        tests = np.array([chains[j][0] for j in singles], dtype=np.int64)
        step = max(1, CHECK_CELLS // singles.size)
        for r0 in range(0, B.shape[0], step):
            check()
            X[r0:r0 + step, singles] = column_block(B[r0:r0 + step], tests)
    for j, chain in enumerate(chains):
        if chain.size > 1:
            check()
            X[:, j] = column_block(B, chain).sum(axis=1, dtype=np.int64)
    return X


def dp_search(X: np.ndarray, y: np.ndarray, n_classes: int, depth: int, node_cost: float = 0.0,
              sample_weight: np.ndarray | None = None):
    """The DP engine's optimal tree of depth <= ``depth`` (errors +
    ``node_cost`` per branching node; a ``search.contree.SearchResult``,
    proven), within the in-process deadline if any (:class:`OutOfTime`
    otherwise; Ctrl-C raises KeyboardInterrupt)."""
    from optimaltrees.search.contree import search_tree

    left = seconds_left()
    if left is not None and left <= 0:
        raise OutOfTime
    found = search_tree(np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64), n_classes,
                        depth, node_cost=node_cost, time_limit=left, sample_weight=sample_weight)
    if found.interrupted:
        raise KeyboardInterrupt
    if found.timed_out or found.stopped or found.memory_out:
        raise OutOfTime
    return found


def perfect_from_tree(tree, depth: int, test_of=None) -> PerfectTree:
    """A Tree over 0/1 or ordinal columns as a perfect heap tree of
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


#: the DP engine reads the 0/1 tests themselves (its bitset layout) when
#: there are at most this many tests per chain, else the chains as ordinal
#: columns (its sorted layout): the bitset layout's counting wins while the
#: chains are short (integer codes such as car's and monk1's, a few tests
#: each), the sorted layout once they are long (numeric columns: hundreds of
#: tests in a dozen chains take it from tens of seconds to a tenth).
BINARY_TESTS_PER_CHAIN = 4


class OrdinalTests:
    """The training data as the DP engine reads it: the ordinal columns of
    the tests' chains (or the 0/1 tests themselves, when that is faster: see
    ``BINARY_TESTS_PER_CHAIN``; ``binary`` forces either), and the 0/1 tests
    to count leaves."""

    def __init__(self, B: np.ndarray, y: np.ndarray, n_classes: int,
                 chains: list[np.ndarray], binary: bool | None = None,
                 weight: np.ndarray | None = None, rows: np.ndarray | None = None,
                 checkpoint=None) -> None:
        """``rows``: the engine reads these rows of B only (a perfect tree's
        search reads the distinct rows); leaves are counted on all of B,
        whose repeated rows change no leaf.  ``checkpoint`` as in
        :func:`ordinal_matrix`."""
        self.B = B                                   # rows x all Boolean tests, 0/1
        self.leaf_y = np.asarray(y, dtype=np.int64)  # every row's class, for counting leaves
        self.y = self.leaf_y if rows is None else self.leaf_y[rows]   # the engine's rows' classes
        self.weight = weight                         # each row's sample weight (None: 1 each)
        self.n_classes = n_classes
        n_tests = sum(len(c) for c in chains)
        if binary is None:
            binary = n_tests <= BINARY_TESTS_PER_CHAIN * max(1, len(chains))
        if binary:                                   # every test its own chain: X is B
            chains = [np.array([j], dtype=np.int64) for c in chains for j in np.asarray(c).tolist()]
        self.binary = bool(binary)
        self.chains = chains
        if rows is not None and len(chains) * 8 > sum(len(c) for c in chains):
            # X nearly as wide as B (and 8 bytes a cell): pick the rows of B first
            self.X = ordinal_matrix(B[rows], chains, checkpoint)
        else:
            X = ordinal_matrix(B, chains, checkpoint)
            self.X = X if rows is None else np.ascontiguousarray(X[rows])

    def test_of(self, feature: int, threshold: float) -> int:
        """The Boolean test the engine's split ``X[:, feature] <= threshold``
        leaves false on the left."""
        return int(self.chains[feature][int(np.floor(threshold))])

    def perfect(self, tree, depth: int) -> PerfectTree:
        return perfect_from_tree(tree, depth, self.test_of)

    def leaves(self, pt: PerfectTree) -> int:
        return leaf_count(pt, self.B, self.leaf_y, self.n_classes)


def min_depth_dp(data: OrdinalTests, *, n_rows: int, n_columns: int, max_depth: int | None = None,
                 report: Report | None = None) -> SATResult:
    """DT-depth by the DP engine: the smallest depth whose optimal tree makes
    no error (each infeasible depth proven by the DP's bound), reported as
    the search goes (every refuted depth raises the proven lower bound).
    ``n_rows``, ``n_columns``: distinct rows and kept columns of the
    problem (no consistent tree needs more levels than either)."""
    stats = SATStats(examples_encoded=0)
    present = np.unique(data.y)
    if present.size <= 1:
        tree = PerfectTree(0, np.full(1, -1), np.array([int(present[0]) if present.size else 0]))
        return SATResult(tree, 0, 1, 1, True, True, stats, over_tests=True)
    k, cap = depth_range(n_columns, n_rows, present.size, max_depth)
    while k <= cap:
        stats.depths_tried.append(k)
        if report:
            report(SATProgress("depth", k, None, k, None, 0, 0, 0))
        found = dp_search(data.X, data.y, data.n_classes, k)
        if round(found.objective) == 0:
            tree = data.perfect(found.tree, k)
            result = SATResult(tree, k, data.leaves(tree), min_leaves(present.size, k), True, False, stats,
                               over_tests=True)
            if report:
                report(result)
            return result
        if report:
            report(SATResult(None, k + 1, stats=stats))
        k += 1
    raise NoTreeWithinDepthError(
        f"no tree of depth <= max_depth={max_depth} classifies every training example correctly; "
        "raise max_depth, or use objective='errors' for the depth-limited tree with the fewest "
        "misclassifications")


def min_size_dp(data: OrdinalTests, depth_result: SATResult, *,
                report: Report | None = None) -> SATResult:
    """DT-size by the DP engine at the proven minimum depth k: errors +
    2^-k per branching node, whose optimum has no error (a depth-k tree with
    no error exists, and any error costs more than all nodes together) and,
    among such trees, the fewest nodes."""
    result = depth_result
    k = result.tree.depth if result.tree is not None else 0
    if k == 0:
        result.size_optimal = True
        return result
    cost = 2.0 ** -k                               # exact in binary: sums stay exact
    if report:
        report(SATProgress("size", k, None, 2 * result.leaves_lower_bound - 1,
                           2 * result.leaves - 1, 0, 0, 0))
    found = dp_search(data.X, data.y, data.n_classes, k, node_cost=cost)
    errors = int(np.floor(found.objective))
    if errors != 0:
        raise RuntimeError(f"internal error: the DP's fewest-nodes tree of depth {k} makes "
                           f"{errors} errors, where a tree with none exists")
    tree = data.perfect(found.tree, k)
    result.tree = tree
    result.leaves = data.leaves(tree)
    result.leaves_lower_bound = result.leaves
    result.size_optimal = True
    result.over_tests = True
    if report:
        report(result)
    return result


def smallest_tree_dp(data: OrdinalTests, *, objective: str, n_rows: int, n_columns: int,
                     max_depth: int | None = None, report: Report | None = None) -> SATResult:
    """DT-depth, then (``objective == "size"``) DT-size, both by the DP engine."""
    result = min_depth_dp(data, n_rows=n_rows, n_columns=n_columns, max_depth=max_depth,
                          report=report)
    if objective == "size":
        result = min_size_dp(data, result, report=report)
    return result


def min_errors_dp(data: OrdinalTests, depth: int) -> tuple[SATResult, int | float]:
    """The depth-``depth`` tree over the Boolean tests with the fewest
    misclassifications of the training rows, and that number (proven
    optimal; their weight, with sample weights); node features are test
    indices (``SATResult.over_tests``).  Ends by the in-process deadline, if any."""
    stats = SATStats(depths_tried=[depth], examples_encoded=0)
    if depth == 0 or not data.chains:
        counts = np.bincount(data.y, minlength=data.n_classes, weights=data.weight)
        best = int(np.argmax(counts))
        tree = PerfectTree(0, np.full(1, -1), np.array([best]))
        errors = counts.sum() - counts[best]
        return SATResult(tree, 0, stats=stats, over_tests=True), \
            int(errors) if data.weight is None else float(errors)
    found = dp_search(data.X, data.y, data.n_classes, depth, sample_weight=data.weight)
    return SATResult(data.perfect(found.tree, depth), 0, stats=stats, over_tests=True), \
        int(round(found.objective)) if data.weight is None else float(found.objective)
