# cython: language_level=3
"""The sorted-order layout: any numeric data, as every feature's stable
sorted order of (instance, value rank, label).  A split is a stable
partition and a threshold a position in a sorted order; the depth-two
solver (D2Split) scores both children of a split in one scan.  Rows may
carry weights: then class counts are sums of weights, and the depth-two
scan and ConTree's neighbourhood bounds measure distance in weight.

The layout holds the speed-ups of classification, each an object that
owns its buffers (as scikit-learn's Splitter holds a Criterion): the
histogram solver and sibling pairs, the side maps, the sweep and the
similarity archive."""
from libc.stdint cimport int32_t, uint8_t, uint16_t, uint64_t
from libcpp.vector cimport vector

from optimaltrees.search.engine._layout_base cimport DataLayout
from optimaltrees.search.engine._common cimport Cand, Elem, Node, Split1
from optimaltrees.search.engine._hist_solver cimport HistogramSolver
from optimaltrees.search.engine._side_maps cimport SideMaps
from optimaltrees.search.engine._similarity cimport SimilarityArchive
from optimaltrees.search.engine._sweep cimport Sweep

cimport cython


@cython.final
cdef class SortedLayout(DataLayout):
    cdef vector[Elem] root                 # [f * n + k]: feature f's k-th instance in value order
    cdef vector[vector[Elem]] children     # per level: left child's orders, then the right's
    cdef vector[vector[double]] cnt_left   # per level: left child's class counts (weights)
    cdef vector[vector[double]] cnt_right  # per level: right child's class counts (weights)
    cdef bint weighted                     # rows carry weights (otherwise each row counts 1)
    cdef vector[double] weight             # [instance]: the row's weight (> 0), when weighted
    cdef vector[double] wq, wc             # weighted scratch: two children x K class weights
    cdef vector[uint8_t] flag              # [instance]: 1 if it goes left in the split being applied
    cdef vector[uint64_t] rnd1, rnd2       # [instance]: random words whose sum / xor hash a set
    cdef vector[int32_t] fql, cl           # depth-two scratch: two children x K class counts
    cdef vector[float] switch_rate         # [f1 * stride + f2]: share of side switches on the last such D2Split scan
    cdef int switch_stride                 # p, or 0 beyond SWITCH_PAIRS_MAX features (then per f2 only)
    cdef vector[int32_t] class_hist        # depth-two scratch with many classes: two sides x (n + 1) counts
    cdef vector[int32_t] floor_rank        # split_floor scratch: per side, classes by count (descending) and
                                           # each class's place there (4 K), then per side the classes
                                           # counting more than v, for v = 0 .. n (2 (n + 1)); three or
                                           # more classes only
    cdef long long elems_epoch             # counts rewrites of the child buffers (a node at the same address may differ)
    cdef HistogramSolver hist              # depth-two nodes from class histograms, alone or as sibling pairs
    cdef SideMaps maps                     # a depth-two node's side maps, kept between D2Split calls
    cdef Sweep sweep                       # a depth-two node's root feature swept whole
    cdef SimilarityArchive sim             # recently solved sets, for the similarity bound
    # the engine's tuning (``options.EngineOptions``: each rule and why)
    cdef int opt_sim_min_rows              # least node size the similarity bound checks (similarity_min_rows)
    cdef float opt_switchy                 # side-switch share above which scans use masks (scan_switch_rate)
    cdef bint opt_pdep                     # the two-class scan selects bits with PDEP (select)

    cdef void init_root(self, Node* root) noexcept nogil
    cdef void gini_split(self, Node* node, int f, double* score, int32_t* pos) noexcept nogil
    cdef double split_floor(self, Node* node, int f, int child_depth, int32_t* P, int m,
                            double* out) noexcept nogil
    cdef int thresholds(self, Node* node, int f, int32_t* P, double* D) noexcept nogil
    cdef void split_ranks(self, Node* node, int f, int pos, int32_t* lo, int32_t* hi) noexcept nogil
    cdef int rank_position(self, Node* node, int f, int32_t rank) noexcept nogil
    cdef void partition(self, int level, Node* node, int f, int pos, Node* out) noexcept nogil
    cdef void candidates(self, Node* node, int f, vector[Cand]* out) noexcept nogil
    cdef bint solves_whole(self, Node* node, int depth) noexcept nogil
    cdef bint solve_exact(self, Node* node, int depth, double* best_val, Split1* root,
                          Split1* sides) noexcept nogil
    cdef bint pair_children(self, int level, Node* parent, int f, int pos, Node* out) noexcept nogil
    cdef void children_depth_one(self, int level, Node* node, int f, int pos, int ml,
                                 Split1* left, Split1* right) noexcept nogil
    cdef bint similarity_prune(self, Node* node, int depth, double ub, double* known_lb) noexcept nogil
    cdef void remember(self, Node* node, int depth, double lb) noexcept nogil
    cdef void hint_sibling(self, Node* parent, int depth, Node* second, Node* first) noexcept nogil
    cdef void clear_hint(self) noexcept nogil
    cdef bint _archived(self, Node* node, int depth) noexcept nogil
    cdef size_t memory_bytes(self) noexcept nogil
    cdef bint sweep_due(self, Node* node, int evaluated) noexcept nogil
    cdef bint sweep_start(self, Node* node, int f1, int32_t* P, int i, int j) noexcept nogil
    cdef void sweep_feature(self, Node* node, int f1, int f2, int32_t* P, int i, int j) noexcept nogil
    cdef double sweep_value(self, Node* node, int32_t* P, int i, int w) noexcept nogil
    cdef void _d2(self, Elem* data, int nn, int f1, int pos, double* counts,
                  Split1* bl, Split1* br, int ml) noexcept nogil
    cdef void _d2_weighted(self, Elem* data, int nn, int f1, int pos,
                           Split1* bl, Split1* br, int ml) noexcept nogil
    cdef void _gini_weighted(self, Node* node, int f, double* score, int32_t* pos,
                             vector[Cand]* out) noexcept nogil
