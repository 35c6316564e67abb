# cython: language_level=3
"""Class floors of a feature's splits: a child whose leaves can name at most
2^d classes errs on every row outside its 2^d largest, whatever its tree,
so a split's floor is the least any tree below it can make.  The core
trims thresholds (and whole features) whose floor reaches its bound.
Inline, so that the sorted layout's pass along a feature compiles into one
loop."""
from libc.math cimport INFINITY
from libc.stdint cimport int32_t

from optimaltrees.search.engine._common cimport Elem


cdef inline void swap_to(int32_t* order, int32_t* place, int c, int i) noexcept nogil:
    """Class c to index i of ``order``, the class there to c's old index
    (``place``: each class's index in ``order``)."""
    cdef int j = place[c], d = order[i]
    order[i] = c
    order[j] = d
    place[d] = j
    place[c] = i


cdef inline double split_floor(Elem* arr, int nn, double* counts, int K, int ml, int leaves, int32_t* P,
                               int m, double* out, int32_t* cl, int32_t* scratch, int n) noexcept nogil:
    """The class floor of one feature's splits (``arr``: the node's ``nn``
    rows in its order, ``counts`` their classes): the rows of each child
    outside its ``leaves`` largest classes (which is all its leaves can
    name).  With ``out``, the floor at each of the m split positions P
    (ascending) too.  Returns the least over every split (INFINITY: none).
    ``cl``: 2 K ints of scratch; ``scratch``: 4 K + 2 (n + 1) ints, n the
    training set's rows.

    One pass along f's order moves a row at a time from the right child
    to the left; each side keeps its classes sorted by count, with the
    number of classes above each count, so a move re-sorts in O(1) and
    the sum of the largest counts changes by one or not at all."""
    cdef int k, c, v, i, j, d, w = 0
    cdef int top_l = 0, top_r = 0, best = 2147483647, fl
    cdef int32_t* cr = cl + K
    cdef int32_t* order_l
    cdef int32_t* order_r
    cdef int32_t* pos_l
    cdef int32_t* pos_r
    cdef int32_t* above_l          # [v]: classes counting more than v on the left
    cdef int32_t* above_r
    order_l = scratch
    order_r = order_l + K
    pos_l = order_r + K
    pos_r = pos_l + K
    above_l = pos_r + K
    above_r = above_l + (n + 1)
    # the right child starts as the whole node: classes sorted by count
    d = 0                          # the node's classes with rows, first ...
    for c in range(K):
        cl[c] = 0
        cr[c] = <int32_t>(counts[c] + 0.5)
        order_l[c] = c
        pos_l[c] = c
        if cr[c] > 0:
            order_r[d] = c
            d += 1
    v = d
    for c in range(K):             # ... then the empty ones
        if cr[c] == 0:
            order_r[v] = c
            v += 1
    for i in range(1, d):          # insertion sort of the first d, descending (d <= rows)
        c = order_r[i]
        j = i
        while j > 0 and cr[order_r[j - 1]] < cr[c]:
            order_r[j] = order_r[j - 1]
            j -= 1
        order_r[j] = c
    for i in range(K):
        pos_r[order_r[i]] = i
        if i < leaves:
            top_r += cr[order_r[i]]
    i = K
    for v in range(nn + 1):
        while i > 0 and cr[order_r[i - 1]] <= v:
            i -= 1
        above_r[v] = i
        above_l[v] = 0
    for k in range(1, nn):
        c = arr[k - 1].label
        # left: c's count v -> v + 1; it moves to the front of the classes at v
        v = cl[c]
        i = above_l[v]
        swap_to(order_l, pos_l, c, i)
        above_l[v] = i + 1
        cl[c] = v + 1
        if i < leaves:
            top_l += 1
        # right: c's count v -> v - 1; it moves to the back of the classes at v
        v = cr[c]
        i = above_r[v - 1] - 1
        swap_to(order_r, pos_r, c, i)
        above_r[v - 1] = i
        cr[c] = v - 1
        if i < leaves:
            top_r -= 1
        if arr[k].rank != arr[k - 1].rank and k >= ml and nn - k >= ml:
            fl = (k - top_l) + (nn - k - top_r)
            if fl < best:
                best = fl
            if out != NULL:
                while w < m and P[w] < k:
                    w += 1
                if w < m and P[w] == k:
                    out[w] = fl
    return INFINITY if best == 2147483647 else <double>best
