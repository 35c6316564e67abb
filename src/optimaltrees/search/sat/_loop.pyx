# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False
"""The SAT counterexample loop's steps that run every round, in C.

Each round of Algorithm 3 reads a tree from the solver's model, routes every
example through it, and adds a misclassified example's clauses (hundreds).
On Table 3's small sets a round's solve is a fraction of a millisecond, so
these steps, as numpy calls (about ten a depth and a ``tolist`` each for the
clauses), were most of a fit.  The clauses are built in the order and with
the literals of :mod:`.encoding`'s docstring, as lists for python-sat's adder.
"""
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE, PyList_New, PyList_SET_ITEM
from cpython.long cimport PyLong_AsLongLong
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int64_t, uint8_t
from libcpp.vector cimport vector

import numpy as np


cdef inline void _put(list clause, Py_ssize_t pos, object literal):
    """Store ``literal`` at ``pos`` of a fresh list (SET_ITEM steals a reference)."""
    Py_INCREF(literal)
    PyList_SET_ITEM(clause, pos, literal)


cdef class ExampleClauses:
    """The clause builder of one formula: the rows, the chains and the node
    variables are fixed; an example brings its k path variables (consecutive
    ids ``x0 .. x0 + k - 1``; ``X[j]``: it goes right at depth j)."""

    cdef const uint8_t[:, ::1] B          # (n, m) 0/1 rows of the examples
    cdef const int64_t[::1] chain_cols    # the columns, chain after chain
    cdef const int64_t[::1] chain_start   # [c]: chain c's first index in chain_cols
    cdef const int64_t[::1] chain_len     # [c]: its length
    cdef const int64_t[:, ::1] T          # (N, m): order variables (F for single tests)
    cdef const int64_t[:, ::1] C          # (N, classes): leaf v predicts class a
    cdef int k                            # depth
    cdef int n_chains                     # len(chain_start)

    def __init__(self, const uint8_t[:, ::1] B, const int64_t[::1] chain_cols,
                 const int64_t[::1] chain_start, const int64_t[::1] chain_len,
                 const int64_t[:, ::1] T, const int64_t[:, ::1] C, int depth):
        self.B = B
        self.chain_cols = chain_cols
        self.chain_start = chain_start
        self.chain_len = chain_len
        self.T = T
        self.C = C
        self.k = depth
        self.n_chains = chain_start.shape[0]

    cdef list _literals(self, int64_t x0, int sign):
        """sign * X[j] as Python ints, j = 0..k-1 (shared by the clauses)."""
        return [sign * (x0 + j) for j in range(self.k)]

    def routing(self, list out, Py_ssize_t row, int64_t x0) -> None:
        """Families (3) and (4) of example ``row`` appended to ``out``: per
        depth j, every node q at that depth and every chain: 'on q's path and
        goes right -> not T[q, r]' (the row true on the chain's first r tests;
        r < d) or 'on q's path and goes left -> q does not test the chain'
        (r = d); then, for 0 < r < d, 'on q's path, goes left and tests the
        chain -> T[q, r]'."""
        cdef int k = self.k, j, l, c, nodes
        cdef Py_ssize_t q, r, n_ch = self.n_chains, ones, s, d
        cdef list right = self._literals(x0, 1), left = self._literals(x0, -1), clause
        # per chain: the column of its routing literal T[r] (the head when r = d),
        # whether r < d ('goes right -> not T[r]'), whether 0 < r < d (a middle clause)
        cdef vector[int64_t] col_v = vector[int64_t](n_ch)
        cdef vector[char] inside = vector[char](n_ch), middle = vector[char](n_ch)
        if row < 0 or row >= self.B.shape[0]:          # (no bounds checks below)
            raise IndexError(f"row {row} is not one of the formula's {self.B.shape[0]} examples")
        for c in range(n_ch):
            s = self.chain_start[c]
            d = self.chain_len[c]
            ones = 0
            for l in range(d):
                ones += self.B[row, self.chain_cols[s + l]]
            inside[c] = ones < d
            middle[c] = 0 < ones < d
            col_v[c] = self.chain_cols[s + ones] if ones < d else self.chain_cols[s]
        for j in range(k):
            nodes = 1 << j
            for r in range(nodes):
                q = nodes + r
                for c in range(n_ch):
                    clause = PyList_New(j + 2)
                    for l in range(j):
                        # not on q's path at depth l: goes the other way than q's bit
                        _put(clause, l, left[l] if (r >> (j - 1 - l)) & 1 else right[l])
                    _put(clause, j, left[j] if inside[c] else right[j])
                    _put(clause, j + 1, -self.T[q, col_v[c]])
                    out.append(clause)
            for r in range(nodes):
                q = nodes + r
                for c in range(n_ch):
                    if not middle[c]:
                        continue
                    clause = PyList_New(j + 3)
                    for l in range(j):
                        _put(clause, l, left[l] if (r >> (j - 1 - l)) & 1 else right[l])
                    _put(clause, j, right[j])
                    _put(clause, j + 1, -self.T[q, self.chain_cols[self.chain_start[c]]])
                    _put(clause, j + 2, self.T[q, col_v[c]])
                    out.append(clause)

    def classes(self, list out, int64_t x0, Py_ssize_t a, int64_t guard=0) -> None:
        """Families (5) and (6): at the example's leaf, class ``a`` and no
        other ('on leaf v's path -> C[v, a]', '... -> not C[v, b]'), each
        clause with the literal ``guard`` appended when it is not 0 (MaxSAT's
        soft selector)."""
        cdef int k = self.k, l, b, width = k + 1 + (guard != 0)
        cdef Py_ssize_t v, N = self.C.shape[0], n_classes = self.C.shape[1]
        cdef list right = self._literals(x0, 1), left = self._literals(x0, -1), clause
        for v in range(N):
            for b in range(n_classes):
                clause = PyList_New(width)
                for l in range(k):
                    _put(clause, l, left[l] if (v >> (k - 1 - l)) & 1 else right[l])
                _put(clause, k, self.C[v, b] if b == a else -self.C[v, b])
                if guard != 0:
                    _put(clause, k + 1, guard)
                out.append(clause)


