"""Fewest misclassifications at a fixed depth (beyond the paper).

:func:`min_errors`, by MaxSAT: the same perfect-tree encoding, with every
distinct row routed by hard clauses (3)-(4) and each (row, class) group's
class clauses (5)-(6) guarded by a selector ``s``: the soft unit ``s`` weighs
the group's size, so the optimum cost is the minimum number of misclassified
training examples of a depth-k tree.  Solved with python-sat's RC2
(stratified for weights).

:func:`min_errors_dp`, the same optimum by the library's exact DP engine on
the same Boolean tests (a tree of depth <= k over 0/1 columns is a perfect
tree of depth k whose shallow leaves repeat their class): usually orders of
magnitude faster, and the estimator's default.
"""
from __future__ import annotations

import numpy as np
from pysat.examples.rc2 import RC2, RC2Stratified
from pysat.formula import WCNF

from optimaltrees.search.sat.decode import PerfectTree
from optimaltrees.search.sat.encoding import (MAX_LISTED_CLAUSES, FormulaTooLargeError, TreeEncoding,
                                              estimate_clauses, too_large_message)
from optimaltrees.search.sat.inference import SATResult, SATStats
from optimaltrees.search.sat.problem import Problem
from optimaltrees.search.sat.worker import check_deadline, seconds_left, solve_within


class _Limited:
    """RC2 whose SAT calls end by the in-process deadline (see :mod:`.worker`);
    core minimisation keeps RC2's own 1000-conflict budget per call."""

    _minimising = False

    def minimize_core(self):
        self._minimising = True
        try:
            return super().minimize_core()
        finally:
            self._minimising = False

    def _call_oracle(self, assumptions=[], expect_interrupt=False):
        if seconds_left() is None:
            return super()._call_oracle(assumptions, expect_interrupt)
        if self._minimising:
            check_deadline()
            return self.oracle.solve_limited(assumptions=assumptions)
        return solve_within(self.oracle, assumptions)


class _LimitedRC2(_Limited, RC2):
    pass


class _LimitedRC2Stratified(_Limited, RC2Stratified):
    pass


def check_size(problem: Problem, depth: int) -> None:
    """Refuse, before building anything, a formula over the size cap: every
    distinct row is encoded at once, (2^depth - 1) x tests routing clauses each."""
    if depth == 0 or problem.B.shape[1] == 0:
        return
    m = problem.B.shape[1]
    clauses = estimate_clauses(m, depth, problem.n_classes, problem.n_rows,
                               groups=int(problem.groups_row.size))
    if clauses > MAX_LISTED_CLAUSES:
        raise FormulaTooLargeError(too_large_message(clauses, MAX_LISTED_CLAUSES, depth, m,
                                                     problem.n_rows))


