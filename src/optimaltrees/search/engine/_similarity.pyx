# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The similarity bound over recently solved sets (``_similarity.pxd``)."""
from libc.stdint cimport uint64_t
from libc.string cimport memset

from optimaltrees.search.engine._common cimport EPS, Node, popcount64

cimport cython


cdef enum:
    # a check scans at most SIM_WORDS bitmap words (large data: fewer sets)
    SIM_WORDS = 1 << 17


@cython.final
cdef class SimilarityArchive:
    """Row bitmaps of recently solved sets and their bounds, per depth."""

    def __init__(self, int n, int levels, int sets):
        """``n`` rows, depths up to ``levels``, up to ``sets`` sets per depth
        (fewer on large data; 0: the bound is off)."""
        cdef int lvl
        self.words = (n + 63) // 64
        self.capacity = 0 if sets <= 0 else min(sets, max(4, SIM_WORDS // self.words))
        self.masks.resize(levels + 1)
        self.lbs.resize(levels + 1)
        self.used.assign(levels + 1, 0)
        self.next.assign(levels + 1, 0)
        if self.capacity > 0:
            for lvl in range(2, levels + 1):
                self.masks[lvl].resize(<size_t>self.capacity * self.words)
                self.lbs[lvl].resize(self.capacity)
            self.cur.resize(self.words)

    cdef size_t memory_bytes(self) noexcept nogil:
        cdef size_t b = self.cur.capacity() * sizeof(uint64_t), lvl
        for lvl in range(self.masks.size()):
            b += self.masks[lvl].capacity() * sizeof(uint64_t) + self.lbs[lvl].capacity() * sizeof(double)
        return b

    cdef void _bitmap(self, Node* node, uint64_t* out) noexcept nogil:
        cdef int k, i
        memset(out, 0, <size_t>self.words * sizeof(uint64_t))
        for k in range(node.size):
            i = node.elems[k].id
            out[i >> 6] |= (<uint64_t>1) << (i & 63)

    cdef bint prune(self, Node* node, int depth, double ub, double* known_lb) noexcept nogil:
        """Raise ``known_lb`` to max over remembered sets S' of this depth of
        lb(S') - |S' minus S| (each removed row lowers the optimum by at most
        one, added rows cannot lower it); True when it reaches ``ub``."""
        cdef int W = self.words, e, w, removed
        cdef double bound
        cdef uint64_t* old
        cdef uint64_t* cur = &self.cur[0]
        self._bitmap(node, cur)
        for e in range(self.used[depth]):
            old = &self.masks[depth][<size_t>e * W]
            removed = 0
            for w in range(W):
                removed += popcount64(old[w] & ~cur[w])
            bound = self.lbs[depth][e] - removed
            if bound > known_lb[0]:
                known_lb[0] = bound
        return known_lb[0] >= ub - EPS

    cdef void remember(self, Node* node, int depth, double lb) noexcept nogil:
        """Keep a solved set (a ring per depth)."""
        cdef int e = self.next[depth]
        self._bitmap(node, &self.masks[depth][<size_t>e * self.words])
        self.lbs[depth][e] = lb
        self.next[depth] = (e + 1) % self.capacity
        if self.used[depth] < self.capacity:
            self.used[depth] += 1
