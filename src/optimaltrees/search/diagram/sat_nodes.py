"""How many errors a diagram of k nodes must make, by SAT: bounds and smaller diagrams.

The depth bound of :mod:`.trees` knows only that a diagram unfolds into a
tree of depth D, and :mod:`.separation` only how many tests a perfect one
needs; neither sees the skeleton's shape (few nodes per layer, arcs only to
the next layer or a terminal).  Where the best start has 0-20 errors the gap
left is the price of a handful of nodes, and proving it means answering,
for each node count k,

    Q(k, e):  is there a univariate diagram on the skeleton with at most k
              used nodes and at most e training errors?

exactly.  This module asks Q to a SAT solver (python-sat) on a growing
subset of the distinct training points, as Avellaneda's tree inference does
(``../shared/papers/notes/satdepth.md``): UNSAT on a subset holds for all
the points; a diagram found on a subset is routed through every point, and
the points it gets wrong join the formula.  One incremental formula serves
every (k, e): both limits are totalizer outputs passed as assumptions.

The formula, per skeleton node u (layer l) and point i of the subset:

* ``act[u]``      u is used (the root always; within a layer, used nodes first);
* ``feat[u, f]``  u tests feature f (one, when used);
* ``pos[u, i]``   point i is on u's positive side (rank >= threshold): for
  the chosen f, monotone in i's rank on f, equal ranks equal sides (two
  clauses per neighbouring pair of the subset in f's order: no threshold
  variables, and every threshold the points can tell apart is covered);
* ``arc[u, s, v]`` side s of u leads to v (a node of layer l + 1 or a class
  terminal): exactly one per side when used, never both sides to one v,
  only to used nodes, and every used non-root node is entered;
* ``reach[i, u]`` point i passes u (implied along the arcs from the root;
  only from a node of the layer above it passes); every used node is
  reached by some point of the subset;
* ``err[i, c]``   point i ends at class c, which costs it ``best - counts[c]``
  errors beyond its unavoidable ``total - best`` (counted once for all
  points, in the subset or not).

Every diagram the MILP allows is, on the subset's points, a model of this
formula or scores the same as a smaller one that is (drop the used nodes no
point of the subset reaches: none of its points changes path), so an UNSAT
answer bounds every diagram the MILP can return, whatever its side constraints (fairness, min_flow, tree, which only
remove diagrams).  A diagram found here is checked by the caller like any
other start.  Integer class counts only (no sample weights, or integer ones).
"""
from __future__ import annotations

import bisect
import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from pysat.card import ITotalizer
from pysat.solvers import Solver

from optimaltrees.search.diagram.heuristic import Points, Settings, node_penalty, objective
from optimaltrees.search.diagram.skeleton import Placement, Skeleton
from optimaltrees.search.sat.encoding import clause_adder
from optimaltrees.search.sat.worker import OutOfTime, check_deadline, deadline_in, solve_within

#: points that join the formula per failed check (the worst-classified first)
COUNTEREXAMPLES = 4
#: questions whose error budget (beyond the unavoidable errors) exceeds this are not asked:
#: a totalizer that wide, over hundreds of points, is rarely answered in time
MAX_ERROR_BUDGET = 40
#: Glucose 4: on the loop's hard last calls CaDiCaL, MiniSat and MapleChrono were no faster
SOLVER = "glucose4"
#: each used node is reached by a point of the subset: redundant, but the hardest
#: questions are answered faster with it
USED_IS_REACHED = True
#: seconds that stand for "no deadline" (SAT calls then still return to Python every ~0.1 s)
NO_DEADLINE = 1e9


@dataclass
class NodeSearch:
    """What the SAT questions proved and found."""

    errors: np.ndarray                     # [k - 1]: every diagram of <= k nodes makes >= this many errors
    found: list[Placement] = field(default_factory=list)   # diagrams better than the start, best last
    questions: list[dict] = field(default_factory=list)    # (k, e, answer, points, seconds) per question
    complete: bool = False                 # every open question was answered
    seconds: float = 0.0


