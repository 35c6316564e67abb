# cython: language_level=3
"""The search engine: DP over (instance set, depth) with a cache of proven
bounds and best trees, written once over the data layouts (``_layout.pxd``).
The node-level recursion lives in ``_core.pyx``; its parts, free functions
over the engine compiled for each layout, in ``_features`` (a node's
features before its search), ``_branch`` (one feature's thresholds),
``_root_search`` (the root's best-first frontier), ``_seeds`` (root
children seeded from their neighbours) and ``_restricted`` (the anytime
rules' search)."""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libcpp.vector cimport vector
from libcpp.unordered_map cimport unordered_map

from optimaltrees.search.engine._common cimport Node, Split1, TNode
from optimaltrees.search.engine._control cimport RunControl, SharedRoot
from optimaltrees.search.engine._intervals cimport Interval
from optimaltrees.search.engine._layout cimport Layout
from optimaltrees.search.engine._rules cimport RuleState


cdef struct Result:            # what one subproblem's solve proved
    double lb                  # valid lower bound on the optimum
    double val                 # objective of ``tree``
    int32_t tree               # pool index, or -1 when the subproblem was skipped



cdef struct SeedPoint:         # one threshold a root child's search bounded
    int32_t f                  # the feature ...
    int32_t lo                 # ... and the split: rows of rank <= lo on the left
    double lb_l, lb_r          # lower bounds of its children's optima (valid on any superset)


cdef struct Entry:             # one cached subproblem (key: set hash h1 mixed with the depth)
    uint64_t h2                # the set's second hash: a check against collisions
    int32_t size               # ... and its size
    double lb                  # proven lower bound
    double val                 # objective of the best tree known
    int32_t tree               # ... and that tree


cdef class Engine:
    cdef object layout                     # the layout searched over (``_layout.pxd``)
    cdef int p, K, max_depth, min_leaf     # features, classes, deepest tree, smallest leaf
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
    cdef vector[char] floors_on                   # per level: the node there has class floors (feature_floors)
    cdef vector[double] floor_gate                # per level: no split's floor + cost exceeds this (the node's)
    cdef vector[vector[double]] thr_floors        # per level: the searched feature's floor at each split
                                                  # position (n + 1 where the level can have floors:
                                                  # _may_floor; else empty)
    cdef bint side_on                      # splits with a light side are bounded by the node's
                                           # shallower optimum (an option, where some feature is lopsided)
    cdef bint cost_on                      # under a node cost, nodes are bounded by their shallower optimum
                                           # or their depth's node costs (an option; ``cost_floor``)
    cdef vector[double] side_base          # per level: a lower bound on the node's optimum one level
                                           # shallower (-inf: none this node)
    cdef vector[vector[double]] side_floors   # per level: the searched feature's floor from it at
                                              # each split position (n + 1 when side_on; else empty)
    # a node of depth two or three probes every feature's best Gini threshold before it searches any
    cdef vector[int32_t] probe_pos         # [f]: the probed split position (-1: none this solve)
    cdef vector[Split1] probe_sides        # [2 f], [2 f + 1]: its left and right depth-one children
    cdef vector[double] probe_vals         # [f]: its objective (the order the features are searched in)
    cdef uint64_t probe_h1                 # the node probed (its set hash ...
    cdef int probe_size                    # ... and size)
    cdef uint64_t depth_mix[64]            # mixed into a set's hash: one cache key per depth
    cdef vector[TNode] pool                # every tree found, as nodes; 0 is the shared leaf
    cdef unordered_map[uint64_t, Entry] cache   # solved subproblems by key (set hash mixed with depth)
    cdef size_t max_entries                # cache entries allowed now (the budget less everything else)
    cdef size_t memory_budget              # memory_limit in bytes; SIZE_MAX without a limit
    cdef size_t layout_bytes               # the layout's buffers (fixed at construction)
    cdef public bint memory_out            # the memory limit stopped the search
    cdef double root_lb                    # a lower bound the caller knows for the root
    # subproblems searched, answered by the cache, and cut by the similarity bound
    cdef public long long n_subproblems, n_cache_hits, n_similarity_prunes
    cdef public long long n_class_prunes   # subproblems cut by the class floor (:func:`class_floor`)
    cdef double best_root_val              # best objective at the root this solve
    cdef long long n_swept                 # thresholds whose depth-two trees sweeps scored
    cdef double root_bound                 # the root's lower bound proven so far this solve (rises)
    cdef long long n_root_steps            # root intervals this engine expanded ...
    cdef long long n_root_dives            # ... of which in ConTree's order (the rest best first)
    cdef int32_t best_root_tree            # ... and its tree (pool index; -1: none)
    # the root's children's threshold bounds, handed on to nested children
    # (a root threshold's left child is a superset of its left neighbour's)
    cdef unordered_map[int64_t, vector[SeedPoint]] root_seeds   # [(w * p + f) * 2 + side]
    cdef vector[SeedPoint]* seed_in        # the bounds the level-1 node being solved starts from (or NULL)
    cdef vector[SeedPoint] seed_out        # ... and those its search proves (with seed_in's)
    cdef bint seed_recording               # the level-1 node being solved records its bounds into seed_out
    cdef vector[double] seed_floor, seed_left, seed_right   # scratch: a feature's thresholds' bounds from them
    cdef size_t seed_bytes                 # what root_seeds holds
    cdef public long long n_seeded         # root children searched from a neighbour's bounds

    cdef bint _may_floor(self, object layout, int depth)
    cdef size_t _memory_bytes(self) noexcept nogil
    cdef void _update_cache_room(self) noexcept nogil
    cdef bint _timed_out(self) noexcept nogil
    cdef int32_t _new_node(self, int32_t feature, int32_t lo, int32_t hi,
                           int32_t left, int32_t right) noexcept nogil
    cdef void _grow_pool(self) noexcept nogil
    cdef int32_t _stump(self, Split1* s) noexcept nogil
    cdef int32_t _small_tree(self, Split1* root, Split1* sides) noexcept nogil
    cdef void _root_improved(self, double val, int32_t tree) noexcept nogil
    cdef void _sync_root(self, int level, double* ub) noexcept nogil
    cdef Result _solve_root(self, Layout lay, double upper_bound, double spent) noexcept nogil
    cdef Result _solve(self, Layout lay, int level, Node* node, int depth, double ub_in, double gap,
                       double spent) noexcept nogil
    cdef double _search(self, Layout lay, int level, Node* node, int depth, double ub_in, double gap,
                        double known_lb, double* best_val_io, int32_t* best_tree_io,
                        double spent) noexcept nogil
