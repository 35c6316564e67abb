# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""One feature's thresholds searched by intervals (``_branch.pxd``)."""
from libc.stdint cimport int32_t
from libc.math cimport INFINITY
from libcpp.vector cimport vector

from optimaltrees.search.engine._common cimport EPS, FREE, Node, Split1
from optimaltrees.search.engine._control cimport share_offer
from optimaltrees.search.engine._core cimport Engine, Result
from optimaltrees.search.engine._intervals cimport (
    Interval, first_at_least, narrow, push_beyond, push_halves, queue_floor, queue_start)
from optimaltrees.search.engine._layout cimport Layout
from optimaltrees.search.engine._seeds cimport record_seed, seed_floors, solve_root_child
from optimaltrees.search.engine._side_floor cimport side_floors_of


cdef void branch(Engine eng, Layout lay, int level, Node* node, int depth, int f, double gap,
                 double* ub, double* best_val, int32_t* best_tree, double* node_lb,
                 double known_lb, double spent) noexcept nogil:
    """Algorithm 1 for one feature, in the sound form of the notes §4.5:
    thresholds by intervals (``_intervals.pxd``), the best Gini threshold
    first (a greedy-quality incumbent at once), then midpoints of what
    the bounds leave, first in first out."""
    cdef int32_t* P = &eng.positions[level][0]
    cdef double* D = &eng.distances[level][0]
    cdef vector[Interval]* Q = &eng.queues[level]
    cdef size_t head = 0
    cdef int m, zero_l = -1, zero_r, first_w, steps = 0
    cdef Interval iv
    # a depth-two node may sweep what is left of the feature whole (exact
    # depth-one children at every threshold, :func:`sweep_rest`)
    cdef bint may_sweep = depth == 2 and eng.prune and spent == FREE
    cdef double* FL = NULL       # each split position's class or side floor (without cost), when the node has them
    m = lay.thresholds(node, f, P, D)
    if m == 0:
        return
    if eng.floors_on[level] and eng.floor_gate[level] >= ub[0] - gap - EPS:
        FL = &eng.thr_floors[level][0]
        lay.split_floor(node, f, depth - 1, P, m, FL)
    if eng.side_base[level] > -INFINITY:
        FL = side_floors_of(D, m, eng.side_base[level], FL, &eng.side_floors[level][0])
    if level == 1 and eng.seed_in != NULL:
        if eng.seed_floor.size() < <size_t>m:
            eng.seed_floor.resize(m)
        if seed_floors(eng, lay, node, f, P, D, m, FL, &eng.seed_floor[0]):
            FL = &eng.seed_floor[0]
    zero_r = m
    queue_start(Q, m, eng.cost)
    first_w = first_at_least(P, 0, m - 1, eng.gini_positions[level][f])
    while head < Q.size():
        iv = Q[0][head]
        head += 1
        if eng._timed_out():
            # every threshold left in the queue is >= its SP bound
            node_lb[0] = queue_floor(Q, head - 1, eng.prune or depth == 2, eng.cost, node_lb[0])
            return
        if may_sweep and lay.sweep_due(node, steps):
            sweep_rest(eng, lay, level, node, f, gap, P, Q, head - 1, ub, best_val, best_tree,
                             node_lb, known_lb)
            return
        steps += 1
        if branch_step(eng, lay, level, node, depth, f, gap, P, D, FL, &iv, Q, &zero_l, &zero_r,
                             &first_w, ub, best_val, best_tree, node_lb, known_lb, spent):
            return


cdef void sweep_rest(Engine eng, Layout lay, int level, Node* node, int f, double gap, int32_t* P,
                     vector[Interval]* Q, size_t head, double* ub, double* best_val,
                     int32_t* best_tree, double* node_lb, double known_lb) noexcept nogil:
    """The rest of a depth-two node's search of feature f (the intervals
    queued from ``head``) by one sweep: every threshold between the first
    and the last interval still worth a look gets its exact value (both
    children's best depth-one splits, :meth:`SortedLayout.sweep_feature`,
    one pass per f2), so the search costs p passes of n log n, not one
    D2Split scan per threshold that the bounds leave.  The best threshold's
    tree comes from D2Split, as the search's would."""
    cdef double cost = eng.cost, limit = ub[0] - gap, val, best = INFINITY, val_w
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
    eng.n_swept += j - i + 1
    if not lay.sweep_start(node, f, P, i, j):
        node_lb[0] = queue_floor(Q, head, True, cost, node_lb[0])
        return
    for f2 in range(eng.p):
        if eng._timed_out():
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
    lay.children_depth_one(level, node, f, P[best_w], eng.min_leaf, &s_l, &s_r)
    val_w = s_l.val + s_r.val + cost
    if val_w >= best_val[0] - EPS:
        return
    take_incumbent(eng, lay, level, node, f, P[best_w], val_w, eng._stump(&s_l), eng._stump(&s_r),
                         ub, best_val, best_tree)


