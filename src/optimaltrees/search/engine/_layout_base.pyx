# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False
"""The part every data layout shares."""
from libc.math cimport INFINITY


cdef class DataLayout:
    """Sizes, costs and the training set's class counts of one problem."""

    cdef void init_sizes(self, int n, int p, int n_classes, int min_leaf, double cost,
                         int exact_depth, int32_t[::1] y):
        cdef int i
        self.n = n
        self.p = p
        self.K = n_classes
        self.min_leaf = min_leaf
        self.cost = cost
        self.exact_depth = exact_depth
        self.n_d2 = 0
        self.deadline = INFINITY
        self.cut_short = False
        self.root_counts.assign(n_classes, 0.0)
        for i in range(n):
            self.root_counts[y[i]] += 1.0

    cdef size_t base_bytes(self) noexcept nogil:
        """Bytes of the shared part (each layout adds its own buffers)."""
        return self.root_counts.capacity() * sizeof(double)

    @property
    def p_features(self):
        return self.p

    @property
    def n_instances(self):
        return self.n

    @property
    def buffer_bytes(self):
        """Bytes the layout's buffers hold (fixed once constructed)."""
        return self.fixed_bytes