def decode_model(list model, const int64_t[:, ::1] F, const int64_t[:, ::1] C):
    """(node_feature (N,), leaf_class (N,)) from a python-sat model that lists
    variable v at index v - 1, or None when it does not (every entry read is
    checked; the caller then reads the model whole).  ``F`` is (N, m) with
    row 0 unused; a node with no true feature gets 0 and a leaf with no class
    or several gets -1, as :meth:`TreeEncoding.decode`."""
    cdef Py_ssize_t N = C.shape[0], m = F.shape[1], n_classes = C.shape[1], size = PyList_GET_SIZE(model)
    cdef Py_ssize_t q, f, v, a, found
    node_feature = np.full(N, -1, dtype=np.int64)
    leaf_class = np.full(N, -1, dtype=np.int64)
    cdef int64_t[::1] nf = node_feature, lc = leaf_class
    cdef int value
    for q in range(1, N):
        nf[q] = -1
        for f in range(m):
            value = _truth(model, size, F[q, f])
            if value < 0:
                return None
            if value and nf[q] < 0:
                nf[q] = f
        if nf[q] < 0:
            nf[q] = 0
    for v in range(N):
        found = -1
        for a in range(n_classes):
            value = _truth(model, size, C[v, a])
            if value < 0:
                return None
            if value:
                found = a if found == -1 else -2
        lc[v] = found if found >= 0 else -1
    return node_feature, leaf_class


cdef inline int _truth(list model, Py_ssize_t size, int64_t var):
    """1 / 0: variable ``var`` is true / false in the model, -1 when the
    model does not hold it at index var - 1."""
    if var < 1 or var > size:
        return -1
    cdef long long lit = PyLong_AsLongLong(<object>PyList_GET_ITEM(model, var - 1))
    if lit == var:
        return 1
    if lit == -var:
        return 0
    return -1


def misclassified(const uint8_t[:, ::1] B, const int64_t[::1] y, const int64_t[::1] node_feature,
                  const int64_t[::1] leaf_class, int depth):
    """Indices of the rows of ``B`` whose leaf in the perfect tree of
    ``depth`` (heap order, node q's children 2q and 2q+1) predicts another
    class than ``y`` (a leaf of class -1 misclassifies every row)."""
    cdef Py_ssize_t n = B.shape[0], i, q, j, count = 0
    cdef int N = 1 << depth
    if node_feature.shape[0] < N or leaf_class.shape[0] < N or y.shape[0] < n:
        raise ValueError("misclassified: the tree's arrays are shorter than its depth needs")
    for q in range(1, N):                                # (no bounds checks below)
        if node_feature[q] < 0 or node_feature[q] >= B.shape[1]:
            raise ValueError(f"misclassified: node {q} tests column {node_feature[q]}, "
                             f"not one of the {B.shape[1]} columns")
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] wrong = out
    for i in range(n):
        q = 1
        for j in range(depth):
            q = 2 * q + B[i, node_feature[q]]
        if leaf_class[q - N] != y[i]:
            wrong[count] = i
            count += 1
    return out[:count]
