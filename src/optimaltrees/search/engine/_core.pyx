# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The DP / branch-and-bound core of ConTree (Brita, van der Linden,
Demirovic, AAAI 2025), written once over the data layouts (``_layout.pxd``).

DP over (instance set, depth) with a cache of proven bounds and best trees;
branch-and-bound over each feature's thresholds (``_intervals.pxd``); the
anytime strategies restrict it through a rule (``_rules.pyx``); run control
(``_control.pyx``) stops it.

Invariant of :meth:`Engine._solve` (see the implementation notes §4.4): the
returned ``lb`` is always a valid lower bound on the subproblem's optimum,
and ``tree``/``val`` is always a real tree and its exact objective.  A bound
that cut the search never masquerades as a score.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.math cimport INFINITY
from posix.unistd cimport usleep
from libcpp.vector cimport vector
from libcpp.unordered_map cimport unordered_map
from libcpp.algorithm cimport sort as std_sort
from cython.operator cimport dereference as deref

import math
from dataclasses import dataclass

import numpy as np

from optimaltrees.search.engine._common cimport (
    CACHE_ENTRY_BYTES, EPS, FREE, LEAF, Cand, Node, Split1, TNode, class_floor, leaf_errors, now,
    total_weight)
from optimaltrees.search.engine._control cimport (
    RootShare, RunControl, SharedRoot, share_claim, share_lock, share_offer, share_ub, share_unlock)
from optimaltrees.search.engine._intervals cimport (
    Interval, RootItem, bound_interval, first_at_least, interval_floor, lowest_item, narrow,
    push_beyond, push_halves, queue_floor, queue_start)
from optimaltrees.search.engine._layout cimport Layout
from optimaltrees.search.engine._layout_base cimport DataLayout
from optimaltrees.search.engine._rules cimport (
    CAND_SKIP, CAND_TRY, NODE_CUT, NODE_SEARCH, RULE_NONE, RuleState)
from optimaltrees.search.engine._sorted cimport SortedLayout
from optimaltrees.search.engine._bitset cimport BitsetLayout
from optimaltrees.search.engine._additive cimport AdditiveLayout

cimport cython


cdef enum:
    # the root's ConTree-order steps ("dives") stop alternating with the
    # best-first ones after this many in a row that did not improve the
    # incumbent, and are then taken once in DIVE_SPARSE steps (until one improves it)
    DIVE_PATIENCE = 4
    DIVE_SPARSE = 16


cdef struct Result:            # what one subproblem's solve proved
    double lb                  # valid lower bound on the optimum
    double val                 # objective of ``tree``
    int32_t tree               # pool index, or -1 when the subproblem was skipped


cdef struct SeedPoint:         # one threshold a root child's search bounded
    int32_t f                  # the feature ...
    int32_t lo                 # ... and the split: rows of rank <= lo on the left
    double lb_l, lb_r          # lower bounds of its children's optima (valid on any superset)


cdef inline bint _seed_less(const SeedPoint& a, const SeedPoint& b) noexcept nogil:
    return a.f < b.f or (a.f == b.f and a.lo < b.lo)


cdef struct Entry:             # one cached subproblem (key: set hash h1 mixed with the depth)
    uint64_t h2                # the set's second hash: a check against collisions
    int32_t size               # ... and its size
    double lb                  # proven lower bound
    double val                 # objective of the best tree known
    int32_t tree               # ... and that tree


@dataclass(frozen=True)
class SolveOutcome:
    """What one :meth:`Engine.solve` returns."""

    objective: float      # objective of ``root`` (may be worse than the upper bound asked for)
    lower_bound: float    # proven lower bound on the optimum
    root: int             # pool index of the tree's root (-1: none found)
    aborted: bool         # stopped early (time, Ctrl-C, memory, hook, stop request)


@cython.final
cdef inline void _sort_by(int32_t* order, double* key, int p) noexcept nogil:
    """Sort ``order`` (p feature indices) by ``key[f]``, ascending: an
    insertion sort, as p is small and it keeps ties in their order."""
    cdef int a, b, k
    cdef double v
    for a in range(1, p):
        b = order[a]
        v = key[b]
        k = a - 1
        while k >= 0 and key[order[k]] > v:
            order[k + 1] = order[k]
            k -= 1
        order[k + 1] = b


# The objective of a node.  The two classification layouts count classes, and
# their misclassification is inlined here: as methods of theirs it would cost
# a call through the layout on every subproblem of the fastest searches.  The
# additive layout names its own objective.
cdef inline double _leaf_cost(Layout lay, double* counts, int K) noexcept nogil:
    if Layout is AdditiveLayout:
        return lay.leaf_cost(counts)
    else:
        return leaf_errors(counts, K)


cdef inline double _node_floor(Layout lay, double* counts, int K, int depth) noexcept nogil:
    if Layout is AdditiveLayout:
        return lay.node_floor(counts, depth)
    else:
        return class_floor(counts, K, depth)


cdef inline double _node_weight(Layout lay, double* counts, int K) noexcept nogil:
    if Layout is AdditiveLayout:
        return lay.node_weight(counts)
    else:
        return total_weight(counts, K)


cdef inline bint _floors_bite(int K, int depth) noexcept nogil:
    """Whether a node of this depth can have split class floors: depth two
    or more (up to 12, the floor's own limit) and more classes than a
    child's leaves."""
    return 2 <= depth <= 12 and K > (1 << (depth - 1))


