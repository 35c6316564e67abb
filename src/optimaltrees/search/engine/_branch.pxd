# cython: language_level=3
"""One feature of a node searched by ConTree's threshold intervals
(``_intervals.pxd``): the best Gini threshold first, then midpoints of
what the bounds leave; a depth-two node may sweep the rest whole.  Free
functions over the engine (``_core.pxd``)."""
from libc.stdint cimport int32_t
from libcpp.vector cimport vector

from optimaltrees.search.engine._common cimport Node
from optimaltrees.search.engine._core cimport Engine
from optimaltrees.search.engine._intervals cimport Interval
from optimaltrees.search.engine._layout cimport Layout


cdef void branch(Engine eng, Layout lay, int level, Node* node, int depth, int f, double gap,
                 double* ub, double* best_val, int32_t* best_tree, double* node_lb,
                 double known_lb, double spent) noexcept nogil
cdef bint branch_step(Engine eng, Layout lay, int level, Node* node, int depth, int f, double gap,
                      int32_t* P, double* D, double* FL, Interval* iv_in, vector[Interval]* Q,
                      int* zero_l_io, int* zero_r_io, int* first_w_io,
                      double* ub, double* best_val, int32_t* best_tree, double* node_lb,
                      double known_lb, double spent) noexcept nogil
