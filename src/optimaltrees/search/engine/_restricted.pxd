# cython: language_level=3
"""A node searched under an anytime strategy's rule (``_rules.pyx``): its
candidate splits in rank order while the rule admits them.  A free
function over the engine (``_core.pxd``)."""
from libc.stdint cimport int32_t

from optimaltrees.search.engine._common cimport Node
from optimaltrees.search.engine._core cimport Engine
from optimaltrees.search.engine._layout cimport Layout


cdef double search_restricted(Engine eng, Layout lay, int level, Node* node, int depth, double ub_in,
                              double gap, double known_lb, double* best_val_io,
                              int32_t* best_tree_io, double spent) noexcept nogil
