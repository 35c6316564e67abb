"""Train a diagram: heuristic first, then the MILP started from it.

The heuristic's answer is also the fallback: when the solver finds nothing
better in time it is returned, flagged (and proven optimal when the solver
shows that nothing beats it).
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from optimaltrees.search.diagram.formulation import build_milp, placement_from_vector, start_vector
from optimaltrees.search.diagram.heuristic import Points, Settings, heuristic, objective
from optimaltrees.search.diagram.skeleton import Placement, Skeleton
from optimaltrees.search.diagram.solve import MilpResult, solve


@dataclass
class TrainResult:
    placement: Placement
    objective: float          # recomputed on the training points
    errors: float             # misclassified rows
    bound: float              # proven lower bound on the objective
    status: str               # solver status, or "heuristic" when its diagram is returned
    proven: bool
    heuristic_objective: float
    solve_seconds: float
    trace: list = field(default_factory=list)    # (seconds, objective, bound)
    stats: dict = field(default_factory=dict)


def points_from_data(Xs: np.ndarray, y_index: np.ndarray, n_classes: int, group: np.ndarray | None) -> Points:
    """Distinct rows (with their group) and their class counts."""
    key = Xs if group is None else np.column_stack([Xs, group])
    uniq, inverse = np.unique(key, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    counts = np.zeros((len(uniq), n_classes))
    np.add.at(counts, (inverse, y_index), 1.0)
    if group is None:
        return Points(np.ascontiguousarray(uniq), counts)
    return Points(np.ascontiguousarray(uniq[:, :-1]), counts, uniq[:, -1].astype(np.intp))


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


def constant_placement(points: Points, skeleton: Skeleton, cls: int) -> Placement:
    """The root sends every row to its positive side, to class ``cls``."""
    plc = Placement.empty(skeleton, points.X.shape[1])
    plc.active[0] = True
    plc.coef[0, 0], plc.threshold[0] = 1.0, 0.0
    plc.positive[0] = skeleton.terminal(cls)
    plc.negative[0] = skeleton.terminal(1 if cls == 0 else 0)
    return plc


def clean_splits(plc: Placement, points: Points, skeleton: Skeleton, *, univariate: bool) -> Placement:
    """Solver-tolerance-free hyperplanes with the same training routes: a unit
    coefficient (univariate) or ||a||_1 = 1 with dust removed (multivariate),
    and the threshold halfway between the training projections on either
    side, so the rule is exact: positive iff coef . x >= threshold."""
    plc = plc.copy()
    for layer in range(skeleton.depth):
        _, path, sides = plc.route(skeleton, points.X)
        for u in skeleton.layer_nodes(layer):
            if not plc.active[u]:
                continue
            a = plc.coef[u].copy()
            if univariate:
                j = int(np.argmax(np.abs(a)))
                a[:] = 0.0
                a[j] = 1.0 if plc.coef[u, j] > 0 else -1.0
            else:
                norm = np.abs(a).sum()
                if norm <= 1e-12:
                    a[:] = 0.0
                    a[0] = 1.0
                else:
                    a /= norm
                    a[np.abs(a) < 1e-9] = 0.0
            at = path[:, layer] == u
            proj, pos = points.X[at] @ a, sides[at, layer]
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


def train_diagram(points: Points, skeleton: Skeleton, settings: Settings, *, multivariate: bool,
                  time_limit: float | None, solver: str, heuristic_time: float,
                  rng: np.random.Generator, threads: int = 1, verbose: bool = False) -> TrainResult:
    start = time.perf_counter()
    heur, heur_obj, interrupted = heuristic(points, skeleton, settings, time_budget=heuristic_time,
                                            random_state=rng)
    if not fairness_holds(points, skeleton, heur, settings):
        # predicting one class for everyone satisfies demographic parity
        options = [constant_placement(points, skeleton, c) for c in range(skeleton.n_classes)]
        heur = min(options, key=lambda p: objective(points, skeleton, p, settings)[0])
        heur_obj = objective(points, skeleton, heur, settings)[0]
    heur = heur.canonical(skeleton, settings.epsilon, flip=multivariate)
    trace = [(time.perf_counter() - start, heur_obj, 0.0)]
    milp, res = None, None
    if not interrupted:
        try:
            milp = build_milp(points, skeleton, settings, multivariate=multivariate)
            x0 = start_vector(milp, points, skeleton, heur)
            left = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))
            res = solve(milp, solver=solver, start=x0, cutoff=heur_obj + 1e-7, time_limit=left,
                        threads=threads, verbose=verbose)
        except KeyboardInterrupt:
            res = None
    if res is None:      # Ctrl-C before the solver had a say: the heuristic's diagram, unproven
        res = MilpResult(None, np.inf, 0.0, "interrupted", 0.0, [])
    offset = time.perf_counter() - start - res.seconds
    trace += [(t + offset, obj, bnd) for t, obj, bnd in res.trace if obj < trace[-1][1] - 1e-12]
    plc, status = heur, "heuristic"
    if res.x is not None and res.objective < heur_obj - 1e-9:
        plc, status = placement_from_vector(milp, skeleton, res.x), res.status
    plc = clean_splits(plc, points, skeleton, univariate=not multivariate)
    obj, errors = objective(points, skeleton, plc, settings)
    if status != "heuristic" and abs(obj - res.objective) > 1e-6:
        warnings.warn(f"the solver reported objective {res.objective:.8g} but the diagram it returned "
                      f"scores {obj:.8g} on the training data (numerical tolerance); the recomputed value is "
                      "reported", RuntimeWarning, stacklevel=3)
    bound = min(max(res.bound, 0.0), obj)
    proven = res.status in ("optimal", "cutoff") or obj - bound <= 1e-9
    if res.status == "cutoff":
        bound = obj
    stats = {"points": len(points.X), "solver_status": res.status}
    if milp is not None:
        stats.update(variables=milp.n_cols, constraints=milp.n_rows, nonzeros=int(milp.A.nnz),
                     integer_variables=int(milp.integer.sum()))
    return TrainResult(plc, obj, errors, bound, status, bool(proven), heur_obj, res.seconds, trace, stats)
