# cython: language_level=3
"""The similarity bound over recently solved sets: opt(S) >= lb(S') - |S' \ S|
for a set S' of the same depth solved before (each removed row lowers the
optimum by at most one, added rows cannot lower it).  The sets are kept as
row bitmaps, a ring per depth.  Owned by the sorted layout (the bitset
layout keeps its own, over its row masks)."""
from libc.stdint cimport uint64_t
from libcpp.vector cimport vector

from optimaltrees.search.engine._common cimport Node

cimport cython


@cython.final
cdef class SimilarityArchive:
    cdef int words                         # 64-bit words of one row bitmap
    cdef int capacity                      # sets remembered per depth (0: the bound is off)
    cdef vector[vector[uint64_t]] masks    # per depth: the remembered sets (a ring of bitmaps) ...
    cdef vector[vector[double]] lbs        # ... their proven lower bounds ...
    cdef vector[int] used                  # ... how many are held ...
    cdef vector[int] next                  # ... and the slot to fill next
    cdef vector[uint64_t] cur              # the node being checked, as a bitmap

    cdef size_t memory_bytes(self) noexcept nogil
    cdef void _bitmap(self, Node* node, uint64_t* out) noexcept nogil
    cdef bint prune(self, Node* node, int depth, double ub, double* known_lb) noexcept nogil
    cdef void remember(self, Node* node, int depth, double lb) noexcept nogil
