# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""A depth-two node's root feature swept whole (``_sweep.pxd``)."""
from libc.math cimport ceil, log2
from libc.stdint cimport int32_t
from libc.string cimport memset

from optimaltrees.search.engine._common cimport AHEAD, EPS, NEVER, Elem, Node, prefetch

cimport cython

# a node sweeps after ``sweep_after`` x log2(rows) steps of a feature's
# intervals; on nodes of up to SWEEP_SMALL_ROWS rows after a third of that,
# rising to the whole between SWEEP_SMALL_ROWS and twice as many (log scale): on small
# nodes a sweep's tree updates are cheap beside the intervals' scans, on
# large ones the scans' pruning still wins for a while
cdef enum:
    SWEEP_SMALL_ROWS = 2048
# Where nodes keep side maps (``_side_maps``) a scan costs far less, so
# only nodes of at least MAPS_SWEEP_ROWS rows sweep, after MAPS_SWEEP_AFTER x
# log2(rows) steps (sweep_after >= 0; -1 still means never): with maps a
# scan is a pass of popcounts, so a sweep pays only on the largest nodes,
# and later there than without maps; smaller nodes never sweep.
cdef double MAPS_SWEEP_AFTER = 6.0


cdef inline void combine(SweepCell* T, size_t x) noexcept nogil:
    """Segment-tree node x from its children: sums add, prefix extremes
    are the left child's or the left child's sum plus the right child's."""
    cdef SweepCell* a = T + 2 * x
    cdef SweepCell* b = a + 1
    T[x].sum_l = a.sum_l + b.sum_l
    T[x].min_l = a.min_l if a.min_l < a.sum_l + b.min_l else a.sum_l + b.min_l
    T[x].max_l = a.max_l if a.max_l > a.sum_l + b.max_l else a.sum_l + b.max_l
    T[x].sum_r = a.sum_r + b.sum_r
    T[x].min_r = a.min_r if a.min_r < a.sum_r + b.min_r else a.sum_r + b.min_r
    T[x].max_r = a.max_r if a.max_r > a.sum_r + b.max_r else a.sum_r + b.max_r


cdef inline void bottom(SweepCell* T, int32_t* a, size_t x) noexcept nogil:
    """Segment-tree node x of the bottom level from its two leaves' sums
    ``a`` ([2 * leaf + side], side 0 the left child's rows, 1 the right's):
    a leaf's least and largest prefix sums are its sum."""
    T[x].sum_l = a[0] + a[2]
    T[x].min_l = a[0] if a[0] < a[0] + a[2] else a[0] + a[2]
    T[x].max_l = a[0] if a[0] > a[0] + a[2] else a[0] + a[2]
    T[x].sum_r = a[1] + a[3]
    T[x].min_r = a[1] if a[1] < a[1] + a[3] else a[1] + a[3]
    T[x].max_r = a[1] if a[1] > a[1] + a[3] else a[1] + a[3]


cdef inline int child_errors(int zeros, int ones, int lo, int hi) noexcept nogil:
    """A child's fewest errors over splits whose prefix sums (+1 class 0,
    -1 class 1) reach lo and hi: class 1 left of the split (ones + s) or
    class 0 left (zeros - s); the empty prefix (s = 0) is the leaf's."""
    if lo > 0:
        lo = 0
    if hi < 0:
        hi = 0
    return ones + lo if ones + lo < zeros - hi else zeros - hi


cdef inline double child_value(int zeros, int ones, int split_err, double cost) noexcept nogil:
    """A depth-one child's objective as D2Split gives it: its best split
    (``split_err`` errors plus the cost) where that beats the leaf, else the leaf."""
    cdef int leaf = zeros if zeros < ones else ones
    cdef int target = <int>ceil(leaf - cost - EPS)
    if zeros + ones < 2:
        target = 0
    if split_err < target:
        return split_err + cost
    return leaf


