# cython: language_level=3
"""A depth-two node's side maps: its rows' sides, labels and changes of
value in every feature's order as bit maps, kept from one D2Split call to
the next, so that a call moves only the rows between its threshold and the
last one instead of rebuilding every map (unweighted rows, up to
MAPS_MAX_CLASSES classes).  Owned by the sorted layout; the scans that read
the maps are ``_d2scan.pxd``'s."""
from libc.stdint cimport int32_t, uint64_t
from libcpp.vector cimport vector

from optimaltrees.search.engine._common cimport Elem

cimport cython


cdef enum:
    # D2Split keeps side maps (and a label map per class) up to this many classes;
    # beyond, a candidate's popcount per class costs more than the row scan
    MAPS_MAX_CLASSES = 16


@cython.final
cdef class SideMaps:
    cdef int p                             # features
    cdef int K                             # classes
    cdef int opt_after                     # maps built on this depth-two call (the maps_after option)
    cdef long long opt_gather_entries      # rows x features from which moves gather positions (gather_entries)
    cdef bint allowed                      # unweighted rows, up to 16 classes, and the maps fit the memory limit
    cdef size_t bytes                      # what the maps take (counted from reserve on)
    cdef vector[int32_t] at                # [instance * p + f2]: the row's position in f2's order within the mapped node
    cdef vector[uint64_t] side             # [f2 * words + w]: rows left of the mapped threshold, in f2's order
    cdef vector[uint64_t] label            # [f2 * words + w]: rows of class 1, in f2's order (two classes);
                                           # [(f2 * K + class) * words + w]: of each class (three to 16)
    cdef vector[int32_t] counts            # scratch: the class counts of a scan's two children
    cdef vector[uint64_t] change           # [f2 * words + w]: rows whose f2 value differs from the row before
    cdef int words                         # words per feature of the mapped node
    cdef Elem* elems                       # the node the maps are for (its orders) ...
    cdef int size                          # ... its rows ...
    cdef long long epoch                   # ... and the rows' epoch when they were seen (the layout's elems_epoch)
    cdef int calls                         # D2Split calls on that node so far
    cdef bint built                        # the label and change maps and ``at`` hold that node
    cdef int f1, pos                       # the threshold ``side`` holds (f1 -1: none)
    cdef vector[int32_t] seq               # [k * p + f2]: ``at`` of the k-th row in f1's order (large data only)
    cdef bint seq_ok                       # seq holds the mapped node's rows in f1's order
    cdef long long f1_moves                # rows moved since f1 became the mapped feature
    cdef long long n_gathers               # times seq was filled
    cdef long long n_moves                 # rows moved between thresholds

    cdef void reserve(self, int n, bint weighted, int max_depth, double budget_bytes,
                      size_t fixed_bytes)
    cdef void clear(self)
    cdef bint use(self, Elem* data, int nn, long long epoch) noexcept nogil
    cdef void _build(self, Elem* data, int nn) noexcept nogil
    cdef void move_sides(self, Elem* data, int nn, int f1, int pos) noexcept nogil
