# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Depth-two nodes solved whole from class histograms, alone or as the two
children of a depth-three split (``_hist_solver.pxd``; the scans' inline
helpers are ``_histogram.pxd``'s)."""
from libc.stdint cimport int32_t, uint16_t, uint64_t
from libc.string cimport memcpy, memset

from optimaltrees.search.engine._common cimport EPS, Elem, Node, Split1, leaf_errors, now, prefetch, AHEAD
from optimaltrees.search.engine._histogram cimport (
    HistScan, add_rank, histogram, score_root_threshold, scores_at)
from optimaltrees.search.engine._layout_base cimport DataLayout

cimport cython


# the share of root thresholds the histogram solver scores after its
# similarity skips: the cost model's estimate of where the two solvers cross
cdef double HIST_SCORED = 0.05

cdef enum:
    # histograms are built only when every feature has at most this many ranks ...
    HIST_MAX_RANKS = 4096
    # ... and all features' bins times the classes stay below this (the buffers' size)
    HIST_MAX_CELLS = 1 << 22

# a depth-three parent's prefix snapshots (bins^2 x classes int32 counts) are
# kept only up to this many cells (64 MB; e.g. 10 features x 256 bins, 2 classes: 52 MB)
cdef double SNAP_MAX_CELLS = 16777216.0


@cython.final
cdef class HistogramSolver:
    """Class histograms of depth-two nodes, by (feature, rank) bin.  The
    sorted layout holds one; it solves nodes only when :attr:`ready`."""

    def __init__(self, int32_t[:, ::1] rank, int n_classes, int max_depth, double cost, int min_leaf,
                 bint weighted, double histogram_scans, int histogram_min_rows, int pairs):
        """rank[f, i]: unique-value rank of instance i on feature f.  Ready
        when every feature has few ranks (unweighted rows only: the
        histograms count rows); ``histogram_scans``, ``histogram_min_rows``
        and ``pairs`` (its index in ``PAIR_MODES``): the engine options."""
        cdef int f, i, r, most = 0
        cdef long long bins = 0
        self.p = rank.shape[0]
        self.n = rank.shape[1]
        self.K = n_classes
        self.cost = cost
        self.min_leaf = min_leaf
        self.opt_scans = histogram_scans
        self.opt_min_rows = histogram_min_rows
        self.opt_pairs = pairs
        self.snap_size = -1
        self.seen_size = -1
        self.pair_answer[0].size = -1
        self.pair_answer[1].size = -1
        self.ready = False
        if weighted or max_depth < 2 or self.p == 0:
            return
        self.offset.resize(self.p + 1)
        for f in range(self.p):
            r = 0
            for i in range(self.n):
                if rank[f, i] > r:
                    r = rank[f, i]
            r += 1
            if r > most:
                most = r
            self.offset[f] = <int32_t>bins
            bins += r
        self.offset[self.p] = <int32_t>bins
        if most > HIST_MAX_RANKS or bins * self.K > HIST_MAX_CELLS:
            self.offset.clear()
            return
        self.ready = True
        self.bins = <int>bins
        self.row_rank.resize(<size_t>self.n * self.p)
        for f in range(self.p):
            for i in range(self.n):
                self.row_rank[<size_t>i * self.p + f] = <uint16_t>rank[f, i]
        self.left.resize(<size_t>bins * self.K)
        self.total.resize(<size_t>bins * self.K)
        self.scratch.resize(5 * self.K)

    cdef size_t memory_bytes(self) noexcept nogil:
        """What the histograms take; the snapshots count from when they are
        allowed (they are allocated at their first use)."""
        return ((self.offset.capacity() + self.left.capacity() + self.total.capacity()
                 + self.scratch.capacity()) * sizeof(int32_t) + self.row_rank.capacity() * sizeof(uint16_t)
                + (self.snap_cells + self.snap_total.capacity() + self.other.capacity()) * sizeof(int32_t))

    cdef bint solves_whole(self, Node* node, int depth) noexcept nogil:
        """Depth one always; depth two from histograms when every feature
        has few ranks and the histograms cost less than a typical search."""
        cdef double nn = node.size, thresholds = 0.0, r, hist_cost
        cdef int f
        if depth <= 1:
            return True
        if depth != 2 or not self.ready or node.size < self.opt_min_rows:
            return False
        for f in range(self.p):
            r = self.offset[f + 1] - self.offset[f]
            thresholds += r if r < nn else nn
        # p^2 additions per row, and per scored root threshold one pass over
        # every bin for each child
        hist_cost = nn * self.p * self.p + HIST_SCORED * 2.0 * self.K * self.bins * thresholds
        return hist_cost <= self.opt_scans * nn * self.p

    cdef bint solve(self, DataLayout lay, Node* node, double* best_val, Split1* root_out,
                    Split1* sides) noexcept nogil:
        """Exact depth-two optimum from histograms (``_histogram.pxd``): for
        each root feature, its rows in value order are added to the left
        histogram one rank at a time, and each threshold between ranks is
        scored with both children's best depth-one trees.  A node solved with
        its sibling (:meth:`pair`) takes that answer instead.  ``lay``: the
        layout's deadline, and its count of depth-two solves."""
        cdef int nn = node.size, p = self.p, K = self.K, ml = self.min_leaf
        cdef int f, f2, k, c, b, nl, taken
        cdef int32_t* L = &self.left[0]
        cdef int32_t* T = &self.total[0]
        cdef int32_t* off = &self.offset[0]
        cdef int32_t* cl = &self.scratch[0]
        cdef int32_t* cr = cl + K
        cdef int32_t* prefix = cl + 2 * K
        cdef uint16_t* rr
        cdef uint16_t* RR = self.row_rank.data()
        cdef size_t cells = <size_t>self.bins * K
        cdef Elem* arr
        cdef Elem e
        cdef HistScan st
        cdef double cost = self.cost
        taken = self._take_pair(lay, node, best_val, root_out, sides)
        if taken >= 0:
            return taken == 1
        lay.n_d2 += 1
        lay.cut_short = False
        st.best = best_val[0]
        st.found = False
        histogram(T, cells, node.elems, nn, RR, off, p, K)
        for f in range(p):
            if now() > lay.deadline:
                lay.cut_short = True       # the time limit: the best so far, not proven
                break
            arr = node.elems + <size_t>f * nn
            if arr[0].rank == arr[nn - 1].rank:
                continue        # constant on this node
            memset(L, 0, cells * sizeof(int32_t))
            for c in range(K):
                cl[c] = 0
            nl = 0
            k = 0
            st.skip_to = 0
            while k < nn:
                # move every row of this rank to the left child
                b = arr[k].rank
                nl -= k
                k = add_rank(L, arr, k, nn, b, RR, off, p, K, cl)
                nl += k
                if k == nn:
                    break
                if scores_at(nl, nn, ml, &st) and score_root_threshold(
                        L, T, cl, cr, node.counts, nl, nn, off, p, K, ml, cost, prefix, &st):
                    st.root.feature = f
                    st.root.lo = b
                    st.root.hi = arr[k].rank
        if st.found:
            best_val[0] = st.best
            root_out[0] = st.root
            sides[0] = st.sides[0]
            sides[1] = st.sides[1]
        return st.found

    # ------------------------------------------- depth-two siblings from one walk

    cdef void reserve_pairs(self, int max_depth, double budget_bytes, size_t fixed_bytes):
        """Let depth-three splits solve their two depth-two children from one
        walk of the smaller (:meth:`pair`) when the parent's prefix
        snapshots (bins^2 x classes counts) fit under SNAP_MAX_CELLS and a
        quarter of ``budget_bytes`` (the memory limit; INFINITY: none), and
        leave at least half of it beside the layout's buffers
        (``fixed_bytes``).  The snapshots are allocated at their first use,
        and counted from now."""
        cdef size_t cells
        self.snap_cells = 0
        self.snap_size = -1
        self.seen_size = -1
        self.pair_answer[0].size = -1
        self.pair_answer[1].size = -1
        if not self.ready or max_depth < 3 or <double>self.n * self.p >= 2.0 ** 31:
            return      # (the smaller child's rows are placed by int32 positions)
        cells = <size_t>self.bins * self.K
        if <double>self.bins * cells > SNAP_MAX_CELLS:
            return
        # at most a quarter of the limit, and half of it left beside every buffer
        if (4.0 * (self.bins + 3.0) * cells > budget_bytes / 4
                or <double>fixed_bytes + 4.0 * (self.bins + 3.0) * cells > budget_bytes / 2):
            return
        if self.opt_pairs == 2 or (self.opt_pairs == 0 and <double>self.n * self.p * self.p * 4.0
                               < <double>self.bins * cells):
            return      # never, or no parent large enough to build snapshots for (pair)
        self.snap_cells = <size_t>self.bins * cells
        self.snap_total.resize(cells)
        self.other.resize(2 * cells)

    cdef int pair(self, DataLayout lay, Node* parent, int f, int pos, Node* out, Elem* base,
                  double* cnt_l, double* cnt_r, uint64_t* rnd1, uint64_t* rnd2) noexcept nogil:
        """The children of the depth-three split of ``parent`` at (f, pos),
        in place of the layout's partition, when both are depth-two nodes
        that the histograms solve (:meth:`solves_whole`): only the smaller
        child's rows are laid out (:meth:`_split_small`, into the layout's
        child buffer ``base`` and class counts ``cnt_l``, ``cnt_r``; set
        hashes from ``rnd1``, ``rnd2``), the larger's counts and hashes are
        the parent's less the smaller's, and both are solved from one walk
        of the smaller (:meth:`_pair_walk`); the answers wait in ``pair_answer``
        for :meth:`solve`, so the larger child's rows are never needed.
        The walk reads the parent's prefix snapshots, built on its second
        split (a parent split once pays nothing) and only where copying
        them costs less than a walk of the parent's rows.  Returns -1:
        nothing done, the caller partitions; 0: the smaller child was laid
        out but the time limit stopped the walk, the caller partitions;
        1: both children solved."""
        cdef HistScan st[2]
        cdef int s, w, nn = parent.size
        cdef uint64_t h1 = parent.h1, h2 = parent.h2
        self.pair_answer[0].size = -1
        self.pair_answer[1].size = -1
        if self.snap_cells == 0:
            return -1
        out[0].size = pos
        out[1].size = nn - pos
        if not (self.solves_whole(&out[0], 2) and self.solves_whole(&out[1], 2)):
            return -1
        if not (nn == self.snap_size and h1 == self.snap_h1 and h2 == self.snap_h2):
            if not (nn == self.seen_size and h1 == self.seen_h1 and h2 == self.seen_h2):
                self.seen_size = nn
                self.seen_h1 = h1
                self.seen_h2 = h2
                return -1
            # copying a snapshot per rank costs about a quarter of adding as many
            # counts one by one; below that the parent's own walk is cheaper
            if (<double>nn * self.p * self.p * 4.0 < <double>self.bins * self.bins * self.K
                    and self.opt_pairs != 1):
                return -1
            if not self._build_snapshots(lay, parent):
                return -1
        w = 0 if pos <= nn - pos else 1
        self._split_small(parent, f, pos, w, out, base, cnt_l, cnt_r, rnd1, rnd2)
        for s in range(2):
            st[s].best = leaf_errors(out[s].counts, self.K)
            st[s].found = False
        if not self._pair_walk(lay, &out[w], &out[1 - w], &st[w], &st[1 - w]):
            return 0        # the time limit: the caller lays out both
        self.n_pairs += 1
        for s in range(2):
            self.pair_answer[s].h1 = out[s].h1
            self.pair_answer[s].h2 = out[s].h2
            self.pair_answer[s].size = out[s].size
            self.pair_answer[s].found = st[s].found
            self.pair_answer[s].root = st[s].root
            self.pair_answer[s].sides[0] = st[s].sides[0]
            self.pair_answer[s].sides[1] = st[s].sides[1]
        return 1

    cdef void _split_small(self, Node* parent, int f, int pos, int w, Node* out, Elem* base, double* cnt_l,
                           double* cnt_r, uint64_t* rnd1, uint64_t* rnd2) noexcept nogil:
        """The layout's partition for child ``w`` alone (the smaller): its rows, a
        range of f's order, are sorted into every feature's order by
        counting sort on the ranks (O(rows x features), not the parent's
        rows per feature; rows of one rank may come in another order than
        the parent's, which no scan reads).  The other child gets its size,
        class counts and hashes as the parent's less child w's, and no rows
        (``elems`` NULL: only its pair answer may be read)."""
        cdef int nn = parent.size, p = self.p, K = self.K, g, k, c, start, ns
        cdef Elem* src = parent.elems + <size_t>f * nn
        cdef Elem* dst
        cdef Elem e
        cdef int32_t* off = &self.offset[0]
        cdef int32_t* at = &self.total[0]       # scratch: one write position per bin
        cdef uint16_t* RR = self.row_rank.data()
        cdef uint16_t* rr
        cdef double* small_counts = cnt_l if w == 0 else cnt_r
        cdef double* other_counts = cnt_r if w == 0 else cnt_l
        cdef uint64_t a1 = 0, a2 = 0
        cdef size_t total
        start = 0 if w == 0 else pos
        ns = pos if w == 0 else nn - pos
        src += start
        out[0].size = pos
        out[1].size = nn - pos
        out[0].counts = cnt_l
        out[1].counts = cnt_r
        out[0].mask = NULL
        out[1].mask = NULL
        out[w].elems = base if w == 0 else base + <size_t>pos * p
        out[1 - w].elems = NULL
        memset(small_counts, 0, K * sizeof(double))
        memset(at, 0, <size_t>self.bins * sizeof(int32_t))
        for k in range(ns):
            e = src[k]
            if k + AHEAD < ns:
                g = src[k + AHEAD].id
                prefetch(RR + <size_t>g * p)
                prefetch(rnd1 + g)
                prefetch(rnd2 + g)
            small_counts[e.label] += 1.0
            a1 += rnd1[e.id]
            a2 ^= rnd2[e.id]
            rr = RR + <size_t>e.id * p
            for g in range(p):
                at[off[g] + rr[g]] += 1
        for c in range(K):
            other_counts[c] = parent.counts[c] - small_counts[c]
        out[w].h1 = a1
        out[w].h2 = a2
        out[1 - w].h1 = parent.h1 - a1
        out[1 - w].h2 = parent.h2 ^ a2
        # bin counts -> each bin's first position in its feature's order
        for g in range(p):
            total = <size_t>g * ns
            for k in range(off[g], off[g + 1]):
                c = at[k]
                at[k] = <int32_t>total
                total += c
        dst = out[w].elems
        for k in range(ns):
            e = src[k]
            if k + AHEAD < ns:
                prefetch(RR + <size_t>src[k + AHEAD].id * p)
            rr = RR + <size_t>e.id * p
            for g in range(p):
                e.rank = rr[g]
                dst[at[off[g] + rr[g]]] = e
                at[off[g] + rr[g]] += 1

    cdef int _take_pair(self, DataLayout lay, Node* node, double* best_val, Split1* root,
                        Split1* sides) noexcept nogil:
        """The answer :meth:`pair` left for ``node``: -1 none, else
        1 when it beats ``best_val`` (written out) and 0 when it does not.
        The answer is the first optimum in the histogram scan's order, the
        one :meth:`solve` finds from any incumbent above it."""
        cdef int s
        for s in range(2):
            if (self.pair_answer[s].size == node.size and self.pair_answer[s].h1 == node.h1
                    and self.pair_answer[s].h2 == node.h2):
                self.pair_answer[s].size = -1
                lay.n_d2 += 1
                lay.cut_short = False
                if self.pair_answer[s].found and self.pair_answer[s].root.val < best_val[0] - EPS:
                    best_val[0] = self.pair_answer[s].root.val
                    root[0] = self.pair_answer[s].root
                    sides[0] = self.pair_answer[s].sides[0]
                    sides[1] = self.pair_answer[s].sides[1]
                    return 1
                return 0
        return -1

    cdef bint _build_snapshots(self, DataLayout lay, Node* parent) noexcept nogil:
        """For every feature f and every rank b the parent holds on it: the
        histogram of the parent's rows of f-rank <= b; and the parent's own
        histogram.  False when the time limit passed first."""
        cdef int nn = parent.size, p = self.p, K = self.K, f, f2, k, b
        cdef size_t cells = <size_t>self.bins * K
        cdef int32_t* run = &self.left[0]
        cdef int32_t* off = &self.offset[0]
        cdef uint16_t* RR = self.row_rank.data()
        cdef uint16_t* rr
        cdef int32_t* snap
        cdef Elem* arr
        cdef Elem e
        self.snap_size = -1
        if self.snap.size() < self.snap_cells:
            self.snap.resize(self.snap_cells)
        snap = self.snap.data()
        for f in range(p):
            if now() > lay.deadline:
                return False
            arr = parent.elems + <size_t>f * nn
            memset(run, 0, cells * sizeof(int32_t))
            k = 0
            while k < nn:
                b = arr[k].rank
                k = add_rank(run, arr, k, nn, b, RR, off, p, K, NULL)
                memcpy(snap + <size_t>(off[f] + b) * cells, run, cells * sizeof(int32_t))
            if f == 0:
                memcpy(&self.snap_total[0], run, cells * sizeof(int32_t))
        self.snap_size = nn
        self.snap_h1 = parent.h1
        self.snap_h2 = parent.h2
        return True

    cdef bint _pair_walk(self, DataLayout lay, Node* walked, Node* other, HistScan* st_w,
                         HistScan* st_o) noexcept nogil:
        """:meth:`solve` for two siblings at once, walking only the rows of
        ``walked``: at each rank b of each root feature f, the other child's
        rows left of the threshold are the parent's snapshot at (f, b) less
        the walked child's.  Each child keeps its own incumbent and
        similarity skip, so each gets the answer its own scan would.  False
        when the time limit passed first."""
        cdef int nw = walked.size, no = other.size, p = self.p, K = self.K, ml = self.min_leaf
        cdef int f, f2, k, c, b, end, nb, at_w, nl_w, nl_o
        cdef size_t cells = <size_t>self.bins * K, i
        cdef int32_t* L = &self.left[0]          # the walked child's rows left of the threshold
        cdef int32_t* T = &self.total[0]         # the walked child's rows
        cdef int32_t* PO = &self.other[0]        # the other child's rows left of the threshold
        cdef int32_t* TO = PO + cells                 # the other child's rows
        cdef int32_t* TN = &self.snap_total[0]        # the parent's rows
        cdef int32_t* cl_w = &self.scratch[0]
        cdef int32_t* cl_o = cl_w + K
        cdef int32_t* cr = cl_w + 2 * K
        cdef int32_t* prefix = cl_w + 3 * K
        cdef int32_t* here = cl_w + 4 * K             # the walked child's rows at rank b, per class
        cdef int32_t* off = &self.offset[0]
        cdef int32_t* snap_b
        cdef int32_t* tn_b
        cdef uint16_t* RR = self.row_rank.data()
        cdef uint16_t* rr
        cdef Elem* arr
        cdef Elem e
        cdef double cost = self.cost
        histogram(T, cells, walked.elems, nw, RR, off, p, K)
        for i in range(cells):
            TO[i] = TN[i] - T[i]
        for f in range(p):
            if now() > lay.deadline:
                return False
            arr = walked.elems + <size_t>f * nw
            memset(L, 0, cells * sizeof(int32_t))
            for c in range(K):
                cl_w[c] = 0
                cl_o[c] = 0
            nl_w = 0
            nl_o = 0
            st_w.skip_to = 0
            st_o.skip_to = 0
            k = 0
            end = off[f + 1] - off[f]
            for b in range(end):
                tn_b = TN + <size_t>(off[f] + b) * K
                nb = 0
                for c in range(K):
                    nb += tn_b[c]
                    here[c] = 0
                if nb == 0:
                    continue        # the parent has no row of this rank
                k = add_rank(L, arr, k, nw, b, RR, off, p, K, here)
                at_w = 0
                for c in range(K):
                    at_w += here[c]
                    cl_w[c] += here[c]
                    cl_o[c] += tn_b[c] - here[c]
                nl_w += at_w
                nl_o += nb - at_w
                # a threshold after b for a child with rows at b and beyond it
                if at_w > 0 and k < nw and scores_at(nl_w, nw, ml, st_w) and score_root_threshold(
                        L, T, cl_w, cr, walked.counts, nl_w, nw, off, p, K, ml, cost, prefix, st_w):
                    st_w.root.feature = f
                    st_w.root.lo = b
                    st_w.root.hi = arr[k].rank
                if nb > at_w and nl_o < no and scores_at(nl_o, no, ml, st_o):
                    snap_b = &self.snap[<size_t>(off[f] + b) * cells]
                    for i in range(cells):
                        PO[i] = snap_b[i] - L[i]
                    if score_root_threshold(PO, TO, cl_o, cr, other.counts, nl_o, no, off, p, K, ml,
                                            cost, prefix, st_o):
                        st_o.root.feature = f
                        st_o.root.lo = b
                        st_o.root.hi = self._next_rank_other(f, b, arr, k, nw)
                if k == nw and nl_o == no:
                    break           # both children have passed their last rank
        return True

    cdef int _next_rank_other(self, int f, int b, Elem* walked, int k, int n_walked) noexcept nogil:
        """The unwalked child's first rank on feature f above b: the first
        rank where the parent holds more rows than the walked child (whose
        rows above b start at ``walked[k]``)."""
        cdef int K = self.K, end = self.offset[f + 1] - self.offset[f], b2, c, nb, nw
        cdef int32_t* tn_b
        for b2 in range(b + 1, end):
            tn_b = &self.snap_total[<size_t>(self.offset[f] + b2) * K]
            nb = 0
            for c in range(K):
                nb += tn_b[c]
            nw = 0
            while k < n_walked and walked[k].rank <= b2:
                nw += 1
                k += 1
            if nb > nw:
                return b2
        return b
