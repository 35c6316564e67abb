"""Build the compiled search engine (Cython, C++) during ``pip install``.

The compiler flags depend on the compiler, which is known only when
``build_ext`` runs: GCC and Clang take ``-O3 -std=c++17``, MSVC ``/O2
/std:c++17``. On x86-64 the engine uses POPCNT (the binary depth-two solver
is a loop of popcounts; NumPy's own wheels require the same CPUs), unless
``OPTIMALTREES_PORTABLE=1`` asks for a build that runs on any x86-64 CPU.
"""
import os
import platform

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ENGINE_MODULES = ["_control", "_rules", "_layout_base", "_hist_solver", "_side_maps", "_sweep", "_similarity",
                  "_sorted", "_bitset", "_pair_table", "_additive", "_core", "_features", "_branch", "_seeds",
                  "_root_search", "_restricted"]
# compiled without POPCNT whatever the build: it checks the CPU before the others load
CPU_CHECK = "optimaltrees.search.engine._cpu"

PORTABLE = os.environ.get("OPTIMALTREES_PORTABLE", "") not in ("", "0")
X86_64 = platform.machine().lower() in ("x86_64", "amd64")
USE_POPCNT = X86_64 and not PORTABLE


def engine_extension(name: str, source: str) -> Extension:
    macros = [("OT_REQUIRES_POPCNT", "1")] if USE_POPCNT else [("OT_PORTABLE", "1")] if PORTABLE else []
    return Extension(name, [source], language="c++", include_dirs=["src"], define_macros=macros)


class EngineBuild(build_ext):
    """``build_ext`` with each compiler's own spelling of the engine's flags."""

    def build_extensions(self):
        msvc = self.compiler.compiler_type == "msvc"
        for ext in self.extensions:
            ext.extra_compile_args = ["/O2", "/std:c++17"] if msvc else ["-O3", "-std=c++17"]
            if USE_POPCNT and not msvc and ext.name != CPU_CHECK:
                ext.extra_compile_args.append("-mpopcnt")   # MSVC's __popcnt64 needs no flag
        super().build_extensions()


extensions = [
    engine_extension(f"optimaltrees.search.engine.{name}", f"src/optimaltrees/search/engine/{name}.pyx")
    for name in ENGINE_MODULES
] + [
    engine_extension(CPU_CHECK, "src/optimaltrees/search/engine/_cpu.pyx"),
    # the SAT counterexample loop's hot steps: an example's clauses, a model's tree and its errors
    engine_extension("optimaltrees.search.sat._loop", "src/optimaltrees/search/sat/_loop.pyx"),
]

# the modules are translated and compiled side by side, one per core
JOBS = os.cpu_count() or 1

setup(
    ext_modules=cythonize(
        extensions,
        include_path=["src"],
        nthreads=JOBS,
        compiler_directives={"language_level": 3, "boundscheck": False, "wraparound": False},
    ),
    cmdclass={"build_ext": EngineBuild},
    options={"build_ext": {"parallel": JOBS}},
)
