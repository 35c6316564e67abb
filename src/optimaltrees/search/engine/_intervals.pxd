# cython: language_level=3
"""ConTree's threshold-interval pruning (Algorithm 1 in the sound form of
the implementation notes §4.5), as inline helpers of the core's Branch.

A feature's split positions P[0..m-1] are searched as a queue of intervals
of indices; each interval remembers its nearest evaluated neighbours u
(left) and v (right) with their children's lower bounds.  Every threshold
strictly between u and v has a left child at least as hard as u's and a
right child at least as hard as v's (SP), and moving a threshold past
rows of total weight k changes a child's optimum by at most k (IS, NB).
Distances are D[k], the weight left of position k (its row count when
rows are unweighted, where these tests equal integer ones exactly)."""
from libc.stdint cimport int32_t
from libcpp.vector cimport vector

from optimaltrees.search.engine._common cimport EPS


cdef struct Interval:
    int i, j                   # inclusive range of threshold indices
    int u, v                   # nearest evaluated thresholds outside, -1 if none
    double u_left, u_total     # lower bounds of u's left child and of u
    double v_right, v_total    # lower bounds of v's right child and of v
    double floor               # every threshold of [i, j] costs at least this (SP and IS, child by child)


cdef struct RootItem:          # one queued interval of the root's best-first search
    Interval iv                # the interval of feature f's threshold indices
    int f                      # the feature
    int rank                   # f's place in the Gini order (equal bounds: the better feature first)
    long long seq              # when it was queued (then first in, first out)


cdef inline double interval_floor(Interval* iv, bint similar, double cost) noexcept nogil:
    """Every threshold of the interval is at least this (SP and IS, see
    :func:`bound_interval`; ``cost`` without the similarity bounds)."""
    if similar:
        return iv.floor
    return cost


cdef inline void bound_interval(Interval* iv, double* D, double cost) noexcept nogil:
    """Set ``iv.floor``, a bound on every threshold t of [i, j], child by
    child.  The left child of t is at least u's left child (SP: a superset)
    and at least v's left child less the weight D[v] - D[t] moved out of it
    (IS); the right child likewise from v (SP) and from u (IS).  The IS terms
    are weakest at the far end of the interval: t = i for v, t = j for u.
    Beside a threshold whose second child was skipped (the first already
    exceeded the bound) SP gives that side 0, and IS still bounds the
    thresholds near it.  Kept as the tighter of two sound bounds; it costs
    nothing measurable."""
    cdef double left = iv.u_left, right = iv.v_right, moved
    if iv.v >= 0 and iv.i <= iv.j:
        moved = (iv.v_total - iv.v_right - cost) - (D[iv.v] - D[iv.i])
        if moved > left:
            left = moved
    if iv.u >= 0 and iv.i <= iv.j:
        moved = (iv.u_total - iv.u_left - cost) - (D[iv.j] - D[iv.u])
        if moved > right:
            right = moved
    iv.floor = left + right + cost


cdef inline size_t lowest_item(vector[RootItem]* items, bint similar, double cost, bint dive) noexcept nogil:
    """The queued interval with the lowest bound (then the better feature,
    then the earliest): expanding it first lets the root's bound rise.
    ``dive``: instead the better feature's earliest interval (ConTree's
    order, feature after feature: good trees early)."""
    cdef size_t k, best = 0
    cdef double key, best_key = interval_floor(&items[0][0].iv, similar, cost)
    if dive:
        for k in range(1, items.size()):
            if items[0][k].rank < items[0][best].rank or (
                    items[0][k].rank == items[0][best].rank and items[0][k].seq < items[0][best].seq):
                best = k
        return best
    for k in range(1, items.size()):
        key = interval_floor(&items[0][k].iv, similar, cost)
        if key < best_key - EPS or (key <= best_key + EPS and (
                items[0][k].rank < items[0][best].rank or (
                    items[0][k].rank == items[0][best].rank and items[0][k].seq < items[0][best].seq))):
            best = k
            best_key = key
    return best


cdef inline int first_at_least(int32_t* P, int i, int j, int32_t target) noexcept nogil:
    """Smallest k in [i, j] with P[k] >= target, or j + 1."""
    cdef int lo = i, hi = j + 1, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if P[mid] >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline int first_beyond(double* D, int i, int j, double base, double gap) noexcept nogil:
    """Smallest k in [i, j] with D[k] - base > gap, or j + 1 (D ascending)."""
    cdef int lo = i, hi = j + 1, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if D[mid] - base > gap:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline int last_beyond(double* D, int i, int j, double base, double gap) noexcept nogil:
    """Largest k in [i, j] with base - D[k] > gap, or i - 1 (D ascending)."""
    cdef int lo = i, hi = j + 1, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if base - D[mid] > gap:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


