# cython: language_level=3
"""Types, constants and small inline helpers shared by every engine module.

The search sees data only through a :c:type:`Node` (one subproblem's
instance set, in whichever layout the data uses) and builds trees as
:c:type:`TNode` entries of one node pool.  Objective values and class
counts are doubles because a node's complexity cost and the rows' weights
may be fractional (unweighted counts are integers, exact in a double);
every comparison allows ``EPS``.
"""
from libc.stdint cimport int32_t, uint64_t

cdef extern from "optimaltrees/search/engine/_portable.h" nogil:
    # the platform-specific primitives (GCC/Clang builtins or MSVC intrinsics)
    int popcount64 "ot_popcount64" (uint64_t w) noexcept
    int ctz64 "ot_ctz64" (uint64_t w) noexcept    # trailing zero bits (w != 0)
    int clz64 "ot_clz64" (uint64_t w) noexcept    # leading zero bits (w != 0)
    # a hint to load p's cache line ahead of a random access (rows visited in
    # one feature's order read other per-row arrays in id order: a miss each)
    void prefetch "ot_prefetch" (const void* p) noexcept
    double now "ot_now" () noexcept               # monotonic seconds
    void sleep_us "ot_sleep_us" (int microseconds) noexcept

cdef extern from *:
    """
    #define OT_EPS 1e-9
    #define OT_FREE (-1.0)
    """
    const double EPS "OT_EPS"       # tolerance of every objective comparison
    const double FREE "OT_FREE"     # rule state of a path the rule can no longer cut

cdef enum:
    LEAF = 0                  # pool index of the shared leaf node
    NEVER = 0x7fffffff        # a depth-two scan position that is never reached
    ARCHIVE = 4               # solved sets remembered per depth for the similarity bound
    WIDE_CLASSES = 32         # above this many classes the depth-two scan keeps class maxima incrementally
    CACHE_ENTRY_BYTES = 64    # one cache entry's hash node: key, Entry, next pointer, allocator overhead
    # rows ahead whose per-row data the sorted layout prefetches when it visits
    # rows in one feature's order (random ids: a cache miss each on large data)
    AHEAD = 32

cdef struct Elem:             # one instance in one feature's sorted order
    int32_t id                # instance index
    int32_t rank              # the instance's unique-value rank on this feature
    int32_t label             # class index

cdef struct TNode:            # one node of the pool that every tree is built in
    int32_t feature           # -1 for a leaf
    int32_t lo                # largest rank sent left
    int32_t hi                # smallest rank sent right
    int32_t left              # pool index of the left child (-1 for a leaf)
    int32_t right             # pool index of the right child

cdef struct Node:
    # One subproblem's instance set in one of two layouts: every feature's
    # sorted order (any data), or a bitset over the instances when every
    # feature is binary.  Only the layout looks inside.
    Elem* elems               # sorted layout: p orders of `size` elements
    uint64_t* mask            # bitset layout: instance i is in the set iff bit i is
    int size                  # instances in the set
    double* counts            # class counts of the set (sums of row weights when weighted)
    uint64_t h1               # two independent set hashes: the cache key ...
    uint64_t h2               # ... and its check

cdef struct Split1:           # a split with leaf children (a depth-one tree), or none
    double val                # objective of the best depth-one tree (a leaf's if feature < 0)
    int32_t feature           # -1: no split beats the leaf
    int32_t lo                # largest rank sent left
    int32_t hi                # smallest rank sent right

cdef struct Cand:             # one candidate split of a node, for the rule strategies
    double score              # weighted Gini impurity of the two children (lower = better)
    int32_t f                 # feature
    int32_t pos               # left child's size
    int32_t lo                # largest rank sent left
    int32_t hi                # smallest rank sent right


cdef inline double leaf_errors(double* counts, int K) noexcept nogil:
    """Errors (weight) of a leaf predicting the majority class."""
    cdef int c
    cdef double best = 0.0, total = 0.0
    for c in range(K):
        total += counts[c]
        if counts[c] > best:
            best = counts[c]
    return total - best


cdef inline double total_weight(double* counts, int K) noexcept nogil:
    """The set's weight (its size when rows are unweighted)."""
    cdef int c
    cdef double total = 0.0
    for c in range(K):
        total += counts[c]
    return total


cdef inline int count_errors(int32_t* counts, int K, int nn) noexcept nogil:
    """Errors of a leaf over integer class counts (the unweighted scans' scratch)."""
    cdef int c, best = 0
    for c in range(K):
        if counts[c] > best:
            best = counts[c]
    return nn - best


