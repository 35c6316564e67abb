# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Rule semantics of the anytime strategies, in one place.  The engine asks
a :class:`RuleState` what to do with a node and with each of its ranked
candidate splits; the strategies (``search/strategies.py``) choose the rule
and its budget per restart."""
from libc.math cimport floor, INFINITY
from libcpp.algorithm cimport sort as cpp_sort

from optimaltrees.search.engine._common cimport EPS, FREE

RULES = {"exhaustive": RULE_NONE, "blossom": RULE_HEIGHT, "purity": RULE_PURITY,
         "gain": RULE_GAIN, "discrepancy": RULE_DISCREPANCY, "top-k": RULE_TOPK,
         "top-k*": RULE_TOPK_STAR}


cdef bint _cand_before(const Cand& a, const Cand& b) noexcept nogil:
    """Rank order within one feature: lower Gini first, then leftmost threshold."""
    if a.score != b.score:
        return a.score < b.score
    return a.pos < b.pos


cdef class RuleState:
    """The rule of the current restart and the candidate lists it ranks."""

    def __init__(self, int levels, int p):
        self.rule = RULE_NONE
        self.budget = 0.0
        self.from_depth = 2
        self.n_rule_cuts = 0
        self.min_cut_gap = INFINITY
        self.cands.resize(levels)
        self.feature_start.resize(p + 1)
        self.feature_order.resize(p)

    def set(self, int rule, double budget, int exact_depth):
        """Restrict the next solve by ``rule`` at ``budget``.  Nodes of depth
        up to ``exact_depth`` are solved whole by the data layout; rules start
        above them, except in the greedy restart (a rule at budget 0), which
        must give a tree at once: there depth-two nodes take the rule's first
        split rather than the layout's depth-two solver."""
        if rule < RULE_NONE or rule > RULE_LAST:
            raise ValueError(f"unknown rule {rule}")
        self.rule = rule
        self.budget = budget
        self.from_depth = 2 if (rule != RULE_NONE and budget == 0.0) else exact_depth + 1

    def reset_counts(self):
        self.n_rule_cuts = 0
        self.min_cut_gap = INFINITY

    @property
    def active(self):
        return self.rule != RULE_NONE

    cdef int node_action(self, int depth, double* spent, double best_val, double weight) noexcept nogil:
        """A node rule (purity: pure enough by its best known tree means not
        expanded; height: low enough means exhaustive) or, for the candidate
        rules, a restricted search.  May set ``spent`` to FREE."""
        if self.rule == RULE_PURITY:
            if self.budget > 1.0:
                spent[0] = FREE
            elif 1.0 - best_val / weight >= self.budget - EPS:
                self.n_rule_cuts += 1
                return NODE_CUT
            return NODE_SEARCH
        if self.rule == RULE_HEIGHT and depth <= self.budget + 1:
            spent[0] = FREE
            return NODE_SEARCH
        return NODE_RESTRICTED

    cdef int limit(self, int level, double spent) noexcept nogil:
        """How many of a node's candidates the rule can admit."""
        cdef double k = self.budget + 1.0
        if self.rule == RULE_DISCREPANCY:
            return <int>min(self.budget - spent + 1.0, 1e9)
        if self.rule == RULE_TOPK:
            return <int>min(k, 1e9)
        if self.rule == RULE_TOPK_STAR:
            return <int>max(1.0, floor(min(k, 1e9) / (<double>(1 << min(level, 30)))))
        if self.rule == RULE_HEIGHT:
            return 1
        return 0x7fffffff

    cdef bint unrestricted(self, int level, int depth, double spent, int total) noexcept nogil:
        """True once the rule cannot cut anything in this node's subtree (no
        subset has more candidates than its parent): search it exhaustively."""
        cdef int levels = depth - self.from_depth + 1
        cdef double k = self.budget + 1.0
        if total == 0:
            return True
        if self.rule == RULE_DISCREPANCY:
            return self.budget - spent >= <double>levels * (total - 1)
        if self.rule == RULE_TOPK:
            return k >= total
        if self.rule == RULE_TOPK_STAR:
            return k / (<double>(1 << min(level + levels - 1, 60))) >= total
        if self.rule == RULE_GAIN:
            # a Gini gain lies in [0, 1): a path gap never exceeds the levels left
            return self.budget - spent >= levels
        return False

    cdef int admit(self, int r, double score, double best_score, double weight, double spent, int limit,
                   double* child_spent) noexcept nogil:
        """Whether the node's r-th ranked candidate (Gini ``score``; the
        node's best is ``best_score``) is tried, and its children's state."""
        cdef double gap_c
        child_spent[0] = 0.0
        if self.rule == RULE_DISCREPANCY:
            child_spent[0] = spent + r
            if child_spent[0] > self.budget + EPS:
                return CAND_STOP
        elif self.rule == RULE_GAIN:
            gap_c = (score - best_score) / weight
            child_spent[0] = spent + gap_c
            if child_spent[0] > self.budget + EPS:
                if child_spent[0] - self.budget < self.min_cut_gap:
                    self.min_cut_gap = child_spent[0] - self.budget
                return CAND_SKIP
        elif r >= limit:
            return CAND_STOP
        return CAND_TRY

    cdef int rank(self, int level, int p, int limit) noexcept nogil:
        """Rank the node's candidates (in ``scratch``, feature f's from
        ``feature_start[f]``) and put the first ``limit`` in ``cands[level]``;
        return how many candidates the node has.

        Rank order is round-robin: every feature's best split (features by
        Gini), then every feature's second best, and so on.  On binary data
        that is the usual feature order; on numeric data it keeps the first
        candidates diverse instead of spending them on neighbouring thresholds."""
        cdef int f, k, a, start, cnt, best_k, rnd, n_feat = 0
        cdef int32_t* fstart = &self.feature_start[0]
        cdef int32_t* forder = &self.feature_order[0]
        cdef vector[Cand]* scratch = &self.scratch
        cdef vector[Cand]* out = &self.cands[level]
        cdef int total = <int>scratch.size()
        cdef Cand tmp
        out.clear()
        fstart[p] = total
        # each feature's best split to the front of its segment; features by it
        for f in range(p):
            start = fstart[f]
            cnt = fstart[f + 1] - start
            if cnt == 0:
                continue
            best_k = start
            for k in range(start + 1, start + cnt):
                if scratch[0][k].score < scratch[0][best_k].score:
                    best_k = k
            tmp = scratch[0][start]
            scratch[0][start] = scratch[0][best_k]
            scratch[0][best_k] = tmp
            # insertion into the feature order (stable: ties keep feature order)
            a = n_feat
            while a > 0 and scratch[0][fstart[forder[a - 1]]].score > scratch[0][start].score:
                forder[a] = forder[a - 1]
                a -= 1
            forder[a] = f
            n_feat += 1
        if limit > n_feat:
            # later rounds need every feature's splits in Gini order
            for f in range(p):
                start = fstart[f]
                cnt = fstart[f + 1] - start
                if cnt > 2:
                    cpp_sort(&scratch[0][start + 1], &scratch[0][start] + cnt, _cand_before)
        rnd = 0
        while <int>out.size() < limit and <int>out.size() < total:
            for a in range(n_feat):
                f = forder[a]
                if fstart[f] + rnd < fstart[f + 1]:
                    out.push_back(scratch[0][fstart[f] + rnd])
                    if <int>out.size() >= limit:
                        break
            rnd += 1
        return total

    cdef size_t memory_bytes(self) noexcept nogil:
        cdef size_t b = 0, lvl
        b += self.scratch.capacity() * sizeof(Cand)
        b += (self.feature_start.capacity() + self.feature_order.capacity()) * sizeof(int32_t)
        for lvl in range(self.cands.size()):
            b += self.cands[lvl].capacity() * sizeof(Cand)
        return b
