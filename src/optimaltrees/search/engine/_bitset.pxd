# cython: language_level=3
"""The bitset layout, for data whose every feature is binary: an instance
set is a bitset, a split an AND with the feature's bits, class counts are
popcounts, and depth-two nodes are solved whole by frequency counting
(MurTree).  Recently solved sets give a similarity lower bound."""
from libc.stdint cimport int32_t, uint64_t
from libcpp.vector cimport vector

from optimaltrees.search.engine._layout_base cimport DataLayout
from optimaltrees.search.engine._common cimport Cand, Node, Split1

cimport cython


@cython.final
cdef class BitsetLayout(DataLayout):
    cdef bint prune                        # the similarity bound is sound (no leaf-size limit)
    cdef public long long n_derived_counts # ... of which as parent minus sibling
    cdef int words                         # 64-bit words per instance set
    cdef vector[uint64_t] feature_bits     # [f * words]: instances at feature f's high value
    cdef vector[uint64_t] class_bits       # [c * words]: instances of class c
    cdef vector[uint64_t] root_mask        # every instance
    cdef vector[vector[uint64_t]] child_masks   # per level: left child's mask, then the right's
    cdef vector[vector[double]] cnt_left   # per level: left child's class counts
    cdef vector[vector[double]] cnt_right  # per level: right child's class counts
    cdef vector[uint64_t] masked           # depth-two scratch: node & feature, compacted words
    cdef vector[vector[uint64_t]] archive_masks   # per depth: recently solved sets ...
    cdef vector[vector[double]] archive_lbs       # ... and their lower bounds
    cdef vector[int] archive_used          # per depth: sets remembered (<= ARCHIVE) ...
    cdef vector[int] archive_next          # ... and the ring slot to fill next
    cdef vector[int32_t] single_counts     # [f * K + c]: class c with feature f at its high value
    cdef vector[int32_t] pair_counts       # [(i * p + j) * K + c]: ... with both i and j high
    # MurTree's sibling trick: a depth-three node's own counts, so that the second
    # child of each of its splits gets its counts as parent minus first child
    cdef vector[int32_t] parent_single     # the parent's single_counts ...
    cdef vector[int32_t] parent_pair       # ... and pair_counts
    cdef uint64_t parent_h1, parent_h2     # whose counts parent_* hold (0, 0: none)
    cdef uint64_t counted_h1, counted_h2   # whose counts single/pair_counts hold
    cdef uint64_t hint_h1, hint_h2         # the second child about to be solved ...
    cdef uint64_t hint_sib1, hint_sib2     # ... its sibling ...
    cdef Node* hint_parent                 # ... and their parent (NULL: no hint)
    cdef vector[int32_t] cl                # scratch: K class counts
    cdef vector[int32_t] node_counts       # scratch: the solved node's class counts as integers
    cdef vector[uint64_t] rnd1, rnd2       # [word]: random words mixed into the set hashes

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
    cdef int _high_counts(self, Node* node, int f, int32_t* cc) noexcept nogil
    cdef int32_t* _int_counts(self, Node* node) noexcept nogil
    cdef void _mask_hash(self, uint64_t* mask, uint64_t* h1, uint64_t* h2) noexcept nogil
    cdef bint _depth_one(self, Node* node, double* best_val, Split1* out) noexcept nogil
    cdef bint _depth_two(self, Node* node, double* best_val, Split1* root, Split1* sides) noexcept nogil
    cdef void _pair_counts(self, uint64_t* mask, int32_t* S, int32_t* P) noexcept nogil
    cdef void _node_pair_counts(self, Node* node) noexcept nogil
