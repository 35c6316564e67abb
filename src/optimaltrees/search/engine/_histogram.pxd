# cython: language_level=3
"""Depth-two trees from class histograms, for features with few values.

When every feature takes few distinct values (binned data, integer or
categorical codes), a depth-two node is cheaper to solve whole than by
ConTree's branch-and-bound over D2Split scans: walk the rows in one root
feature's order, add each row's (feature, rank, class) to a histogram of
the rows left of the root threshold, and at every threshold score both
children's best depth-one splits from the histogram alone.  Cost per node:
nn * p^2 additions plus, per root threshold, one pass over all bins, and
no pruning is needed (every threshold is scored exactly).

A depth-three split's two children can share one walk: the smaller
child's histograms are built row by row, and the larger's are the
parent's (kept per root threshold as prefix snapshots) less the smaller's.

The histograms are laid out by bin: bin ``offset[f] + rank`` of feature f
holds K class counts.  These helpers are inline so the layout's solver
compiles into one loop nest.
"""
from libc.math cimport ceil, floor
from libc.stdint cimport int32_t, uint16_t
from libc.string cimport memset

from optimaltrees.search.engine._common cimport AHEAD, EPS, Elem, Split1, prefetch


cdef inline void best_depth_one(int32_t* left, int32_t* total, int32_t* side_counts, int ns,
                                bint is_right, int32_t* offset, int p, int K, int ml,
                                double cost, int32_t* prefix, Split1* out) noexcept nogil:
    """The best depth-one tree of one child of the root split.

    The child's count of bin b, class c is ``left[b*K + c]`` (the left
    child) or ``total[b*K + c] - left[b*K + c]`` (the right child:
    ``is_right``); ``side_counts`` are its class counts, ``ns`` its size.
    ``out`` gets the leaf (feature -1) or the split of least errors + cost,
    lo/hi the adjacent non-empty ranks it separates.  ``prefix``: K ints of
    scratch.  The scan is D2Split's on bins: integer targets, a feature
    abandoned once its prefix leaf alone errs too much, and positions
    skipped that are too close to a losing one."""
    cdef int c, f, b, end, pn, cnt, last, most, err, prefix_err, target, skip_until
    cdef int32_t v
    most = 0
    for c in range(K):
        if side_counts[c] > most:
            most = side_counts[c]
    out.val = ns - most
    out.feature = -1
    # errors + cost < leaf  <=>  errors < target
    target = <int>ceil(out.val - cost - EPS)
    if ns < 2 * ml or target <= 0:
        return      # no room for two leaves, or no split can beat the leaf
    for f in range(p):
        for c in range(K):
            prefix[c] = 0
        pn = 0
        last = -1
        skip_until = ml
        end = offset[f + 1]
        for b in range(offset[f], end):
            cnt = 0
            for c in range(K):
                cnt += total[b * K + c] - left[b * K + c] if is_right else left[b * K + c]
            if cnt == 0:
                continue
            if last >= 0 and pn >= skip_until and ns - pn >= ml:
                most = 0
                for c in range(K):
                    if prefix[c] > most:
                        most = prefix[c]
                prefix_err = pn - most
                if prefix_err >= target:
                    break       # the prefix leaf's errors only grow along the scan
                most = 0
                for c in range(K):
                    if side_counts[c] - prefix[c] > most:
                        most = side_counts[c] - prefix[c]
                err = prefix_err + (ns - pn) - most
                if err < target:
                    target = err
                    out.val = err + cost
                    out.feature = f
                    out.lo = last
                    out.hi = b - offset[f]
                    if err == 0:
                        return
                    skip_until = pn + 1
                else:
                    # each further row changes the errors by at most one
                    skip_until = pn + (err - target) + 1
            for c in range(K):
                v = total[b * K + c] - left[b * K + c] if is_right else left[b * K + c]
                prefix[c] += v
            pn += cnt
            last = b - offset[f]