cdef void take_incumbent(Engine eng, Layout lay, int level, Node* node, int f, int pos, double val,
                         int32_t tree_l, int32_t tree_r, double* ub, double* best_val,
                         int32_t* best_tree) noexcept nogil:
    """A better tree of this node, split at (f, pos) over the subtrees
    ``tree_l`` and ``tree_r``: the node's incumbent, its bound for the
    rest of the search, and at the root the one every thread sees."""
    cdef int32_t lo, hi
    best_val[0] = val
    lay.split_ranks(node, f, pos, &lo, &hi)
    best_tree[0] = eng._new_node(f, lo, hi, tree_l, tree_r)
    if val < ub[0]:
        ub[0] = val
    if level == 0:
        eng._root_improved(val, best_tree[0])
        if eng.ctl.shared != NULL:
            share_offer(eng.ctl.shared, val)


cdef bint branch_step(Engine eng, Layout lay, int level, Node* node, int depth, int f, double gap,
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
    cdef int nn = node.size, i, j, w, ml = eng.min_leaf
    cdef int zero_l = zero_l_io[0], zero_r = zero_r_io[0]
    cdef int32_t pos, nl, nr
    cdef double gap_here = gap, cost = eng.cost, eta
    cdef double lb_l, lb_r, lb_w, val_w, bound, bound_b, floor_limit = 0.0
    cdef Interval iv = iv_in[0]
    cdef Split1 s_l, s_r, u_l, u_r
    # lower bounds obey the similarity bound: always without leaf sizes,
    # and at depth two with them (bounds from unconstrained depth-one optima)
    cdef bint similar = eng.prune or depth == 2
    cdef Result child[2]                 # [0] left child, [1] right child
    cdef Node child_node[2]
    cdef int a, b
    cdef int32_t tree_l, tree_r
    cdef bint have_val, left_zero, right_zero
    i = iv.i
    j = iv.j
    eng._sync_root(level, ub)
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
        if eng.probe_pos[f] == pos and eng.probe_h1 == node.h1 and eng.probe_size == nn:
            s_l = eng.probe_sides[2 * f]      # probed already (probe_features)
            s_r = eng.probe_sides[2 * f + 1]
            eng.probe_pos[f] = -1
        else:
            lay.children_depth_one(level, node, f, pos, ml, &s_l, &s_r)
        val_w = s_l.val + s_r.val + cost
        have_val = True
        left_zero = s_l.val <= EPS
        right_zero = s_r.val <= EPS
        if eng.prune:
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
        if eng.prune:
            eta = D[w] - D[i]
            if D[j] - D[w] > eta:
                eta = D[j] - D[w]
        bound = ub[0] - gap_here - cost
        # larger child first with the full bound, the other with what is
        # left of it (+ eta, so NB can still decide the whole interval)
        a = 0 if nl >= nr else 1
        b = 1 - a
        if level == 0:
            child[a] = solve_root_child(eng, lay, &child_node[a], depth - 1, bound, f, &iv, w, a, spent)
        else:
            child[a] = eng._solve(lay, level + 1, &child_node[a], depth - 1, bound, 0.0, spent)
        bound_b = bound - child[a].lb + eta
        if bound_b > EPS:
            lay.hint_sibling(node, depth, &child_node[b], &child_node[a])
            if level == 0:
                child[b] = solve_root_child(eng, lay, &child_node[b], depth - 1, bound_b, f, &iv, w,
                                                  b, spent)
            else:
                child[b] = eng._solve(lay, level + 1, &child_node[b], depth - 1, bound_b, 0.0,
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
        if eng.prune:
            # SP: w's children hold its neighbours' (a child stopped at the
            # time limit or skipped may return less)
            if iv.u_left > lb_l:
                lb_l = iv.u_left
            if iv.v_right > lb_r:
                lb_r = iv.v_right
    if level == 1 and eng.seed_recording:
        record_seed(eng, lay, node, f, pos, lb_l, lb_r)
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
            tree_l = eng._stump(&s_l)
            tree_r = eng._stump(&s_r)
        take_incumbent(eng, lay, level, node, f, pos, val_w, tree_l, tree_r, ub, best_val, best_tree)
        if val_w <= known_lb + gap_here + EPS:
            return True
    if not similar:
        push_halves(Q, &iv, i, j, w)
        return False
    # an exact zero on one side (Theorem 2); the solved side suffices.
    # Monotonicity fails under leaf sizes, so only without them.
    if eng.prune and left_zero and w > zero_l:
        zero_l_io[0] = w
    if eng.prune and right_zero and w < zero_r:
        zero_r_io[0] = w
    push_beyond(Q, &iv, D, i, j, w, lb_l, lb_r, lb_w, ub[0] - gap_here, cost)
    return False
