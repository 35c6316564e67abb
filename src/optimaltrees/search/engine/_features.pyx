# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""A node's features before its search (``_features.pxd``)."""
from libc.stdint cimport int32_t
from libc.math cimport INFINITY

from optimaltrees.search.engine._common cimport EPS, FREE, Node, Split1
from optimaltrees.search.engine._control cimport share_offer
from optimaltrees.search.engine._core cimport Engine, Result
from optimaltrees.search.engine._intervals cimport first_at_least
from optimaltrees.search.engine._side_floor cimport side_floor_at
from optimaltrees.search.engine._layout cimport Layout
from optimaltrees.search.engine._node_cost cimport floors_bite, leaf_cost, node_floor


cdef inline void sort_by(int32_t* order, double* key, int p) noexcept nogil:
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


cdef bint feature_floors(Engine eng, Layout lay, int level, Node* node, int depth,
                         double* known_lb) noexcept nogil:
    """Each feature's class floor (:meth:`SortedLayout.split_floor`: the
    least over its splits of both children's rows outside the classes
    their leaves can name) plus one node's cost, into
    the engine's ``split_floors[level]``, and the node's bound from them (or the
    leaf's, if lower) into ``known_lb``.  Only where a child's leaves are
    fewer than the classes (``floors_on``, with buffers from
    :meth:`Engine._may_floor`); False: every floor left 0.  ``floor_gate``
    keeps the node's own floor, which no split's exceeds (0 + cost where
    :func:`class_floor` declines: then no threshold is trimmed)."""
    cdef int f
    cdef double v, least = INFINITY, leaf
    cdef double* out = &eng.split_floors[level][0]
    for f in range(eng.p):
        out[f] = 0.0
    eng.floors_on[level] = eng.thr_floors[level].size() > 0 and floors_bite(eng.K, depth)
    if not eng.floors_on[level]:
        return False
    eng.floor_gate[level] = node_floor(lay, node.counts, eng.K, depth - 1) + eng.cost
    for f in range(eng.p):
        v = lay.split_floor(node, f, depth - 1, NULL, 0, NULL) + eng.cost
        out[f] = v
        if v < least:
            least = v
    leaf = leaf_cost(lay, node.counts, eng.K)
    if leaf < least:
        least = leaf
    if least > known_lb[0]:
        known_lb[0] = least
    return True


cdef inline double costly_floor(Engine eng, Layout lay, Node* node, int depth) noexcept nogil:
    """What every tree of at least d branch nodes costs at a node of depth d."""
    return depth * eng.cost + node_floor(lay, node.counts, eng.K, depth)


cdef double cost_floor(Engine eng, Layout lay, int level, Node* node, int depth, double limit,
                       Result* shallower) noexcept nogil:
    """A bound on a node of depth d >= 2 under a node cost: a tree of at
    most d - 1 branch nodes has depth at most d - 1, so it costs at least
    opt_{d-1}; any other pays d node costs (and the node's class floor).
    opt_{d-1} is solved (at the next level's buffers, cached) only as far
    as ``limit`` or the d node costs, whichever is less: beyond, the bound
    is the node costs.  ``shallower`` receives that solve's result."""
    cdef double floor = costly_floor(eng, lay, node, depth)
    cdef double ask = floor + 2 * EPS
    if limit < ask:
        ask = limit
    shallower[0] = eng._solve(lay, level + 1, node, depth - 1, ask, 0.0, FREE)
    if shallower[0].lb < floor:
        floor = shallower[0].lb
    return floor


