# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""A depth-two node's side maps, kept between D2Split calls (``_side_maps.pxd``)."""
from libc.stdint cimport int32_t, uint64_t
from libc.string cimport memset

from optimaltrees.search.engine._common cimport AHEAD, Elem, prefetch

cimport cython


cdef inline void toggle_sides(uint64_t* S, int W, int32_t* A, int p) noexcept nogil:
    """One row changes sides: its bit in every feature's side map (``A``:
    its position in each feature's order)."""
    cdef int f2, q
    for f2 in range(p):
        q = A[f2]
        S[<size_t>f2 * W + (q >> 6)] ^= <uint64_t>1 << (q & 63)


@cython.final
cdef class SideMaps:
    """The side maps of the depth-two node last scanned: three bits a row
    and feature (two classes; more: two and one per class) and a position
    a row and feature.  The layout holds one; it is off until :meth:`reserve`."""

    def __init__(self, int p, int n_classes, int maps_after, long long gather_entries):
        """``maps_after`` and ``gather_entries``: the engine options of those names."""
        self.p = p
        self.K = n_classes
        self.opt_after = maps_after
        self.opt_gather_entries = gather_entries
        self.f1 = -1

    cdef void reserve(self, int n, bint weighted, int max_depth, double budget_bytes,
                      size_t fixed_bytes):
        """Let depth-two nodes keep their side maps between D2Split calls
        (unweighted rows, up to MAPS_MAX_CLASSES classes, depth two and more)
        when they take at most a quarter of ``budget_bytes`` (the memory
        limit; INFINITY: none) and leave at least half of it beside the
        layout's other buffers (``fixed_bytes``: a limit the search met
        without maps still holds): a position per row and feature, and three
        bits (two classes) or two and one per class.  Allocated now; call
        :meth:`clear` first."""
        cdef size_t words = (<size_t>n + 63) // 64, b
        if weighted or self.K > MAPS_MAX_CLASSES or n < 2 or self.opt_after <= 0 or max_depth < 2:
            return
        cdef size_t entries = <size_t>n * self.p
        # a label map per class (two classes: class 1's alone)
        cdef size_t label_maps = 1 if self.K == 2 else <size_t>self.K
        b = (entries * sizeof(int32_t) + (2 + label_maps) * words * self.p * sizeof(uint64_t)
             + (2 * <size_t>self.K * sizeof(int32_t) if self.K > 2 else 0))
        if <double>b > budget_bytes / 4 or <double>(fixed_bytes + b) > budget_bytes / 2:
            return
        # the ordered copy of the positions, where it pays and fits
        if (self.opt_gather_entries >= 0 and entries >= <size_t>self.opt_gather_entries
                and <double>(b + entries * sizeof(int32_t)) <= budget_bytes / 4
                and <double>(fixed_bytes + b + entries * sizeof(int32_t)) <= budget_bytes / 2):
            self.seq.resize(entries)
            b += entries * sizeof(int32_t)
        self.at.resize(<size_t>n * self.p)
        self.side.resize(words * self.p)
        self.label.resize(label_maps * words * self.p)
        self.change.resize(words * self.p)
        if self.K > 2:
            self.counts.resize(2 * <size_t>self.K)
        self.allowed = True
        self.bytes = b

    cdef void clear(self):
        """No maps: every buffer freed and the counters at zero."""
        self.allowed = False
        self.bytes = 0
        self.elems = NULL
        self.built = False
        self.f1 = -1
        self.seq_ok = False
        self.calls = 0
        self.n_moves = 0
        self.n_gathers = 0
        self.at.clear()
        self.seq.clear()
        self.side.clear()
        self.label.clear()
        self.counts.clear()
        self.change.clear()

    cdef bint use(self, Elem* data, int nn, long long epoch) noexcept nogil:
        """Whether this D2Split call scans the side maps (built on the node's
        ``maps_after``-th call, an engine option).  A node is known by its
        orders' address, its size and ``epoch``, the layout's count of child
        buffer rewrites, so maps never outlive the rows they describe."""
        if not self.allowed:
            return False
        if data != self.elems or nn != self.size or epoch != self.epoch:
            self.elems = data
            self.size = nn
            self.epoch = epoch
            self.calls = 0
            self.built = False
            self.f1 = -1
            self.seq_ok = False
        self.calls += 1
        if self.opt_after <= 0 or self.calls < self.opt_after:
            return False
        if not self.built:
            self._build(data, nn)
        return True

    cdef void _build(self, Elem* data, int nn) noexcept nogil:
        """Every feature's label and change maps of the node (two classes:
        class 1's map, at [f2 * words + w]; more: one per class, at
        [(f2 * K + class) * words + w]), and each row's position in every
        feature's order (for :meth:`move_sides`)."""
        cdef int p = self.p, f2, k, j, w, end, prev
        cdef int W = (nn + 63) >> 6
        cdef Elem* arr
        cdef Elem e
        cdef uint64_t lw, cw
        cdef uint64_t lk[MAPS_MAX_CLASSES]       # three classes and more: each class's bits of the word
        cdef int32_t* at = &self.at[0]
        cdef int K = self.K, c
        cdef bint two = K == 2
        self.words = W
        for f2 in range(p):
            arr = data + <size_t>f2 * nn
            prev = -1
            # a word's bits gather in registers (or-ing each row into memory
            # chained every row's store to the last one's; with more classes
            # the rows of one class chain, as they follow each other less)
            for w in range(W):
                lw = 0
                cw = 0
                if not two:
                    for c in range(K):
                        lk[c] = 0
                k = w * 64
                end = nn - k if nn - k < 64 else 64
                for j in range(end):
                    if k + j + AHEAD < nn:
                        prefetch(at + <size_t>arr[k + j + AHEAD].id * p + f2)
                    e = arr[k + j]
                    at[<size_t>e.id * p + f2] = k + j
                    if two:
                        lw |= <uint64_t>e.label << j
                    else:
                        lk[e.label] |= <uint64_t>1 << j
                    cw |= <uint64_t>(e.rank != prev) << j
                    prev = e.rank
                if two:
                    self.label[<size_t>f2 * W + w] = lw
                else:
                    for c in range(K):
                        self.label[(<size_t>f2 * K + c) * W + w] = lk[c]
                self.change[<size_t>f2 * W + w] = cw
        self.built = True
        self.f1 = -1
        self.seq_ok = False

    cdef void move_sides(self, Elem* data, int nn, int f1, int pos) noexcept nogil:
        """The side maps to the threshold (f1, pos): the rows between it and
        the last threshold of f1 change sides (a bit per feature each), or,
        for a new f1 or where fewer, the maps start over from all rows on
        the side of the larger child.  Each row's positions come from
        ``at``, or, once f1's moves pay for it, from their copy in f1's
        order (``seq``, read in order)."""
        cdef int p = self.p, W = self.words, f2, k, a, b
        cdef Elem* arr = data + <size_t>f1 * nn
        cdef uint64_t* S = &self.side[0]
        cdef int32_t* at = &self.at[0]
        cdef int32_t* A
        cdef int32_t* seq
        cdef int fresh = pos if pos <= nn - pos else nn - pos
        cdef uint64_t last = ~(<uint64_t>0) if (nn & 63) == 0 else (<uint64_t>1 << (nn & 63)) - 1
        if self.f1 != f1:
            self.seq_ok = False
            self.f1_moves = 0
        if self.f1 == f1 and (pos - self.pos if pos >= self.pos else self.pos - pos) <= fresh:
            a = self.pos if self.pos < pos else pos
            b = pos if self.pos < pos else self.pos
        elif pos <= nn - pos:
            memset(S, 0, <size_t>p * W * sizeof(uint64_t))
            a = 0
            b = pos
        else:
            for f2 in range(p):
                memset(S + <size_t>f2 * W, 0xFF, W * sizeof(uint64_t))
                S[<size_t>f2 * W + W - 1] = last
            a = pos
            b = nn
        self.f1_moves += b - a
        if not self.seq_ok and self.seq.size() > 0 and 2 * self.f1_moves >= nn:
            # f1's moves reach half the rows: copy the positions into f1's order
            seq = &self.seq[0]
            for k in range(nn):
                if k + AHEAD < nn:
                    # (a row's positions may straddle two cache lines)
                    A = at + <size_t>arr[k + AHEAD].id * p
                    prefetch(A)
                    prefetch(A + p - 1)
                A = at + <size_t>arr[k].id * p
                for f2 in range(p):
                    seq[<size_t>k * p + f2] = A[f2]
            self.seq_ok = True
            self.n_gathers += 1
        if self.seq_ok:
            seq = &self.seq[0]
            for k in range(a, b):
                toggle_sides(S, W, seq + <size_t>k * p, p)
        else:
            for k in range(a, b):
                if k + AHEAD < b:
                    A = at + <size_t>arr[k + AHEAD].id * p
                    prefetch(A)
                    prefetch(A + p - 1)
                toggle_sides(S, W, at + <size_t>arr[k].id * p, p)
        self.n_moves += b - a
        self.f1 = f1
        self.pos = pos
