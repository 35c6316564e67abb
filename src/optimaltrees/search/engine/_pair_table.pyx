# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Exact depth-two trees of additive objectives from pairwise tables (the
method and its sources are in ``_pair_table.pxd``)."""
from libc.math cimport INFINITY
from libc.string cimport memcpy, memset

from optimaltrees.search.engine._common cimport EPS, now
from optimaltrees.search.engine._objective cimport COST_MATRIX, cost_leaf, sse_leaf

import numpy as np

cdef enum:
    # a table is rebuilt once its rows moved since the last rebuild exceed
    # this (or twice the training rows): each move rounds a sum by at most
    # 2^-53 of the training set's total (the targets reach the engine scaled
    # so that it is the row count), so the drift stays below 3e-11 of it,
    # far inside the 1e-9 the driver checks the tree's objective to
    DRIFT_MOVES = 262144
    # rows between two looks at the clock while a table is loaded
    CHECK_ROWS = 4096
    # table 0 holds a depth-three split's rows, the others depth-two nodes
    PARENT = 0

cdef void _fill(vector[int32_t]* out, values):
    """``out`` = the integers ``values`` (a copy through a typed view: a
    vector assigned a NumPy array would convert it one Python object at a time)."""
    cdef int32_t[::1] view = np.ascontiguousarray(values, dtype=np.int32)
    cdef Py_ssize_t k
    out.resize(view.shape[0])
    for k in range(view.shape[0]):
        out[0][k] = view[k]


cdef inline double _cell_leaf(double* sums, int kind, int stats_at, double* costs, int S) noexcept nogil:
    """A leaf's cost from a cell (its statistics from ``stats_at``): a
    free function, so that the compiler inlines it in the scoring loops."""
    if kind == COST_MATRIX:
        return cost_leaf(sums + stats_at, costs, S)
    return sse_leaf(sums + stats_at)


cdef inline void _complete(double* line, size_t stride, int length, int missing, double* marginal,
                           int W) noexcept nogil:
    """Cell ``missing`` of a line of a pair's dense cells (``length`` cells
    ``stride`` numbers apart): the line's marginal less its other cells.
    Its count is rounded: counts are integers, whatever the other sums' rounding."""
    cdef double* out = line + <size_t>missing * stride
    cdef double* e
    cdef int k, j
    for j in range(W):
        out[j] = marginal[j]
    for k in range(length):
        if k != missing:
            e = line + <size_t>k * stride
            for j in range(W):
                out[j] -= e[j]
    out[0] = <double>(<long long>(out[0] + 0.5))


cdef inline int32_t deref_at(vector[int32_t]* v, int k) noexcept nogil:
    return v[0][k]


# the table's cost per cell scored, against a scan's per row and feature pair:
# scoring a cell reads and adds it two or three times, a scan step is one add
cdef double CELL_COST = 3.0


def table_bytes(n_ranks, int width, int n_tables=1) -> float:
    """Bytes of ``n_tables`` tables for features with these numbers of ranks
    and ``width`` numbers per cell (a cell per pair of non-common ranks of
    two features, and one marginal per rank)."""
    ranks = np.asarray(n_ranks, dtype=np.float64)
    cells = ((ranks - 1).sum() ** 2 - ((ranks - 1) ** 2).sum()) / 2.0 + ranks.sum() + 1.0
    return n_tables * cells * width * 8.0


def index_bytes(ranks, int width) -> float:
    """Bytes of the row index :class:`PairTable` builds for these ranks
    (``ranks[f, i]``): three ints per row and feature off its common value,
    ``width`` numbers per row."""
    ranks = np.asarray(ranks)
    if ranks.size == 0:
        return 0.0
    off_common = sum(ranks.shape[1] - int(np.bincount(r).max()) for r in ranks)
    return 12.0 * off_common + 8.0 * width * ranks.shape[1]


