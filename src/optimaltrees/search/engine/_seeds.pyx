# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Root children seeded from their nested neighbours (``_seeds.pxd``)."""
from libc.stdint cimport int32_t, int64_t
from libc.math cimport INFINITY
from libcpp.vector cimport vector
from libcpp.unordered_map cimport unordered_map
from libcpp.algorithm cimport sort as std_sort
from cython.operator cimport dereference as deref

from optimaltrees.search.engine._common cimport FREE, Node
from optimaltrees.search.engine._core cimport Engine, Result, SeedPoint
from optimaltrees.search.engine._intervals cimport Interval, first_at_least
from optimaltrees.search.engine._layout cimport Layout


cdef inline bint _seed_less(const SeedPoint& a, const SeedPoint& b) noexcept nogil:
    return a.f < b.f or (a.f == b.f and a.lo < b.lo)


cdef Result solve_root_child(Engine eng, Layout lay, Node* child, int depth, double bound, int f,
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
    if not (eng.prune and spent == FREE and depth >= 2 and eng.seeds_on):
        return eng._solve(lay, 1, child, depth, bound, 0.0, spent)
    eng.seed_in = NULL
    eng.seed_out.clear()
    if nb >= 0:
        it = eng.root_seeds.find((<int64_t>nb * eng.p + f) * 2 + side)
        if it != eng.root_seeds.end() and deref(it).second.size() > 0:
            eng.seed_in = &deref(it).second
            eng.seed_out = deref(it).second
            eng.n_seeded += 1
    eng.seed_recording = True
    r = eng._solve(lay, 1, child, depth, bound, 0.0, spent)
    eng.seed_recording = False
    eng.seed_in = NULL
    if eng.seed_out.size() == 0:
        return r
    std_sort(eng.seed_out.begin(), eng.seed_out.end(), _seed_less)
    out = 0
    for k in range(1, eng.seed_out.size()):
        if (eng.seed_out[k].f == eng.seed_out[out].f and eng.seed_out[k].lo == eng.seed_out[out].lo):
            if eng.seed_out[k].lb_l > eng.seed_out[out].lb_l:
                eng.seed_out[out].lb_l = eng.seed_out[k].lb_l
            if eng.seed_out[k].lb_r > eng.seed_out[out].lb_r:
                eng.seed_out[out].lb_r = eng.seed_out[k].lb_r
        else:
            out += 1
            eng.seed_out[out] = eng.seed_out[k]
    eng.seed_out.resize(out + 1)
    key = (<int64_t>w * eng.p + f) * 2 + side
    rec = &eng.root_seeds[key]
    eng.seed_bytes -= rec.capacity() * sizeof(SeedPoint)
    rec.swap(eng.seed_out)
    eng.seed_bytes += rec.capacity() * sizeof(SeedPoint) + 64
    return r


cdef void record_seed(Engine eng, Layout lay, Node* node, int f, int32_t pos, double lb_l,
                      double lb_r) noexcept nogil:
    cdef SeedPoint sp
    cdef int32_t hi
    sp.f = f
    lay.split_ranks(node, f, pos, &sp.lo, &hi)
    sp.lb_l = lb_l
    sp.lb_r = lb_r
    eng.seed_out.push_back(sp)


cdef bint seed_floors(Engine eng, Layout lay, Node* node, int f, int32_t* P, double* D, int m,
                      double* FL, double* out) noexcept nogil:
    """Each of feature f's thresholds' bound from those handed on
    (``seed_in``), less one node's cost, into ``out`` (with the class
    floors ``FL``, when given, as the larger): a threshold's left child
    holds every bounded threshold's left of it (SP) and is at least a
    bounded one's on its right less the weight between (IS); the right
    child likewise.  False when no bound lies on f's thresholds."""
    cdef vector[SeedPoint]* S = eng.seed_in
    cdef size_t lo = 0, hi = S.size(), mid, k
    cdef int pos, idx, cnt = 0, x
    cdef double run, neg = -INFINITY
    cdef vector[double]* L = &eng.seed_left
    cdef vector[double]* R = &eng.seed_right
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