def integral_counts(points: Points) -> bool:
    """The SAT bound counts errors in whole rows: integer class counts only."""
    c = points.counts
    return bool(np.all(np.isfinite(c)) and np.all(c == np.round(c)) and c.sum() < 2 ** 31)


class DiagramFormula:
    """The incremental CNF of "a diagram on ``skeleton`` with <= k nodes and
    <= e errors on the points added so far" (see the module docstring)."""

    def __init__(self, ranks: np.ndarray, counts: np.ndarray, skeleton: Skeleton, error_ubound: int,
                 canonical: bool = True) -> None:
        self.ranks = np.asarray(ranks)
        self.counts = np.rint(np.asarray(counts, dtype=np.float64)).astype(np.int64)
        self.skeleton = skeleton
        self.K = skeleton.n_classes
        best = self.counts.max(axis=1)
        self.base = int((self.counts.sum(axis=1) - best).sum())     # errors no diagram avoids
        #: per point and class: the errors beyond ``best`` that ending at that class costs
        self.extra = best[:, None] - self.counts
        # features that tell some points apart (a constant one sends all of them one way,
        # which any feature's monotone sides also allow)
        self.features = [f for f in range(self.ranks.shape[1]) if np.ptp(self.ranks[:, f]) > 0] or [0]
        self.top = 0
        self.solver = Solver(name=SOLVER)
        self.add = clause_adder(self.solver)
        self.members: list[int] = []
        self.order = {f: [] for f in self.features}       # per feature: sorted (rank, point)
        self.pos: dict[tuple[int, int], int] = {}
        self.reach: dict[tuple[int, int], int] = {}
        self.err_lits: list[int] = []
        self.round_lit = 0                                  # switches the current "used is reached" clauses on
        self._nodes(canonical)
        self.error_ubound = max(int(error_ubound), 1)
        self.err_tot: ITotalizer | None = None

    def _var(self) -> int:
        self.top += 1
        return self.top

    def close(self) -> None:
        self.solver.delete()
        if self.err_tot is not None:
            self.err_tot.delete()
        self.node_tot.delete()

    # -- the nodes, built once ------------------------------------------------------

    def _heads(self, u: int) -> list[int]:
        sk = self.skeleton
        layer = sk.layer_of(u)
        nxt = list(sk.layer_nodes(layer + 1)) if layer + 1 < sk.depth else []
        return nxt + [sk.terminal(c) for c in range(self.K)]

    def _nodes(self, canonical: bool) -> None:
        sk = self.skeleton
        m = sk.n_internal
        self.act = [self._var() for _ in range(m)]
        self.feat = [[self._var() for _ in self.features] for _ in range(m)]
        self.arc = {}
        clauses = [[self.act[0]]]
        for u in range(m):
            a = self.act[u]
            fs = self.feat[u]
            clauses.append([-a] + fs)
            clauses.extend([-fs[i], -fs[j]] for i in range(len(fs)) for j in range(i + 1, len(fs)))
            clauses.extend([-f, a] for f in fs)
            heads = self._heads(u)
            for side in (0, 1):
                lits = []
                for v in heads:
                    x = self._var()
                    self.arc[u, side, v] = x
                    lits.append(x)
                    clauses.append([-x, a])
                    if v < m:
                        clauses.append([-x, self.act[v]])
                clauses.append([-a] + lits)
                clauses.extend([-lits[i], -lits[j]] for i in range(len(lits)) for j in range(i + 1, len(lits)))
            clauses.extend([-self.arc[u, 0, v], -self.arc[u, 1, v]] for v in heads)
        for layer in range(1, sk.depth):
            ids = list(sk.layer_nodes(layer))
            for v in ids:        # a used node is entered from the layer above
                clauses.append([-self.act[v]] + [self.arc[u, s, v] for u in sk.layer_nodes(layer - 1)
                                                 for s in (0, 1)])
            # the nodes of a layer are interchangeable: used nodes first (ordering them by
            # feature as well made the hard questions slower)
            clauses.extend([-self.act[b], self.act[a]] for a, b in zip(ids, ids[1:]))
            if canonical:
                clauses.extend(self._entry_order(layer))
        self.add(clauses)
        self.node_tot = ITotalizer(lits=self.act[1:], ubound=max(m - 1, 1), top_id=self.top)
        self.top = max(self.top, self.node_tot.top_id)
        self.add(self.node_tot.cnf.clauses)

    def _entry_order(self, layer: int) -> list[list[int]]:
        """Clauses numbering the used nodes of ``layer`` (>= 1) in the order
        they are first entered: number the arcs (tail, side) of the layer above
        in node order; a node's first arc comes before the next node's.

        Sound: each arc enters one node, so the used nodes of a layer have
        distinct first arcs, and renumbering them (their own arcs go with
        them) changes no route; done layer by layer from the root, every
        diagram has such a numbering.  Measured on hayes-roth, skeleton
        (1, 2, 4, 4, 4): the node bound's questions took 33 s in all and proved
        the optimum, against two questions in 54 s without."""
        sk = self.skeleton
        ids = list(sk.layer_nodes(layer))
        tails = [(u, s) for u in sk.layer_nodes(layer - 1) for s in (0, 1)]
        return [[-self.arc[u, s, b]] + [self.arc[u2, s2, a] for u2, s2 in tails[:p]]
                for a, b in zip(ids, ids[1:]) for p, (u, s) in enumerate(tails)]

    # -- the points, added as they are needed ------------------------------------------

    def add_points(self, points) -> None:
        sk = self.skeleton
        m = sk.n_internal
        clauses: list[list[int]] = []
        new_err: list[int] = []
        for i in points:
            i = int(i)
            self.members.append(i)
            for u in range(m):
                self.pos[u, i] = self._var()
            for fi, f in enumerate(self.features):
                key = (float(self.ranks[i, f]), i)
                row = self.order[f]
                at = bisect.bisect_left(row, key)
                for nb, after in ((row[at - 1] if at > 0 else None, False), (row[at] if at < len(row) else None, True)):
                    if nb is None:
                        continue
                    lo, hi = (i, nb[1]) if after else (nb[1], i)
                    same = nb[0] == key[0]
                    for u in range(m):
                        g = self.feat[u][fi]
                        clauses.append([-g, -self.pos[u, lo], self.pos[u, hi]])   # larger ranks stay positive
                        if same:
                            clauses.append([-g, -self.pos[u, hi], self.pos[u, lo]])
                row.insert(at, key)
            for u in range(1, m):
                self.reach[i, u] = self._var()
            wrong = {}
            for c in range(self.K):
                cost = int(self.extra[i, c])
                if cost > 0:
                    x = self._var()
                    wrong[c] = x
                    new_err.append(x)
                    for _ in range(min(cost, self.error_ubound + 1) - 1):   # a totalizer counts
                        copy = self._var()                                   # distinct literals
                        clauses.append([-x, copy])
                        new_err.append(copy)
            for u in range(m):
                here = [] if u == 0 else [-self.reach[i, u]]
                for v in self._heads(u):
                    for side in (0, 1):
                        p = self.pos[u, i]
                        body = here + [-self.arc[u, side, v], -p if side else p]
                        if v < m:
                            clauses.append(body + [self.reach[i, v]])
                        elif (v - m) in wrong:
                            clauses.append(body + [wrong[v - m]])
        if USED_IS_REACHED:
            # the question is about the subset: a used node no point of it reaches could be
            # dropped (its arcs sent anywhere), so each used node is reached by one; the clause
            # grows with the subset, so each version is switched off by the next one's literal
            for i in points:
                for v in range(1, m):
                    layer = sk.layer_of(v)
                    if layer > 1:
                        clauses.append([-self.reach[i, v]] + [self.reach[i, u] for u in sk.layer_nodes(layer - 1)])
            if self.round_lit:
                clauses.append([self.round_lit])
            self.round_lit = self._var()
            clauses.extend([-self.act[v], self.round_lit] + [self.reach[i, v] for i in self.members]
                           for v in range(1, m))
        self.add(clauses)
        if new_err:
            self.err_lits.extend(new_err)
            if self.err_tot is None:
                self.err_tot = ITotalizer(lits=new_err, ubound=self.error_ubound, top_id=self.top)
                self.add(self.err_tot.cnf.clauses)
            else:
                self.err_tot.extend(lits=new_err, top_id=self.top)
                if self.err_tot.nof_new:
                    self.add(self.err_tot.cnf.clauses[-self.err_tot.nof_new:])
            self.top = max(self.top, self.err_tot.top_id)

    # -- questions -------------------------------------------------------------------

    def assumptions(self, k: int, e: int) -> list[int] | None:
        """Assumptions for "<= k nodes, <= e errors"; None: impossible outright."""
        budget = e - self.base
        if budget < 0 or k < 1:
            return None
        out = [-self.round_lit] if self.round_lit else []
        if k - 1 < len(self.node_tot.rhs):
            out.append(-self.node_tot.rhs[k - 1])
        if self.err_tot is not None and budget < len(self.err_tot.rhs):
            out.append(-self.err_tot.rhs[budget])
        return out

    def decode(self, n_features: int) -> Placement:
        """The diagram of the solver's model, its thresholds halfway (in rank)
        between the subset's points on either side."""
        model = self.solver.get_model()
        true = np.zeros(self.top + 2, dtype=bool)
        lits = np.asarray(model[: self.top + 1], dtype=np.int64)
        true[lits[lits > 0]] = True
        sk = self.skeleton
        m = sk.n_internal
        plc = Placement.empty(sk, n_features)
        for u in range(m):
            if not true[self.act[u]]:
                continue
            plc.active[u] = True
            picked = [f for fi, f in enumerate(self.features) if true[self.feat[u][fi]]]
            f = picked[0] if picked else 0
            plc.coef[u, f] = 1.0
            side = np.array([true[self.pos[u, i]] for i in self.members])
            r = self.ranks[self.members, f] if picked else np.zeros(len(self.members))
            # a node sending every point one way is the "always" test (threshold 0:
            # every rank is >= 0), the MILP's only such test; one sending every
            # point to its negative side is that test with its heads swapped
            # (a threshold above every rank was no test the MILP start knows)
            everyone_negative = len(side) > 0 and not side.any()
            if side.all() or everyone_negative or not picked:
                t = 0.0
            else:
                t = float(math.floor((r[~side].max() + 1 + r[side].min()) / 2))
            plc.threshold[u] = t
            for s, target in ((0, plc.negative), (1, plc.positive)):
                target[u] = next(v for v in self._heads(u) if true[self.arc[u, s, v]])
            if everyone_negative:
                plc.positive[u], plc.negative[u] = plc.negative[u], plc.positive[u]
        return plc