cdef struct HistScan:         # one node's state along a histogram depth-two scan
    double best               # the objective to beat (the incumbent)
    int skip_to               # rows left of the root threshold before one is scored again
    bint found                # a root split beat the incumbent ...
    Split1 root               # ... this one (feature, lo, hi, val) ...
    Split1 sides[2]           # ... with these depth-one children


cdef inline bint scores_at(int nl, int ns, int ml, HistScan* st) noexcept nogil:
    """Whether the root threshold leaving ``nl`` of ``ns`` rows left is
    scored: both sides hold ``ml`` rows, and the similarity skip has passed."""
    return nl >= ml and ns - nl >= ml and nl >= st.skip_to


cdef inline bint score_root_threshold(int32_t* left, int32_t* total, int32_t* cl, int32_t* cr,
                                      double* counts, int nl, int ns, int32_t* offset, int p, int K,
                                      int ml, double cost, int32_t* prefix, HistScan* st) noexcept nogil:
    """Score one root threshold of a depth-two node from its histograms:
    ``left`` holds the rows left of it (``nl`` rows, class counts ``cl``),
    ``total`` the node's (``ns`` rows, class counts ``counts``); ``cr``:
    K ints of scratch.  True when it beats ``st.best`` (``st`` then holds
    its value and children; the caller sets the root's feature and ranks).
    A losing threshold moves ``st.skip_to`` past the thresholds it rules
    out: moving m rows across the root threshold changes the optimum by at
    most m (ConTree's similarity bound; leaf sizes break it)."""
    cdef Split1 s_l, s_r
    cdef double val
    cdef int c
    for c in range(K):
        cr[c] = <int32_t>counts[c] - cl[c]
    best_depth_one(left, total, cl, nl, False, offset, p, K, ml, cost, prefix, &s_l)
    val = s_l.val + cost        # a bound: the right child costs at least 0
    if val < st.best - EPS:
        best_depth_one(left, total, cr, ns - nl, True, offset, p, K, ml, cost, prefix, &s_r)
        val = s_l.val + s_r.val + cost
    if ml == 1 and val >= st.best - EPS:
        st.skip_to = nl + <int>floor(val - st.best + EPS) + 1
        return False
    if val < st.best - EPS:
        st.best = val
        st.root.val = val
        st.sides[0] = s_l
        st.sides[1] = s_r
        st.found = True
        return True
    return False


cdef inline void histogram(int32_t* H, size_t cells, Elem* arr, int n, uint16_t* RR, int32_t* off,
                           int p, int K) noexcept nogil:
    """``H`` (``cells`` counts, by bin then class) becomes the histogram of
    the ``n`` rows ``arr``: each row's rank on every feature, from the
    row-major ranks ``RR`` (fetched ahead: rows come in random id order)."""
    cdef int k, f
    cdef uint16_t* rr
    memset(H, 0, cells * sizeof(int32_t))
    for k in range(n):
        if k + AHEAD < n:
            prefetch(RR + <size_t>arr[k + AHEAD].id * p)
        rr = RR + <size_t>arr[k].id * p
        for f in range(p):
            H[(off[f] + rr[f]) * K + arr[k].label] += 1


cdef inline int add_rank(int32_t* H, Elem* arr, int k, int n, int rank, uint16_t* RR, int32_t* off,
                         int p, int K, int32_t* per_class) noexcept nogil:
    """Add to ``H`` the rows ``arr[k:]`` of rank ``rank`` (the scan's
    feature's, consecutive from k) as :func:`histogram` does, counting
    them by class in ``per_class`` too (unless NULL); the first row past them."""
    cdef int f
    cdef uint16_t* rr
    while k < n and arr[k].rank == rank:
        if k + AHEAD < n:
            prefetch(RR + <size_t>arr[k + AHEAD].id * p)
        rr = RR + <size_t>arr[k].id * p
        for f in range(p):
            H[(off[f] + rr[f]) * K + arr[k].label] += 1
        if per_class != NULL:
            per_class[arr[k].label] += 1
        k += 1
    return k
