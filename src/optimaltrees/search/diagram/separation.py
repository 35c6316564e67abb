"""How many threshold tests it takes to separate the classes: a node bound.

A univariate diagram (or tree) with k decision nodes uses at most k distinct
tests ``x_f <= t``.  Two training rows of different classes that no chosen
test separates follow the same path to the same leaf, so one of them is
misclassified.  Hence a diagram with 0 training errors has at least as many
nodes as the smallest set of tests that separates every such pair -- a
hitting set over the pairs, each pair "hit" by the tests whose threshold lies
between its two values on some feature.  Where the depth bound of
:mod:`~optimaltrees.search.diagram.trees` says only "a tree of depth D can be
perfect", this says how many nodes a perfect diagram needs, which is what
separates a zero-error start from the bound ``penalty * (D - 1)``.

The question "can ``k`` tests separate every pair?" goes to a SAT solver
(python-sat; a clause per pair, a totalizer for "at most k").  All pairs are
too many (n^2 / 2), so pairs are added lazily: a proof for some of the pairs
holds for all of them, and a set of tests found for some pairs is checked on
every row, its impure cells giving the next pairs (each row with its nearest
row of another class: the pairs few tests separate constrain the most).
"""
from __future__ import annotations

import time

import numpy as np
from pysat.card import ITotalizer
from pysat.solvers import Solver

from optimaltrees.search.sat.worker import OutOfTime, check_deadline, deadline_in, solve_within

#: nearest rows of another class each row is first paired with
SEED_NEIGHBOURS = 3
#: rows compared with all others at once when looking for nearest rows
_CHUNK = 64


def tests_needed(X: np.ndarray, y: np.ndarray, up_to: int, deadline: float) -> int:
    """C such that every set of fewer than C univariate threshold tests
    leaves two training rows of different classes together (so any diagram
    or tree with fewer than C decision nodes has >= 1 training error),
    proven before ``deadline`` (``time.perf_counter``); at most ``up_to + 1``.

    C = 1 says nothing beyond the data having two classes; C = up_to + 1
    means no set of ``up_to`` tests suffices."""
    y = np.asarray(y)
    if len(np.unique(y)) < 2:
        return 0
    need = 1       # no test at all leaves the two classes together
    with deadline_in(deadline - time.perf_counter()):
        try:
            ranks = _rank_columns(np.asarray(X, dtype=np.float64))
            pairs = _nearest_pairs(ranks, y, np.arange(len(y)), SEED_NEIGHBOURS)
            while need <= up_to:
                cover = _cover_of(ranks, pairs, need)
                if cover is None:              # these pairs already need more tests
                    need += 1
                    continue
                cells = _cells(ranks, cover)
                more = _impure_pairs(ranks, y, cells, pairs)
                if not more:
                    return need                # a real separation with `need` tests
                pairs |= more
        except OutOfTime:
            pass
    return need


def _rank_columns(X: np.ndarray) -> np.ndarray:
    """Each value's rank among its column's distinct values: the number of
    threshold tests between two rows on a feature is their rank difference."""
    ranks = np.empty(X.shape, dtype=np.int64)
    for f in range(X.shape[1]):
        ranks[:, f] = np.unique(X[:, f], return_inverse=True)[1].ravel()
    return ranks


def _nearest_pairs(ranks: np.ndarray, y: np.ndarray, rows: np.ndarray, k: int) -> set[tuple[int, int]]:
    """Each of ``rows`` with its ``k`` nearest rows (in ``rows``) of another class,
    by the number of tests between them."""
    out: set[tuple[int, int]] = set()
    sub = ranks[rows].astype(np.float64)
    labels = y[rows]
    for lo in range(0, len(rows), _CHUNK):
        check_deadline()
        block = sub[lo:lo + _CHUNK]
        dist = np.abs(block[:, None, :] - sub[None, :, :]).sum(axis=2)
        dist[labels[lo:lo + _CHUNK, None] == labels[None, :]] = np.inf
        take = min(k, len(rows) - 1)
        near = np.argpartition(dist, take - 1, axis=1)[:, :take] if take > 0 else np.empty((len(block), 0), int)
        for a, row in enumerate(near):
            i = int(rows[lo + a])
            for b in row:
                if np.isfinite(dist[a, b]):
                    j = int(rows[b])
                    out.add((min(i, j), max(i, j)))
    return out


def _cover_of(ranks: np.ndarray, pairs: set[tuple[int, int]], k: int) -> list[tuple[int, int]] | None:
    """At most k tests (feature, rank: ``rank <= r`` goes left) separating
    every pair, or None when none exist (a proof for these pairs)."""
    P = np.array(sorted(pairs), dtype=np.int64)
    lo = np.minimum(ranks[P[:, 0]], ranks[P[:, 1]])
    hi = np.maximum(ranks[P[:, 0]], ranks[P[:, 1]])
    tests: list[tuple[int, int]] = []
    clauses: list[list[int]] = [[] for _ in range(len(P))]
    for f in range(ranks.shape[1]):
        apart = lo[:, f] < hi[:, f]
        # a cut just above rank r separates the pairs with lo <= r < hi.  It
        # separates no fewer than the cut above r - 1 only if a pair starts
        # at r, and no fewer than the cuts up to the next start or end only
        # if that next one is an end: only such cuts become variables (any
        # other is contained in one of them)
        starts = np.unique(lo[apart, f])
        if len(starts) == 0:
            continue
        ends = np.unique(hi[apart, f])
        events = np.union1d(starts, ends)
        after = events[np.searchsorted(events, starts, side="right")]   # every start has a later end
        cuts = starts[np.isin(after, ends)]
        first = len(tests) + 1
        tests.extend((f, int(r)) for r in cuts)
        a = np.searchsorted(cuts, lo[:, f], side="left")
        b = np.searchsorted(cuts, hi[:, f], side="left")
        for p in np.flatnonzero(b > a):
            clauses[p].extend(range(first + a[p], first + b[p]))
    if any(not c for c in clauses):
        return None            # two rows of different classes that no test separates
    n_vars = len(tests)
    tot = ITotalizer(lits=list(range(1, n_vars + 1)), ubound=k, top_id=n_vars)
    with Solver(name="glucose4", bootstrap_with=clauses) as solver:
        solver.append_formula(tot.cnf.clauses)
        ok = solve_within(solver, [-tot.rhs[k]] if k < n_vars else [])
        model = solver.get_model() if ok else None
    tot.delete()
    if model is None:
        return None
    return [tests[v - 1] for v in model[:n_vars] if v > 0]


def _cells(ranks: np.ndarray, tests: list[tuple[int, int]]) -> np.ndarray:
    """The cell (same side of every test) of each row."""
    if not tests:
        return np.zeros(len(ranks), dtype=np.int64)
    sides = np.stack([ranks[:, f] > r for f, r in tests], axis=1)
    return np.unique(np.packbits(sides, axis=1), axis=0, return_inverse=True)[1].ravel()


def _impure_pairs(ranks: np.ndarray, y: np.ndarray, cells: np.ndarray,
                  known: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """New pairs from the cells holding two classes: each of their rows with
    its nearest row of another class in the same cell."""
    out: set[tuple[int, int]] = set()
    order = np.argsort(cells, kind="stable")
    bounds = np.flatnonzero(np.diff(cells[order])) + 1
    for rows in np.split(order, bounds):
        if len(np.unique(y[rows])) > 1:
            out |= _nearest_pairs(ranks, y, rows, 1)
    return out - known
