/* The engine's platform-specific primitives: 64-bit bit operations, a
   monotonic clock, a short sleep and the CPU checks.  Everything else in the
   engine is portable C++, so this header is the one place that knows GCC and
   Clang from MSVC.

   POPCNT: builds for x86-64 compile with it (GCC/Clang -mpopcnt, MSVC's
   __popcnt64), as NumPy's own x86-64-v2 baseline does; OT_PORTABLE (set by
   OPTIMALTREES_PORTABLE=1 at build time) uses the bit-trick versions below
   instead, for the rare x86-64 CPUs without it.  ot_popcnt_cpu lets the package refuse
   to load with a clear message, where the CPU would otherwise stop on an
   illegal instruction. */
#ifndef OT_PORTABLE_H
#define OT_PORTABLE_H

#include <chrono>
#include <thread>

#if defined(_MSC_VER)
#include <intrin.h>
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define OT_X86_GNU 1
#elif defined(_MSC_VER) && defined(_M_X64)
#include <immintrin.h>
#define OT_X86_MSVC 1
#endif

#if defined(OT_PORTABLE) || !(defined(__GNUC__) || defined(__clang__) || defined(_MSC_VER))
#define OT_BIT_TRICKS 1
#endif

/* ---- bit operations: the bitset layout and the depth-two scans are loops of these ---- */

static inline int ot_popcount64_tricks(unsigned long long w) {
    w = w - ((w >> 1) & 0x5555555555555555ULL);
    w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((w * 0x0101010101010101ULL) >> 56);
}

static inline int ot_ctz64_tricks(unsigned long long w) {     /* w != 0 */
    return ot_popcount64_tricks((w & (0ULL - w)) - 1);
}

static inline int ot_clz64_tricks(unsigned long long w) {     /* w != 0 */
    w |= w >> 1; w |= w >> 2; w |= w >> 4; w |= w >> 8; w |= w >> 16; w |= w >> 32;
    return 64 - ot_popcount64_tricks(w);
}

#if defined(OT_BIT_TRICKS)
static inline int ot_popcount64(unsigned long long w) { return ot_popcount64_tricks(w); }
static inline int ot_ctz64(unsigned long long w) { return ot_ctz64_tricks(w); }
static inline int ot_clz64(unsigned long long w) { return ot_clz64_tricks(w); }
#elif defined(_MSC_VER)
static inline int ot_popcount64(unsigned long long w) {
#if defined(_M_X64)
    return (int)__popcnt64(w);
#else
    return ot_popcount64_tricks(w);
#endif
}
static inline int ot_ctz64(unsigned long long w) { unsigned long i; _BitScanForward64(&i, w); return (int)i; }
static inline int ot_clz64(unsigned long long w) { unsigned long i; _BitScanReverse64(&i, w); return 63 - (int)i; }
#else
static inline int ot_popcount64(unsigned long long w) { return __builtin_popcountll(w); }
static inline int ot_ctz64(unsigned long long w) { return __builtin_ctzll(w); }
static inline int ot_clz64(unsigned long long w) { return __builtin_clzll(w); }
#endif

/* a hint to load p's cache line ahead of a random access */
static inline void ot_prefetch(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 0, 3);
#elif defined(OT_X86_MSVC)
    _mm_prefetch((const char*)p, _MM_HINT_T0);
#else
    (void)p;
#endif
}

/* ---- time ---- */

static inline double ot_now(void) {                           /* monotonic seconds */
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static inline void ot_sleep_us(int microseconds) {
    std::this_thread::sleep_for(std::chrono::microseconds(microseconds));
}

/* ---- CPU features (x86-64 only; other CPUs answer 1 for POPCNT, 0 for PDEP) ---- */

static inline void ot_cpuid(unsigned leaf, unsigned sub, unsigned* a, unsigned* b, unsigned* c, unsigned* d) {
#if defined(OT_X86_GNU)
    __cpuid_count(leaf, sub, *a, *b, *c, *d);
#elif defined(OT_X86_MSVC)
    int r[4];
    __cpuidex(r, (int)leaf, (int)sub);
    *a = (unsigned)r[0]; *b = (unsigned)r[1]; *c = (unsigned)r[2]; *d = (unsigned)r[3];
#else
    (void)leaf; (void)sub; *a = *b = *c = *d = 0;
#endif
}

/* 1 when the CPU has POPCNT (CPUID leaf 1, ECX bit 23) or is not x86-64 */
static inline int ot_popcnt_cpu(void) {
#if defined(OT_X86_GNU) || defined(OT_X86_MSVC)
    unsigned a, b, c, d;
    ot_cpuid(1, 0, &a, &b, &c, &d);
    return (c >> 23) & 1u;
#else
    return 1;
#endif
}

/* 1 when the engine's modules were built to use POPCNT (setup.py defines
   OT_REQUIRES_POPCNT for every module, the CPU check's own included, which
   itself is compiled without the instruction) */
static inline int ot_built_with_popcnt(void) {
#if defined(OT_REQUIRES_POPCNT)
    return 1;
#else
    return 0;
#endif
}

#endif
