# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The DP / branch-and-bound core of ConTree (Brita, van der Linden,
Demirovic, AAAI 2025), written once over the data layouts (``_layout.pxd``).

DP over (instance set, depth) with a cache of proven bounds and best trees
(this module: the engine's API, memory, the node-level recursion);
branch-and-bound over each feature's thresholds (``_branch``, by the
intervals of ``_intervals.pxd``) in the order ``_features`` gives; the
root's best-first search (``_root_search``, ``_seeds``); the anytime
strategies restrict it through a rule (``_rules.pyx``, ``_restricted``);
run control (``_control.pyx``) stops it.

Invariant of :meth:`Engine._solve` (see the implementation notes §4.4): the
returned ``lb`` is always a valid lower bound on the subproblem's optimum,
and ``tree``/``val`` is always a real tree and its exact objective.  A bound
that cut the search never masquerades as a score.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.math cimport INFINITY
from libcpp.unordered_map cimport unordered_map
from cython.operator cimport dereference as deref

import math
from dataclasses import dataclass

import numpy as np

from optimaltrees.search.engine._branch cimport branch
from optimaltrees.search.engine._common cimport CACHE_ENTRY_BYTES, EPS, FREE, LEAF, Node, Split1, TNode, now
from optimaltrees.search.engine._control cimport RunControl, SharedRoot, share_claim, share_ub
from optimaltrees.search.engine._features cimport feature_floors, order_features, probe_features, side_start
from optimaltrees.search.engine._intervals cimport Interval, RootItem, interval_floor
from optimaltrees.search.engine._layout cimport Layout
from optimaltrees.search.engine._layout_base cimport DataLayout
from optimaltrees.search.engine._node_cost cimport floors_bite, leaf_cost, node_floor, node_weight
from optimaltrees.search.engine._restricted cimport search_restricted
from optimaltrees.search.engine._root_search cimport search_root
from optimaltrees.search.engine._rules cimport NODE_CUT, NODE_SEARCH, RULE_NONE, RuleState
from optimaltrees.search.engine._sorted cimport SortedLayout
from optimaltrees.search.engine._bitset cimport BitsetLayout
from optimaltrees.search.engine._additive cimport AdditiveLayout


@dataclass(frozen=True)
class SolveOutcome:
    """What one :meth:`Engine.solve` returns."""

    objective: float      # objective of ``root`` (may be worse than the upper bound asked for)
    lower_bound: float    # proven lower bound on the optimum
    root: int             # pool index of the tree's root (-1: none found)
    aborted: bool         # stopped early (time, Ctrl-C, memory, hook, stop request)


cdef class Engine:
    """One search over one data set in one layout.

    Construct with a layout (:class:`SortedLayout` or :class:`BitsetLayout`),
    then call :meth:`solve` (again, after :meth:`set_rule`, for a restart:
    the cache carries over).  Buffers are sized once, so the search
    allocates nothing but tree nodes and cache entries while it runs.
    """

    def __init__(self, layout, int n_classes, int max_depth, double cost=0.0, double gap=0.0,
                 int min_leaf=1, double memory_limit_mb=INFINITY, int64_t[::1] depth_words=None,
                 bint root_seeds=True, bint side_floors=False, bint cost_floors=True):
        """``memory_limit_mb``: INFINITY for none.  ``depth_words``: 64
        random integers that make a set's cache key differ per depth.
        ``root_seeds``: the ``root_seeds`` engine option; ``side_floors``:
        the ``side_floors`` option where some feature is lopsided
        (:func:`~optimaltrees.search.engine.lopsided`); ``cost_floors``:
        the ``cost_floors`` option."""
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
        self.side_on = side_floors
        self.cost_on = cost_floors and cost > 0.0
        self.side_base.assign(levels, -INFINITY)
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
        self.side_floors.resize(levels)
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
            if side_floors:
                self.side_floors[lvl].resize(layout.n_instances + 1)
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
        """Whether a node of this depth can have class floors (:func:`_features.feature_floors`):
        depth two or more, more classes than a child's leaves, and a layout
        that computes them."""
        return (isinstance(layout, SortedLayout) and (<SortedLayout>layout).has_floors
                and floors_bite(self.K, depth))

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
                  + self.thr_floors[lvl].capacity() + self.side_floors[lvl].capacity()) * sizeof(double)
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
            res.val = leaf_cost(lay, lay.root_counts.data(), self.K)
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
        cdef double leaf = leaf_cost(lay, node.counts, self.K)
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
        floor_lb = node_floor(lay, node.counts, self.K, depth) + self.cost
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
                node_lb = search_root(self, lay, node, depth, ub_in, gap, known_lb,
                                            &best_val, &best_tree)
            else:
                node_lb = self._search(lay, level, node, depth, ub_in, gap, known_lb,
                                       &best_val, &best_tree, FREE)
        else:
            # the rules read error rates and Gini gains per unit of the node's weight
            action = self.rules.node_action(depth, &spent, best_val, node_weight(lay, node.counts, self.K))
            if action == NODE_CUT:
                res.lb = known_lb
                res.val = best_val
                res.tree = best_tree
                return res
            if action == NODE_SEARCH:
                node_lb = self._search(lay, level, node, depth, ub_in, gap, known_lb,
                                       &best_val, &best_tree, spent)
            else:
                node_lb = search_restricted(self, lay, level, node, depth, ub_in, gap, known_lb,
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
        if spent == FREE and not claiming:
            side_start(self, lay, level, node, depth, &ub, &best_val, &best_tree, &known_lb)
        else:
            self.side_base[level] = -INFINITY
        node_lb = best_val   # min over the lower bounds of every alternative
        if ub <= known_lb + gap_here + EPS:
            fi = self.p       # settled before any feature (the cost floor): nothing to search
        elif feature_floors(self, lay, level, node, depth, &known_lb) and ub <= known_lb + gap_here + EPS:
            self.n_class_prunes += 1
            fi = self.p       # no split can beat the incumbent: nothing to search
        else:
            order_features(self, lay, level, node, order)
            if depth <= 3 and not claiming and spent == FREE:
                probe_features(self, lay, level, node, depth, order, known_lb + gap_here, &ub, &best_val,
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
            branch(self, lay, level, node, depth, f, gap, &ub, &best_val, &best_tree, &node_lb,
                         known_lb, spent)
        # pruned thresholds were cut against some ub_t >= ub: they are >= ub - gap_here
        if ub - gap_here < node_lb:
            node_lb = ub - gap_here
        if node_lb < known_lb:
            node_lb = known_lb
        best_val_io[0] = best_val
        best_tree_io[0] = best_tree
        return node_lb
