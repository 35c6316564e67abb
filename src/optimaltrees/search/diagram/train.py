"""Train a diagram: heuristic first, then the MILP started from it, then a
check of the answer on the training data.

The heuristic's answer is also the fallback: when the solver finds nothing
better in time (or there is no time to build the MILP) it is returned,
flagged (and proven optimal when the solver shows that nothing beats it).

Nothing the solver says is taken on trust: the returned diagram is turned
into the final :class:`~optimaltrees.model.diagram.DecisionDiagram` and its
errors, objective, node flows, size, tree shape and fairness are recomputed
by routing the *original* training rows through it (:func:`verify`).  A
diagram whose recomputed objective differs from the solver's, or that breaks
a constraint, is never reported optimal, and ``status`` says why.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from optimaltrees.model.diagram import DecisionDiagram, project, scale_features
from optimaltrees.search.diagram.formulation import (BUILD_RATE, MAX_MILP_NONZEROS, OutOfTime, build_milp,
                                                     check_milp_size, milp_size, placement_from_vector, sides_from_vector,
                                                     start_vector)
from optimaltrees.search.diagram.heuristic import Points, Settings, heuristic, node_penalty, objective, prune
from optimaltrees.search.diagram.interrupts import CtrlC, watch_ctrl_c
from optimaltrees.search.diagram.skeleton import Placement, Skeleton, constant_placement
from optimaltrees.search.diagram.solve import MilpResult, solve
from optimaltrees.search.diagram.sat_nodes import integral_counts, node_error_bounds
from optimaltrees.search.diagram.trees import (TreeKnowledge, errors_by_nodes, hull_cuts, merge_search,
                                               objective_bound, separate, tree_knowledge, tree_placement)

OBJECTIVE_TOL = 1e-6   # recomputed vs solver objective: larger differences mean "unverified"
MIN_SOLVE_SECONDS = 0.2   # no MILP is started with less time than this (plus its estimated build)
#: share of ``tree_time`` the separation bound may take: it proves small data
#: in well under a second, and on many features rarely gets far in any time
SEPARATION_SHARE = 0.25
#: share of the time left that the SAT questions "k nodes, e errors?" may take
#: (the univariate MILP rarely improves on its start or its bound: the SAT
#: answers prove where it does not)
SAT_SHARE = 0.9


@dataclass
class Encoding:
    """The training data as the MILP sees it (``points``) and the way back to
    the user's features (``to_model``).

    Univariate: each column is coded by the rank of its value among the
    column's distinct values, so every candidate test is exact whatever the
    values (1e19, outliers, denormals), and a node's rank threshold r becomes
    a threshold between the (r-1)-th and r-th distinct original values.
    Multivariate: features min-max scaled to [0, 1] (hyperplanes need a
    metric; the big-M values need the box), thresholds in those units."""

    points: Points
    X: np.ndarray                  # the original training rows
    y: np.ndarray                  # class index per row
    group: np.ndarray | None
    univariate: bool
    values: list | None = None     # univariate: sorted distinct values of each column
    offset: np.ndarray | None = None
    scale: np.ndarray | None = None
    weight: np.ndarray | None = None   # each row's sample weight (> 0); None: 1 each

    @property
    def total(self) -> float:
        """The training rows' weight (their number without sample weights)."""
        return float(len(self.y)) if self.weight is None else float(self.weight.sum())

    @property
    def unit(self) -> float:
        """The least an error can cost: one row, or the lightest row's weight."""
        return 1.0 if self.weight is None else float(self.weight.min())

    def to_model(self, plc: Placement, skeleton: Skeleton) -> DecisionDiagram:
        d = self.X.shape[1]
        if not self.univariate:
            return plc.to_model(skeleton, self.offset, self.scale, 0.0)
        out = plc.copy()
        active = np.flatnonzero(out.active)
        column = {}
        for u in active:
            column[u] = j = int(np.argmax(np.abs(out.coef[u])))
            out.coef[u] = 0.0
            out.coef[u, j] = 1.0
        # each split midway between the training values it separates at its node, as
        # a tree's (and CART's) are: the rank threshold alone would put it just below
        # the smallest value sent right, however wide the gap to the largest sent left
        _, path, sides = out.route(skeleton, self.points.X)
        for u in active:
            j = column[u]
            layer = skeleton.layer_of(u)
            at = path[:, layer] == u
            ranks, right = self.points.X[at, j], sides[at, layer]
            if right.any() and not right.all():
                out.threshold[u] = _value_between(float(self.values[j][int(ranks[~right].max())]),
                                                  float(self.values[j][int(ranks[right].min())]))
            else:
                out.threshold[u] = _original_threshold(self.values[j], out.threshold[u])
        return out.to_model(skeleton, np.zeros(d), np.ones(d), 0.0)


