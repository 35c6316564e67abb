# cython: language_level=3
"""What an objective contributes to the search, as inline helpers over a
node's sufficient statistics (``Node.counts``).

Misclassification reads class counts (``_common``: ``leaf_errors``,
``class_floor``, ``total_weight``); squared error reads three sums, the
weight W, the weighted target S and the weighted squared target Q, so that
a leaf predicting the mean costs Q - S^2 / W and two children's sums add; a
cost matrix reads class weights and names the cheapest class.
Each layout names its objective through ``leaf_cost``, ``node_floor`` and
``node_weight`` (``_layout.pxd``), so the core never asks which one runs."""


cdef enum:
    SSE_STATS = 3             # squared error's statistics per node: W, S, Q
    SQUARED_ERROR = 0         # AdditiveLayout.kind: squared error of leaf means
    COST_MATRIX = 1           # ... a cost matrix over class counts


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


cdef inline double cost_leaf(double* counts, double* costs, int K) noexcept nogil:
    """A leaf's cost under a cost matrix: the cheapest class to predict for
    these class weights, ``costs[c * K + k]`` the cost of predicting k for a
    row of class c."""
    cdef int c, k
    cdef double best = 1e308, v
    for k in range(K):
        v = 0.0
        for c in range(K):
            if counts[c] != 0.0:
                v += counts[c] * costs[c * K + k]
        if v < best:
            best = v
    return best