def node_error_bounds(points: Points, skeleton: Skeleton, settings: Settings, *, start_objective: float,
                      known: np.ndarray, deadline: float | None,
                      admissible: Callable[[Placement], bool]) -> NodeSearch:
    """For each node count k, most first: prove that every diagram of <= k
    nodes makes too many errors to beat the best objective so far (at
    first ``start_objective``), or find one that beats it (it becomes the
    objective to beat, and k is asked again).  ``known[k - 1]``: errors
    already proven for k nodes (questions it answers are not asked).  Ends
    by ``deadline`` (``time.perf_counter``) with what it proved so far."""
    t0 = time.perf_counter()
    m = skeleton.n_internal if settings.max_nodes is None else min(skeleton.n_internal, settings.max_nodes)
    out = NodeSearch(np.zeros(skeleton.n_internal))
    n = points.n
    price = node_penalty(skeleton, settings.alpha)
    d = points.X.shape[1]

    def most_errors(k: int, obj: float) -> int:
        """The most errors a diagram of k nodes can make and still score below ``obj``."""
        return int(math.ceil((obj - price * (k - 1)) * n - 1e-7)) - 1

    formula = DiagramFormula(points.X, points.counts, skeleton, 1)
    needed = [most_errors(k, start_objective) - formula.base for k in range(1, m + 1)]
    formula.error_ubound = max([1] + [b + 1 for b in needed if b <= MAX_ERROR_BUDGET])
    # most nodes first: the question next to the best diagram is the hardest and the one
    # most likely to find a better diagram, and a better diagram found early lowers the
    # error budget of every question after it
    best_obj, k, unanswered = start_objective, m, False
    try:
        # no deadline: a far one all the same, so the solver runs in slices and Ctrl-C is seen
        with deadline_in(NO_DEADLINE if deadline is None else deadline - time.perf_counter()):
            formula.add_points(_first_points(points))
            while k >= 1:
                check_deadline()
                e = most_errors(k, best_obj)
                if e < max(known[k - 1], out.errors[k - 1]):
                    k -= 1             # proven already
                    continue
                if e - formula.base > MAX_ERROR_BUDGET:
                    unanswered, k = True, k - 1
                    continue
                q0 = time.perf_counter()
                plc = _ask(formula, k, e, points, skeleton, settings, d)
                out.questions.append({"nodes": k, "errors": e, "answer": "no" if plc is None else "yes",
                                      "points": len(formula.members), "seconds": time.perf_counter() - q0})
                if plc is None:                 # no diagram of <= k nodes has <= e errors
                    out.errors[:k] = np.maximum(out.errors[:k], e + 1)
                    k -= 1
                    continue
                obj = objective(points, skeleton, plc, settings)[0]
                if admissible(plc) and obj < best_obj - 1e-12:
                    out.found.append(plc)       # the objective to beat now: k is asked again
                    best_obj = obj
                else:                           # better, but the side constraints forbid it
                    unanswered, k = True, k - 1
            out.complete = not unanswered
    except OutOfTime:
        pass
    finally:
        formula.close()
        out.seconds = time.perf_counter() - t0
    return out


