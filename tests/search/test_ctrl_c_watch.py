"""Ctrl-C that lands in a finaliser: Python swallows the KeyboardInterrupt
there, and the diagram fit must still see it (a fit without a time limit
would otherwise go on to a MILP that never ends)."""
import os
import signal
import sys
import time

from optimaltrees.search.diagram.interrupts import watch_ctrl_c


class _InterruptedWhileFreed:
    """An object whose finaliser receives SIGINT, as python-sat's encodings may."""

    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        end = time.perf_counter() + 5.0
        while time.perf_counter() < end:      # the handler runs here, between bytecodes
            pass


def test_a_sigint_swallowed_in_a_finaliser_is_recorded(monkeypatch):
    swallowed = []
    monkeypatch.setattr(sys, "unraisablehook", lambda info: swallowed.append(info.exc_type))
    with watch_ctrl_c() as ctrl_c:
        obj = _InterruptedWhileFreed()
        del obj
        assert ctrl_c.seen
    assert swallowed == [KeyboardInterrupt]       # Python dropped the exception itself


def test_the_watch_hands_sigint_on_and_restores_the_handler():
    before = signal.getsignal(signal.SIGINT)
    raised = False
    with watch_ctrl_c() as ctrl_c:
        assert signal.getsignal(signal.SIGINT) is not before
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1.0)
        except KeyboardInterrupt:
            raised = True
    assert raised and ctrl_c.seen
    assert signal.getsignal(signal.SIGINT) is before


def test_an_ignored_sigint_stays_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with watch_ctrl_c() as ctrl_c:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)
        assert not ctrl_c.seen
    finally:
        signal.signal(signal.SIGINT, previous)
