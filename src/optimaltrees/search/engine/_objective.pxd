# cython: language_level=3
"""What an objective contributes to the search, as inline helpers over a
node's sufficient statistics (``Node.counts``).

Misclassification reads class counts (``_common``: ``leaf_errors``,
``class_floor``, ``total_weight``); squared error reads three sums, the
weight W, the weighted target S and the weighted squared target Q, so that
a leaf predicting the mean costs Q - S^2 / W and two children's sums add.
Each layout names its objective through ``leaf_cost``, ``node_floor`` and
``node_weight`` (``_layout.pxd``), so the core never asks which one runs."""


cdef enum:
    SSE_STATS = 3             # squared error's statistics per node: W, S, Q


cdef inline double sse_leaf(double* s) noexcept nogil:
    """Squared error of one leaf around its weighted mean, from (W, S, Q).
    Q - S^2 / W cancels where the spread is small against the mean: the
    targets reach the engine centred and scaled, and a tiny negative residue
    is 0 (an error is never below it)."""
    cdef double v
    if s[0] <= 0.0:
        return 0.0
    v = s[2] - s[1] * s[1] / s[0]
    return v if v > 0.0 else 0.0


cdef inline double sse_rest(double* total, double w, double sy, double syy) noexcept nogil:
    """Squared error of the rows of ``total`` outside a prefix whose sums are (w, sy, syy)."""
    cdef double W = total[0] - w, S = total[1] - sy, Q = total[2] - syy, v
    if W <= 0.0:
        return 0.0
    v = Q - S * S / W
    return v if v > 0.0 else 0.0


cdef inline double sse_part(double w, double sy, double syy) noexcept nogil:
    """Squared error of rows whose sums are (w, sy, syy)."""
    cdef double v
    if w <= 0.0:
        return 0.0
    v = syy - sy * sy / w
    return v if v > 0.0 else 0.0