@cython.final
cdef class Sweep:
    """The sweep's segment tree and per-threshold answers.  The layout
    holds one; it is off until :meth:`reserve`."""

    def __init__(self, int n, double sweep_after):
        """``n``: the training set's rows; ``sweep_after``: the engine option."""
        self.n = n
        self.opt_after = sweep_after

    cdef void reserve(self, int n_classes, bint weighted, bint with_maps, double budget_bytes,
                      size_t fixed_bytes):
        """Let depth-two nodes sweep a root feature whole (two classes,
        unweighted rows) when the buffers (a segment tree over up to n ranks,
        four ints a row) take at most a quarter of ``budget_bytes`` (the
        memory limit; INFINITY: none) and leave at least half of it beside
        the layout's other buffers (``fixed_bytes``), and, where the nodes
        keep side maps (``with_maps``), some node may be large enough to
        sweep (:data:`MAPS_SWEEP_ROWS`): with maps D2Split's scans cost less
        than a sweep on smaller nodes, which never sweep.  Allocated at the
        first sweep, counted from now."""
        cdef size_t leaves = 1
        self.allowed = False
        self.bytes = 0
        self.n_sweeps = 0
        self.with_maps = with_maps
        if weighted or n_classes != 2 or self.n < 2 or (with_maps and self.n < MAPS_SWEEP_ROWS):
            return      # (with side maps only large nodes sweep: due)
        while leaves < <size_t>self.n:
            leaves <<= 1
        cdef size_t b = leaves * (sizeof(SweepCell) + 2 * sizeof(int32_t)) + 4 * <size_t>self.n * sizeof(int32_t)
        # at most a quarter of the limit, and half of it left beside every buffer
        if <double>b > budget_bytes / 4 or <double>(fixed_bytes + b) > budget_bytes / 2:
            return
        self.allowed = True
        self.bytes = b

    cdef bint due(self, Node* node, int evaluated) noexcept nogil:
        """Whether a depth-two node's search of a root feature, ``evaluated``
        intervals in, should sweep the rest (the ``sweep_after`` option; where the
        nodes keep side maps, only from MAPS_SWEEP_ROWS rows)."""
        cdef double bits = log2(<double>node.size + 1.0)
        cdef double share = bits - log2(<double>SWEEP_SMALL_ROWS)     # 0 .. 1 across the ramp
        if share < 0.0:
            share = 0.0
        elif share > 1.0:
            share = 1.0
        if not self.allowed or self.opt_after < 0.0:
            return False
        if self.with_maps:
            return node.size >= MAPS_SWEEP_ROWS and evaluated >= MAPS_SWEEP_AFTER * bits
        return evaluated >= self.opt_after * (1.0 + 2.0 * share) / 3.0 * bits

    cdef bint start(self, Node* node, int f1, int32_t* P, int i, int j) noexcept nogil:
        """Ready a sweep of root feature f1's thresholds P[i..j] at a depth-two
        node (then :meth:`feature` per f2, :meth:`value` per
        threshold); False when sweeps are not allowed."""
        cdef Elem* arr = node.elems + <size_t>f1 * node.size
        cdef int k = 0, w, ones = 0
        cdef size_t leaves = 1
        if not self.allowed:
            return False
        if self.leaf.size() == 0:
            while leaves < <size_t>self.n:
                leaves <<= 1
            self.tree.resize(leaves)
            self.sums.resize(2 * leaves)
            self.leaf.resize(self.n)
            self.best.resize(2 * <size_t>self.n)
            self.ones.resize(self.n)
        for w in range(i, j + 1):
            while k < P[w]:
                ones += arr[k].label
                k += 1
            self.ones[w - i] = ones
            self.best[2 * (w - i)] = NEVER
            self.best[2 * (w - i) + 1] = NEVER
        self.n_sweeps += 1
        return True

    cdef void feature(self, Node* node, int f1, int f2, int32_t* P, int i, int j) noexcept nogil:
        """Feature f2's part of a sweep: for every threshold w of P[i..j], the
        fewest errors of each child's depth-one splits on f2, into
        ``sweep_best``.  A segment tree over f2's ranks in the node holds,
        per child, the sum of +1 (class 0) / -1 (class 1) over its rows and
        the least and largest prefix sums: a split of a child with c0, c1
        rows per class at a prefix of sum s makes c1 + s or c0 - s errors,
        so the root answers for every split of f2 at once; moving the root
        threshold moves one row at a time from the right child to the left
        (log2(ranks) updates each).  Prefixes that are empty or whole are
        the leaf's errors, which never win over the leaf.  The leaves keep
        only their sums, apart (``sweep_sums``): a leaf's prefix extremes
        are its sum, so the bottom level is built from the sums
        (:func:`bottom`): the array cleared per f2 is a third of
        the size (8 bytes a leaf instead of 24), the buffers two thirds."""
        cdef int nn = node.size, k, w, leaves_n = 0, v, nl, ones_l, zeros_l, ones_r, zeros_r, err
        cdef int ones_all = <int>(node.counts[1] + 0.5)
        cdef Elem* arr2 = node.elems + <size_t>f2 * nn
        cdef Elem* arr1 = node.elems + <size_t>f1 * nn
        cdef int32_t* leaf = &self.leaf[0]
        cdef int32_t* best = &self.best[0]
        cdef int32_t* ones = &self.ones[0]
        cdef SweepCell* T = &self.tree[0]
        cdef int32_t* L = &self.sums[0]
        cdef size_t S = 1, x, y, z
        cdef int end = P[j]
        # each row's leaf: f2's rank among the node's rows
        for k in range(nn):
            if k > 0 and arr2[k].rank != arr2[k - 1].rank:
                leaves_n += 1
            if k + AHEAD < nn:
                prefetch(leaf + arr2[k + AHEAD].id)
            leaf[arr2[k].id] = leaves_n
        leaves_n += 1
        if leaves_n < 2:
            return            # f2 is constant in the node: no split
        while S < <size_t>leaves_n:
            S <<= 1
        memset(L, 0, 2 * S * sizeof(int32_t))
        for k in range(nn):
            # (large nodes: the leaves and their sums are read in random order)
            if k + 2 * AHEAD < nn:
                prefetch(leaf + arr1[k + 2 * AHEAD].id)
            if k + AHEAD < nn:
                prefetch(L + 2 * <size_t>leaf[arr1[k + AHEAD].id])
            L[2 * leaf[arr1[k].id] + (k >= P[i])] += 1 - 2 * arr1[k].label
        for x in range(S >> 1, S):
            bottom(T, L + 2 * (2 * x - S), x)
        for x in range((S >> 1) - 1, 0, -1):
            combine(T, x)
        k = P[i]
        for w in range(i, j + 1):
            while k < P[w]:
                # the rows ahead: their leaves, sums and lowest tree nodes into
                # the caches (on large nodes each update waited for all three)
                if k + 2 * AHEAD < end:
                    prefetch(leaf + arr1[k + 2 * AHEAD].id)
                if k + AHEAD < end:
                    z = S + <size_t>leaf[arr1[k + AHEAD].id]
                    prefetch(L + 2 * (z - S))
                    prefetch(T + (z >> 1))
                    prefetch(T + (z >> 2))
                    prefetch(T + (z >> 3))
                    prefetch(T + (z >> 4))
                v = 1 - 2 * arr1[k].label
                y = leaf[arr1[k].id]
                L[2 * y] += v
                L[2 * y + 1] -= v
                x = (S + y) >> 1
                bottom(T, L + 2 * (y & ~(<size_t>1)), x)
                x >>= 1
                while x > 0:
                    combine(T, x)
                    x >>= 1
                k += 1
            nl = P[w]
            ones_l = ones[w - i]
            zeros_l = nl - ones_l
            ones_r = ones_all - ones_l
            zeros_r = (nn - nl) - ones_r
            err = child_errors(zeros_l, ones_l, T[1].min_l, T[1].max_l)
            if err < best[2 * (w - i)]:
                best[2 * (w - i)] = err
            err = child_errors(zeros_r, ones_r, T[1].min_r, T[1].max_r)
            if err < best[2 * (w - i) + 1]:
                best[2 * (w - i) + 1] = err

    cdef double value(self, Node* node, int32_t* P, int i, int w, double cost) noexcept nogil:
        """The objective of the depth-two tree at threshold P[w] of the swept
        feature (its children the best depth-one subtrees, as D2Split scores
        them: a split pays ``cost`` and must beat the leaf)."""
        cdef int nl = P[w], ones_l = self.ones[w - i]
        cdef int ones_r = <int>(node.counts[1] + 0.5) - ones_l
        return (child_value(nl - ones_l, ones_l, self.best[2 * (w - i)], cost)
                + child_value(node.size - nl - ones_r, ones_r, self.best[2 * (w - i) + 1], cost)
                + cost)
