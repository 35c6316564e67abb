# cython: language_level=3
"""A node's features before its search: their Gini order, the probes of
depth-two and depth-three nodes, their class floors, and the base of
their side floors.  Free functions
over the engine (``_core.pxd``), written once over the layouts."""
from libc.stdint cimport int32_t

from optimaltrees.search.engine._common cimport Node
from optimaltrees.search.engine._core cimport Engine
from optimaltrees.search.engine._layout cimport Layout


cdef bint feature_floors(Engine eng, Layout lay, int level, Node* node, int depth,
                         double* known_lb) noexcept nogil
cdef void side_start(Engine eng, Layout lay, int level, Node* node, int depth, double* ub,
                     double* best_val, int32_t* best_tree, double* known_lb) noexcept nogil
cdef void order_features(Engine eng, Layout lay, int level, Node* node, int32_t* order) noexcept nogil
cdef void probe_features(Engine eng, Layout lay, int level, Node* node, int depth, int32_t* order,
                         double enough, double* ub, double* best_val, int32_t* best_tree) noexcept nogil
