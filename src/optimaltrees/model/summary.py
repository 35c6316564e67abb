"""``FitSummary``: what happened in one ``fit``, the same fields for every estimator.

The command line, the pictures, model files and the benchmarks read
``model.summary_`` instead of each estimator's own attributes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

#: ``FitSummary.method`` of each estimator
METHODS = ("tree", "diagram", "sat")

#: objectives closer than this (relative) count as equal: the gap is 0
GAP_TOLERANCE = 1e-9


def objective_tolerance(total_weight: float, weighted_rows: int = 0) -> float:
    """How far two computations of one fit's objective (or an objective and
    its bound) may differ and still count as equal.

    Relative to the training data's total weight (its row count when
    unweighted), never to the objective itself: a perfect tree scores 0, and
    rounding grows with the weights summed, not with the errors left.  A
    billionth of the total, plus, for ``weighted_rows`` rows of real weights,
    their rounding onto the search's exact grid (each at most 2^-51 of the
    total) and the recount's sums.
    """
    return float(total_weight) * (1e-9 + weighted_rows * 2.0 ** -49)


def relative_gap(objective: float, lower_bound: float) -> float:
    """``(objective - lower_bound) / |objective|``: a fraction in [0, 1] when
    0 <= lower_bound <= objective; 0.0 when the bound meets the objective
    (within ``GAP_TOLERANCE``); nan when either is unknown (nan)."""
    objective, lower_bound = float(objective), float(lower_bound)
    if math.isnan(objective) or math.isnan(lower_bound):
        return math.nan
    diff = objective - lower_bound
    if diff <= GAP_TOLERANCE * max(1.0, abs(objective)):
        return 0.0
    return diff / max(abs(objective), 1e-12)


@dataclass(frozen=True)
class FitSummary:
    """One fit of any optimaltrees estimator (its ``summary_`` attribute).

    The same fields on every estimator, so that code reading a fit (the
    command line, the pictures, model files, the benchmarks) needs no
    estimator's own attributes.

    Parameters
    ----------
    method : {"tree", "diagram", "sat"}
        Which estimator: ``OptimalTreeClassifier``,
        ``DecisionDiagramClassifier`` or ``SATTreeClassifier``.
    objective_name : str
        What ``objective`` counts, e.g. "training errors + node cost",
        "depth", "nodes".
    objective : float
        The objective of the returned model, in the estimator's own units
        (errors, error rate + node cost, depth, nodes).
    lower_bound : float
        Proven lower bound on the optimal objective (equal to ``objective``
        when proven).
    gap : float
        Relative gap (objective - lower_bound) / abs(objective) as a
        fraction: 0.0 when the bound is met, 0.05 for 5 %.
    proven : bool
        The returned model is proven optimal for its objective.
    timed_out : bool
        The time limit stopped the search before a proof.
    interrupted : bool
        Ctrl-C stopped the search (the best model so far was kept).
    memory_out : bool
        The memory limit stopped the search (the best model so far was kept).
    stopped : bool
        The user's callback stopped the search.
    fit_seconds : float
        Seconds spent in ``fit``.
    status : str
        One short line for people: "proven optimal", "time limit reached",
        the diagram's trust status, ...

    Attributes
    ----------
    stopped_early : bool
        Something other than a finished search ended the fit.
    """

    #: which estimator: "tree" (OptimalTreeClassifier), "diagram" (DecisionDiagramClassifier), "sat" (SATTreeClassifier)
    method: str
    #: what ``objective`` counts, e.g. "training errors + node cost", "depth", "nodes"
    objective_name: str
    #: the objective of the returned model, in the estimator's own units (errors, error rate + node cost, depth, nodes)
    objective: float
    #: proven lower bound on the optimal objective (equal to ``objective`` when proven)
    lower_bound: float
    #: relative gap (objective - lower_bound) / |objective| as a fraction (0.0 = bound met; 0.05 = 5%)
    gap: float
    #: the returned model is proven optimal for its objective
    proven: bool
    #: the time limit stopped the search before a proof
    timed_out: bool
    #: Ctrl-C stopped the search (the best model so far was kept)
    interrupted: bool
    #: the memory limit stopped the search (the best model so far was kept)
    memory_out: bool
    #: the user's callback stopped the search
    stopped: bool
    #: seconds spent in ``fit``
    fit_seconds: float
    #: one short line for people: "proven optimal", "time limit reached", the diagram's trust status, ...
    status: str

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")

    @property
    def stopped_early(self) -> bool:
        """Something other than a finished search ended the fit."""
        return self.timed_out or self.interrupted or self.memory_out or self.stopped

    def describe(self) -> str:
        """Return the summary as one line.

        Returns
        -------
        str
            Objective, bound, gap, proof and why the fit stopped.
        """
        return (f"objective {self.objective:.6g} ({self.objective_name}); lower bound {self.lower_bound:.6g}; "
                f"gap {'n/a' if math.isnan(self.gap) else f'{self.gap:.2%}'}; {self.status}")


def status_text(proven: bool, *, timed_out: bool = False, interrupted: bool = False,
                memory_out: bool = False, stopped: bool = False) -> str:
    """The ``status`` line of a search that ends proven or stops for one of these reasons."""
    if proven:
        return "proven optimal"
    reasons = [text for flag, text in ((timed_out, "time limit reached"), (interrupted, "interrupted"),
                                       (memory_out, "memory limit reached"), (stopped, "stopped by the callback"))
               if flag]
    return "not proven optimal" + (f" ({', '.join(reasons)})" if reasons else "")
