# cython: language_level=3
"""What every data layout holds: the problem's sizes and the training set's
class counts.  The layouts (``_sorted``, ``_bitset``) extend it with their
buffers and the C methods listed in ``_layout.pxd``."""
from libc.stdint cimport int32_t
from libcpp.vector cimport vector


cdef class DataLayout:
    cdef int n                             # instances
    cdef int p                             # features
    cdef int K                             # classes
    cdef int min_leaf                      # smallest leaf allowed
    cdef double cost                       # cost of one branching node
    cdef readonly int exact_depth          # deepest node the layout's solve_exact handles whole
    cdef public long long n_d2             # depth-two solves run
    cdef vector[double] root_counts        # class counts (weights) of the training set
    cdef size_t fixed_bytes                # what the layout's buffers hold (set once they are built)
    cdef double deadline                   # monotonic time a whole-node solve stops at (INFINITY: none) ...
    cdef bint cut_short                    # ... and the last solve_exact did: its answer is not exact
    cdef bint has_floors                   # split_floor gives class floors (else it gives 0 everywhere)

    cdef void init_sizes(self, int n, int p, int n_classes, int min_leaf, double cost,
                         int exact_depth, int32_t[::1] y)
    cdef size_t base_bytes(self) noexcept nogil
