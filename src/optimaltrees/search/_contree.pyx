# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Compiled ConTree search: DP over (instance set, depth) with branch-and-bound
over thresholds (Brita, van der Linden, Demirovic, AAAI 2025).

The search sees data only as per-feature sorted orders of (instance id,
global unique-value rank, label), so a split is a stable partition and a
threshold is a position in a sorted order; float thresholds are produced
only when the tree is exported.  Objective values are doubles because the
per-node complexity cost may be fractional; all comparisons use ``EPS``.

Invariant of :meth:`Engine._solve` (see the implementation notes §4.4): the
returned ``lb`` is always a valid lower bound on the subproblem's optimum,
and ``tree``/``val`` is always a real tree and its exact objective.  A bound
that cut the search never masquerades as a score.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memset
from libc.math cimport ceil, floor, INFINITY
from libcpp.vector cimport vector
from libcpp.unordered_map cimport unordered_map
from libcpp.algorithm cimport sort as cpp_sort
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from cython.operator cimport dereference as cython_deref

import threading

import numpy as np
from cpython.exc cimport PyErr_Clear

cdef extern from "Python.h":
    # declared without Cython's "except -1" so the pending KeyboardInterrupt
    # can be read and cleared here instead of unwinding through nogil code
    int check_signals_raw "PyErr_CheckSignals" ()

cdef extern from *:
    """
    #include <atomic>
    #include <cmath>
    // State shared by the engines that split the root's features between threads:
    // the best objective any of them has found, and the next root feature to claim.
    struct RootShare {
        std::atomic<double> ub;
        std::atomic<int> next_feature;
        std::atomic<bool> stop;
        RootShare() : ub(INFINITY), next_feature(0), stop(false) {}
    };
    static inline bool share_stopped(RootShare* s) { return s->stop.load(std::memory_order_relaxed); }
    static inline void share_stop(RootShare* s) { s->stop.store(true); }
    static inline double share_ub(RootShare* s) { return s->ub.load(std::memory_order_relaxed); }
    static inline void share_offer(RootShare* s, double v) {
        double cur = s->ub.load(std::memory_order_relaxed);
        while (v < cur && !s->ub.compare_exchange_weak(cur, v)) {}
    }
    static inline int share_claim(RootShare* s) { return s->next_feature.fetch_add(1); }
    static inline int popcount64(unsigned long long w) { return __builtin_popcountll(w); }
    """
    cppclass RootShare:
        RootShare() except +
    double share_ub(RootShare* s) noexcept nogil
    void share_offer(RootShare* s, double v) noexcept nogil
    int share_claim(RootShare* s) noexcept nogil
    bint share_stopped(RootShare* s) noexcept nogil
    void share_stop(RootShare* s) noexcept nogil
    int popcount64(uint64_t w) noexcept nogil


cdef class SharedRoot:
    """Lets several engines (one per thread) search disjoint root features of
    the same problem while pruning against each other's best tree."""
    cdef RootShare* share

    def __cinit__(self):
        self.share = new RootShare()

    def __dealloc__(self):
        del self.share

    def stop(self):
        """Ask every engine sharing this root to return its best tree now."""
        share_stop(self.share)


cdef double EPS = 1e-9

# Search rules: how a strategy restricts the splits a node may try in one
# restart (the CA-DL8.5 "rule"; Blossom's greedy-above-height phases).
# RULE_NONE is the exhaustive ConTree search.
cdef enum:
    RULE_NONE = 0
    RULE_HEIGHT = 1          # nodes more than budget+1 levels above the leaves: first split only
    RULE_PURITY = 2          # a node whose purity reaches `budget` is not expanded
    RULE_GAIN = 3            # cumulative Gini-gain gap along the path <= budget
    RULE_DISCREPANCY = 4     # cumulative candidate rank along the path <= budget
    RULE_TOPK = 5            # the first budget+1 candidates of every node
    RULE_TOPK_STAR = 6       # ... halved at each level (at least one)

RULES = {"exhaustive": RULE_NONE, "blossom": RULE_HEIGHT, "purity": RULE_PURITY,
         "gain": RULE_GAIN, "discrepancy": RULE_DISCREPANCY, "top-k": RULE_TOPK,
         "top-k*": RULE_TOPK_STAR}

# A node's rule state (the path's spent budget) is FREE when the rule can no
# longer cut anything below it: the node and its subtree search exhaustively.
cdef double FREE = -1.0
cdef int ARCHIVE = 4             # solved sets remembered per depth for the similarity bound
cdef int NEVER = 0x7fffffff       # a D2Split scan position that is never reached
cdef int32_t LEAF = 0          # pool index of the shared leaf node
cdef size_t CACHE_ENTRY_BYTES = 64   # one cache entry's hash node: key, Entry, next pointer, allocator overhead
cdef int WIDE_CLASSES = 32     # above this many classes D2Split keeps class maxima incrementally

cdef struct Elem:
    int32_t id
    int32_t rank
    int32_t label

cdef struct TNode:
    int32_t feature            # -1 for a leaf
    int32_t lo                 # largest rank sent left
    int32_t hi                 # smallest rank sent right
    int32_t left
    int32_t right

cdef struct Result:
    double lb                  # valid lower bound on the optimum
    double val                 # objective of ``tree``
    int32_t tree               # pool index, or -1 when the subproblem was skipped

cdef struct Interval:
    int i, j                   # inclusive range of threshold indices
    int u, v                   # nearest evaluated thresholds outside, -1 if none
    double u_left, u_total     # lower bounds of u's left child and of u
    double v_right, v_total

cdef struct Entry:
    uint64_t h2
    int32_t size
    double lb
    double val
    int32_t tree

cdef struct Node:
    # One subproblem's instance set, in one of two layouts: every feature's
    # sorted order (any data), or a bitset over the instances when every
    # feature is binary.  The search itself never looks inside.
    Elem* elems                # sorted layout: p orders of `size` elements
    uint64_t* mask             # bitset layout: instance i is in the set iff bit i is
    int size
    int32_t* counts            # class counts
    uint64_t h1                # set hashes: the cache key
    uint64_t h2

cdef struct Cand:              # one candidate split of a node, for the rule strategies
    double score               # weighted Gini impurity of the two children (lower = better)
    int32_t f
    int32_t pos                # left child's size
    int32_t lo                 # largest rank sent left
    int32_t hi                 # smallest rank sent right

