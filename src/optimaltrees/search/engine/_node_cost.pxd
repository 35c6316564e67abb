# cython: language_level=3
"""The objective of a node as the search reads it, over the fused layout
type.  The two classification layouts count classes, and their
misclassification is inlined here (``_common``): as methods of theirs it
would cost a call through the layout on every subproblem of the fastest
searches.  The additive layout names its own objective."""
from optimaltrees.search.engine._common cimport class_floor, leaf_errors, total_weight
from optimaltrees.search.engine._layout cimport Layout
from optimaltrees.search.engine._additive cimport AdditiveLayout


cdef inline double leaf_cost(Layout lay, double* counts, int K) noexcept nogil:
    """A leaf's objective over a node's statistics."""
    if Layout is AdditiveLayout:
        return lay.leaf_cost(counts)
    else:
        return leaf_errors(counts, K)


cdef inline double node_floor(Layout lay, double* counts, int K, int depth) noexcept nogil:
    """What every tree of depth ``depth`` costs on the node at least."""
    if Layout is AdditiveLayout:
        return lay.node_floor(counts, depth)
    else:
        return class_floor(counts, K, depth)


cdef inline double node_weight(Layout lay, double* counts, int K) noexcept nogil:
    """The node's weight (the rules read rates per unit of it)."""
    if Layout is AdditiveLayout:
        return lay.node_weight(counts)
    else:
        return total_weight(counts, K)


cdef inline bint floors_bite(int K, int depth) noexcept nogil:
    """Whether a node of this depth can have split class floors: depth two
    or more (up to 12, the floor's own limit) and more classes than a
    child's leaves."""
    return 2 <= depth <= 12 and K > (1 << (depth - 1))
