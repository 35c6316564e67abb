# cython: language_level=3
"""The root's search over one best-first frontier of threshold intervals,
shared between engines on several threads; its lower bound rises while it
runs.  A free function over the engine (``_core.pxd``)."""
from libc.stdint cimport int32_t

from optimaltrees.search.engine._common cimport Node
from optimaltrees.search.engine._core cimport Engine
from optimaltrees.search.engine._layout cimport Layout


cdef double search_root(Engine eng, Layout lay, Node* node, int depth, double ub_in, double gap,
                        double known_lb, double* best_val_io, int32_t* best_tree_io) noexcept nogil
