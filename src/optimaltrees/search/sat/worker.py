"""Wall-clock limits for SAT searches, whatever the solver.

A SAT call cannot be cut short from another thread (python-sat offers no
interrupt for CaDiCaL, and none is safe across solvers), so a
time-limited search runs in a child process that reports every better result
through a pipe; at the deadline the parent stops the child and keeps the last
report.  Without a limit the search runs in-process.

Where a child process cannot or should not be started - a daemonic process
(``multiprocessing.Pool`` workers, Dask workers, some joblib backends may
not have children) or a thread other than the main one (forking a process
that runs other threads can deadlock the child) - the search runs here, and
the deadline is kept by the search itself: every SAT call is sliced into
conflict-budgeted calls (:func:`solve_within`; python-sat's ``interrupt()``
is not available for CaDiCaL) of about ``SLICE_SECONDS``, and the loops
between calls check the clock (:func:`check_deadline`), raising
:class:`OutOfTime`, which ends the search like the child's kill.  The limit
then holds within about a slice, except for building a single very large
formula, which is not interrupted.

Ctrl-C is not a timeout: it raises :class:`SearchInterrupted` (a
KeyboardInterrupt) carrying the last report, after the child is killed.
"""
from __future__ import annotations

import multiprocessing as mp
import signal
import threading
import time
import traceback
from contextlib import contextmanager
from typing import Any, Callable


class SearchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the search; ``last`` is its last report (or None)."""

    def __init__(self, last: Any = None) -> None:
        super().__init__("search interrupted (Ctrl-C)")
        self.last = last


class OutOfTime(Exception):
    """The deadline of an in-process time-limited search has passed."""


#: seconds a conflict-budgeted slice of a SAT call aims at (in-process limits)
SLICE_SECONDS = 0.1
_MIN_BUDGET, _MAX_BUDGET = 100, 100_000_000
_here = threading.local()              # this thread's in-process deadline (time.monotonic)


def seconds_left() -> float | None:
    """Seconds to the in-process deadline of this thread's search (None: no deadline)."""
    end = getattr(_here, "deadline", None)
    return None if end is None else end - time.monotonic()


def check_deadline() -> None:
    """Raise :class:`OutOfTime` when this thread's in-process deadline has passed."""
    left = seconds_left()
    if left is not None and left <= 0:
        raise OutOfTime


def solve_within(solver, assumptions=()) -> bool:
    """``solver.solve(assumptions)``, ended by this thread's in-process deadline
    (raises :class:`OutOfTime`) when there is one: conflict-budgeted calls of
    about ``SLICE_SECONDS`` each, the budget adapted to the measured rate.
    Solvers without conflict budgets (Lingeling) run the call unlimited."""
    assumptions = list(assumptions)
    if getattr(_here, "deadline", None) is None:
        return bool(solver.solve(assumptions=assumptions))
    budget = 1000
    while True:
        left = seconds_left()
        if left <= 0:
            raise OutOfTime
        try:
            solver.conf_budget(budget)
        except NotImplementedError:
            return bool(solver.solve(assumptions=assumptions))
        t0 = time.monotonic()
        result = solver.solve_limited(assumptions=assumptions)
        if result is not None:
            return bool(result)
        rate = budget / max(time.monotonic() - t0, 1e-4)
        budget = int(min(max(rate * min(SLICE_SECONDS, max(left, 0.01)), _MIN_BUDGET), _MAX_BUDGET))


@contextmanager
def deadline_in(seconds: float | None):
    """In-process deadline ``seconds`` from now for this thread's SAT calls
    (:func:`solve_within`, :func:`check_deadline`), never later than an outer
    one; python-sat's own Ctrl-C error comes out as KeyboardInterrupt."""
    outer = getattr(_here, "deadline", None)
    if seconds is not None:
        end = time.monotonic() + seconds
        _here.deadline = end if outer is None else min(outer, end)
    try:
        yield
    except Exception as exc:
        if _is_solver_interrupt(exc):
            raise KeyboardInterrupt from None
        raise
    finally:
        _here.deadline = outer


def runs_here() -> bool:
    """A time-limited search must run in this process: it is daemonic (may
    not have children) or this is not the main thread (fork is unsafe)."""
    return bool(mp.current_process().daemon) or threading.current_thread() is not threading.main_thread()


def _is_solver_interrupt(exc: BaseException) -> bool:
    """python-sat turns SIGINT inside a solver call into its own error."""
    return type(exc).__name__ == "error" and "keyboard interrupt" in str(exc).lower()


def _child(fn: Callable, kwargs: dict, conn) -> None:
    # Ctrl-C in a terminal reaches the whole process group: the parent alone
    # decides (it kills this process), so the child does not print a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        value = fn(report=lambda result: conn.send(("report", result)), **kwargs)
        conn.send(("done", value))
    except BaseException as exc:          # sent to the parent, re-raised there
        try:
            conn.send(("error", exc))
        except Exception:
            conn.send(("error", RuntimeError("".join(traceback.format_exception(exc)))))
    finally:
        conn.close()


def run_limited(fn: Callable, kwargs: dict, time_limit: float | None,
                on_report: Callable[[Any], None] | None = None, *,
                in_process: bool | None = None) -> tuple[Any, bool, Any]:
    """Run ``fn(report=..., **kwargs)``; returns (value, timed_out, last report).

    ``value`` is None when the limit struck first (a limit <= 0 starts no
    worker at all).  Exceptions of ``fn`` are re-raised here; Ctrl-C stops
    the worker and raises :class:`SearchInterrupted` with the last report.
    ``in_process`` (default: :func:`runs_here`) runs ``fn`` in this process
    under the deadline it checks itself (see the module's docstring)."""
    last = None

    def keep(result):
        nonlocal last
        last = result
        if on_report is not None:
            on_report(result)

    if time_limit is not None and time_limit <= 0:
        return None, True, last
    if in_process is None:
        in_process = time_limit is not None and runs_here()
    if time_limit is None or in_process:
        try:
            with deadline_in(time_limit):
                return fn(report=keep, **kwargs), False, last
        except OutOfTime:
            return None, True, last
        except KeyboardInterrupt:
            raise SearchInterrupted(last) from None
    deadline = time.monotonic() + time_limit
    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else "spawn")
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(fn, kwargs, sender), daemon=True)
    try:
        proc.start()
        sender.close()
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not receiver.poll(remaining):
                return None, True, last
            try:
                kind, payload = receiver.recv()
            except EOFError:
                raise RuntimeError(f"the SAT worker process died (exit code {proc.exitcode})") from None
            if kind == "report":
                keep(payload)
            elif kind == "done":
                return payload, False, last
            else:
                raise payload
    except KeyboardInterrupt:
        raise SearchInterrupted(last) from None
    finally:
        if proc.is_alive():
            proc.kill()
        if proc.pid is not None:
            proc.join()
        receiver.close()