def _first_points(points: Points) -> list[int]:
    """The heaviest point of each class: the formula starts from these."""
    majority = np.argmax(points.counts, axis=1)
    weight = points.counts.max(axis=1)
    out = []
    for c in np.unique(majority):
        rows = np.flatnonzero(majority == c)
        out.append(int(rows[np.argmax(weight[rows])]))
    return out


def _ask(formula: DiagramFormula, k: int, e: int, points: Points, skeleton: Skeleton, settings: Settings,
         d: int) -> Placement | None:
    """A diagram of <= k nodes with <= e errors on every point, or None when
    there is none (proven on the subset, hence for all points)."""
    while True:
        assume = formula.assumptions(k, e)
        if assume is None or not solve_within(formula.solver, assume):
            return None
        plc = formula.decode(d)
        cls, _, _ = plc.route(skeleton, points.X)
        cost = formula.extra[np.arange(len(cls)), cls]
        if formula.base + cost.sum() <= e:
            return plc
        inside = np.zeros(len(cls), dtype=bool)
        inside[formula.members] = True
        bad = np.flatnonzero((cost > 0) & ~inside)
        if not len(bad):
            raise AssertionError("a diagram over its error budget with every misclassified point encoded")
        # the costliest first, then in point order (spreading the picks over the list made
        # the hardest questions slower)
        pick = bad[np.argsort(-cost[bad], kind="stable")[:COUNTEREXAMPLES]]
        formula.add_points(pick)
