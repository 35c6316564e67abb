# cython: language_level=3
"""Exact depth-two trees of additive objectives from pairwise tables.

A depth-two tree is a root split (f1, t1) and one depth-one tree per child.
For objectives whose node statistics are sums over rows (``_additive.pyx``)
every such tree is scored from two tables of the node's rows: per feature
and rank the summed statistics (the marginals), and per pair of features
(f1, f2) and pair of ranks the same sums (the pair cells).  From them a
child's statistics per rank of f2 follow by prefix sums over f1's ranks, so
every root threshold and every child split is scored without touching a
row again, as MurTree's depth-two solver does with pairwise counts
(Demirovic et al., JMLR 2022, section 4.4) and STreeD does for its
regression task (van der Linden et al., NeurIPS 2023).

Two savings make the tables cheap to build:

* a row adds to the cells of a pair only where both features are off their
  most frequent rank (their ``common`` rank); the cells in a common rank's
  row or column are the marginals less the stored cells (MurTree keeps only
  the both-ones counts of binary features for the same reason);
* a table is updated with the rows that entered and left since its last
  node rather than rebuilt (MurTree's incremental computation).  Several
  tables hold depth-two nodes, because the search alternates between the
  left and the right child of successive root thresholds, and between
  features: each node updates the table nearest to it.  A third holds the rows of the depth-three split whose
  children are being solved: one child's table is then the parent's less
  its sibling's, one subtraction per cell (the histogram subtraction of
  gradient-boosting libraries such as LightGBM).

Each cell stores a row count first: emptiness and leaf sizes are decided on
counts, which additions and subtractions keep exact.  The other sums drift
by rounding with every update, so a table is rebuilt from its rows once the
rows it moved since the last rebuild pass a bound (``drift_moves``) that
keeps the drift far below the tolerance the driver checks results to.
"""
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libcpp.vector cimport vector

from optimaltrees.search.engine._common cimport Elem, Node, Split1

cimport cython

cdef enum:
    MAX_TABLES = 9          # the parent's table and at most eight for depth-two nodes


