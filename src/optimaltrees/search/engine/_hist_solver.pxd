# cython: language_level=3
"""Depth-two nodes solved whole from class histograms, for features with
few values (binned data, integer or categorical codes).  A depth-two node
is then cheaper to solve whole than by ConTree's branch-and-bound over
D2Split scans: its rows, walked in one root feature's order, fill a
histogram of the rows left of the root threshold, and every threshold is
scored exactly from it.  The two children of a depth-three split can share
one walk of the smaller (sibling pairs): the larger's histograms are the
parent's, kept per root threshold as prefix snapshots, less the smaller's.
Owned by the sorted layout (unweighted rows only)."""
from libc.stdint cimport int32_t, uint16_t, uint64_t
from libcpp.vector cimport vector

from optimaltrees.search.engine._common cimport Elem, Node, Split1
from optimaltrees.search.engine._histogram cimport HistScan
from optimaltrees.search.engine._layout_base cimport DataLayout

cimport cython


cdef struct PairAnswer:                    # one child's depth-two optimum, solved with its sibling
    uint64_t h1, h2                        # the child's set hashes ...
    int size                               # ... and size (-1: no answer held)
    bint found                             # a root split beats the child's leaf ...
    Split1 root                            # ... this one (root.val: its objective) ...
    Split1 sides[2]                        # ... with these depth-one children


@cython.final
cdef class HistogramSolver:
    cdef int n                             # instances of the training set
    cdef int p                             # features
    cdef int K                             # classes
    cdef int min_leaf                      # smallest leaf allowed
    cdef double cost                       # cost of one branching node
    cdef double opt_scans                  # histograms below this many scans' cost (the histogram_scans option)
    cdef int opt_min_rows                  # ... on nodes of at least this many rows (histogram_min_rows)
    cdef int opt_pairs                     # children solved as a pair: 0 auto, 1 always, 2 never (pairs)
    cdef bint ready                        # every feature has few ranks: depth-two nodes may use histograms
    cdef int bins                          # histogram bins: the features' rank counts summed
    cdef vector[int32_t] offset            # [f]: feature f's first bin; [p]: bins
    cdef vector[uint16_t] row_rank         # [instance * p + f]: the instance's rank on feature f
    cdef vector[int32_t] left              # [bin * K + class]: the rows left of the root threshold
    cdef vector[int32_t] total             # [bin * K + class]: the node's rows
    cdef vector[int32_t] scratch           # 5 x K class counts: the scans' per-class scratch
    # both children of a depth-three split solved from one walk of the smaller
    # (``pair``): the other's histograms are its parent's less the walked one's
    cdef size_t snap_cells                 # cells of the parent's prefix snapshots (0: not allowed)
    cdef vector[int32_t] snap              # [(offset[f] + b) * bins * K + cell]: the parent's rows of f-rank <= b
    cdef vector[int32_t] snap_total        # [bin * K + class]: the parent's rows
    cdef uint64_t snap_h1, snap_h2         # the parent the snapshots hold ...
    cdef int snap_size                     # ... (its size; -1: none)
    cdef uint64_t seen_h1, seen_h2         # the parent of the last request (snapshots are built on its second) ...
    cdef int seen_size                     # ... (its size; -1: none)
    cdef vector[int32_t] other             # the unwalked child's prefix and total histograms
    cdef PairAnswer pair_answer[2]         # both children's answers, until solve takes them
    cdef long long n_pairs                 # depth-three splits whose children were solved as a pair

    cdef size_t memory_bytes(self) noexcept nogil
    cdef bint solves_whole(self, Node* node, int depth) noexcept nogil
    cdef bint solve(self, DataLayout lay, Node* node, double* best_val, Split1* root_out,
                    Split1* sides) noexcept nogil
    cdef void reserve_pairs(self, int max_depth, double budget_bytes, size_t fixed_bytes)
    cdef int pair(self, DataLayout lay, Node* parent, int f, int pos, Node* out, Elem* base,
                  double* cnt_l, double* cnt_r, uint64_t* rnd1, uint64_t* rnd2) noexcept nogil
    cdef void _split_small(self, Node* parent, int f, int pos, int w, Node* out, Elem* base, double* cnt_l,
                           double* cnt_r, uint64_t* rnd1, uint64_t* rnd2) noexcept nogil
    cdef int _take_pair(self, DataLayout lay, Node* node, double* best_val, Split1* root,
                        Split1* sides) noexcept nogil
    cdef bint _build_snapshots(self, DataLayout lay, Node* parent) noexcept nogil
    cdef bint _pair_walk(self, DataLayout lay, Node* walked, Node* other, HistScan* st_w,
                         HistScan* st_o) noexcept nogil
    cdef int _next_rank_other(self, int f, int b, Elem* walked, int k, int n_walked) noexcept nogil
