# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Additive layout: partition, thresholds and the exact depth-one subtrees
of both children of a split, for every objective whose node statistics are
sums over rows (squared error; a cost matrix over classes).

The search's bounds need two facts of an objective (``_intervals.pxd``):
adding rows never lowers a subproblem's optimum (a tree of the larger set,
restricted to the smaller, is no worse there), and moving rows of weight k
changes it by at most a sum of one bound per row moved (:meth:`AdditiveLayout.row_bound`).
For squared error a row of weight w and target y added to a leaf of weight
W and mean m raises its error by w W / (W + w) (y - m)^2, and every leaf of
a subset of the node has its mean between the node's least and largest
targets lo and hi: the row's bound is w max((y - lo)^2, (hi - y)^2), at
most w (hi - lo)^2.  For a cost matrix a row added to a leaf raises the
cost of the leaf's class by at most the row's weight times the largest cost
of its own class.  :meth:`thresholds` measures distances as these sums.
"""
from libc.stdint cimport int64_t
from libc.string cimport memset
from libc.math cimport INFINITY

from optimaltrees.search.engine._common cimport EPS, prefetch
from optimaltrees.search.engine._objective cimport COST_MATRIX, SQUARED_ERROR, SSE_STATS, cost_leaf, sse_leaf
from optimaltrees.search.engine._pair_table import index_bytes, table_bytes

import numpy as np

# rows looked ahead when a random access follows (as in the sorted layout)
cdef enum:
    AHEAD = 8

# the depth-one memo is kept when (rows + 1) x features is at most this
# (two doubles each): beyond it, it would cost more memory than it saves time
MEMO_MAX_ENTRIES = 2 ** 20

# the pairwise tables of the depth-two solver are built only below this size
# (and a quarter of the memory limit): beyond it features have too many ranks
# for tables to pay, and the search's depth-one scans take those nodes
PAIR_TABLE_MAX_BYTES = 256.0 * 2 ** 20


cdef class AdditiveLayout(DataLayout):
    """Every feature's sorted order over rows whose objective adds up."""

    def __init__(self, int32_t[:, ::1] order, int32_t[:, ::1] rank, int max_depth, double cost, int min_leaf,
                 int64_t[:, ::1] random_words, double[::1] weights=None, double[::1] targets=None,
                 int32_t[::1] labels=None, double[:, ::1] cost_matrix=None, double pair_tables=1.0):
        """order[f, k]: id of the k-th instance sorted by feature f (stable);
        rank[f, i]: unique-value rank of instance i on feature f;
        random_words: (2, >= n) random integers for the set hashes; weights:
        each row's weight (finite, > 0), or None for 1 each.  The objective:
        ``targets`` (finite, centred and scaled by the caller so that sums
        stay well within a double's precision) for squared error, or
        ``labels`` (0..K-1) and ``cost_matrix`` (K x K, finite, >= 0,
        [true, predicted]) for a cost matrix.  ``pair_tables``: the engine
        option of that name (``options.py``)."""
        cdef int f, k, i, j, lvl, levels = max(max_depth, 1) + 1
        cdef int n = order.shape[1]
        cdef double w, v
        cdef Elem e
        if weights is not None and weights.shape[0] != n:
            raise ValueError(f"{weights.shape[0]} weights for {n} rows")
        if (targets is None) == (labels is None):
            raise ValueError("give targets (squared error) or labels and a cost matrix, not both")
        self.kind = SQUARED_ERROR if targets is not None else COST_MATRIX
        self.max_depth = max_depth
        if self.kind == SQUARED_ERROR:
            if targets.shape[0] != n:
                raise ValueError(f"{targets.shape[0]} targets for {n} rows")
            self.S = SSE_STATS
        else:
            if cost_matrix is None or cost_matrix.shape[0] != cost_matrix.shape[1] or cost_matrix.shape[0] < 1:
                raise ValueError("a cost matrix must be square, one row and column per class")
            if labels.shape[0] != n:
                raise ValueError(f"{labels.shape[0]} labels for {n} rows")
            self.S = cost_matrix.shape[0]
        self.init_sizes(n, order.shape[0], self.S, min_leaf, cost, 1, np_zeros(n))
        self.has_floors = False
        self.root_counts.assign(self.S, 0.0)
        self.row_stats.resize(<size_t>SSE_STATS * n if self.kind == SQUARED_ERROR else n)
        self.max_cost = 0.0
        if self.kind == COST_MATRIX:
            self.costs.resize(<size_t>self.S * self.S)
            self.class_max_cost.assign(self.S, 0.0)
            for i in range(self.S):
                for j in range(self.S):
                    v = cost_matrix[i, j]
                    if not (0.0 <= v < INFINITY):
                        raise ValueError(f"cost_matrix[{i}, {j}] = {v} is not finite and >= 0")
                    self.costs[i * self.S + j] = v
                    if v > self.max_cost:
                        self.max_cost = v
                    if v > self.class_max_cost[i]:
                        self.class_max_cost[i] = v
        else:
            self.target.resize(n)
        for i in range(n):
            w = 1.0 if weights is None else weights[i]
            if not (w > 0.0 and w < INFINITY):
                raise ValueError(f"row {i}'s weight {w} is not finite and positive")
            if self.kind == SQUARED_ERROR:
                if not (-INFINITY < targets[i] < INFINITY):
                    raise ValueError(f"row {i}'s target {targets[i]} is not finite")
                self.target[i] = targets[i]
                self.row_stats[3 * i] = w
                self.row_stats[3 * i + 1] = w * targets[i]
                self.row_stats[3 * i + 2] = w * targets[i] * targets[i]
                for j in range(SSE_STATS):
                    self.root_counts[j] += self.row_stats[3 * i + j]
            else:
                if not 0 <= labels[i] < self.S:
                    raise ValueError(f"row {i}'s label {labels[i]} is not a class of the cost matrix")
                self.row_stats[i] = w
                self.root_counts[labels[i]] += w
        self.root.resize(<size_t>n * self.p)
        for f in range(self.p):
            for k in range(n):
                i = order[f, k]
                e.id = i
                e.rank = rank[f, i]
                e.label = 0 if labels is None else labels[i]
                self.root[<size_t>f * n + k] = e
        self.children.resize(levels)
        self.cnt_left.resize(levels)
        self.cnt_right.resize(levels)
        for lvl in range(levels):
            # only nodes with >= 3 levels left partition (depth-two nodes scan their children)
            if lvl <= max_depth - 3:
                self.children[lvl].resize(<size_t>n * self.p)
            self.cnt_left[lvl].resize(self.S)
            self.cnt_right[lvl].resize(self.S)
        self.flag.resize(n)
        self.rnd1.resize(n)
        self.rnd2.resize(n)
        for i in range(n):
            self.rnd1[i] = <uint64_t>random_words[0, i] * 2 + 1
            self.rnd2[i] = <uint64_t>random_words[1, i]
        self.scan.resize(5 * <size_t>self.S)
        self.memo_f1 = -1
        if self.kind == SQUARED_ERROR:
            self.side_rows.resize(2 * <size_t>n)
            self.scan_order.resize(max(self.p, 1))
            self.scan_key.resize(max(self.p, 1))
            if max_depth >= 2 and (n + 1) * self.p <= MEMO_MAX_ENTRIES:
                self.memo_left.resize(<size_t>(n + 1) * self.p)
                self.memo_right.resize(<size_t>(n + 1) * self.p)
                self.memo_seen.resize(<size_t>(n + 1))
        self.pairs = None
        self.has_pairs = False
        if max_depth >= 2 and self.p > 0 and n >= 2 and pair_tables > 0:
            self._index_pairs(rank, weights, targets, labels, cost_matrix, pair_tables)
        self.fixed_bytes = self.memory_bytes()

    def _index_pairs(self, rank, weights, targets, labels, cost_matrix, double pair_tables):
        """The depth-two solver's row index (:class:`PairTable`) when it and
        three tables fit under PAIR_TABLE_MAX_BYTES; :meth:`reserve_pair_tables`
        allocates the tables."""
        ranks = np.asarray(rank)
        if (index_bytes(ranks, self.S + 1) + table_bytes(ranks.max(axis=1) + 1, self.S + 1, 3)
                + 3 * 5.0 * self.n > PAIR_TABLE_MAX_BYTES):
            return
        w = np.ones(self.n) if weights is None else np.asarray(weights, dtype=np.float64)
        if self.kind == SQUARED_ERROR:
            t = np.asarray(targets, dtype=np.float64)
            stats = np.column_stack([w, w * t, w * t * t])
        else:
            stats = np.zeros((self.n, self.S))
            stats[np.arange(self.n), np.asarray(labels)] = w
        self.pairs = PairTable(rank, np.ascontiguousarray(stats), self.kind, cost_matrix, self.min_leaf,
                               self.cost, pair_tables, self.kind == SQUARED_ERROR and weights is None)

    def reserve_pair_tables(self, double budget_bytes):
        """Allocate the depth-two solver's tables (the parent's and up to
        eight for depth-two nodes, at least two) while they and the row
        index take at most a quarter of ``budget_bytes`` (the memory limit;
        INFINITY: none) and PAIR_TABLE_MAX_BYTES, and leave half of the
        budget beside the other buffers; else drop the solver."""
        cdef double one, room, index
        cdef int n_tables
        if self.pairs is not None:
            # a table's cells, and a flag and a list entry per row it may hold
            one = self.pairs.table_bytes(1) + 5.0 * self.n
            index = <double>self.pairs.memory_bytes()
            room = min(budget_bytes / 4 - index, budget_bytes / 2 - <double>self.fixed_bytes,
                       PAIR_TABLE_MAX_BYTES - index)
            n_tables = <int>min(9.0, room / one) if one > 0 else 9
            if n_tables < 3:
                self.pairs = None
            else:
                self.pairs.allocate(n_tables)
                self.has_pairs = True
        self.fixed_bytes = self.memory_bytes()

    @property
    def pair_stats(self):
        """The depth-two tables' use: (rebuilds, updates, complements), zeros without them."""
        if self.pairs is None:
            return 0, 0, 0
        return self.pairs.n_rebuilds, self.pairs.n_updates, self.pairs.n_complements

    cdef size_t memory_bytes(self) noexcept nogil:
        cdef size_t b = self.base_bytes(), lvl
        b += (self.rnd1.capacity() + self.rnd2.capacity()) * sizeof(uint64_t)
        b += (self.row_stats.capacity() + self.target.capacity() + self.scan.capacity()
              + self.costs.capacity() + self.class_max_cost.capacity()) * sizeof(double)
        b += self.root.capacity() * sizeof(Elem) + self.flag.capacity() + self.side_rows.capacity() * sizeof(SideRow)
        b += (self.memo_left.capacity() + self.memo_right.capacity()) * sizeof(double) + self.memo_seen.capacity()
        for lvl in range(self.children.size()):
            b += self.children[lvl].capacity() * sizeof(Elem)
            b += (self.cnt_left[lvl].capacity() + self.cnt_right[lvl].capacity()) * sizeof(double)
        if self.pairs is not None:
            b += self.pairs.memory_bytes()
        return b

    # ---------------------------------------------------------------- the objective

    cdef double leaf_cost(self, double* counts) noexcept nogil:
        if self.kind == SQUARED_ERROR:
            return sse_leaf(counts)
        return cost_leaf(counts, &self.costs[0], self.S)

    cdef double node_floor(self, double* counts, int depth) noexcept nogil:
        """No floor beyond 0 (a tree's leaves can follow every target)."""
        return 0.0

    cdef double node_weight(self, double* counts) noexcept nogil:
        cdef int j
        cdef double total = 0.0
        if self.kind == SQUARED_ERROR:
            return counts[0]
        for j in range(self.S):
            total += counts[j]
        return total

    cdef void target_range(self, Node* node, double* lo, double* hi) noexcept nogil:
        """The node's least and largest targets (squared error)."""
        cdef Elem* arr = node.elems
        cdef double v
        cdef int k
        lo[0] = INFINITY
        hi[0] = -INFINITY
        for k in range(node.size):
            v = self.target[arr[k].id]
            if v < lo[0]:
                lo[0] = v
            if v > hi[0]:
                hi[0] = v

    cdef inline double row_bound(self, Elem* e, double lo, double hi) noexcept nogil:
        """The most adding the row to any subset of a node whose targets lie
        in [lo, hi] raises that subset's optimum (see the module's docstring)."""
        cdef double below, above
        if self.kind == COST_MATRIX:
            return self.row_stats[e.id] * self.class_max_cost[e.label]
        below = self.target[e.id] - lo
        above = hi - self.target[e.id]
        return self.row_stats[SSE_STATS * e.id] * (below * below if below > above else above * above)

    cdef inline void _add(self, double* sums, Elem* e) noexcept nogil:
        """A row's statistics added to ``sums``."""
        cdef double* rs
        if self.kind == SQUARED_ERROR:
            rs = &self.row_stats[SSE_STATS * e.id]
            sums[0] += rs[0]
            sums[1] += rs[1]
            sums[2] += rs[2]
        else:
            sums[e.label] += self.row_stats[e.id]

    cdef inline double _split_cost(self, double* total, double* prefix, double* rest) noexcept nogil:
        """Both leaves' cost of a split: the prefix's sums and ``total`` less them
        (``rest``: scratch of S numbers)."""
        cdef int j
        for j in range(self.S):
            rest[j] = total[j] - prefix[j]
        return self.leaf_cost(prefix) + self.leaf_cost(rest)

    # ---------------------------------------------------------------- the node

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
        """Feature f's split of least objective with leaf children (INFINITY,
        -1: none): the search's first guess, as Gini's for classes."""
        cdef int nn = node.size, k
        cdef Elem* arr = node.elems + <size_t>f * nn
        cdef double* pre = &self.scan[0]
        cdef double* rest = &self.scan[self.S]
        cdef double g, best = INFINITY
        cdef int32_t best_pos = -1
        memset(pre, 0, self.S * sizeof(double))
        for k in range(nn):
            if k > 0 and arr[k].rank != arr[k - 1].rank:
                g = self._split_cost(node.counts, pre, rest)
                if g < best:
                    best = g
                    best_pos = k
            self._add(pre, &arr[k])
        score[0] = best
        pos[0] = best_pos

    cdef void candidates(self, Node* node, int f, vector[Cand]* out) noexcept nogil:
        """Feature f's splits (both sides >= min_leaf) scored by their leaves' objective."""
        cdef int nn = node.size, ml = self.min_leaf, k
        cdef Elem* arr = node.elems + <size_t>f * nn
        cdef double* pre = &self.scan[0]
        cdef double* rest = &self.scan[self.S]
        cdef Cand c
        memset(pre, 0, self.S * sizeof(double))
        for k in range(nn):
            if k > 0 and arr[k].rank != arr[k - 1].rank and k >= ml and nn - k >= ml:
                c.score = self._split_cost(node.counts, pre, rest)
                c.f = f
                c.pos = k
                c.lo = arr[k - 1].rank
                c.hi = arr[k].rank
                out.push_back(c)
            self._add(pre, &arr[k])

    cdef double split_floor(self, Node* node, int f, int child_depth, int32_t* P, int m,
                            double* out) noexcept nogil:
        cdef int k
        if out != NULL:
            for k in range(m):
                out[k] = 0.0
        return 0.0

    cdef int thresholds(self, Node* node, int f, int32_t* P, double* D) noexcept nogil:
        """Every position where feature f's value changes, leaving both sides
        at least min_leaf instances, and the sum of the row bounds
        (:meth:`row_bound`) left of each: the distance of ConTree's
        neighbourhood bounds for this objective (D[m]: the node's whole sum)."""
        cdef int nn = node.size, ml = self.min_leaf, k, m = 0
        cdef Elem* arr = node.elems + <size_t>f * nn
        cdef double lo = 0.0, hi = 0.0, left
        if self.kind == SQUARED_ERROR:
            self.target_range(node, &lo, &hi)
        left = self.row_bound(&arr[0], lo, hi)
        for k in range(1, nn):
            if arr[k].rank != arr[k - 1].rank and k >= ml and nn - k >= ml:
                P[m] = k
                D[m] = left
                m += 1
            left += self.row_bound(&arr[k], lo, hi)
        D[m] = left
        return m

    cdef inline double _weight(self, int32_t i) noexcept nogil:
        return self.row_stats[SSE_STATS * i] if self.kind == SQUARED_ERROR else self.row_stats[i]

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

    # ---------------------------------------------------------------- whole nodes

    cdef bint solves_whole(self, Node* node, int depth) noexcept nogil:
        """Depth one: one scan of every feature; depth two from the pairwise
        tables, where they cost less than the search (:meth:`PairTable.worth`)."""
        return depth <= 1 or (depth == 2 and self.has_pairs and self.pairs.worth(node.size))

    cdef bint solve_exact(self, Node* node, int depth, double* best_val, Split1* root,
                          Split1* sides) noexcept nogil:
        """Depth two from the pairwise tables; depth one (only a depth-one
        root gets here): the scan with every instance in the left child."""
        cdef Split1 unused
        cdef bint found
        self.cut_short = False
        if depth == 2:
            self.n_d2 += 1
            found = self.pairs.solve(node, self.deadline, best_val, root, sides)
            self.cut_short = self.pairs.cut_short
            return found
        self._depth_one(node.elems, node.size, 0, node.size, root, &unused, self.min_leaf, False)
        if root.feature < 0 or root.val >= best_val[0] - EPS:
            return False
        best_val[0] = root.val
        sides[0].feature = -1
        sides[1].feature = -1
        return True

    cdef void children_depth_one(self, int level, Node* node, int f, int pos, int ml,
                                 Split1* left, Split1* right) noexcept nogil:
        """Both children's best depth-one trees: on a depth-three node that
        the pairwise tables take, from the node's table (every feature's
        thresholds scored at once, as ConTree's probes of a node ask them one
        feature after another); else one scan of every feature."""
        if (self.has_pairs and ml == self.min_leaf and self.max_depth - level == 3
                and self.pairs.worth(node.size)
                and self.pairs.depth_one_children(node, f, (node.elems + <size_t>f * node.size)[pos - 1].rank,
                                                  self.deadline, left, right)):
            return
        # the memo's bounds need leaves of any size: a superset's split may
        # leave a subset a leaf smaller than min_leaf
        if ml <= 1 and self.memo_seen.size() > 0:
            self._memo_open(node, f)
            self._depth_one(node.elems, node.size, f, pos, left, right, ml, True)
        else:
            self._depth_one(node.elems, node.size, f, pos, left, right, ml, False)

    cdef void _memo_open(self, Node* node, int f1) noexcept nogil:
        """Point the memo at (node, f1), emptied if it held another."""
        if (self.memo_f1 == f1 and self.memo_size == node.size and self.memo_h1 == node.h1
                and self.memo_h2 == node.h2):
            return
        self.memo_f1 = f1
        self.memo_size = node.size
        self.memo_h1 = node.h1
        self.memo_h2 = node.h2
        memset(&self.memo_seen[0], 0, <size_t>(node.size + 1))

    cdef int _memo_near(self, int pos, int step) noexcept nogil:
        """The nearest position beyond ``pos`` in direction ``step`` (-1, +1)
        whose bounds are set, or -1 (a walk over bytes, cheap beside the scan)."""
        cdef int k = pos + step
        while 0 <= k <= self.memo_size:
            if self.memo_seen[k]:
                return k
            k += step
        return -1

    cdef void _sse_sums(self, Elem* arr, int k0, int k1, double* sums) noexcept nogil:
        """The squared-error sums of the rows arr[k0:k1], in registers."""
        cdef double* rows = &self.row_stats[0]
        cdef double* r
        cdef double w = 0.0, ws = 0.0, wq = 0.0
        cdef int k
        for k in range(k0, k1):
            r = rows + SSE_STATS * arr[k].id
            w += r[0]
            ws += r[1]
            wq += r[2]
        sums[0] = w
        sums[1] = ws
        sums[2] = wq

    cdef void _depth_one(self, Elem* data, int nn, int f1, int pos, Split1* bl, Split1* br,
                         int ml, bint memo) noexcept nogil:
        """The best depth-one subtree of both children of the split (f1, pos)
        (rows before ``pos`` in f1's order go left): one scan of every
        feature's order keeps each side's prefix sums, and a position where
        the side's value changes scores that side's split.  A split wins only
        below its leaf less one node's cost.  ``memo``: the memo holds this
        node and f1; the nearest set positions left and right of ``pos``
        bound the left and the right side's splits (the left side at pos
        holds every row it holds at a position before), and this scan's
        bounds are set at ``pos``."""
        cdef int S = self.S
        cdef double* tot = &self.scan[0]              # [side * S + j]: the side's sums (the scans read them)
        cdef uint8_t* flag = &self.flag[0]
        cdef Elem* arr = data + <size_t>f1 * nn
        cdef int k, s
        cdef int ntot[2]
        cdef double target[2]
        cdef double cost = self.cost
        cdef Split1* out[2]
        cdef double* lower[2]
        cdef double* record[2]
        cdef int near
        self.n_d2 += 1
        out[0] = br
        out[1] = bl
        for k in range(pos):
            flag[arr[k].id] = 1
        for k in range(pos, nn):
            flag[arr[k].id] = 0
        if self.kind == SQUARED_ERROR:
            self._sse_sums(arr, pos, nn, tot)
            self._sse_sums(arr, 0, pos, tot + S)
        else:
            memset(tot, 0, 2 * S * sizeof(double))
            for k in range(nn):
                self._add(tot + (S if k < pos else 0), &arr[k])
        ntot[1] = pos
        ntot[0] = nn - pos
        for s in range(2):
            out[s].val = self.leaf_cost(tot + s * S)
            out[s].feature = -1
            target[s] = out[s].val - cost
            if ntot[s] < 2 * ml:
                target[s] = -INFINITY
        if self.kind == SQUARED_ERROR:
            lower[0] = NULL
            lower[1] = NULL
            record[0] = NULL
            record[1] = NULL
            if memo:
                near = self._memo_near(pos, 1)
                if near >= 0:
                    lower[0] = &self.memo_right[<size_t>near * self.p]
                near = self._memo_near(pos, -1)
                if near >= 0:
                    lower[1] = &self.memo_left[<size_t>near * self.p]
                record[0] = &self.memo_right[<size_t>pos * self.p]
                record[1] = &self.memo_left[<size_t>pos * self.p]
            self._scan_squared(data, nn, target, out, ml, lower, record)
            if memo:
                self.memo_seen[pos] = 1
        else:
            self._scan_sums(data, nn, ntot, target, out, ml)
        for s in range(2):
            if out[s].feature >= 0:
                out[s].val = target[s] + cost

    cdef void _scan_sums(self, Elem* data, int nn, int* ntot, double* target, Split1** out,
                         int ml) noexcept nogil:
        """:meth:`_depth_one`'s scan for any additive objective: each side's
        prefix sums along every feature, a split scored where the side's value changes."""
        cdef int S = self.S
        cdef double* tot = &self.scan[0]
        cdef double* pre = &self.scan[2 * S]
        cdef double* rest = &self.scan[4 * S]
        cdef uint8_t* flag = &self.flag[0]
        cdef int k, f2, s
        cdef int cnt[2]
        cdef int prev[2]
        cdef double err
        cdef Elem* arr
        cdef Elem e
        for f2 in range(self.p):
            if target[0] <= EPS and target[1] <= EPS:
                break
            arr = data + <size_t>f2 * nn
            memset(pre, 0, 2 * S * sizeof(double))
            cnt[0] = 0
            cnt[1] = 0
            prev[0] = -1
            prev[1] = -1
            for k in range(nn):
                e = arr[k]
                if k + AHEAD < nn:
                    prefetch(flag + arr[k + AHEAD].id)
                s = flag[e.id]
                if (target[s] > EPS and cnt[s] >= ml and ntot[s] - cnt[s] >= ml and prev[s] >= 0
                        and e.rank != prev[s]):
                    err = self._split_cost(tot + s * S, pre + s * S, rest)
                    if err < target[s] - EPS:
                        target[s] = err
                        out[s].feature = f2
                        out[s].lo = prev[s]
                        out[s].hi = e.rank
                prev[s] = e.rank
                cnt[s] += 1
                self._add(pre + s * S, &e)

    cdef void _scan_squared(self, Elem* data, int nn, double* target, Split1** out, int ml,
                            double** lower, double** record) noexcept nogil:
        """:meth:`_depth_one`'s scan for squared error: each feature's order
        is first dealt into its two sides' rows (no branch on the side, whose
        rows interleave at random), then each side is scanned alone
        (:meth:`_scan_side`).  ``lower[s]`` (or NULL): per feature, a bound
        below side s's best split on it; a side whose bound reaches its
        target skips the feature.  ``record[s]`` (or NULL): receives such
        bounds from this scan (-inf where it learnt none)."""
        cdef uint8_t* flag = &self.flag[0]
        cdef SideRow* side = &self.side_rows[0]
        cdef size_t at
        cdef int f2, k, s, c0, c1, j
        cdef bint scan[2]
        cdef double before[2]
        cdef Elem* arr
        cdef Elem e
        cdef int32_t* order = self._scan_order(target, lower)
        for j in range(self.p):
            f2 = order[j]
            for s in range(2):
                before[s] = target[s]
                scan[s] = target[s] > EPS and (lower[s] == NULL or lower[s][f2] < target[s] - EPS)
            if scan[0] or scan[1]:
                arr = data + <size_t>f2 * nn
                c0 = 0
                c1 = 0
                for k in range(nn):
                    e = arr[k]
                    s = flag[e.id]
                    # side 0 fills from 0, side 1 from nn: the index is arithmetic, not a branch
                    at = <size_t>(c0 + s * (nn + c1 - c0))
                    c1 += s
                    c0 += 1 - s
                    side[at].id = e.id
                    side[at].rank = e.rank
                if scan[0]:
                    self._scan_side(side, c0, f2, &self.scan[0], &target[0], out[0], ml)
                if scan[1]:
                    self._scan_side(side + nn, c1, f2, &self.scan[SSE_STATS], &target[1], out[1], ml)
            for s in range(2):
                if record[s] == NULL:
                    continue
                if scan[s]:
                    # no split went below the target it had, or the best one set it
                    record[s][f2] = (target[s] if target[s] < before[s] else before[s]) - EPS
                elif before[s] > EPS:
                    record[s][f2] = lower[s][f2]
                else:
                    record[s][f2] = -INFINITY

    cdef int32_t* _scan_order(self, double* target, double** lower) noexcept nogil:
        """The features in the order the scan takes them: by how far below a
        side's target their bounds allow a split (the most first), so that
        the target falls early and the bounds skip more of the rest."""
        cdef int32_t* order = &self.scan_order[0]
        cdef double* key = &self.scan_key[0]
        cdef double k0, k1, v
        cdef int f, j
        for f in range(self.p):
            k0 = lower[0][f] - target[0] if lower[0] != NULL else -INFINITY
            k1 = lower[1][f] - target[1] if lower[1] != NULL else -INFINITY
            v = k0 if k0 < k1 else k1
            j = f
            while j > 0 and key[j - 1] > v:
                key[j] = key[j - 1]
                order[j] = order[j - 1]
                j -= 1
            key[j] = v
            order[j] = f
        return order

    cdef void _scan_side(self, SideRow* rows, int nn, int f2, double* tot, double* target, Split1* out,
                         int ml) noexcept nogil:
        """One side's best split on feature f2 below ``target[0]`` (its rows
        in f2's order, its sums ``tot``), written to ``out``.

        Both leaves' error is Q - (ps^2 / pw + rs^2 / rw) for the prefix's
        weight and sum pw, ps, the rest's rw, rs and the side's total Q of
        w y^2; it is below t when ps^2 rw + rs^2 pw > (Q - t) pw rw, a test
        without division.  A slack of 1e-12 Q (far above the rounding of
        either form) lets every split the exact error would take through,
        and the exact error, as ``sse_leaf`` computes it, decides."""
        cdef double* stats = &self.row_stats[0]
        cdef double* r
        cdef double W = tot[0], S = tot[1], Q = tot[2]
        cdef double slack = 1e-12 * Q
        cdef double pw = 0.0, ps = 0.0, pq = 0.0, rw, rs, a, b, err
        cdef double bar = Q - target[0] + EPS - slack
        cdef int k, first = ml if ml > 1 else 1, last = nn - first
        cdef int32_t prev
        if first > last:
            return
        # splits leave at least ml rows (and one) each side: positions first..last
        for k in range(first):
            r = stats + SSE_STATS * rows[k].id
            pw += r[0]
            ps += r[1]
            pq += r[2]
        prev = rows[first - 1].rank
        for k in range(first, last + 1):
            if rows[k].rank != prev:
                rw = W - pw
                rs = S - ps
                if ps * ps * rw + rs * rs * pw > bar * (pw * rw):
                    a = pq - ps * ps / pw
                    b = (Q - pq) - rs * rs / rw
                    err = (a if a > 0.0 else 0.0) + (b if b > 0.0 else 0.0)
                    if err < target[0] - EPS:
                        target[0] = err
                        out.feature = f2
                        out.lo = prev
                        out.hi = rows[k].rank
                        if target[0] <= EPS:
                            return
                        bar = Q - target[0] + EPS - slack
            prev = rows[k].rank
            r = stats + SSE_STATS * rows[k].id
            pw += r[0]
            ps += r[1]
            pq += r[2]

    # ---------------------------------------------------------------- partition

    cdef void partition(self, int level, Node* node, int f, int pos, Node* out) noexcept nogil:
        """Split ``node`` at (f, pos) into out[0] (left) and out[1] (right),
        stored in this level's child buffers: a stable partition of every
        feature's order; the sums and set hashes come from feature 0."""
        self._partition(level, node, f, pos, out, True)

    cdef void _partition(self, int level, Node* node, int f, int pos, Node* out,
                         bint every_order) noexcept nogil:
        """:meth:`partition`, or only feature 0's order unless ``every_order``."""
        cdef int nn = node.size, nl = pos, nr = nn - pos, k, g, a, b
        cdef Elem* data = node.elems
        cdef uint8_t* flag = &self.flag[0]
        cdef Elem* arr = data + <size_t>f * nn
        cdef Elem* dl = &self.children[level][0]
        cdef Elem* dr = dl + <size_t>pos * self.p
        cdef double* cntl = &self.cnt_left[level][0]
        cdef double* cntr = &self.cnt_right[level][0]
        cdef Elem e
        cdef uint64_t a1 = 0, a2 = 0, b1 = 0, b2 = 0
        out[0].size = nl
        out[1].size = nr
        out[0].counts = cntl
        out[1].counts = cntr
        out[0].mask = NULL
        out[1].mask = NULL
        out[0].elems = dl
        out[1].elems = dr
        for k in range(pos):
            flag[arr[k].id] = 1
        for k in range(pos, nn):
            flag[arr[k].id] = 0
        memset(cntl, 0, self.S * sizeof(double))
        memset(cntr, 0, self.S * sizeof(double))
        arr = data
        a = 0
        b = 0
        for k in range(nn):
            e = arr[k]
            if flag[e.id]:
                dl[a] = e
                a += 1
                self._add(cntl, &e)
                a1 += self.rnd1[e.id]
                a2 ^= self.rnd2[e.id]
            else:
                dr[b] = e
                b += 1
                self._add(cntr, &e)
                b1 += self.rnd1[e.id]
                b2 ^= self.rnd2[e.id]
        for g in range(1, self.p if every_order else 1):
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

    cdef bint pair_children(self, int level, Node* parent, int f, int pos, Node* out) noexcept nogil:
        """A depth-three split whose depth-two children both go to the
        pairwise tables: the children get feature 0's order only (all the
        tables read), and the tables note them with their parent, so that
        one child's table is the parent's less the other's.  False (nothing
        done): the children are partitioned as usual."""
        if not (self.has_pairs and self.pairs.worth(pos) and self.pairs.worth(parent.size - pos)):
            return False
        self._partition(level, parent, f, pos, out, False)
        self.pairs.note_children(parent, out, self.deadline)
        return True

    # ---------------------------------------------------------------- speed-ups it has not (yet)

    cdef bint similarity_prune(self, Node* node, int depth, double ub, double* known_lb) noexcept nogil:
        return False

    cdef void remember(self, Node* node, int depth, double lb) noexcept nogil:
        pass

    cdef void hint_sibling(self, Node* parent, int depth, Node* second, Node* first) noexcept nogil:
        pass

    cdef void clear_hint(self) noexcept nogil:
        pass


    cdef bint sweep_due(self, Node* node, int evaluated) noexcept nogil:
        return False

    cdef bint sweep_start(self, Node* node, int f1, int32_t* P, int i, int j) noexcept nogil:
        return False

    cdef void sweep_feature(self, Node* node, int f1, int f2, int32_t* P, int i, int j) noexcept nogil:
        pass

    cdef double sweep_value(self, Node* node, int32_t* P, int i, int w) noexcept nogil:
        return INFINITY


def np_zeros(int n):
    """Labels for :meth:`DataLayout.init_sizes` (which counts classes; the sums are set after)."""
    import numpy as np

    return np.zeros(n, dtype=np.int32)
