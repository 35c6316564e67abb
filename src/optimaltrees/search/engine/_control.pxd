# cython: language_level=3
"""Run control of one search: time limit, Ctrl-C, a stop request, the
progress hook, and the root state shared by engines on several threads."""

cdef extern from *:
    """
    #include <atomic>
    #include <cmath>
    // State shared by the engines that split the root's features between threads:
    // the best objective any of them has found, and the next root feature to claim.
    struct RootShare {
        std::atomic<double> ub;
        std::atomic<int> next_feature;
        std::atomic<bool> stop;
        RootShare() : ub(INFINITY), next_feature(0), stop(false) {}
    };
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


cdef class SharedRoot:
    cdef RootShare* share                  # owned; freed with this object


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
