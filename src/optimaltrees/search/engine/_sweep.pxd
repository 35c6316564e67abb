# cython: language_level=3
"""A depth-two node's root feature swept whole: every threshold's best
depth-one children from one segment tree per second feature f2 (two
classes, unweighted rows).  The search turns to a sweep once ConTree's
intervals have taken enough steps on a feature that one D2Split scan per
threshold left costs more than p passes of n log n.  Owned by the sorted
layout."""
from libc.stdint cimport int32_t
from libcpp.vector cimport vector

from optimaltrees.search.engine._common cimport Node

cimport cython


cdef enum:
    # where nodes keep side maps a D2Split scan is a pass of popcounts, so only
    # nodes of at least MAPS_SWEEP_ROWS rows sweep (see ``Sweep.due``)
    MAPS_SWEEP_ROWS = 1 << 14


cdef struct SweepCell:                     # one segment-tree node of a depth-two sweep, over f2's ranks
    int32_t sum_l, min_l, max_l            # left child's rows (+1 class 0, -1 class 1): their sum, least and largest prefix sum
    int32_t sum_r, min_r, max_r            # the same over the right child's rows


@cython.final
cdef class Sweep:
    cdef int n                             # instances of the training set
    cdef double opt_after                  # sweep after this many steps x log2(rows) (the sweep_after option)
    cdef bint allowed                      # two classes, unweighted rows, and the buffers fit the memory limit
    cdef bint with_maps                    # the nodes keep side maps: only the largest sweep
    cdef size_t bytes                      # what the buffers take (counted from reserve on)
    cdef vector[SweepCell] tree            # [1 .. leaves): the segment tree of one f2 above its leaves (f2's ranks in the node)
    cdef vector[int32_t] sums              # [2 * leaf + side]: the leaves' sums (side 0: the left child's rows, 1: the right's)
    cdef vector[int32_t] leaf              # [instance]: the instance's leaf in the tree (f2's rank among the node's)
    cdef vector[int32_t] best              # [2 * (w - i) + side]: the fewest errors of a depth-one split of that child
    cdef vector[int32_t] ones              # [w - i]: class-1 rows left of threshold w
    cdef long long n_sweeps                # depth-two features swept whole

    cdef void reserve(self, int n_classes, bint weighted, bint with_maps, double budget_bytes,
                      size_t fixed_bytes)
    cdef bint due(self, Node* node, int evaluated) noexcept nogil
    cdef bint start(self, Node* node, int f1, int32_t* P, int i, int j) noexcept nogil
    cdef void feature(self, Node* node, int f1, int f2, int32_t* P, int i, int j) noexcept nogil
    cdef double value(self, Node* node, int32_t* P, int i, int w, double cost) noexcept nogil
