# cython: language_level=3
"""Root children seeded from their nested neighbours: the left child of a
root threshold holds the left child of every threshold left of it, so the
bounds one child's search proved on its splits hold for the next one's
(and likewise on the right).  Free functions over the engine
(``_core.pxd``)."""
from libc.stdint cimport int32_t

from optimaltrees.search.engine._common cimport Node
from optimaltrees.search.engine._core cimport Engine, Result
from optimaltrees.search.engine._intervals cimport Interval
from optimaltrees.search.engine._layout cimport Layout


cdef Result solve_root_child(Engine eng, Layout lay, Node* child, int depth, double bound, int f,
                             Interval* iv, int w, int side, double spent) noexcept nogil
cdef void record_seed(Engine eng, Layout lay, Node* node, int f, int32_t pos, double lb_l,
                      double lb_r) noexcept nogil
cdef bint seed_floors(Engine eng, Layout lay, Node* node, int f, int32_t* P, double* D, int m,
                      double* FL, double* out) noexcept nogil
