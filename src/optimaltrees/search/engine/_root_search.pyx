# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The root's best-first search (``_root_search.pxd``)."""
from libc.stdint cimport int32_t
from libc.math cimport INFINITY
from libcpp.vector cimport vector

from optimaltrees.search.engine._branch cimport branch_step
from optimaltrees.search.engine._common cimport EPS, FREE, Node, sleep_us
from optimaltrees.search.engine._control cimport RootShare, share_lock, share_unlock
from optimaltrees.search.engine._core cimport Engine
from optimaltrees.search.engine._features cimport order_features, side_start
from optimaltrees.search.engine._intervals cimport (
    Interval, RootItem, first_at_least, interval_floor, lowest_item, queue_start)
from optimaltrees.search.engine._layout cimport Layout
from optimaltrees.search.engine._side_floor cimport side_floors_of


cdef enum:
    # the root's ConTree-order steps ("dives") stop alternating with the
    # best-first ones after this many in a row that did not improve the
    # incumbent, and are then taken once in DIVE_SPARSE steps (until one improves it)
    DIVE_PATIENCE = 4
    DIVE_SPARSE = 16


cdef double search_root(Engine eng, Layout lay, Node* node, int depth, double ub_in, double gap,
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
    cdef int32_t* order = &eng.feature_orders[0][0]
    cdef int32_t* P = &eng.positions[0][0]
    cdef double* D = &eng.distances[0][0]
    cdef vector[Interval]* fresh = &eng.queues[0]
    cdef RootShare* lock = eng.front.share
    cdef bint similar = eng.prune, done = False, dive
    cdef double before
    cdef RootItem item
    cdef size_t k
    cdef int r, f, m, zl, zr, fw, busy
    cdef double* FL
    ub = ub_in if ub_in < best_val else best_val
    side_start(eng, lay, 0, node, depth, &ub, &best_val, &best_tree, &known_lb)
    order_features(eng, lay, 0, node, order)
    if eng.ctl.shared == NULL:
        eng.front.started = False      # a private frontier starts afresh every solve
    share_lock(lock)
    if not eng.front.started:
        eng.front.reset(eng.p, known_lb)
        for r in range(eng.p):
            f = order[r]
            if eng.root_allowed.size() > 0 and not eng.root_allowed[f]:
                continue
            m = lay.thresholds(node, f, P, D)
            if m == 0:
                continue
            eng.front.zero_r[f] = m
            eng.front.first_w[f] = first_at_least(P, 0, m - 1, eng.gini_positions[0][f])
            queue_start(fresh, m, eng.cost)
            queue_root(eng, fresh, f, r)
        eng.front.started = True
    share_unlock(lock)
    while not done:
        eng._sync_root(0, &ub)
        if ub <= known_lb + gap + EPS or eng._timed_out():
            break
        share_lock(lock)
        if eng.front.finished:
            share_unlock(lock)
            break
        if eng.front.items.size() == 0:
            busy = eng.front.busy
            share_unlock(lock)
            if busy == 0:
                break
            sleep_us(200)       # another engine may still queue intervals
            continue
        # every other step the lowest bound (the proof: the root's bound rises),
        # in between ConTree's order, feature after feature (good trees
        # early), while it finds them
        dive = (eng.front.steps & 1) and (eng.front.dives_idle < DIVE_PATIENCE
                                           or eng.front.steps % DIVE_SPARSE == 1)
        k = lowest_item(&eng.front.items, similar, eng.cost, dive)
        eng.front.steps += 1
        eng.n_root_steps += 1
        eng.n_root_dives += dive
        item = eng.front.items[k]
        eng.front.items[k] = eng.front.items.back()
        eng.front.items.pop_back()
        f = item.f
        eng.front.in_flight[eng.front_slot] = interval_floor(&item.iv, similar, eng.cost)
        eng.front.busy += 1
        zl = eng.front.zero_l[f]
        zr = eng.front.zero_r[f]
        fw = eng.front.first_w[f]
        eng.front.first_w[f] = -1       # a feature's first interval is its only one
        share_unlock(lock)
        m = lay.thresholds(node, f, P, D)    # O(n): cheap beside the children's searches
        FL = NULL
        if eng.side_base[0] > -INFINITY:
            FL = side_floors_of(D, m, eng.side_base[0], NULL, &eng.side_floors[0][0])
        fresh.clear()
        before = best_val
        done = branch_step(eng, lay, 0, node, depth, f, gap, P, D, FL, &item.iv, fresh, &zl, &zr,
                                 &fw, &ub, &best_val, &best_tree, &node_lb, known_lb, FREE)
        share_lock(lock)
        if best_val < before - EPS:
            eng.front.dives_idle = 0
        elif dive:
            eng.front.dives_idle += 1
        if zl > eng.front.zero_l[f]:
            eng.front.zero_l[f] = zl
        if zr < eng.front.zero_r[f]:
            eng.front.zero_r[f] = zr
        queue_root(eng, fresh, f, item.rank)
        if node_lb < eng.front.evaluated_lb:
            eng.front.evaluated_lb = node_lb
        eng.front.in_flight[eng.front_slot] = INFINITY
        eng.front.busy -= 1
        if done:
            eng.front.finished = True
        raise_root_bound(eng, ub - gap, known_lb)
        share_unlock(lock)
    share_lock(lock)
    raise_root_bound(eng, ub - gap, known_lb)
    share_unlock(lock)
    best_val_io[0] = best_val
    best_tree_io[0] = best_tree
    return eng.root_bound


cdef void queue_root(Engine eng, vector[Interval]* fresh, int f, int rank) noexcept nogil:
    """Queue feature f's intervals in the frontier (its lock held)."""
    cdef RootItem item
    cdef size_t k
    item.f = f
    item.rank = rank
    for k in range(fresh.size()):
        item.iv = fresh[0][k]
        item.seq = eng.front.seq
        eng.front.seq += 1
        eng.front.items.push_back(item)


cdef void raise_root_bound(Engine eng, double dropped_lb, double known_lb) noexcept nogil:
    """The root's lower bound now (the frontier's lock held): the least
    of every evaluated threshold's bound, every queued or in-flight
    interval's, and ``dropped_lb`` (ub - gap: the intervals the bounds
    dropped were cut against some ub_t >= ub), at least ``known_lb``.
    The frontier keeps the highest such bound: all are valid, and a later
    one may sit lower (ub - gap falls under a slack)."""
    cdef double out = eng.front.evaluated_lb, floor_k
    cdef size_t k
    for k in range(eng.front.items.size()):
        floor_k = interval_floor(&eng.front.items[k].iv, eng.prune, eng.cost)
        if floor_k < out:
            out = floor_k
    for k in range(eng.front.in_flight.size()):
        if eng.front.in_flight[k] < out:
            out = eng.front.in_flight[k]
    if dropped_lb < out:
        out = dropped_lb
    if known_lb > out:
        out = known_lb
    if out > eng.front.bound:
        eng.front.bound = out
    eng.root_bound = eng.front.bound
