# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Exact depth-two trees of additive objectives from pairwise tables (the
method and its sources are in ``_pair_table.pxd``)."""
from libc.string cimport memcpy, memset

from optimaltrees.search.engine._common cimport EPS, now
from optimaltrees.search.engine._objective cimport COST_MATRIX, cost_leaf, sse_leaf

import numpy as np

cdef enum:
    # a table whose updates since its rebuild exceed this many times the
    # training rows is rebuilt: rounding drift stays that of a few fresh sums
    DRIFT_ROWS = 2
    # rows between two looks at the clock while a table is loaded
    CHECK_ROWS = 4096

cdef inline int32_t deref_at(vector[int32_t]* v, int k) noexcept nogil:
    return v[0][k]


# the table's cost per cell scored, against a scan's per row and feature pair:
# scoring a cell reads and adds it two or three times, a scan step is one add
cdef double CELL_COST = 3.0


def table_bytes(n_ranks, int n_stats) -> float:
    """Bytes of the two tables for features with these numbers of ranks and
    ``n_stats`` statistics per row (one pair cell per pair of ranks of two
    features, one marginal per rank, a count and the statistics in each)."""
    ranks = np.asarray(n_ranks, dtype=np.float64)
    cells = (ranks.sum() ** 2 - (ranks ** 2).sum()) / 2.0 + ranks.sum() + 1.0
    return 2.0 * cells * (n_stats + 1) * 8.0


cdef class PairTable:
    """Both tables of the depth-two solver and the rows' entries into them."""

    def __init__(self, int32_t[:, ::1] rank, double[:, ::1] stats, int kind, double[:, ::1] cost_matrix,
                 int min_leaf, double cost, double worth_factor=1.0):
        """rank[f, i]: row i's unique-value rank on feature f; stats[i, j]:
        row i's S statistics (squared error: w, w y, w y^2; a cost matrix:
        the row's weight at its class); ``cost_matrix`` (K x K) for a cost
        matrix, else None; ``worth_factor``: the ``pair_tables`` engine
        option (:meth:`worth`).  The tables themselves are allocated by
        :meth:`allocate`, once the memory limit allows them."""
        cdef int p = rank.shape[0], n = rank.shape[1], f1, f2, i, j
        cdef size_t c = 0
        ranks = np.asarray(rank)
        self.n = n
        self.p = p
        self.S = stats.shape[1]
        self.W = self.S + 1
        self.kind = kind
        self.min_leaf = min_leaf
        self.cost = cost
        self.worth_factor = worth_factor
        if kind == COST_MATRIX:
            self.costs = np.ascontiguousarray(cost_matrix, dtype=np.float64).ravel()
        n_ranks = ranks.max(axis=1) + 1 if n > 0 else np.ones(p, dtype=np.int64)
        common = np.array([np.bincount(ranks[f]).argmax() if n > 0 else 0 for f in range(p)], dtype=np.int32)
        self.n_ranks = n_ranks.astype(np.int32)
        self.offset = np.concatenate([[0], np.cumsum(n_ranks)]).astype(np.int32)
        self.total_ranks = int(n_ranks.sum())
        self.most_ranks = int(n_ranks.max()) if p > 0 else 1
        self.common = common
        self.pair_base.assign(<size_t>p * p, 0)
        for f1 in range(p):
            for f2 in range(f1 + 1, p):
                self.pair_base[<size_t>f1 * p + f2] = c
                c += <size_t>self.n_ranks[f1] * self.n_ranks[f2]
        self.n_cells = c
        # each row's features off their common rank, in feature order
        active = (ranks != common[:, None]).T
        per_row = active.sum(axis=1)
        self.active_start = np.concatenate([[0], np.cumsum(per_row)]).astype(np.int32)
        rows_at, features_at = np.nonzero(active)
        self.active_feature = features_at.astype(np.int32)
        self.active_rank = ranks[features_at, rows_at].astype(np.int32)
        self.pairs_per_row = float(np.mean(per_row * (per_row - 1) / 2.0)) if n > 0 else 0.0
        self.row_stats.resize(<size_t>n * self.W)
        for i in range(n):
            self.row_stats[<size_t>i * self.W] = 1.0
            for j in range(self.S):
                self.row_stats[<size_t>i * self.W + 1 + j] = stats[i, j]
        self.allocated = False
        self.n_rebuilds = 0
        self.n_updates = 0

    def table_bytes(self) -> float:
        """Bytes :meth:`allocate` takes."""
        return table_bytes(np.asarray(self.n_ranks), self.S)

    def allocate(self):
        """The two tables and the solver's scratch."""
        cdef int t
        self.cells.resize(2)
        self.marginals.resize(2)
        self.totals.resize(2)
        self.member.resize(2)
        self.rows.resize(2)
        for t in range(2):
            self.cells[t].assign(self.n_cells * self.W, 0.0)
            self.marginals[t].assign(<size_t>self.total_ranks * self.W, 0.0)
            self.totals[t].assign(self.W, 0.0)
            self.member[t].assign(self.n, 0)
            self.updates[t] = 0
            self.ready[t] = False
        self.mark.assign(self.n, 0)
        self.stamp = 0
        self.dense.resize(<size_t>self.most_ranks * self.most_ranks * self.W)
        self.run.resize(<size_t>self.most_ranks * self.W)
        self.other.resize(<size_t>self.most_ranks * self.W)
        self.sums.resize(4 * <size_t>self.W)
        self.signed_row.resize(self.W)
        self.side.resize(2 * <size_t>self.total_ranks)
        self.next_rank.resize(self.total_ranks)
        self.present.resize(self.p)
        self.allocated = True

    cdef size_t memory_bytes(self) noexcept nogil:
        cdef size_t b = 0, t
        b += (self.row_stats.capacity() + self.dense.capacity() + self.run.capacity()
              + self.other.capacity() + self.sums.capacity() + self.costs.capacity()) * sizeof(double)
        b += (self.active_start.capacity() + self.active_feature.capacity() + self.active_rank.capacity()
              + self.n_ranks.capacity() + self.offset.capacity() + self.common.capacity()
              + self.next_rank.capacity() + self.present.capacity()) * sizeof(int32_t)
        b += self.pair_base.capacity() * sizeof(size_t) + self.mark.capacity() * sizeof(uint32_t)
        b += self.side.capacity() * sizeof(Split1)
        for t in range(self.cells.size()):
            b += (self.cells[t].capacity() + self.marginals[t].capacity()
                  + self.totals[t].capacity()) * sizeof(double)
            b += self.member[t].capacity() + self.rows[t].capacity() * sizeof(int32_t)
        return b

    cdef bint worth(self, int nn) noexcept nogil:
        """Whether a node of ``nn`` rows is cheaper solved here than by
        ConTree's search over depth-one scans, which scans every feature's
        rows once per root threshold it cannot prune (about p^2 nn steps
        where features have few ranks): the table costs at most a rebuild
        (its rows' pairs and a pass over every cell) plus the scoring of
        every cell; ``worth_factor`` scales the scans' side."""
        cdef double rebuild = nn * (self.pairs_per_row + self.p) * self.W + self.n_cells * self.W
        cdef double score = CELL_COST * self.n_cells * self.W
        return self.allocated and rebuild + score <= self.worth_factor * nn * self.p * self.p * self.W

    # ---------------------------------------------------------------- loading a node

    cdef int _load(self, Elem* elems, int nn, double deadline) noexcept nogil:
        """The table that now holds exactly these rows (-1: the deadline
        passed first): the one fewer rows away from them is updated, unless
        a rebuild costs less or its rounding drift is due."""
        cdef int t, k, best_t = -1, worst_t = 0
        cdef long long out, diff, best_diff = nn, worst_diff = -1
        cdef int32_t i
        cdef vector[int32_t]* held
        self.stamp += 1
        if self.stamp == 0:
            self.mark.assign(self.n, 0)
            self.stamp = 1
        for k in range(nn):
            self.mark[elems[k].id] = self.stamp
        for t in range(2):
            if not self.ready[t]:
                diff = 2 * <long long>self.n + nn
            else:
                held = &self.rows[t]
                out = 0
                for k in range(<int>held.size()):
                    if self.mark[deref_at(held, k)] != self.stamp:
                        out += 1
                diff = out + (nn - (<long long>held.size() - out))
            if diff > worst_diff:
                worst_diff = diff
                worst_t = t
            if diff < best_diff and self.updates[t] + diff <= DRIFT_ROWS * <long long>self.n:
                best_diff = diff
                best_t = t
        if best_t < 0:
            self._rebuild(worst_t, elems, nn, deadline)
            return worst_t if self.ready[worst_t] else -1
        t = best_t
        held = &self.rows[t]
        self.ready[t] = False       # until every changed row has moved
        for k in range(<int>held.size()):
            i = deref_at(held, k)
            if self.mark[i] != self.stamp:
                self._move(t, i, -1.0)
                self.member[t][i] = 0
        held.clear()
        for k in range(nn):
            i = elems[k].id
            held.push_back(i)
            if not self.member[t][i]:
                self._move(t, i, 1.0)
                self.member[t][i] = 1
            if (k + 1) % CHECK_ROWS == 0 and now() > deadline:
                self.member[t].assign(self.n, 0)    # rows not yet pushed may still be flagged
                held.clear()
                return -1
        self.updates[t] += best_diff
        self.ready[t] = True
        self.n_updates += 1
        return t

    cdef void _rebuild(self, int t, Elem* elems, int nn, double deadline) noexcept nogil:
        """Table ``t`` from these rows alone (left not ready at the deadline)."""
        cdef int k
        cdef int32_t i
        cdef vector[int32_t]* held = &self.rows[t]
        self.ready[t] = False
        for k in range(<int>held.size()):
            self.member[t][deref_at(held, k)] = 0
        held.clear()
        memset(self.cells[t].data(), 0, self.cells[t].size() * sizeof(double))
        memset(self.marginals[t].data(), 0, self.marginals[t].size() * sizeof(double))
        memset(self.totals[t].data(), 0, self.W * sizeof(double))
        for k in range(nn):
            i = elems[k].id
            held.push_back(i)
            self.member[t][i] = 1
            self._move(t, i, 1.0)
            if (k + 1) % CHECK_ROWS == 0 and now() > deadline:
                return
        self.updates[t] = 0
        self.ready[t] = True
        self.n_rebuilds += 1

    cdef void _move(self, int t, int32_t i, double sign) noexcept nogil:
        """Row i added to table t (sign 1) or taken out of it (sign -1):
        the totals, the marginals of its ranks off the common ones, and the
        cells of every pair of its features off their common ranks."""
        cdef int W = self.W, j, u, v, a0 = self.active_start[i], a1 = self.active_start[i + 1]
        cdef int p = self.p, f1
        cdef int32_t r1
        cdef double* row = &self.signed_row[0]
        cdef double* rs = &self.row_stats[<size_t>i * W]
        cdef double* tot = self.totals[t].data()
        cdef double* marg = self.marginals[t].data()
        cdef double* cells = self.cells[t].data()
        cdef double* c
        cdef int32_t* AF = self.active_feature.data()
        cdef int32_t* AR = self.active_rank.data()
        cdef int32_t* off = self.offset.data()
        cdef int32_t* nr = self.n_ranks.data()
        cdef size_t* base
        for j in range(W):
            row[j] = sign * rs[j]
            tot[j] += row[j]
        for u in range(a0, a1):
            c = marg + <size_t>(off[AF[u]] + AR[u]) * W
            for j in range(W):
                c[j] += row[j]
        for u in range(a0, a1):
            f1 = AF[u]
            base = &self.pair_base[<size_t>f1 * p]
            r1 = AR[u]
            if W == 4:
                for v in range(u + 1, a1):
                    c = cells + (base[AF[v]] + <size_t>r1 * nr[AF[v]] + AR[v]) * 4
                    c[0] += row[0]
                    c[1] += row[1]
                    c[2] += row[2]
                    c[3] += row[3]
            else:
                for v in range(u + 1, a1):
                    c = cells + (base[AF[v]] + <size_t>r1 * nr[AF[v]] + AR[v]) * W
                    for j in range(W):
                        c[j] += row[j]

    cdef void _common_marginals(self, int t) noexcept nogil:
        """Each feature's common rank's marginal: the table's totals less its other ranks'."""
        cdef int W = self.W, f, r, j, z
        cdef double* marg = self.marginals[t].data()
        cdef double* tot = self.totals[t].data()
        cdef double* m
        cdef double* mz
        for f in range(self.p):
            z = self.common[f]
            mz = marg + <size_t>(self.offset[f] + z) * W
            for j in range(W):
                mz[j] = tot[j]
            for r in range(self.n_ranks[f]):
                if r != z:
                    m = marg + <size_t>(self.offset[f] + r) * W
                    for j in range(W):
                        mz[j] -= m[j]
            mz[0] = <double>(<long long>(mz[0] + 0.5))   # a count: exact, whatever the others' rounding

    # ---------------------------------------------------------------- scoring

    cdef inline double _leaf(self, double* sums) noexcept nogil:
        """A leaf's cost from a cell's W numbers (count first)."""
        if self.kind == COST_MATRIX:
            return cost_leaf(sums + 1, &self.costs[0], self.S)
        return sse_leaf(sums + 1)

    cdef void _scan(self, double* per_rank, int first, int last, double* side_total, int feature,
                    Split1* best) noexcept nogil:
        """Improve ``best`` (a child's depth-one tree) with its splits on
        ``feature``, whose ranks first..last hold the child's sums
        ``per_rank[r * W ...]`` (``side_total``: all of them): every split
        between two present ranks leaving min_leaf rows each side."""
        cdef int W = self.W, ml = self.min_leaf, r, j, prev = -1
        cdef double* pre = &self.sums[0]
        cdef double* rest = &self.sums[W]
        cdef double* c
        cdef double v
        if side_total[0] < 2 * ml - 0.5 or best.val <= EPS:
            return
        memset(pre, 0, W * sizeof(double))
        for r in range(first, last + 1):
            c = per_rank + <size_t>r * W
            if c[0] < 0.5:
                continue
            if prev >= 0 and pre[0] > ml - 0.5 and side_total[0] - pre[0] > ml - 0.5:
                for j in range(W):
                    rest[j] = side_total[j] - pre[j]
                v = self._leaf(pre) + self._leaf(rest) + self.cost
                if v < best.val - EPS:
                    best.val = v
                    best.feature = feature
                    best.lo = prev
                    best.hi = r
            for j in range(W):
                pre[j] += c[j]
            prev = r

    cdef void _thresholds(self, int t) noexcept nogil:
        """Every feature's root thresholds in this node (between present
        ranks, min_leaf rows each side: ``next_rank``), each child a leaf or
        split on the root's own feature (``side``)."""
        cdef int W = self.W, ml = self.min_leaf, f, r, j, prev, idx
        cdef double* marg = self.marginals[t].data()
        cdef double* tot = self.totals[t].data()
        cdef double* left = &self.sums[2 * W]
        cdef double* right = &self.sums[3 * W]
        cdef double* m
        cdef double* mf
        cdef Split1* sd
        for f in range(self.p):
            mf = marg + <size_t>self.offset[f] * W
            self.present[f] = 0
            prev = -1
            memset(left, 0, W * sizeof(double))
            for r in range(self.n_ranks[f]):
                self.next_rank[self.offset[f] + r] = -1
                m = mf + <size_t>r * W
                if m[0] < 0.5:
                    continue
                self.present[f] += 1
                if prev >= 0 and left[0] > ml - 0.5 and tot[0] - left[0] > ml - 0.5:
                    idx = self.offset[f] + prev
                    self.next_rank[idx] = r
                    for j in range(W):
                        right[j] = tot[j] - left[j]
                    sd = &self.side[2 * idx]
                    sd[0].val = self._leaf(left)
                    sd[0].feature = -1
                    sd[1].val = self._leaf(right)
                    sd[1].feature = -1
                    self._scan(mf, 0, prev, left, f, &sd[0])
                    self._scan(mf, r, self.n_ranks[f] - 1, right, f, &sd[1])
                for j in range(W):
                    left[j] += m[j]
                prev = r

    cdef void _pair(self, int t, int f1, int f2) noexcept nogil:
        """Every root threshold of f1 with children split on f2, and of f2
        with children split on f1, from the pair's cells completed into
        ``dense`` ([r1 * B2 + r2]): the common ranks' row and column are the
        marginals less the stored cells."""
        cdef int W = self.W, B1 = self.n_ranks[f1], B2 = self.n_ranks[f2]
        cdef int z1 = self.common[f1], z2 = self.common[f2], r1, r2, j
        cdef double* D = &self.dense[0]
        cdef double* marg = self.marginals[t].data()
        cdef double* M1 = marg + <size_t>self.offset[f1] * W
        cdef double* M2 = marg + <size_t>self.offset[f2] * W
        cdef double* d
        cdef double* e
        memcpy(D, self.cells[t].data() + self.pair_base[<size_t>f1 * self.p + f2] * W,
               <size_t>B1 * B2 * W * sizeof(double))
        for r1 in range(B1):
            if r1 == z1:
                continue
            d = D + <size_t>(r1 * B2 + z2) * W
            for j in range(W):
                d[j] = M1[<size_t>r1 * W + j]
            for r2 in range(B2):
                if r2 != z2:
                    e = D + <size_t>(r1 * B2 + r2) * W
                    for j in range(W):
                        d[j] -= e[j]
        for r2 in range(B2):
            d = D + <size_t>(z1 * B2 + r2) * W
            for j in range(W):
                d[j] = M2[<size_t>r2 * W + j]
            for r1 in range(B1):
                if r1 != z1:
                    e = D + <size_t>(r1 * B2 + r2) * W
                    for j in range(W):
                        d[j] -= e[j]
        # counts are integers: rounding in the other sums never reaches them
        for r1 in range(B1):
            d = D + <size_t>(r1 * B2 + z2) * W
            d[0] = <double>(<long long>(d[0] + 0.5))
        for r2 in range(B2):
            d = D + <size_t>(z1 * B2 + r2) * W
            d[0] = <double>(<long long>(d[0] + 0.5))
        self._roots(f1, f2, D, False, M1, M2, self.totals[t].data())
        self._roots(f2, f1, D, True, M2, M1, self.totals[t].data())

    cdef void _roots(self, int f_root, int f_child, double* dense, bint transposed,
                     double* marg_root, double* marg_child, double* total) noexcept nogil:
        """Both children of every root threshold of ``f_root`` split on
        ``f_child``: the left child's sums per rank of f_child grow rank by
        rank of f_root (``run``); the right child's are the node's less them."""
        cdef int W = self.W, Br = self.n_ranks[f_root], Bc = self.n_ranks[f_child], r, c, j, idx
        cdef double* L = &self.run[0]
        cdef double* R = &self.other[0]
        cdef double* left = &self.sums[2 * W]
        cdef double* right = &self.sums[3 * W]
        cdef double* d
        cdef double* m
        cdef Split1* sd
        memset(L, 0, <size_t>Bc * W * sizeof(double))
        memset(left, 0, W * sizeof(double))
        for r in range(Br):
            m = marg_root + <size_t>r * W
            if m[0] < 0.5:
                continue
            for c in range(Bc):
                d = dense + <size_t>(c * Br + r if transposed else r * Bc + c) * W
                for j in range(W):
                    L[<size_t>c * W + j] += d[j]
            for j in range(W):
                left[j] += m[j]
            idx = self.offset[f_root] + r
            if self.next_rank[idx] < 0:
                continue
            sd = &self.side[2 * idx]
            self._scan(L, 0, Bc - 1, left, f_child, &sd[0])
            if sd[1].val > EPS:
                for c in range(Bc):
                    for j in range(W):
                        R[<size_t>c * W + j] = marg_child[<size_t>c * W + j] - L[<size_t>c * W + j]
                    R[<size_t>c * W] = <double>(<long long>(R[<size_t>c * W] + 0.5))
                for j in range(W):
                    right[j] = total[j] - left[j]
                self._scan(R, 0, Bc - 1, right, f_child, &sd[1])

    # ---------------------------------------------------------------- the solve

    cdef int solve(self, Elem* elems, int nn, double deadline, double* best_val, Split1* root,
                   Split1* sides) noexcept nogil:
        """The best depth-two tree of the node whose rows are ``elems[0:nn]``
        (any one feature's order) if it beats ``best_val`` (then True, with
        its root and children); ``cut_short`` when the deadline stopped it
        (an improvement found by then is a true tree, not a proven one)."""
        cdef int t, f1, f2, r, idx
        cdef bint found = False
        cdef double v, best = best_val[0]
        cdef Split1* sd
        self.cut_short = False
        t = self._load(elems, nn, deadline)
        if t < 0:
            self.cut_short = True
            return False
        self._common_marginals(t)
        self._thresholds(t)
        for f1 in range(self.p):
            if self.present[f1] < 2:
                continue
            if now() > deadline:
                self.cut_short = True
                break
            for f2 in range(f1 + 1, self.p):
                if self.present[f2] >= 2:
                    self._pair(t, f1, f2)
        for f1 in range(self.p):
            if self.present[f1] < 2:
                continue
            for r in range(self.n_ranks[f1]):
                idx = self.offset[f1] + r
                if self.next_rank[idx] < 0:
                    continue
                sd = &self.side[2 * idx]
                v = sd[0].val + sd[1].val + self.cost
                if v < best - EPS:
                    best = v
                    found = True
                    root.val = v
                    root.feature = f1
                    root.lo = r
                    root.hi = self.next_rank[idx]
                    sides[0] = sd[0]
                    sides[1] = sd[1]
        if found:
            best_val[0] = best
        return found