def _value_between(lo: float, hi: float) -> float:
    """A threshold t with lo < t <= hi (``x >= t`` goes right): halfway when
    that midpoint is representable strictly above lo, else hi."""
    mid = lo / 2 + hi / 2
    return mid if lo < mid <= hi else hi


def _original_threshold(values: np.ndarray, rank_threshold: float) -> float:
    """A threshold t in original units with ``x >= t`` exactly for the values
    of rank >= ceil(rank_threshold): halfway between the neighbours when that
    midpoint is representable strictly above the lower one, else the upper one."""
    r = int(min(max(math.ceil(rank_threshold - 1e-9), 0), len(values)))
    if r == 0:
        return float(values[0])
    if r == len(values):
        return float(np.nextafter(values[-1], np.inf))
    return _value_between(float(values[r - 1]), float(values[r]))


def unique_rows(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, axis=0, return_inverse=True)`` (sorted rows, and the
    index of each row's copy), fast on wide matrices: numpy sorts axis=0 as a
    structured dtype field by field (20,000 rows x 4,000 one-hot columns:
    15 s).  Non-negative doubles stored big-endian compare as their bytes do,
    so each row is compared as one byte string, in the same order."""
    key = np.asarray(key, dtype=np.float64)
    if key.ndim != 2 or key.size == 0 or np.isnan(key).any() or not np.min(key) >= 0:
        uniq, inverse = np.unique(key, axis=0, return_inverse=True)
        return uniq, inverse.reshape(-1)
    top = float(np.max(key))
    if top < 2.0 ** 32 and np.array_equal(key, np.floor(key)):
        # ranks (univariate splits): the narrowest unsigned type, big-endian
        # (one-hot columns: a byte a cell instead of eight)
        dtype = np.uint8 if top < 256 else ">u2" if top < 65536 else ">u4"
    else:
        dtype = ">f8"
    rows = np.ascontiguousarray(key + 0.0, dtype=dtype)            # (+ 0.0: no -0.0)
    items = rows.view(np.dtype((np.void, rows.shape[1] * rows.itemsize))).reshape(-1)
    _, first, inverse = np.unique(items, return_index=True, return_inverse=True)
    return key[first], inverse.reshape(-1)


def column_values(X: np.ndarray) -> list[np.ndarray]:
    """Each column's distinct values, sorted (``np.unique`` per column).
    Columns of one or two values (0/1 columns, one-hot categories) are found
    in a few passes over the whole matrix, not one sort each: 20,000 rows x
    4,000 one-hot columns took 1.4 s of per-column sorts."""
    lo, hi = X.min(axis=0, initial=np.inf), X.max(axis=0, initial=-np.inf)
    two = np.isfinite(lo) & np.isfinite(hi)
    step = max(1, (1 << 16) // max(1, X.shape[1]))       # blocks of rows: no matrix-sized temporaries
    for r0 in range(0, X.shape[0], step):
        block = X[r0:r0 + step]
        two &= ((block == lo) | (block == hi)).all(axis=0)
    return [(np.array([lo[j]]) if lo[j] == hi[j] else np.array([lo[j], hi[j]])) if two[j]
            else np.unique(X[:, j]) for j in range(X.shape[1])]


def encode(X: np.ndarray, y_index: np.ndarray, n_classes: int, group: np.ndarray | None,
           skeleton: Skeleton, settings: Settings, *, univariate: bool,
           weight: np.ndarray | None = None) -> Encoding:
    """The distinct rows (with their group) and class counts of the MILP, after
    a size check: nothing per class and point is allocated for a MILP that
    :func:`~optimaltrees.search.diagram.formulation.check_milp_size` refuses.
    With ``weight`` (one > 0 per row) the counts are sums of weights."""
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    if univariate:
        values = column_values(X)
        # a column's distinct values bound the distinct rows from below; the
        # MILP's size grows with the rows in either of its two forms (a binary
        # per test, or thresholds), so one too large in both at that bound is
        # refused before the rows are ranked (20,000 x 4,000 one-hot: 5 s)
        fewest = max((len(v) for v in values), default=1)
        sizes = dict(min_flow=settings.min_flow > 0, fairness=settings.fairness is not None,
                     error_cuts=skeleton.depth + 2)
        least = min(milp_size(fewest, skeleton, d, n_tests=t, **sizes)[1]
                    for t in (1 + sum(len(v) - 1 for v in values), None))
        if least > MAX_MILP_NONZEROS:
            raise ValueError(
                f"the diagram MILP would have more than {least:,} nonzeros (at least {fewest:,} distinct "
                f"rows x {skeleton.n_arcs:,} arcs of the skeleton {skeleton.widths} with "
                f"{skeleton.n_classes} classes), beyond the {MAX_MILP_NONZEROS:,} it can hold: use fewer "
                "rows, fewer classes or a smaller skeleton")
        Xs = np.column_stack([np.searchsorted(v, X[:, j]) for j, v in enumerate(values)]).astype(np.float64) \
            if d else np.zeros((len(X), 0))
        offset = scale = None
    else:
        values = None
        lo, hi = X.min(axis=0), X.max(axis=0)
        with np.errstate(over="ignore"):
            span = hi - lo
        if not np.all(np.isfinite(span)):
            j = int(np.flatnonzero(~np.isfinite(span))[0])
            raise ValueError(f"feature {j} spans [{lo[j]:g}, {hi[j]:g}], a range beyond float64: multivariate "
                             "splits scale every feature to [0, 1]; rescale it (univariate splits take any values)")
        # 1 / span overflows for denormal spans: cap the factor (such a column then fills less than [0, 1])
        scale = np.where(span > 0, 1.0 / np.maximum(span, 1e-300), 0.0)
        offset = lo
        Xs = np.clip(scale_features(X, offset, scale), 0.0, 1.0)
    key = Xs if group is None else np.column_stack([Xs, group])
    uniq, inverse = unique_rows(key)
    n_tests = 1 + sum(len(v) - 1 for v in values) if univariate else None
    check_milp_size(len(uniq), skeleton, d, n_tests=n_tests, min_flow=settings.min_flow > 0,
                    fairness=settings.fairness is not None, error_cuts=skeleton.depth + 2 if univariate else 0)
    counts = np.zeros((len(uniq), n_classes))
    np.add.at(counts, (inverse, y_index), 1.0 if weight is None else weight)
    if group is None:
        points = Points(np.ascontiguousarray(uniq), counts)
    else:
        points = Points(np.ascontiguousarray(uniq[:, :-1]), counts, uniq[:, -1].astype(np.intp))
    return Encoding(points, X, np.asarray(y_index), group, univariate, values, offset, scale, weight)


@dataclass
class Check:
    """What a model does on the training rows, recomputed."""

    objective: float
    errors: int | float                               # misclassified rows (their weight, when weighted)
    violations: list = field(default_factory=list)    # broken constraints, in words


def verify(model: DecisionDiagram, enc: Encoding, skeleton: Skeleton, settings: Settings) -> Check:
    """Route the original training rows through ``model`` (its own
    prediction code) and recompute the objective and every constraint."""
    n = enc.total
    pred = model.predict(enc.X)
    wrong = pred != enc.y
    errors = int(np.count_nonzero(wrong)) if enc.weight is None else float(enc.weight[wrong].sum())
    obj = errors / n + node_penalty(skeleton, settings.alpha) * (model.n_nodes - 1)
    bad = []
    if settings.max_nodes is not None and model.n_nodes > settings.max_nodes:
        bad.append(f"{model.n_nodes} nodes > max_nodes={settings.max_nodes}")
    if settings.tree and not model.is_tree():
        bad.append("a merge in tree mode")
    if settings.min_flow > 0 and model.n_nodes > 1:
        flows = model.node_flows(enc.X, enc.weight)[1:]
        if flows.min() < settings.min_flow - 1e-9:
            bad.append(f"a node with {flows.min():g} {'rows' if enc.weight is None else 'weight'} "
                       f"< min_flow={settings.min_flow:g}")
    if settings.fairness is not None:
        positive, ratio = settings.fairness
        r0, r1 = fairness_rates(np.ones(len(enc.y)) if enc.weight is None else enc.weight, enc.group,
                                pred == positive)
        if r0 < ratio * r1 - 1e-9 or r1 < ratio * r0 - 1e-9:
            bad.append(f"positive rates {r0:.4g} and {r1:.4g} break fairness_ratio={ratio:g}")
    return Check(obj, errors, bad)


def fairness_holds(points: Points, skeleton: Skeleton, plc: Placement, settings: Settings, tol: float = 1e-9) -> bool:
    if settings.fairness is None:
        return True
    positive, ratio = settings.fairness
    cls, _, _ = plc.route(skeleton, points.X)
    rates = fairness_rates(points.counts.sum(axis=1), points.group, cls == positive)
    return rates[0] >= ratio * rates[1] - tol and rates[1] >= ratio * rates[0] - tol


def fairness_rates(weight: np.ndarray, group: np.ndarray, predicted_positive: np.ndarray) -> tuple[float, float]:
    """Share of each group (0, 1) predicted positive."""
    return tuple(float(weight[(group == k) & predicted_positive].sum() / weight[group == k].sum())
                 for k in (0, 1))


def clean_splits(plc: Placement, points: Points, skeleton: Skeleton, *, univariate: bool,
                 solver_sides: np.ndarray | None = None) -> Placement:
    """Solver-tolerance-free hyperplanes with the same training routes.
    Univariate (ranks): a unit coefficient and the integer rank threshold
    "smallest rank on the positive side", exact.  Multivariate: ||a||_1 = 1
    with dust removed, and the threshold halfway between the training
    projections on either side (computed as the model computes them).

    ``solver_sides`` (points x nodes: 1 positive, 0 negative, -1 no flow;
    :func:`~optimaltrees.search.diagram.formulation.sides_from_vector`): the
    sides the solver's flows chose.  A MILP solution may put a point on the
    positive side with its projection a feasibility tolerance *below* b (a
    big-M row relaxed by a flow of 0.9999993); the raw hyperplane would then
    send it the other way, so the threshold is placed between the sides the
    flows say, wherever the hyperplane still separates them."""
    plc = plc.copy()
    for layer in range(skeleton.depth):
        _, path, sides = plc.route(skeleton, points.X)
        for u in skeleton.layer_nodes(layer):
            if not plc.active[u]:
                continue
            a = plc.coef[u].copy()
            at = path[:, layer] == u
            pos = sides[at, layer]
            if solver_sides is not None and not univariate:
                chosen = solver_sides[at, u]
                pos = np.where(chosen >= 0, chosen == 1, pos)
            if univariate:
                j = int(np.argmax(np.abs(a)))
                plc.coef[u] = 0.0
                plc.coef[u, j] = 1.0
                rank = points.X[at, j]
                if pos.any():
                    plc.threshold[u] = rank[pos].min()
                elif at.any():
                    plc.threshold[u] = rank.max() + 1
                else:
                    plc.threshold[u] = max(math.ceil(plc.threshold[u] - 1e-9), 0)
                continue
            norm = np.abs(a).sum()
            if norm <= 1e-12:
                a[:] = 0.0
                a[0] = 1.0
            else:
                a /= norm
                a[np.abs(a) < 1e-9] = 0.0
            proj = project(np.broadcast_to(a, points.X[at].shape), points.X[at])
            scale = np.abs(plc.coef[u]).sum()
            plc.coef[u] = a
            if not at.any():          # no training row: keep the solver's hyperplane, rescaled
                plc.threshold[u] = plc.threshold[u] / scale if scale > 1e-12 else 0.0
                continue
            if pos.all() or not pos.any():   # one side only: beyond every point of [0, 1]^d
                plc.threshold[u] = -2.0 if pos.all() else 2.0
                continue
            low, high = proj[~pos].max(), proj[pos].min()
            plc.threshold[u] = (low + high) / 2 if high > low else high
    return plc


class _Say:
    """Phase lines of a verbose fit (the solver's own log comes between them)."""

    def __init__(self, verbose: bool, start: float) -> None:
        self.verbose, self.start = verbose, start

    def __call__(self, text: str) -> None:
        if self.verbose:
            print(f"diagram [{time.perf_counter() - self.start:6.2f} s] {text}", flush=True)


@dataclass
class TrainResult:
    model: DecisionDiagram
    objective: float          # recomputed on the training rows
    errors: float             # misclassified rows
    bound: float              # proven lower bound on the objective
    status: str               # solver status, "heuristic", or why the answer is not trusted
    proven: bool
    from_heuristic: bool
    heuristic_objective: float
    solve_seconds: float
    trace: list = field(default_factory=list)    # (seconds, objective, bound)
    stats: dict = field(default_factory=dict)
    source: str = "heuristic"  # where the diagram comes from: "heuristic", "exact tree" or "milp"


def split_map(enc: Encoding, epsilon: float):
    """A tree's split "x_j <= t" as a placement's (feature, threshold) on the
    MILP's points: the rank of the first value above t (univariate), or
    that value scaled (multivariate; None when its gap to the value below
    is under the MILP's margin epsilon)."""
    if enc.univariate:
        return lambda j, t: (j, float(np.searchsorted(enc.values[j], t, side="right")))
    columns: dict[int, np.ndarray] = {}

    def scaled(j: int, t: float):
        if j not in columns:
            v = np.unique(enc.X[:, j])
            columns[j] = (v, np.clip((v - enc.offset[j]) * enc.scale[j], 0.0, 1.0))
        v, sv = columns[j]
        r = int(np.searchsorted(v, t, side="right"))
        if r == 0 or r == len(v) or sv[r] - sv[r - 1] < epsilon * (1 + 1e-6) + 1e-12:
            return None
        return j, float(sv[r])

    return scaled


def admissible(plc: Placement, points: Points, skeleton: Skeleton, settings: Settings) -> bool:
    """Every constraint of the MILP that a placement built outside it may break."""
    active = np.flatnonzero(plc.active)
    if np.any(plc.negative[active] == plc.positive[active]):
        return False
    if settings.max_nodes is not None and len(active) > settings.max_nodes:
        return False
    if settings.tree and np.any(plc.in_degree(skeleton) > 1):
        return False
    if settings.min_flow > 0 and len(active) > 1:
        _, path, _ = plc.route(skeleton, points.X)
        weight = points.counts.sum(axis=1)
        for u in active[1:]:
            if weight[(path == u).any(axis=1)].sum() < settings.min_flow - 1e-9:
                return False
    return fairness_holds(points, skeleton, plc, settings)


def tree_starts(know: TreeKnowledge, enc: Encoding, skeleton: Skeleton, settings: Settings,
                deadline: float | None) -> list[tuple[Placement, float]]:
    """The exact trees laid on the skeleton (folded, cut to fit), pruned, with
    merges searched from them: (placement, objective) of the admissible ones."""
    points = enc.points
    ok = lambda plc: admissible(plc, points, skeleton, settings)  # noqa: E731
    out = []
    for tree in know.trees:
        # a threshold needs one rank below it (univariate) or the MILP's margin (multivariate)
        margin = 1.0 if enc.univariate else settings.epsilon * (1 + 1e-6) + 1e-12
        plc = tree_placement(tree, skeleton, points.X.shape[1], split_map(enc, settings.epsilon),
                             fold=not settings.tree, max_nodes=settings.max_nodes, points=points,
                             margin=margin)
        if plc is None:
            continue
        pruned = prune(plc, points, skeleton, settings)
        if ok(pruned):
            plc = pruned
        if not ok(plc):
            continue
        out.append(merge_search(plc, points, skeleton, settings, ok, deadline))
    return out


def train_diagram(enc: Encoding, skeleton: Skeleton, settings: Settings, *, deadline: float | None,
                  solver: str, heuristic_time: float, rng: np.random.Generator, threads: int = 1,
                  verbose: bool = False, tree_time: float = 0.0) -> TrainResult:
    """Heuristic, exact trees, MILP and checks, all ending by ``deadline`` (a
    ``time.perf_counter`` value; None: until proven) give or take the
    solver's kill grace and the post-processing.

    The exact tree searches get ``tree_time`` seconds: their trees, laid on
    the skeleton, compete with the heuristic's diagram as the MILP's start,
    and (univariate splits) their error bounds bound every diagram: the MILP
    gets them as cuts, and a start that meets the bound is proven at once.

    Ctrl-C ends the phase it lands in and skips the rest, also when Python
    swallowed its KeyboardInterrupt (:mod:`.interrupts`)."""
    with watch_ctrl_c() as ctrl_c:
        return _train_diagram(enc, skeleton, settings, deadline=deadline, solver=solver,
                              heuristic_time=heuristic_time, rng=rng, threads=threads, verbose=verbose,
                              tree_time=tree_time, ctrl_c=ctrl_c)


def _train_diagram(enc: Encoding, skeleton: Skeleton, settings: Settings, *, deadline: float | None,
                   solver: str, heuristic_time: float, rng: np.random.Generator, threads: int,
                   verbose: bool, tree_time: float, ctrl_c: CtrlC) -> TrainResult:
    """:func:`train_diagram` under a watch for Ctrl-C."""
    start = time.perf_counter()
    points = enc.points
    multivariate = not enc.univariate
    say = _Say(verbose, start)
    heur, heur_obj, interrupted = heuristic(points, skeleton, settings, time_budget=heuristic_time,
                                            random_state=rng, deadline=deadline)
    interrupted = interrupted or ctrl_c.seen
    if not fairness_holds(points, skeleton, heur, settings):
        # predicting one class for everyone satisfies demographic parity
        options = [constant_placement(skeleton, points.X.shape[1], c) for c in range(skeleton.n_classes)]
        heur = min(options, key=lambda p: objective(points, skeleton, p, settings)[0])
        heur_obj = objective(points, skeleton, heur, settings)[0]
    heur = heur.canonical(skeleton, settings.epsilon, flip=multivariate)   # the solver's start
    heur_model = enc.to_model(clean_splits(heur, points, skeleton, univariate=enc.univariate), skeleton)
    heur_check = verify(heur_model, enc, skeleton, settings)
    trace = [(time.perf_counter() - start, heur_check.objective, 0.0)]
    say(f"heuristic: {errors_text(heur_check.errors)}, objective {heur_check.objective:.6g}")

    # the exact trees: starts and (univariate) a bound
    best, best_obj, best_model, best_check, source = heur, heur_obj, heur_model, heur_check, "heuristic"
    floor, cuts, know = 0.0, [], None
    if not interrupted and tree_time > 0:
        try:    # Ctrl-C anywhere in this phase: the best start so far
            know = tree_knowledge(enc.X, enc.y, skeleton.n_classes, skeleton, settings, budget=tree_time,
                                  deadline=deadline, bounds=enc.univariate, weight=enc.weight)
            interrupted = know.interrupted
            n = enc.total
            if know.error_bounds is not None:
                floor = objective_bound(errors_by_nodes(know.error_bounds, skeleton), n, skeleton, settings)
            for plc, obj in ([] if interrupted else tree_starts(know, enc, skeleton, settings, deadline)):
                if obj < best_obj - 1e-12:
                    plc = plc.canonical(skeleton, settings.epsilon, flip=multivariate)
                    model = enc.to_model(clean_splits(plc, points, skeleton, univariate=enc.univariate), skeleton)
                    check = verify(model, enc, skeleton, settings)
                    if not check.violations and check.objective <= obj + OBJECTIVE_TOL:
                        best, best_obj, best_model, best_check, source = plc, obj, model, check, "exact tree"
            if know.error_bounds is not None:
                if not interrupted and best_check.objective > floor + 1e-9:
                    end = time.perf_counter() + SEPARATION_SHARE * tree_time
                    separate(know, enc.X, enc.y, skeleton, best_model.n_nodes,
                             end if deadline is None else min(end, deadline), unit=enc.unit)
                by_nodes = errors_by_nodes(know.error_bounds, skeleton, know.tests_needed, enc.unit)
                floor = objective_bound(by_nodes, n, skeleton, settings)
                if not interrupted and best_check.objective > floor + 1e-9 and integral_counts(points):
                    left = None if deadline is None else deadline - time.perf_counter()
                    nodes = node_error_bounds(
                        points, skeleton, settings, start_objective=best_obj,
                        known=by_nodes, admissible=lambda p: admissible(p, points, skeleton, settings),
                        deadline=None if left is None else time.perf_counter() + SAT_SHARE * left)
                    know.node_search = nodes
                    by_nodes = np.maximum(by_nodes, nodes.errors)
                    for plc in nodes.found[-1:]:
                        obj = objective(points, skeleton, plc, settings)[0]
                        plc = plc.canonical(skeleton, settings.epsilon, flip=multivariate)
                        model = enc.to_model(clean_splits(plc, points, skeleton, univariate=True), skeleton)
                        check = verify(model, enc, skeleton, settings)
                        if not check.violations and check.objective <= obj + OBJECTIVE_TOL and obj < best_obj:
                            best, best_obj, best_model, best_check, source = plc, obj, model, check, "sat"
                floor, cuts = objective_bound(by_nodes, n, skeleton, settings), hull_cuts(by_nodes, n)
        except KeyboardInterrupt:
            interrupted = True
        interrupted = interrupted or ctrl_c.seen
        if know is not None:
            say(f"exact trees ({know.seconds:.2f} s): {'; '.join(_search_text(r) for r in know.searches)}"
                + (f"; fewer than {know.tests_needed} tests leave an error" if know.tests_needed > 1 else "")
                + (f"; SAT ({know.node_search.seconds:.2f} s, {len(know.node_search.questions)} questions"
                   f"{'' if know.node_search.complete else ', stopped'})" if know.node_search is not None else "")
                + (f"; every diagram's objective >= {floor:.6g}" if know.error_bounds is not None else "")
                + (f"; the {source} start is better: objective {best_obj:.6g}" if source != "heuristic" else ""))
        if source != "heuristic":
            trace.append((time.perf_counter() - start, best_check.objective, min(floor, best_check.objective)))

    milp, res, skipped = None, None, None
    if (not best_check.violations and best_check.objective <= floor + 1e-9
            and best_check.objective <= best_obj + OBJECTIVE_TOL):
        skipped = "bound"      # proven: nothing to solve (even after Ctrl-C)
    elif interrupted:
        skipped = "interrupted"
    else:
        try:
            if deadline is not None:
                # an estimate up front: do not start what cannot end in time
                n_tests = (1 + sum(len(v) - 1 for v in enc.values)) if enc.univariate else None
                _, nnz = milp_size(len(points.X), skeleton, points.X.shape[1], n_tests=n_tests,
                                   min_flow=settings.min_flow > 0, fairness=settings.fairness is not None,
                                   error_cuts=len(cuts) + (floor > 0))
                need = nnz / BUILD_RATE + MIN_SOLVE_SECONDS
                if deadline - time.perf_counter() < need:
                    raise OutOfTime
            milp = build_milp(points, skeleton, settings, multivariate=multivariate, deadline=deadline,
                              error_cuts=cuts, objective_floor=floor)
            x0 = start_vector(milp, points, skeleton, best)
            left = None if deadline is None else deadline - time.perf_counter()
            if left is not None and left < MIN_SOLVE_SECONDS:
                raise OutOfTime
            if ctrl_c.seen:
                raise KeyboardInterrupt
            say(f"MILP: {milp.n_cols:,} variables, {milp.n_rows:,} constraints, {int(milp.A.nnz):,} "
                f"nonzeros; {solver} for {'as long as it takes' if left is None else f'up to {left:.1f} s'}"
                " (its log follows)")
            res = solve(milp, solver=solver, start=x0, cutoff=best_obj + 1e-7, time_limit=left,
                        threads=threads, verbose=verbose, prove=cuts != [] or floor > 0, ctrl_c=ctrl_c)
        except OutOfTime:
            skipped = "time_limit"
        except KeyboardInterrupt:
            skipped = "interrupted"
    if res is None:      # the solver had no say
        res = MilpResult(None, np.inf, 0.0, skipped, 0.0, [])
        say("MILP not needed: the start meets the lower bound" if skipped == "bound"
            else f"MILP not run ({skipped})")
    else:
        found = ("nothing better than the start" if res.x is None or res.objective >= best_obj - 1e-9
                 else f"objective {res.objective:.6g}")
        say(f"MILP: {res.status} after {res.seconds:.1f} s; {found}; lower bound {max(res.bound, 0.0):.6g}")
    offset = time.perf_counter() - start - res.seconds
    trace += [(t + offset, obj, bnd) for t, obj, bnd in res.trace if obj < trace[-1][1] - 1e-12]

    model, check, status = best_model, best_check, source
    trusted = best_check.objective <= best_obj + OBJECTIVE_TOL   # the points and the rows agree
    if skipped == "time_limit":
        status = f"{source} (time limit reached before the MILP could be solved)"
    elif skipped == "interrupted":
        status = f"{source} (interrupted before the MILP)"
    elif skipped == "bound":
        status = "optimal (the start meets the lower bound" + (" of the exact trees)" if floor > 0 else ")")
    elif res.status.startswith("solver process"):
        status = f"{source} ({res.status})"
    if res.x is not None and res.objective < best_obj - 1e-9:
        plc = clean_splits(placement_from_vector(milp, skeleton, res.x), points, skeleton,
                           solver_sides=sides_from_vector(milp, res.x),
                           univariate=enc.univariate)
        cand = enc.to_model(plc, skeleton)
        cand_check = verify(cand, enc, skeleton, settings)
        differs = abs(cand_check.objective - res.objective) > OBJECTIVE_TOL
        if cand_check.violations:
            status = (f"unverified: the solver's diagram breaks {'; '.join(cand_check.violations)} on the "
                      f"training data (numerical tolerance); the {source}'s diagram is returned")
            trusted = False
        elif differs and cand_check.objective > best_check.objective:
            status = (f"unverified: recomputed objective {cand_check.objective:.6g} differs from the solver's "
                      f"{res.objective:.6g} (numerical tolerance); the {source}'s diagram is returned")
            trusted = False
        else:
            model, check, source = cand, cand_check, "milp"
            status, trusted = res.status, not differs
            if differs:
                status = (f"unverified: recomputed objective {cand_check.objective:.6g} differs from the "
                          f"solver's {res.objective:.6g} (numerical tolerance)")
    if check.violations:
        status += f"; constraint violated on the training data: {'; '.join(check.violations)}"
        trusted = False
    obj = check.objective
    if floor > obj + 1e-9:
        # a checked diagram below the exact trees' bound: the bound is wrong, trust neither
        status = (f"unverified: the exact trees' lower bound {floor:.6g} exceeds the objective {obj:.6g} "
                  "of the checked diagram")
        trusted, floor = False, 0.0
    bound = min(max(res.bound, floor, 0.0), obj)
    proven = trusted and (res.status in ("optimal", "cutoff") or obj - bound <= 1e-9)
    if proven:
        bound = obj
        if trace[-1][2] < obj:
            trace.append((time.perf_counter() - start, obj, obj))
    stats = {"points": len(points.X), "solver_status": res.status, "source": source}
    if know is not None:
        stats.update(tree_searches=know.searches, tree_seconds=know.seconds)
        if know.error_bounds is not None:
            stats.update(tree_bound=floor, tree_error_bounds=know.error_bounds.tolist(),
                         tests_needed=know.tests_needed)
        if know.node_search is not None:
            ns = know.node_search
            stats.update(sat_node_errors=ns.errors.tolist(), sat_questions=ns.questions,
                         sat_seconds=ns.seconds, sat_complete=ns.complete)
    if milp is not None:
        stats.update(variables=milp.n_cols, constraints=milp.n_rows, nonzeros=int(milp.A.nnz),
                     integer_variables=int(milp.integer.sum()))
    return TrainResult(model, obj, check.errors, bound, status, bool(proven), source == "heuristic",
                       heur_check.objective, res.seconds, trace, stats, source)


def errors_text(n: int | float) -> str:
    """"3 training errors" (singular for one); a misclassified weight (a float) as "2.5 misclassified weight"."""
    if isinstance(n, float):
        return f"{n:.6g} misclassified weight"
    return f"{n} training error{'' if n == 1 else 's'}"


def _search_text(record: dict) -> str:
    what = "priced" if record["node_cost"] > 0 else "fewest errors"
    proof = "proven" if record["proven"] else f">= {record['lower_bound']:g}"
    return f"depth {record['depth']} {what}: {record['errors']} errors ({proof})"