cdef class Engine:
    """One search over one data set in one layout.

    Construct with a layout (:class:`SortedLayout` or :class:`BitsetLayout`),
    then call :meth:`solve` (again, after :meth:`set_rule`, for a restart:
    the cache carries over).  Buffers are sized once, so the search
    allocates nothing but tree nodes and cache entries while it runs.
    """

    cdef object layout                     # the layout searched over (``_layout.pxd``)
    cdef int p, K, max_depth, min_leaf
    cdef double cost                       # cost of one branching node (absolute)
    cdef double gap                        # absolute allowed gap at the root
    cdef bint prune                        # similarity-bound pruning is sound (no leaf sizes)
    cdef bint seeds_on                     # root children start from their neighbours' bounds (an option)
    cdef RunControl ctl                    # time limit, Ctrl-C, hook, shared root
    cdef RuleState rules                   # the anytime strategy's rule this restart
    cdef vector[vector[int32_t]] positions # per level: the feature's split positions
    cdef vector[vector[double]] distances  # per level: the weight left of each split position
    cdef vector[vector[Interval]] queues   # per level: the feature's threshold intervals
    cdef vector[vector[int32_t]] feature_orders   # per level: features by best Gini split
    cdef vector[double] gini_scores        # scratch: each feature's best Gini score
    cdef SharedRoot front                  # the root's best-first frontier: private, or shared by threads
    cdef vector[char] root_allowed         # per feature: may split the root (empty: every feature)
    cdef int front_slot                    # this engine's in-flight slot in it
    cdef vector[vector[int32_t]] gini_positions   # per level: best Gini split (left size) per feature
    cdef vector[vector[double]] split_floors      # per level: each feature's least split class floor + cost
    cdef vector[char] floors_on                   # per level: the node there has class floors (_split_floors)
    cdef vector[double] floor_gate                # per level: no split's floor + cost exceeds this (the node's)
    cdef vector[vector[double]] thr_floors        # per level: the searched feature's floor at each split
                                                  # position (n + 1 where the level can have floors:
                                                  # _may_floor; else empty)
    # a node of depth two or three probes every feature's best Gini threshold before it searches any
    cdef vector[int32_t] probe_pos         # [f]: the probed split position (-1: none this solve)
    cdef vector[Split1] probe_sides        # [2 f], [2 f + 1]: its left and right depth-one children
    cdef vector[double] probe_vals         # [f]: its objective (the order the features are searched in)
    cdef uint64_t probe_h1                 # the node probed (its set hash ...
    cdef int probe_size                    # ... and size)
    cdef uint64_t depth_mix[64]            # mixed into a set's hash: one cache key per depth
    cdef vector[TNode] pool                # every tree found, as nodes; 0 is the shared leaf
    cdef unordered_map[uint64_t, Entry] cache
    cdef size_t max_entries                # cache entries allowed now (the budget less everything else)
    cdef size_t memory_budget              # memory_limit in bytes; SIZE_MAX without a limit
    cdef size_t layout_bytes               # the layout's buffers (fixed at construction)
    cdef public bint memory_out            # the memory limit stopped the search
    cdef double root_lb                    # a lower bound the caller knows for the root
    cdef public long long n_subproblems, n_cache_hits, n_similarity_prunes
    cdef public long long n_class_prunes   # subproblems cut by the class floor (:func:`class_floor`)
    cdef double best_root_val              # best objective at the root this solve
    cdef long long n_swept                 # thresholds whose depth-two trees sweeps scored
    cdef double root_bound                 # the root's lower bound proven so far this solve (rises)
    cdef long long n_root_steps            # root intervals this engine expanded ...
    cdef long long n_root_dives            # ... of which in ConTree's order (the rest best first)
    cdef int32_t best_root_tree
    # the root's children's threshold bounds, handed on to nested children
    # (a root threshold's left child is a superset of its left neighbour's)
    cdef unordered_map[int64_t, vector[SeedPoint]] root_seeds   # [(w * p + f) * 2 + side]
    cdef vector[SeedPoint]* seed_in        # the bounds the level-1 node being solved starts from (or NULL)
    cdef vector[SeedPoint] seed_out        # ... and those its search proves (with seed_in's)
    cdef bint seed_recording
    cdef vector[double] seed_floor, seed_left, seed_right   # scratch: a feature's thresholds' bounds from them
    cdef size_t seed_bytes
    cdef public long long n_seeded         # root children searched from a neighbour's bounds

    def __init__(self, layout, int n_classes, int max_depth, double cost=0.0, double gap=0.0,
                 int min_leaf=1, double memory_limit_mb=INFINITY, int64_t[::1] depth_words=None,
                 bint root_seeds=True):
        """``memory_limit_mb``: INFINITY for none.  ``depth_words``: 64
        random integers that make a set's cache key differ per depth.
        ``root_seeds``: the ``root_seeds`` engine option."""
        cdef int lvl, levels = max(max_depth, 1) + 1
        if not isinstance(layout, (SortedLayout, BitsetLayout, AdditiveLayout)):
            raise TypeError(f"unknown data layout {type(layout).__name__}")
        if depth_words is None or depth_words.shape[0] < 64:
            raise ValueError("depth_words must hold 64 random integers")
        self.layout = layout
        self.p = layout.p_features
        self.K = n_classes
        self.max_depth = max_depth
        self.cost = cost
        self.gap = gap
        self.min_leaf = min_leaf
        self.prune = min_leaf <= 1
        self.seeds_on = root_seeds
        self.ctl = RunControl()
        self.rules = RuleState(levels, self.p)
        self.rules.set(RULE_NONE, 0.0, layout.exact_depth)
        self.positions.resize(levels)
        self.distances.resize(levels)
        self.queues.resize(levels)
        self.feature_orders.resize(levels)
        self.gini_positions.resize(levels)
        self.split_floors.resize(levels)
        self.thr_floors.resize(levels)
        self.floors_on.assign(levels, 0)
        self.floor_gate.assign(levels, 0.0)
        for lvl in range(levels):
            self.positions[lvl].resize(layout.n_instances + 1)
            self.distances[lvl].resize(layout.n_instances + 1)
            self.feature_orders[lvl].resize(self.p)
            self.gini_positions[lvl].resize(self.p)
            self.split_floors[lvl].assign(self.p, 0.0)
            # per-threshold class floors where a node of this level can have them
            # (allocated now, so that the memory check before the search sees them)
            if self._may_floor(layout, max_depth - lvl):
                self.thr_floors[lvl].resize(layout.n_instances + 1)
        self.gini_scores.resize(self.p)
        self.probe_pos.assign(self.p, -1)
        self.probe_sides.resize(2 * self.p)
        self.probe_vals.resize(self.p)
        self.front = SharedRoot()
        self.front_slot = self.front.attach()
        for lvl in range(64):
            self.depth_mix[lvl] = <uint64_t>depth_words[lvl] * 2654435761u
        self.pool.resize(1)
        self.pool[0].feature = -1
        self.pool[0].left = -1
        self.pool[0].right = -1
        self.memory_out = False
        if not math.isfinite(memory_limit_mb) or memory_limit_mb <= 0:
            self.memory_budget = <size_t>-1
        else:
            self.memory_budget = <size_t>(memory_limit_mb * 1048576.0)
        if isinstance(layout, SortedLayout):
            layout.reserve_pairs(max_depth, INFINITY if self.memory_budget == <size_t>-1
                                 else <double>self.memory_budget)
            layout.reserve_side_maps(max_depth, INFINITY if self.memory_budget == <size_t>-1
                                     else <double>self.memory_budget)
            layout.reserve_sweep(INFINITY if self.memory_budget == <size_t>-1
                                 else <double>self.memory_budget)
        elif isinstance(layout, AdditiveLayout):
            layout.reserve_pair_tables(INFINITY if self.memory_budget == <size_t>-1
                                       else <double>self.memory_budget)
        self.layout_bytes = layout.buffer_bytes
        self.n_subproblems = 0
        self.n_cache_hits = 0
        self.n_similarity_prunes = 0
        self.n_class_prunes = 0
        self.n_swept = 0
        self.n_root_steps = 0
        self.n_root_dives = 0
        self.n_seeded = 0
        self.seed_in = NULL
        self.seed_recording = False
        self.seed_bytes = 0
        self._update_cache_room()

    # ------------------------------------------------------------ Python API

    cdef bint _may_floor(self, object layout, int depth):
        """Whether a node of this depth can have class floors (:meth:`_split_floors`):
        depth two or more, more classes than a child's leaves, and a layout
        that computes them."""
        return (isinstance(layout, SortedLayout) and (<SortedLayout>layout).has_floors
                and _floors_bite(self.K, depth))

    def share_root_with(self, SharedRoot shared):
        """Search the root together with the other engines of ``shared``: one
        best-first frontier of root intervals (depth >= 3), or root features
        claimed one by one (depth two)."""
        self.ctl.share_root_with(shared)
        self.front = shared
        self.front_slot = shared.attach()

    def restrict_root(self, features=None):
        """Split the root only on ``features`` (None: on any), so that one
        search can be shared out by root feature (a Dask task each): the
        solve's bound and tree are then those of that share."""
        cdef int f
        self.root_allowed.clear()
        if features is None:
            return
        self.root_allowed.assign(self.p, 0)
        for f in features:
            if not 0 <= f < self.p:
                raise ValueError(f"root feature {f} out of range 0..{self.p - 1}")
            self.root_allowed[f] = 1

    def set_rule(self, int rule, double budget):
        """Restrict the next solve by a strategy's rule (``RULES``) at this budget.

        The cache carries over between solves: a result proven under any rule
        is exact, and every stored lower bound stays valid, so each restart
        resumes from what earlier ones proved."""
        self.rules.set(rule, budget, self.layout.exact_depth)

    def set_hook(self, hook, double every=0.5):
        """Call ``hook(objective, tree)`` when the root's best tree improves and
        ``hook(None, -1)`` every ``every`` seconds; a False return stops the search."""
        self.ctl.set_hook(hook, every)

    def solve(self, double time_limit=INFINITY, double root_lower_bound=0.0,
              double upper_bound=INFINITY) -> SolveOutcome:
        """Run the search for at most ``time_limit`` seconds (INFINITY: no limit).

        ``root_lower_bound`` is a bound the caller already knows (e.g. from
        duplicate rows with conflicting labels); it tightens the root's bound
        and stops the search as soon as a tree meets it.  Only trees better
        than ``upper_bound`` are sought (a restart's incumbent); when none is
        found the returned objective may be worse than it."""
        cdef Result res
        cdef int f
        cdef double spent = FREE if self.rules.rule == RULE_NONE else 0.0
        self.ctl.start(time_limit if time_limit > 0 else INFINITY)
        # a whole-node solve of seconds (histograms on millions of rows) stops at the limit too
        (<DataLayout>self.layout).deadline = self.ctl.t_start + self.ctl.t_limit
        self.memory_out = False
        self.root_lb = root_lower_bound
        self.best_root_val = upper_bound
        self.best_root_tree = -1
        self.root_bound = root_lower_bound
        self.rules.reset_counts()
        for f in range(self.p):
            self.probe_pos[f] = -1
        self.root_seeds.clear()
        self.seed_bytes = 0
        self.seed_in = NULL
        self.seed_recording = False
        # the one place the layout is chosen: each call runs a core compiled for it
        cdef BitsetLayout bitset
        cdef SortedLayout sorted_
        cdef AdditiveLayout additive
        if isinstance(self.layout, BitsetLayout):
            bitset = <BitsetLayout>self.layout
            with nogil:
                res = self._solve_root(bitset, upper_bound, spent)
        elif isinstance(self.layout, AdditiveLayout):
            additive = <AdditiveLayout>self.layout
            with nogil:
                res = self._solve_root(additive, upper_bound, spent)
        else:
            sorted_ = <SortedLayout>self.layout
            with nogil:
                res = self._solve_root(sorted_, upper_bound, spent)
        if self.ctl.shared == NULL and res.lb > self.root_bound:
            # (an engine that claimed some root features bounds only those)
            self.root_bound = res.lb
        self.ctl.raise_hook_error()
        return SolveOutcome(res.val, res.lb, res.tree, bool(self.ctl.aborted))

    @property
    def interrupted(self):
        """The last solve was stopped by Ctrl-C."""
        return bool(self.ctl.interrupted)

    @interrupted.setter
    def interrupted(self, value):
        self.ctl.interrupted = bool(value)

    @property
    def n_rule_cuts(self):
        """Candidates (or nodes) the rule kept out in the last solve."""
        return self.rules.n_rule_cuts

    @property
    def min_cut_gap(self):
        """Gain rule: the smallest path gap the last solve cut."""
        return self.rules.min_cut_gap

    @property
    def stats(self):
        """Search counters: subproblems, depth-two solves, cache hits, ..."""
        return {
            "subproblems": int(self.n_subproblems),
            "d2_calls": int(self.layout.n_d2),
            "cache_hits": int(self.n_cache_hits),
            "similarity_prunes": int(self.n_similarity_prunes),
            "class_prunes": int(self.n_class_prunes),
            "derived_counts": int(getattr(self.layout, "n_derived_counts", 0)),
            "sibling_pairs": int(getattr(self.layout, "n_pairs", 0)),
            "sweeps": int(getattr(self.layout, "n_sweeps", 0)),
            "swept_thresholds": int(self.n_swept),
            "map_moves": int(getattr(self.layout, "n_map_moves", 0)),
            "map_gathers": int(getattr(self.layout, "n_map_gathers", 0)),
            "cache_entries": int(self.cache.size()),
            "root_steps": int(self.n_root_steps),
            "root_dives": int(self.n_root_dives),
            "seeded_children": int(self.n_seeded),
        }

    @property
    def root_lower_bound(self):
        """The root's lower bound proven so far by the running (or last)
        solve: it rises while the root's best-first search runs (depth >= 3,
        one thread), so a hook can read it; otherwise the caller's known bound."""
        return self.root_bound

    @property
    def root_frontier(self):
        """The root's queued intervals when the last best-first search
        stopped, as (feature, first index, last index, lower bound) rows."""
        cdef size_t k
        out = []
        for k in range(self.front.items.size()):
            out.append((self.front.items[k].f, self.front.items[k].iv.i, self.front.items[k].iv.j,
                        interval_floor(&self.front.items[k].iv, self.prune, self.cost)))
        return out

    @property
    def best_root(self):
        """(objective, tree) of the best root tree found by the last solve, tree -1 if none."""
        return self.best_root_val, self.best_root_tree

    @property
    def memory_bytes(self):
        """Bytes this engine holds now: buffers, node pool and cache (what
        ``memory_limit`` bounds)."""
        return self._memory_bytes()

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

    # ------------------------------------------------------- memory and pool

    cdef size_t _memory_bytes(self) noexcept nogil:
        """Capacities of every buffer, the node pool, and the cache at
        CACHE_ENTRY_BYTES per entry (hash node plus its bucket)."""
        cdef size_t b = self.layout_bytes + self.rules.memory_bytes(), lvl
        b += self.gini_scores.capacity() * sizeof(double)
        b += self.front.items.capacity() * sizeof(RootItem) + 3 * self.p * sizeof(int)
        b += self.pool.capacity() * sizeof(TNode)
        for lvl in range(self.positions.size()):
            b += (self.positions[lvl].capacity() + self.feature_orders[lvl].capacity()
                  + self.gini_positions[lvl].capacity()) * sizeof(int32_t)
            b += self.queues[lvl].capacity() * sizeof(Interval)
            b += (self.distances[lvl].capacity() + self.split_floors[lvl].capacity()
                  + self.thr_floors[lvl].capacity()) * sizeof(double)
        b += self.cache.size() * CACHE_ENTRY_BYTES + self.cache.bucket_count() * sizeof(void*)
        b += self.seed_bytes + self.seed_out.capacity() * sizeof(SeedPoint)
        b += (self.seed_floor.capacity() + self.seed_left.capacity() + self.seed_right.capacity()) * sizeof(double)
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
            self.ctl.aborted = True
            return
        free = self.memory_budget - used
        reserve = self.memory_budget // 4
        # the bucket array grows with the entries: count a share of it per entry
        self.max_entries = self.cache.size() + (
            (free - reserve) // (CACHE_ENTRY_BYTES + 2 * sizeof(void*)) if free > reserve else 0)

    cdef inline bint _timed_out(self) noexcept nogil:
        """True once the search must stop (run control), re-measuring memory
        every 10 ms."""
        cdef double t
        if self.ctl.aborted:
            return True
        t = now()
        if self.ctl.expired(t):
            return True
        if t >= self.ctl.next_memory_check:
            self.ctl.next_memory_check = t + 0.01
            self._update_cache_room()
        return self.ctl.aborted

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
                # at most one node beyond the budget (the one being added)
                grow = free_nodes if free_nodes > 0 else 1
                self.memory_out = free_nodes <= 64
                self.ctl.aborted = self.ctl.aborted or self.memory_out
        self.pool.reserve(cap + grow)

    cdef inline int32_t _stump(self, Split1* s) noexcept nogil:
        if s.feature < 0:
            return LEAF
        return self._new_node(s.feature, s.lo, s.hi, LEAF, LEAF)

    cdef inline int32_t _small_tree(self, Split1* root, Split1* sides) noexcept nogil:
        """A layout's depth-one or depth-two answer as pool nodes."""
        cdef int32_t left = self._stump(&sides[0])
        cdef int32_t right = self._stump(&sides[1])
        return self._new_node(root.feature, root.lo, root.hi, left, right)

    cdef void _root_improved(self, double val, int32_t tree) noexcept nogil:
        """A better tree at the root: remember it and tell the hook at once."""
        if val < self.best_root_val - EPS:
            self.best_root_val = val
            self.best_root_tree = tree
            self.ctl.notify(val, tree)

    cdef inline void _sync_root(self, int level, double* ub) noexcept nogil:
        """At the root of a shared search, prune against every thread's best."""
        cdef double other
        if level == 0 and self.ctl.shared != NULL:
            other = share_ub(self.ctl.shared)
            if other < ub[0]:
                ub[0] = other

    # ---------------------------------------------------------------- search

    cdef Result _solve_root(self, Layout lay, double upper_bound, double spent) noexcept nogil:
        cdef Node root
        cdef Result res
        if self.max_depth == 0:
            res.val = _leaf_cost(lay, lay.root_counts.data(), self.K)
            res.lb = res.val
            res.tree = LEAF
            return res
        lay.init_root(&root)
        return self._solve(lay, 0, &root, self.max_depth, upper_bound, self.gap, spent)

    cdef Result _solve(self, Layout lay, int level, Node* node, int depth, double ub_in, double gap,
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
        cdef double leaf = _leaf_cost(lay, node.counts, self.K)
        cdef double known_lb, best_val, node_lb, floor_lb
        cdef int32_t best_tree = LEAF
        cdef uint64_t key
        cdef Entry entry
        cdef unordered_map[uint64_t, Entry].iterator it
        cdef bint cached = False
        cdef int action
        cdef Split1 small_root
        cdef Split1 small_sides[2]
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
            entry = deref(it).second
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
        # more classes than leaves: the lightest classes are errors in any split tree
        floor_lb = _node_floor(lay, node.counts, self.K, depth) + self.cost
        if floor_lb > leaf:
            floor_lb = leaf
        if floor_lb > known_lb:
            known_lb = floor_lb
            if known_lb >= ub_in - EPS:
                self.n_class_prunes += 1
                res.lb = known_lb
                res.val = best_val
                res.tree = best_tree
                return res
        if lay.similarity_prune(node, depth, ub_in, &known_lb):
            self.n_similarity_prunes += 1
            res.lb = known_lb
            res.val = best_val
            res.tree = best_tree
            return res
        self.n_subproblems += 1
        if spent == FREE or depth < self.rules.from_depth:
            # whole (no search) unless the root's features are shared out between threads
            if lay.solves_whole(node, depth) and (level > 0 or (
                    self.root_allowed.size() == 0 and (self.ctl.shared == NULL
                                                       or depth <= lay.exact_depth))):
                if lay.solve_exact(node, depth, &best_val, &small_root, small_sides):
                    best_tree = self._small_tree(&small_root, small_sides)
                    if level == 0:
                        self._root_improved(best_val, best_tree)
                node_lb = best_val
                if lay.cut_short:
                    # stopped at the deadline: the tree stands, the bound does not
                    self.ctl.aborted = True
                    node_lb = known_lb
            elif level == 0 and depth >= 3:
                node_lb = self._search_root(lay, node, depth, ub_in, gap, known_lb,
                                            &best_val, &best_tree)
            else:
                node_lb = self._search(lay, level, node, depth, ub_in, gap, known_lb,
                                       &best_val, &best_tree, FREE)
        else:
            # the rules read error rates and Gini gains per unit of the node's weight
            action = self.rules.node_action(depth, &spent, best_val, _node_weight(lay, node.counts, self.K))
            if action == NODE_CUT:
                res.lb = known_lb
                res.val = best_val
                res.tree = best_tree
                return res
            if action == NODE_SEARCH:
                node_lb = self._search(lay, level, node, depth, ub_in, gap, known_lb,
                                       &best_val, &best_tree, spent)
            else:
                node_lb = self._search_restricted(lay, level, node, depth, ub_in, gap, known_lb,
                                                  &best_val, &best_tree, spent)
        res.lb = node_lb
        res.val = best_val
        res.tree = best_tree
        if not self.ctl.aborted:
            lay.remember(node, depth, node_lb)
        if not self.ctl.aborted and not cached and self.cache.size() >= self.max_entries:
            self._update_cache_room()     # the pool may have shrunk its share, or grown past the budget
        if not self.ctl.aborted and (cached or self.cache.size() < self.max_entries):
            entry.h2 = h2
            entry.size = nn
            entry.lb = node_lb
            entry.val = best_val
            entry.tree = best_tree
            self.cache[key] = entry
        return res

    cdef bint _split_floors(self, Layout lay, int level, Node* node, int depth,
                            double* known_lb) noexcept nogil:
        """Each feature's class floor (:meth:`SortedLayout.split_floor`: the
        least over its splits of both children's rows outside the classes
        their leaves can name) plus one node's cost, into
        ``split_floors[level]``, and the node's bound from them (or the
        leaf's, if lower) into ``known_lb``.  Only where a child's leaves are
        fewer than the classes (``floors_on``, with buffers from
        :meth:`_may_floor`); False: every floor left 0.  ``floor_gate``
        keeps the node's own floor, which no split's exceeds (0 + cost where
        :func:`class_floor` declines: then no threshold is trimmed)."""
        cdef int f
        cdef double v, least = INFINITY, leaf
        cdef double* out = &self.split_floors[level][0]
        for f in range(self.p):
            out[f] = 0.0
        self.floors_on[level] = self.thr_floors[level].size() > 0 and _floors_bite(self.K, depth)
        if not self.floors_on[level]:
            return False
        self.floor_gate[level] = _node_floor(lay, node.counts, self.K, depth - 1) + self.cost
        for f in range(self.p):
            v = lay.split_floor(node, f, depth - 1, NULL, 0, NULL) + self.cost
            out[f] = v
            if v < least:
                least = v
        leaf = _leaf_cost(lay, node.counts, self.K)
        if leaf < least:
            least = leaf
        if least > known_lb[0]:
            known_lb[0] = least
        return True

    cdef void _order_features(self, Layout lay, int level, Node* node, int32_t* order) noexcept nogil:
        """Features sorted by the weighted Gini impurity of their best single
        split, so that good incumbents (and hence tight bounds) come early.
        The best Gini position of each feature is kept: Branch evaluates it first."""
        cdef int32_t* gpos = &self.gini_positions[level][0]
        cdef double* score = &self.gini_scores[0]
        cdef int f
        for f in range(self.p):
            lay.gini_split(node, f, &score[f], &gpos[f])
        for f in range(self.p):
            order[f] = f
        _sort_by(order, score, self.p)

    cdef double _search(self, Layout lay, int level, Node* node, int depth, double ub_in, double gap,
                        double known_lb, double* best_val_io, int32_t* best_tree_io,
                        double spent) noexcept nogil:
        """The ConTree search of one node: Branch over every feature (in Gini
        order; root features claimed from the shared counter when threaded).
        Improves the incumbent in place and returns a valid lower bound."""
        cdef double best_val = best_val_io[0], ub, node_lb, gap_here = gap
        cdef int32_t best_tree = best_tree_io[0]
        cdef int f
        cdef int32_t* order = &self.feature_orders[level][0]
        cdef int fi = 0
        cdef bint claiming = level == 0 and self.ctl.shared != NULL
        ub = ub_in if ub_in < best_val else best_val
        node_lb = best_val   # min over the lower bounds of every alternative
        if self._split_floors(lay, level, node, depth, &known_lb) and ub <= known_lb + gap_here + EPS:
            self.n_class_prunes += 1
            fi = self.p       # no split can beat the incumbent: nothing to search
        else:
            self._order_features(lay, level, node, order)
            if depth <= 3 and not claiming and spent == FREE:
                self._probe_features(lay, level, node, depth, order, known_lb + gap_here, &ub, &best_val,
                                     &best_tree)
        while True:
            if claiming:
                fi = share_claim(self.ctl.shared)
                self._sync_root(level, &ub)
            if fi >= self.p:
                break
            f = order[fi]
            fi += 1
            if level == 0 and self.root_allowed.size() > 0 and not self.root_allowed[f]:
                continue
            if ub <= known_lb + gap_here + EPS:
                break
            if self._timed_out():
                if self.cost < node_lb:
                    node_lb = self.cost
                break
            if self.split_floors[level][f] >= ub - gap_here - EPS:
                continue          # every split of f is at least this (the end's clamp covers it)
            self._branch(lay, level, node, depth, f, gap, &ub, &best_val, &best_tree, &node_lb,
                         known_lb, spent)
        # pruned thresholds were cut against some ub_t >= ub: they are >= ub - gap_here
        if ub - gap_here < node_lb:
            node_lb = ub - gap_here
        if node_lb < known_lb:
            node_lb = known_lb
        best_val_io[0] = best_val
        best_tree_io[0] = best_tree
        return node_lb

    cdef void _probe_features(self, Layout lay, int level, Node* node, int depth, int32_t* order,
                              double enough, double* ub, double* best_val, int32_t* best_tree) noexcept nogil:
        """A node of depth two or three scores every feature's best Gini
        threshold with depth-one children (one D2Split scan each) before it
        searches any feature, keeps the best as its incumbent, and searches
        the features in the order of these values (until one meets
        ``enough``, the node's known bound).  ConTree's Gini order alone
        searched a feature to its end under the weak bound of its own first
        threshold, which may lie far above the optimum found on a later
        feature; the probes find the optimum's feature first.  At depth two each probe is the first threshold
        :meth:`_branch_step` takes of its feature, so it is not scanned
        twice; at depth three it is a depth-two tree, an upper bound on
        what the feature's threshold can do."""
        cdef int32_t* P = &self.positions[level][0]
        cdef double* D = &self.distances[level][0]
        cdef double* vals = &self.probe_vals[0]
        cdef Split1* sides = &self.probe_sides[0]
        cdef double val
        cdef int r, f, m, w
        cdef int32_t lo, hi
        for r in range(self.p):
            f = order[r]
            vals[f] = INFINITY
            self.probe_pos[f] = -1
            if level == 0 and self.root_allowed.size() > 0 and not self.root_allowed[f]:
                continue
            if self._timed_out() or ub[0] <= enough + EPS:
                return          # (an incumbent this good ends the node's search anyway)
            if self.split_floors[level][f] >= ub[0] - EPS:
                continue
            m = lay.thresholds(node, f, P, D)
            if m == 0:
                continue
            w = first_at_least(P, 0, m - 1, self.gini_positions[level][f])
            if w >= m:
                continue
            lay.children_depth_one(level, node, f, P[w], self.min_leaf, &sides[2 * f], &sides[2 * f + 1])
            if depth == 2:
                self.probe_pos[f] = P[w]
            val = sides[2 * f].val + sides[2 * f + 1].val + self.cost
            vals[f] = val
            if val < best_val[0] - EPS:
                best_val[0] = val
                lay.split_ranks(node, f, P[w], &lo, &hi)
                best_tree[0] = self._new_node(f, lo, hi, self._stump(&sides[2 * f]),
                                              self._stump(&sides[2 * f + 1]))
                if val < ub[0]:
                    ub[0] = val
                if level == 0:
                    self._root_improved(val, best_tree[0])
        self.probe_h1 = node.h1
        self.probe_size = node.size
        _sort_by(order, vals, self.p)       # ties keep the Gini order

    cdef double _search_root(self, Layout lay, Node* node, int depth, double ub_in, double gap,
                             double known_lb, double* best_val_io, int32_t* best_tree_io) noexcept nogil:
        """The root's search over one frontier: every feature's threshold
        intervals wait in it, and the next one expanded is, in turn, the one
        with the lowest bound (equal bounds: the better Gini feature, then
        the earliest) and ConTree's next one (the better Gini feature's
        earliest interval).  The root's lower bound is the lowest bound left
        in the frontier, so the best-first steps make it rise while the
        search runs, and a search stopped at its time limit reports a bound
        above zero (ConTree's order alone, feature after feature, bounds
        nothing until every feature is started); ConTree's steps keep the
        good trees of its order coming early.  Pure best-first proves
        faster but finds good trees later, so ConTree's steps go on only
        while they pay: after DIVE_PATIENCE of them in a row without a
        better tree, one in DIVE_SPARSE steps, until a step of either kind
        improves the incumbent.

        Engines on several threads share one frontier (``share_root_with``):
        each takes the lowest interval, expands it with its own data and
        cache, and queues what is left; the work is balanced interval by
        interval, not feature by feature.  Returns a valid lower bound."""
        cdef double best_val = best_val_io[0], ub, node_lb = INFINITY
        cdef int32_t best_tree = best_tree_io[0]
        cdef int32_t* order = &self.feature_orders[0][0]
        cdef int32_t* P = &self.positions[0][0]
        cdef double* D = &self.distances[0][0]
        cdef vector[Interval]* fresh = &self.queues[0]
        cdef RootShare* lock = self.front.share
        cdef bint similar = self.prune, done = False, dive
        cdef double before
        cdef RootItem item
        cdef size_t k
        cdef int r, f, m, zl, zr, fw, busy
        ub = ub_in if ub_in < best_val else best_val
        self._order_features(lay, 0, node, order)
        if self.ctl.shared == NULL:
            self.front.started = False      # a private frontier starts afresh every solve
        share_lock(lock)
        if not self.front.started:
            self.front.reset(self.p, known_lb)
            for r in range(self.p):
                f = order[r]
                if self.root_allowed.size() > 0 and not self.root_allowed[f]:
                    continue
                m = lay.thresholds(node, f, P, D)
                if m == 0:
                    continue
                self.front.zero_r[f] = m
                self.front.first_w[f] = first_at_least(P, 0, m - 1, self.gini_positions[0][f])
                queue_start(fresh, m, self.cost)
                self._queue_root(fresh, f, r)
            self.front.started = True
        share_unlock(lock)
        while not done:
            self._sync_root(0, &ub)
            if ub <= known_lb + gap + EPS or self._timed_out():
                break
            share_lock(lock)
            if self.front.finished:
                share_unlock(lock)
                break
            if self.front.items.size() == 0:
                busy = self.front.busy
                share_unlock(lock)
                if busy == 0:
                    break
                usleep(200)         # another engine may still queue intervals
                continue
            # every other step the lowest bound (the proof: the root's bound rises),
            # in between ConTree's order, feature after feature (good trees
            # early), while it finds them
            dive = (self.front.steps & 1) and (self.front.dives_idle < DIVE_PATIENCE
                                               or self.front.steps % DIVE_SPARSE == 1)
            k = lowest_item(&self.front.items, similar, self.cost, dive)
            self.front.steps += 1
            self.n_root_steps += 1
            self.n_root_dives += dive
            item = self.front.items[k]
            self.front.items[k] = self.front.items.back()
            self.front.items.pop_back()
            f = item.f
            self.front.in_flight[self.front_slot] = interval_floor(&item.iv, similar, self.cost)
            self.front.busy += 1
            zl = self.front.zero_l[f]
            zr = self.front.zero_r[f]
            fw = self.front.first_w[f]
            self.front.first_w[f] = -1       # a feature's first interval is its only one
            share_unlock(lock)
            lay.thresholds(node, f, P, D)    # O(n): cheap beside the children's searches
            fresh.clear()
            before = best_val
            done = self._branch_step(lay, 0, node, depth, f, gap, P, D, NULL, &item.iv, fresh, &zl, &zr,
                                     &fw, &ub, &best_val, &best_tree, &node_lb, known_lb, FREE)
            share_lock(lock)
            if best_val < before - EPS:
                self.front.dives_idle = 0
            elif dive:
                self.front.dives_idle += 1
            if zl > self.front.zero_l[f]:
                self.front.zero_l[f] = zl
            if zr < self.front.zero_r[f]:
                self.front.zero_r[f] = zr
            self._queue_root(fresh, f, item.rank)
            if node_lb < self.front.evaluated_lb:
                self.front.evaluated_lb = node_lb
            self.front.in_flight[self.front_slot] = INFINITY
            self.front.busy -= 1
            if done:
                self.front.finished = True
            self._raise_root_bound(ub - gap, known_lb)
            share_unlock(lock)
        share_lock(lock)
        self._raise_root_bound(ub - gap, known_lb)
        share_unlock(lock)
        best_val_io[0] = best_val
        best_tree_io[0] = best_tree
        return self.root_bound

    cdef void _queue_root(self, vector[Interval]* fresh, int f, int rank) noexcept nogil:
        """Queue feature f's intervals in the frontier (its lock held)."""
        cdef RootItem item
        cdef size_t k
        item.f = f
        item.rank = rank
        for k in range(fresh.size()):
            item.iv = fresh[0][k]
            item.seq = self.front.seq
            self.front.seq += 1
            self.front.items.push_back(item)

    cdef void _raise_root_bound(self, double dropped_lb, double known_lb) noexcept nogil:
        """The root's lower bound now (the frontier's lock held): the least
        of every evaluated threshold's bound, every queued or in-flight
        interval's, and ``dropped_lb`` (ub - gap: the intervals the bounds
        dropped were cut against some ub_t >= ub), at least ``known_lb``.
        The frontier keeps the highest such bound: all are valid, and a later
        one may sit lower (ub - gap falls under a slack)."""
        cdef double out = self.front.evaluated_lb, floor_k
        cdef size_t k
        for k in range(self.front.items.size()):
            floor_k = interval_floor(&self.front.items[k].iv, self.prune, self.cost)
            if floor_k < out:
                out = floor_k
        for k in range(self.front.in_flight.size()):
            if self.front.in_flight[k] < out:
                out = self.front.in_flight[k]
        if dropped_lb < out:
            out = dropped_lb
        if known_lb > out:
            out = known_lb
        if out > self.front.bound:
            self.front.bound = out
        self.root_bound = self.front.bound

    cdef int _rank_candidates(self, Layout lay, int level, Node* node, int limit) noexcept nogil:
        """The node's candidate splits in rank order (``rules.cands[level]``,
        the first ``limit``); returns how many it has.  A limit within the
        rank's first round (each feature's best split, as the greedy first
        pass has) keeps only each feature's best while counting the rest:
        every threshold of every feature, 16 bytes each, outgrew the
        buffers on wide data (5000 x 100: 12.6 MB against 12.3 MB, past a
        memory limit the search had met)."""
        cdef int f, k, best, total = 0, with_splits = 0
        cdef size_t start
        cdef vector[Cand]* scratch = &self.rules.scratch
        if limit <= self.p:
            scratch.clear()
            for f in range(self.p):
                start = scratch.size()
                self.rules.feature_start[f] = <int32_t>start
                lay.candidates(node, f, scratch)
                if scratch.size() == start:
                    continue
                total += <int>(scratch.size() - start)
                best = <int>start
                for k in range(<int>start + 1, <int>scratch.size()):
                    if scratch[0][k].score < scratch[0][best].score:
                        best = k      # the first of the least, as rules.rank picks it
                scratch[0][start] = scratch[0][best]
                scratch.resize(start + 1)
                with_splits += 1
            if limit <= with_splits:
                self.rules.rank(level, self.p, limit)
                return total
        self.rules.scratch.clear()
        for f in range(self.p):
            self.rules.feature_start[f] = <int32_t>self.rules.scratch.size()
            lay.candidates(node, f, &self.rules.scratch)
        return self.rules.rank(level, self.p, limit)

    cdef double _search_restricted(self, Layout lay, int level, Node* node, int depth, double ub_in,
                                   double gap, double known_lb, double* best_val_io,
                                   int32_t* best_tree_io, double spent) noexcept nogil:
        """One node under a candidate rule: try the node's candidate splits in
        rank order (round-robin over features by Gini, each feature's thresholds
        by Gini) while the rule admits them, the children under the rule's
        updated state.  A result that skipped candidates proves nothing new:
        its lower bound stays ``known_lb``, so no restart trusts it as exact."""
        cdef int nn = node.size, r, a, b, total, limit, verdict
        cdef double weight = _node_weight(lay, node.counts, self.K)
        cdef double cost = self.cost
        cdef double best_val = best_val_io[0], ub, bound, bound_b, lb_w, val_w, all_lb = INFINITY
        cdef double child_spent, best_score
        cdef int32_t best_tree = best_tree_io[0], tree_l, tree_r
        cdef bint cut = False, complete = True, dominated = False
        cdef Cand c
        cdef Split1 s_l, s_r
        cdef Result child[2]
        cdef Node child_node[2]
        cdef vector[Cand]* cands = &self.rules.cands[level]
        cdef Split1 small_root
        cdef Split1 small_sides[2]
        limit = self.rules.limit(level, spent)
        total = self._rank_candidates(lay, level, node, limit)
        if self.rules.unrestricted(level, depth, spent, total):
            if depth <= lay.exact_depth:
                if lay.solve_exact(node, depth, best_val_io, &small_root, small_sides):
                    best_tree_io[0] = self._small_tree(&small_root, small_sides)
                return best_val_io[0]
            return self._search(lay, level, node, depth, ub_in, gap, known_lb, best_val_io,
                                best_tree_io, FREE)
        ub = ub_in if ub_in < best_val else best_val
        best_score = cands[0][0].score if cands.size() > 0 else 0.0
        for r in range(<int>cands.size()):
            c = cands[0][r]
            verdict = self.rules.admit(r, c.score, best_score, weight, spent, limit, &child_spent)
            if verdict != CAND_TRY:
                cut = True
                if verdict == CAND_SKIP:
                    continue
                break
            if ub <= known_lb + gap + EPS:
                dominated = True      # nothing left can beat the incumbent by more than gap
                break
            if self._timed_out():
                complete = False
                break
            if depth == 2:
                # the children are depth-one trees: the layout gives both exactly
                lay.children_depth_one(level, node, c.f, c.pos, self.min_leaf, &s_l, &s_r)
                val_w = s_l.val + s_r.val + cost
                lb_w = val_w
            else:
                lay.partition(level, node, c.f, c.pos, child_node)
                bound = ub - gap - cost
                a = 0 if c.pos >= nn - c.pos else 1
                b = 1 - a
                child[a] = self._solve(lay, level + 1, &child_node[a], depth - 1, bound, 0.0,
                                       child_spent)
                bound_b = bound - child[a].lb
                if bound_b > EPS:
                    lay.hint_sibling(node, depth, &child_node[b], &child_node[a])
                    child[b] = self._solve(lay, level + 1, &child_node[b], depth - 1, bound_b, 0.0,
                                           child_spent)
                    lay.clear_hint()
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
                if depth == 2:
                    tree_l = self._stump(&s_l)
                    tree_r = self._stump(&s_r)
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
            self.rules.n_rule_cuts += 1
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

    cdef Result _solve_root_child(self, Layout lay, Node* child, int depth, double bound, int f,
                                  Interval* iv, int w, int side, double spent) noexcept nogil:
        """A child of the root's threshold w (side 0: left), solved from its
        nested neighbour's threshold bounds: the left child of any threshold
        right of u holds u's left child, so every bound u's left child's
        search proved on its splits holds for it (and likewise from v on the
        right).  What this search proves, with what it started from, is kept
        for the children of thresholds beyond w."""
        cdef Result r
        cdef int nb = iv.u if side == 0 else iv.v
        cdef int64_t key
        cdef unordered_map[int64_t, vector[SeedPoint]].iterator it
        cdef size_t k, out
        cdef vector[SeedPoint]* rec
        if not (self.prune and spent == FREE and depth >= 2 and self.seeds_on):
            return self._solve(lay, 1, child, depth, bound, 0.0, spent)
        self.seed_in = NULL
        self.seed_out.clear()
        if nb >= 0:
            it = self.root_seeds.find((<int64_t>nb * self.p + f) * 2 + side)
            if it != self.root_seeds.end() and deref(it).second.size() > 0:
                self.seed_in = &deref(it).second
                self.seed_out = deref(it).second
                self.n_seeded += 1
        self.seed_recording = True
        r = self._solve(lay, 1, child, depth, bound, 0.0, spent)
        self.seed_recording = False
        self.seed_in = NULL
        if self.seed_out.size() == 0:
            return r
        std_sort(self.seed_out.begin(), self.seed_out.end(), _seed_less)
        out = 0
        for k in range(1, self.seed_out.size()):
            if (self.seed_out[k].f == self.seed_out[out].f and self.seed_out[k].lo == self.seed_out[out].lo):
                if self.seed_out[k].lb_l > self.seed_out[out].lb_l:
                    self.seed_out[out].lb_l = self.seed_out[k].lb_l
                if self.seed_out[k].lb_r > self.seed_out[out].lb_r:
                    self.seed_out[out].lb_r = self.seed_out[k].lb_r
            else:
                out += 1
                self.seed_out[out] = self.seed_out[k]
        self.seed_out.resize(out + 1)
        key = (<int64_t>w * self.p + f) * 2 + side
        rec = &self.root_seeds[key]
        self.seed_bytes -= rec.capacity() * sizeof(SeedPoint)
        rec.swap(self.seed_out)
        self.seed_bytes += rec.capacity() * sizeof(SeedPoint) + 64
        return r

    cdef void _record_seed(self, Layout lay, Node* node, int f, int32_t pos, double lb_l,
                           double lb_r) noexcept nogil:
        cdef SeedPoint sp
        cdef int32_t hi
        sp.f = f
        lay.split_ranks(node, f, pos, &sp.lo, &hi)
        sp.lb_l = lb_l
        sp.lb_r = lb_r
        self.seed_out.push_back(sp)

    cdef bint _seed_floors(self, Layout lay, Node* node, int f, int32_t* P, double* D, int m,
                           double* FL, double* out) noexcept nogil:
        """Each of feature f's thresholds' bound from those handed on
        (``seed_in``), less one node's cost, into ``out`` (with the class
        floors ``FL``, when given, as the larger): a threshold's left child
        holds every bounded threshold's left of it (SP) and is at least a
        bounded one's on its right less the weight between (IS); the right
        child likewise.  False when no bound lies on f's thresholds."""
        cdef vector[SeedPoint]* S = self.seed_in
        cdef size_t lo = 0, hi = S.size(), mid, k
        cdef int pos, idx, cnt = 0, x
        cdef double run, neg = -INFINITY
        cdef vector[double]* L = &self.seed_left
        cdef vector[double]* R = &self.seed_right
        while lo < hi:
            mid = (lo + hi) >> 1
            if S[0][mid].f < f:
                lo = mid + 1
            else:
                hi = mid
        # L[x]: best left-child bound found at x; R[x] the right's (-inf: none)
        L.assign(m, neg)
        R.assign(m, neg)
        k = lo
        while k < S.size() and S[0][k].f == f:
            pos = lay.rank_position(node, f, S[0][k].lo)
            k += 1
            if pos <= 0 or pos >= node.size:
                continue
            idx = first_at_least(P, 0, m - 1, pos)
            if idx >= m or P[idx] != pos:
                continue
            if S[0][k - 1].lb_l > L[0][idx]:
                L[0][idx] = S[0][k - 1].lb_l
            if S[0][k - 1].lb_r > R[0][idx]:
                R[0][idx] = S[0][k - 1].lb_r
            cnt += 1
        if cnt == 0:
            return False
        # left child of x: max(SP from the left, IS from the right)
        run = neg
        for x in range(m):                       # SP left: max l_a, a <= x
            if L[0][x] > run:
                run = L[0][x]
            out[x] = run if run > 0.0 else 0.0
        run = neg
        for x in range(m - 1, -1, -1):           # IS left: max over b >= x of l_b - (D[b] - D[x])
            if L[0][x] - D[x] > run:
                run = L[0][x] - D[x]
            if run + D[x] > out[x]:
                out[x] = run + D[x]
        # right child of x, added
        run = neg
        for x in range(m - 1, -1, -1):           # SP right: max r_b, b >= x
            if R[0][x] > run:
                run = R[0][x]
            L[0][x] = run if run > 0.0 else 0.0  # (L reused as the right child's bound)
        run = neg
        for x in range(m):                       # IS right: max over a <= x of r_a - (D[x] - D[a])
            if R[0][x] + D[x] > run:
                run = R[0][x] + D[x]
            if run - D[x] > L[0][x]:
                L[0][x] = run - D[x]
        for x in range(m):
            out[x] += L[0][x]
            if FL != NULL and FL[x] > out[x]:
                out[x] = FL[x]
        return True

    cdef void _branch(self, Layout lay, int level, Node* node, int depth, int f, double gap,
                      double* ub, double* best_val, int32_t* best_tree, double* node_lb,
                      double known_lb, double spent) noexcept nogil:
        """Algorithm 1 for one feature, in the sound form of the notes §4.5:
        thresholds by intervals (``_intervals.pxd``), the best Gini threshold
        first (a greedy-quality incumbent at once), then midpoints of what
        the bounds leave, first in first out."""
        cdef int32_t* P = &self.positions[level][0]
        cdef double* D = &self.distances[level][0]
        cdef vector[Interval]* Q = &self.queues[level]
        cdef size_t head = 0
        cdef int m, zero_l = -1, zero_r, first_w, steps = 0
        cdef Interval iv
        # a depth-two node may sweep what is left of the feature whole (exact
        # depth-one children at every threshold, :meth:`_sweep_rest`)
        cdef bint may_sweep = depth == 2 and self.prune and spent == FREE
        cdef double* FL = NULL       # each split position's class floor (without cost), when the node has them
        m = lay.thresholds(node, f, P, D)
        if m == 0:
            return
        if self.floors_on[level] and self.floor_gate[level] >= ub[0] - gap - EPS:
            FL = &self.thr_floors[level][0]
            lay.split_floor(node, f, depth - 1, P, m, FL)
        if level == 1 and self.seed_in != NULL:
            if self.seed_floor.size() < <size_t>m:
                self.seed_floor.resize(m)
            if self._seed_floors(lay, node, f, P, D, m, FL, &self.seed_floor[0]):
                FL = &self.seed_floor[0]
        zero_r = m
        queue_start(Q, m, self.cost)
        first_w = first_at_least(P, 0, m - 1, self.gini_positions[level][f])
        while head < Q.size():
            iv = Q[0][head]
            head += 1
            if self._timed_out():
                # every threshold left in the queue is >= its SP bound
                node_lb[0] = queue_floor(Q, head - 1, self.prune or depth == 2, self.cost, node_lb[0])
                return
            if may_sweep and lay.sweep_due(node, steps):
                self._sweep_rest(lay, level, node, f, gap, P, Q, head - 1, ub, best_val, best_tree,
                                 node_lb, known_lb)
                return
            steps += 1
            if self._branch_step(lay, level, node, depth, f, gap, P, D, FL, &iv, Q, &zero_l, &zero_r,
                                 &first_w, ub, best_val, best_tree, node_lb, known_lb, spent):
                return

    cdef void _sweep_rest(self, Layout lay, int level, Node* node, int f, double gap, int32_t* P,
                          vector[Interval]* Q, size_t head, double* ub, double* best_val,
                          int32_t* best_tree, double* node_lb, double known_lb) noexcept nogil:
        """The rest of a depth-two node's search of feature f (the intervals
        queued from ``head``) by one sweep: every threshold between the first
        and the last interval still worth a look gets its exact value (both
        children's best depth-one splits, :meth:`SortedLayout.sweep_feature`,
        one pass per f2), so the search costs p passes of n log n, not one
        D2Split scan per threshold that the bounds leave.  The best threshold's
        tree comes from D2Split, as the search's would."""
        cdef double cost = self.cost, limit = ub[0] - gap, val, best = INFINITY, val_w
        cdef int i = 2147483647, j = -1, w, f2, best_w = -1
        cdef size_t q
        cdef Split1 s_l, s_r
        for q in range(head, Q.size()):
            if Q[0][q].floor >= limit - EPS:
                continue          # nothing in it goes below the limit (narrow would drop it)
            if Q[0][q].i < i:
                i = Q[0][q].i
            if Q[0][q].j > j:
                j = Q[0][q].j
        if j < i:
            return                # every interval left is cut by the bounds
        self.n_swept += j - i + 1
        if not lay.sweep_start(node, f, P, i, j):
            node_lb[0] = queue_floor(Q, head, True, cost, node_lb[0])
            return
        for f2 in range(self.p):
            if self._timed_out():
                node_lb[0] = queue_floor(Q, head, True, cost, node_lb[0])
                return
            lay.sweep_feature(node, f, f2, P, i, j)
        for w in range(i, j + 1):
            val = lay.sweep_value(node, P, i, w)
            if val < node_lb[0]:
                node_lb[0] = val
            if val < best - EPS:
                best = val
                best_w = w
        if best_w < 0 or best >= best_val[0] - EPS:
            return
        lay.children_depth_one(level, node, f, P[best_w], self.min_leaf, &s_l, &s_r)
        val_w = s_l.val + s_r.val + cost
        if val_w >= best_val[0] - EPS:
            return
        self._take_incumbent(lay, level, node, f, P[best_w], val_w, self._stump(&s_l), self._stump(&s_r),
                             ub, best_val, best_tree)

    cdef void _take_incumbent(self, Layout lay, int level, Node* node, int f, int pos, double val,
                              int32_t tree_l, int32_t tree_r, double* ub, double* best_val,
                              int32_t* best_tree) noexcept nogil:
        """A better tree of this node, split at (f, pos) over the subtrees
        ``tree_l`` and ``tree_r``: the node's incumbent, its bound for the
        rest of the search, and at the root the one every thread sees."""
        cdef int32_t lo, hi
        best_val[0] = val
        lay.split_ranks(node, f, pos, &lo, &hi)
        best_tree[0] = self._new_node(f, lo, hi, tree_l, tree_r)
        if val < ub[0]:
            ub[0] = val
        if level == 0:
            self._root_improved(val, best_tree[0])
            if self.ctl.shared != NULL:
                share_offer(self.ctl.shared, val)

    cdef bint _branch_step(self, Layout lay, int level, Node* node, int depth, int f, double gap,
                           int32_t* P, double* D, double* FL, Interval* iv_in, vector[Interval]* Q,
                           int* zero_l_io, int* zero_r_io, int* first_w_io,
                           double* ub, double* best_val, int32_t* best_tree, double* node_lb,
                           double known_lb, double spent) noexcept nogil:
        """One interval of feature f's thresholds (positions P, distances D):
        narrow it by the bounds, evaluate a threshold in it (the feature's
        best Gini threshold if it is still there, else the midpoint), and
        queue in Q what the bounds leave on either side.  ``zero_l``/``zero_r``
        (Theorem 2) and ``first_w`` are the feature's state across intervals.
        True when the incumbent meets the known bound: the node is done."""
        cdef int nn = node.size, i, j, w, ml = self.min_leaf
        cdef int zero_l = zero_l_io[0], zero_r = zero_r_io[0]
        cdef int32_t pos, nl, nr
        cdef double gap_here = gap, cost = self.cost, eta
        cdef double lb_l, lb_r, lb_w, val_w, bound, bound_b, floor_limit = 0.0
        cdef Interval iv = iv_in[0]
        cdef Split1 s_l, s_r, u_l, u_r
        # lower bounds obey the similarity bound: always without leaf sizes,
        # and at depth two with them (bounds from unconstrained depth-one optima)
        cdef bint similar = self.prune or depth == 2
        cdef Result child[2]                 # [0] left child, [1] right child
        cdef Node child_node[2]
        cdef int a, b
        cdef int32_t tree_l, tree_r
        cdef bint have_val, left_zero, right_zero
        i = iv.i
        j = iv.j
        self._sync_root(level, ub)
        if similar and not narrow(&iv, D, ub[0] - gap_here, cost, zero_l, zero_r, &i, &j):
            return False
        if FL != NULL:
            # thresholds whose class floor reaches the bound: off the ends, and not evaluated
            floor_limit = ub[0] - gap_here - cost - EPS
            while i <= j and FL[i] >= floor_limit:
                i += 1
            while j >= i and FL[j] >= floor_limit:
                j -= 1
            if i > j:
                return False
        w = (i + j) // 2
        if first_w_io[0] >= 0:
            if i <= first_w_io[0] <= j:
                w = first_w_io[0]
            first_w_io[0] = -1
        if FL != NULL:
            while FL[w] >= floor_limit:
                w += 1          # (FL[j] is below the limit)
        pos = P[w]
        have_val = False
        tree_l = -1
        tree_r = -1
        if depth == 2:
            if self.probe_pos[f] == pos and self.probe_h1 == node.h1 and self.probe_size == nn:
                s_l = self.probe_sides[2 * f]      # probed already (_probe_features)
                s_r = self.probe_sides[2 * f + 1]
                self.probe_pos[f] = -1
            else:
                lay.children_depth_one(level, node, f, pos, ml, &s_l, &s_r)
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
                lay.children_depth_one(level, node, f, pos, 1, &u_l, &u_r)
                lb_l = u_l.val
                lb_r = u_r.val
        else:
            nl = pos
            nr = nn - pos
            # depth-two children may come solved together, the larger without its rows
            # (only the exhaustive path reads their answers: the rules' path reads rows)
            if not (depth == 3 and spent == FREE
                    and lay.pair_children(level, node, f, pos, child_node)):
                lay.partition(level, node, f, pos, child_node)
            eta = 0.0
            if self.prune:
                eta = D[w] - D[i]
                if D[j] - D[w] > eta:
                    eta = D[j] - D[w]
            bound = ub[0] - gap_here - cost
            # larger child first with the full bound, the other with what is
            # left of it (+ eta, so NB can still decide the whole interval)
            a = 0 if nl >= nr else 1
            b = 1 - a
            if level == 0:
                child[a] = self._solve_root_child(lay, &child_node[a], depth - 1, bound, f, &iv, w, a, spent)
            else:
                child[a] = self._solve(lay, level + 1, &child_node[a], depth - 1, bound, 0.0, spent)
            bound_b = bound - child[a].lb + eta
            if bound_b > EPS:
                lay.hint_sibling(node, depth, &child_node[b], &child_node[a])
                if level == 0:
                    child[b] = self._solve_root_child(lay, &child_node[b], depth - 1, bound_b, f, &iv, w,
                                                      b, spent)
                else:
                    child[b] = self._solve(lay, level + 1, &child_node[b], depth - 1, bound_b, 0.0,
                                           spent)
                lay.clear_hint()
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
            if self.prune:
                # SP: w's children hold its neighbours' (a child stopped at the
                # time limit or skipped may return less)
                if iv.u_left > lb_l:
                    lb_l = iv.u_left
                if iv.v_right > lb_r:
                    lb_r = iv.v_right
        if level == 1 and self.seed_recording:
            self._record_seed(lay, node, f, pos, lb_l, lb_r)
        lb_w = lb_l + lb_r + cost
        # this threshold's share of the node's bound: its exact value when
        # the depth-one optima gave one (tighter than lb_w under leaf sizes)
        if depth == 2:
            if val_w < node_lb[0]:
                node_lb[0] = val_w
        elif lb_w < node_lb[0]:
            node_lb[0] = lb_w
        if have_val and val_w < best_val[0] - EPS:
            if depth == 2:
                tree_l = self._stump(&s_l)
                tree_r = self._stump(&s_r)
            self._take_incumbent(lay, level, node, f, pos, val_w, tree_l, tree_r, ub, best_val, best_tree)
            if val_w <= known_lb + gap_here + EPS:
                return True
        if not similar:
            push_halves(Q, &iv, i, j, w)
            return False
        # an exact zero on one side (Theorem 2); the solved side suffices.
        # Monotonicity fails under leaf sizes, so only without them.
        if self.prune and left_zero and w > zero_l:
            zero_l_io[0] = w
        if self.prune and right_zero and w < zero_r:
            zero_r_io[0] = w
        push_beyond(Q, &iv, D, i, j, w, lb_l, lb_r, lb_w, ub[0] - gap_here, cost)
        return False

