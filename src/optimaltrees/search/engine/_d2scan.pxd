# cython: language_level=3
"""D2Split's scans (Brita, van der Linden, Demirovic, AAAI 2025, Algorithm 2
with the implementation notes' corrections): the best depth-one split of
both children of a root split, from one pass over each feature f2's order.

A scan passes the rows in f2's order and scores a child only where its
value changes and its similarity skip allows; the winning candidates go to
:func:`offer`.  The scans differ in how they find a row's side: a byte per
row (:func:`scan_classes`, :func:`scan_wide`), or 64 rows at a time as
bit maps (:func:`scan_two_bits`, built per scan; :func:`scan_two_maps`
and :func:`scan_class_maps`, kept by ``_side_maps``).  They are inline so
that the layout's depth-two solver compiles into one loop nest: a call per
row would cost more than the row's work.
"""
from libc.stdint cimport int32_t, uint8_t, uint64_t
from libc.string cimport memset

from optimaltrees.search.engine._common cimport (
    AHEAD, NEVER, Elem, Split1, clz64, ctz64, popcount64, prefetch)

cdef inline void offer(int err, int prefix_err, int cnt_s, int feature, int lo, int hi,
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


cdef inline bint offer_side(int err, int prefix_err, int cnt_s, int feature, int lo, int hi, int s,
                             int* target, int* skip, Split1** out, int* skip_l, int* skip_r) noexcept nogil:
    """:func:`offer` for the scan's side s (1 left child, 0 right); the
    scan's copies of both sides' next positions; True when neither side
    can improve further along the scan."""
    offer(err, prefix_err, cnt_s, feature, lo, hi, &target[s], &skip[s], out[s])
    skip_l[0] = skip[1]
    skip_r[0] = skip[0]
    return skip_l[0] == NEVER and skip_r[0] == NEVER



cdef inline void side_state(bint masked, int s, int k, int n_left, int skip_l, int skip_r, int prev_l,
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


cdef inline void pass_rank(bint masked, int s, int rank, int* prev_l, int* prev_r) noexcept nogil:
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
       assembly (or MSVC's intrinsic, which needs no flag) needs no -mbmi2,
       which would let the compiler use BMI2 anywhere. */
    #include "optimaltrees/search/engine/_portable.h"
    #if defined(OT_X86_GNU) || defined(OT_X86_MSVC)
    #define OT_HAVE_PDEP 1
    static int ot_pdep_cpu(int fast_only) {
        unsigned a, b, c, d, family, vendor, top;
        ot_cpuid(0, 0, &top, &vendor, &c, &d);
        if (top < 7) return 0;
        ot_cpuid(7, 0, &a, &b, &c, &d);
        if (!(b & (1u << 8))) return 0;                       /* no BMI2 */
        if (!fast_only) return 1;
        if (vendor == 0x756e6547u) return 1;                  /* "GenuineIntel": fast wherever it exists */
        if (vendor == 0x68747541u) {                          /* "AuthenticAMD": fast from Zen 3 (family 19h) */
            ot_cpuid(1, 0, &a, &b, &c, &d);
            family = (a >> 8) & 0xFu;
            if (family == 0xFu) family += (a >> 20) & 0xFFu;
            return family >= 0x19u;
        }
        return 0;            /* Hygon (Zen 1), VIA, Zhaoxin, ...: speed unknown or slow */
    }
    static inline unsigned long long ot_pdep64(unsigned long long src, unsigned long long mask) {
    #if defined(OT_X86_GNU)
        unsigned long long out;
        __asm__("pdepq %2, %1, %0" : "=r"(out) : "r"(src), "r"(mask));
        return out;
    #else
        return _pdep_u64(src, mask);
    #endif
    }
    #else
    #define OT_HAVE_PDEP 0
    static int ot_pdep_cpu(int fast_only) { return 0; }
    #endif
    static inline int ot_select_portable(unsigned long long m, int r) {
        int pos = 0, width = 32, pc;
        if (r < 8) {
            while (r > 0) { m &= m - 1; r--; }
            return ot_ctz64(m);
        }
        while (width > 0) {
            pc = ot_popcount64(m & ((1ULL << width) - 1));
            if (r >= pc) { r -= pc; m >>= width; pos += width; }
            width >>= 1;
        }
        return pos + ot_ctz64(m);
    }
    static inline int ot_select64(unsigned long long m, int r, int use_pdep) {
    #if OT_HAVE_PDEP
        if (use_pdep) {
            return ot_ctz64(ot_pdep64(1ULL << r, m));
        }
    #endif
        return ot_select_portable(m, r);
    }
    """
    int select64 "ot_select64" (uint64_t m, int r, int use_pdep) noexcept nogil    # r < popcount(m)
    int select_portable "ot_select_portable" (uint64_t m, int r) noexcept nogil
    int pdep_cpu "ot_pdep_cpu" (int fast_only) noexcept nogil     # 1: the CPU has a (fast) PDEP



cdef inline void scan_word(Elem* arr, int w, uint64_t m, uint64_t o, uint64_t bnd, BitCursor* cur, int s,
                            int* ntot, int32_t* fq, int* target, int* skip, Split1* out, int ml,
                            int f2, int K, uint64_t* labels, int W, int32_t* cs, bint pdep) noexcept nogil:
    """The candidates of the child on side s in word w of the scan (``m``:
    its rows there, ``bnd``: its rows whose f2 value differs from the row
    before), offered to :func:`offer`; then the word is passed.  Two
    classes (``K`` 2 at the call: the compiler drops the other branch):
    ``o`` the word's rows of class 1, and the split's errors over two
    different classes (the improvements are the scan over rows').  More:
    ``labels`` a map per class ([class * W + w]) and ``cs`` the child's
    class counts in the words passed, and the errors of the prefix's and
    the suffix's largest classes (:func:`scan_classes`')."""
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
        b = w * 64 + select64(m, r, pdep)
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
        offer(err, prefix_err, cur.c, f2, arr[a].rank, arr[b].rank, target, skip, out)
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


cdef inline void cursors_start(BitCursor* cur, int* skip) noexcept nogil:
    """Both children's cursors at the start of a two-class scan."""
    cdef int j
    for j in range(2):
        cur[j].c = skip[j]
        cur[j].rows = 0
        cur[j].ones = 0
        cur[j].last = -1
        cur[j].seek = False
        cur[j].done = skip[j] == NEVER


cdef inline void scan_two_bits(Elem* arr, int nn, uint8_t* flag, bint far, int* ntot,
                                int32_t* fq, int* target, int* skip, Split1** out, int ml,
                                int f2, bint pdep) noexcept nogil:
    """D2Split's scan of feature f2 with two classes: 64 rows at a time,
    their sides, labels and changes of f2's value become three bit maps,
    and each child visits only the positions its skip leaves
    (:func:`scan_word`; the children's scans never interact), jumping
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
    cursors_start(cur, skip)
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
            scan_word(arr, w, sb, ob, bb, &cur[1], 1, ntot, fq, &target[1], &skip[1], out[1], ml, f2,
                       2, NULL, 0, NULL, pdep)
        if not cur[0].done:
            scan_word(arr, w, ~sb & valid, ob, bb, &cur[0], 0, ntot, fq, &target[0], &skip[0], out[0], ml, f2,
                       2, NULL, 0, NULL, pdep)
        k = end
        w += 1


cdef inline void scan_two_maps(Elem* arr, int nn, uint64_t* side, uint64_t* ones, uint64_t* change,
                                int* ntot, int32_t* fq, int* target, int* skip, Split1** out, int ml,
                                int f2, bint pdep) noexcept nogil:
    """:func:`scan_two_bits` over a node's kept maps of f2 (``side``: rows
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
    cursors_start(cur, skip)
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
            scan_word(arr, w, m, ones[w], change[w], c, s, ntot, fq, &target[s], &skip[s], out[s], ml, f2,
                       2, NULL, 0, NULL, pdep)
            w += 1


cdef inline void scan_class_maps(Elem* arr, int nn, int K, uint64_t* side, uint64_t* labels,
                                  uint64_t* change, int32_t* cnt, int* ntot, int32_t* fq, int* target,
                                  int* skip, Split1** out, int ml, int f2, bint pdep) noexcept nogil:
    """:func:`scan_two_maps` with three classes and more (``labels``: a map
    per class, at [class * words + w]; ``cnt``: scratch, two sides x K):
    a child's words before its next candidate pass with a popcount per
    class, and a candidate's class counts are popcounts of its word's
    prefix; its errors are :func:`scan_classes`' (the largest class of the
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
            scan_word(arr, w, (side[w] ^ flip) & valid, 0, change[w], &cur, s, ntot, fq, &target[s], &skip[s],
                       out[s], ml, f2, K, labels, W, cs, pdep)
            w += 1


cdef inline int scan_classes(Elem* arr, int nn, int K, uint8_t* flag, int* ntot, int32_t* fq,
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
        side_state(masked, s, k, n_left, skip_l, skip_r, prev_l, prev_r, &cnt_s, &sk, &pv)
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
            if offer_side(err, prefix_err, cnt_s, f2, pv, e.rank, s, target, skip, out, &skip_l, &skip_r):
                break
        pass_rank(masked, s, e.rank, &prev_l, &prev_r)
        n_left += s
        cc[s * K + e.label] += 1
    return switches


cdef inline void scan_wide(Elem* arr, int nn, int K, uint8_t* flag, int32_t* hist, int stride, int f2,
                           int* ntot, int32_t* fq, int32_t* cc, int* target, int* skip, Split1** out,
                           int ml) noexcept nogil:
    """D2Split's scan of feature ``f2`` when classes are many: the largest
    class count of each child's prefix and suffix is kept up to date per
    element (the suffix's through a histogram of class counts, whose top
    falls by at most one per step), so a scored position costs O(1)
    instead of O(K).  With K near the number of rows the O(K) scan made
    depth one quadratic (100k classes: 13 s).  ``hist``: two sides x
    ``stride`` (rows + 1) ints of scratch; ``flag``: each row's side."""
    # hist[side * stride + count]: the side's classes with that suffix count
    cdef int32_t* h
    cdef int top[2]           # largest suffix class count per side
    cdef int best[2]          # largest prefix class count per side
    cdef int s, c, k, v, cnt_s, pv, n_left = 0, prev_l = -1, prev_r = -1, prefix_err, err
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
            offer(err, prefix_err, cnt_s, f2, pv, e.rank, &target[s], &skip[s], out[s])
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

