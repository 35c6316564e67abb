"""Wall-clock limits for SAT searches, whatever the solver.

CaDiCaL (python-sat's default here) cannot be interrupted inside a call, so a
time-limited search runs in a child process that reports every better result
through a pipe; at the deadline the parent stops the child and keeps the last
report.  Without a limit the search runs in-process.

Ctrl-C is not a timeout: it raises :class:`SearchInterrupted` (a
KeyboardInterrupt) carrying the last report, after the child is killed.
"""
from __future__ import annotations

import multiprocessing as mp
import signal
import time
import traceback
from typing import Any, Callable


class SearchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the search; ``last`` is its last report (or None)."""

    def __init__(self, last: Any = None) -> None:
        super().__init__("search interrupted (Ctrl-C)")
        self.last = last


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
                on_report: Callable[[Any], None] | None = None) -> tuple[Any, bool, Any]:
    """Run ``fn(report=..., **kwargs)``; returns (value, timed_out, last report).

    ``value`` is None when the limit struck first (a limit <= 0 starts no
    worker at all).  Exceptions of ``fn`` are re-raised here; Ctrl-C stops
    the worker and raises :class:`SearchInterrupted` with the last report."""
    last = None

    def keep(result):
        nonlocal last
        last = result
        if on_report is not None:
            on_report(result)

    if time_limit is None:
        try:
            return fn(report=keep, **kwargs), False, last
        except KeyboardInterrupt:
            raise SearchInterrupted(last) from None
        except Exception as exc:
            if _is_solver_interrupt(exc):
                raise SearchInterrupted(last) from None
            raise
    deadline = time.monotonic() + time_limit
    if time_limit <= 0:
        return None, True, last
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
