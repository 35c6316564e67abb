# cython: language_level=3
"""Run control of one search: time limit, Ctrl-C, a stop request, the
progress hook, and the root state shared by engines on several threads."""

from libcpp.vector cimport vector

from optimaltrees.search.engine._intervals cimport RootItem

cdef extern from *:
    """
    #include <atomic>
    #include <cmath>
    #include <mutex>
    // State shared by the engines that split the root's features between threads:
    // the best objective any of them has found, and the next root feature to claim.
    struct RootShare {
        std::atomic<double> ub;
        std::atomic<int> next_feature;
        std::atomic<bool> stop;
        std::mutex frontier;   // guards the root's best-first frontier (SharedRoot's fields)
        RootShare() : ub(INFINITY), next_feature(0), stop(false) {}
    };
    static inline void share_lock(RootShare* s) { s->frontier.lock(); }
    static inline void share_unlock(RootShare* s) { s->frontier.unlock(); }
    static inline bool share_stopped(RootShare* s) { return s->stop.load(std::memory_order_relaxed); }
    static inline void share_stop(RootShare* s) { s->stop.store(true); }
    static inline double share_ub(RootShare* s) { return s->ub.load(std::memory_order_relaxed); }
    static inline void share_offer(RootShare* s, double v) {
        double cur = s->ub.load(std::memory_order_relaxed);
        while (v < cur && !s->ub.compare_exchange_weak(cur, v)) {}
    }
    static inline int share_claim(RootShare* s) { return s->next_feature.fetch_add(1); }
    """
    cppclass RootShare:
        RootShare() except +
    double share_ub(RootShare* s) noexcept nogil          # best objective of any thread
    void share_offer(RootShare* s, double v) noexcept nogil   # offer this thread's better objective
    int share_claim(RootShare* s) noexcept nogil          # the next unclaimed root feature
    bint share_stopped(RootShare* s) noexcept nogil       # a stop was requested
    void share_stop(RootShare* s) noexcept nogil
    void share_lock(RootShare* s) noexcept nogil         # take the frontier ...
    void share_unlock(RootShare* s) noexcept nogil       # ... and give it back


cdef class SharedRoot:
    # The root's state that engines share: the best objective and a stop flag
    # (atomics in `share`), and the best-first frontier of the root's threshold
    # intervals (below, guarded by share_lock).  An engine that searches alone
    # keeps a private one.
    cdef RootShare* share                  # owned; freed with this object
    cdef vector[RootItem] items            # queued intervals of every root feature
    cdef vector[int] zero_l                # per feature: Theorem 2's pure-side index on the left ...
    cdef vector[int] zero_r                # ... and on the right
    cdef vector[int] first_w               # per feature: its best Gini threshold, -1 once evaluated
    cdef vector[double] in_flight          # per engine: the bound of the interval it expands (INFINITY: none)
    cdef long long seq                     # intervals queued so far (the tie-break)
    cdef long long steps                   # intervals taken so far (odd: ConTree's order while it pays, see dives_idle)
    cdef long long dives_idle              # ConTree-order steps since the root's incumbent last improved
    cdef double evaluated_lb               # least bound of every threshold evaluated
    cdef double bound                      # the root's lower bound proven so far (only rises)
    cdef int busy                          # engines expanding an interval now
    cdef bint started                      # the first engine has queued every feature
    cdef bint finished                     # an engine met the known bound: the root is solved

    cdef int attach(self)
    cdef void reset(self, int p, double known_lb) noexcept nogil


cdef class RunControl:
    cdef double t_start                    # when the current solve began (monotonic seconds)
    cdef double t_limit                    # seconds it may take (INFINITY: no limit)
    cdef bint aborted                      # the search must unwind now, keeping its best tree
    cdef public bint interrupted           # ... because of Ctrl-C
    cdef public bint stopped_by_hook       # ... because the hook returned False
    cdef bint poll_signals                 # on the main thread: look for Ctrl-C ...
    cdef double next_poll                  # ... next at this time
    cdef double next_memory_check          # when the engine next re-measures its memory
    cdef SharedRoot shared_owner           # keeps `shared` alive
    cdef RootShare* shared                 # NULL when this engine searches alone
    cdef bint has_hook                     # a progress hook is set
    cdef object hook                       # hook(objective or None, tree) -> False to stop
    cdef object hook_error                 # an exception the hook raised, re-raised after the solve
    cdef double hook_every                 # seconds between progress calls ...
    cdef double next_hook                  # ... next at this time

    cdef void start(self, double time_limit)
    cdef bint expired(self, double t) noexcept nogil
    cdef void call_hook(self, object val, int tree)
    cdef void notify(self, double val, int tree) noexcept nogil
    cdef void poll(self) noexcept nogil