cdef inline void queue_start(vector[Interval]* Q, int m, double cost) noexcept nogil:
    """Every threshold index, no neighbour evaluated (a split costs at least ``cost``)."""
    cdef Interval iv
    Q.clear()
    iv.i = 0
    iv.j = m - 1
    iv.u = -1
    iv.v = -1
    iv.u_left = 0.0
    iv.u_total = 0.0
    iv.v_right = 0.0
    iv.v_total = 0.0
    iv.floor = cost
    Q.push_back(iv)


cdef inline double queue_floor(vector[Interval]* Q, size_t head, bint similar, double cost,
                               double floor_in) noexcept nogil:
    """The search stopped: every threshold still queued (from ``head``) is
    at least its interval's SP bound (at least ``cost`` without it)."""
    cdef double sp, out = floor_in
    while head < Q.size():
        sp = interval_floor(&Q[0][head], similar, cost)
        head += 1
        if sp < out:
            out = sp
    return out


cdef inline bint narrow(Interval* iv, double* D, double limit, double cost, int zero_l, int zero_r,
                        int* i_out, int* j_out) noexcept nogil:
    """SP, pure-side monotonicity (Theorem 2) and IS with today's bound
    ``limit`` (= ub - gap): the indices of the interval still worth a look;
    False when none is."""
    cdef int i = iv.i, j = iv.j
    cdef double du, dv
    # SP and IS child by child (``bound_interval``): nothing in [i, j] goes below limit
    if iv.floor >= limit - EPS:
        return False
    if i <= zero_l:
        i = zero_l + 1
    if j >= zero_r:
        j = zero_r - 1
    # IS: re-apply the similarity bound of the neighbours
    if iv.u >= 0:
        du = iv.u_total - limit
        if du >= -EPS:
            # thresholds within weight du + EPS of u cannot go below limit
            i = first_beyond(D, i, j, D[iv.u], du + EPS)
    if iv.v >= 0 and i <= j:
        dv = iv.v_total - limit
        if dv >= -EPS:
            j = last_beyond(D, i, j, D[iv.v], dv + EPS)
    i_out[0] = i
    j_out[0] = j
    return i <= j


cdef inline void push_halves(vector[Interval]* Q, Interval* iv, int i, int j, int w) noexcept nogil:
    """Without similarity bounds (leaf sizes above depth two): both sides of w."""
    cdef Interval nv
    if i <= w - 1:
        nv = iv[0]
        nv.i = i
        nv.j = w - 1
        Q.push_back(nv)
    if w + 1 <= j:
        nv = iv[0]
        nv.i = w + 1
        nv.j = j
        Q.push_back(nv)


cdef inline void push_beyond(vector[Interval]* Q, Interval* iv, double* D, int i, int j, int w,
                             double lb_l, double lb_r, double lb_w, double limit, double cost) noexcept nogil:
    """NB: thresholds that move at most lb_w - limit weight from w cannot
    improve; queue the rest on both sides, with w as their new neighbour."""
    cdef double delta = lb_w - limit
    cdef int lo_k, hi_k
    cdef Interval nv
    if delta < -EPS:
        lo_k = w - 1
        hi_k = w + 1
    else:
        lo_k = last_beyond(D, i, w - 1, D[w], delta + EPS)
        hi_k = first_beyond(D, w + 1, j, D[w], delta + EPS)
    if i <= lo_k:
        nv.i = i
        nv.j = lo_k
        nv.u = iv.u
        nv.u_left = iv.u_left
        nv.u_total = iv.u_total
        nv.v = w
        nv.v_right = lb_r
        nv.v_total = lb_w
        bound_interval(&nv, D, cost)
        Q.push_back(nv)
    if hi_k <= j:
        nv.i = hi_k
        nv.j = j
        nv.u = w
        nv.u_left = lb_l
        nv.u_total = lb_w
        nv.v = iv.v
        nv.v_right = iv.v_right
        nv.v_total = iv.v_total
        bound_interval(&nv, D, cost)
        Q.push_back(nv)
