# distutils: language = c++
# cython: language_level=3
"""Whether this CPU can run the compiled engine.

This module alone is compiled without POPCNT, so that the package can check
the CPU and refuse to load with a message instead of stopping on an illegal
instruction inside the search.
"""

cdef extern from "optimaltrees/search/engine/_portable.h" nogil:
    int popcnt_cpu "ot_popcnt_cpu" () noexcept
    int built_with_popcnt "ot_built_with_popcnt" () noexcept


def cpu_has_popcnt() -> bool:
    """Whether the CPU has the POPCNT instruction (always true off x86-64)."""
    return bool(popcnt_cpu())


def engine_needs_popcnt() -> bool:
    """Whether the engine's modules were built to use POPCNT."""
    return bool(built_with_popcnt())
