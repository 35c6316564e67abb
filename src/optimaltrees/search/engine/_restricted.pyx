# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""A node searched under a candidate rule (``_restricted.pxd``)."""
from libc.stdint cimport int32_t
from libc.math cimport INFINITY
from libcpp.vector cimport vector

from optimaltrees.search.engine._common cimport EPS, FREE, Cand, Node, Split1
from optimaltrees.search.engine._core cimport Engine, Result
from optimaltrees.search.engine._layout cimport Layout
from optimaltrees.search.engine._node_cost cimport node_weight
from optimaltrees.search.engine._rules cimport CAND_SKIP, CAND_TRY


cdef int rank_candidates(Engine eng, Layout lay, int level, Node* node, int limit) noexcept nogil:
    """The node's candidate splits in rank order (``rules.cands[level]``,
    the first ``limit``); returns how many it has.  A limit within the
    rank's first round (each feature's best split, as the greedy first
    pass has) keeps only each feature's best while counting the rest:
    every threshold of every feature, 16 bytes each, outgrew the
    buffers on wide data (5000 x 100: 12.6 MB against 12.3 MB, past a
    memory limit the search had met)."""
    cdef int f, k, best, total = 0, with_splits = 0
    cdef size_t start
    cdef vector[Cand]* scratch = &eng.rules.scratch
    if limit <= eng.p:
        scratch.clear()
        for f in range(eng.p):
            start = scratch.size()
            eng.rules.feature_start[f] = <int32_t>start
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
            eng.rules.rank(level, eng.p, limit)
            return total
    eng.rules.scratch.clear()
    for f in range(eng.p):
        eng.rules.feature_start[f] = <int32_t>eng.rules.scratch.size()
        lay.candidates(node, f, &eng.rules.scratch)
    return eng.rules.rank(level, eng.p, limit)


cdef double search_restricted(Engine eng, Layout lay, int level, Node* node, int depth, double ub_in,
                              double gap, double known_lb, double* best_val_io,
                              int32_t* best_tree_io, double spent) noexcept nogil:
    """One node under a candidate rule: try the node's candidate splits in
    rank order (round-robin over features by Gini, each feature's thresholds
    by Gini) while the rule admits them, the children under the rule's
    updated state.  A result that skipped candidates proves nothing new:
    its lower bound stays ``known_lb``, so no restart trusts it as exact."""
    cdef int nn = node.size, r, a, b, total, limit, verdict
    cdef double weight = node_weight(lay, node.counts, eng.K)
    cdef double cost = eng.cost
    cdef double best_val = best_val_io[0], ub, bound, bound_b, lb_w, val_w, all_lb = INFINITY
    cdef double child_spent, best_score
    cdef int32_t best_tree = best_tree_io[0], tree_l, tree_r
    cdef bint cut = False, complete = True, dominated = False
    cdef Cand c
    cdef Split1 s_l, s_r
    cdef Result child[2]
    cdef Node child_node[2]
    cdef vector[Cand]* cands = &eng.rules.cands[level]
    cdef Split1 small_root
    cdef Split1 small_sides[2]
    limit = eng.rules.limit(level, spent)
    total = rank_candidates(eng, lay, level, node, limit)
    if eng.rules.unrestricted(level, depth, spent, total):
        if depth <= lay.exact_depth:
            if lay.solve_exact(node, depth, best_val_io, &small_root, small_sides):
                best_tree_io[0] = eng._small_tree(&small_root, small_sides)
            return best_val_io[0]
        return eng._search(lay, level, node, depth, ub_in, gap, known_lb, best_val_io,
                            best_tree_io, FREE)
    ub = ub_in if ub_in < best_val else best_val
    best_score = cands[0][0].score if cands.size() > 0 else 0.0
    for r in range(<int>cands.size()):
        c = cands[0][r]
        verdict = eng.rules.admit(r, c.score, best_score, weight, spent, limit, &child_spent)
        if verdict != CAND_TRY:
            cut = True
            if verdict == CAND_SKIP:
                continue
            break
        if ub <= known_lb + gap + EPS:
            dominated = True      # nothing left can beat the incumbent by more than gap
            break
        if eng._timed_out():
            complete = False
            break
        if depth == 2:
            # the children are depth-one trees: the layout gives both exactly
            lay.children_depth_one(level, node, c.f, c.pos, eng.min_leaf, &s_l, &s_r)
            val_w = s_l.val + s_r.val + cost
            lb_w = val_w
        else:
            lay.partition(level, node, c.f, c.pos, child_node)
            bound = ub - gap - cost
            a = 0 if c.pos >= nn - c.pos else 1
            b = 1 - a
            child[a] = eng._solve(lay, level + 1, &child_node[a], depth - 1, bound, 0.0,
                                   child_spent)
            bound_b = bound - child[a].lb
            if bound_b > EPS:
                lay.hint_sibling(node, depth, &child_node[b], &child_node[a])
                child[b] = eng._solve(lay, level + 1, &child_node[b], depth - 1, bound_b, 0.0,
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
                tree_l = eng._stump(&s_l)
                tree_r = eng._stump(&s_r)
            else:
                tree_l = child[0].tree
                tree_r = child[1].tree
            best_tree = eng._new_node(c.f, c.lo, c.hi, tree_l, tree_r)
            if val_w < ub:
                ub = val_w
            if level == 0:
                eng._root_improved(val_w, best_tree)
    if <int>cands.size() < total and not dominated:
        cut = True                # candidates beyond the rule's limit were never listed
    if cut and not dominated:
        eng.rules.n_rule_cuts += 1
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