cdef inline double class_floor(double* counts, int K, int depth) noexcept nogil:
    """Errors (weight) that every tree of this depth makes on these class
    counts: its 2^depth leaves name at most 2^depth classes, so all rows of
    the others, at least the lightest K - 2^depth classes, are errors.
    0 when the leaves cover the classes (or the selection would cost more
    than it can save: K x 2^depth above 4096)."""
    cdef int c, t, leaves, bi, pi = -1
    cdef double rest = 0.0, bv, pv = 1e308, v
    if depth >= 12 or (1 << depth) >= K or K > (4096 >> depth):
        return 0.0
    leaves = 1 << depth
    # the `leaves` heaviest classes, in the order value descending, index
    # ascending: (pv, pi) ends as the last of them
    for t in range(leaves):
        bv = -1.0
        bi = -1
        for c in range(K):
            v = counts[c]
            if (v < pv or (v == pv and c > pi)) and v > bv:
                bv = v
                bi = c
        pv = bv
        pi = bi
    # the others' weight, summed directly (a difference of sums could round up)
    for c in range(K):
        if counts[c] < pv or (counts[c] == pv and c > pi):
            rest += counts[c]
    return rest


cdef inline int count_floor(int32_t* counts, int K) noexcept nogil:
    """Errors every depth-one tree makes on these integer class counts: all
    but the two largest classes' rows."""
    cdef int c, a = 0, b = 0, total = 0
    for c in range(K):
        total += counts[c]
        if counts[c] > a:
            b = a
            a = counts[c]
        elif counts[c] > b:
            b = counts[c]
    return total - a - b


cdef inline int max_count(int32_t* c, int K) noexcept nogil:
    cdef int k, best = 0
    for k in range(K):
        if c[k] > best:
            best = c[k]
    return best


cdef inline double max_weight(double* c, int K) noexcept nogil:
    cdef int k
    cdef double best = 0.0
    for k in range(K):
        if c[k] > best:
            best = c[k]
    return best


cdef inline int max_count_diff(int32_t* a, int32_t* b, int K) noexcept nogil:
    """Largest a[k] - b[k]."""
    cdef int k, best = 0
    for k in range(K):
        if a[k] - b[k] > best:
            best = a[k] - b[k]
    return best


cdef inline double gini_high(double* counts, int32_t* high, int K, int nn, int n_hi) noexcept nogil:
    """Weighted Gini impurity (times nn) of the split sending the class
    counts ``high`` (``n_hi`` instances) right and the rest of ``counts`` left."""
    cdef int c
    cdef double sl = 0.0, sr = 0.0
    for c in range(K):
        sl += <double>(counts[c] - high[c]) * (counts[c] - high[c])
        sr += <double>high[c] * high[c]
    return ((nn - n_hi) - sl / (nn - n_hi)) + (n_hi - sr / n_hi)


cdef inline void sum_squares_start(double* counts, int32_t* cc, int K, double* sl, double* sr) noexcept nogil:
    """Start a Gini scan of one feature: no element left of the threshold.
    ``sl``/``sr`` are the sums of squared class counts left and right, kept
    up to date per element (O(1)) rather than summed over K classes at every
    threshold, which made many-class data quadratic."""
    cdef int c
    sl[0] = 0.0
    sr[0] = 0.0
    for c in range(K):
        cc[c] = 0
        sr[0] += <double>counts[c] * counts[c]


cdef inline void sum_squares_move(double* counts, int32_t* cc, int label, double* sl, double* sr) noexcept nogil:
    """One element of class ``label`` crosses the threshold from right to left
    (integer sums in doubles: exact below 2^53)."""
    sl[0] += 2.0 * cc[label] + 1.0
    sr[0] -= 2.0 * (counts[label] - cc[label]) - 1.0
    cc[label] += 1


cdef inline void weighted_squares_start(double* counts, double* cc, int K, double* sl,
                                        double* sr) noexcept nogil:
    """:func:`sum_squares_start` over weighted class counts."""
    cdef int c
    sl[0] = 0.0
    sr[0] = 0.0
    for c in range(K):
        cc[c] = 0.0
        sr[0] += counts[c] * counts[c]


cdef inline void weighted_squares_move(double* counts, double* cc, int label, double w,
                                       double* sl, double* sr) noexcept nogil:
    """One row of class ``label`` and weight ``w`` crosses the threshold from right to left."""
    sl[0] += w * (2.0 * cc[label] + w)
    sr[0] -= w * (2.0 * (counts[label] - cc[label]) - w)
    cc[label] += w


cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    """splitmix64 finaliser: a well-spread hash of one word."""
    x = (x ^ (x >> 30)) * <uint64_t>0xbf58476d1ce4e5b9
    x = (x ^ (x >> 27)) * <uint64_t>0x94d049bb133111eb
    return x ^ (x >> 31)


cdef inline int popcount_and(uint64_t* a, uint64_t* b, int words) noexcept nogil:
    cdef int w, total = 0
    for w in range(words):
        total += popcount64(a[w] & b[w])
    return total
