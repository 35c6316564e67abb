"""Ties between optimal trees go to the one with the fewest branch nodes.

Equal objectives are common (at depth 4 many trees make no training error)
and the search returns whichever optimum it meets first. The fewest-node
optimum is the optimum of ``objective + step * nodes`` for any ``step``
small enough that ``step * (most nodes)`` stays below the smallest
difference between two distinct objective values: the search then proves it
like any other optimum. Such a step exists when every objective value lies
on a known grid: a sum of row weights (1 each, or weights on a grid of
``2**-GRID_BITS``) times misclassification costs (1, or a cost matrix on that
grid), plus the node cost times a node count. Elsewhere (arbitrary float
weights or costs) there is no such step, and ties stay with the search.

Squared errors lie on no grid: two regression trees tie when their
objectives differ by less than the search's resolution.  There the step is
``SQUARED_STEP`` times the targets' variance, far above the engine's
tolerance; the tree found has an objective within ``step * most`` of the
optimum, and no tree with at most its objective has fewer branch nodes.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

#: weights and costs on a grid of 2**-GRID_BITS give objective values on a grid
GRID_BITS = 10
#: the step, per lightest row, that keeps far above the engine's 1e-9 tolerance
MIN_STEP = 1e-6
#: branch nodes up to which the node cost's distance to the grid is checked
MAX_NODES = 2**16
#: the regression step in units of the targets' (weighted) variance: the
#: engine's objective is in those units, and this is 100 times its tolerance
SQUARED_STEP = 1e-7


def grid_unit(values: np.ndarray) -> float | None:
    """The coarsest grid ``2**-j`` (``0 <= j <= GRID_BITS``) holding every value, or None."""
    values = np.asarray(values, dtype=np.float64).ravel()
    for bits in range(GRID_BITS + 1):
        scaled = np.ldexp(values, bits)
        if np.all(scaled == np.round(scaled)):
            return float(np.ldexp(1.0, -bits))
    return None


@dataclass(frozen=True)
class TieBreak:
    """The node cost ``step`` added to the search, and how to take it out again.

    ``most`` is the most branch nodes a tree can have; ``node_cost`` the
    user's cost per branch node; ``unit`` the grid of the objective without
    node costs (0: none, squared errors).
    """

    step: float
    most: int
    node_cost: float
    unit: float

    def objective(self, perturbed: float, loss: float | None = None) -> float:
        """The objective of a tree whose perturbed objective is ``perturbed``.

        Its node count k is the one count that puts ``perturbed - (node_cost +
        step) * k`` on the grid (two counts cannot: their node costs differ
        by more than the steps, or by a whole grid step).  Without a grid it
        comes from the tree's ``loss`` (its objective without node costs);
        without either it is unknown, and ``perturbed`` is returned (at most
        ``step * most`` above the objective)."""
        if not np.isfinite(perturbed) or self.step == 0.0:
            return perturbed
        if self.unit == 0.0:
            if loss is None:
                return perturbed
            k = min(max(round((perturbed - loss) / (self.node_cost + self.step)), 0), self.most)
            return loss + self.node_cost * k
        counts = np.arange(self.most + 1)
        rest = (perturbed - (self.node_cost + self.step) * counts) / self.unit
        k = int(counts[np.argmin(np.abs(rest - np.round(rest)))])
        return perturbed - self.step * k

    def lower_bound(self, perturbed: float) -> float:
        """A lower bound on the objective from one on the perturbed objective
        (without a node cost the objective is on the grid: rounded up to it)."""
        if not np.isfinite(perturbed):
            return perturbed
        bound = max(perturbed - self.step * self.most, 0.0)
        if self.node_cost == 0.0 and self.unit > 0.0:
            bound = self.unit * np.ceil(bound / self.unit - 1e-9)
        return float(bound)


def node_tie_break(node_cost: float, max_depth: int, n_rows: int, weight: np.ndarray | None = None,
                   cost_matrix: np.ndarray | None = None) -> TieBreak | None:
    """The tie-break for a classification search, or None where there is none.

    ``weight`` holds the search's row weights (None: 1 each) and
    ``cost_matrix`` its misclassification costs (None: 1 each); ``node_cost``
    is in the same units. None when the objective lies on no known grid or
    when the step would fall near the engine's tolerance.
    """
    unit_w = 1.0 if weight is None else grid_unit(weight[weight > 0])
    unit_c = 1.0 if cost_matrix is None else grid_unit(cost_matrix)
    if unit_w is None or unit_c is None:
        return None
    unit = unit_w * unit_c
    most = min(2 ** min(max_depth, 30) - 1, max(n_rows - 1, 0))
    if most == 0:
        return TieBreak(step=0.0, most=0, node_cost=node_cost, unit=unit)    # a leaf: no tie to break
    if most > MAX_NODES:
        return None
    # the smallest nonzero distance between two objectives: a grid step, or
    # the node cost of k nodes away from the grid (within rounding: a tie)
    spread = node_cost * np.arange(1, most + 1) / unit
    off_grid = np.abs(spread - np.round(spread))
    off_grid = off_grid[off_grid > 1e-9 * np.maximum(spread, 1.0)]
    gap = unit * min(1.0, float(off_grid.min())) if off_grid.size else unit
    step = gap / (2 * (most + 1))
    lightest = 1.0 if weight is None else float(weight[weight > 0].min())
    if step < MIN_STEP * lightest:
        return None
    return TieBreak(step=step, most=most, node_cost=node_cost, unit=unit)


def squared_error_tie_break(node_cost: float, max_depth: int, n_rows: int, variance: float) -> TieBreak | None:
    """The tie-break for a regression search, or None where there is none.

    ``variance`` is the targets' (weighted) variance, the unit of the
    engine's objective; ``node_cost`` is in the targets' squared units.
    None for constant targets (every tree ties with the leaf, which the
    search returns first) and for trees too large to count."""
    most = min(2 ** min(max_depth, 30) - 1, max(n_rows - 1, 0))
    if most == 0 or not variance > 0.0:
        return TieBreak(step=0.0, most=0, node_cost=node_cost, unit=0.0)    # a leaf: no tie to break
    if most > MAX_NODES:
        return None
    return TieBreak(step=SQUARED_STEP * variance, most=most, node_cost=node_cost, unit=0.0)


def untie_trace(trace: list, ties: TieBreak) -> list:
    """A search's trace with the tie-break's node costs taken out."""
    return [dataclasses.replace(point, objective=ties.objective(point.objective, point.error),
                                lower_bound=ties.lower_bound(point.lower_bound)) for point in trace]


def untie_progress(progress, ties: TieBreak | None):
    """What a callback sees: the progress with the tie-break taken out."""
    if ties is None:
        return progress
    return dataclasses.replace(progress, objective=ties.objective(progress.objective),
                               lower_bound=ties.lower_bound(progress.lower_bound))
