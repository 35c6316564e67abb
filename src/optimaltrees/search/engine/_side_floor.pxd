# cython: language_level=3
"""Floors of the splits with a light side, from the node's optimum one
level shallower.

A split of a node S searched at depth d, whose lighter side L has total
row bound w (the layout's distances, ``_intervals.pxd``: the weight for
classes), costs at least opt_{d-1}(S) - w plus the node's cost.  Its
heavier child B = S minus L is solved at depth d - 1, and B's best tree
applied to all of S costs at most opt_{d-1}(B) + w: each row added to a
set raises what a tree costs there by at most its bound, and leaves only
grow.  So opt_{d-1}(B) >= opt_{d-1}(S) - w.  One shallower solve of the
node thus bounds every split of a few rows at once: a category's
``x == v`` test, an identifier's value, a rare 0/1 column; ConTree's
interval bounds need one evaluated threshold per feature for that.
"""


cdef inline double side_floor_at(double* D, int m, int k, double base) noexcept nogil:
    """The side floor (without the node's cost) of split position k of m;
    D[k]: the bound of the rows left of it, D[m]: of all the node's rows."""
    cdef double light = D[k]
    if D[m] - D[k] < light:
        light = D[m] - D[k]
    return base - light


cdef inline double* side_floors_of(double* D, int m, double base, double* FL, double* out) noexcept nogil:
    """Each of the m split positions' floor (without cost), the larger of
    its class floor ``FL[k]`` (FL NULL: none) and its side floor, into
    ``out``; returns ``out``."""
    cdef int k
    cdef double v
    for k in range(m):
        v = side_floor_at(D, m, k, base)
        if FL != NULL and FL[k] > v:
            v = FL[k]
        out[k] = v
    return out