@cython.final
cdef class PairTable:
    cdef int n                              # training rows
    cdef int p                              # features
    cdef int S                              # the objective's statistics per row
    cdef int W                              # numbers per cell: a row count, then the S statistics ...
    cdef int stats_at                       # ... from this one (0: unweighted squared error, whose
                                            # weight W is the count)
    cdef int kind                           # SQUARED_ERROR or COST_MATRIX (``_objective.pxd``)
    cdef int min_leaf                       # least rows in a leaf
    cdef double cost                        # cost of one branching node
    cdef double worth_factor                # the tables' cost may be this many times the scans' (:meth:`worth`)
    cdef vector[double] costs               # [c * S + k]: cost of predicting k for class c (cost matrix)
    cdef vector[int32_t] n_ranks            # [f]: distinct values of feature f
    cdef vector[int32_t] offset             # [f]: f's first rank in the per-rank arrays (sum of n_ranks before)
    cdef int total_ranks                    # sum of n_ranks
    cdef int most_ranks                     # largest n_ranks
    cdef vector[int32_t] common             # [f]: f's most frequent rank, whose pair cells are not stored
    cdef vector[size_t] pair_base           # [f1 * p + f2], f1 < f2: the pair's first cell, slots r1-major
                                            # over the (B1 - 1) x (B2 - 1) non-common ranks
    cdef size_t n_cells                     # cells stored, every pair together
    cdef double dense_cells                 # cells scored, every pair together (all rank pairs)
    cdef vector[int32_t] active_start       # [i], [i + 1]: row i's run of active_feature / active_rank
    cdef vector[int32_t] active_feature     # per row, the features off their common rank, ascending ...
    cdef vector[int32_t] active_rank        # ... the row's rank on each ...
    cdef vector[int32_t] active_slot        # ... and that rank among the feature's non-common ones
    cdef vector[double] row_stats           # [i * W + j]: row i's count (1) and statistics
    cdef double pairs_per_row               # mean over rows of the pairs of their active features
    # table 0 (PARENT) holds a depth-three split's rows, the others depth-two nodes
    cdef vector[vector[double]] cells       # [table]: every pair's cells, W numbers each
    cdef vector[vector[double]] marginals   # [table]: [(offset[f] + r) * W + j], every feature's ranks
    cdef vector[vector[double]] totals      # [table]: the W sums of the table's rows
    cdef vector[vector[uint8_t]] member     # [table][i]: row i is in the table
    cdef vector[vector[int32_t]] rows       # [table]: the rows in the table
    cdef int n_tables                       # tables allocated: the parent's, then depth-two nodes'
    cdef long long updates[MAX_TABLES]      # rows added or removed since each table's last rebuild
    cdef bint ready[MAX_TABLES]             # the table holds exactly its rows (else rebuilt before use)
    cdef long long last_use[MAX_TABLES]     # the clock when a child table last served a node
    cdef long long clock                    # child tables served so far
    cdef vector[uint64_t] table_h1          # [table]: the set hashes of the table's rows (``Node.h1`` ...
    cdef vector[uint64_t] table_h2          # ... and ``Node.h2``)
    cdef double complement_rows             # rows moved that cost as much as one complement (``_complement``)
    cdef bint noted                         # a depth-three split's children are noted (``note_children``):
    cdef Elem* child_elems[2]               # ... their rows (first order, in the layout's child buffers),
    cdef int child_size[2]                  # ... sizes,
    cdef uint64_t child_h1[2]               # ... and set hashes
    cdef uint64_t child_h2[2]
    cdef vector[uint32_t] mark              # [i]: the stamp of the last node that held row i
    cdef uint32_t stamp                     # this node's stamp
    cdef vector[double] dense               # scratch: one pair's cells, every rank pair (most_ranks^2 x W)
    cdef vector[double] run                 # scratch: one child's sums per rank of a feature
    cdef vector[double] other               # scratch: the other child's sums per rank of a feature
    cdef vector[double] sums                # scratch: four sums of W numbers (a scan's prefix and rest,
                                            # a root threshold's left and right child)
    cdef vector[double] signed_row          # scratch: the row being added (+) or removed (-)
    cdef vector[Split1] side                # [2 * (offset[f] + r) + s]: child s's best depth-one tree
                                            # when the root splits f after rank r
    cdef bint scored_ready                  # side holds every threshold of one node (depth_one_children):
    cdef uint64_t scored_h1, scored_h2      # ... the node's set hashes
    cdef int scored_size                    # ... and size
    cdef vector[int32_t] next_rank          # [offset[f] + r]: the next rank present after r (-1: none)
    cdef vector[int32_t] present            # [f]: ranks of f present in the node
    cdef bint allocated                     # the tables exist (:meth:`allocate`)
    cdef bint cut_short                     # the last solve stopped at its deadline
    cdef public long long drift_moves       # rows a table may move between rebuilds (rounding drift)
    cdef public long long n_rebuilds        # tables built from scratch
    cdef public long long n_updates         # tables updated with the rows that changed
    cdef public long long n_complements     # tables written as the parent's less the sibling's

    cdef void _index_active(self, int32_t[:, ::1] rank)
    cdef size_t memory_bytes(self) noexcept nogil
    cdef bint worth(self, int nn) noexcept nogil
    cdef int solve(self, Node* node, double deadline, double* best_val, Split1* root,
                   Split1* sides) noexcept nogil
    cdef bint depth_one_children(self, Node* node, int f, int32_t lo, double deadline, Split1* left,
                                 Split1* right) noexcept nogil
    cdef void _score_all(self, int t) noexcept nogil
    cdef void note_children(self, Node* parent, Node* children, double deadline) noexcept nogil
    cdef bint _load_parent(self, Node* parent, double deadline) noexcept nogil
    cdef bint _holds(self, int t, Elem* elems, int nn, uint64_t h1, uint64_t h2) noexcept nogil
    cdef void _mark(self, Elem* elems, int nn) noexcept nogil
    cdef long long _distance(self, int t, int nn) noexcept nogil
    cdef double _cost(self, long long diff, int nn) noexcept nogil
    cdef int _load(self, Elem* elems, int nn, uint64_t h1, uint64_t h2, double deadline) noexcept nogil
    cdef int _least_used(self, int besides) noexcept nogil
    cdef int _sibling_of(self, int nn, uint64_t h1, uint64_t h2) noexcept nogil
    cdef bint _become(self, int t, Elem* elems, int nn, uint64_t h1, uint64_t h2, long long diff,
                      double deadline) noexcept nogil
    cdef void _complement(self, int t, int other, Elem* elems, int nn, uint64_t h1, uint64_t h2) noexcept nogil
    cdef void _move(self, int t, int32_t i, double sign) noexcept nogil
    cdef void _common_marginals(self, int t) noexcept nogil
    cdef double _leaf(self, double* sums) noexcept nogil
    cdef void _scan(self, double* per_rank, int first, int last, double* side_total, int feature,
                    Split1* best) noexcept nogil
    cdef void _thresholds(self, int t) noexcept nogil
    cdef void _pair(self, int t, int f1, int f2) noexcept nogil
    cdef void _two_by_two(self, int t, int f1, int f2, double* stored, double* M1, double* M2) noexcept nogil
    cdef void _roots(self, int f_root, int f_child, double* dense, bint transposed,
                     double* marg_root, double* marg_child, double* total) noexcept nogil
