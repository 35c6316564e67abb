"""Ctrl-C that Python may swallow.

A SIGINT that arrives while a finaliser (``__del__``, e.g. python-sat's
cardinality encodings being freed) runs raises KeyboardInterrupt inside it,
and Python prints the error and carries on: a diagram fit without a time
limit would then go on to a MILP that never ends.  :func:`watch_ctrl_c`
records every SIGINT as well as raising it, so each phase of the fit can
check the record besides catching the exception."""
from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


class CtrlC:
    """Whether a SIGINT arrived while the watch was on."""

    def __init__(self) -> None:
        self.seen = False


@contextlib.contextmanager
def watch_ctrl_c() -> Iterator[CtrlC]:
    """Record SIGINTs in the yielded :class:`CtrlC`, then hand each to the
    handler that was installed (Python's raises KeyboardInterrupt).

    Signals reach the main thread only, and a process that ignores SIGINT or
    left it to the system keeps that: elsewhere the record stays empty."""
    ctrl_c = CtrlC()
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield ctrl_c
        return

    def record(signum, frame):
        ctrl_c.seen = True
        previous(signum, frame)

    signal.signal(signal.SIGINT, record)
    try:
        yield ctrl_c
    finally:
        signal.signal(signal.SIGINT, previous)