def min_errors(problem: Problem, depth: int, *, solver: str = "glucose4") -> tuple[SATResult, int]:
    """The depth-``depth`` tree with the fewest weighted misclassifications,
    and that number (proven optimal)."""
    check_size(problem, depth)
    stats = SATStats(depths_tried=[depth])
    B = problem.B
    if depth == 0 or problem.B.shape[1] == 0:
        counts = np.bincount(problem.groups_class, weights=problem.groups_weight,
                             minlength=problem.n_classes)
        best = int(np.argmax(counts))
        tree = PerfectTree(0, np.full(1, -1), np.array([best]))
        return (SATResult(tree, 0, 1, 1, depth_optimal=False, size_optimal=False, stats=stats),
                int(counts.sum() - counts[best]))
    enc = TreeEncoding(B, np.zeros(problem.n_rows, dtype=np.int64), problem.n_classes, depth, solver=None)
    path = [enc.new_example_vars(i) for i in range(problem.n_rows)]
    for i in range(problem.n_rows):
        check_deadline()
        for block in enc.routing_clauses(path[i], B[i].astype(np.int64)):
            enc._add(block)
    wcnf = WCNF()
    wcnf.extend(enc.clauses)
    for g in range(problem.groups_row.size):
        sel = enc.pool.id(("S", g))
        block = enc.class_clauses(path[int(problem.groups_row[g])], int(problem.groups_class[g]))
        guarded = np.concatenate([block, np.full((block.shape[0], 1), -sel, dtype=np.int64)], axis=1)
        wcnf.extend(guarded.tolist())
        wcnf.append([sel], weight=int(problem.groups_weight[g]))
    stats.variables = enc.pool.top
    stats.clauses = len(wcnf.hard) + len(wcnf.soft)
    stats.examples_encoded = problem.n_rows
    weighted = bool(np.any(problem.groups_weight != problem.groups_weight[0]))
    cls = _LimitedRC2Stratified if weighted else _LimitedRC2
    with cls(wcnf, solver=solver, adapt=True, exhaust=True, minz=True) as rc2:
        model = rc2.compute()
        cost = int(rc2.cost)
        stats.sat_calls = int(getattr(rc2, "oracle_calls", 0) or 0)
    if model is None:                       # cannot happen: every hard part is satisfiable
        raise RuntimeError("the MaxSAT hard clauses are unsatisfiable")
    truth = np.zeros(enc.pool.top + 1, dtype=bool)
    m = np.asarray(model, dtype=np.int64)
    pos = m[(m > 0) & (m <= enc.pool.top)]
    truth[pos] = True
    node_feature = np.full(enc.N, -1, dtype=np.int64)
    node_feature[1:] = np.argmax(truth[enc.F[1:]], axis=1)
    Ct = truth[enc.C]
    leaf_class = np.where(Ct.sum(axis=1) == 1, np.argmax(Ct, axis=1), -1)
    tree = PerfectTree(depth, node_feature, leaf_class)
    return SATResult(tree, 0, stats=stats), cost


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


def ordinal_matrix(B: np.ndarray, chains: list[np.ndarray]) -> np.ndarray:
    """One column per chain: how many of its tests are true (for a threshold
    chain, the rank of the value among the thresholds), so that the engine's
    split ``rank <= r - 0.5`` is exactly the test ``chain[r - 1]`` false.
    The engine splits numeric ranks natively: far fewer columns than the
    0/1 tests (300 numeric rows at depth 3: 0.1 s instead of 30 s)."""
    X = np.empty((B.shape[0], len(chains)), dtype=np.float64)
    for j, chain in enumerate(chains):
        X[:, j] = B[:, chain[0]] if chain.size == 1 else B[:, chain].sum(axis=1, dtype=np.int64)
    return X


def min_errors_dp(X: np.ndarray, y: np.ndarray, n_classes: int, depth: int,
                  chains: list[np.ndarray]) -> tuple[SATResult, int]:
    """:func:`min_errors` by the exact DP engine, on every training row:
    the depth-``depth`` tree over the same Boolean tests with the fewest
    misclassifications, and that number (proven optimal).  ``X`` is
    :func:`ordinal_matrix` of the tests; the tree's node features are test
    indices (``SATResult.over_tests``), not the problem's kept columns.
    Ends by the in-process deadline, if any."""
    from optimaltrees.search.sat.inference import _perfect_from_tree, dp_search

    y = np.asarray(y, dtype=np.int64)
    stats = SATStats(depths_tried=[depth], examples_encoded=0)
    if depth == 0 or not chains:
        counts = np.bincount(y, minlength=n_classes)
        best = int(np.argmax(counts))
        tree = PerfectTree(0, np.full(1, -1), np.array([best]))
        return SATResult(tree, 0, stats=stats, over_tests=True), int(counts.sum() - counts[best])
    found = dp_search(X, y, n_classes, depth)

    def test_of(feature: int, threshold: float) -> int:
        return int(chains[feature][int(np.floor(threshold))])

    tree = _perfect_from_tree(found.tree, depth, test_of)
    return SATResult(tree, 0, stats=stats, over_tests=True), int(round(found.objective))
