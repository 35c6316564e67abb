# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Sorted-order layout: partition, thresholds, class floors and the
depth-two solver D2Split (Brita, van der Linden, Demirovic, AAAI 2025,
Algorithm 2 with the implementation notes' corrections).  The speed-ups of
classification each live in their own module, held here: the scans
(``_d2scan.pxd``), side maps (``_side_maps``), the sweep (``_sweep``),
histograms and sibling pairs (``_hist_solver``) and the similarity bound
(``_similarity``)."""
from libc.stdint cimport int64_t, uint16_t
from libc.string cimport memset
from libc.math cimport ceil, INFINITY
from libcpp.pair cimport pair
from libcpp.queue cimport priority_queue

from optimaltrees.search.engine._common cimport (
    AHEAD, EPS, NEVER, WIDE_CLASSES, count_errors, count_floor, popcount64, prefetch, leaf_errors,
    sum_squares_start, sum_squares_move, weighted_squares_start, weighted_squares_move)
from optimaltrees.search.engine._d2scan cimport (
    pdep_cpu, scan_class_maps, scan_classes, scan_two_bits, scan_two_maps, scan_wide, select64,
    select_portable)
from optimaltrees.search.engine._side_maps cimport MAPS_MAX_CLASSES
from optimaltrees.search.engine._split_floor cimport split_floor as floors_along

from optimaltrees.search.engine.options import PAIR_MODES, EngineOptions


cdef enum:
    # the depth-two scan prefetches its row flags beyond this many rows
    # (the flag array, a byte a row, no longer stays in L2)
    FAR_ROWS = 1 << 18
    # class floors (split_floor) sort the classes once per scan: up to this many
    FLOOR_MAX_CLASSES = 256

# switch shares are kept per (f1, f2) pair up to this many features, per f2 beyond
cdef int SWITCH_PAIRS_MAX = 1024


def pdep_choice(str mode) -> bool:
    """Whether the two-class scan uses PDEP under the ``select`` option
    (:class:`~optimaltrees.search.engine.options.EngineOptions`): ``"auto"``
    where the CPU has a fast one, ``"pdep"`` wherever it has one (else a
    ValueError), ``"portable"`` never."""
    if mode == "auto":
        return bool(pdep_cpu(1))
    if mode == "pdep":
        if not pdep_cpu(0):
            raise ValueError("this CPU (or build) has no PDEP instruction")
        return True
    if mode == "portable":
        return False
    raise ValueError(f"select mode must be 'auto', 'pdep' or 'portable', got {mode!r}")


def select_bit(uint64_t m, int r, str mode="auto") -> tuple:
    """The r-th set bit's position of m by the ``mode`` (:func:`pdep_choice`)
    and by the portable search (for tests; r < popcount(m))."""
    if r < 0 or r >= popcount64(m):
        raise ValueError("r must be below the word's popcount")
    return select64(m, r, pdep_choice(mode)), select_portable(m, r)


cdef class SortedLayout:
    """Every feature's sorted order of the training set, and per recursion
    level one buffer for the two children of the split being tried, so the
    search allocates nothing while it runs."""

    def __init__(self, int32_t[:, ::1] order, int32_t[:, ::1] rank, int32_t[::1] y,
                 int n_classes, int max_depth, double cost, int min_leaf,
                 int64_t[:, ::1] random_words, double[::1] weights=None, options=None):
        """order[f, k]: id of the k-th instance sorted by feature f (stable);
        rank[f, i]: unique-value rank of instance i on feature f; y: labels
        0..K-1; random_words: (2, >= n) random integers for the set hashes;
        weights: each row's weight (finite, > 0), or None for 1 each;
        options: an :class:`~optimaltrees.search.engine.options.EngineOptions`
        (None: the defaults)."""
        cdef int f, k, i, lvl, levels = max(max_depth, 1) + 1
        cdef Elem e
        if options is None:
            options = EngineOptions()
        self.opt_sim_min_rows = options.similarity_min_rows
        self.opt_switchy = options.scan_switch_rate
        self.opt_pdep = pdep_choice(options.select)
        self.init_sizes(order.shape[1], order.shape[0], n_classes, min_leaf, cost, 1, y)
        self.weighted = weights is not None
        self.has_floors = not self.weighted and self.K <= FLOOR_MAX_CLASSES
        if self.weighted:
            if weights.shape[0] != self.n:
                raise ValueError(f"{weights.shape[0]} weights for {self.n} rows")
            self.weight.resize(self.n)
            self.root_counts.assign(self.K, 0.0)
            for i in range(self.n):
                if not (weights[i] > 0.0 and weights[i] < INFINITY):
                    raise ValueError(f"row {i}'s weight {weights[i]} is not finite and positive")
                self.weight[i] = weights[i]
                self.root_counts[y[i]] += weights[i]
            self.wq.resize(2 * self.K)
            self.wc.resize(2 * self.K)
        self.root.resize(<size_t>self.n * self.p)
        for f in range(self.p):
            for k in range(self.n):
                i = order[f, k]
                e.id = i
                e.rank = rank[f, i]
                e.label = y[i]
                self.root[<size_t>f * self.n + k] = e
        self.children.resize(levels)
        self.cnt_left.resize(levels)
        self.cnt_right.resize(levels)
        for lvl in range(levels):
            # only nodes with >= 3 levels left partition (depth-two nodes use D2Split)
            if lvl <= max_depth - 3:
                self.children[lvl].resize(<size_t>self.n * self.p)
            self.cnt_left[lvl].resize(self.K)
            self.cnt_right[lvl].resize(self.K)
        self.flag.resize(self.n)
        self.rnd1.resize(self.n)
        self.rnd2.resize(self.n)
        for i in range(self.n):
            self.rnd1[i] = <uint64_t>random_words[0, i] * 2 + 1
            self.rnd2[i] = <uint64_t>random_words[1, i]
        self.fql.resize(2 * self.K)
        self.cl.resize(2 * self.K)
        self.switch_stride = self.p if self.p <= SWITCH_PAIRS_MAX else 0
        self.switch_rate.assign(<size_t>self.p * (self.switch_stride if self.switch_stride else 1), 0.0)
        if self.K > WIDE_CLASSES:
            self.class_hist.resize(2 * (<size_t>self.n + 1))
        if self.has_floors and self.K > 2 and max_depth >= 2:
            self.floor_rank.resize(4 * <size_t>self.K + 2 * (<size_t>self.n + 1))
        self.hist = HistogramSolver(rank, n_classes, max_depth, cost, min_leaf, self.weighted,
                                    options.histogram_scans, options.histogram_min_rows,
                                    PAIR_MODES.index(options.pairs))
        self.maps = SideMaps(self.p, n_classes, options.maps_after, options.gather_entries)
        self.sweep = Sweep(self.n, options.sweep_after)
        # the similarity bound: sound without leaf sizes (a removed row lowers the
        # optimum by at most one) and, as written, for rows of weight one
        self.sim = SimilarityArchive(self.n, levels, 0 if (min_leaf > 1 or self.weighted)
                                     else options.similarity_sets)
        self.fixed_bytes = self.memory_bytes()

    cdef size_t memory_bytes(self) noexcept nogil:
        cdef size_t b = 0, lvl
        b += (self.rnd1.capacity() + self.rnd2.capacity()) * sizeof(uint64_t)
        b += self.base_bytes()
        b += (self.fql.capacity() + self.cl.capacity()
              + self.class_hist.capacity() + self.floor_rank.capacity()) * sizeof(int32_t)
        b += (self.weight.capacity() + self.wq.capacity() + self.wc.capacity()) * sizeof(double)
        b += self.root.capacity() * sizeof(Elem) + self.flag.capacity()
        b += self.switch_rate.capacity() * sizeof(float)
        b += self.hist.memory_bytes() + self.sweep.bytes + self.maps.bytes + self.sim.memory_bytes()
        for lvl in range(self.children.size()):
            b += self.children[lvl].capacity() * sizeof(Elem)
            b += (self.cnt_left[lvl].capacity() + self.cnt_right[lvl].capacity()) * sizeof(double)
        return b

    cdef void init_root(self, Node* root) noexcept nogil:
        cdef int i
        root.elems = &self.root[0]
        root.mask = NULL
        root.size = self.n
        root.counts = &self.root_counts[0]
        root.h1 = 0
        root.h2 = 0
        for i in range(self.n):
            root.h1 += self.rnd1[i]
            root.h2 ^= self.rnd2[i]

    cdef void gini_split(self, Node* node, int f, double* score, int32_t* pos) noexcept nogil:
        """Feature f's split of least weighted Gini impurity (INFINITY, -1: none)."""
        cdef int nn = node.size, k
        cdef Elem* arr = node.elems + <size_t>f * nn
        cdef int32_t* cc = &self.cl[0]
        cdef double best = INFINITY, sl, sr, g
        cdef int32_t best_pos = -1
        if self.weighted:
            self._gini_weighted(node, f, score, pos, NULL)
            return
        sum_squares_start(node.counts, cc, self.K, &sl, &sr)
        for k in range(nn):
            if k > 0 and arr[k].rank != arr[k - 1].rank:
                g = (k - sl / k) + ((nn - k) - sr / (nn - k))
                if g < best:
                    best = g
                    best_pos = k
            sum_squares_move(node.counts, cc, arr[k].label, &sl, &sr)
        score[0] = best
        pos[0] = best_pos

    cdef int thresholds(self, Node* node, int f, int32_t* P, double* D) noexcept nogil:
        """Every position where feature f's value changes, leaving both sides
        at least min_leaf instances, and the weight left of each (D[m]:
        the node's whole weight)."""
        cdef int nn = node.size, ml = self.min_leaf, k, m = 0
        cdef Elem* arr = node.elems + <size_t>f * nn
        cdef double* wt
        cdef double left = 0.0
        if self.weighted:
            wt = &self.weight[0]
            left = wt[arr[0].id]
            for k in range(1, nn):
                if arr[k].rank != arr[k - 1].rank and k >= ml and nn - k >= ml:
                    P[m] = k
                    D[m] = left
                    m += 1
                left += wt[arr[k].id]
            D[m] = left
            return m
        for k in range(1, nn):
            if arr[k].rank != arr[k - 1].rank and k >= ml and nn - k >= ml:
                P[m] = k
                D[m] = k
                m += 1
        D[m] = nn
        return m

    cdef double split_floor(self, Node* node, int f, int child_depth, int32_t* P, int m,
                            double* out) noexcept nogil:
        """The class floor of feature f's splits (``_split_floor.pxd``): the
        rows of each child outside its 2^child_depth largest classes.  With
        ``out``, the floor at each of the m split positions P too.  0 with
        weighted rows (not tracked) or leaves for every class."""
        cdef int w
        if (not self.has_floors or self.floor_rank.size() == 0 or child_depth >= 30
                or (1 << child_depth) >= self.K):
            if out != NULL:
                for w in range(m):
                    out[w] = 0.0
            return 0.0
        return floors_along(node.elems + <size_t>f * node.size, node.size, node.counts, self.K, self.min_leaf,
                            1 << child_depth, P, m, out, &self.cl[0], &self.floor_rank[0], self.n)

    cdef void split_ranks(self, Node* node, int f, int pos, int32_t* lo, int32_t* hi) noexcept nogil:
        cdef Elem* arr = node.elems + <size_t>f * node.size
        lo[0] = arr[pos - 1].rank
        hi[0] = arr[pos].rank

    cdef int rank_position(self, Node* node, int f, int32_t rank) noexcept nogil:
        """The split position of rank ``rank``: the node's rows whose rank on f is at most it."""
        cdef Elem* arr = node.elems + <size_t>f * node.size
        cdef int lo = 0, hi = node.size, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if arr[mid].rank <= rank:
                lo = mid + 1
            else:
                hi = mid
        return lo

    cdef void candidates(self, Node* node, int f, vector[Cand]* out) noexcept nogil:
        """Feature f's splits (both sides >= min_leaf) with their Gini scores."""
        cdef int nn = node.size, ml = self.min_leaf, k
        cdef Elem* arr = node.elems + <size_t>f * nn
        cdef int32_t* cc = &self.cl[0]
        cdef double sl, sr
        cdef Cand c
        if self.weighted:
            self._gini_weighted(node, f, NULL, NULL, out)
            return
        sum_squares_start(node.counts, cc, self.K, &sl, &sr)
        for k in range(nn):
            if k > 0 and arr[k].rank != arr[k - 1].rank and k >= ml and nn - k >= ml:
                c.score = (k - sl / k) + ((nn - k) - sr / (nn - k))
                c.f = f
                c.pos = k
                c.lo = arr[k - 1].rank
                c.hi = arr[k].rank
                out.push_back(c)
            sum_squares_move(node.counts, cc, arr[k].label, &sl, &sr)

    cdef void _gini_weighted(self, Node* node, int f, double* score, int32_t* pos,
                             vector[Cand]* out) noexcept nogil:
        """gini_split (``out`` NULL) or candidates with weighted class counts."""
        cdef int nn = node.size, ml = self.min_leaf, k, K = self.K
        cdef Elem* arr = node.elems + <size_t>f * nn
        cdef double* cc = &self.wc[0]
        cdef double* wt = &self.weight[0]
        cdef double total = 0.0, left = 0.0, best = INFINITY, sl, sr, g
        cdef int32_t best_pos = -1
        cdef Cand c
        for k in range(K):
            total += node.counts[k]
        weighted_squares_start(node.counts, cc, K, &sl, &sr)
        for k in range(nn):
            if k > 0 and arr[k].rank != arr[k - 1].rank and total - left > 0.0:
                g = (left - sl / left) + ((total - left) - sr / (total - left))
                if out == NULL:
                    if g < best:
                        best = g
                        best_pos = k
                elif k >= ml and nn - k >= ml:
                    c.score = g
                    c.f = f
                    c.pos = k
                    c.lo = arr[k - 1].rank
                    c.hi = arr[k].rank
                    out.push_back(c)
            weighted_squares_move(node.counts, cc, arr[k].label, wt[arr[k].id], &sl, &sr)
            left += wt[arr[k].id]
        if out == NULL:
            score[0] = best
            pos[0] = best_pos

    cdef bint solves_whole(self, Node* node, int depth) noexcept nogil:
        """Depth one always; depth two from histograms when every feature
        has few ranks and the histograms cost less than a typical search."""
        return depth <= 1 or self.hist.solves_whole(node, depth)

    cdef bint solve_exact(self, Node* node, int depth, double* best_val, Split1* root,
                          Split1* sides) noexcept nogil:
        """Depth two (when :meth:`solves_whole` says so) from histograms;
        depth one (only a depth-one root gets here): D2Split with every
        instance in the left child."""
        cdef Split1 unused
        if depth == 2:
            return self.hist.solve(self, node, best_val, root, sides)
        if self.weighted:
            self._d2_weighted(node.elems, node.size, 0, node.size, root, &unused, self.min_leaf)
        else:
            self._d2(node.elems, node.size, 0, node.size, node.counts, root, &unused, self.min_leaf)
        if root.feature < 0 or root.val >= best_val[0] - EPS:
            return False
        best_val[0] = root.val
        sides[0].feature = -1
        sides[1].feature = -1
        return True

    # ----------------------------------------- the speed-ups' memory, at search start

    def reserve_pairs(self, int max_depth, double budget_bytes):
        """Let depth-three splits solve their depth-two children as pairs
        (:meth:`HistogramSolver.reserve_pairs`) within ``budget_bytes``
        (the memory limit; INFINITY: none)."""
        self.hist.reserve_pairs(max_depth, budget_bytes, self.fixed_bytes)
        self.fixed_bytes = self.memory_bytes()

    def reserve_sweep(self, double budget_bytes):
        """Let depth-two nodes sweep a root feature whole (:meth:`Sweep.reserve`;
        after :meth:`reserve_side_maps`, which decides where sweeps pay)."""
        self.sweep.reserve(self.K, self.weighted, self.maps.allowed, budget_bytes, self.fixed_bytes)
        self.fixed_bytes = self.memory_bytes()

    def reserve_side_maps(self, int max_depth, double budget_bytes):
        """Let depth-two nodes keep their side maps between D2Split calls
        (:meth:`SideMaps.reserve`) beside the layout's other buffers."""
        self.maps.clear()
        self.fixed_bytes = self.memory_bytes()
        self.maps.reserve(self.n, self.weighted, max_depth, budget_bytes, self.fixed_bytes)
        self.fixed_bytes = self.memory_bytes()

    @property
    def n_pairs(self):
        """Depth-three splits whose children were solved as a pair."""
        return self.hist.n_pairs

    @property
    def n_sweeps(self):
        """Depth-two features swept whole."""
        return self.sweep.n_sweeps

    @property
    def n_map_moves(self):
        """Rows moved between thresholds in the side maps."""
        return self.maps.n_moves

    @property
    def n_map_gathers(self):
        """Times the side maps copied the positions into a feature's order."""
        return self.maps.n_gathers

    # ------------------------------------------------ the speed-ups, for the core

    cdef bint sweep_due(self, Node* node, int evaluated) noexcept nogil:
        return self.sweep.due(node, evaluated)

    cdef bint sweep_start(self, Node* node, int f1, int32_t* P, int i, int j) noexcept nogil:
        return self.sweep.start(node, f1, P, i, j)

    cdef void sweep_feature(self, Node* node, int f1, int f2, int32_t* P, int i, int j) noexcept nogil:
        self.sweep.feature(node, f1, f2, P, i, j)

    cdef double sweep_value(self, Node* node, int32_t* P, int i, int w) noexcept nogil:
        return self.sweep.value(node, P, i, w, self.cost)

    cdef bint pair_children(self, int level, Node* parent, int f, int pos, Node* out) noexcept nogil:
        """In place of :meth:`partition` for a depth-three split: both
        children solved from one walk of the smaller
        (:meth:`HistogramSolver.pair`).  False: nothing done, the caller
        partitions."""
        cdef int done = self.hist.pair(self, parent, f, pos, out, self.children[level].data(),
                                       self.cnt_left[level].data(), self.cnt_right[level].data(),
                                       self.rnd1.data(), self.rnd2.data())
        if done < 0:
            return False
        self.elems_epoch += 1           # the smaller child's rows were laid out
        if done == 0:
            self.partition(level, parent, f, pos, out)     # the time limit: lay out both
        return True

    cdef void children_depth_one(self, int level, Node* node, int f, int pos, int ml,
                                 Split1* left, Split1* right) noexcept nogil:
        if self.weighted:
            self._d2_weighted(node.elems, node.size, f, pos, left, right, ml)
        else:
            self._d2(node.elems, node.size, f, pos, node.counts, left, right, ml)

    cdef bint _archived(self, Node* node, int depth) noexcept nogil:
        """Whether the similarity bound checks and remembers this node: depth
        two and up, large enough (against the data's size, too), and searched
        (a node the histograms solve whole may be one whose rows a pair walk
        never laid out)."""
        return (self.sim.capacity > 0 and depth >= 2 and node.size >= self.opt_sim_min_rows
                # (a bitmap over every row costs no more than one scan of the node's)
                and <size_t>node.size * self.p >= <size_t>self.sim.words
                and not self.solves_whole(node, depth))

    cdef bint similarity_prune(self, Node* node, int depth, double ub, double* known_lb) noexcept nogil:
        """:meth:`SimilarityArchive.prune` where :meth:`_archived`."""
        return self._archived(node, depth) and self.sim.prune(node, depth, ub, known_lb)

    cdef void remember(self, Node* node, int depth, double lb) noexcept nogil:
        """:meth:`SimilarityArchive.remember` where :meth:`_archived`."""
        if self._archived(node, depth):
            self.sim.remember(node, depth, lb)

    cdef void hint_sibling(self, Node* parent, int depth, Node* second, Node* first) noexcept nogil:
        pass

    cdef void clear_hint(self) noexcept nogil:
        pass

    # ---------------------------------------------------------------- partition

    cdef void partition(self, int level, Node* node, int f, int pos, Node* out) noexcept nogil:
        """Split ``node`` at (f, pos) into out[0] (left) and out[1] (right),
        stored in this level's child buffers: a stable partition of every
        feature's order; class counts and set hashes come from feature 0."""
        cdef int nn = node.size
        cdef Elem* data = node.elems
        cdef uint8_t* flag = &self.flag[0]
        cdef Elem* arr = data + <size_t>f * nn
        cdef Elem* dl = &self.children[level][0]
        cdef Elem* dr = dl + <size_t>pos * self.p
        cdef double* cntl = &self.cnt_left[level][0]
        cdef double* cntr = &self.cnt_right[level][0]
        cdef bint weighted = self.weighted
        cdef double* wt = self.weight.data()
        cdef int nl = pos, nr = nn - pos, k, g, a, b
        cdef Elem e
        cdef uint64_t a1 = 0, a2 = 0, b1 = 0, b2 = 0
        out[0].size = pos
        out[1].size = nn - pos
        out[0].counts = cntl
        out[1].counts = cntr
        out[0].mask = NULL
        out[1].mask = NULL
        out[0].elems = dl
        out[1].elems = dr
        self.elems_epoch += 1
        for k in range(pos):
            flag[arr[k].id] = 1
        for k in range(pos, nn):
            flag[arr[k].id] = 0
        memset(cntl, 0, self.K * sizeof(double))
        memset(cntr, 0, self.K * sizeof(double))
        arr = data
        a = 0
        b = 0
        for k in range(nn):
            e = arr[k]
            if k + AHEAD < nn:
                prefetch(flag + arr[k + AHEAD].id)
            if flag[e.id]:
                dl[a] = e
                a += 1
                cntl[e.label] += wt[e.id] if weighted else 1.0
                a1 += self.rnd1[e.id]
                a2 ^= self.rnd2[e.id]
            else:
                dr[b] = e
                b += 1
                cntr[e.label] += wt[e.id] if weighted else 1.0
                b1 += self.rnd1[e.id]
                b2 ^= self.rnd2[e.id]
        for g in range(1, self.p):
            arr = data + <size_t>g * nn
            a = g * nl
            b = g * nr
            for k in range(nn):
                e = arr[k]
                if k + AHEAD < nn:
                    prefetch(flag + arr[k + AHEAD].id)
                if flag[e.id]:
                    dl[a] = e
                    a += 1
                else:
                    dr[b] = e
                    b += 1
        out[0].h1 = a1
        out[0].h2 = a2
        out[1].h1 = b1
        out[1].h2 = b2

    # ---------------------------------------------------------------- depth two

    cdef void _d2(self, Elem* data, int nn, int f1, int pos, double* counts,
                  Split1* bl, Split1* br, int ml) noexcept nogil:
        """D2Split (Algorithm 2, with the notes' corrections): the optimal
        depth-1 subtrees of both children of the root split (f1, pos) in one
        scan of every feature.  Multi-class leaf errors, evaluation only where
        the child's value changes, and the similarity skip along the scan.

        State is indexed by side (1 = left child, 0 = right child); each
        feature's scan is one of ``_d2scan.pxd``'s."""
        cdef int K = self.K
        cdef int32_t* fq = &self.fql[0]        # [side * K + class]: class counts per child
        cdef int32_t* cc = &self.cl[0]         # [side * K + class]: counts passed so far
        cdef uint8_t* flag = &self.flag[0]
        cdef Elem* arr = data + <size_t>f1 * nn
        cdef int k, c, f2, s, sw
        cdef int ntot[2]
        cdef int skip[2]
        cdef int target[2]      # a split must make fewer errors than this to win
        cdef int least[2]       # errors no split goes below (the rows outside its two largest classes)
        cdef bint masked
        cdef size_t pair
        cdef int start_skip = ml if ml > 1 else 1
        # the flags outgrow the fast caches: prefetch them along the scan
        cdef bint far = self.n > FAR_ROWS
        cdef double cost = self.cost, leaf
        cdef Split1* out[2]
        # a node's later calls keep its side maps and move only the rows
        # between thresholds (:meth:`SideMaps.move_sides`)
        cdef bint maps = K <= MAPS_MAX_CLASSES and self.maps.use(data, nn, self.elems_epoch)
        cdef uint64_t* lab
        cdef int W = self.maps.words
        cdef uint64_t* ones = &self.maps.label[<size_t>f1 * W] if maps and K == 2 else NULL
        self.n_d2 += 1
        out[0] = br
        out[1] = bl
        memset(fq, 0, 2 * K * sizeof(int32_t))
        if maps:
            self.maps.move_sides(data, nn, f1, pos)
            if K == 2:
                for k in range(pos >> 6):
                    fq[K + 1] += popcount64(ones[k])
                if pos & 63:
                    fq[K + 1] += popcount64(ones[pos >> 6] & ((<uint64_t>1 << (pos & 63)) - 1))
                fq[K] = pos - fq[K + 1]
            else:
                for c in range(K):
                    lab = &self.maps.label[(<size_t>f1 * K + c) * W]
                    for k in range(pos >> 6):
                        fq[K + c] += popcount64(lab[k])
                    if pos & 63:
                        fq[K + c] += popcount64(lab[pos >> 6] & ((<uint64_t>1 << (pos & 63)) - 1))
        else:
            for k in range(pos):
                flag[arr[k].id] = 1
                fq[K + arr[k].label] += 1
            for k in range(pos, nn):
                flag[arr[k].id] = 0
        for c in range(K):
            fq[c] = <int32_t>counts[c] - fq[K + c]
        ntot[1] = pos
        ntot[0] = nn - pos
        for s in range(2):
            leaf = count_errors(fq + s * K, K, ntot[s])
            out[s].val = leaf
            out[s].feature = -1
            # errors + cost < leaf  <=>  errors < ceil(leaf - cost): integers from here on
            target[s] = <int>ceil(leaf - cost - EPS)
            if ntot[s] < 2 * ml:
                target[s] = 0
            # no split makes fewer errors than the rows outside its two classes:
            # a side at that floor needs no further feature
            least[s] = count_floor(fq + s * K, K) if K > 2 else 0
        for f2 in range(self.p):
            if target[0] <= least[0] and target[1] <= least[1]:
                break
            arr = data + <size_t>f2 * nn
            memset(cc, 0, 2 * K * sizeof(int32_t))
            for s in range(2):
                skip[s] = NEVER if target[s] <= least[s] else start_skip
            if maps and K == 2:
                scan_two_maps(arr, nn, &self.maps.side[<size_t>f2 * W], &self.maps.label[<size_t>f2 * W],
                              &self.maps.change[<size_t>f2 * W], ntot, fq, target, skip, out, ml, f2,
                              self.opt_pdep)
                continue
            if maps:
                scan_class_maps(arr, nn, K, &self.maps.side[<size_t>f2 * W],
                                &self.maps.label[<size_t>f2 * K * W], &self.maps.change[<size_t>f2 * W],
                                &self.maps.counts[0], ntot, fq, target, skip, out, ml, f2, self.opt_pdep)
                continue
            if K == 2:
                scan_two_bits(arr, nn, flag, far, ntot, fq, target, skip, out, ml, f2, self.opt_pdep)
                continue
            if K > WIDE_CLASSES:
                scan_wide(arr, nn, K, flag, &self.class_hist[0], self.n + 1, f2, ntot, fq, cc, target, skip,
                          out, ml)
                continue
            # the row's side is picked with masks where it switches often along
            # f2's order (a branch would mispredict), with a branch where it
            # seldom does (correlated features): as measured on the last scan
            # of this (f1, f2) pair
            pair = <size_t>f1 * self.switch_stride + f2
            masked = self.switch_rate[pair] > self.opt_switchy
            if masked:
                sw = scan_classes(arr, nn, K, flag, ntot, fq, cc, target, skip, out, ml, f2, True)
            else:
                sw = scan_classes(arr, nn, K, flag, ntot, fq, cc, target, skip, out, ml, f2, False)
            self.switch_rate[pair] = sw / <float>nn
        for s in range(2):
            if out[s].feature >= 0:
                out[s].val = target[s] + cost

    # ------------------------------------------------------ depth two, weighted

    cdef void _d2_weighted(self, Elem* data, int nn, int f1, int pos,
                           Split1* bl, Split1* br, int ml) noexcept nogil:
        """D2Split over weighted rows: errors are sums of weights, so the
        similarity skip counts weight, not rows (moving the threshold past
        rows of total weight w changes a child's error by at most w).
        Leaf sizes still count rows.  One scan per feature; the prefix's
        largest class weight is kept up to date per row, the suffix's found
        at a scored position: over K classes, or with many classes from a
        max-heap of (suffix weight, class) whose stale tops are dropped
        lazily (a class's suffix weight only falls), so a scored position
        costs O(log n) instead of O(K)."""
        cdef int K = self.K
        cdef double* fq = &self.wq[0]          # [side * K + class]: class weights per child
        cdef double* cc = &self.wc[0]          # [side * K + class]: weight passed so far
        cdef double* wt = &self.weight[0]
        cdef uint8_t* flag = &self.flag[0]
        cdef Elem* arr = data + <size_t>f1 * nn
        cdef int k, c, f2, s, cnt_s, pv, n_left, prev_l, prev_r
        cdef int start_skip = ml if ml > 1 else 1
        cdef int ntot[2]
        cdef double wtot[2]
        cdef double passed[2]     # weight of the side's rows passed on this feature
        cdef double skip[2]       # score the side again once passed[s] >= skip[s]
        cdef double target[2]     # a split must make fewer errors than this (less EPS) to win
        cdef double cost = self.cost, prefix_err, err, best_suf, w
        cdef double best_pre[2]   # largest class weight of the side's prefix
        cdef bint wide = K > WIDE_CLASSES
        cdef priority_queue[pair[double, int]] heap0, heap1     # suffix (weight, class), per side
        cdef priority_queue[pair[double, int]]* hp
        cdef Split1* out[2]
        cdef Elem e
        cdef double* fqs
        cdef double* ccs
        self.n_d2 += 1
        out[0] = br
        out[1] = bl
        memset(fq, 0, 2 * K * sizeof(double))
        for k in range(pos):
            flag[arr[k].id] = 1
            fq[K + arr[k].label] += wt[arr[k].id]
        for k in range(pos, nn):
            flag[arr[k].id] = 0
            fq[arr[k].label] += wt[arr[k].id]
        ntot[1] = pos
        ntot[0] = nn - pos
        for s in range(2):
            wtot[s] = 0.0
            for c in range(K):
                wtot[s] += fq[s * K + c]
            out[s].val = leaf_errors(fq + s * K, K)
            out[s].feature = -1
            target[s] = out[s].val - cost
            if ntot[s] < 2 * ml:
                target[s] = -INFINITY
        for f2 in range(self.p):
            if target[0] <= EPS and target[1] <= EPS:
                break
            arr = data + <size_t>f2 * nn
            memset(cc, 0, 2 * K * sizeof(double))
            for s in range(2):
                passed[s] = 0.0
                best_pre[s] = 0.0
                skip[s] = INFINITY if target[s] <= EPS else 0.0
            if wide:
                heap0 = priority_queue[pair[double, int]]()
                heap1 = priority_queue[pair[double, int]]()
                for c in range(K):
                    if fq[c] > 0.0:
                        heap0.push(pair[double, int](fq[c], c))
                    if fq[K + c] > 0.0:
                        heap1.push(pair[double, int](fq[K + c], c))
            n_left = 0
            prev_l = -1
            prev_r = -1
            for k in range(nn):
                e = arr[k]
                s = flag[e.id]
                cnt_s = n_left if s else k - n_left
                pv = prev_l if s else prev_r
                if (passed[s] >= skip[s] and cnt_s >= start_skip and e.rank != pv
                        and ntot[s] - cnt_s >= ml):
                    fqs = fq + s * K
                    ccs = cc + s * K
                    best_suf = 0.0
                    if wide:
                        hp = &heap1 if s else &heap0
                        while not hp.empty() and hp.top().first != fqs[hp.top().second] - ccs[hp.top().second]:
                            hp.pop()       # stale: that class's suffix weight fell since
                        if not hp.empty():
                            best_suf = hp.top().first
                    else:
                        for c in range(K):
                            if fqs[c] - ccs[c] > best_suf:
                                best_suf = fqs[c] - ccs[c]
                    prefix_err = passed[s] - best_pre[s]
                    err = prefix_err + (wtot[s] - passed[s] - best_suf)
                    if err < target[s] - EPS:
                        target[s] = err
                        out[s].feature = f2
                        out[s].lo = pv
                        out[s].hi = e.rank
                        skip[s] = INFINITY if err <= EPS else passed[s]
                    elif prefix_err >= target[s] - EPS:
                        skip[s] = INFINITY    # the prefix's error never decreases along the scan
                    else:
                        # rows of total weight <= err - target cannot close the gap
                        skip[s] = passed[s] + (err - target[s]) - EPS
                    if skip[0] == INFINITY and skip[1] == INFINITY:
                        break
                prev_l = e.rank if s else prev_l
                prev_r = prev_r if s else e.rank
                n_left += s
                w = wt[e.id]
                c = s * K + e.label
                cc[c] += w
                passed[s] += w
                if cc[c] > best_pre[s]:
                    best_pre[s] = cc[c]
                if wide and fq[c] - cc[c] > 0.0:
                    hp = &heap1 if s else &heap0
                    hp.push(pair[double, int](fq[c] - cc[c], e.label))
        for s in range(2):
            if out[s].feature >= 0:
                out[s].val = target[s] + cost