cdef struct Split1:            # best depth-1 subtree of one child in D2Split
    double val
    int32_t feature
    int32_t lo
    int32_t hi


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef class Engine:
    """One search over one encoded data set.

    Construct with the per-feature sorted orders, then call :meth:`solve`.
    Buffers are sized once: two child buffers per recursion level, so the
    search allocates nothing while it runs.
    """

    cdef int n, p, K, max_depth, min_leaf
    cdef double cost                       # cost of one branching node (absolute)
    cdef double gap                        # absolute allowed gap at the root
    cdef bint prune                        # similarity-bound pruning is sound
    cdef bint binary                       # every feature has at most two values
    cdef int words                         # bitset layout: 64-bit words per instance set
    cdef vector[uint64_t] feature_bits     # [f * words]: instances at feature f's high value
    cdef vector[uint64_t] class_bits       # [c * words]: instances of class c
    cdef vector[uint64_t] root_mask
    cdef vector[vector[uint64_t]] child_masks   # per level: left child's mask, then the right's
    cdef vector[uint64_t] masked           # depth-two scratch: node & feature, compacted words
    cdef vector[vector[uint64_t]] archive_masks   # per depth: recently solved sets ...
    cdef vector[vector[double]] archive_lbs       # ... and their lower bounds
    cdef vector[int] archive_used, archive_next
    cdef vector[int32_t] single_counts     # [f * K + c]: class c with feature f at its high value
    cdef vector[int32_t] pair_counts       # [(i * p + j) * K + c]: ... with both i and j high
    # MurTree's sibling trick: a depth-three node's own counts, so that the second
    # child of each of its splits gets its counts as parent minus first child
    cdef vector[int32_t] parent_single, parent_pair
    cdef uint64_t parent_h1, parent_h2       # whose counts parent_* hold (0, 0: none)
    cdef uint64_t counted_h1, counted_h2     # whose counts single/pair_counts hold
    cdef uint64_t hint_h1, hint_h2           # the second child about to be solved ...
    cdef uint64_t hint_sib1, hint_sib2       # ... its sibling ...
    cdef Node* hint_parent                   # ... and their parent
    cdef public long long n_derived_counts
    cdef vector[Elem] root
    cdef vector[int32_t] root_counts
    cdef vector[vector[Elem]] children    # per level: left child's orders, then the right's
    cdef vector[vector[int32_t]] cnt_left, cnt_right
    cdef vector[vector[int32_t]] positions # candidate split positions per level
    cdef vector[vector[Interval]] queues
    cdef vector[vector[int32_t]] feature_orders   # per level: features by best Gini split
    cdef vector[double] gini_scores
    cdef vector[vector[int32_t]] gini_positions   # per level: best Gini split (left size) per feature
    cdef vector[uint8_t] flag
    cdef vector[uint64_t] rnd1, rnd2
    cdef uint64_t depth_mix[64]
    cdef vector[int32_t] fql, cl             # D2Split scratch, two children x K
    cdef vector[int32_t] class_hist          # D2Split scratch with many classes: two sides x (n + 1) counts
    cdef vector[TNode] pool
    cdef unordered_map[uint64_t, Entry] cache
    cdef size_t max_entries                  # cache entries allowed now (the budget less everything else)
    cdef size_t memory_budget                # memory_limit in bytes; SIZE_MAX without a limit
    cdef public bint memory_out              # the node pool outgrew the budget: the search stopped
    cdef double next_memory_check
    cdef double t_start, t_limit
    cdef bint aborted
    cdef public bint interrupted
    cdef bint poll_signals
    cdef double next_poll
    cdef double root_lb
    cdef public long long n_subproblems, n_d2, n_cache_hits, n_similarity_prunes
    cdef int rule                            # RULE_*: the strategy's restriction this restart
    cdef double budget                       # the rule's parameter this restart
    cdef int rule_from_depth                 # shallower nodes are exact (depth-one/two solvers)
    cdef vector[vector[Cand]] cands          # per level: candidate splits in rank order
    cdef vector[Cand] cand_scratch
    cdef vector[int32_t] cand_start, cand_feature_order
    cdef public long long n_rule_cuts        # candidates (or nodes) a rule kept out this restart
    cdef public double min_cut_gap           # gain rule: smallest path gap that was cut
    cdef double best_root_val                # best objective at the root this solve
    cdef int32_t best_root_tree
    cdef bint has_hook
    cdef object hook                         # hook(objective or None, tree) -> False to stop
    cdef object hook_error
    cdef double hook_every, next_hook
    cdef public bint stopped_by_hook
    cdef SharedRoot shared_owner
    cdef RootShare* shared                   # NULL when this engine searches alone

    def __init__(self, int32_t[:, ::1] order, int32_t[:, ::1] rank, int32_t[::1] y,
                 int n_classes, int max_depth, double cost=0.0, double gap=0.0,
                 int min_leaf=1, double memory_limit_mb=-1.0, seed=0):
        """order[f, k]: id of the k-th instance sorted by feature f (stable);
        rank[f, i]: unique-value rank of instance i on feature f; y: labels 0..K-1."""
        cdef int f, k, i, lvl
        cdef Elem e
        self.p = order.shape[0]
        self.n = order.shape[1]
        self.K = n_classes
        self.max_depth = max_depth
        self.cost = cost
        self.gap = gap
        self.min_leaf = min_leaf
        self.prune = min_leaf <= 1
        self.binary = max_depth >= 2 and bool(np.all(np.asarray(rank) <= 1))
        if self.binary:
            self._init_bitsets(rank, y, max(max_depth, 1) + 1)
        self.root.resize(<size_t>self.n * self.p)
        for f in range(self.p):
            for k in range(self.n):
                i = order[f, k]
                e.id = i
                e.rank = rank[f, i]
                e.label = y[i]
                self.root[<size_t>f * self.n + k] = e
        self.root_counts.assign(self.K, 0)
        for i in range(self.n):
            self.root_counts[y[i]] += 1
        levels = max(max_depth, 1) + 1
        self.children.resize(levels)
        self.cnt_left.resize(levels)
        self.cnt_right.resize(levels)
        self.positions.resize(levels)
        self.queues.resize(levels)
        for lvl in range(levels):
            # only nodes with >= 3 levels left partition (depth-2 nodes use D2Split),
            # and the bitset layout partitions masks instead
            if lvl <= max_depth - 3 and not self.binary:
                self.children[lvl].resize(<size_t>self.n * self.p)
            self.cnt_left[lvl].resize(self.K)
            self.cnt_right[lvl].resize(self.K)
            self.positions[lvl].resize(self.n + 1)
        self.feature_orders.resize(levels)
        for lvl in range(levels):
            self.feature_orders[lvl].resize(self.p)
        self.gini_scores.resize(self.p)
        self.gini_positions.resize(levels)
        for lvl in range(levels):
            self.gini_positions[lvl].resize(self.p)
        self.flag.resize(self.n)
        rng = np.random.default_rng(seed)
        cdef int64_t[:, ::1] r = rng.integers(0, 2**63 - 1, size=(2, self.n + 64), dtype=np.int64)
        self.rnd1.resize(self.n)
        self.rnd2.resize(self.n)
        for i in range(self.n):
            self.rnd1[i] = <uint64_t>r[0, i] * 2 + 1
            self.rnd2[i] = <uint64_t>r[1, i]
        for i in range(64):
            self.depth_mix[i] = <uint64_t>r[0, self.n + i] * 2654435761u
        self.fql.resize(2 * self.K)
        self.cl.resize(2 * self.K)
        if self.K > WIDE_CLASSES:
            self.class_hist.resize(2 * (<size_t>self.n + 1))
        self.pool.resize(1)
        self.pool[0].feature = -1
        self.pool[0].left = -1
        self.pool[0].right = -1
        self.memory_out = False
        if memory_limit_mb is None or memory_limit_mb <= 0:
            self.memory_budget = <size_t>-1
        else:
            self.memory_budget = <size_t>(memory_limit_mb * 1048576.0)
        self.n_subproblems = 0
        self.n_d2 = 0
        self.n_cache_hits = 0
        self.n_similarity_prunes = 0
        self.n_derived_counts = 0
        self.parent_h1 = 0
        self.parent_h2 = 0
        self.counted_h1 = 0
        self.counted_h2 = 0
        self.hint_parent = NULL
        self.shared_owner = None
        self.shared = NULL
        self.rule = RULE_NONE
        self.budget = 0.0
        # the binary layout solves depth-two nodes exactly by counting, so rules
        # start one level higher there; D2Split solves depth-one children exactly
        self.rule_from_depth = 3 if self.binary else 2
        self.cands.resize(levels)
        self.cand_start.resize(self.p + 1)
        self.cand_feature_order.resize(self.p)
        self.n_rule_cuts = 0
        self.min_cut_gap = INFINITY
        self.has_hook = False
        self.hook = None
        self.hook_error = None
        self.hook_every = 0.5
        self.stopped_by_hook = False
        self._update_cache_room()

    @property
    def memory_bytes(self):
        """Bytes this engine holds now: buffers, node pool and cache (what
        ``memory_limit`` bounds)."""
        return self._memory_bytes()

    cdef size_t _memory_bytes(self) noexcept nogil:
        """Capacities of every buffer, the node pool, and the cache at
        CACHE_ENTRY_BYTES per entry (hash node plus its bucket)."""
        cdef size_t b = 0, lvl
        b += (self.feature_bits.capacity() + self.class_bits.capacity() + self.root_mask.capacity()
              + self.masked.capacity() + self.rnd1.capacity() + self.rnd2.capacity()) * sizeof(uint64_t)
        b += (self.archive_used.capacity() + self.archive_next.capacity()) * sizeof(int)
        b += (self.single_counts.capacity() + self.pair_counts.capacity() + self.parent_single.capacity()
              + self.parent_pair.capacity() + self.root_counts.capacity() + self.fql.capacity()
              + self.cl.capacity() + self.class_hist.capacity() + self.cand_start.capacity()
              + self.cand_feature_order.capacity()) * sizeof(int32_t)
        b += self.root.capacity() * sizeof(Elem) + self.gini_scores.capacity() * sizeof(double)
        b += self.flag.capacity() + self.cand_scratch.capacity() * sizeof(Cand)
        b += self.pool.capacity() * sizeof(TNode)
        for lvl in range(self.child_masks.size()):
            b += self.child_masks[lvl].capacity() * sizeof(uint64_t)
        for lvl in range(self.archive_masks.size()):
            b += self.archive_masks[lvl].capacity() * sizeof(uint64_t)
        for lvl in range(self.archive_lbs.size()):
            b += self.archive_lbs[lvl].capacity() * sizeof(double)
        for lvl in range(self.children.size()):
            b += self.children[lvl].capacity() * sizeof(Elem)
            b += (self.cnt_left[lvl].capacity() + self.cnt_right[lvl].capacity()
                  + self.positions[lvl].capacity() + self.feature_orders[lvl].capacity()
                  + self.gini_positions[lvl].capacity()) * sizeof(int32_t)
            b += self.queues[lvl].capacity() * sizeof(Interval)
        for lvl in range(self.cands.size()):
            b += self.cands[lvl].capacity() * sizeof(Cand)
        b += self.cache.size() * CACHE_ENTRY_BYTES + self.cache.bucket_count() * sizeof(void*)
        return b

    cdef void _update_cache_room(self) noexcept nogil:
        """Share the memory budget: the cache may grow while more than a
        quarter of the budget is free (that quarter is kept for the node pool,
        which grows with every better subtree and cannot be evicted); once the
        total reaches the budget the search stops and keeps its best tree."""
        cdef size_t used, free, reserve
        if self.memory_budget == <size_t>-1:
            self.max_entries = <size_t>-1
            return
        used = self._memory_bytes()
        if used >= self.memory_budget:
            self.max_entries = 0
            self.memory_out = True
            self.aborted = True
            return
        free = self.memory_budget - used
        reserve = self.memory_budget // 4
        # the bucket array grows with the entries: count a share of it per entry
        self.max_entries = self.cache.size() + (
            (free - reserve) // (CACHE_ENTRY_BYTES + 2 * sizeof(void*)) if free > reserve else 0)

    cdef void _init_bitsets(self, int32_t[:, ::1] rank, int32_t[::1] y, int levels):
        cdef int f, i, lvl, W
        W = (self.n + 63) >> 6
        self.words = W
        self.feature_bits.assign(<size_t>self.p * W, 0)
        self.class_bits.assign(<size_t>self.K * W, 0)
        self.root_mask.assign(W, 0)
        for i in range(self.n):
            self.root_mask[i >> 6] |= (<uint64_t>1) << (i & 63)
            self.class_bits[<size_t>y[i] * W + (i >> 6)] |= (<uint64_t>1) << (i & 63)
            for f in range(self.p):
                if rank[f, i] == 1:
                    self.feature_bits[<size_t>f * W + (i >> 6)] |= (<uint64_t>1) << (i & 63)
        self.child_masks.resize(levels)
        for lvl in range(levels):
            self.child_masks[lvl].resize(2 * <size_t>W)
        self.masked.resize(<size_t>(self.p + self.K) * W)
        self.single_counts.resize(<size_t>self.p * self.K)
        self.pair_counts.resize(<size_t>self.p * self.p * self.K)
        self.parent_single.resize(<size_t>self.p * self.K)
        self.parent_pair.resize(<size_t>self.p * self.p * self.K)
        self.archive_masks.resize(levels + 1)
        self.archive_lbs.resize(levels + 1)
        self.archive_used.assign(levels + 1, 0)
        self.archive_next.assign(levels + 1, 0)
        for lvl in range(levels + 1):
            self.archive_masks[lvl].resize(<size_t>ARCHIVE * W)
            self.archive_lbs[lvl].resize(ARCHIVE)

    def share_root_with(self, SharedRoot shared):
        """Claim root features from ``shared`` instead of searching them all."""
        self.shared_owner = shared
        self.shared = shared.share

    def set_rule(self, int rule, double budget):
        """Restrict the next solve by a strategy's rule (RULES) at this budget.

        The cache carries over between solves: a result proven under any rule
        is exact, and every stored lower bound stays valid, so each restart
        resumes from what earlier ones proved."""
        if rule < RULE_NONE or rule > RULE_TOPK_STAR:
            raise ValueError(f"unknown rule {rule}")
        self.rule = rule
        self.budget = budget
        if self.binary:
            # the greedy restart (budget 0) must give a tree at once: its
            # depth-two nodes take the rule's first split, not the counting
            # solver (O(p^2) pairs per node); later restarts count exactly
            self.rule_from_depth = 2 if (rule != RULE_NONE and budget == 0.0) else 3

    def set_hook(self, hook, double every=0.5):
        """Call ``hook(objective, tree)`` when the root's best tree improves and
        ``hook(None, -1)`` every ``every`` seconds; a False return stops the search."""
        self.hook = hook
        self.has_hook = hook is not None
        self.hook_every = every

    def solve(self, double time_limit=-1.0, double root_lower_bound=0.0,
              double upper_bound=INFINITY):
        """Run the search; returns (objective, lower_bound, root, timed_out).

        ``root_lower_bound`` is a bound the caller already knows (e.g. from
        duplicate rows with conflicting labels); it tightens the root's bound
        and stops the search as soon as a tree meets it.  Only trees better
        than ``upper_bound`` are sought (a restart's incumbent); when none is
        found the returned objective may be worse than it."""
        cdef Result res
        cdef Split1 best
        cdef Node root
        cdef int i
        cdef double spent = FREE if self.rule == RULE_NONE else 0.0
        self.t_start = now()
        self.t_limit = time_limit if time_limit > 0 else INFINITY
        self.aborted = False
        self.interrupted = False
        self.stopped_by_hook = False
        self.hook_error = None
        self.poll_signals = threading.current_thread() is threading.main_thread()
        self.next_poll = self.t_start + 0.1
        self.next_memory_check = self.t_start
        self.memory_out = False
        self.next_hook = self.t_start + self.hook_every
        self.root_lb = root_lower_bound
        self.best_root_val = upper_bound
        self.best_root_tree = -1
        self.n_rule_cuts = 0
        self.min_cut_gap = INFINITY
        with nogil:
            if self.max_depth >= 2:
                root.elems = &self.root[0]
                root.mask = NULL
                root.size = self.n
                root.counts = &self.root_counts[0]
                root.h1 = 0
                root.h2 = 0
                if self.binary:
                    root.elems = NULL
                    root.mask = &self.root_mask[0]
                    self._mask_hash(root.mask, &root.h1, &root.h2)
                else:
                    for i in range(self.n):
                        root.h1 += self.rnd1[i]
                        root.h2 ^= self.rnd2[i]
                res = self._solve(0, &root, self.max_depth, upper_bound, self.gap, spent)
            elif self.max_depth == 1:
                self._depth_one(&self.root[0], self.n, &self.root_counts[0], &best)
                res.val = best.val
                res.lb = best.val
                res.tree = self._make_stump(&best)
            else:
                res.val = self._leaf_error(&self.root_counts[0], self.n)
                res.lb = res.val
                res.tree = LEAF
        if self.hook_error is not None:
            err, self.hook_error = self.hook_error, None
            raise err
        return res.val, res.lb, res.tree, bool(self.aborted)

    cdef void _root_improved(self, double val, int32_t tree) noexcept nogil:
        """A better tree at the root: remember it and tell the hook at once
        (the anytime trace), so a stop keeps it even mid-restart."""
        if val < self.best_root_val - EPS:
            self.best_root_val = val
            self.best_root_tree = tree
            if self.has_hook:
                with gil:
                    self._call_hook(val, tree)

    cdef void _call_hook(self, object val, int32_t tree):
        try:
            keep_going = self.hook(val, tree)
        except KeyboardInterrupt:      # Ctrl-C while the hook ran: as when polled
            self.interrupted = True
            self.aborted = True
            return
        except BaseException as exc:   # re-raised by solve() once the search unwinds
            self.hook_error = exc
            self.aborted = True
            return
        if keep_going is False:
            self.stopped_by_hook = True
            self.aborted = True

    @property
    def best_root(self):
        """(objective, tree) of the best root tree found by the last solve, tree -1 if none."""
        return self.best_root_val, self.best_root_tree

    def tree_arrays(self):
        """The node pool as numpy arrays (feature, lo, hi, left, right)."""
        cdef size_t m = self.pool.size(), k
        out = np.empty((5, m), dtype=np.int32)
        cdef int32_t[:, ::1] o = out
        for k in range(m):
            o[0, k] = self.pool[k].feature
            o[1, k] = self.pool[k].lo
            o[2, k] = self.pool[k].hi
            o[3, k] = self.pool[k].left
            o[4, k] = self.pool[k].right
        return out

    @property
    def cache_entries(self):
        return self.cache.size()

    # ------------------------------------------------------------------ helpers

    cdef inline double _leaf_error(self, int32_t* counts, int nn) noexcept nogil:
        cdef int c, best = 0
        for c in range(self.K):
            if counts[c] > best:
                best = counts[c]
        return nn - best

    cdef inline bint _timed_out(self) noexcept nogil:
        """True once the search must stop: time limit, a stop request from a
        sibling thread's caller, or Ctrl-C (polled every 0.1 s when solving
        on the main thread)."""
        cdef double t
        if self.aborted:
            return True
        t = now()
        if t - self.t_start > self.t_limit:
            self.aborted = True
        elif self.shared != NULL and share_stopped(self.shared):
            self.aborted = True
        elif self.poll_signals and t >= self.next_poll:
            self.next_poll = t + 0.1
            self._poll_signals()
        if t >= self.next_memory_check and not self.aborted:
            self.next_memory_check = t + 0.01
            self._update_cache_room()
        if self.has_hook and t >= self.next_hook and not self.aborted:
            self.next_hook = t + self.hook_every
            with gil:
                self._call_hook(None, -1)
        return self.aborted

    cdef void _poll_signals(self) noexcept nogil:
        with gil:
            if check_signals_raw() != 0:
                # the best tree is kept and returned; the caller reports it
                PyErr_Clear()
                self.interrupted = True
                self.aborted = True

    cdef int32_t _new_node(self, int32_t feature, int32_t lo, int32_t hi,
                           int32_t left, int32_t right) noexcept nogil:
        cdef TNode t
        t.feature = feature
        t.lo = lo
        t.hi = hi
        t.left = left
        t.right = right
        if self.pool.size() == self.pool.capacity():
            self._grow_pool()
        self.pool.push_back(t)
        return <int32_t>(self.pool.size() - 1)

    cdef void _grow_pool(self) noexcept nogil:
        """Grow the node pool by half (not doubling) and, under a memory limit,
        by no more than the budget has free; with nothing free the search
        stops after this node (its best tree is kept)."""
        cdef size_t cap = self.pool.capacity(), grow = cap // 2, used, free_nodes
        if grow < 1024:
            grow = 1024
        if self.memory_budget != <size_t>-1:
            used = self._memory_bytes()
            free_nodes = (self.memory_budget - used) // sizeof(TNode) if used < self.memory_budget else 0
            if free_nodes < grow:
                grow = free_nodes if free_nodes > 64 else 64
                self.memory_out = free_nodes <= 64
                self.aborted = self.aborted or self.memory_out
        self.pool.reserve(cap + grow)

    cdef inline int32_t _make_stump(self, Split1* s) noexcept nogil:
        if s.feature < 0:
            return LEAF
        return self._new_node(s.feature, s.lo, s.hi, LEAF, LEAF)

    # ------------------------------------------------------------ depth one/two

    cdef void _depth_one(self, Elem* data, int nn, int32_t* counts, Split1* out) noexcept nogil:
        """Best depth-1 tree: D2Split with every instance in the left child."""
        cdef Split1 unused
        self._d2(data, nn, 0, nn, counts, out, &unused, self.min_leaf)

    cdef void _d2(self, Elem* data, int nn, int f1, int pos, int32_t* counts,
                  Split1* bl, Split1* br, int ml) noexcept nogil:
        """D2Split (Algorithm 2, with the notes' corrections): the optimal
        depth-1 subtrees of both children of the root split (f1, pos) in one
        scan of every feature.  Multi-class leaf errors, evaluation only where
        the child's value changes, and the similarity skip along the scan.

        State is indexed by side (1 = left child, 0 = right child) so the scan
        has no data-dependent branch except the rare evaluation."""
        cdef int K = self.K
        cdef int32_t* fq = &self.fql[0]        # [side * K + class]: class counts per child
        cdef int32_t* cc = &self.cl[0]         # [side * K + class]: counts passed so far
        cdef uint8_t* flag = &self.flag[0]
        cdef Elem* arr = data + <size_t>f1 * nn
        cdef int k, c, f2, s, suf, cnt_s, best_c, err
        cdef int ntot[2]
        cdef int skip[2]
        cdef int target[2]      # a split must make fewer errors than this to win
        cdef int prefix_err
        cdef int one, rest, n_left, ones_left, ones_all, prev_l, prev_r, skip_l, skip_r, pv
        cdef int start_skip = ml if ml > 1 else 1
        cdef double cost = self.cost, leaf
        cdef Split1* out[2]
        cdef Elem e
        cdef int32_t* fqs
        cdef int32_t* ccs
        self.n_d2 += 1
        out[0] = br
        out[1] = bl
        memset(fq, 0, 2 * K * sizeof(int32_t))
        for k in range(pos):
            flag[arr[k].id] = 1
            fq[K + arr[k].label] += 1
        for k in range(pos, nn):
            flag[arr[k].id] = 0
        for c in range(K):
            fq[c] = counts[c] - fq[K + c]
        ntot[1] = pos
        ntot[0] = nn - pos
        for s in range(2):
            leaf = self._leaf_error(fq + s * K, ntot[s])
            out[s].val = leaf
            out[s].feature = -1
            # errors + cost < leaf  <=>  errors < ceil(leaf - cost): integers from here on
            target[s] = <int>ceil(leaf - cost - EPS)
            if ntot[s] < 2 * ml:
                target[s] = 0
        for f2 in range(self.p):
            if target[0] <= 0 and target[1] <= 0:
                break
            arr = data + <size_t>f2 * nn
            memset(cc, 0, 2 * K * sizeof(int32_t))
            for s in range(2):
                skip[s] = NEVER if target[s] <= 0 else start_skip
            if K == 2:
                # Two classes (most data sets): one running count of label 1
                # replaces the class table, so all state lives in registers and
                # consecutive elements never wait on each other through memory;
                # measured 20-25% faster than the general loop below.
                n_left = 0            # left-child elements passed
                ones_left = 0         # ... of which label 1
                ones_all = 0          # label-1 elements passed, both children
                prev_l = -1
                prev_r = -1
                skip_l = skip[1]
                skip_r = skip[0]
                for k in range(nn):
                    e = arr[k]
                    s = flag[e.id]
                    cnt_s = n_left if s else k - n_left
                    pv = prev_l if s else prev_r
                    if cnt_s >= (skip_l if s else skip_r) and e.rank != pv and ntot[s] - cnt_s >= ml:
                        one = ones_left if s else ones_all - ones_left
                        rest = fq[2 * s + 1] - one
                        prefix_err = one if one < cnt_s - one else cnt_s - one
                        err = prefix_err + \
                              (rest if rest < ntot[s] - cnt_s - rest else ntot[s] - cnt_s - rest)
                        _offer(err, prefix_err, cnt_s, f2, pv, e.rank, &target[s], &skip[s], out[s])
                        skip_l = skip[1]
                        skip_r = skip[0]
                        if skip_l == NEVER and skip_r == NEVER:
                            break
                    prev_l = e.rank if s else prev_l
                    prev_r = prev_r if s else e.rank
                    n_left += s
                    ones_left += s & e.label
                    ones_all += e.label
                continue
            if K > WIDE_CLASSES:
                self._d2_scan_wide(arr, nn, f2, ntot, fq, cc, target, skip, out, ml)
                continue
            # any number of classes: per-class counts in memory, everything
            # else in registers; class maxima only when a position is scored
            n_left = 0
            prev_l = -1
            prev_r = -1
            skip_l = skip[1]
            skip_r = skip[0]
            for k in range(nn):
                e = arr[k]
                s = flag[e.id]
                cnt_s = n_left if s else k - n_left
                pv = prev_l if s else prev_r
                if cnt_s >= (skip_l if s else skip_r) and e.rank != pv and ntot[s] - cnt_s >= ml:
                    fqs = fq + s * K
                    ccs = cc + s * K
                    suf = 0
                    best_c = 0
                    for c in range(K):
                        if fqs[c] - ccs[c] > suf:
                            suf = fqs[c] - ccs[c]
                        if ccs[c] > best_c:
                            best_c = ccs[c]
                    prefix_err = cnt_s - best_c
                    err = prefix_err + (ntot[s] - cnt_s - suf)
                    _offer(err, prefix_err, cnt_s, f2, pv, e.rank, &target[s], &skip[s], out[s])
                    skip_l = skip[1]
                    skip_r = skip[0]
                    if skip_l == NEVER and skip_r == NEVER:
                        break
                prev_l = e.rank if s else prev_l
                prev_r = prev_r if s else e.rank
                n_left += s
                cc[s * K + e.label] += 1
        for s in range(2):
            if out[s].feature >= 0:
                out[s].val = target[s] + cost

    cdef void _d2_scan_wide(self, Elem* arr, int nn, int f2, int* ntot, int32_t* fq, int32_t* cc,
                            int* target, int* skip, Split1** out, int ml) noexcept nogil:
        """D2Split's scan of feature ``f2`` when classes are many: the largest
        class count of each child's prefix and suffix is kept up to date per
        element (the suffix's through a histogram of class counts, whose top
        falls by at most one per step), so a scored position costs O(1)
        instead of O(K).  With K near the number of rows the O(K) scan made
        depth one quadratic (100k classes: 13 s)."""
        cdef int K = self.K, stride = self.n + 1
        cdef int32_t* hist = &self.class_hist[0]     # [side * stride + count]: classes with that suffix count
        cdef int32_t* h
        cdef int top[2]           # largest suffix class count per side
        cdef int best[2]          # largest prefix class count per side
        cdef int s, c, k, v, cnt_s, pv, n_left = 0, prev_l = -1, prev_r = -1, prefix_err, err
        cdef uint8_t* flag = &self.flag[0]
        cdef Elem e
        for s in range(2):
            memset(hist + s * stride, 0, (ntot[s] + 1) * sizeof(int32_t))
            top[s] = 0
            best[s] = 0
        for c in range(K):
            for s in range(2):
                v = fq[s * K + c]
                hist[s * stride + v] += 1
                if v > top[s]:
                    top[s] = v
        for k in range(nn):
            e = arr[k]
            s = flag[e.id]
            cnt_s = n_left if s else k - n_left
            pv = prev_l if s else prev_r
            if cnt_s >= skip[s] and e.rank != pv and ntot[s] - cnt_s >= ml:
                prefix_err = cnt_s - best[s]
                err = prefix_err + (ntot[s] - cnt_s - top[s])
                _offer(err, prefix_err, cnt_s, f2, pv, e.rank, &target[s], &skip[s], out[s])
                if skip[0] == NEVER and skip[1] == NEVER:
                    break
            prev_l = e.rank if s else prev_l
            prev_r = prev_r if s else e.rank
            n_left += s
            # e leaves its side's suffix for the prefix
            c = s * K + e.label
            v = fq[c] - cc[c]
            h = hist + s * stride
            h[v] -= 1
            h[v - 1] += 1
            if v == top[s] and h[v] == 0:
                top[s] = v - 1
            cc[c] += 1
            if cc[c] > best[s]:
                best[s] = cc[c]

    cdef void _pair_counts(self, uint64_t* mask, int32_t* S, int32_t* P) noexcept nogil:
        """Class counts of every feature (S) and feature pair (P) at their high
        values inside ``mask``: popcounts of bitset intersections, O(K p^2 words)."""
        cdef int p = self.p, K = self.K, W = self.words, words = 0, f, i, j, c, w, total, acc
        cdef uint64_t* B = &self.masked[0]
        cdef uint64_t* F = &self.feature_bits[0]
        cdef uint64_t* C = &self.class_bits[0]
        cdef uint64_t* fi
        cdef uint64_t* fj
        # node & feature and node & class, keeping only the words the node occupies
        for w in range(W):
            if mask[w] == 0:
                continue
            for f in range(p):
                B[<size_t>f * W + words] = mask[w] & F[<size_t>f * W + w]
            for c in range(K):
                B[<size_t>(p + c) * W + words] = mask[w] & C[<size_t>c * W + w]
            words += 1
        for i in range(p):
            fi = B + <size_t>i * W
            for c in range(K):
                S[i * K + c] = _popcount_and(fi, B + <size_t>(p + c) * W, words)
            for j in range(i + 1, p):
                fj = B + <size_t>j * W
                acc = 0
                for c in range(K - 1):
                    total = 0
                    for w in range(words):
                        total += popcount64(fi[w] & fj[w] & B[<size_t>(p + c) * W + w])
                    P[(<size_t>i * p + j) * K + c] = total
                    acc += total
                total = 0
                for w in range(words):
                    total += popcount64(fi[w] & fj[w])
                P[(<size_t>i * p + j) * K + K - 1] = total - acc
                for c in range(K):
                    P[(<size_t>j * p + i) * K + c] = P[(<size_t>i * p + j) * K + c]

    cdef void _node_pair_counts(self, Node* node) noexcept nogil:
        """single/pair_counts for ``node``: as its parent's counts minus its
        sibling's when those are at hand (the second child of a depth-three
        split), else by counting."""
        cdef size_t m, k
        cdef int32_t* S = &self.single_counts[0]
        cdef int32_t* P = &self.pair_counts[0]
        cdef int32_t* PS
        cdef int32_t* PP
        cdef Node* parent = self.hint_parent
        if (parent != NULL and node.h1 == self.hint_h1 and node.h2 == self.hint_h2
                and self.counted_h1 == self.hint_sib1 and self.counted_h2 == self.hint_sib2):
            if self.parent_h1 != parent.h1 or self.parent_h2 != parent.h2:
                self._pair_counts(parent.mask, &self.parent_single[0], &self.parent_pair[0])
                self.parent_h1 = parent.h1
                self.parent_h2 = parent.h2
            PS = &self.parent_single[0]
            PP = &self.parent_pair[0]
            m = <size_t>self.p * self.K
            for k in range(m):
                S[k] = PS[k] - S[k]
            m = m * self.p
            for k in range(m):
                P[k] = PP[k] - P[k]
            self.n_derived_counts += 1
        else:
            self._pair_counts(node.mask, S, P)
        self.counted_h1 = node.h1
        self.counted_h2 = node.h2

    cdef inline void _hint_sibling(self, Node* parent, int depth, Node* second, Node* first) noexcept nogil:
        """Tell the counting solver that ``second``'s counts are ``parent``'s
        minus ``first``'s (both children of a depth-three binary split)."""
        if self.binary and depth == 3:
            self.hint_parent = parent
            self.hint_h1 = second.h1
            self.hint_h2 = second.h2
            self.hint_sib1 = first.h1
            self.hint_sib2 = first.h2

    cdef void _binary_depth_two(self, Node* node, double* best_val, int32_t* best_tree) noexcept nogil:
        """Exact depth-two optimum when every feature is binary (MurTree's
        frequency-counting solver): class counts of every feature pair, then
        every depth-two tree scored from counts alone, O(K p^2)."""
        cdef int p = self.p, K = self.K, ml = self.min_leaf, nn = node.size
        cdef int f, i, j, c
        cdef int n_hi, n_lo, root = -1
        cdef int side_best_j[2]
        cdef int root_j[2]
        cdef double cost = self.cost, err, val
        cdef double side_best[2]
        cdef int32_t* counts = node.counts
        cdef int32_t* S = &self.single_counts[0]
        cdef int32_t* P = &self.pair_counts[0]
        self.n_d2 += 1
        self._node_pair_counts(node)
        # score every root feature i with the best depth-one child on each side
        cdef int32_t* Si
        cdef int32_t* Sj
        cdef int32_t* Pij
        cdef int a_sz, b_sz, a_max, b_max, cnt_a, cnt_b, side
        for i in range(p):
            Si = S + i * K
            n_hi = 0
            for c in range(K):
                n_hi += Si[c]
            n_lo = nn - n_hi
            if n_hi < ml or n_lo < ml or n_hi == 0 or n_lo == 0:
                continue
            side_best[0] = n_lo - _max_count_diff(counts, Si, K)       # leaf on x_i = low
            side_best[1] = n_hi - _max_count(Si, K)                     # leaf on x_i = high
            side_best_j[0] = -1
            side_best_j[1] = -1
            for j in range(p):
                if j == i:
                    continue
                Sj = S + j * K
                Pij = P + (<size_t>i * p + j) * K
                for side in range(2):
                    # the child's instances split by x_j: high part and low part
                    a_sz = 0
                    b_sz = 0
                    a_max = 0
                    b_max = 0
                    for c in range(K):
                        if side == 0:
                            cnt_a = Sj[c] - Pij[c]                      # i low, j high
                            cnt_b = counts[c] - Si[c] - cnt_a           # i low, j low
                        else:
                            cnt_a = Pij[c]                              # i high, j high
                            cnt_b = Si[c] - cnt_a                       # i high, j low
                        a_sz += cnt_a
                        b_sz += cnt_b
                        if cnt_a > a_max:
                            a_max = cnt_a
                        if cnt_b > b_max:
                            b_max = cnt_b
                    if a_sz < ml or b_sz < ml or a_sz == 0 or b_sz == 0:
                        continue
                    err = (a_sz - a_max) + (b_sz - b_max) + cost
                    if err < side_best[side] - EPS:
                        side_best[side] = err
                        side_best_j[side] = j
            val = side_best[0] + side_best[1] + cost
            if val < best_val[0] - EPS:
                best_val[0] = val
                root = i
                root_j[0] = side_best_j[0]
                root_j[1] = side_best_j[1]
        if root >= 0:
            best_tree[0] = self._new_node(
                root, 0, 1,
                LEAF if root_j[0] < 0 else self._new_node(root_j[0], 0, 1, LEAF, LEAF),
                LEAF if root_j[1] < 0 else self._new_node(root_j[1], 0, 1, LEAF, LEAF))

    cdef void _binary_depth_one(self, Node* node, double* best_val, int32_t* best_tree) noexcept nogil:
        """Exact depth-one optimum on the bitset layout: one popcount per
        feature and class (only the greedy restart reaches depth one here)."""
        cdef int K = self.K, ml = self.min_leaf, nn = node.size, f, c, n_hi, root = -1
        cdef int32_t* counts = node.counts
        cdef int32_t* cc = &self.cl[0]
        cdef double val
        for f in range(self.p):
            n_hi = 0
            for c in range(K):
                cc[c] = self._mask_count(node.mask, f, c)
                n_hi += cc[c]
            if n_hi < ml or nn - n_hi < ml or n_hi == 0 or n_hi == nn:
                continue
            val = (nn - n_hi - _max_count_diff(counts, cc, K)) + (n_hi - _max_count(cc, K)) + self.cost
            if val < best_val[0] - EPS:
                best_val[0] = val
                root = f
        if root >= 0:
            best_tree[0] = self._new_node(root, 0, 1, LEAF, LEAF)

    cdef void _order_features(self, int level, Node* node, int32_t* order) noexcept nogil:
        """Features sorted by the weighted Gini impurity of their best single
        split, so that good incumbents (and hence tight bounds) come early.
        The best Gini position of each feature is kept: Branch evaluates it first."""
        cdef int K = self.K, f, k, c, a, b, best_pos
        cdef int32_t* gpos = &self.gini_positions[level][0]
        cdef int32_t* cc = &self.cl[0]
        cdef double* score = &self.gini_scores[0]
        cdef double best, sl, sr, g, key
        cdef Elem* arr
        cdef int nn = node.size, n_hi
        cdef int32_t* counts = node.counts
        if self.binary:
            for f in range(self.p):
                # the single threshold: class counts at the high value by popcount
                n_hi = 0
                for c in range(K):
                    cc[c] = self._mask_count(node.mask, f, c)
                    n_hi += cc[c]
                score[f] = INFINITY
                gpos[f] = -1
                if 0 < n_hi < nn:
                    sl = 0.0
                    sr = 0.0
                    for c in range(K):
                        sl += <double>(counts[c] - cc[c]) * (counts[c] - cc[c])
                        sr += <double>cc[c] * cc[c]
                    score[f] = ((nn - n_hi) - sl / (nn - n_hi)) + (n_hi - sr / n_hi)
                    gpos[f] = nn - n_hi
        for f in range(self.p):
            if self.binary:
                break
            arr = node.elems + <size_t>f * nn
            _sum_squares_start(counts, cc, K, &sl, &sr)
            best = INFINITY
            best_pos = -1
            for k in range(nn):
                if k > 0 and arr[k].rank != arr[k - 1].rank:
                    g = (k - sl / k) + ((nn - k) - sr / (nn - k))
                    if g < best:
                        best = g
                        best_pos = k
                _sum_squares_move(counts, cc, arr[k].label, &sl, &sr)
            score[f] = best
            gpos[f] = best_pos
        # insertion sort: p is small and this keeps ties in feature order
        for f in range(self.p):
            order[f] = f
        for a in range(1, self.p):
            b = order[a]
            key = score[b]
            k = a - 1
            while k >= 0 and score[order[k]] > key:
                order[k + 1] = order[k]
                k -= 1
            order[k + 1] = b

    # ---------------------------------------------------------------- partition

    cdef void _partition(self, int level, Node* node, int f, int pos, Node* out) noexcept nogil:
        """Split ``node`` at (f, pos) into out[0] (left) and out[1] (right),
        stored in this level's child buffers."""
        cdef int nn = node.size
        cdef Elem* data = node.elems
        out[0].size = pos
        out[1].size = nn - pos
        out[0].counts = &self.cnt_left[level][0]
        out[1].counts = &self.cnt_right[level][0]
        if self.binary:
            self._partition_mask(level, node, f, out)
            return
        out[0].mask = NULL
        out[1].mask = NULL
        out[0].elems = &self.children[level][0]
        out[1].elems = out[0].elems + <size_t>pos * self.p
        # stable partition of every feature's order; class counts and set
        # hashes come from feature 0
        cdef uint8_t* flag = &self.flag[0]
        cdef Elem* arr = data + <size_t>f * nn
        cdef Elem* dl = &self.children[level][0]
        cdef Elem* dr = dl + <size_t>pos * self.p
        cdef int32_t* cntl = &self.cnt_left[level][0]
        cdef int32_t* cntr = &self.cnt_right[level][0]
        cdef int nl = pos, nr = nn - pos, k, g, a, b
        cdef Elem e
        cdef uint64_t a1 = 0, a2 = 0, b1 = 0, b2 = 0
        for k in range(pos):
            flag[arr[k].id] = 1
        for k in range(pos, nn):
            flag[arr[k].id] = 0
        memset(cntl, 0, self.K * sizeof(int32_t))
        memset(cntr, 0, self.K * sizeof(int32_t))
        arr = data
        a = 0
        b = 0
        for k in range(nn):
            e = arr[k]
            if flag[e.id]:
                dl[a] = e
                a += 1
                cntl[e.label] += 1
                a1 += self.rnd1[e.id]
                a2 ^= self.rnd2[e.id]
            else:
                dr[b] = e
                b += 1
                cntr[e.label] += 1
                b1 += self.rnd1[e.id]
                b2 ^= self.rnd2[e.id]
        for g in range(1, self.p):
            arr = data + <size_t>g * nn
            a = g * nl
            b = g * nr
            for k in range(nn):
                e = arr[k]
                if flag[e.id]:
                    dl[a] = e
                    a += 1
                else:
                    dr[b] = e
                    b += 1
        out[0].h1 = a1
        out[0].h2 = a2
        out[1].h1 = b1
        out[1].h2 = b2

    cdef void _partition_mask(self, int level, Node* node, int f, Node* out) noexcept nogil:
        """Bitset layout: the children are the node's mask with and without feature f."""
        cdef int W = self.words, w, c
        cdef uint64_t* mask = node.mask
        cdef uint64_t* F = &self.feature_bits[<size_t>f * W]
        cdef uint64_t* left = &self.child_masks[level][0]
        cdef uint64_t* right = left + W
        for w in range(W):
            left[w] = mask[w] & ~F[w]
            right[w] = mask[w] & F[w]
        out[0].elems = NULL
        out[1].elems = NULL
        out[0].mask = left
        out[1].mask = right
        for c in range(self.K):
            out[0].counts[c] = _popcount_and(left, &self.class_bits[<size_t>c * W], W)
            out[1].counts[c] = node.counts[c] - out[0].counts[c]
        self._mask_hash(left, &out[0].h1, &out[0].h2)
        self._mask_hash(right, &out[1].h1, &out[1].h2)

    cdef inline void _mask_hash(self, uint64_t* mask, uint64_t* h1, uint64_t* h2) noexcept nogil:
        """Two independent hashes of an instance bitset (the cache key)."""
        cdef uint64_t a = 0, b = 0
        cdef int w
        for w in range(self.words):
            a += _mix64(mask[w] + self.rnd1[w])
            b ^= _mix64(mask[w] ^ self.rnd2[w])
        h1[0] = a
        h2[0] = b

    cdef double _similarity_bound(self, Node* node, int depth) noexcept nogil:
        """max over remembered sets D' of depth ``depth``: lb(D') - |D' minus D|
        (each removed instance lowers the optimum by at most one; added ones
        cannot lower it).  O(words) per remembered set with bitsets."""
        cdef int W = self.words, e, w, removed
        cdef double best = 0.0, bound
        cdef uint64_t* old
        for e in range(self.archive_used[depth]):
            old = &self.archive_masks[depth][<size_t>e * W]
            removed = 0
            for w in range(W):
                removed += popcount64(old[w] & ~node.mask[w])
            bound = self.archive_lbs[depth][e] - removed
            if bound > best:
                best = bound
        return best

    cdef void _remember(self, Node* node, int depth, double lb) noexcept nogil:
        """Keep a solved set for the similarity bound (ring of ARCHIVE sets per depth)."""
        cdef int W = self.words, e = self.archive_next[depth], w
        cdef uint64_t* slot = &self.archive_masks[depth][<size_t>e * W]
        for w in range(W):
            slot[w] = node.mask[w]
        self.archive_lbs[depth][e] = lb
        self.archive_next[depth] = (e + 1) % ARCHIVE
        if self.archive_used[depth] < ARCHIVE:
            self.archive_used[depth] += 1

    cdef inline int _mask_count(self, uint64_t* mask, int f, int c) noexcept nogil:
        """Instances of class c in the set with feature f at its high value."""
        cdef int W = self.words, w, total = 0
        cdef uint64_t* F = &self.feature_bits[<size_t>f * W]
        cdef uint64_t* C = &self.class_bits[<size_t>c * W]
        for w in range(W):
            total += popcount64(mask[w] & F[w] & C[w])
        return total

    # ------------------------------------------------------------------- search

    cdef Result _solve(self, int level, Node* node, int depth, double ub_in, double gap,
                       double spent) noexcept nogil:
        """CT(D, d, UB): best tree of depth <= ``depth`` on this instance set.
        Only trees with objective < ub_in matter to the caller.  ``gap`` is the
        slack this node may leave: a threshold is pruned once it cannot improve
        the incumbent by more than ``gap``.  Only the root gets a slack; its
        subproblems are solved exactly, because a slack below the root weakens
        the lower bounds that prune at the root (and so costs more than it saves).
        ``spent`` is the strategy rule's state on the path here (FREE: no rule).
        """
        cdef Result res
        cdef int nn = node.size
        cdef uint64_t h2 = node.h2
        cdef double leaf = self._leaf_error(node.counts, nn)
        cdef double known_lb, best_val, node_lb
        cdef int32_t best_tree = LEAF
        cdef uint64_t key
        cdef Entry entry
        cdef unordered_map[uint64_t, Entry].iterator it
        cdef bint cached = False
        cdef double sim
        # a split costs at least `cost`: a leaf that good needs no search
        known_lb = leaf if leaf < self.cost else self.cost
        if level == 0 and self.root_lb > known_lb:
            known_lb = self.root_lb
        res.tree = LEAF
        res.val = leaf
        if leaf <= self.cost + EPS or nn < 2 * self.min_leaf:
            res.lb = leaf
            return res
        best_val = leaf
        key = node.h1 ^ self.depth_mix[depth]
        it = self.cache.find(key)
        if it != self.cache.end():
            entry = cyderef_entry(it)
            cached = True
            if entry.h2 == h2 and entry.size == nn:
                if entry.val - entry.lb <= gap + EPS or entry.lb >= ub_in - EPS:
                    self.n_cache_hits += 1
                    res.lb = entry.lb
                    res.val = entry.val
                    res.tree = entry.tree
                    return res
                if entry.lb > known_lb:
                    known_lb = entry.lb
                if entry.val < best_val:
                    best_val = entry.val
                    best_tree = entry.tree
        if self.binary and self.prune:
            # similarity bound against recently solved sets of the same depth
            sim = self._similarity_bound(node, depth)
            if sim > known_lb:
                known_lb = sim
            if known_lb >= ub_in - EPS:
                self.n_similarity_prunes += 1
                res.lb = known_lb
                res.val = best_val
                res.tree = best_tree
                return res
        self.n_subproblems += 1
        if depth == 2 and self.binary and (spent == FREE or self.rule_from_depth > 2):
            # every feature has one threshold: count pairs instead of scanning
            self._binary_depth_two(node, &best_val, &best_tree)
            node_lb = best_val
        elif depth == 1 and self.binary:
            self._binary_depth_one(node, &best_val, &best_tree)
            node_lb = best_val
        elif spent == FREE or depth < self.rule_from_depth:
            node_lb = self._search(level, node, depth, ub_in, gap, known_lb, &best_val, &best_tree, FREE)
        elif self.rule == RULE_PURITY:
            # a node rule: pure enough (by its best known tree) means not expanded
            if self.budget > 1.0:
                spent = FREE
            elif 1.0 - best_val / nn >= self.budget - EPS:
                self.n_rule_cuts += 1
                res.lb = known_lb
                res.val = best_val
                res.tree = best_tree
                return res
            node_lb = self._search(level, node, depth, ub_in, gap, known_lb, &best_val, &best_tree, spent)
        elif self.rule == RULE_HEIGHT and depth <= self.budget + 1:
            node_lb = self._search(level, node, depth, ub_in, gap, known_lb, &best_val, &best_tree, FREE)
        else:
            node_lb = self._search_restricted(level, node, depth, ub_in, gap, known_lb,
                                              &best_val, &best_tree, spent)
        res.lb = node_lb
        res.val = best_val
        res.tree = best_tree
        if self.binary and not self.aborted:
            self._remember(node, depth, node_lb)
        if not self.aborted and not cached and self.cache.size() >= self.max_entries:
            self._update_cache_room()     # the pool may have shrunk its share, or grown past the budget
        if not self.aborted and (cached or self.cache.size() < self.max_entries):
            entry.h2 = h2
            entry.size = nn
            entry.lb = node_lb
            entry.val = best_val
            entry.tree = best_tree
            self.cache[key] = entry
        return res

    cdef double _search(self, int level, Node* node, int depth, double ub_in, double gap,
                        double known_lb, double* best_val_io, int32_t* best_tree_io,
                        double spent) noexcept nogil:
        """The ConTree search of one node: Branch over every feature (in Gini
        order; root features claimed from the shared counter when threaded).
        Improves the incumbent in place and returns a valid lower bound."""
        cdef double best_val = best_val_io[0], ub, node_lb, gap_here = gap
        cdef int32_t best_tree = best_tree_io[0]
        cdef int f
        ub = ub_in if ub_in < best_val else best_val
        node_lb = best_val   # min over the lower bounds of every alternative
        cdef int32_t* order = &self.feature_orders[level][0]
        cdef int fi = 0
        cdef bint claiming = level == 0 and self.shared != NULL
        self._order_features(level, node, order)
        while True:
            if claiming:
                fi = share_claim(self.shared)
                self._sync_root(level, &ub)
            if fi >= self.p:
                break
            f = order[fi]
            fi += 1
            if ub <= known_lb + gap_here + EPS:
                break
            if self._timed_out():
                if self.cost < node_lb:
                    node_lb = self.cost
                break
            self._branch(level, node, depth, f, gap, &ub, &best_val, &best_tree, &node_lb, known_lb,
                         spent)
        # pruned thresholds were cut against some ub_t >= ub: they are >= ub - gap_here
        if ub - gap_here < node_lb:
            node_lb = ub - gap_here
        if node_lb < known_lb:
            node_lb = known_lb
        best_val_io[0] = best_val
        best_tree_io[0] = best_tree
        return node_lb

    cdef double _search_restricted(self, int level, Node* node, int depth, double ub_in,
                                   double gap, double known_lb, double* best_val_io,
                                   int32_t* best_tree_io, double spent) noexcept nogil:
        """One node under a candidate rule: try the node's candidate splits in
        rank order (round-robin over features by Gini, each feature's thresholds
        by Gini) while the rule admits them, the children under the rule's
        updated state.  A result that skipped candidates proves nothing new:
        its lower bound stays ``known_lb``, so no restart trusts it as exact."""
        cdef int nn = node.size, K = self.K, ml = self.min_leaf, r, a, b, total, limit
        cdef int levels = depth - self.rule_from_depth + 1
        cdef double k = self.budget + 1.0, cost = self.cost
        cdef double best_val = best_val_io[0], ub, bound, bound_b, lb_w, val_w, all_lb = INFINITY
        cdef double child_spent, gap_c, best_score
        cdef int32_t best_tree = best_tree_io[0], tree_l, tree_r
        cdef bint cut = False, complete = True, dominated = False
        cdef Cand c
        cdef Split1 s_l, s_r
        cdef Result child[2]
        cdef Node child_node[2]
        cdef vector[Cand]* cands = &self.cands[level]
        # how many candidates the rule can admit here
        if self.rule == RULE_DISCREPANCY:
            limit = <int>min(self.budget - spent + 1.0, 1e9)
        elif self.rule == RULE_TOPK:
            limit = <int>min(k, 1e9)
        elif self.rule == RULE_TOPK_STAR:
            limit = <int>max(1.0, floor(min(k, 1e9) / (<double>(1 << min(level, 30)))))
        elif self.rule == RULE_HEIGHT:
            limit = 1
        else:
            limit = 0x7fffffff
        total = self._rank_candidates(level, node, limit)
        if self._unrestricted(level, depth, spent, total, k, levels):
            if depth == 2 and self.binary:
                self._binary_depth_two(node, best_val_io, best_tree_io)
                return best_val_io[0]
            return self._search(level, node, depth, ub_in, gap, known_lb, best_val_io,
                                best_tree_io, FREE)
        ub = ub_in if ub_in < best_val else best_val
        best_score = cands[0][0].score if cands.size() > 0 else 0.0
        for r in range(<int>cands.size()):
            c = cands[0][r]
            child_spent = 0.0
            if self.rule == RULE_DISCREPANCY:
                child_spent = spent + r
                if child_spent > self.budget + EPS:
                    cut = True
                    break
            elif self.rule == RULE_GAIN:
                gap_c = (c.score - best_score) / nn
                child_spent = spent + gap_c
                if child_spent > self.budget + EPS:
                    cut = True
                    if child_spent - self.budget < self.min_cut_gap:
                        self.min_cut_gap = child_spent - self.budget
                    continue
            elif r >= limit:
                cut = True
                break
            if ub <= known_lb + gap + EPS:
                dominated = True      # nothing left can beat the incumbent by more than gap
                break
            if self._timed_out():
                complete = False
                break
            if depth == 2 and not self.binary:
                # the children are depth-one trees: D2Split gives both exactly
                self._d2(node.elems, nn, c.f, c.pos, node.counts, &s_l, &s_r, ml)
                val_w = s_l.val + s_r.val + cost
                lb_w = val_w
            else:
                self._partition(level, node, c.f, c.pos, child_node)
                bound = ub - gap - cost
                a = 0 if c.pos >= nn - c.pos else 1
                b = 1 - a
                child[a] = self._solve(level + 1, &child_node[a], depth - 1, bound, 0.0, child_spent)
                bound_b = bound - child[a].lb
                if bound_b > EPS:
                    self._hint_sibling(node, depth, &child_node[b], &child_node[a])
                    child[b] = self._solve(level + 1, &child_node[b], depth - 1, bound_b, 0.0,
                                           child_spent)
                    self.hint_parent = NULL
                else:
                    child[b].lb = 0.0
                    child[b].val = INFINITY
                    child[b].tree = -1
                lb_w = child[0].lb + child[1].lb + cost
                val_w = child[0].val + child[1].val + cost
            if lb_w < all_lb:
                all_lb = lb_w
            if val_w < best_val - EPS:
                best_val = val_w
                if depth == 2 and not self.binary:
                    tree_l = self._make_stump(&s_l)
                    tree_r = self._make_stump(&s_r)
                else:
                    tree_l = child[0].tree
                    tree_r = child[1].tree
                best_tree = self._new_node(c.f, c.lo, c.hi, tree_l, tree_r)
                if val_w < ub:
                    ub = val_w
                if level == 0:
                    self._root_improved(val_w, best_tree)
        if <int>cands.size() < total and not dominated:
            cut = True                # candidates beyond the rule's limit were never listed
        if cut and not dominated:
            self.n_rule_cuts += 1
        else:
            cut = False
        best_val_io[0] = best_val
        best_tree_io[0] = best_tree
        if cut or not complete:
            return known_lb
        # every candidate was tried or is >= ub - gap by the bounds
        if ub - gap < all_lb:
            all_lb = ub - gap
        return all_lb if all_lb > known_lb else known_lb

    cdef bint _unrestricted(self, int level, int depth, double spent, int total, double k,
                            int levels) noexcept nogil:
        """True once the rule cannot cut anything in this node's subtree (no
        subset has more candidates than its parent): search it exhaustively."""
        if total == 0:
            return True
        if self.rule == RULE_DISCREPANCY:
            return self.budget - spent >= <double>levels * (total - 1)
        if self.rule == RULE_TOPK:
            return k >= total
        if self.rule == RULE_TOPK_STAR:
            return k / (<double>(1 << min(level + levels - 1, 60))) >= total
        if self.rule == RULE_GAIN:
            # a Gini gain lies in [0, 1): a path gap never exceeds the levels left
            return self.budget - spent >= levels
        return False

    cdef int _rank_candidates(self, int level, Node* node, int limit) noexcept nogil:
        """Put the node's first ``limit`` candidate splits, in rank order, in
        cands[level]; return the number of candidate splits the node has.

        Rank order is round-robin: every feature's best split (features by
        Gini), then every feature's second best, and so on.  On binary data
        that is the usual feature order; on numeric data it keeps the first
        candidates diverse instead of spending them on neighbouring thresholds."""
        cdef int nn = node.size, K = self.K, ml = self.min_leaf, f, k, cl, n_hi, a, b
        cdef int n_feat = 0, rnd, total, start, cnt, best_k
        cdef int32_t* counts = node.counts
        cdef int32_t* cc = &self.cl[0]
        cdef int32_t* fstart = &self.cand_start[0]
        cdef int32_t* forder = &self.cand_feature_order[0]
        cdef vector[Cand]* scratch = &self.cand_scratch
        cdef vector[Cand]* out = &self.cands[level]
        cdef Elem* arr
        cdef double sl, sr
        cdef Cand c, tmp
        scratch.clear()
        out.clear()
        for f in range(self.p):
            fstart[f] = <int32_t>scratch.size()
            if self.binary:
                n_hi = 0
                for cl in range(K):
                    cc[cl] = self._mask_count(node.mask, f, cl)
                    n_hi += cc[cl]
                if 0 < n_hi < nn and nn - n_hi >= ml and n_hi >= ml:
                    sl = 0.0
                    sr = 0.0
                    for cl in range(K):
                        sl += <double>(counts[cl] - cc[cl]) * (counts[cl] - cc[cl])
                        sr += <double>cc[cl] * cc[cl]
                    c.score = ((nn - n_hi) - sl / (nn - n_hi)) + (n_hi - sr / n_hi)
                    c.f = f
                    c.pos = nn - n_hi
                    c.lo = 0
                    c.hi = 1
                    scratch.push_back(c)
                continue
            arr = node.elems + <size_t>f * nn
            _sum_squares_start(counts, cc, K, &sl, &sr)
            for k in range(nn):
                if k > 0 and arr[k].rank != arr[k - 1].rank and k >= ml and nn - k >= ml:
                    c.score = (k - sl / k) + ((nn - k) - sr / (nn - k))
                    c.f = f
                    c.pos = k
                    c.lo = arr[k - 1].rank
                    c.hi = arr[k].rank
                    scratch.push_back(c)
                _sum_squares_move(counts, cc, arr[k].label, &sl, &sr)
        fstart[self.p] = <int32_t>scratch.size()
        total = <int>scratch.size()
        # each feature's best split to the front of its segment; features by it
        for f in range(self.p):
            start = fstart[f]
            cnt = fstart[f + 1] - start
            if cnt == 0:
                continue
            best_k = start
            for k in range(start + 1, start + cnt):
                if scratch[0][k].score < scratch[0][best_k].score:
                    best_k = k
            tmp = scratch[0][start]
            scratch[0][start] = scratch[0][best_k]
            scratch[0][best_k] = tmp
            # insertion into the feature order (stable: ties keep feature order)
            a = n_feat
            while a > 0 and scratch[0][fstart[forder[a - 1]]].score > scratch[0][start].score:
                forder[a] = forder[a - 1]
                a -= 1
            forder[a] = f
            n_feat += 1
        if limit > n_feat:
            # later rounds need every feature's splits in Gini order
            for f in range(self.p):
                start = fstart[f]
                cnt = fstart[f + 1] - start
                if cnt > 2:
                    cpp_sort(&scratch[0][start + 1], &scratch[0][start] + cnt, _cand_before)
        rnd = 0
        while <int>out.size() < limit and <int>out.size() < total:
            for a in range(n_feat):
                f = forder[a]
                if fstart[f] + rnd < fstart[f + 1]:
                    out.push_back(scratch[0][fstart[f] + rnd])
                    if <int>out.size() >= limit:
                        break
            rnd += 1
        return total

    cdef inline void _sync_root(self, int level, double* ub) noexcept nogil:
        """At the root of a shared search, prune against every thread's best."""
        cdef double other
        if level == 0 and self.shared != NULL:
            other = share_ub(self.shared)
            if other < ub[0]:
                ub[0] = other

    cdef void _branch(self, int level, Node* node, int depth, int f, double gap, double* ub,
                      double* best_val, int32_t* best_tree, double* node_lb,
                      double known_lb, double spent) noexcept nogil:
        """Algorithm 1 for one feature, in the sound form of the notes §4.5."""
        cdef int nn = node.size
        cdef int32_t* counts = node.counts
        cdef Elem* arr = NULL
        cdef int32_t* P = &self.positions[level][0]
        cdef vector[Interval]* Q = &self.queues[level]
        cdef size_t head = 0
        cdef int m = 0, k, i, j, w, lo_k, hi_k, zero_l = -1, zero_r, ml = self.min_leaf
        cdef int32_t pos, nl, nr, eta, moved
        cdef double gap_here = gap, cost = self.cost
        cdef double sp, du, dv, lb_l, lb_r, lb_w, val_w, bound, bound_b, delta
        cdef Interval iv, nv
        cdef Split1 s_l, s_r, u_l, u_r
        # lower bounds obey the similarity bound: always without leaf sizes,
        # and at depth two with them (bounds from unconstrained D2Split)
        cdef bint similar = self.prune or depth == 2
        cdef Result child[2]                 # [0] left child, [1] right child
        cdef Node child_node[2]
        cdef int a, b, n_hi
        cdef int32_t tree_l, tree_r
        cdef bint have_val, left_zero, right_zero
        if self.binary:
            # one threshold: low values left
            n_hi = 0
            for k in range(self.K):
                n_hi += self._mask_count(node.mask, f, k)
            if 0 < n_hi < nn and nn - n_hi >= ml and n_hi >= ml:
                P[0] = nn - n_hi
                m = 1
        else:
            arr = node.elems + <size_t>f * nn
            for k in range(1, nn):
                if arr[k].rank != arr[k - 1].rank and k >= ml and nn - k >= ml:
                    P[m] = k
                    m += 1
        if m == 0:
            return
        zero_r = m
        Q.clear()
        iv.i = 0
        iv.j = m - 1
        iv.u = -1
        iv.v = -1
        iv.u_left = 0.0
        iv.u_total = 0.0
        iv.v_right = 0.0
        iv.v_total = 0.0
        Q.push_back(iv)
        # search order: the best Gini threshold first (a greedy-quality incumbent
        # at once), then midpoints of what the bounds leave
        cdef int first_w = _first_at_least(P, 0, m - 1, self.gini_positions[level][f])
        while head < Q.size():
            iv = Q[0][head]
            head += 1
            if self._timed_out():
                # every threshold left in the queue is >= its SP bound
                head -= 1
                while head < Q.size():
                    iv = Q[0][head]
                    head += 1
                    sp = cost
                    if similar:
                        sp = iv.u_left + iv.v_right + cost
                    if sp < node_lb[0]:
                        node_lb[0] = sp
                return
            i = iv.i
            j = iv.j
            self._sync_root(level, ub)
            if similar:
                # SP: every w in (u, v) has left >= left(u) and right >= right(v)
                sp = iv.u_left + iv.v_right + cost
                if sp >= ub[0] - gap_here - EPS:
                    continue
                # pure-side monotonicity (Theorem 2)
                if i <= zero_l:
                    i = zero_l + 1
                if j >= zero_r:
                    j = zero_r - 1
                # IS: re-apply the similarity bound of the neighbours with today's ub
                if iv.u >= 0:
                    du = iv.u_total - (ub[0] - gap_here)
                    if du >= -EPS:
                        moved = P[iv.u] + <int32_t>floor(du + EPS) + 1
                        i = _first_at_least(P, i, j, moved)
                if iv.v >= 0 and i <= j:
                    dv = iv.v_total - (ub[0] - gap_here)
                    if dv >= -EPS:
                        moved = P[iv.v] - <int32_t>floor(dv + EPS) - 1
                        j = _last_at_most(P, i, j, moved)
            if i > j:
                continue
            w = (i + j) // 2
            if first_w >= 0:
                if i <= first_w <= j:
                    w = first_w
                first_w = -1
            pos = P[w]
            have_val = False
            left_zero = False
            right_zero = False
            tree_l = -1
            tree_r = -1
            if depth == 2:
                self._d2(node.elems, nn, f, pos, counts, &s_l, &s_r, ml)
                val_w = s_l.val + s_r.val + cost
                have_val = True
                left_zero = s_l.val <= EPS
                right_zero = s_r.val <= EPS
                if self.prune:
                    lb_l = s_l.val
                    lb_r = s_r.val
                else:
                    # leaf sizes break the similarity bound, but not for the
                    # unconstrained optimum, which bounds the constrained one
                    self._d2(node.elems, nn, f, pos, counts, &u_l, &u_r, 1)
                    lb_l = u_l.val
                    lb_r = u_r.val
            else:
                nl = pos
                nr = nn - pos
                self._partition(level, node, f, pos, child_node)
                eta = 0
                if self.prune:
                    eta = pos - P[i]
                    if P[j] - pos > eta:
                        eta = P[j] - pos
                bound = ub[0] - gap_here - cost
                # larger child first with the full bound, the other with what is
                # left of it (+ eta, so NB can still decide the whole interval)
                a = 0 if nl >= nr else 1
                b = 1 - a
                child[a] = self._solve(level + 1, &child_node[a], depth - 1, bound, 0.0, spent)
                bound_b = bound - child[a].lb + eta
                if bound_b > EPS:
                    self._hint_sibling(node, depth, &child_node[b], &child_node[a])
                    child[b] = self._solve(level + 1, &child_node[b], depth - 1, bound_b, 0.0, spent)
                    self.hint_parent = NULL
                    have_val = True
                else:
                    child[b].lb = 0.0      # skipped: only the trivial bound is known
                    child[b].val = INFINITY
                    child[b].tree = -1
                lb_l = child[0].lb
                lb_r = child[1].lb
                left_zero = child[0].val <= EPS
                right_zero = child[1].val <= EPS
                tree_l = child[0].tree
                tree_r = child[1].tree
                val_w = child[0].val + child[1].val + cost
            lb_w = lb_l + lb_r + cost
            # this threshold's share of the node's bound: its exact value when
            # D2Split gave one (tighter than the unconstrained lb_w under leaf sizes)
            if depth == 2:
                if val_w < node_lb[0]:
                    node_lb[0] = val_w
            elif lb_w < node_lb[0]:
                node_lb[0] = lb_w
            if have_val and val_w < best_val[0] - EPS:
                best_val[0] = val_w
                if depth == 2 and not self.binary:
                    tree_l = self._make_stump(&s_l)
                    tree_r = self._make_stump(&s_r)
                if self.binary:
                    best_tree[0] = self._new_node(f, 0, 1, tree_l, tree_r)
                else:
                    best_tree[0] = self._new_node(f, arr[pos - 1].rank, arr[pos].rank, tree_l, tree_r)
                if val_w < ub[0]:
                    ub[0] = val_w
                if level == 0:
                    self._root_improved(val_w, best_tree[0])
                    if self.shared != NULL:
                        share_offer(self.shared, val_w)
                if val_w <= known_lb + gap_here + EPS:
                    return
            if not similar:
                if i <= w - 1:
                    nv = iv
                    nv.i = i
                    nv.j = w - 1
                    Q.push_back(nv)
                if w + 1 <= j:
                    nv = iv
                    nv.i = w + 1
                    nv.j = j
                    Q.push_back(nv)
                continue
            # an exact zero on one side (Theorem 2); the solved side suffices.
            # Monotonicity fails under leaf sizes, so only without them.
            if self.prune and left_zero and w > zero_l:
                zero_l = w
            if self.prune and right_zero and w < zero_r:
                zero_r = w
            # NB: neighbours that move <= delta instances cannot improve
            delta = lb_w - (ub[0] - gap_here)
            if delta < -EPS:
                lo_k = w - 1
                hi_k = w + 1
            else:
                moved = <int32_t>floor(delta + EPS) + 1
                lo_k = _last_at_most(P, i, w - 1, pos - moved)
                hi_k = _first_at_least(P, w + 1, j, pos + moved)
            if i <= lo_k:
                nv.i = i
                nv.j = lo_k
                nv.u = iv.u
                nv.u_left = iv.u_left
                nv.u_total = iv.u_total
                nv.v = w
                nv.v_right = lb_r
                nv.v_total = lb_w
                Q.push_back(nv)
            if hi_k <= j:
                nv.i = hi_k
                nv.j = j
                nv.u = w
                nv.u_left = lb_l
                nv.u_total = lb_w
                nv.v = iv.v
                nv.v_right = iv.v_right
                nv.v_total = iv.v_total
                Q.push_back(nv)


cdef bint _cand_before(const Cand& a, const Cand& b) noexcept nogil:
    """Rank order within one feature: lower Gini first, then leftmost threshold."""
    if a.score != b.score:
        return a.score < b.score
    return a.pos < b.pos


cdef inline Entry cyderef_entry(unordered_map[uint64_t, Entry].iterator it) noexcept nogil:
    return cython_deref(it).second


cdef inline void _offer(int err, int prefix_err, int cnt_s, int feature, int lo, int hi,
                        int* target, int* skip, Split1* out) noexcept nogil:
    """Record a D2Split candidate of one child, or skip the positions it rules out."""
    if err < target[0]:
        target[0] = err
        out.feature = feature
        out.lo = lo
        out.hi = hi
        skip[0] = NEVER if err == 0 else cnt_s + 1
    elif prefix_err >= target[0]:
        # the prefix's error never decreases along the scan: nothing later wins
        skip[0] = NEVER
    else:
        # each further instance of this child changes the error by at most one
        skip[0] = cnt_s + (err - target[0]) + 1


cdef inline uint64_t _mix64(uint64_t x) noexcept nogil:
    """splitmix64 finaliser: a well-spread hash of one word."""
    x = (x ^ (x >> 30)) * <uint64_t>0xbf58476d1ce4e5b9
    x = (x ^ (x >> 27)) * <uint64_t>0x94d049bb133111eb
    return x ^ (x >> 31)


cdef inline int _popcount_and(uint64_t* a, uint64_t* b, int words) noexcept nogil:
    cdef int w, total = 0
    for w in range(words):
        total += popcount64(a[w] & b[w])
    return total


cdef inline void _sum_squares_start(int32_t* counts, int32_t* cc, int K, double* sl, double* sr) noexcept nogil:
    """Start a Gini scan of one feature: no element left of the threshold.
    ``sl``/``sr`` are the sums of squared class counts left and right, kept
    up to date per element (O(1)) rather than summed over K classes at every
    threshold, which made many-class data quadratic."""
    cdef int c
    sl[0] = 0.0
    sr[0] = 0.0
    for c in range(K):
        cc[c] = 0
        sr[0] += <double>counts[c] * counts[c]


cdef inline void _sum_squares_move(int32_t* counts, int32_t* cc, int label, double* sl, double* sr) noexcept nogil:
    """One element of class ``label`` crosses the threshold from right to left
    (integer sums in doubles: exact below 2^53)."""
    sl[0] += 2.0 * cc[label] + 1.0
    sr[0] -= 2.0 * (counts[label] - cc[label]) - 1.0
    cc[label] += 1


cdef inline int _max_count(int32_t* c, int K) noexcept nogil:
    cdef int k, best = 0
    for k in range(K):
        if c[k] > best:
            best = c[k]
    return best


cdef inline int _max_count_diff(int32_t* a, int32_t* b, int K) noexcept nogil:
    """Largest a[k] - b[k]."""
    cdef int k, best = 0
    for k in range(K):
        if a[k] - b[k] > best:
            best = a[k] - b[k]
    return best


cdef inline int _first_at_least(int32_t* P, int i, int j, int32_t target) noexcept nogil:
    """Smallest k in [i, j] with P[k] >= target, or j + 1."""
    cdef int lo = i, hi = j + 1, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if P[mid] >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline int _last_at_most(int32_t* P, int i, int j, int32_t target) noexcept nogil:
    """Largest k in [i, j] with P[k] <= target, or i - 1."""
    cdef int lo = i, hi = j + 1, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if P[mid] <= target:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1