cdef class PairTable:
    """Both tables of the depth-two solver and the rows' entries into them."""

    def __init__(self, int32_t[:, ::1] rank, double[:, ::1] stats, int kind, double[:, ::1] cost_matrix,
                 int min_leaf, double cost, double worth_factor=1.0, bint counted=False):
        """rank[f, i]: row i's unique-value rank on feature f; stats[i, j]:
        row i's S statistics (squared error: w, w y, w y^2; a cost matrix:
        the row's weight at its class); ``cost_matrix`` (K x K) for a cost
        matrix, else None; ``worth_factor``: the ``pair_tables`` engine
        option (:meth:`worth`); ``counted``: every row weighs one and
        ``stats[:, 0]`` is that weight, so it is the row count too and the
        cells need no count of their own.  The tables themselves are allocated by
        :meth:`allocate`, once the memory limit allows them."""
        cdef int p = rank.shape[0], n = rank.shape[1], f1, f2, i, j
        cdef size_t c = 0
        ranks = np.asarray(rank)
        self.n = n
        self.p = p
        self.S = stats.shape[1]
        self.stats_at = 0 if counted else 1
        self.W = self.S + self.stats_at
        self.kind = kind
        self.min_leaf = min_leaf
        self.cost = cost
        self.worth_factor = worth_factor
        if kind == COST_MATRIX:
            self.costs = np.ascontiguousarray(cost_matrix, dtype=np.float64).ravel()
        n_ranks = ranks.max(axis=1) + 1 if n > 0 else np.ones(p, dtype=np.int64)
        common = np.array([np.bincount(ranks[f]).argmax() if n > 0 else 0 for f in range(p)], dtype=np.int32)
        _fill(&self.n_ranks, n_ranks)
        _fill(&self.offset, np.concatenate([[0], np.cumsum(n_ranks)]))
        self.total_ranks = int(n_ranks.sum())
        self.most_ranks = int(n_ranks.max()) if p > 0 else 1
        _fill(&self.common, common)
        self.pair_base.assign(<size_t>p * p, 0)
        self.dense_cells = 0
        for f1 in range(p):
            for f2 in range(f1 + 1, p):
                self.pair_base[<size_t>f1 * p + f2] = c
                c += <size_t>(self.n_ranks[f1] - 1) * (self.n_ranks[f2] - 1)
                self.dense_cells += <double>self.n_ranks[f1] * self.n_ranks[f2]
        self.n_cells = c
        # each row's features off their common rank, in feature order
        self._index_active(rank)
        per_row = np.diff(np.asarray(<int32_t[:n + 1]>self.active_start.data())) if n > 0 else np.zeros(1)
        self.pairs_per_row = float(np.mean(per_row * (per_row - 1) / 2.0))
        # a complement writes every cell once; a row moved adds to its pairs and ranks
        self.complement_rows = ((self.n_cells + self.total_ranks)
                                / (self.pairs_per_row + float(np.mean(per_row)) + 1.0))
        self.row_stats.resize(<size_t>n * self.W)
        for i in range(n):
            self.row_stats[<size_t>i * self.W] = 1.0
            for j in range(self.S):
                self.row_stats[<size_t>i * self.W + self.stats_at + j] = stats[i, j]
        self.allocated = False
        self.n_rebuilds = 0
        self.n_updates = 0
        self.n_complements = 0
        self.drift_moves = max(DRIFT_MOVES, 2 * <long long>n)
        self.noted = False
        self.scored_ready = False

    cdef void _index_active(self, int32_t[:, ::1] rank):
        """Each row's run of features off their common rank, ascending,
        with the row's rank there and its slot among the non-common ranks."""
        cdef int p = rank.shape[0], n = rank.shape[1], f, i, r, z
        cdef size_t k = 0
        self.active_start.resize(n + 1)
        self.active_start[0] = 0
        for i in range(n):
            for f in range(p):
                if rank[f, i] != self.common[f]:
                    k += 1
            self.active_start[i + 1] = <int32_t>k
        self.active_feature.resize(k)
        self.active_rank.resize(k)
        self.active_slot.resize(k)
        k = 0
        for i in range(n):
            for f in range(p):
                r = rank[f, i]
                z = self.common[f]
                if r != z:
                    self.active_feature[k] = f
                    self.active_rank[k] = r
                    self.active_slot[k] = r - (r > z)       # the common rank has no cell: the others close up
                    k += 1

    def table_bytes(self, int n_tables=1) -> float:
        """Bytes of ``n_tables`` tables."""
        return table_bytes(np.asarray(self.n_ranks), self.W, n_tables)

    def allocate(self, int n_tables):
        """The parent's table, ``n_tables - 1`` (2 .. MAX_TABLES - 1) tables
        for depth-two nodes, and the solver's scratch."""
        cdef int t
        if not 3 <= n_tables <= MAX_TABLES:
            raise ValueError(f"{n_tables} tables: between 3 and {MAX_TABLES}")
        self.n_tables = n_tables
        self.cells.resize(n_tables)
        self.marginals.resize(n_tables)
        self.totals.resize(n_tables)
        self.member.resize(n_tables)
        self.rows.resize(n_tables)
        self.table_h1.assign(n_tables, 0)
        self.table_h2.assign(n_tables, 0)
        self.clock = 0
        for t in range(n_tables):
            self.last_use[t] = 0
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
              + self.active_slot.capacity()
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
        cdef double score = CELL_COST * self.dense_cells * self.W
        return self.allocated and rebuild + score <= self.worth_factor * nn * self.p * self.p * self.W

    # ---------------------------------------------------------------- loading a node

    cdef void note_children(self, Node* parent, Node* children, double deadline) noexcept nogil:
        """A depth-three split's two children (``children[0:2]``), about to
        be solved here: the parent's rows are loaded into the third table,
        so that either child's table can be the parent's less the other's
        (:meth:`_load`), the larger child costing no more than the smaller."""
        cdef int s
        self.noted = False
        if not self._load_parent(parent, deadline):
            return
        for s in range(2):
            self.child_elems[s] = children[s].elems
            self.child_size[s] = children[s].size
            self.child_h1[s] = children[s].h1
            self.child_h2[s] = children[s].h2
        self.noted = True

    cdef bint _load_parent(self, Node* parent, double deadline) noexcept nogil:
        """The third table holds the parent's rows (False: the deadline came first)."""
        cdef long long d
        if self._holds(PARENT, parent.elems, parent.size, parent.h1, parent.h2):
            return True
        self._mark(parent.elems, parent.size)
        d = self._distance(PARENT, parent.size)
        return self._become(PARENT, parent.elems, parent.size, parent.h1, parent.h2, d, deadline)

    cdef inline bint _holds(self, int t, Elem* elems, int nn, uint64_t h1, uint64_t h2) noexcept nogil:
        """Table t holds exactly the set of these hashes."""
        return (self.ready[t] and self.table_h1[t] == h1 and self.table_h2[t] == h2
                and <int>self.rows[t].size() == nn)

    cdef void _mark(self, Elem* elems, int nn) noexcept nogil:
        """A new stamp on these rows (:meth:`_distance` and :meth:`_become` read it)."""
        cdef int k
        self.stamp += 1
        if self.stamp == 0:
            self.mark.assign(self.n, 0)
            self.stamp = 1
        for k in range(nn):
            self.mark[elems[k].id] = self.stamp

    cdef long long _distance(self, int t, int nn) noexcept nogil:
        """Rows to add to or take from table t to hold the ``nn`` marked rows
        (-1: it must be rebuilt: not ready, or its rounding drift is due)."""
        cdef vector[int32_t]* held = &self.rows[t]
        cdef long long out = 0, diff
        cdef int k
        if not self.ready[t]:
            return -1
        for k in range(<int>held.size()):
            if self.mark[deref_at(held, k)] != self.stamp:
                out += 1
        diff = out + (nn - (<long long>held.size() - out))
        if self.updates[t] + diff > self.drift_moves:
            return -1
        return diff

    cdef inline double _cost(self, long long diff, int nn) noexcept nogil:
        """Rows moved to bring a table at ``diff`` (:meth:`_distance`) to ``nn`` rows."""
        return <double>nn if diff < 0 or diff >= nn else <double>diff

    cdef int _load(self, Elem* elems, int nn, uint64_t h1, uint64_t h2, double deadline) noexcept nogil:
        """The child table that now holds exactly these rows (-1: the
        deadline passed first).  The cheapest of: the table already holding
        them; updating the table fewest rows away (or rebuilding the least
        recently used); when they are a noted child, bringing a table to
        their sibling and writing the parent less it into the least recently
        used other table."""
        cdef int t, s, best_t = -1, sib_t = -1, target
        cdef long long d, e_sib = -1, d_best = -1
        cdef double best = INFINITY, c, via_sibling = INFINITY
        self.clock += 1
        for t in range(1, self.n_tables):
            if self._holds(t, elems, nn, h1, h2):
                self.last_use[t] = self.clock
                return t
        self._mark(elems, nn)
        for t in range(1, self.n_tables):
            d = self._distance(t, nn)
            c = self._cost(d, nn)
            if c < best:
                best = c
                best_t = t
                d_best = d
        if d_best < 0 or d_best >= nn:
            best_t = self._least_used(-1)      # a rebuild: into the table least likely to serve again
        s = self._sibling_of(nn, h1, h2)
        if s >= 0:
            self._mark(self.child_elems[s], self.child_size[s])
            for t in range(1, self.n_tables):
                d = self._distance(t, self.child_size[s])
                c = self._cost(d, self.child_size[s]) + self.complement_rows
                if c < via_sibling:
                    via_sibling = c
                    sib_t = t
                    e_sib = d
            if via_sibling < best:
                if e_sib < 0 or e_sib >= self.child_size[s]:
                    sib_t = self._least_used(-1)
                if not self._become(sib_t, self.child_elems[s], self.child_size[s], self.child_h1[s],
                                    self.child_h2[s], e_sib, deadline):
                    return -1
                target = self._least_used(sib_t)
                self._complement(target, sib_t, elems, nn, h1, h2)
                self.last_use[sib_t] = self.clock
                self.last_use[target] = self.clock
                return target
            self._mark(elems, nn)
        if not self._become(best_t, elems, nn, h1, h2, d_best, deadline):
            return -1
        self.last_use[best_t] = self.clock
        return best_t

    cdef int _least_used(self, int besides) noexcept nogil:
        """The child table used longest ago, other than ``besides``."""
        cdef int t, out = -1
        for t in range(1, self.n_tables):
            if t != besides and (out < 0 or self.last_use[t] < self.last_use[out]):
                out = t
        return out

    cdef int _sibling_of(self, int nn, uint64_t h1, uint64_t h2) noexcept nogil:
        """The noted child that is these rows' sibling (-1: they are no noted
        child, or the parent's table is gone)."""
        cdef int s
        if not (self.noted and self.ready[PARENT]):
            return -1
        for s in range(2):
            if self.child_h1[s] == h1 and self.child_h2[s] == h2 and self.child_size[s] == nn:
                return 1 - s
        return -1

    cdef bint _become(self, int t, Elem* elems, int nn, uint64_t h1, uint64_t h2, long long diff,
                      double deadline) noexcept nogil:
        """Table t brought to the marked rows ``elems[0:nn]``: the rows at
        ``diff`` moved, or the table rebuilt (``diff`` -1, or no smaller than
        ``nn``).  False when the deadline passed first (the table is then
        not ready)."""
        cdef int k
        cdef int32_t i
        cdef vector[int32_t]* held = &self.rows[t]
        cdef bint rebuild = diff < 0 or diff >= nn
        self.ready[t] = False       # until every changed row has moved
        if rebuild:
            for k in range(<int>held.size()):
                self.member[t][deref_at(held, k)] = 0
            memset(self.cells[t].data(), 0, self.cells[t].size() * sizeof(double))
            memset(self.marginals[t].data(), 0, self.marginals[t].size() * sizeof(double))
            memset(self.totals[t].data(), 0, self.W * sizeof(double))
        else:
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
                for k in range(nn):
                    self.member[t][elems[k].id] = 0     # rows not yet held may be flagged
                held.clear()
                return False
        if rebuild:
            self.updates[t] = 0
            self.n_rebuilds += 1
        else:
            self.updates[t] += diff
            self.n_updates += 1
        self.table_h1[t] = h1
        self.table_h2[t] = h2
        self.ready[t] = True
        return True

    cdef void _complement(self, int t, int other, Elem* elems, int nn, uint64_t h1, uint64_t h2) noexcept nogil:
        """Table t becomes the parent's less table ``other`` (the rows
        ``elems[0:nn]``): one subtraction per cell, counts exact."""
        cdef size_t k, m
        cdef int j
        cdef int32_t i
        cdef double* to
        cdef double* a
        cdef double* b
        cdef vector[int32_t]* held = &self.rows[t]
        to = self.cells[t].data()
        a = self.cells[PARENT].data()
        b = self.cells[other].data()
        m = self.cells[t].size()
        for k in range(m):
            to[k] = a[k] - b[k]
        to = self.marginals[t].data()
        a = self.marginals[PARENT].data()
        b = self.marginals[other].data()
        m = self.marginals[t].size()
        for k in range(m):
            to[k] = a[k] - b[k]
        for j in range(self.W):
            self.totals[t][j] = self.totals[PARENT][j] - self.totals[other][j]
        for k in range(held.size()):
            self.member[t][deref_at(held, <int>k)] = 0
        held.clear()
        for j in range(nn):
            i = elems[j].id
            held.push_back(i)
            self.member[t][i] = 1
        self.updates[t] = self.updates[PARENT] + self.updates[other]
        self.table_h1[t] = h1
        self.table_h2[t] = h2
        self.ready[t] = True
        self.n_complements += 1

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
        cdef int32_t* AS = self.active_slot.data()
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
            r1 = AS[u]
            if W == 3 and self.most_ranks <= 2:
                # 0/1 features: one cell per pair, at the pair's base
                for v in range(u + 1, a1):
                    c = cells + base[AF[v]] * 3
                    c[0] += row[0]
                    c[1] += row[1]
                    c[2] += row[2]
            elif W == 3:
                for v in range(u + 1, a1):
                    c = cells + (base[AF[v]] + <size_t>r1 * (nr[AF[v]] - 1) + AS[v]) * 3
                    c[0] += row[0]
                    c[1] += row[1]
                    c[2] += row[2]
            elif W == 4:
                for v in range(u + 1, a1):
                    c = cells + (base[AF[v]] + <size_t>r1 * (nr[AF[v]] - 1) + AS[v]) * 4
                    c[0] += row[0]
                    c[1] += row[1]
                    c[2] += row[2]
                    c[3] += row[3]
            else:
                for v in range(u + 1, a1):
                    c = cells + (base[AF[v]] + <size_t>r1 * (nr[AF[v]] - 1) + AS[v]) * W
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
        return _cell_leaf(sums, self.kind, self.stats_at, self.costs.data(), self.S)

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
                v = (_cell_leaf(pre, self.kind, self.stats_at, self.costs.data(), self.S)
                     + _cell_leaf(rest, self.kind, self.stats_at, self.costs.data(), self.S) + self.cost)
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
        cdef double* stored = self.cells[t].data() + self.pair_base[<size_t>f1 * self.p + f2] * W
        cdef double* d
        cdef double* e
        if B1 == 2 and B2 == 2:
            self._two_by_two(t, f1, f2, stored, M1, M2)
            return
        for r1 in range(B1):
            for r2 in range(B2):
                d = D + <size_t>(r1 * B2 + r2) * W
                if r1 == z1 or r2 == z2:
                    continue
                e = stored + <size_t>((r1 - (r1 > z1)) * (B2 - 1) + r2 - (r2 > z2)) * W
                for j in range(W):
                    d[j] = e[j]
        # f2's common column in each other row of f1, then f1's common row (its corner last)
        for r1 in range(B1):
            if r1 != z1:
                _complete(D + <size_t>r1 * B2 * W, W, B2, z2, M1 + <size_t>r1 * W, W)
        for r2 in range(B2):
            _complete(D + <size_t>r2 * W, <size_t>B2 * W, B1, z1, M2 + <size_t>r2 * W, W)
        self._roots(f1, f2, D, False, M1, M2, self.totals[t].data())
        self._roots(f2, f1, D, True, M2, M1, self.totals[t].data())

    cdef void _two_by_two(self, int t, int f1, int f2, double* stored, double* M1, double* M2) noexcept nogil:
        """:meth:`_pair` for two features of two ranks each: one root
        threshold each, four cells, and each child's split on the other
        feature is two of the cells' leaves."""
        cdef int W = self.W, z1 = self.common[f1], z2 = self.common[f2], j, a, b
        cdef double* cell[2][2]
        cdef double leaf[2][2]
        cdef double* tot = self.totals[t].data()
        cdef double* D = &self.dense[0]
        cdef bint fits[2][2]
        cdef int ml = self.min_leaf, kind = self.kind, at = self.stats_at, S = self.S
        cdef double* costs = self.costs.data()
        cdef Split1* sd
        # the stored cell is (1 - z1, 1 - z2); the other three follow from the marginals
        cell[1 - z1][1 - z2] = stored
        cell[1 - z1][z2] = D
        cell[z1][1 - z2] = D + W
        cell[z1][z2] = D + 2 * W
        for j in range(W):
            D[j] = M1[(1 - z1) * W + j] - stored[j]
            D[W + j] = M2[(1 - z2) * W + j] - stored[j]
            D[2 * W + j] = tot[j] - M1[(1 - z1) * W + j] - M2[(1 - z2) * W + j] + stored[j]
        for j in range(3):
            D[j * W] = <double>(<long long>(D[j * W] + 0.5))     # counts: exact whatever the rounding
        for a in range(2):
            for b in range(2):
                fits[a][b] = cell[a][b][0] > ml - 0.5
                leaf[a][b] = _cell_leaf(cell[a][b], kind, at, costs, S) if fits[a][b] else 0.0
        # root f1 (its children: rank 0, rank 1 of f1), children split on f2
        if self.next_rank[self.offset[f1]] >= 0:
            sd = &self.side[2 * self.offset[f1]]
            for a in range(2):
                if fits[a][0] and fits[a][1] and leaf[a][0] + leaf[a][1] + self.cost < sd[a].val - EPS:
                    sd[a].val = leaf[a][0] + leaf[a][1] + self.cost
                    sd[a].feature = f2
                    sd[a].lo = 0
                    sd[a].hi = 1
        # root f2, children split on f1
        if self.next_rank[self.offset[f2]] >= 0:
            sd = &self.side[2 * self.offset[f2]]
            for b in range(2):
                if fits[0][b] and fits[1][b] and leaf[0][b] + leaf[1][b] + self.cost < sd[b].val - EPS:
                    sd[b].val = leaf[0][b] + leaf[1][b] + self.cost
                    sd[b].feature = f1
                    sd[b].lo = 0
                    sd[b].hi = 1

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

    cdef bint depth_one_children(self, Node* node, int f, int32_t lo, double deadline, Split1* left,
                                 Split1* right) noexcept nogil:
        """The best depth-one trees of both children of the node's split on
        f after rank ``lo``, from the node's own table (the parent table
        that its children's tables are taken from): the first call on a
        node scores every threshold of every feature at once, the next ones
        read them.  False: the deadline came first, or the split is not
        one the tables score (then the caller scans)."""
        cdef int idx
        if not (self.scored_ready and self.scored_h1 == node.h1 and self.scored_h2 == node.h2
                and self.scored_size == node.size):
            self.scored_ready = False
            if not self._load_parent(node, deadline):
                return False
            self._score_all(PARENT)
            self.scored_ready = True
            self.scored_h1 = node.h1
            self.scored_h2 = node.h2
            self.scored_size = node.size
        idx = self.offset[f] + lo
        if self.next_rank[idx] < 0:
            return False
        left[0] = self.side[2 * idx]
        right[0] = self.side[2 * idx + 1]
        return True

    cdef void _score_all(self, int t) noexcept nogil:
        """Every root threshold's children's best depth-one trees (``side``) for table t's rows."""
        cdef int f1, f2
        self._common_marginals(t)
        self._thresholds(t)
        for f1 in range(self.p):
            if self.present[f1] < 2:
                continue
            for f2 in range(f1 + 1, self.p):
                if self.present[f2] >= 2:
                    self._pair(t, f1, f2)

    cdef int solve(self, Node* node, double deadline, double* best_val, Split1* root,
                   Split1* sides) noexcept nogil:
        """The best depth-two tree of the node (its rows: the first of its
        features' orders; every other order may be absent) if it beats ``best_val`` (then True, with
        its root and children); ``cut_short`` when the deadline stopped it
        (an improvement found by then is a true tree, not a proven one)."""
        cdef int t, f1, f2, r, idx
        cdef bint found = False
        cdef double v, best = best_val[0]
        cdef Split1* sd
        self.cut_short = False
        self.scored_ready = False       # (side is rewritten)
        t = self._load(node.elems, node.size, node.h1, node.h2, deadline)
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
