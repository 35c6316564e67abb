# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Sorted-order layout: partition, thresholds and the depth-two solver
D2Split (Brita, van der Linden, Demirovic, AAAI 2025, Algorithm 2 with the
implementation notes' corrections)."""
from libc.stdint cimport int64_t, uint16_t
from libc.string cimport memcpy, memset
from libc.math cimport ceil, floor, log2, INFINITY
from libcpp.pair cimport pair
from libcpp.queue cimport priority_queue

from optimaltrees.search.engine._common cimport (
    EPS, NEVER, WIDE_CLASSES, count_errors, count_floor, popcount64, ctz64, clz64, prefetch,
    leaf_errors, now, sum_squares_start, sum_squares_move, weighted_squares_start,
    weighted_squares_move)
from optimaltrees.search.engine._histogram cimport HistScan, score_root_threshold, scores_at

from optimaltrees.search.engine.options import PAIR_MODES, EngineOptions

# the share of root thresholds the histogram solver scores after its
# similarity skips: the cost model's estimate of where the two solvers cross
cdef double HIST_SCORED = 0.05
# ... on nodes of up to SWEEP_SMALL_ROWS rows a third of that, rising to the
# whole between SWEEP_SMALL_ROWS and twice as many (log scale): on small
# nodes a sweep's tree updates are cheap beside the intervals' scans, on
# large ones the scans' pruning still wins for a while
cdef enum:
    SWEEP_SMALL_ROWS = 2048
# Where nodes keep side maps (``reserve_side_maps``) a scan costs far less, so
# only nodes of at least MAPS_SWEEP_ROWS rows sweep, after MAPS_SWEEP_AFTER x
# log2(rows) steps (sweep_after >= 0; -1 still means never): with maps a
# scan is a pass of popcounts, so a sweep pays only on the largest nodes,
# and later there than without maps; smaller nodes never sweep.
cdef double MAPS_SWEEP_AFTER = 6.0
# D2Split keeps side maps (and a label map per class) up to this many classes;
# beyond, a candidate's popcount per class costs more than the row scan
cdef enum:
    MAPS_MAX_CLASSES = 16
cdef enum:
    MAPS_SWEEP_ROWS = 1 << 14


# the similarity bound scans at most SIM_WORDS bitmap words per check (large data: fewer sets)
cdef enum:
    SIM_WORDS = 1 << 17


cdef enum:
    # histograms are built only when every feature has at most this many ranks ...
    HIST_MAX_RANKS = 4096
    # ... and all features' bins times the classes stay below this (the buffers' size)
    HIST_MAX_CELLS = 1 << 22
    # rows ahead whose per-row ranks are prefetched when rows are visited in
    # one feature's order (random ids: a cache miss each on large data)
    AHEAD = 32
    # ... and the depth-two scan prefetches its row flags beyond this many rows
    # (the flag array, a byte a row, no longer stays in L2)
    FAR_ROWS = 1 << 18
    # class floors (split_floor) sort the classes once per scan: up to this many
    FLOOR_MAX_CLASSES = 256


# a depth-three parent's prefix snapshots (bins^2 x classes int32 counts) are
# kept only up to this many cells (64 MB; e.g. 10 features x 256 bins, 2 classes: 52 MB)
cdef double SNAP_MAX_CELLS = 16777216.0


cdef inline void _offer(int err, int prefix_err, int cnt_s, int feature, int lo, int hi,
                        int* target, int* skip, Split1* out) noexcept nogil:
    """Record a D2Split candidate of one child, or skip the positions it rules out."""
    if err < target[0]:
        target[0] = err
        out.feature = feature
        out.lo = lo
        out.hi = hi
        skip[0] = NEVER if err == 0 else cnt_s + 1
    elif prefix_err >= target[0]:
        # the prefix's error never decreases along the scan: nothing later wins
        skip[0] = NEVER
    else:
        # each further instance of this child changes the error by at most one
        skip[0] = cnt_s + (err - target[0]) + 1


cdef inline bint _offer_side(int err, int prefix_err, int cnt_s, int feature, int lo, int hi, int s,
                             int* target, int* skip, Split1** out, int* skip_l, int* skip_r) noexcept nogil:
    """:func:`_offer` for the scan's side s (1 left child, 0 right); the
    scan's copies of both sides' next positions; True when neither side
    can improve further along the scan."""
    _offer(err, prefix_err, cnt_s, feature, lo, hi, &target[s], &skip[s], out[s])
    skip_l[0] = skip[1]
    skip_r[0] = skip[0]
    return skip_l[0] == NEVER and skip_r[0] == NEVER


cdef inline void _toggle_sides(uint64_t* S, int W, int32_t* A, int p) noexcept nogil:
    """One row changes sides: its bit in every feature's side map (``A``:
    its position in each feature's order)."""
    cdef int f2, q
    for f2 in range(p):
        q = A[f2]
        S[<size_t>f2 * W + (q >> 6)] ^= <uint64_t>1 << (q & 63)


# switch shares are kept per (f1, f2) pair up to this many features, per f2 beyond
cdef int SWITCH_PAIRS_MAX = 1024


cdef inline void _histogram(int32_t* H, size_t cells, Elem* arr, int n, uint16_t* RR, int32_t* off,
                            int p, int K) noexcept nogil:
    """``H`` (``cells`` counts, by bin then class) becomes the histogram of
    the ``n`` rows ``arr``: each row's rank on every feature, from the
    row-major ranks ``RR`` (fetched ahead: rows come in random id order)."""
    cdef int k, f
    cdef uint16_t* rr
    memset(H, 0, cells * sizeof(int32_t))
    for k in range(n):
        if k + AHEAD < n:
            prefetch(RR + <size_t>arr[k + AHEAD].id * p)
        rr = RR + <size_t>arr[k].id * p
        for f in range(p):
            H[(off[f] + rr[f]) * K + arr[k].label] += 1


cdef inline int _add_rank(int32_t* H, Elem* arr, int k, int n, int rank, uint16_t* RR, int32_t* off,
                          int p, int K, int32_t* per_class) noexcept nogil:
    """Add to ``H`` the rows ``arr[k:]`` of rank ``rank`` (the scan's
    feature's, consecutive from k) as :func:`_histogram` does, counting
    them by class in ``per_class`` too (unless NULL); the first row past them."""
    cdef int f
    cdef uint16_t* rr
    while k < n and arr[k].rank == rank:
        if k + AHEAD < n:
            prefetch(RR + <size_t>arr[k + AHEAD].id * p)
        rr = RR + <size_t>arr[k].id * p
        for f in range(p):
            H[(off[f] + rr[f]) * K + arr[k].label] += 1
        if per_class != NULL:
            per_class[arr[k].label] += 1
        k += 1
    return k


cdef inline void _side_state(bint masked, int s, int k, int n_left, int skip_l, int skip_r, int prev_l,
                             int prev_r, int* cnt_s, int* skip_s, int* prev_s) noexcept nogil:
    """The scan's state of the row's side s (1 left child, 0 right) at
    position k: rows of that side passed, its next scored position and its
    previous rank.  ``masked``: picked with bit masks, not branches (a
    constant at each call: the compiler makes both loops)."""
    cdef int m
    if masked:
        m = -s
        cnt_s[0] = (k - n_left) + ((2 * n_left - k) & m)
        skip_s[0] = skip_r ^ ((skip_l ^ skip_r) & m)
        prev_s[0] = prev_r ^ ((prev_l ^ prev_r) & m)
    else:
        cnt_s[0] = n_left if s else k - n_left
        skip_s[0] = skip_l if s else skip_r
        prev_s[0] = prev_l if s else prev_r


cdef inline void _pass_rank(bint masked, int s, int rank, int* prev_l, int* prev_r) noexcept nogil:
    """The row of rank ``rank`` on side s is passed: that side's previous rank."""
    cdef int m
    if masked:
        m = -s
        prev_l[0] = prev_l[0] ^ ((rank ^ prev_l[0]) & m)
        prev_r[0] = rank ^ ((prev_r[0] ^ rank) & m)
    elif s:
        prev_l[0] = rank
    else:
        prev_r[0] = rank


cdef struct BitCursor:       # one child's state along a two-class D2Split scan over bit maps
    int c                     # the child's rows before its next candidate position
    int rows                  # the child's rows in the words passed
    int ones                  # ... of which class 1
    int last                  # the last of them (-1: none yet)
    bint seek                 # the next candidate lies past the next change of f2's value
    bint done                 # nothing further along the scan can win


cdef extern from *:
    """
    /* The position of the r-th (from 0) set bit of a word: the two-class
       D2Split scan turns every candidate's row count into a position with it.
       PDEP does it in one instruction where the CPU has a fast one (BMI2 on
       Intel since Haswell, AMD since Zen 3; Zen 1-2 and Hygon microcode it
       in hundreds of cycles, other vendors are unmeasured); the portable version is a binary search on
       popcounts, whose branches the scan cannot predict.  The choice is made
       at run time (cpuid), so the same build runs on any x86-64 CPU; inline
       assembly needs no -mbmi2, which would let the compiler use BMI2 anywhere. */
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #include <cpuid.h>
    #define OT_HAVE_PDEP 1
    static int ot_pdep_cpu(int fast_only) {
        unsigned a, b, c, d, family, vendor;
        if (__get_cpuid_max(0, &vendor) < 7) return 0;
        __cpuid_count(7, 0, a, b, c, d);
        if (!(b & (1u << 8))) return 0;                       /* no BMI2 */
        if (!fast_only) return 1;
        if (vendor == 0x756e6547u) return 1;                  /* "GenuineIntel": fast wherever it exists */
        if (vendor == 0x68747541u) {                          /* "AuthenticAMD": fast from Zen 3 (family 19h) */
            __cpuid(1, a, b, c, d);
            family = (a >> 8) & 0xFu;
            if (family == 0xFu) family += (a >> 20) & 0xFFu;
            return family >= 0x19u;
        }
        return 0;            /* Hygon (Zen 1), VIA, Zhaoxin, ...: speed unknown or slow */
    }
    #else
    #define OT_HAVE_PDEP 0
    static int ot_pdep_cpu(int fast_only) { return 0; }
    #endif
    static inline int ot_select_portable(unsigned long long m, int r) {
        int pos = 0, width = 32, pc;
        if (r < 8) {
            while (r > 0) { m &= m - 1; r--; }
            return __builtin_ctzll(m);
        }
        while (width > 0) {
            pc = __builtin_popcountll(m & ((1ULL << width) - 1));
            if (r >= pc) { r -= pc; m >>= width; pos += width; }
            width >>= 1;
        }
        return pos + __builtin_ctzll(m);
    }
    static inline int ot_select64(unsigned long long m, int r, int use_pdep) {
    #if OT_HAVE_PDEP
        if (use_pdep) {
            unsigned long long out;
            __asm__("pdepq %2, %1, %0" : "=r"(out) : "r"(1ULL << r), "r"(m));
            return __builtin_ctzll(out);
        }
    #endif
        return ot_select_portable(m, r);
    }
    """
    int _select_bit "ot_select64" (uint64_t m, int r, int use_pdep) noexcept nogil    # r < popcount(m)
    int _select_portable "ot_select_portable" (uint64_t m, int r) noexcept nogil
    int pdep_cpu "ot_pdep_cpu" (int fast_only) noexcept nogil     # 1: the CPU has a (fast) PDEP


def pdep_choice(str mode) -> bool:
    """Whether the two-class scan uses PDEP under the ``select`` option
    (:class:`~optimaltrees.search.engine.options.EngineOptions`): ``"auto"``
    where the CPU has a fast one, ``"pdep"`` wherever it has one (else a
    ValueError), ``"portable"`` never."""
    if mode == "auto":
        return bool(pdep_cpu(1))
    if mode == "pdep":
        if not pdep_cpu(0):
            raise ValueError("this CPU (or build) has no PDEP instruction")
        return True
    if mode == "portable":
        return False
    raise ValueError(f"select mode must be 'auto', 'pdep' or 'portable', got {mode!r}")


def select_bit(uint64_t m, int r, str mode="auto") -> tuple:
    """The r-th set bit's position of m by the ``mode`` (:func:`pdep_choice`)
    and by the portable search (for tests; r < popcount(m))."""
    if r < 0 or r >= popcount64(m):
        raise ValueError("r must be below the word's popcount")
    return _select_bit(m, r, pdep_choice(mode)), _select_portable(m, r)


cdef inline void _scan_word(Elem* arr, int w, uint64_t m, uint64_t o, uint64_t bnd, BitCursor* cur, int s,
                            int* ntot, int32_t* fq, int* target, int* skip, Split1* out, int ml,
                            int f2, int K, uint64_t* labels, int W, int32_t* cs, bint pdep) noexcept nogil:
    """The candidates of the child on side s in word w of the scan (``m``:
    its rows there, ``bnd``: its rows whose f2 value differs from the row
    before), offered to :func:`_offer`; then the word is passed.  Two
    classes (``K`` 2 at the call: the compiler drops the other branch):
    ``o`` the word's rows of class 1, and the split's errors over two
    different classes (the improvements are the scan over rows').  More:
    ``labels`` a map per class ([class * W + w]) and ``cs`` the child's
    class counts in the words passed, and the errors of the prefix's and
    the suffix's largest classes (:func:`_scan_classes`')."""
    cdef int r, b, a, one, rest, prefix_err, err, n = ntot[s], first, c, pre, sf, best_c, suf
    cdef int pc = popcount64(m)
    cdef uint64_t y, after
    cdef int32_t* fqs = fq + s * K
    if cur.seek:
        if bnd == 0:
            # the value of the last candidate runs through the word: no split here
            first = cur.rows + pc
        else:
            first = cur.rows + popcount64(m & ((<uint64_t>1 << ctz64(bnd)) - 1))
            cur.seek = False
        if cur.c < first:
            cur.c = first
    while True:
        if cur.c >= n or n - cur.c < ml:
            cur.done = True
            return
        r = cur.c - cur.rows
        if r >= pc:
            break                 # the candidate lies beyond this word
        b = w * 64 + _select_bit(m, r, pdep)
        y = m & ((<uint64_t>1 << (b & 63)) - 1)
        a = w * 64 + 63 - clz64(y) if y != 0 else cur.last
        if arr[a].rank == arr[b].rank:
            # not a split of the child: its first row past the next change of value
            after = bnd & (~(<uint64_t>0) << (b & 63) << 1)
            if after != 0:
                cur.c = cur.rows + popcount64(m & ((<uint64_t>1 << ctz64(after)) - 1))
                continue
            cur.c = cur.rows + pc
            cur.seek = True
            break
        if K == 2:
            one = cur.ones + popcount64(y & o)
            rest = fq[2 * s + 1] - one
            prefix_err = one if one < cur.c - one else cur.c - one
            # the split's errors with its two leaves naming different classes (the
            # same class twice is the leaf's errors, never below the target as costs
            # are >= 0): it moves by at most one a row, so its skip is sound, and at
            # least as long as the one from the split's errors with the leaf's
            err = one + (n - cur.c - rest)
            if cur.c - one + rest < err:
                err = cur.c - one + rest
        else:
            best_c = 0
            suf = 0
            for c in range(K):
                pre = cs[c] + popcount64(y & labels[<size_t>c * W + w])
                if pre > best_c:
                    best_c = pre
                sf = fqs[c] - pre
                if sf > suf:
                    suf = sf
            prefix_err = cur.c - best_c
            err = prefix_err + (n - cur.c - suf)
        _offer(err, prefix_err, cur.c, f2, arr[a].rank, arr[b].rank, target, skip, out)
        if skip[0] == NEVER:
            cur.done = True
            return
        cur.c = skip[0]
    cur.rows += pc
    if K == 2:
        cur.ones += popcount64(m & o)
    elif m != 0:
        for c in range(K):
            cs[c] += popcount64(m & labels[<size_t>c * W + w])
    if m != 0:
        cur.last = w * 64 + 63 - clz64(m)


cdef inline void _cursors_start(BitCursor* cur, int* skip) noexcept nogil:
    """Both children's cursors at the start of a two-class scan."""
    cdef int j
    for j in range(2):
        cur[j].c = skip[j]
        cur[j].rows = 0
        cur[j].ones = 0
        cur[j].last = -1
        cur[j].seek = False
        cur[j].done = skip[j] == NEVER


cdef inline void _scan_two_bits(Elem* arr, int nn, uint8_t* flag, bint far, int* ntot,
                                int32_t* fq, int* target, int* skip, Split1** out, int ml,
                                int f2, bint pdep) noexcept nogil:
    """D2Split's scan of feature f2 with two classes: 64 rows at a time,
    their sides, labels and changes of f2's value become three bit maps,
    and each child visits only the positions its skip leaves
    (:func:`_scan_word`; the children's scans never interact), jumping
    over runs of equal values: rows skipped cost a bit each, not a step.
    The skip is the distance to the target of the split's errors with
    leaves naming two different classes; the same class twice is the
    leaf, which never goes below the target, and counting it (as the
    scan over rows did) made the skip one row wherever the leaf is close
    to the target, so on skewed classes every position was scored
    (wilt at depth 3: 67 % of the rows; now 1 %).  Each child's improvements
    (error and position, in order) are the row scan's, so are its answers;
    only far fewer positions are scored."""
    cdef int w, k, j, end, prev = -1
    cdef uint64_t sb, ob, bb, valid
    cdef Elem* e
    cdef BitCursor cur[2]
    _cursors_start(cur, skip)
    k = 0
    w = 0
    while k < nn and not (cur[0].done and cur[1].done):
        sb = 0
        ob = 0
        bb = 0
        end = k + 64 if k + 64 < nn else nn
        for j in range(end - k):
            e = arr + k + j
            if far and k + j + AHEAD < nn:
                prefetch(flag + arr[k + j + AHEAD].id)
            sb |= <uint64_t>flag[e.id] << j
            ob |= <uint64_t>e.label << j
            bb |= <uint64_t>(e.rank != prev) << j
            prev = e.rank
        valid = ~(<uint64_t>0) if end - k == 64 else (<uint64_t>1 << (end - k)) - 1
        if not cur[1].done:
            _scan_word(arr, w, sb, ob, bb, &cur[1], 1, ntot, fq, &target[1], &skip[1], out[1], ml, f2,
                       2, NULL, 0, NULL, pdep)
        if not cur[0].done:
            _scan_word(arr, w, ~sb & valid, ob, bb, &cur[0], 0, ntot, fq, &target[0], &skip[0], out[0], ml, f2,
                       2, NULL, 0, NULL, pdep)
        k = end
        w += 1


cdef inline void _scan_two_maps(Elem* arr, int nn, uint64_t* side, uint64_t* ones, uint64_t* change,
                                int* ntot, int32_t* fq, int* target, int* skip, Split1** out, int ml,
                                int f2, bint pdep) noexcept nogil:
    """:func:`_scan_two_bits` over a node's kept maps of f2 (``side``: rows
    in the left child, ``ones``: of class 1, ``change``: f2's value differs
    from the row before; no bit beyond the last row): the same words, read
    instead of built from the rows, so a scan costs a word per 64 rows
    until both children are done.  Each child scans on its own (they never
    interact), and the words before its next candidate pass in a tight
    loop: two popcounts a word (on large nodes most words hold no
    candidate: the skips are long)."""
    cdef int w, s, words = (nn + 63) >> 6, pc, last_w
    cdef uint64_t flip, m, last_m, valid
    cdef BitCursor cur[2]
    cdef BitCursor* c
    _cursors_start(cur, skip)
    for s in range(1, -1, -1):
        c = &cur[s]
        flip = <uint64_t>0 if s == 1 else ~(<uint64_t>0)     # the right child's rows: not in side
        w = 0
        while w < words and not c.done:
            valid = ~(<uint64_t>0) if w < words - 1 or (nn & 63) == 0 else (<uint64_t>1 << (nn & 63)) - 1
            m = (side[w] ^ flip) & valid
            if not c.seek and c.c < ntot[s] and ntot[s] - c.c >= ml:
                # words before the candidate: counted, not scanned (c.c is fixed here)
                last_w = -1
                last_m = 0
                while True:
                    pc = popcount64(m)
                    if c.c - c.rows < pc:
                        break
                    c.rows += pc
                    c.ones += popcount64(m & ones[w])
                    if m != 0:
                        last_w = w
                        last_m = m
                    w += 1
                    if w == words:
                        break
                    valid = ~(<uint64_t>0) if w < words - 1 or (nn & 63) == 0 else (<uint64_t>1 << (nn & 63)) - 1
                    m = (side[w] ^ flip) & valid
                if last_w >= 0:
                    c.last = last_w * 64 + 63 - clz64(last_m)
                if w == words:
                    break
            _scan_word(arr, w, m, ones[w], change[w], c, s, ntot, fq, &target[s], &skip[s], out[s], ml, f2,
                       2, NULL, 0, NULL, pdep)
            w += 1


cdef inline void _scan_class_maps(Elem* arr, int nn, int K, uint64_t* side, uint64_t* labels,
                                  uint64_t* change, int32_t* cnt, int* ntot, int32_t* fq, int* target,
                                  int* skip, Split1** out, int ml, int f2, bint pdep) noexcept nogil:
    """:func:`_scan_two_maps` with three classes and more (``labels``: a map
    per class, at [class * words + w]; ``cnt``: scratch, two sides x K):
    a child's words before its next candidate pass with a popcount per
    class, and a candidate's class counts are popcounts of its word's
    prefix; its errors are :func:`_scan_classes`' (the largest class of the
    prefix and of the suffix), so are the improvements and the answers."""
    cdef int W = (nn + 63) >> 6, w, s, c
    cdef uint64_t flip, valid
    cdef int32_t* cs
    cdef BitCursor cur
    for s in range(1, -1, -1):
        if skip[s] == NEVER:
            continue
        cs = cnt + s * K
        for c in range(K):
            cs[c] = 0
        cur.c = skip[s]
        cur.rows = 0
        cur.last = -1
        cur.seek = False
        cur.done = False
        flip = <uint64_t>0 if s == 1 else ~(<uint64_t>0)     # the right child's rows: not in side
        w = 0
        while w < W and not cur.done:
            valid = ~(<uint64_t>0) if w < W - 1 or (nn & 63) == 0 else (<uint64_t>1 << (nn & 63)) - 1
            _scan_word(arr, w, (side[w] ^ flip) & valid, 0, change[w], &cur, s, ntot, fq, &target[s], &skip[s],
                       out[s], ml, f2, K, labels, W, cs, pdep)
            w += 1


cdef inline int _scan_classes(Elem* arr, int nn, int K, uint8_t* flag, int* ntot, int32_t* fq,
                              int32_t* cc, int* target, int* skip, Split1** out, int ml, int f2,
                              bint masked) noexcept nogil:
    """D2Split's scan of feature f2 with any number of classes: per-class
    counts in memory (``cc``, zeroed by the caller), everything else in
    registers; class maxima only when a position is scored.  ``masked``:
    the row's side (``flag``: 1 left child, 0 right) selects its state
    with bit masks, not branches; a constant at each call, so the compiler
    makes two loops.  Returns how often the side switched along the scan."""
    cdef int k, c, s, ps = 0, cnt_s, pv, sk, suf, best_c, prefix_err, err, switches = 0
    cdef int n_left = 0, prev_l = -1, prev_r = -1, skip_l = skip[1], skip_r = skip[0]
    cdef int32_t* fqs
    cdef int32_t* ccs
    cdef Elem e
    for k in range(nn):
        e = arr[k]
        s = flag[e.id]
        switches += s ^ ps
        ps = s
        _side_state(masked, s, k, n_left, skip_l, skip_r, prev_l, prev_r, &cnt_s, &sk, &pv)
        if cnt_s >= sk and e.rank != pv and ntot[s] - cnt_s >= ml:
            fqs = fq + s * K
            ccs = cc + s * K
            suf = 0
            best_c = 0
            for c in range(K):
                if fqs[c] - ccs[c] > suf:
                    suf = fqs[c] - ccs[c]
                if ccs[c] > best_c:
                    best_c = ccs[c]
            prefix_err = cnt_s - best_c
            err = prefix_err + (ntot[s] - cnt_s - suf)
            if _offer_side(err, prefix_err, cnt_s, f2, pv, e.rank, s, target, skip, out, &skip_l, &skip_r):
                break
        _pass_rank(masked, s, e.rank, &prev_l, &prev_r)
        n_left += s
        cc[s * K + e.label] += 1
    return switches


cdef inline void _swap_to(int32_t* order, int32_t* place, int c, int i) noexcept nogil:
    """Class c to index i of ``order``, the class there to c's old index
    (``place``: each class's index in ``order``)."""
    cdef int j = place[c], d = order[i]
    order[i] = c
    order[j] = d
    place[d] = j
    place[c] = i


cdef inline void _sweep_combine(SweepCell* T, size_t x) noexcept nogil:
    """Segment-tree node x from its children: sums add, prefix extremes
    are the left child's or the left child's sum plus the right child's."""
    cdef SweepCell* a = T + 2 * x
    cdef SweepCell* b = a + 1
    T[x].sum_l = a.sum_l + b.sum_l
    T[x].min_l = a.min_l if a.min_l < a.sum_l + b.min_l else a.sum_l + b.min_l
    T[x].max_l = a.max_l if a.max_l > a.sum_l + b.max_l else a.sum_l + b.max_l
    T[x].sum_r = a.sum_r + b.sum_r
    T[x].min_r = a.min_r if a.min_r < a.sum_r + b.min_r else a.sum_r + b.min_r
    T[x].max_r = a.max_r if a.max_r > a.sum_r + b.max_r else a.sum_r + b.max_r


cdef inline void _sweep_bottom(SweepCell* T, int32_t* a, size_t x) noexcept nogil:
    """Segment-tree node x of the bottom level from its two leaves' sums
    ``a`` ([2 * leaf + side], side 0 the left child's rows, 1 the right's):
    a leaf's least and largest prefix sums are its sum."""
    T[x].sum_l = a[0] + a[2]
    T[x].min_l = a[0] if a[0] < a[0] + a[2] else a[0] + a[2]
    T[x].max_l = a[0] if a[0] > a[0] + a[2] else a[0] + a[2]
    T[x].sum_r = a[1] + a[3]
    T[x].min_r = a[1] if a[1] < a[1] + a[3] else a[1] + a[3]
    T[x].max_r = a[1] if a[1] > a[1] + a[3] else a[1] + a[3]


cdef inline int _sweep_errors(int zeros, int ones, int lo, int hi) noexcept nogil:
    """A child's fewest errors over splits whose prefix sums (+1 class 0,
    -1 class 1) reach lo and hi: class 1 left of the split (ones + s) or
    class 0 left (zeros - s); the empty prefix (s = 0) is the leaf's."""
    if lo > 0:
        lo = 0
    if hi < 0:
        hi = 0
    return ones + lo if ones + lo < zeros - hi else zeros - hi


cdef inline double _sweep_child(int zeros, int ones, int split_err, double cost) noexcept nogil:
    """A depth-one child's objective as D2Split gives it: its best split
    (``split_err`` errors plus the cost) where that beats the leaf, else the leaf."""
    cdef int leaf = zeros if zeros < ones else ones
    cdef int target = <int>ceil(leaf - cost - EPS)
    if zeros + ones < 2:
        target = 0
    if split_err < target:
        return split_err + cost
    return leaf


cdef class SortedLayout:
    """Every feature's sorted order of the training set, and per recursion
    level one buffer for the two children of the split being tried, so the
    search allocates nothing while it runs."""

    def __init__(self, int32_t[:, ::1] order, int32_t[:, ::1] rank, int32_t[::1] y,
                 int n_classes, int max_depth, double cost, int min_leaf,
                 int64_t[:, ::1] random_words, double[::1] weights=None, options=None):
        """order[f, k]: id of the k-th instance sorted by feature f (stable);
        rank[f, i]: unique-value rank of instance i on feature f; y: labels
        0..K-1; random_words: (2, >= n) random integers for the set hashes;
        weights: each row's weight (finite, > 0), or None for 1 each;
        options: an :class:`~optimaltrees.search.engine.options.EngineOptions`
        (None: the defaults)."""
        cdef int f, k, i, lvl, levels = max(max_depth, 1) + 1
        cdef Elem e
        if options is None:
            options = EngineOptions()
        self.opt_hist_scans = options.histogram_scans
        self.opt_hist_min_rows = options.histogram_min_rows
        self.opt_pairs = PAIR_MODES.index(options.pairs)
        self.opt_sweep_after = options.sweep_after
        self.opt_sim_min_rows = options.similarity_min_rows
        self.opt_switchy = options.scan_switch_rate
        self.opt_maps_after = options.maps_after
        self.opt_gather_entries = options.gather_entries
        self.opt_pdep = pdep_choice(options.select)
        self.init_sizes(order.shape[1], order.shape[0], n_classes, min_leaf, cost, 1, y)
        self.snap_size = -1
        self.seen_size = -1
        self.pair[0].size = -1
        self.pair[1].size = -1
        self.weighted = weights is not None
        self.has_floors = not self.weighted and self.K <= FLOOR_MAX_CLASSES
        if self.weighted:
            if weights.shape[0] != self.n:
                raise ValueError(f"{weights.shape[0]} weights for {self.n} rows")
            self.weight.resize(self.n)
            self.root_counts.assign(self.K, 0.0)
            for i in range(self.n):
                if not (weights[i] > 0.0 and weights[i] < INFINITY):
                    raise ValueError(f"row {i}'s weight {weights[i]} is not finite and positive")
                self.weight[i] = weights[i]
                self.root_counts[y[i]] += weights[i]
            self.wq.resize(2 * self.K)
            self.wc.resize(2 * self.K)
        self.root.resize(<size_t>self.n * self.p)
        for f in range(self.p):
            for k in range(self.n):
                i = order[f, k]
                e.id = i
                e.rank = rank[f, i]
                e.label = y[i]
                self.root[<size_t>f * self.n + k] = e
        self.children.resize(levels)
        self.cnt_left.resize(levels)
        self.cnt_right.resize(levels)
        for lvl in range(levels):
            # only nodes with >= 3 levels left partition (depth-two nodes use D2Split)
            if lvl <= max_depth - 3:
                self.children[lvl].resize(<size_t>self.n * self.p)
            self.cnt_left[lvl].resize(self.K)
            self.cnt_right[lvl].resize(self.K)
        self.flag.resize(self.n)
        self.rnd1.resize(self.n)
        self.rnd2.resize(self.n)
        for i in range(self.n):
            self.rnd1[i] = <uint64_t>random_words[0, i] * 2 + 1
            self.rnd2[i] = <uint64_t>random_words[1, i]
        self.fql.resize(2 * self.K)
        self.cl.resize(2 * self.K)
        self.switch_stride = self.p if self.p <= SWITCH_PAIRS_MAX else 0
        self.switch_rate.assign(<size_t>self.p * (self.switch_stride if self.switch_stride else 1), 0.0)
        if self.K > WIDE_CLASSES:
            self.class_hist.resize(2 * (<size_t>self.n + 1))
        if self.has_floors and self.K > 2 and max_depth >= 2:
            self.floor_rank.resize(4 * <size_t>self.K + 2 * (<size_t>self.n + 1))
        self._init_histograms(rank, max_depth)
        # the similarity bound: sound without leaf sizes (a removed row lowers the
        # optimum by at most one) and, as written, for rows of weight one
        self.sim_words = (self.n + 63) // 64
        self.sim_capacity = 0 if (min_leaf > 1 or self.weighted or options.similarity_sets <= 0) else min(
            options.similarity_sets, max(4, SIM_WORDS // self.sim_words))
        self.sim_masks.resize(levels + 1)
        self.sim_lbs.resize(levels + 1)
        self.sim_used.assign(levels + 1, 0)
        self.sim_next.assign(levels + 1, 0)
        if self.sim_capacity > 0:
            for lvl in range(2, levels + 1):
                self.sim_masks[lvl].resize(<size_t>self.sim_capacity * self.sim_words)
                self.sim_lbs[lvl].resize(self.sim_capacity)
            self.sim_cur.resize(self.sim_words)
        self.fixed_bytes = self.memory_bytes()

    cdef void _init_histograms(self, int32_t[:, ::1] rank, int max_depth):
        """Ready the histogram depth-two solver when every feature has few
        ranks (unweighted rows only: the histograms count rows)."""
        cdef int f, i, r, most = 0
        cdef long long bins = 0
        self.hist_ready = False
        if self.weighted or max_depth < 2 or self.p == 0:
            return
        self.rank_offset.resize(self.p + 1)
        for f in range(self.p):
            r = 0
            for i in range(self.n):
                if rank[f, i] > r:
                    r = rank[f, i]
            r += 1
            if r > most:
                most = r
            self.rank_offset[f] = <int32_t>bins
            bins += r
        self.rank_offset[self.p] = <int32_t>bins
        if most > HIST_MAX_RANKS or bins * self.K > HIST_MAX_CELLS:
            self.rank_offset.clear()
            return
        self.hist_ready = True
        self.hist_bins = <int>bins
        self.row_rank.resize(<size_t>self.n * self.p)
        for f in range(self.p):
            for i in range(self.n):
                self.row_rank[<size_t>i * self.p + f] = <uint16_t>rank[f, i]
        self.hist_left.resize(<size_t>bins * self.K)
        self.hist_total.resize(<size_t>bins * self.K)
        self.hist_scratch.resize(5 * self.K)

    cdef size_t memory_bytes(self) noexcept nogil:
        cdef size_t b = 0, lvl
        b += (self.rnd1.capacity() + self.rnd2.capacity()) * sizeof(uint64_t)
        b += self.base_bytes()
        b += (self.fql.capacity() + self.cl.capacity()
              + self.class_hist.capacity() + self.floor_rank.capacity()) * sizeof(int32_t)
        b += (self.weight.capacity() + self.wq.capacity() + self.wc.capacity()) * sizeof(double)
        b += self.root.capacity() * sizeof(Elem) + self.flag.capacity()
        b += (self.rank_offset.capacity() + self.hist_left.capacity()
              + self.hist_total.capacity() + self.hist_scratch.capacity()) * sizeof(int32_t)
        b += self.row_rank.capacity() * sizeof(uint16_t) + self.switch_rate.capacity() * sizeof(float)
        # the snapshots count from when they are allowed (they are allocated at their first use)
        b += (self.snap_cells + self.snap_total.capacity() + self.hist_other.capacity()) * sizeof(int32_t)
        b += self.sweep_bytes + self.maps_bytes
        b += self.sim_cur.capacity() * sizeof(uint64_t)
        for lvl in range(self.sim_masks.size()):
            b += self.sim_masks[lvl].capacity() * sizeof(uint64_t) + self.sim_lbs[lvl].capacity() * sizeof(double)
        for lvl in range(self.children.size()):
            b += self.children[lvl].capacity() * sizeof(Elem)
            b += (self.cnt_left[lvl].capacity() + self.cnt_right[lvl].capacity()) * sizeof(double)
        return b

    cdef void init_root(self, Node* root) noexcept nogil:
        cdef int i
        root.elems = &self.root[0]
        root.mask = NULL
        root.size = self.n
        root.counts = &self.root_counts[0]
        root.h1 = 0
        root.h2 = 0
        for i in range(self.n):
            root.h1 += self.rnd1[i]
            root.h2 ^= self.rnd2[i]

    cdef void gini_split(self, Node* node, int f, double* score, int32_t* pos) noexcept nogil:
        """Feature f's split of least weighted Gini impurity (INFINITY, -1: none)."""
        cdef int nn = node.size, k
        cdef Elem* arr = node.elems + <size_t>f * nn
        cdef int32_t* cc = &self.cl[0]
        cdef double best = INFINITY, sl, sr, g
        cdef int32_t best_pos = -1
        if self.weighted:
            self._gini_weighted(node, f, score, pos, NULL)
            return
        sum_squares_start(node.counts, cc, self.K, &sl, &sr)
        for k in range(nn):
            if k > 0 and arr[k].rank != arr[k - 1].rank:
                g = (k - sl / k) + ((nn - k) - sr / (nn - k))
                if g < best:
                    best = g
                    best_pos = k
            sum_squares_move(node.counts, cc, arr[k].label, &sl, &sr)
        score[0] = best
        pos[0] = best_pos

    cdef int thresholds(self, Node* node, int f, int32_t* P, double* D) noexcept nogil:
        """Every position where feature f's value changes, leaving both sides
        at least min_leaf instances, and the weight left of each."""
        cdef int nn = node.size, ml = self.min_leaf, k, m = 0
        cdef Elem* arr = node.elems + <size_t>f * nn
        cdef double* wt
        cdef double left = 0.0
        if self.weighted:
            wt = &self.weight[0]
            left = wt[arr[0].id]
            for k in range(1, nn):
                if arr[k].rank != arr[k - 1].rank and k >= ml and nn - k >= ml:
                    P[m] = k
                    D[m] = left
                    m += 1
                left += wt[arr[k].id]
            return m
        for k in range(1, nn):
            if arr[k].rank != arr[k - 1].rank and k >= ml and nn - k >= ml:
                P[m] = k
                D[m] = k
                m += 1
        return m

    cdef double split_floor(self, Node* node, int f, int child_depth, int32_t* P, int m,
                            double* out) noexcept nogil:
        """The class floor of feature f's splits: the rows of each child
        outside its 2^child_depth largest classes (which is all its leaves
        can name).  With ``out``, the floor at each of the m split positions
        P (ascending) too.  Returns the least over every split (INFINITY:
        none); 0 with weighted rows (not tracked) or leaves for every class.

        One pass along f's order moves a row at a time from the right child
        to the left; each side keeps its classes sorted by count, with the
        number of classes above each count, so a move re-sorts in O(1) and
        the sum of the largest counts changes by one or not at all."""
        cdef int nn = node.size, ml = self.min_leaf, K = self.K, leaves, k, c, v, i, j, d, w = 0
        cdef int top_l = 0, top_r = 0, total, best = 2147483647, fl
        cdef Elem* arr = node.elems + <size_t>f * nn
        cdef int32_t* cl = &self.cl[0]
        cdef int32_t* cr = cl + K
        cdef int32_t* order_l
        cdef int32_t* order_r
        cdef int32_t* pos_l
        cdef int32_t* pos_r
        cdef int32_t* above_l          # [v]: classes counting more than v on the left
        cdef int32_t* above_r
        if not self.has_floors or self.floor_rank.size() == 0 or child_depth >= 30 or (1 << child_depth) >= K:
            if out != NULL:
                for w in range(m):
                    out[w] = 0.0
            return 0.0
        leaves = 1 << child_depth
        order_l = &self.floor_rank[0]
        order_r = order_l + K
        pos_l = order_r + K
        pos_r = pos_l + K
        above_l = pos_r + K
        above_r = above_l + (self.n + 1)
        # the right child starts as the whole node: classes sorted by count
        d = 0                          # the node's classes with rows, first ...
        for c in range(K):
            cl[c] = 0
            cr[c] = <int32_t>(node.counts[c] + 0.5)
            order_l[c] = c
            pos_l[c] = c
            if cr[c] > 0:
                order_r[d] = c
                d += 1
        v = d
        for c in range(K):             # ... then the empty ones
            if cr[c] == 0:
                order_r[v] = c
                v += 1
        for i in range(1, d):          # insertion sort of the first d, descending (d <= rows)
            c = order_r[i]
            j = i
            while j > 0 and cr[order_r[j - 1]] < cr[c]:
                order_r[j] = order_r[j - 1]
                j -= 1
            order_r[j] = c
        for i in range(K):
            pos_r[order_r[i]] = i
            if i < leaves:
                top_r += cr[order_r[i]]
        i = K
        for v in range(nn + 1):
            while i > 0 and cr[order_r[i - 1]] <= v:
                i -= 1
            above_r[v] = i
            above_l[v] = 0
        for k in range(1, nn):
            c = arr[k - 1].label
            # left: c's count v -> v + 1; it moves to the front of the classes at v
            v = cl[c]
            i = above_l[v]
            _swap_to(order_l, pos_l, c, i)
            above_l[v] = i + 1
            cl[c] = v + 1
            if i < leaves:
                top_l += 1
            # right: c's count v -> v - 1; it moves to the back of the classes at v
            v = cr[c]
            i = above_r[v - 1] - 1
            _swap_to(order_r, pos_r, c, i)
            above_r[v - 1] = i
            cr[c] = v - 1
            if i < leaves:
                top_r -= 1
            if arr[k].rank != arr[k - 1].rank and k >= ml and nn - k >= ml:
                fl = (k - top_l) + (nn - k - top_r)
                if fl < best:
                    best = fl
                if out != NULL:
                    while w < m and P[w] < k:
                        w += 1
                    if w < m and P[w] == k:
                        out[w] = fl
        return INFINITY if best == 2147483647 else <double>best

    cdef void split_ranks(self, Node* node, int f, int pos, int32_t* lo, int32_t* hi) noexcept nogil:
        cdef Elem* arr = node.elems + <size_t>f * node.size
        lo[0] = arr[pos - 1].rank
        hi[0] = arr[pos].rank

    cdef int rank_position(self, Node* node, int f, int32_t rank) noexcept nogil:
        """The split position of rank ``rank``: the node's rows whose rank on f is at most it."""
        cdef Elem* arr = node.elems + <size_t>f * node.size
        cdef int lo = 0, hi = node.size, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if arr[mid].rank <= rank:
                lo = mid + 1
            else:
                hi = mid
        return lo

    cdef void candidates(self, Node* node, int f, vector[Cand]* out) noexcept nogil:
        """Feature f's splits (both sides >= min_leaf) with their Gini scores."""
        cdef int nn = node.size, ml = self.min_leaf, k
        cdef Elem* arr = node.elems + <size_t>f * nn
        cdef int32_t* cc = &self.cl[0]
        cdef double sl, sr
        cdef Cand c
        if self.weighted:
            self._gini_weighted(node, f, NULL, NULL, out)
            return
        sum_squares_start(node.counts, cc, self.K, &sl, &sr)
        for k in range(nn):
            if k > 0 and arr[k].rank != arr[k - 1].rank and k >= ml and nn - k >= ml:
                c.score = (k - sl / k) + ((nn - k) - sr / (nn - k))
                c.f = f
                c.pos = k
                c.lo = arr[k - 1].rank
                c.hi = arr[k].rank
                out.push_back(c)
            sum_squares_move(node.counts, cc, arr[k].label, &sl, &sr)

    cdef void _gini_weighted(self, Node* node, int f, double* score, int32_t* pos,
                             vector[Cand]* out) noexcept nogil:
        """gini_split (``out`` NULL) or candidates with weighted class counts."""
        cdef int nn = node.size, ml = self.min_leaf, k, K = self.K
        cdef Elem* arr = node.elems + <size_t>f * nn
        cdef double* cc = &self.wc[0]
        cdef double* wt = &self.weight[0]
        cdef double total = 0.0, left = 0.0, best = INFINITY, sl, sr, g
        cdef int32_t best_pos = -1
        cdef Cand c
        for k in range(K):
            total += node.counts[k]
        weighted_squares_start(node.counts, cc, K, &sl, &sr)
        for k in range(nn):
            if k > 0 and arr[k].rank != arr[k - 1].rank and total - left > 0.0:
                g = (left - sl / left) + ((total - left) - sr / (total - left))
                if out == NULL:
                    if g < best:
                        best = g
                        best_pos = k
                elif k >= ml and nn - k >= ml:
                    c.score = g
                    c.f = f
                    c.pos = k
                    c.lo = arr[k - 1].rank
                    c.hi = arr[k].rank
                    out.push_back(c)
            weighted_squares_move(node.counts, cc, arr[k].label, wt[arr[k].id], &sl, &sr)
            left += wt[arr[k].id]
        if out == NULL:
            score[0] = best
            pos[0] = best_pos

    cdef bint solves_whole(self, Node* node, int depth) noexcept nogil:
        """Depth one always; depth two from histograms when every feature
        has few ranks and the histograms cost less than a typical search."""
        cdef double nn = node.size, thresholds = 0.0, r, hist_cost
        cdef int f
        if depth <= 1:
            return True
        if depth != 2 or not self.hist_ready or node.size < self.opt_hist_min_rows:
            return False
        for f in range(self.p):
            r = self.rank_offset[f + 1] - self.rank_offset[f]
            thresholds += r if r < nn else nn
        # p^2 additions per row, and per scored root threshold one pass over
        # every bin for each child
        hist_cost = nn * self.p * self.p + HIST_SCORED * 2.0 * self.K * self.hist_bins * thresholds
        return hist_cost <= self.opt_hist_scans * nn * self.p

    cdef bint solve_exact(self, Node* node, int depth, double* best_val, Split1* root,
                          Split1* sides) noexcept nogil:
        """Depth two (when :meth:`solves_whole` says so) from histograms;
        depth one (only a depth-one root gets here): D2Split with every
        instance in the left child."""
        cdef Split1 unused
        if depth == 2:
            return self._hist_d2(node, best_val, root, sides)
        if self.weighted:
            self._d2_weighted(node.elems, node.size, 0, node.size, root, &unused, self.min_leaf)
        else:
            self._d2(node.elems, node.size, 0, node.size, node.counts, root, &unused, self.min_leaf)
        if root.feature < 0 or root.val >= best_val[0] - EPS:
            return False
        best_val[0] = root.val
        sides[0].feature = -1
        sides[1].feature = -1
        return True

    cdef bint _hist_d2(self, Node* node, double* best_val, Split1* root_out,
                       Split1* sides) noexcept nogil:
        """Exact depth-two optimum from histograms (``_histogram.pxd``): for
        each root feature, its rows in value order are added to the left
        histogram one rank at a time, and each threshold between ranks is
        scored with both children's best depth-one trees.  A node solved with
        its sibling (:meth:`pair_children`) takes that answer instead."""
        cdef int nn = node.size, p = self.p, K = self.K, ml = self.min_leaf
        cdef int f, f2, k, c, b, nl, taken
        cdef int32_t* L = &self.hist_left[0]
        cdef int32_t* T = &self.hist_total[0]
        cdef int32_t* off = &self.rank_offset[0]
        cdef int32_t* cl = &self.hist_scratch[0]
        cdef int32_t* cr = cl + K
        cdef int32_t* prefix = cl + 2 * K
        cdef uint16_t* rr
        cdef uint16_t* RR = self.row_rank.data()
        cdef size_t cells = <size_t>self.hist_bins * K
        cdef Elem* arr
        cdef Elem e
        cdef HistScan st
        cdef double cost = self.cost
        taken = self._take_pair(node, best_val, root_out, sides)
        if taken >= 0:
            return taken == 1
        self.n_d2 += 1
        self.cut_short = False
        st.best = best_val[0]
        st.found = False
        _histogram(T, cells, node.elems, nn, RR, off, p, K)
        for f in range(p):
            if now() > self.deadline:
                self.cut_short = True       # the time limit: the best so far, not proven
                break
            arr = node.elems + <size_t>f * nn
            if arr[0].rank == arr[nn - 1].rank:
                continue        # constant on this node
            memset(L, 0, cells * sizeof(int32_t))
            for c in range(K):
                cl[c] = 0
            nl = 0
            k = 0
            st.skip_to = 0
            while k < nn:
                # move every row of this rank to the left child
                b = arr[k].rank
                nl -= k
                k = _add_rank(L, arr, k, nn, b, RR, off, p, K, cl)
                nl += k
                if k == nn:
                    break
                if scores_at(nl, nn, ml, &st) and score_root_threshold(
                        L, T, cl, cr, node.counts, nl, nn, off, p, K, ml, cost, prefix, &st):
                    st.root.feature = f
                    st.root.lo = b
                    st.root.hi = arr[k].rank
        if st.found:
            best_val[0] = st.best
            root_out[0] = st.root
            sides[0] = st.sides[0]
            sides[1] = st.sides[1]
        return st.found

    # ------------------------------------------- depth-two siblings from one walk

    def reserve_pairs(self, int max_depth, double budget_bytes):
        """Let depth-three splits solve their two depth-two children from one
        walk of the smaller (:meth:`pair_children`) when the parent's prefix
        snapshots (bins^2 x classes counts) fit under SNAP_MAX_CELLS and a
        quarter of ``budget_bytes`` (the memory limit; INFINITY: none), and
        leave at least half of it beside the other buffers.  The
        snapshots are allocated at their first use, and counted from now."""
        cdef size_t cells
        self.snap_cells = 0
        self.snap_size = -1
        self.seen_size = -1
        self.pair[0].size = -1
        self.pair[1].size = -1
        if not self.hist_ready or max_depth < 3 or self.weighted or <double>self.n * self.p >= 2.0 ** 31:
            return      # (the smaller child's rows are placed by int32 positions)
        cells = <size_t>self.hist_bins * self.K
        if <double>self.hist_bins * cells > SNAP_MAX_CELLS:
            return
        # at most a quarter of the limit, and half of it left beside every buffer
        if (4.0 * (self.hist_bins + 3.0) * cells > budget_bytes / 4
                or <double>self.fixed_bytes + 4.0 * (self.hist_bins + 3.0) * cells > budget_bytes / 2):
            return
        if self.opt_pairs == 2 or (self.opt_pairs == 0 and <double>self.n * self.p * self.p * 4.0
                               < <double>self.hist_bins * cells):
            return      # never, or no parent large enough to build snapshots for (pair_children)
        self.snap_cells = <size_t>self.hist_bins * cells
        self.snap_total.resize(cells)
        self.hist_other.resize(2 * cells)
        self.fixed_bytes = self.memory_bytes()

    def reserve_sweep(self, double budget_bytes):
        """Let depth-two nodes sweep a root feature whole (two classes,
        unweighted rows) when the buffers (a segment tree over up to n ranks,
        four ints a row) take at most a quarter of ``budget_bytes`` (the
        memory limit; INFINITY: none) and leave at least half of it beside
        the other buffers, and, where the nodes keep side maps
        (:meth:`reserve_side_maps`, called first), some node may be large
        enough to sweep (:data:`MAPS_SWEEP_ROWS`): with maps D2Split's scans
        cost less than a sweep on smaller nodes, which never sweep.  Allocated at
        the first sweep, counted from now."""
        cdef size_t leaves = 1
        self.sweep_allowed = False
        self.sweep_bytes = 0
        self.n_sweeps = 0
        if self.weighted or self.K != 2 or self.n < 2 or (self.maps_allowed and self.n < MAPS_SWEEP_ROWS):
            self.fixed_bytes = self.memory_bytes()
            return      # (with side maps only large nodes sweep: sweep_due)
        while leaves < <size_t>self.n:
            leaves <<= 1
        cdef size_t b = leaves * (sizeof(SweepCell) + 2 * sizeof(int32_t)) + 4 * <size_t>self.n * sizeof(int32_t)
        # at most a quarter of the limit, and half of it left beside every buffer
        if <double>b > budget_bytes / 4 or <double>(self.fixed_bytes + b) > budget_bytes / 2:
            return
        self.sweep_allowed = True
        self.sweep_bytes = b
        self.fixed_bytes = self.memory_bytes()

    def reserve_side_maps(self, int max_depth, double budget_bytes):
        """Let depth-two nodes keep their side maps between D2Split calls
        (unweighted rows, up to MAPS_MAX_CLASSES classes, depth two and more)
        when they take at most a quarter of ``budget_bytes`` (the memory
        limit; INFINITY: none) and leave at least half of it beside the
        layout's buffers (a limit the search met without maps still holds):
        a position per row and feature, and three bits (two classes) or two
        and one per class.  Allocated now."""
        cdef size_t words = (<size_t>self.n + 63) // 64, b
        self.maps_allowed = False
        self.maps_bytes = 0
        self.map_elems = NULL
        self.map_built = False
        self.map_f1 = -1
        self.map_seq_ok = False
        self.map_calls = 0
        self.n_map_moves = 0
        self.n_map_gathers = 0
        self.map_at.clear()
        self.map_seq.clear()
        self.map_side.clear()
        self.map_label.clear()
        self.map_counts.clear()
        self.map_change.clear()
        self.fixed_bytes = self.memory_bytes()
        if (self.weighted or self.K > MAPS_MAX_CLASSES or self.n < 2 or self.opt_maps_after <= 0
                or max_depth < 2):
            return
        cdef size_t entries = <size_t>self.n * self.p
        # a label map per class (two classes: class 1's alone)
        cdef size_t label_maps = 1 if self.K == 2 else <size_t>self.K
        b = (entries * sizeof(int32_t) + (2 + label_maps) * words * self.p * sizeof(uint64_t)
             + (2 * <size_t>self.K * sizeof(int32_t) if self.K > 2 else 0))
        if <double>b > budget_bytes / 4 or <double>(self.fixed_bytes + b) > budget_bytes / 2:
            self.fixed_bytes = self.memory_bytes()
            return
        # the ordered copy of the positions, where it pays and fits
        if (self.opt_gather_entries >= 0 and entries >= <size_t>self.opt_gather_entries
                and <double>(b + entries * sizeof(int32_t)) <= budget_bytes / 4
                and <double>(self.fixed_bytes + b + entries * sizeof(int32_t)) <= budget_bytes / 2):
            self.map_seq.resize(entries)
            b += entries * sizeof(int32_t)
        self.map_at.resize(<size_t>self.n * self.p)
        self.map_side.resize(words * self.p)
        self.map_label.resize(label_maps * words * self.p)
        self.map_change.resize(words * self.p)
        if self.K > 2:
            self.map_counts.resize(2 * <size_t>self.K)
        self.maps_allowed = True
        self.maps_bytes = b
        self.fixed_bytes = self.memory_bytes()

    cdef bint _use_maps(self, Elem* data, int nn) noexcept nogil:
        """Whether this D2Split call scans the side maps (built on the node's
        ``maps_after``-th call, an engine option).  A node is known by its orders' address,
        its size and the epoch of the child buffers (bumped on every
        rewrite), so maps never outlive the rows they describe."""
        if not self.maps_allowed:
            return False
        if data != self.map_elems or nn != self.map_size or self.elems_epoch != self.map_epoch:
            self.map_elems = data
            self.map_size = nn
            self.map_epoch = self.elems_epoch
            self.map_calls = 0
            self.map_built = False
            self.map_f1 = -1
            self.map_seq_ok = False
        self.map_calls += 1
        if self.opt_maps_after <= 0 or self.map_calls < self.opt_maps_after:
            return False
        if not self.map_built:
            self._build_maps(data, nn)
        return True

    cdef void _build_maps(self, Elem* data, int nn) noexcept nogil:
        """Every feature's label and change maps of the node (two classes:
        class 1's map, at [f2 * words + w]; more: one per class, at
        [(f2 * K + class) * words + w]), and each row's position in every
        feature's order (for :meth:`_move_sides`)."""
        cdef int p = self.p, f2, k, j, w, end, prev
        cdef int W = (nn + 63) >> 6
        cdef Elem* arr
        cdef Elem e
        cdef uint64_t lw, cw
        cdef uint64_t lk[MAPS_MAX_CLASSES]       # three classes and more: each class's bits of the word
        cdef int32_t* at = &self.map_at[0]
        cdef int K = self.K, c
        cdef bint two = K == 2
        self.map_words = W
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
                    self.map_label[<size_t>f2 * W + w] = lw
                else:
                    for c in range(K):
                        self.map_label[(<size_t>f2 * K + c) * W + w] = lk[c]
                self.map_change[<size_t>f2 * W + w] = cw
        self.map_built = True
        self.map_f1 = -1
        self.map_seq_ok = False

    cdef void _move_sides(self, Elem* data, int nn, int f1, int pos) noexcept nogil:
        """The side maps to the threshold (f1, pos): the rows between it and
        the last threshold of f1 change sides (a bit per feature each), or,
        for a new f1 or where fewer, the maps start over from all rows on
        the side of the larger child.  Each row's positions come from
        map_at, or, once f1's moves pay for it, from their copy in f1's
        order (map_seq, read in order)."""
        cdef int p = self.p, W = self.map_words, f2, k, a, b
        cdef Elem* arr = data + <size_t>f1 * nn
        cdef uint64_t* S = &self.map_side[0]
        cdef int32_t* at = &self.map_at[0]
        cdef int32_t* A
        cdef int32_t* seq
        cdef int fresh = pos if pos <= nn - pos else nn - pos
        cdef uint64_t last = ~(<uint64_t>0) if (nn & 63) == 0 else (<uint64_t>1 << (nn & 63)) - 1
        if self.map_f1 != f1:
            self.map_seq_ok = False
            self.map_f1_moves = 0
        if self.map_f1 == f1 and (pos - self.map_pos if pos >= self.map_pos else self.map_pos - pos) <= fresh:
            a = self.map_pos if self.map_pos < pos else pos
            b = pos if self.map_pos < pos else self.map_pos
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
        self.map_f1_moves += b - a
        if not self.map_seq_ok and self.map_seq.size() > 0 and 2 * self.map_f1_moves >= nn:
            # f1's moves reach half the rows: copy the positions into f1's order
            seq = &self.map_seq[0]
            for k in range(nn):
                if k + AHEAD < nn:
                    # (a row's positions may straddle two cache lines)
                    A = at + <size_t>arr[k + AHEAD].id * p
                    prefetch(A)
                    prefetch(A + p - 1)
                A = at + <size_t>arr[k].id * p
                for f2 in range(p):
                    seq[<size_t>k * p + f2] = A[f2]
            self.map_seq_ok = True
            self.n_map_gathers += 1
        if self.map_seq_ok:
            seq = &self.map_seq[0]
            for k in range(a, b):
                _toggle_sides(S, W, seq + <size_t>k * p, p)
        else:
            for k in range(a, b):
                if k + AHEAD < b:
                    A = at + <size_t>arr[k + AHEAD].id * p
                    prefetch(A)
                    prefetch(A + p - 1)
                _toggle_sides(S, W, at + <size_t>arr[k].id * p, p)
        self.n_map_moves += b - a
        self.map_f1 = f1
        self.map_pos = pos

    cdef bint sweep_due(self, Node* node, int evaluated) noexcept nogil:
        """Whether a depth-two node's search of a root feature, ``evaluated``
        intervals in, should sweep the rest (the ``sweep_after`` option; where the
        nodes keep side maps, only from MAPS_SWEEP_ROWS rows)."""
        cdef double bits = log2(<double>node.size + 1.0)
        cdef double share = bits - log2(<double>SWEEP_SMALL_ROWS)     # 0 .. 1 across the ramp
        if share < 0.0:
            share = 0.0
        elif share > 1.0:
            share = 1.0
        if not self.sweep_allowed or self.opt_sweep_after < 0.0:
            return False
        if self.maps_allowed:
            return node.size >= MAPS_SWEEP_ROWS and evaluated >= MAPS_SWEEP_AFTER * bits
        return evaluated >= self.opt_sweep_after * (1.0 + 2.0 * share) / 3.0 * bits

    cdef bint sweep_start(self, Node* node, int f1, int32_t* P, int i, int j) noexcept nogil:
        """Ready a sweep of root feature f1's thresholds P[i..j] at a depth-two
        node (then :meth:`sweep_feature` per f2, :meth:`sweep_value` per
        threshold); False when sweeps are not allowed."""
        cdef Elem* arr = node.elems + <size_t>f1 * node.size
        cdef int k = 0, w, ones = 0
        cdef size_t leaves = 1
        if not self.sweep_allowed:
            return False
        if self.sweep_leaf.size() == 0:
            while leaves < <size_t>self.n:
                leaves <<= 1
            self.sweep_tree.resize(leaves)
            self.sweep_sums.resize(2 * leaves)
            self.sweep_leaf.resize(self.n)
            self.sweep_best.resize(2 * <size_t>self.n)
            self.sweep_ones.resize(self.n)
        for w in range(i, j + 1):
            while k < P[w]:
                ones += arr[k].label
                k += 1
            self.sweep_ones[w - i] = ones
            self.sweep_best[2 * (w - i)] = NEVER
            self.sweep_best[2 * (w - i) + 1] = NEVER
        self.n_sweeps += 1
        return True

    cdef void sweep_feature(self, Node* node, int f1, int f2, int32_t* P, int i, int j) noexcept nogil:
        """Feature f2's part of a sweep: for every threshold w of P[i..j], the
        fewest errors of each child's depth-one splits on f2, into
        ``sweep_best``.  A segment tree over f2's ranks in the node holds,
        per child, the sum of +1 (class 0) / -1 (class 1) over its rows and
        the least and largest prefix sums: a split of a child with c0, c1
        rows per class at a prefix of sum s makes c1 + s or c0 - s errors,
        so the root answers for every split of f2 at once; moving the root
        threshold moves one row at a time from the right child to the left
        (log2(ranks) updates each).  Prefixes that are empty or whole are
        the leaf's errors, which never win over the leaf.  The leaves keep
        only their sums, apart (``sweep_sums``): a leaf's prefix extremes
        are its sum, so the bottom level is built from the sums
        (:func:`_sweep_bottom`): the array cleared per f2 is a third of
        the size (8 bytes a leaf instead of 24), the buffers two thirds."""
        cdef int nn = node.size, k, w, leaves_n = 0, v, nl, ones_l, zeros_l, ones_r, zeros_r, err
        cdef int ones_all = <int>(node.counts[1] + 0.5)
        cdef Elem* arr2 = node.elems + <size_t>f2 * nn
        cdef Elem* arr1 = node.elems + <size_t>f1 * nn
        cdef int32_t* leaf = &self.sweep_leaf[0]
        cdef int32_t* best = &self.sweep_best[0]
        cdef int32_t* ones = &self.sweep_ones[0]
        cdef SweepCell* T = &self.sweep_tree[0]
        cdef int32_t* L = &self.sweep_sums[0]
        cdef size_t S = 1, x, y, z
        cdef int end = P[j]
        # each row's leaf: f2's rank among the node's rows
        for k in range(nn):
            if k > 0 and arr2[k].rank != arr2[k - 1].rank:
                leaves_n += 1
            if k + AHEAD < nn:
                prefetch(leaf + arr2[k + AHEAD].id)
            leaf[arr2[k].id] = leaves_n
        leaves_n += 1
        if leaves_n < 2:
            return            # f2 is constant in the node: no split
        while S < <size_t>leaves_n:
            S <<= 1
        memset(L, 0, 2 * S * sizeof(int32_t))
        for k in range(nn):
            # (large nodes: the leaves and their sums are read in random order)
            if k + 2 * AHEAD < nn:
                prefetch(leaf + arr1[k + 2 * AHEAD].id)
            if k + AHEAD < nn:
                prefetch(L + 2 * <size_t>leaf[arr1[k + AHEAD].id])
            L[2 * leaf[arr1[k].id] + (k >= P[i])] += 1 - 2 * arr1[k].label
        for x in range(S >> 1, S):
            _sweep_bottom(T, L + 2 * (2 * x - S), x)
        for x in range((S >> 1) - 1, 0, -1):
            _sweep_combine(T, x)
        k = P[i]
        for w in range(i, j + 1):
            while k < P[w]:
                # the rows ahead: their leaves, sums and lowest tree nodes into
                # the caches (on large nodes each update waited for all three)
                if k + 2 * AHEAD < end:
                    prefetch(leaf + arr1[k + 2 * AHEAD].id)
                if k + AHEAD < end:
                    z = S + <size_t>leaf[arr1[k + AHEAD].id]
                    prefetch(L + 2 * (z - S))
                    prefetch(T + (z >> 1))
                    prefetch(T + (z >> 2))
                    prefetch(T + (z >> 3))
                    prefetch(T + (z >> 4))
                v = 1 - 2 * arr1[k].label
                y = leaf[arr1[k].id]
                L[2 * y] += v
                L[2 * y + 1] -= v
                x = (S + y) >> 1
                _sweep_bottom(T, L + 2 * (y & ~(<size_t>1)), x)
                x >>= 1
                while x > 0:
                    _sweep_combine(T, x)
                    x >>= 1
                k += 1
            nl = P[w]
            ones_l = ones[w - i]
            zeros_l = nl - ones_l
            ones_r = ones_all - ones_l
            zeros_r = (nn - nl) - ones_r
            err = _sweep_errors(zeros_l, ones_l, T[1].min_l, T[1].max_l)
            if err < best[2 * (w - i)]:
                best[2 * (w - i)] = err
            err = _sweep_errors(zeros_r, ones_r, T[1].min_r, T[1].max_r)
            if err < best[2 * (w - i) + 1]:
                best[2 * (w - i) + 1] = err

    cdef double sweep_value(self, Node* node, int32_t* P, int i, int w) noexcept nogil:
        """The objective of the depth-two tree at threshold P[w] of the swept
        feature (its children the best depth-one subtrees, as D2Split scores
        them: a split pays ``cost`` and must beat the leaf)."""
        cdef int nl = P[w], ones_l = self.sweep_ones[w - i]
        cdef int ones_r = <int>(node.counts[1] + 0.5) - ones_l
        return (_sweep_child(nl - ones_l, ones_l, self.sweep_best[2 * (w - i)], self.cost)
                + _sweep_child(node.size - nl - ones_r, ones_r, self.sweep_best[2 * (w - i) + 1], self.cost)
                + self.cost)

    cdef bint pair_children(self, int level, Node* parent, int f, int pos, Node* out) noexcept nogil:
        """The children of the depth-three split of ``parent`` at (f, pos),
        in place of :meth:`partition`, when both are depth-two nodes that the
        histograms solve (:meth:`solves_whole`): only the smaller child's rows
        are laid out (:meth:`_split_small`), the larger's counts and hashes
        are the parent's less the smaller's, and both are solved from one
        walk of the smaller (:meth:`_pair_walk`); the answers wait in
        ``pair`` for :meth:`solve_exact`, so the larger child's rows are
        never needed.  The walk reads the parent's prefix snapshots, built
        on its second split (a parent split once pays nothing) and only
        where copying them costs less than a walk of the parent's rows.
        False: nothing done, the caller partitions."""
        cdef HistScan st[2]
        cdef int s, w, nn = parent.size
        cdef uint64_t h1 = parent.h1, h2 = parent.h2
        self.pair[0].size = -1
        self.pair[1].size = -1
        if self.snap_cells == 0:
            return False
        out[0].size = pos
        out[1].size = nn - pos
        if not (self.solves_whole(&out[0], 2) and self.solves_whole(&out[1], 2)):
            return False
        if not (nn == self.snap_size and h1 == self.snap_h1 and h2 == self.snap_h2):
            if not (nn == self.seen_size and h1 == self.seen_h1 and h2 == self.seen_h2):
                self.seen_size = nn
                self.seen_h1 = h1
                self.seen_h2 = h2
                return False
            # copying a snapshot per rank costs about a quarter of adding as many
            # counts one by one; below that the parent's own walk is cheaper
            if (<double>nn * self.p * self.p * 4.0 < <double>self.hist_bins * self.hist_bins * self.K
                    and self.opt_pairs != 1):
                return False
            if not self._build_snapshots(parent):
                return False
        w = 0 if pos <= nn - pos else 1
        self._split_small(level, parent, f, pos, w, out)
        for s in range(2):
            st[s].best = leaf_errors(out[s].counts, self.K)
            st[s].found = False
        if not self._pair_walk(&out[w], &out[1 - w], &st[w], &st[1 - w]):
            self.partition(level, parent, f, pos, out)     # the time limit: lay out both
            return True
        self.n_pairs += 1
        for s in range(2):
            self.pair[s].h1 = out[s].h1
            self.pair[s].h2 = out[s].h2
            self.pair[s].size = out[s].size
            self.pair[s].found = st[s].found
            self.pair[s].root = st[s].root
            self.pair[s].sides[0] = st[s].sides[0]
            self.pair[s].sides[1] = st[s].sides[1]
        return True

    cdef void _split_small(self, int level, Node* parent, int f, int pos, int w, Node* out) noexcept nogil:
        """:meth:`partition` for child ``w`` alone (the smaller): its rows, a
        range of f's order, are sorted into every feature's order by
        counting sort on the ranks (O(rows x features), not the parent's
        rows per feature; rows of one rank may come in another order than
        the parent's, which no scan reads).  The other child gets its size,
        class counts and hashes as the parent's less child w's, and no rows
        (``elems`` NULL: only its pair answer may be read)."""
        cdef int nn = parent.size, p = self.p, K = self.K, g, k, c, start, ns
        cdef Elem* src = parent.elems + <size_t>f * nn
        cdef Elem* base = &self.children[level][0]
        cdef Elem* dst
        cdef Elem e
        cdef int32_t* off = &self.rank_offset[0]
        cdef int32_t* at = &self.hist_total[0]       # scratch: one write position per bin
        cdef uint16_t* RR = self.row_rank.data()
        cdef uint16_t* rr
        cdef double* small_counts = &self.cnt_left[level][0] if w == 0 else &self.cnt_right[level][0]
        cdef double* other_counts = &self.cnt_right[level][0] if w == 0 else &self.cnt_left[level][0]
        cdef uint64_t a1 = 0, a2 = 0
        cdef size_t total
        start = 0 if w == 0 else pos
        ns = pos if w == 0 else nn - pos
        src += start
        out[0].size = pos
        out[1].size = nn - pos
        out[0].counts = &self.cnt_left[level][0]
        out[1].counts = &self.cnt_right[level][0]
        out[0].mask = NULL
        out[1].mask = NULL
        out[w].elems = base if w == 0 else base + <size_t>pos * p
        out[1 - w].elems = NULL
        self.elems_epoch += 1
        memset(small_counts, 0, K * sizeof(double))
        memset(at, 0, <size_t>self.hist_bins * sizeof(int32_t))
        for k in range(ns):
            e = src[k]
            if k + AHEAD < ns:
                g = src[k + AHEAD].id
                prefetch(RR + <size_t>g * p)
                prefetch(&self.rnd1[g])
                prefetch(&self.rnd2[g])
            small_counts[e.label] += 1.0
            a1 += self.rnd1[e.id]
            a2 ^= self.rnd2[e.id]
            rr = RR + <size_t>e.id * p
            for g in range(p):
                at[off[g] + rr[g]] += 1
        for c in range(K):
            other_counts[c] = parent.counts[c] - small_counts[c]
        out[w].h1 = a1
        out[w].h2 = a2
        out[1 - w].h1 = parent.h1 - a1
        out[1 - w].h2 = parent.h2 ^ a2
        # bin counts -> each bin's first position in its feature's order
        for g in range(p):
            total = <size_t>g * ns
            for k in range(off[g], off[g + 1]):
                c = at[k]
                at[k] = <int32_t>total
                total += c
        dst = out[w].elems
        for k in range(ns):
            e = src[k]
            if k + AHEAD < ns:
                prefetch(RR + <size_t>src[k + AHEAD].id * p)
            rr = RR + <size_t>e.id * p
            for g in range(p):
                e.rank = rr[g]
                dst[at[off[g] + rr[g]]] = e
                at[off[g] + rr[g]] += 1

    cdef int _take_pair(self, Node* node, double* best_val, Split1* root, Split1* sides) noexcept nogil:
        """The answer :meth:`pair_children` left for ``node``: -1 none, else
        1 when it beats ``best_val`` (written out) and 0 when it does not.
        The answer is the first optimum in the histogram scan's order, the
        one :meth:`_hist_d2` finds from any incumbent above it."""
        cdef int s
        for s in range(2):
            if (self.pair[s].size == node.size and self.pair[s].h1 == node.h1
                    and self.pair[s].h2 == node.h2):
                self.pair[s].size = -1
                self.n_d2 += 1
                self.cut_short = False
                if self.pair[s].found and self.pair[s].root.val < best_val[0] - EPS:
                    best_val[0] = self.pair[s].root.val
                    root[0] = self.pair[s].root
                    sides[0] = self.pair[s].sides[0]
                    sides[1] = self.pair[s].sides[1]
                    return 1
                return 0
        return -1

    cdef bint _build_snapshots(self, Node* parent) noexcept nogil:
        """For every feature f and every rank b the parent holds on it: the
        histogram of the parent's rows of f-rank <= b; and the parent's own
        histogram.  False when the time limit passed first."""
        cdef int nn = parent.size, p = self.p, K = self.K, f, f2, k, b
        cdef size_t cells = <size_t>self.hist_bins * K
        cdef int32_t* run = &self.hist_left[0]
        cdef int32_t* off = &self.rank_offset[0]
        cdef uint16_t* RR = self.row_rank.data()
        cdef uint16_t* rr
        cdef int32_t* snap
        cdef Elem* arr
        cdef Elem e
        self.snap_size = -1
        if self.snap.size() < self.snap_cells:
            self.snap.resize(self.snap_cells)
        snap = self.snap.data()
        for f in range(p):
            if now() > self.deadline:
                return False
            arr = parent.elems + <size_t>f * nn
            memset(run, 0, cells * sizeof(int32_t))
            k = 0
            while k < nn:
                b = arr[k].rank
                k = _add_rank(run, arr, k, nn, b, RR, off, p, K, NULL)
                memcpy(snap + <size_t>(off[f] + b) * cells, run, cells * sizeof(int32_t))
            if f == 0:
                memcpy(&self.snap_total[0], run, cells * sizeof(int32_t))
        self.snap_size = nn
        self.snap_h1 = parent.h1
        self.snap_h2 = parent.h2
        return True

    cdef bint _pair_walk(self, Node* walked, Node* other, HistScan* st_w, HistScan* st_o) noexcept nogil:
        """:meth:`_hist_d2` for two siblings at once, walking only the rows of
        ``walked``: at each rank b of each root feature f, the other child's
        rows left of the threshold are the parent's snapshot at (f, b) less
        the walked child's.  Each child keeps its own incumbent and
        similarity skip, so each gets the answer its own scan would.  False
        when the time limit passed first."""
        cdef int nw = walked.size, no = other.size, p = self.p, K = self.K, ml = self.min_leaf
        cdef int f, f2, k, c, b, end, nb, at_w, nl_w, nl_o
        cdef size_t cells = <size_t>self.hist_bins * K, i
        cdef int32_t* L = &self.hist_left[0]          # the walked child's rows left of the threshold
        cdef int32_t* T = &self.hist_total[0]         # the walked child's rows
        cdef int32_t* PO = &self.hist_other[0]        # the other child's rows left of the threshold
        cdef int32_t* TO = PO + cells                 # the other child's rows
        cdef int32_t* TN = &self.snap_total[0]        # the parent's rows
        cdef int32_t* cl_w = &self.hist_scratch[0]
        cdef int32_t* cl_o = cl_w + K
        cdef int32_t* cr = cl_w + 2 * K
        cdef int32_t* prefix = cl_w + 3 * K
        cdef int32_t* here = cl_w + 4 * K             # the walked child's rows at rank b, per class
        cdef int32_t* off = &self.rank_offset[0]
        cdef int32_t* snap_b
        cdef int32_t* tn_b
        cdef uint16_t* RR = self.row_rank.data()
        cdef uint16_t* rr
        cdef Elem* arr
        cdef Elem e
        cdef double cost = self.cost
        _histogram(T, cells, walked.elems, nw, RR, off, p, K)
        for i in range(cells):
            TO[i] = TN[i] - T[i]
        for f in range(p):
            if now() > self.deadline:
                return False
            arr = walked.elems + <size_t>f * nw
            memset(L, 0, cells * sizeof(int32_t))
            for c in range(K):
                cl_w[c] = 0
                cl_o[c] = 0
            nl_w = 0
            nl_o = 0
            st_w.skip_to = 0
            st_o.skip_to = 0
            k = 0
            end = off[f + 1] - off[f]
            for b in range(end):
                tn_b = TN + <size_t>(off[f] + b) * K
                nb = 0
                for c in range(K):
                    nb += tn_b[c]
                    here[c] = 0
                if nb == 0:
                    continue        # the parent has no row of this rank
                k = _add_rank(L, arr, k, nw, b, RR, off, p, K, here)
                at_w = 0
                for c in range(K):
                    at_w += here[c]
                    cl_w[c] += here[c]
                    cl_o[c] += tn_b[c] - here[c]
                nl_w += at_w
                nl_o += nb - at_w
                # a threshold after b for a child with rows at b and beyond it
                if at_w > 0 and k < nw and scores_at(nl_w, nw, ml, st_w) and score_root_threshold(
                        L, T, cl_w, cr, walked.counts, nl_w, nw, off, p, K, ml, cost, prefix, st_w):
                    st_w.root.feature = f
                    st_w.root.lo = b
                    st_w.root.hi = arr[k].rank
                if nb > at_w and nl_o < no and scores_at(nl_o, no, ml, st_o):
                    snap_b = &self.snap[<size_t>(off[f] + b) * cells]
                    for i in range(cells):
                        PO[i] = snap_b[i] - L[i]
                    if score_root_threshold(PO, TO, cl_o, cr, other.counts, nl_o, no, off, p, K, ml,
                                            cost, prefix, st_o):
                        st_o.root.feature = f
                        st_o.root.lo = b
                        st_o.root.hi = self._next_rank_other(f, b, arr, k, nw)
                if k == nw and nl_o == no:
                    break           # both children have passed their last rank
        return True

    cdef int _next_rank_other(self, int f, int b, Elem* walked, int k, int n_walked) noexcept nogil:
        """The unwalked child's first rank on feature f above b: the first
        rank where the parent holds more rows than the walked child (whose
        rows above b start at ``walked[k]``)."""
        cdef int K = self.K, end = self.rank_offset[f + 1] - self.rank_offset[f], b2, c, nb, nw
        cdef int32_t* tn_b
        for b2 in range(b + 1, end):
            tn_b = &self.snap_total[<size_t>(self.rank_offset[f] + b2) * K]
            nb = 0
            for c in range(K):
                nb += tn_b[c]
            nw = 0
            while k < n_walked and walked[k].rank <= b2:
                nw += 1
                k += 1
            if nb > nw:
                return b2
        return b

    cdef void children_depth_one(self, int level, Node* node, int f, int pos, int ml,
                                 Split1* left, Split1* right) noexcept nogil:
        if self.weighted:
            self._d2_weighted(node.elems, node.size, f, pos, left, right, ml)
        else:
            self._d2(node.elems, node.size, f, pos, node.counts, left, right, ml)

    cdef bint _archived(self, Node* node, int depth) noexcept nogil:
        """Whether the similarity bound checks and remembers this node: depth
        two and up, large enough (against the data's size, too), and searched
        (a node the histograms solve whole may be one whose rows a pair walk
        never laid out)."""
        return (self.sim_capacity > 0 and depth >= 2 and node.size >= self.opt_sim_min_rows
                # (a bitmap over every row costs no more than one scan of the node's)
                and <size_t>node.size * self.p >= <size_t>self.sim_words
                and not self.solves_whole(node, depth))

    cdef void _bitmap(self, Node* node, uint64_t* out) noexcept nogil:
        cdef int k, i
        memset(out, 0, <size_t>self.sim_words * sizeof(uint64_t))
        for k in range(node.size):
            i = node.elems[k].id
            out[i >> 6] |= (<uint64_t>1) << (i & 63)

    cdef bint similarity_prune(self, Node* node, int depth, double ub, double* known_lb) noexcept nogil:
        """Raise ``known_lb`` to max over remembered sets S' of this depth of
        lb(S') - |S' minus S| (each removed row lowers the optimum by at most
        one, added rows cannot lower it); True when it reaches ``ub``."""
        cdef int W = self.sim_words, e, w, removed
        cdef double bound
        cdef uint64_t* old
        cdef uint64_t* cur
        if not self._archived(node, depth):
            return False
        cur = &self.sim_cur[0]
        self._bitmap(node, cur)
        for e in range(self.sim_used[depth]):
            old = &self.sim_masks[depth][<size_t>e * W]
            removed = 0
            for w in range(W):
                removed += popcount64(old[w] & ~cur[w])
            bound = self.sim_lbs[depth][e] - removed
            if bound > known_lb[0]:
                known_lb[0] = bound
        return known_lb[0] >= ub - EPS

    cdef void remember(self, Node* node, int depth, double lb) noexcept nogil:
        """Keep a solved set for the similarity bound (a ring per depth)."""
        cdef int e
        if not self._archived(node, depth):
            return
        e = self.sim_next[depth]
        self._bitmap(node, &self.sim_masks[depth][<size_t>e * self.sim_words])
        self.sim_lbs[depth][e] = lb
        self.sim_next[depth] = (e + 1) % self.sim_capacity
        if self.sim_used[depth] < self.sim_capacity:
            self.sim_used[depth] += 1

    cdef void hint_sibling(self, Node* parent, int depth, Node* second, Node* first) noexcept nogil:
        pass

    cdef void clear_hint(self) noexcept nogil:
        pass

    # ---------------------------------------------------------------- partition

    cdef void partition(self, int level, Node* node, int f, int pos, Node* out) noexcept nogil:
        """Split ``node`` at (f, pos) into out[0] (left) and out[1] (right),
        stored in this level's child buffers: a stable partition of every
        feature's order; class counts and set hashes come from feature 0."""
        cdef int nn = node.size
        cdef Elem* data = node.elems
        cdef uint8_t* flag = &self.flag[0]
        cdef Elem* arr = data + <size_t>f * nn
        cdef Elem* dl = &self.children[level][0]
        cdef Elem* dr = dl + <size_t>pos * self.p
        cdef double* cntl = &self.cnt_left[level][0]
        cdef double* cntr = &self.cnt_right[level][0]
        cdef bint weighted = self.weighted
        cdef double* wt = self.weight.data()
        cdef int nl = pos, nr = nn - pos, k, g, a, b
        cdef Elem e
        cdef uint64_t a1 = 0, a2 = 0, b1 = 0, b2 = 0
        out[0].size = pos
        out[1].size = nn - pos
        out[0].counts = cntl
        out[1].counts = cntr
        out[0].mask = NULL
        out[1].mask = NULL
        out[0].elems = dl
        out[1].elems = dr
        self.elems_epoch += 1
        for k in range(pos):
            flag[arr[k].id] = 1
        for k in range(pos, nn):
            flag[arr[k].id] = 0
        memset(cntl, 0, self.K * sizeof(double))
        memset(cntr, 0, self.K * sizeof(double))
        arr = data
        a = 0
        b = 0
        for k in range(nn):
            e = arr[k]
            if k + AHEAD < nn:
                prefetch(flag + arr[k + AHEAD].id)
            if flag[e.id]:
                dl[a] = e
                a += 1
                cntl[e.label] += wt[e.id] if weighted else 1.0
                a1 += self.rnd1[e.id]
                a2 ^= self.rnd2[e.id]
            else:
                dr[b] = e
                b += 1
                cntr[e.label] += wt[e.id] if weighted else 1.0
                b1 += self.rnd1[e.id]
                b2 ^= self.rnd2[e.id]
        for g in range(1, self.p):
            arr = data + <size_t>g * nn
            a = g * nl
            b = g * nr
            for k in range(nn):
                e = arr[k]
                if k + AHEAD < nn:
                    prefetch(flag + arr[k + AHEAD].id)
                if flag[e.id]:
                    dl[a] = e
                    a += 1
                else:
                    dr[b] = e
                    b += 1
        out[0].h1 = a1
        out[0].h2 = a2
        out[1].h1 = b1
        out[1].h2 = b2

    # ---------------------------------------------------------------- depth two

    cdef void _d2(self, Elem* data, int nn, int f1, int pos, double* counts,
                  Split1* bl, Split1* br, int ml) noexcept nogil:
        """D2Split (Algorithm 2, with the notes' corrections): the optimal
        depth-1 subtrees of both children of the root split (f1, pos) in one
        scan of every feature.  Multi-class leaf errors, evaluation only where
        the child's value changes, and the similarity skip along the scan.

        State is indexed by side (1 = left child, 0 = right child); each
        feature's scan is :func:`_scan_two_bits` or :func:`_scan_classes`."""
        cdef int K = self.K
        cdef int32_t* fq = &self.fql[0]        # [side * K + class]: class counts per child
        cdef int32_t* cc = &self.cl[0]         # [side * K + class]: counts passed so far
        cdef uint8_t* flag = &self.flag[0]
        cdef Elem* arr = data + <size_t>f1 * nn
        cdef int k, c, f2, s, sw
        cdef int ntot[2]
        cdef int skip[2]
        cdef int target[2]      # a split must make fewer errors than this to win
        cdef int least[2]       # errors no split goes below (the rows outside its two largest classes)
        cdef bint masked
        cdef size_t pair
        cdef int start_skip = ml if ml > 1 else 1
        # the flags outgrow the fast caches: prefetch them along the scan
        cdef bint far = self.n > FAR_ROWS
        cdef double cost = self.cost, leaf
        cdef Split1* out[2]
        # a node's later calls keep its side maps and move only the rows
        # between thresholds (:meth:`_move_sides`)
        cdef bint maps = K <= MAPS_MAX_CLASSES and self._use_maps(data, nn)
        cdef uint64_t* lab
        cdef int W = self.map_words
        cdef uint64_t* ones = &self.map_label[<size_t>f1 * W] if maps and K == 2 else NULL
        self.n_d2 += 1
        out[0] = br
        out[1] = bl
        memset(fq, 0, 2 * K * sizeof(int32_t))
        if maps:
            self._move_sides(data, nn, f1, pos)
            if K == 2:
                for k in range(pos >> 6):
                    fq[K + 1] += popcount64(ones[k])
                if pos & 63:
                    fq[K + 1] += popcount64(ones[pos >> 6] & ((<uint64_t>1 << (pos & 63)) - 1))
                fq[K] = pos - fq[K + 1]
            else:
                for c in range(K):
                    lab = &self.map_label[(<size_t>f1 * K + c) * W]
                    for k in range(pos >> 6):
                        fq[K + c] += popcount64(lab[k])
                    if pos & 63:
                        fq[K + c] += popcount64(lab[pos >> 6] & ((<uint64_t>1 << (pos & 63)) - 1))
        else:
            for k in range(pos):
                flag[arr[k].id] = 1
                fq[K + arr[k].label] += 1
            for k in range(pos, nn):
                flag[arr[k].id] = 0
        for c in range(K):
            fq[c] = <int32_t>counts[c] - fq[K + c]
        ntot[1] = pos
        ntot[0] = nn - pos
        for s in range(2):
            leaf = count_errors(fq + s * K, K, ntot[s])
            out[s].val = leaf
            out[s].feature = -1
            # errors + cost < leaf  <=>  errors < ceil(leaf - cost): integers from here on
            target[s] = <int>ceil(leaf - cost - EPS)
            if ntot[s] < 2 * ml:
                target[s] = 0
            # no split makes fewer errors than the rows outside its two classes:
            # a side at that floor needs no further feature
            least[s] = count_floor(fq + s * K, K) if K > 2 else 0
        for f2 in range(self.p):
            if target[0] <= least[0] and target[1] <= least[1]:
                break
            arr = data + <size_t>f2 * nn
            memset(cc, 0, 2 * K * sizeof(int32_t))
            for s in range(2):
                skip[s] = NEVER if target[s] <= least[s] else start_skip
            if maps and K == 2:
                _scan_two_maps(arr, nn, &self.map_side[<size_t>f2 * W], &self.map_label[<size_t>f2 * W],
                               &self.map_change[<size_t>f2 * W], ntot, fq, target, skip, out, ml, f2,
                               self.opt_pdep)
                continue
            if maps:
                _scan_class_maps(arr, nn, K, &self.map_side[<size_t>f2 * W],
                                 &self.map_label[<size_t>f2 * K * W], &self.map_change[<size_t>f2 * W],
                                 &self.map_counts[0], ntot, fq, target, skip, out, ml, f2, self.opt_pdep)
                continue
            if K == 2:
                _scan_two_bits(arr, nn, flag, far, ntot, fq, target, skip, out, ml, f2, self.opt_pdep)
                continue
            if K > WIDE_CLASSES:
                self._d2_scan_wide(arr, nn, f2, ntot, fq, cc, target, skip, out, ml)
                continue
            # the row's side is picked with masks where it switches often along
            # f2's order (a branch would mispredict), with a branch where it
            # seldom does (correlated features): as measured on the last scan
            # of this (f1, f2) pair
            pair = <size_t>f1 * self.switch_stride + f2
            masked = self.switch_rate[pair] > self.opt_switchy
            if masked:
                sw = _scan_classes(arr, nn, K, flag, ntot, fq, cc, target, skip, out, ml, f2, True)
            else:
                sw = _scan_classes(arr, nn, K, flag, ntot, fq, cc, target, skip, out, ml, f2, False)
            self.switch_rate[pair] = sw / <float>nn
        for s in range(2):
            if out[s].feature >= 0:
                out[s].val = target[s] + cost

    cdef void _d2_scan_wide(self, Elem* arr, int nn, int f2, int* ntot, int32_t* fq, int32_t* cc,
                            int* target, int* skip, Split1** out, int ml) noexcept nogil:
        """D2Split's scan of feature ``f2`` when classes are many: the largest
        class count of each child's prefix and suffix is kept up to date per
        element (the suffix's through a histogram of class counts, whose top
        falls by at most one per step), so a scored position costs O(1)
        instead of O(K).  With K near the number of rows the O(K) scan made
        depth one quadratic (100k classes: 13 s)."""
        cdef int K = self.K, stride = self.n + 1
        cdef int32_t* hist = &self.class_hist[0]     # [side * stride + count]: classes with that suffix count
        cdef int32_t* h
        cdef int top[2]           # largest suffix class count per side
        cdef int best[2]          # largest prefix class count per side
        cdef int s, c, k, v, cnt_s, pv, n_left = 0, prev_l = -1, prev_r = -1, prefix_err, err
        cdef uint8_t* flag = &self.flag[0]
        cdef Elem e
        for s in range(2):
            memset(hist + s * stride, 0, (ntot[s] + 1) * sizeof(int32_t))
            top[s] = 0
            best[s] = 0
        for c in range(K):
            for s in range(2):
                v = fq[s * K + c]
                hist[s * stride + v] += 1
                if v > top[s]:
                    top[s] = v
        for k in range(nn):
            e = arr[k]
            s = flag[e.id]
            cnt_s = n_left if s else k - n_left
            pv = prev_l if s else prev_r
            if cnt_s >= skip[s] and e.rank != pv and ntot[s] - cnt_s >= ml:
                prefix_err = cnt_s - best[s]
                err = prefix_err + (ntot[s] - cnt_s - top[s])
                _offer(err, prefix_err, cnt_s, f2, pv, e.rank, &target[s], &skip[s], out[s])
                if skip[0] == NEVER and skip[1] == NEVER:
                    break
            prev_l = e.rank if s else prev_l
            prev_r = prev_r if s else e.rank
            n_left += s
            # e leaves its side's suffix for the prefix
            c = s * K + e.label
            v = fq[c] - cc[c]
            h = hist + s * stride
            h[v] -= 1
            h[v - 1] += 1
            if v == top[s] and h[v] == 0:
                top[s] = v - 1
            cc[c] += 1
            if cc[c] > best[s]:
                best[s] = cc[c]

    # ------------------------------------------------------ depth two, weighted

    cdef void _d2_weighted(self, Elem* data, int nn, int f1, int pos,
                           Split1* bl, Split1* br, int ml) noexcept nogil:
        """D2Split over weighted rows: errors are sums of weights, so the
        similarity skip counts weight, not rows (moving the threshold past
        rows of total weight w changes a child's error by at most w).
        Leaf sizes still count rows.  One scan per feature; the prefix's
        largest class weight is kept up to date per row, the suffix's found
        at a scored position: over K classes, or with many classes from a
        max-heap of (suffix weight, class) whose stale tops are dropped
        lazily (a class's suffix weight only falls), so a scored position
        costs O(log n) instead of O(K)."""
        cdef int K = self.K
        cdef double* fq = &self.wq[0]          # [side * K + class]: class weights per child
        cdef double* cc = &self.wc[0]          # [side * K + class]: weight passed so far
        cdef double* wt = &self.weight[0]
        cdef uint8_t* flag = &self.flag[0]
        cdef Elem* arr = data + <size_t>f1 * nn
        cdef int k, c, f2, s, cnt_s, pv, n_left, prev_l, prev_r
        cdef int start_skip = ml if ml > 1 else 1
        cdef int ntot[2]
        cdef double wtot[2]
        cdef double passed[2]     # weight of the side's rows passed on this feature
        cdef double skip[2]       # score the side again once passed[s] >= skip[s]
        cdef double target[2]     # a split must make fewer errors than this (less EPS) to win
        cdef double cost = self.cost, prefix_err, err, best_suf, w
        cdef double best_pre[2]   # largest class weight of the side's prefix
        cdef bint wide = K > WIDE_CLASSES
        cdef priority_queue[pair[double, int]] heap0, heap1     # suffix (weight, class), per side
        cdef priority_queue[pair[double, int]]* hp
        cdef Split1* out[2]
        cdef Elem e
        cdef double* fqs
        cdef double* ccs
        self.n_d2 += 1
        out[0] = br
        out[1] = bl
        memset(fq, 0, 2 * K * sizeof(double))
        for k in range(pos):
            flag[arr[k].id] = 1
            fq[K + arr[k].label] += wt[arr[k].id]
        for k in range(pos, nn):
            flag[arr[k].id] = 0
            fq[arr[k].label] += wt[arr[k].id]
        ntot[1] = pos
        ntot[0] = nn - pos
        for s in range(2):
            wtot[s] = 0.0
            for c in range(K):
                wtot[s] += fq[s * K + c]
            out[s].val = leaf_errors(fq + s * K, K)
            out[s].feature = -1
            target[s] = out[s].val - cost
            if ntot[s] < 2 * ml:
                target[s] = -INFINITY
        for f2 in range(self.p):
            if target[0] <= EPS and target[1] <= EPS:
                break
            arr = data + <size_t>f2 * nn
            memset(cc, 0, 2 * K * sizeof(double))
            for s in range(2):
                passed[s] = 0.0
                best_pre[s] = 0.0
                skip[s] = INFINITY if target[s] <= EPS else 0.0
            if wide:
                heap0 = priority_queue[pair[double, int]]()
                heap1 = priority_queue[pair[double, int]]()
                for c in range(K):
                    if fq[c] > 0.0:
                        heap0.push(pair[double, int](fq[c], c))
                    if fq[K + c] > 0.0:
                        heap1.push(pair[double, int](fq[K + c], c))
            n_left = 0
            prev_l = -1
            prev_r = -1
            for k in range(nn):
                e = arr[k]
                s = flag[e.id]
                cnt_s = n_left if s else k - n_left
                pv = prev_l if s else prev_r
                if (passed[s] >= skip[s] and cnt_s >= start_skip and e.rank != pv
                        and ntot[s] - cnt_s >= ml):
                    fqs = fq + s * K
                    ccs = cc + s * K
                    best_suf = 0.0
                    if wide:
                        hp = &heap1 if s else &heap0
                        while not hp.empty() and hp.top().first != fqs[hp.top().second] - ccs[hp.top().second]:
                            hp.pop()       # stale: that class's suffix weight fell since
                        if not hp.empty():
                            best_suf = hp.top().first
                    else:
                        for c in range(K):
                            if fqs[c] - ccs[c] > best_suf:
                                best_suf = fqs[c] - ccs[c]
                    prefix_err = passed[s] - best_pre[s]
                    err = prefix_err + (wtot[s] - passed[s] - best_suf)
                    if err < target[s] - EPS:
                        target[s] = err
                        out[s].feature = f2
                        out[s].lo = pv
                        out[s].hi = e.rank
                        skip[s] = INFINITY if err <= EPS else passed[s]
                    elif prefix_err >= target[s] - EPS:
                        skip[s] = INFINITY    # the prefix's error never decreases along the scan
                    else:
                        # rows of total weight <= err - target cannot close the gap
                        skip[s] = passed[s] + (err - target[s]) - EPS
                    if skip[0] == INFINITY and skip[1] == INFINITY:
                        break
                prev_l = e.rank if s else prev_l
                prev_r = prev_r if s else e.rank
                n_left += s
                w = wt[e.id]
                c = s * K + e.label
                cc[c] += w
                passed[s] += w
                if cc[c] > best_pre[s]:
                    best_pre[s] = cc[c]
                if wide and fq[c] - cc[c] > 0.0:
                    hp = &heap1 if s else &heap0
                    hp.push(pair[double, int](fq[c] - cc[c], e.label))
        for s in range(2):
            if out[s].feature >= 0:
                out[s].val = target[s] + cost
