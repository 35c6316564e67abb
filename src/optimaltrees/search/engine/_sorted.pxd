# cython: language_level=3
"""The sorted-order layout: any numeric data, as every feature's stable
sorted order of (instance, value rank, label).  A split is a stable
partition and a threshold a position in a sorted order; the depth-two
solver (D2Split) scores both children of a split in one scan.  Rows may
carry weights: then class counts are sums of weights, and the depth-two
scan and ConTree's neighbourhood bounds measure distance in weight."""
from libc.stdint cimport int32_t, uint8_t, uint16_t, uint64_t
from libcpp.vector cimport vector

from optimaltrees.search.engine._layout_base cimport DataLayout
from optimaltrees.search.engine._common cimport Cand, Elem, Node, Split1
from optimaltrees.search.engine._histogram cimport HistScan

cimport cython


cdef struct SweepCell:                     # one segment-tree node of a depth-two sweep, over f2's ranks
    int32_t sum_l, min_l, max_l            # left child's rows (+1 class 0, -1 class 1): their sum, least and largest prefix sum
    int32_t sum_r, min_r, max_r            # the same over the right child's rows


cdef struct PairAnswer:                    # one child's depth-two optimum, solved with its sibling
    uint64_t h1, h2                        # the child's set hashes ...
    int size                               # ... and size (-1: no answer held)
    bint found                             # a root split beats the child's leaf ...
    Split1 root                            # ... this one (root.val: its objective) ...
    Split1 sides[2]                        # ... with these depth-one children


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
    cdef bint hist_ready                   # every feature has few ranks: depth-two nodes may use histograms
    cdef int hist_bins                     # histogram bins: the features' rank counts summed
    cdef vector[int32_t] rank_offset       # [f]: feature f's first bin; [p]: hist_bins
    cdef vector[uint16_t] row_rank         # [instance * p + f]: the instance's rank on feature f (histograms only)
    cdef vector[int32_t] hist_left         # [bin * K + class]: the rows left of the root threshold
    cdef vector[int32_t] hist_total        # [bin * K + class]: the node's rows
    cdef vector[int32_t] hist_scratch      # 6 x K class counts: left and right child, a prefix; a sibling's
    # both children of a depth-three split solved from one walk of the smaller
    # (``pair_children``): the other's histograms are its parent's less the walked one's
    cdef size_t snap_cells                 # cells of the parent's prefix snapshots (0: not allowed)
    cdef vector[int32_t] snap              # [(offset[f] + b) * bins * K + cell]: the parent's rows of f-rank <= b
    cdef vector[int32_t] snap_total        # [bin * K + class]: the parent's rows
    cdef uint64_t snap_h1, snap_h2         # the parent the snapshots hold ...
    cdef int snap_size                     # ... (its size; -1: none)
    cdef uint64_t seen_h1, seen_h2         # the parent of the last request (snapshots are built on its second) ...
    cdef int seen_size                     # ... (its size; -1: none)
    cdef vector[int32_t] hist_other        # the unwalked child's prefix and total histograms
    cdef PairAnswer pair[2]                # both children's answers, until solve_exact takes them
    cdef public long long n_pairs          # depth-three splits whose children were solved as a pair
    # a depth-two node's root feature swept whole (``sweep_start``): every
    # threshold's depth-one children from one segment tree per f2
    cdef bint sweep_allowed                # two classes, unweighted rows, and the buffers fit the memory limit
    cdef size_t sweep_bytes                # what the sweep's buffers take (counted from reserve_sweep on)
    cdef vector[SweepCell] sweep_tree      # [1 .. leaves): the segment tree of one f2 above its leaves (f2's ranks in the node)
    cdef vector[int32_t] sweep_sums        # [2 * leaf + side]: the leaves' sums (side 0: the left child's rows, 1: the right's)
    cdef vector[int32_t] sweep_leaf        # [instance]: the instance's leaf in the tree (f2's rank among the node's)
    cdef vector[int32_t] sweep_best        # [2 * (w - i) + side]: the fewest errors of a depth-one split of that child
    cdef vector[int32_t] sweep_ones        # [w - i]: class-1 rows left of threshold w
    cdef public long long n_sweeps         # depth-two features swept whole
    # a depth-two node's side maps (unweighted rows, up to 16 classes): its rows'
    # sides, labels and changes of value in every feature's order as bit maps,
    # kept from one D2Split call to the next, so a call moves the rows between
    # its threshold and the last one instead of rebuilding every map
    cdef bint maps_allowed                 # unweighted rows, up to 16 classes, and the maps fit the memory limit
    cdef size_t maps_bytes                 # what the maps take (counted from reserve_side_maps on)
    cdef vector[int32_t] map_at            # [instance * p + f2]: the row's position in f2's order within the mapped node
    cdef vector[uint64_t] map_side         # [f2 * map_words + w]: rows left of the mapped threshold, in f2's order
    cdef vector[uint64_t] map_label        # [f2 * map_words + w]: rows of class 1, in f2's order (two classes);
                                           # [(f2 * K + class) * map_words + w]: of each class (three to 16)
    cdef vector[int32_t] map_counts        # scratch: the class counts of a scan's two children
    cdef vector[uint64_t] map_change       # [f2 * map_words + w]: rows whose f2 value differs from the row before
    cdef int map_words                     # words per feature of the mapped node
    cdef Elem* map_elems                   # the node the maps are for (its orders) ...
    cdef int map_size                      # ... its rows ...
    cdef long long map_epoch               # ... and the rows' epoch when they were seen (see elems_epoch)
    cdef int map_calls                     # D2Split calls on that node so far
    cdef bint map_built                    # the label and change maps and map_at hold that node
    cdef int map_f1, map_pos               # the threshold map_side holds (map_f1 -1: none)
    cdef vector[int32_t] map_seq           # [k * p + f2]: map_at of the k-th row in map_f1's order (large data only)
    cdef bint map_seq_ok                   # map_seq holds the mapped node's rows in map_f1's order
    cdef long long map_f1_moves            # rows moved since map_f1 became the mapped feature
    cdef public long long n_map_gathers    # times map_seq was filled
    cdef long long elems_epoch             # counts rewrites of the child buffers (a node at the same address may differ)
    cdef public long long n_map_moves      # rows moved between thresholds in the side maps
    # the similarity bound (as the bitset layout's): opt(S) >= lb(S') - |S' \ S|
    # for recently solved sets S' of the same depth, here kept as row bitmaps
    cdef int sim_words                     # 64-bit words of one row bitmap
    cdef int sim_capacity                  # sets remembered per depth (0: the bound is off)
    cdef vector[vector[uint64_t]] sim_masks   # per depth: the remembered sets (a ring of bitmaps) ...
    cdef vector[vector[double]] sim_lbs       # ... their proven lower bounds ...
    cdef vector[int] sim_used              # ... how many are held ...
    cdef vector[int] sim_next              # ... and the slot to fill next
    cdef vector[uint64_t] sim_cur          # the node being checked, as a bitmap
    # the engine's tuning (``options.EngineOptions``: each rule and why)
    cdef double opt_hist_scans             # histograms below this many scans' cost (histogram_scans)
    cdef int opt_hist_min_rows             # ... on nodes of at least this many rows (histogram_min_rows)
    cdef int opt_pairs                     # children solved as a pair: 0 auto, 1 always, 2 never (pairs)
    cdef double opt_sweep_after            # sweep after this many steps x log2(rows) (sweep_after)
    cdef int opt_sim_min_rows              # least node size the similarity bound checks (similarity_min_rows)
    cdef float opt_switchy                 # side-switch share above which scans use masks (scan_switch_rate)
    cdef int opt_maps_after                # side maps built on this depth-two call (maps_after)
    cdef long long opt_gather_entries      # rows x features from which moves gather positions (gather_entries)
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
    cdef void _init_histograms(self, int32_t[:, ::1] rank, int max_depth)
    cdef bint solves_whole(self, Node* node, int depth) noexcept nogil
    cdef bint solve_exact(self, Node* node, int depth, double* best_val, Split1* root,
                          Split1* sides) noexcept nogil
    cdef bint _hist_d2(self, Node* node, double* best_val, Split1* root, Split1* sides) noexcept nogil
    cdef bint pair_children(self, int level, Node* parent, int f, int pos, Node* out) noexcept nogil
    cdef void _split_small(self, int level, Node* parent, int f, int pos, int w, Node* out) noexcept nogil
    cdef bint _build_snapshots(self, Node* parent) noexcept nogil
    cdef bint _pair_walk(self, Node* walked, Node* other, HistScan* st_w, HistScan* st_o) noexcept nogil
    cdef int _take_pair(self, Node* node, double* best_val, Split1* root, Split1* sides) noexcept nogil
    cdef int _next_rank_other(self, int f, int b, Elem* walked, int k, int n_walked) noexcept nogil
    cdef void children_depth_one(self, int level, Node* node, int f, int pos, int ml,
                                 Split1* left, Split1* right) noexcept nogil
    cdef bint similarity_prune(self, Node* node, int depth, double ub, double* known_lb) noexcept nogil
    cdef void remember(self, Node* node, int depth, double lb) noexcept nogil
    cdef void hint_sibling(self, Node* parent, int depth, Node* second, Node* first) noexcept nogil
    cdef void clear_hint(self) noexcept nogil
    cdef bint _archived(self, Node* node, int depth) noexcept nogil
    cdef void _bitmap(self, Node* node, uint64_t* out) noexcept nogil
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
    cdef bint _use_maps(self, Elem* data, int nn) noexcept nogil
    cdef void _build_maps(self, Elem* data, int nn) noexcept nogil
    cdef void _move_sides(self, Elem* data, int nn, int f1, int pos) noexcept nogil
    cdef void _d2_scan_wide(self, Elem* arr, int nn, int f2, int* ntot, int32_t* fq, int32_t* cc,
                            int* target, int* skip, Split1** out, int ml) noexcept nogil
