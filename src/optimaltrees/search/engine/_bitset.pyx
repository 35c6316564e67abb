# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Bitset layout: masks, frequency counting (MurTree's depth-two solver)
and the similarity archive."""
from libc.stdint cimport int64_t
from libc.math cimport INFINITY

from optimaltrees.search.engine._common cimport (
    ARCHIVE, EPS, gini_high, leaf_errors, max_count, max_count_diff, mix64, popcount64,
    popcount_and)


cdef class BitsetLayout:
    """The training set as bitsets over instances (features, classes), one
    pair of child masks per recursion level, and the counting buffers."""

    def __init__(self, int32_t[:, ::1] rank, int32_t[::1] y, int n_classes, int max_depth,
                 double cost, int min_leaf, int64_t[:, ::1] random_words):
        """rank[f, i]: 0 or 1, instance i's value of feature f; y: labels
        0..K-1; random_words: (2, >= words) random integers for the set hashes."""
        cdef int f, i, lvl, W, levels = max(max_depth, 1) + 1
        self.init_sizes(rank.shape[1], rank.shape[0], n_classes, min_leaf, cost, 2, y)
        self.prune = min_leaf <= 1
        self.n_derived_counts = 0
        W = (self.n + 63) >> 6
        self.words = W
        self.feature_bits.assign(<size_t>self.p * W, 0)
        self.class_bits.assign(<size_t>self.K * W, 0)
        self.root_mask.assign(W, 0)
        for i in range(self.n):
            self.root_mask[i >> 6] |= (<uint64_t>1) << (i & 63)
            self.class_bits[<size_t>y[i] * W + (i >> 6)] |= (<uint64_t>1) << (i & 63)
            for f in range(self.p):
                if rank[f, i] == 1:
                    self.feature_bits[<size_t>f * W + (i >> 6)] |= (<uint64_t>1) << (i & 63)
        self.child_masks.resize(levels)
        self.cnt_left.resize(levels)
        self.cnt_right.resize(levels)
        for lvl in range(levels):
            self.child_masks[lvl].resize(2 * <size_t>W)
            self.cnt_left[lvl].resize(self.K)
            self.cnt_right[lvl].resize(self.K)
        self.masked.resize(<size_t>(self.p + self.K) * W)
        self.single_counts.resize(<size_t>self.p * self.K)
        self.pair_counts.resize(<size_t>self.p * self.p * self.K)
        self.parent_single.resize(<size_t>self.p * self.K)
        self.parent_pair.resize(<size_t>self.p * self.p * self.K)
        self.archive_masks.resize(levels + 1)
        self.archive_lbs.resize(levels + 1)
        self.archive_used.assign(levels + 1, 0)
        self.archive_next.assign(levels + 1, 0)
        for lvl in range(levels + 1):
            self.archive_masks[lvl].resize(<size_t>ARCHIVE * W)
            self.archive_lbs[lvl].resize(ARCHIVE)
        self.parent_h1 = 0
        self.parent_h2 = 0
        self.counted_h1 = 0
        self.counted_h2 = 0
        self.hint_parent = NULL
        self.cl.resize(self.K)
        self.node_counts.resize(self.K)
        self.rnd1.resize(W)
        self.rnd2.resize(W)
        for i in range(W):
            self.rnd1[i] = <uint64_t>random_words[0, i] * 2 + 1
            self.rnd2[i] = <uint64_t>random_words[1, i]
        self.fixed_bytes = self.memory_bytes()

    cdef size_t memory_bytes(self) noexcept nogil:
        cdef size_t b = self.base_bytes(), lvl
        b += (self.feature_bits.capacity() + self.class_bits.capacity() + self.root_mask.capacity()
              + self.masked.capacity() + self.rnd1.capacity() + self.rnd2.capacity()) * sizeof(uint64_t)
        b += (self.archive_used.capacity() + self.archive_next.capacity()) * sizeof(int)
        b += (self.single_counts.capacity() + self.pair_counts.capacity() + self.parent_single.capacity()
              + self.parent_pair.capacity()
              + self.cl.capacity() + self.node_counts.capacity()) * sizeof(int32_t)
        for lvl in range(self.child_masks.size()):
            b += self.child_masks[lvl].capacity() * sizeof(uint64_t)
            b += (self.cnt_left[lvl].capacity() + self.cnt_right[lvl].capacity()) * sizeof(double)
        for lvl in range(self.archive_masks.size()):
            b += self.archive_masks[lvl].capacity() * sizeof(uint64_t)
        for lvl in range(self.archive_lbs.size()):
            b += self.archive_lbs[lvl].capacity() * sizeof(double)
        return b

    cdef void init_root(self, Node* root) noexcept nogil:
        root.elems = NULL
        root.mask = &self.root_mask[0]
        root.size = self.n
        root.counts = &self.root_counts[0]
        self._mask_hash(root.mask, &root.h1, &root.h2)

    cdef int _high_counts(self, Node* node, int f, int32_t* cc) noexcept nogil:
        """Class counts of the set's instances at feature f's high value; their total."""
        cdef int W = self.words, w, c, total, n_hi = 0
        cdef uint64_t* mask = node.mask
        cdef uint64_t* F = &self.feature_bits[<size_t>f * W]
        cdef uint64_t* C
        for c in range(self.K):
            C = &self.class_bits[<size_t>c * W]
            total = 0
            for w in range(W):
                total += popcount64(mask[w] & F[w] & C[w])
            cc[c] = total
            n_hi += total
        return n_hi

    cdef double split_floor(self, Node* node, int f, int child_depth, int32_t* P, int m,
                            double* out) noexcept nogil:
        """No class floors over bitsets (``has_floors`` is False, so the core
        never asks): 0 everywhere."""
        cdef int w
        if out != NULL:
            for w in range(m):
                out[w] = 0.0
        return 0.0

    cdef void gini_split(self, Node* node, int f, double* score, int32_t* pos) noexcept nogil:
        """The single threshold's Gini impurity (INFINITY, -1: a constant feature here)."""
        cdef int nn = node.size
        cdef int32_t* cc = &self.cl[0]
        cdef int n_hi = self._high_counts(node, f, cc)
        score[0] = INFINITY
        pos[0] = -1
        if 0 < n_hi < nn:
            score[0] = gini_high(node.counts, cc, self.K, nn, n_hi)
            pos[0] = nn - n_hi

    cdef int thresholds(self, Node* node, int f, int32_t* P, double* D) noexcept nogil:
        """One threshold (low values left), if both sides keep min_leaf
        instances; D[1] (or D[0] without one): the node's rows."""
        cdef int nn = node.size, ml = self.min_leaf
        cdef int n_hi = self._high_counts(node, f, &self.cl[0])
        if 0 < n_hi < nn and nn - n_hi >= ml and n_hi >= ml:
            P[0] = nn - n_hi
            D[0] = P[0]
            D[1] = nn
            return 1
        D[0] = nn
        return 0

    cdef void split_ranks(self, Node* node, int f, int pos, int32_t* lo, int32_t* hi) noexcept nogil:
        lo[0] = 0
        hi[0] = 1

    cdef int rank_position(self, Node* node, int f, int32_t rank) noexcept nogil:
        """No bounds are handed on over binary features (-1): one threshold each."""
        return -1

    cdef void candidates(self, Node* node, int f, vector[Cand]* out) noexcept nogil:
        cdef int nn = node.size, ml = self.min_leaf
        cdef int32_t* cc = &self.cl[0]
        cdef int n_hi = self._high_counts(node, f, cc)
        cdef Cand c
        if 0 < n_hi < nn and nn - n_hi >= ml and n_hi >= ml:
            c.score = gini_high(node.counts, cc, self.K, nn, n_hi)
            c.f = f
            c.pos = nn - n_hi
            c.lo = 0
            c.hi = 1
            out.push_back(c)

    cdef void partition(self, int level, Node* node, int f, int pos, Node* out) noexcept nogil:
        """The children are the node's mask without and with feature f."""
        cdef int W = self.words, w, c
        cdef uint64_t* mask = node.mask
        cdef uint64_t* F = &self.feature_bits[<size_t>f * W]
        cdef uint64_t* left = &self.child_masks[level][0]
        cdef uint64_t* right = left + W
        out[0].size = pos
        out[1].size = node.size - pos
        out[0].counts = &self.cnt_left[level][0]
        out[1].counts = &self.cnt_right[level][0]
        for w in range(W):
            left[w] = mask[w] & ~F[w]
            right[w] = mask[w] & F[w]
        out[0].elems = NULL
        out[1].elems = NULL
        out[0].mask = left
        out[1].mask = right
        for c in range(self.K):
            out[0].counts[c] = popcount_and(left, &self.class_bits[<size_t>c * W], W)
            out[1].counts[c] = node.counts[c] - out[0].counts[c]
        self._mask_hash(left, &out[0].h1, &out[0].h2)
        self._mask_hash(right, &out[1].h1, &out[1].h2)

    cdef int32_t* _int_counts(self, Node* node) noexcept nogil:
        """The node's class counts as integers, for the counting solvers' loops."""
        cdef int c
        cdef int32_t* out = &self.node_counts[0]
        for c in range(self.K):
            out[c] = <int32_t>node.counts[c]
        return out

    cdef void _mask_hash(self, uint64_t* mask, uint64_t* h1, uint64_t* h2) noexcept nogil:
        """Two independent hashes of an instance bitset (the cache key)."""
        cdef uint64_t a = 0, b = 0
        cdef int w
        for w in range(self.words):
            a += mix64(mask[w] + self.rnd1[w])
            b ^= mix64(mask[w] ^ self.rnd2[w])
        h1[0] = a
        h2[0] = b

    # ---------------------------------------------------------- similarity bound

    cdef bint similarity_prune(self, Node* node, int depth, double ub, double* known_lb) noexcept nogil:
        """Raise ``known_lb`` to max over remembered sets D' of this depth of
        lb(D') - |D' minus D| (each removed instance lowers the optimum by at
        most one; added ones cannot lower it); True when it reaches ``ub``."""
        cdef int W = self.words, e, w, removed
        cdef double bound
        cdef uint64_t* old
        if not self.prune:
            return False
        for e in range(self.archive_used[depth]):
            old = &self.archive_masks[depth][<size_t>e * W]
            removed = 0
            for w in range(W):
                removed += popcount64(old[w] & ~node.mask[w])
            bound = self.archive_lbs[depth][e] - removed
            if bound > known_lb[0]:
                known_lb[0] = bound
        return known_lb[0] >= ub - EPS

    cdef void remember(self, Node* node, int depth, double lb) noexcept nogil:
        """Keep a solved set for the similarity bound (ring of ARCHIVE sets per depth)."""
        cdef int W = self.words, e = self.archive_next[depth], w
        cdef uint64_t* slot = &self.archive_masks[depth][<size_t>e * W]
        for w in range(W):
            slot[w] = node.mask[w]
        self.archive_lbs[depth][e] = lb
        self.archive_next[depth] = (e + 1) % ARCHIVE
        if self.archive_used[depth] < ARCHIVE:
            self.archive_used[depth] += 1

    # ------------------------------------------------------- depth one and two

    cdef bint solves_whole(self, Node* node, int depth) noexcept nogil:
        return depth <= self.exact_depth

    cdef bint solve_exact(self, Node* node, int depth, double* best_val, Split1* root,
                          Split1* sides) noexcept nogil:
        if depth == 2:
            return self._depth_two(node, best_val, root, sides)
        sides[0].feature = -1
        sides[1].feature = -1
        return self._depth_one(node, best_val, root)

    cdef void children_depth_one(self, int level, Node* node, int f, int pos, int ml,
                                 Split1* left, Split1* right) noexcept nogil:
        """Partition, then the depth-one optimum of each child (only the
        greedy restart of a rule strategy gets here)."""
        cdef Node child[2]
        cdef Split1* out[2]
        cdef int s
        out[0] = left
        out[1] = right
        self.partition(level, node, f, pos, child)
        for s in range(2):
            out[s].val = leaf_errors(child[s].counts, self.K)   # a leaf
            out[s].feature = -1
            self._depth_one(&child[s], &out[s].val, out[s])

    cdef bint _depth_one(self, Node* node, double* best_val, Split1* out) noexcept nogil:
        """Exact depth-one optimum: one popcount per feature and class."""
        cdef int K = self.K, ml = self.min_leaf, nn = node.size, f, n_hi, root = -1
        cdef int32_t* counts = self._int_counts(node)
        cdef int32_t* cc = &self.cl[0]
        cdef double val
        for f in range(self.p):
            n_hi = self._high_counts(node, f, cc)
            if n_hi < ml or nn - n_hi < ml or n_hi == 0 or n_hi == nn:
                continue
            val = (nn - n_hi - max_count_diff(counts, cc, K)) + (n_hi - max_count(cc, K)) + self.cost
            if val < best_val[0] - EPS:
                best_val[0] = val
                root = f
        if root < 0:
            return False
        out.val = best_val[0]
        out.feature = root
        out.lo = 0
        out.hi = 1
        return True

    cdef bint _depth_two(self, Node* node, double* best_val, Split1* root_out,
                         Split1* sides) noexcept nogil:
        """Exact depth-two optimum (MurTree's frequency-counting solver):
        class counts of every feature pair, then every depth-two tree scored
        from counts alone, O(K p^2)."""
        cdef int p = self.p, K = self.K, ml = self.min_leaf, nn = node.size
        cdef int i, j, c
        cdef int n_hi, n_lo, root = -1
        cdef int side_best_j[2]
        cdef int root_j[2]
        cdef double cost = self.cost, err, val
        cdef double side_best[2]
        cdef int32_t* counts = self._int_counts(node)
        cdef int32_t* S = &self.single_counts[0]
        cdef int32_t* P = &self.pair_counts[0]
        cdef int32_t* Si
        cdef int32_t* Sj
        cdef int32_t* Pij
        cdef int a_sz, b_sz, a_max, b_max, cnt_a, cnt_b, side
        self.n_d2 += 1
        self._node_pair_counts(node)
        # score every root feature i with the best depth-one child on each side
        for i in range(p):
            Si = S + i * K
            n_hi = 0
            for c in range(K):
                n_hi += Si[c]
            n_lo = nn - n_hi
            if n_hi < ml or n_lo < ml or n_hi == 0 or n_lo == 0:
                continue
            side_best[0] = n_lo - max_count_diff(counts, Si, K)       # leaf on x_i = low
            side_best[1] = n_hi - max_count(Si, K)                     # leaf on x_i = high
            side_best_j[0] = -1
            side_best_j[1] = -1
            for j in range(p):
                if j == i:
                    continue
                Sj = S + j * K
                Pij = P + (<size_t>i * p + j) * K
                for side in range(2):
                    # the child's instances split by x_j: high part and low part
                    a_sz = 0
                    b_sz = 0
                    a_max = 0
                    b_max = 0
                    for c in range(K):
                        if side == 0:
                            cnt_a = Sj[c] - Pij[c]                      # i low, j high
                            cnt_b = counts[c] - Si[c] - cnt_a           # i low, j low
                        else:
                            cnt_a = Pij[c]                              # i high, j high
                            cnt_b = Si[c] - cnt_a                       # i high, j low
                        a_sz += cnt_a
                        b_sz += cnt_b
                        if cnt_a > a_max:
                            a_max = cnt_a
                        if cnt_b > b_max:
                            b_max = cnt_b
                    if a_sz < ml or b_sz < ml or a_sz == 0 or b_sz == 0:
                        continue
                    err = (a_sz - a_max) + (b_sz - b_max) + cost
                    if err < side_best[side] - EPS:
                        side_best[side] = err
                        side_best_j[side] = j
            val = side_best[0] + side_best[1] + cost
            if val < best_val[0] - EPS:
                best_val[0] = val
                root = i
                root_j[0] = side_best_j[0]
                root_j[1] = side_best_j[1]
        if root < 0:
            return False
        root_out.val = best_val[0]
        root_out.feature = root
        root_out.lo = 0
        root_out.hi = 1
        for side in range(2):
            sides[side].feature = root_j[side]
            sides[side].lo = 0
            sides[side].hi = 1
        return True

    cdef void _pair_counts(self, uint64_t* mask, int32_t* S, int32_t* P) noexcept nogil:
        """Class counts of every feature (S) and feature pair (P) at their high
        values inside ``mask``: popcounts of bitset intersections, O(K p^2 words)."""
        cdef int p = self.p, K = self.K, W = self.words, words = 0, f, i, j, c, w, total, acc
        cdef uint64_t* B = &self.masked[0]
        cdef uint64_t* F = &self.feature_bits[0]
        cdef uint64_t* C = &self.class_bits[0]
        cdef uint64_t* fi
        cdef uint64_t* fj
        # node & feature and node & class, keeping only the words the node occupies
        for w in range(W):
            if mask[w] == 0:
                continue
            for f in range(p):
                B[<size_t>f * W + words] = mask[w] & F[<size_t>f * W + w]
            for c in range(K):
                B[<size_t>(p + c) * W + words] = mask[w] & C[<size_t>c * W + w]
            words += 1
        for i in range(p):
            fi = B + <size_t>i * W
            for c in range(K):
                S[i * K + c] = popcount_and(fi, B + <size_t>(p + c) * W, words)
            for j in range(i + 1, p):
                fj = B + <size_t>j * W
                acc = 0
                for c in range(K - 1):
                    total = 0
                    for w in range(words):
                        total += popcount64(fi[w] & fj[w] & B[<size_t>(p + c) * W + w])
                    P[(<size_t>i * p + j) * K + c] = total
                    acc += total
                total = 0
                for w in range(words):
                    total += popcount64(fi[w] & fj[w])
                P[(<size_t>i * p + j) * K + K - 1] = total - acc
                for c in range(K):
                    P[(<size_t>j * p + i) * K + c] = P[(<size_t>i * p + j) * K + c]

    cdef void _node_pair_counts(self, Node* node) noexcept nogil:
        """single/pair_counts for ``node``: as its parent's counts minus its
        sibling's when those are at hand (the second child of a depth-three
        split), else by counting."""
        cdef size_t m, k
        cdef int32_t* S = &self.single_counts[0]
        cdef int32_t* P = &self.pair_counts[0]
        cdef int32_t* PS
        cdef int32_t* PP
        cdef Node* parent = self.hint_parent
        if (parent != NULL and node.h1 == self.hint_h1 and node.h2 == self.hint_h2
                and self.counted_h1 == self.hint_sib1 and self.counted_h2 == self.hint_sib2):
            if self.parent_h1 != parent.h1 or self.parent_h2 != parent.h2:
                self._pair_counts(parent.mask, &self.parent_single[0], &self.parent_pair[0])
                self.parent_h1 = parent.h1
                self.parent_h2 = parent.h2
            PS = &self.parent_single[0]
            PP = &self.parent_pair[0]
            m = <size_t>self.p * self.K
            for k in range(m):
                S[k] = PS[k] - S[k]
            m = m * self.p
            for k in range(m):
                P[k] = PP[k] - P[k]
            self.n_derived_counts += 1
        else:
            self._pair_counts(node.mask, S, P)
        self.counted_h1 = node.h1
        self.counted_h2 = node.h2

    cdef void hint_sibling(self, Node* parent, int depth, Node* second, Node* first) noexcept nogil:
        """Tell the counting solver that ``second``'s counts are ``parent``'s
        minus ``first``'s (both children of a depth-three split)."""
        if depth == 3:
            self.hint_parent = parent
            self.hint_h1 = second.h1
            self.hint_h2 = second.h2
            self.hint_sib1 = first.h1
            self.hint_sib2 = first.h2

    cdef void clear_hint(self) noexcept nogil:
        self.hint_parent = NULL

    cdef bint pair_children(self, int level, Node* parent, int f, int pos, Node* out) noexcept nogil:
        """Nothing (the caller partitions): depth-two counts already come as
        parent minus sibling (``hint_sibling``)."""
        return False

    cdef bint sweep_due(self, Node* node, int evaluated) noexcept nogil:
        """Never: binary features have one threshold each (nothing to sweep)."""
        return False

    cdef bint sweep_start(self, Node* node, int f1, int32_t* P, int i, int j) noexcept nogil:
        return False

    cdef void sweep_feature(self, Node* node, int f1, int f2, int32_t* P, int i, int j) noexcept nogil:
        pass

    cdef double sweep_value(self, Node* node, int32_t* P, int i, int w) noexcept nogil:
        return INFINITY
