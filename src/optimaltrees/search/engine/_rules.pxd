# cython: language_level=3
"""The anytime strategies' rules: which candidate splits a node may try in
one restart (the CA-DL8.5 "rule"; Blossom's greedy-above-height phases).
RULE_NONE is the exhaustive ConTree search."""
from libc.stdint cimport int32_t
from libcpp.vector cimport vector

from optimaltrees.search.engine._common cimport Cand

cdef enum:
    RULE_NONE = 0
    RULE_HEIGHT = 1          # nodes more than budget+1 levels above the leaves: first split only
    RULE_PURITY = 2          # a node whose purity reaches `budget` is not expanded
    RULE_GAIN = 3            # cumulative Gini-gain gap along the path <= budget
    RULE_DISCREPANCY = 4     # cumulative candidate rank along the path <= budget
    RULE_TOPK = 5            # the first budget+1 candidates of every node
    RULE_TOPK_STAR = 6       # ... halved at each level (at least one)
    RULE_LAST = 6

cdef enum:                   # what a rule does with a node (RuleState.node_action)
    NODE_SEARCH = 0          # search it (exhaustively if the state became FREE)
    NODE_CUT = 1             # do not expand it: keep its best known tree and bound
    NODE_RESTRICTED = 2      # try its candidates one by one while the rule admits them

cdef enum:                   # what a rule does with a node's r-th candidate (RuleState.admit)
    CAND_TRY = 0             # try it, its children under the returned state
    CAND_SKIP = 1            # cut it, look at the next one
    CAND_STOP = 2            # cut it and every later one


cdef class RuleState:
    cdef public int rule                   # RULE_*: the strategy's restriction this restart
    cdef public double budget              # the rule's parameter this restart
    cdef int from_depth                    # shallower nodes are exact (the layout's own solvers)
    cdef public long long n_rule_cuts      # candidates (or nodes) a rule kept out this restart
    cdef public double min_cut_gap         # gain rule: smallest path gap that was cut
    cdef vector[vector[Cand]] cands        # per level: candidate splits in rank order
    cdef vector[Cand] scratch              # every candidate of the node being ranked
    cdef vector[int32_t] feature_start     # [f]: where feature f's candidates start in scratch
    cdef vector[int32_t] feature_order     # features by their best candidate

    cdef int node_action(self, int depth, double* spent, double best_val, double weight) noexcept nogil
    cdef int limit(self, int level, double spent) noexcept nogil
    cdef bint unrestricted(self, int level, int depth, double spent, int total) noexcept nogil
    cdef int admit(self, int r, double score, double best_score, double weight, double spent, int limit,
                   double* child_spent) noexcept nogil
    cdef int rank(self, int level, int p, int limit) noexcept nogil
    cdef size_t memory_bytes(self) noexcept nogil
