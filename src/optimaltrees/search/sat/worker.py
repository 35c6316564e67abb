"""Wall-clock limits for SAT searches, whatever the solver.

CaDiCaL (python-sat's default here) cannot be interrupted inside a call, so a
time-limited search runs in a child process that reports every better result
through a pipe; at the deadline the parent stops the child and keeps the last
report.  Without a limit the search runs in-process.
"""
from __future__ import annotations

import multiprocessing as mp
import time
import traceback
from typing import Any, Callable


def _child(fn: Callable, kwargs: dict, conn) -> None:
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

    ``value`` is None when the limit struck first.  Exceptions of ``fn`` are
    re-raised here; Ctrl-C stops the child and returns like a timeout."""
    last = None

    def keep(result):
        nonlocal last
        last = result
        if on_report is not None:
            on_report(result)

    if time_limit is None:
        return fn(report=keep, **kwargs), False, last
    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else "spawn")
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(fn, kwargs, sender), daemon=True)
    deadline = time.monotonic() + time_limit
    proc.start()
    sender.close()
    try:
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
        return None, True, last
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        receiver.close()