cdef void side_start(Engine eng, Layout lay, int level, Node* node, int depth, double* ub,
                     double* best_val, int32_t* best_tree, double* known_lb) noexcept nogil:
    """The node's optimum one level shallower, the base of its side floors
    (``_side_floor.pxd``), into ``side_base[level]`` (-inf: none).  Only
    at depth two and three, where it costs one depth-one scan or one
    depth-two subproblem beside the node's many; it is solved at the next
    level's buffers (the node's children are not made yet) and cached
    like any subproblem.  Its tree, of depth d - 1, is an incumbent.
    Under a node cost, where the node's costs alone reach ``ub``, the
    shallower solve settles the node (:func:`cost_floor`, into ``known_lb``):
    it is solved there for the tie-break's tiny costs too, but only where
    trees of d nodes are already out of reach."""
    cdef Result res
    cdef double floor
    cdef bint sides = eng.side_on and 2 <= depth <= 3
    eng.side_base[level] = -INFINITY
    if sides:
        res = eng._solve(lay, level + 1, node, depth - 1, INFINITY, 0.0, FREE)
        eng.side_base[level] = res.lb
    # only where it settles the node: the shallower tree is its optimum, or no tree beats ub
    if eng.cost_on and depth >= 2 and costly_floor(eng, lay, node, depth) >= ub[0] - EPS:
        floor = cost_floor(eng, lay, level, node, depth, ub[0], &res)
        if floor > known_lb[0]:
            known_lb[0] = floor
    elif not sides:
        return
    if res.tree >= 0 and res.val < best_val[0] - EPS:
        best_val[0] = res.val
        best_tree[0] = res.tree
        if res.val < ub[0]:
            ub[0] = res.val
        if level == 0:
            eng._root_improved(res.val, res.tree)
            if eng.ctl.shared != NULL:
                share_offer(eng.ctl.shared, res.val)


cdef void order_features(Engine eng, Layout lay, int level, Node* node, int32_t* order) noexcept nogil:
    """Features sorted by the weighted Gini impurity of their best single
    split, so that good incumbents (and hence tight bounds) come early.
    The best Gini position of each feature is kept: Branch evaluates it first."""
    cdef int32_t* gpos = &eng.gini_positions[level][0]
    cdef double* score = &eng.gini_scores[0]
    cdef int f
    for f in range(eng.p):
        lay.gini_split(node, f, &score[f], &gpos[f])
    for f in range(eng.p):
        order[f] = f
    sort_by(order, score, eng.p)


cdef void probe_features(Engine eng, Layout lay, int level, Node* node, int depth, int32_t* order,
                         double enough, double* ub, double* best_val, int32_t* best_tree) noexcept nogil:
    """A node of depth two or three scores every feature's best Gini
    threshold with depth-one children (one D2Split scan each) before it
    searches any feature, keeps the best as its incumbent, and searches
    the features in the order of these values (until one meets
    ``enough``, the node's known bound).  ConTree's Gini order alone
    searched a feature to its end under the weak bound of its own first
    threshold, which may lie far above the optimum found on a later
    feature; the probes find the optimum's feature first.  At depth two each probe is the first threshold
    :func:`branch_step` takes of its feature, so it is not scanned
    twice; at depth three it is a depth-two tree, an upper bound on
    what the feature's threshold can do."""
    cdef int32_t* P = &eng.positions[level][0]
    cdef double* D = &eng.distances[level][0]
    cdef double* vals = &eng.probe_vals[0]
    cdef Split1* sides = &eng.probe_sides[0]
    cdef double val
    cdef int r, f, m, w
    cdef int32_t lo, hi
    for r in range(eng.p):
        f = order[r]
        vals[f] = INFINITY
        eng.probe_pos[f] = -1
        if level == 0 and eng.root_allowed.size() > 0 and not eng.root_allowed[f]:
            continue
        if eng._timed_out() or ub[0] <= enough + EPS:
            return          # (an incumbent this good ends the node's search anyway)
        if eng.split_floors[level][f] >= ub[0] - EPS:
            continue
        m = lay.thresholds(node, f, P, D)
        if m == 0:
            continue
        w = first_at_least(P, 0, m - 1, eng.gini_positions[level][f])
        if w >= m:
            continue
        if side_floor_at(D, m, w, eng.side_base[level]) + eng.cost >= ub[0] - EPS:
            continue          # too light a side to beat the incumbent (the search may still find another)
        lay.children_depth_one(level, node, f, P[w], eng.min_leaf, &sides[2 * f], &sides[2 * f + 1])
        if depth == 2:
            eng.probe_pos[f] = P[w]
        val = sides[2 * f].val + sides[2 * f + 1].val + eng.cost
        vals[f] = val
        if val < best_val[0] - EPS:
            best_val[0] = val
            lay.split_ranks(node, f, P[w], &lo, &hi)
            best_tree[0] = eng._new_node(f, lo, hi, eng._stump(&sides[2 * f]),
                                          eng._stump(&sides[2 * f + 1]))
            if val < ub[0]:
                ub[0] = val
            if level == 0:
                eng._root_improved(val, best_tree[0])
    eng.probe_h1 = node.h1
    eng.probe_size = node.size
    sort_by(order, vals, eng.p)       # ties keep the Gini order
