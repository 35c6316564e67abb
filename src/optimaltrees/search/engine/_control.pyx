# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Run control: when a search must stop, and whom it tells about progress."""
import threading

from libc.math cimport INFINITY
from cpython.exc cimport PyErr_Clear

from optimaltrees.search.engine._common cimport now

cdef extern from "Python.h":
    # declared without Cython's "except -1" so the pending KeyboardInterrupt
    # can be read and cleared here instead of unwinding through nogil code
    int check_signals_raw "PyErr_CheckSignals" ()


cdef class SharedRoot:
    """Lets several engines (one per thread) search disjoint root features of
    the same problem while pruning against each other's best tree."""

    def __cinit__(self):
        self.share = new RootShare()

    def __dealloc__(self):
        del self.share

    def stop(self):
        """Ask every engine sharing this root to return its best tree now."""
        share_stop(self.share)

    def offer(self, double objective):
        """A tree of this objective exists (found elsewhere, e.g. by another
        Dask task): the engines prune against it from now on."""
        share_offer(self.share, objective)

    @property
    def best(self):
        """The best objective any engine sharing this root has found or been offered."""
        return share_ub(self.share)

    cdef int attach(self):
        """One more engine expands this frontier: its in-flight slot."""
        self.in_flight.push_back(INFINITY)
        return <int>self.in_flight.size() - 1

    cdef void reset(self, int p, double known_lb) noexcept nogil:
        """An empty frontier for a new solve over ``p`` features."""
        cdef size_t k
        self.items.clear()
        self.zero_l.assign(p, -1)
        self.zero_r.assign(p, 0)
        self.first_w.assign(p, -1)
        for k in range(self.in_flight.size()):
            self.in_flight[k] = INFINITY
        self.seq = 0
        self.steps = 0
        self.dives_idle = 0
        self.evaluated_lb = INFINITY
        self.bound = known_lb
        self.busy = 0
        self.started = False
        self.finished = False


cdef class RunControl:
    """One engine's run state.  ``expired`` is called at every branching
    decision: cheap until a deadline (signals every 0.1 s, the hook every
    ``hook_every`` s) is due."""

    def __init__(self):
        self.shared_owner = None
        self.shared = NULL
        self.has_hook = False
        self.hook = None
        self.hook_error = None
        self.hook_every = 0.5
        self.next_hook = INFINITY
        self.t_limit = INFINITY

    def share_root_with(self, SharedRoot shared):
        self.shared_owner = shared
        self.shared = shared.share

    def set_hook(self, hook, double every):
        self.hook = hook
        self.has_hook = hook is not None
        self.hook_every = every
        self.next_hook = INFINITY

    def raise_hook_error(self):
        """Re-raise what the hook raised during the last solve, if anything."""
        if self.hook_error is not None:
            err, self.hook_error = self.hook_error, None
            raise err

    @property
    def aborted_(self):
        return bool(self.aborted)

    cdef void start(self, double time_limit):
        """A solve begins: ``time_limit`` seconds from now (INFINITY: none)."""
        self.t_start = now()
        self.t_limit = time_limit
        self.aborted = False
        self.interrupted = False
        self.stopped_by_hook = False
        self.hook_error = None
        self.poll_signals = threading.current_thread() is threading.main_thread()
        self.next_poll = self.t_start + 0.1
        self.next_memory_check = self.t_start
        # the hook's clock runs across solves: restarts and proof slices of a
        # few hundredths of a second each must not put off every periodic call
        if self.t_start + self.hook_every < self.next_hook:
            self.next_hook = self.t_start + self.hook_every

    cdef bint expired(self, double t) noexcept nogil:
        """True once the search must stop: time limit, a stop request from a
        sibling thread's caller, Ctrl-C (polled every 0.1 s when solving on
        the main thread) or the hook."""
        if t - self.t_start > self.t_limit:
            self.aborted = True
        elif self.shared != NULL and share_stopped(self.shared):
            self.aborted = True
        elif self.poll_signals and t >= self.next_poll:
            self.next_poll = t + 0.1
            self.poll()
        if self.has_hook and t >= self.next_hook and not self.aborted:
            self.next_hook = t + self.hook_every
            with gil:
                self.call_hook(None, -1)
        return self.aborted

    cdef void poll(self) noexcept nogil:
        with gil:
            if check_signals_raw() != 0:
                # the best tree is kept and returned; the caller reports it
                PyErr_Clear()
                self.interrupted = True
                self.aborted = True

    cdef void notify(self, double val, int tree) noexcept nogil:
        """The root's best tree improved: tell the hook at once (the anytime
        trace), so a stop keeps it even mid-restart."""
        if self.has_hook:
            with gil:
                self.call_hook(val, tree)

    cdef void call_hook(self, object val, int tree):
        try:
            keep_going = self.hook(val, tree)
        except KeyboardInterrupt:      # Ctrl-C while the hook ran: as when polled
            self.interrupted = True
            self.aborted = True
            return
        except BaseException as exc:   # re-raised by solve() once the search unwinds
            self.hook_error = exc
            self.aborted = True
            return
        if keep_going is False:
            self.stopped_by_hook = True
            self.aborted = True
