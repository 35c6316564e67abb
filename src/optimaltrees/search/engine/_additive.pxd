# cython: language_level=3
"""The additive layout: objectives whose node statistics are sums over the
node's rows, each row adding a fixed vector of ``S`` numbers.  As the sorted
layout, every feature's stable sorted order of (instance, value rank); a
node's statistics (``Node.counts``) are those sums, from which its objective
names a leaf's cost (``_objective.pxd``):

* squared error (``SQUARED_ERROR``): S = 3, a row adds (w, w y, w y^2);
* a cost matrix (``COST_MATRIX``): S = K, a row of class c adds w at c, and
  a leaf costs min over k of sum over c of counts[c] C[c, k]."""
from libc.stdint cimport int32_t, uint8_t, uint64_t
from libcpp.vector cimport vector

from optimaltrees.search.engine._layout_base cimport DataLayout
from optimaltrees.search.engine._common cimport Cand, Elem, Node, Split1
from optimaltrees.search.engine._pair_table cimport PairTable

cimport cython


cdef struct SideRow:                       # one row of one side in the squared-error depth-one scan
    int32_t id                             # the instance
    int32_t rank                           # its value rank on the scanned feature


@cython.final
cdef class AdditiveLayout(DataLayout):
    cdef vector[Elem] root                 # [f * n + k]: feature f's k-th instance in value order (label unused)
    cdef vector[vector[Elem]] children     # per level: left child's orders, then the right's
    cdef vector[vector[double]] cnt_left   # per level: left child's three sums
    cdef vector[vector[double]] cnt_right  # per level: right child's three sums
    cdef int kind                          # SQUARED_ERROR or COST_MATRIX (``_objective.pxd``)
    cdef int max_depth                     # the tree's depth (a node at level l has max_depth - l levels left)
    cdef int S                             # statistics per node (and per row)
    cdef vector[double] row_stats          # [S * instance + j]: what the row adds to its node's sums
    cdef vector[double] target             # [instance]: the row's target (squared error, the engine's units)
    cdef vector[double] costs              # [c * K + k]: the cost of predicting k for a row of class c (cost matrix)
    cdef double max_cost                   # the largest entry of costs
    cdef vector[double] class_max_cost     # [c]: the largest cost of a row of class c
    cdef vector[uint8_t] flag              # [instance]: 1 if it goes left in the split being applied
    cdef vector[uint64_t] rnd1, rnd2       # [instance]: random words whose sum / xor hash a set
    cdef vector[double] scan               # depth-one scratch: per side the S totals, then the prefix sums
    cdef vector[SideRow] side_rows         # squared-error scan scratch: side 0's rows from 0, side 1's from n
    cdef vector[int32_t] scan_order        # [j]: the j-th feature the squared-error scan takes
    cdef vector[double] scan_key           # [j]: its sort key (:meth:`_scan_order`)
    # The depth-one memo of one (node, root feature), squared error only: a
    # side's best split on f2 at one threshold bounds it at every threshold
    # where that side holds a superset of those rows (adding rows never lowers it)
    cdef vector[double] memo_left          # [pos * p + f2]: a lower bound on the left side's best split on f2
    cdef vector[double] memo_right         # [pos * p + f2]: the same for the right side
    cdef vector[uint8_t] memo_seen         # [pos]: 1 once position pos's bounds are set
    cdef uint64_t memo_h1, memo_h2         # the memo's node set (its two hashes) ...
    cdef int memo_size, memo_f1            # ... its size and root feature (memo_f1 -1: empty)
    cdef readonly PairTable pairs          # depth-two nodes solved from pairwise tables (None: too large)
    cdef bint has_pairs                    # pairs is set and allocated (:meth:`reserve_pair_tables`)

    cdef void init_root(self, Node* root) noexcept nogil
    cdef double leaf_cost(self, double* counts) noexcept nogil
    cdef double node_floor(self, double* counts, int depth) noexcept nogil
    cdef double node_weight(self, double* counts) noexcept nogil
    cdef void target_range(self, Node* node, double* lo, double* hi) noexcept nogil
    cdef double row_bound(self, Elem* e, double lo, double hi) noexcept nogil
    cdef void gini_split(self, Node* node, int f, double* score, int32_t* pos) noexcept nogil
    cdef double split_floor(self, Node* node, int f, int child_depth, int32_t* P, int m,
                            double* out) noexcept nogil
    cdef int thresholds(self, Node* node, int f, int32_t* P, double* D) noexcept nogil
    cdef void split_ranks(self, Node* node, int f, int pos, int32_t* lo, int32_t* hi) noexcept nogil
    cdef int rank_position(self, Node* node, int f, int32_t rank) noexcept nogil
    cdef void partition(self, int level, Node* node, int f, int pos, Node* out) noexcept nogil
    cdef void _partition(self, int level, Node* node, int f, int pos, Node* out, bint every_order) noexcept nogil
    cdef void candidates(self, Node* node, int f, vector[Cand]* out) noexcept nogil
    cdef bint solves_whole(self, Node* node, int depth) noexcept nogil
    cdef bint solve_exact(self, Node* node, int depth, double* best_val, Split1* root,
                          Split1* sides) noexcept nogil
    cdef void children_depth_one(self, int level, Node* node, int f, int pos, int ml,
                                 Split1* left, Split1* right) noexcept nogil
    cdef bint similarity_prune(self, Node* node, int depth, double ub, double* known_lb) noexcept nogil
    cdef void remember(self, Node* node, int depth, double lb) noexcept nogil
    cdef void hint_sibling(self, Node* parent, int depth, Node* second, Node* first) noexcept nogil
    cdef void clear_hint(self) noexcept nogil
    cdef bint pair_children(self, int level, Node* parent, int f, int pos, Node* out) noexcept nogil
    cdef bint sweep_due(self, Node* node, int evaluated) noexcept nogil
    cdef bint sweep_start(self, Node* node, int f1, int32_t* P, int i, int j) noexcept nogil
    cdef void sweep_feature(self, Node* node, int f1, int f2, int32_t* P, int i, int j) noexcept nogil
    cdef double sweep_value(self, Node* node, int32_t* P, int i, int w) noexcept nogil
    cdef size_t memory_bytes(self) noexcept nogil
    cdef void _depth_one(self, Elem* data, int nn, int f1, int pos, Split1* bl, Split1* br,
                         int ml, bint memo) noexcept nogil
    cdef void _memo_open(self, Node* node, int f1) noexcept nogil
    cdef int _memo_near(self, int pos, int step) noexcept nogil
    cdef void _sse_sums(self, Elem* arr, int k0, int k1, double* sums) noexcept nogil
    cdef void _scan_sums(self, Elem* data, int nn, int* ntot, double* target, Split1** out,
                         int ml) noexcept nogil
    cdef void _scan_squared(self, Elem* data, int nn, double* target, Split1** out, int ml,
                            double** lower, double** record) noexcept nogil
    cdef int32_t* _scan_order(self, double* target, double** lower) noexcept nogil
    cdef void _scan_side(self, SideRow* rows, int nn, int f2, double* tot, double* target, Split1* out,
                         int ml) noexcept nogil
    cdef void _add(self, double* sums, Elem* e) noexcept nogil
    cdef double _split_cost(self, double* total, double* prefix, double* rest) noexcept nogil
    cdef double _weight(self, int32_t i) noexcept nogil
