"""Fewest misclassifications at a fixed depth (beyond the paper).

:func:`min_errors`, by MaxSAT: the same perfect-tree encoding, with every
distinct row routed by hard clauses (3)-(4) and each (row, class) group's
class clauses (5)-(6) guarded by a selector ``s``: the soft unit ``s`` weighs
the group's size, so the optimum cost is the minimum number of misclassified
training examples of a depth-k tree.  Solved with python-sat's RC2
(stratified for weights).

:func:`optimaltrees.search.sat.exact.min_errors_dp` finds the same optimum by
the library's exact DP engine: usually orders of magnitude faster, and the
estimator's default.
"""
from __future__ import annotations

import numpy as np
from pysat.examples.rc2 import RC2, RC2Stratified
from pysat.formula import WCNF

from optimaltrees.search.sat.decode import PerfectTree
from optimaltrees.search.sat.encoding import (MAX_LISTED_CLAUSES, FormulaTooLargeError, TreeEncoding,
                                              estimate_clauses, too_large_message)
from optimaltrees.search.sat.result import SATResult, SATStats
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
    distinct row is encoded at once, (2^depth - 1) x (tests, or at most 2 a
    chain) routing clauses each."""
    if depth == 0 or problem.B.shape[1] == 0:
        return
    m = problem.B.shape[1]
    clauses = estimate_clauses(m, depth, problem.n_classes, problem.n_rows,
                               groups=int(problem.groups_row.size), chains=problem.chains)
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
    enc = TreeEncoding(B, np.zeros(problem.n_rows, dtype=np.int64), problem.n_classes, depth, solver=None,
                       chains=problem.chains)
    path = [enc.new_example_vars() for _ in range(problem.n_rows)]
    for i in range(problem.n_rows):
        check_deadline()
        enc._add(enc.routing_clauses(i, path[i]))
    wcnf = WCNF()
    wcnf.extend(enc.clauses)
    for g in range(problem.groups_row.size):
        sel = enc.pool.id(("S", g))
        wcnf.extend(enc.class_clauses(path[int(problem.groups_row[g])], int(problem.groups_class[g]),
                                      guard=-sel))
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
