"""Anytime search: progress reports, the incumbent trace, and its quality metric.

A fit with any ``search=`` strategy records every improvement of the best tree
(incumbent) and of the proven lower bound in ``trace_``.  The primal integral
(Berthold 2013, as used by the CA-DL8.5 paper) summarises such a trace in one
number: the average relative gap to the optimum over the time budget, lower
is better.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence


@dataclass(frozen=True)
class TracePoint:
    """One step of an anytime trace (an estimator's ``trace_``).

    After ``time`` seconds the best tree makes ``error`` training errors
    (objective ``objective``) and no tree can beat ``lower_bound``.

    Parameters
    ----------
    time : float
        Seconds since the start of ``fit``.
    error : int or float
        Training errors of the best tree (summed weights, a float, with
        sample weights).
    objective : float
        Its objective (errors + node costs).
    lower_bound : float
        Proven lower bound on the optimal objective at that time.
    """

    time: float
    error: int | float
    objective: float
    lower_bound: float


@dataclass(frozen=True)
class Progress:
    """What a ``callback`` sees, on every improvement and periodically.

    Parameters
    ----------
    elapsed : float
        Seconds since the fit started.
    objective : float
        The best tree's objective (errors + node costs); inf before one.
    lower_bound : float
        Proven lower bound on the optimum.
    restart : int
        The anytime strategy's restart (0 for the first, greedy, pass).
    improved : bool
        This call reports a better tree.

    Attributes
    ----------
    gap : float
        ``objective - lower_bound`` (0 once the best tree is proven optimal).
    relative_gap : float
        ``gap / objective``; 0 when both are 0.
    """

    elapsed: float
    objective: float
    lower_bound: float
    restart: int
    improved: bool

    @property
    def gap(self) -> float:
        """The absolute gap: objective - lower_bound (0 once proven optimal)."""
        return max(0.0, self.objective - self.lower_bound)

    @property
    def relative_gap(self) -> float:
        """The gap as a fraction of the objective (0 when both are 0)."""
        if self.objective == 0:
            return 0.0
        return self.gap / self.objective


def primal_integral(trace: Iterable, optimum: float, horizon: float) -> float:
    """Compute the normalised primal integral 100 * P(T) / T of an incumbent trace.

    The primal gap is 1 before the first solution, then
    abs(x - optimum) / abs(x) (0 when x equals the optimum), a step function
    integrated over [0, T] (Berthold 2013, as used by the CA-DL8.5 paper).

    Parameters
    ----------
    trace : iterable of TracePoint or of (time, value) pairs
        The incumbents in time order (a ``TracePoint``'s ``error`` is used).
    optimum : float
        The optimal or best known value.
    horizon : float
        T, in seconds.

    Returns
    -------
    float
        The expected gap, in percent, when the search is stopped at a
        uniformly random time in [0, T]: 0 for the optimum from the start,
        100 for no solution all along.
    """
    if not horizon > 0:
        raise ValueError(f"horizon must be > 0, got {horizon}")
    points = [_as_pair(p) for p in trace]
    total = 0.0
    t_prev = 0.0
    gap_prev = 1.0
    for t, x in points:
        if t < t_prev:
            raise ValueError("trace times must be non-decreasing")
        if t > horizon:
            break
        if x < optimum - 1e-9 * max(1.0, abs(optimum)):
            raise ValueError(f"trace value {x} is below the optimum {optimum}")
        total += gap_prev * (t - t_prev)
        t_prev = t
        gap_prev = _primal_gap(x, optimum)
    total += gap_prev * (horizon - t_prev)
    return 100.0 * total / horizon


def _primal_gap(x: float, optimum: float) -> float:
    if math.isclose(x, optimum, rel_tol=1e-12, abs_tol=1e-12):
        return 0.0
    return abs(x - optimum) / abs(x)


def _as_pair(point) -> tuple[float, float]:
    if isinstance(point, TracePoint):
        return point.time, float(point.error)
    t, x = point[0], point[1]
    return float(t), float(x)


class ProgressLine:
    """A live one-line display (tqdm) of elapsed time, incumbent, bound and gap
    (:meth:`update`), or of an estimator's own state (:meth:`show`: the SAT
    search's depth, calls and bounds; the diagram's phase)."""

    def __init__(self, time_limit: float | None, desc: str = "optimaltrees") -> None:
        from tqdm.auto import tqdm

        total = float(time_limit) if time_limit else None
        self._bar = tqdm(total=total, unit="s", desc=desc, leave=True,
                         bar_format="{desc}: {elapsed}{postfix}" if total is None else
                         "{desc}: {percentage:3.0f}%|{bar:12}| {n:.1f}/{total:.0f}s{postfix}")

    def update(self, progress: Progress) -> None:
        bar = self._bar
        if bar.total is not None:
            bar.n = min(progress.elapsed, bar.total)
        # before the first tree there is no objective and so no gap (not "nan%")
        found = math.isfinite(progress.objective)
        obj = f"{progress.objective:g}" if found else "-"
        gap = f"{100 * progress.relative_gap:.2f}%" if found else "-"
        bar.set_postfix_str(f"best={obj} bound={progress.lower_bound:g} gap={gap} restart={progress.restart}",
                            refresh=True)

    def show(self, elapsed: float, text: str) -> None:
        """``text`` as the line's state after ``elapsed`` seconds."""
        bar = self._bar
        if bar.total is not None:
            bar.n = min(elapsed, bar.total)
        bar.set_postfix_str(text, refresh=True)

    def close(self) -> None:
        self._bar.close()


def trace_is_monotone(trace: Sequence[TracePoint]) -> bool:
    """Errors and objectives never increase, bounds never decrease, time moves forward."""
    for a, b in zip(trace, trace[1:]):
        if b.time < a.time or b.objective > a.objective + 1e-9 or b.lower_bound < a.lower_bound - 1e-9:
            return False
    return True
