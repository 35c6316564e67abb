"""Build the compiled search engine (Cython, C++) during ``pip install``."""
import os
import platform

from Cython.Build import cythonize
from setuptools import Extension, setup

compile_args = ["-O3", "-std=c++17"]
if platform.machine().lower() in ("x86_64", "amd64"):
    # hardware popcount (every x86-64 CPU since 2008); the binary depth-two
    # solver is a loop of popcounts
    compile_args.append("-mpopcnt")

ENGINE_MODULES = ["_control", "_rules", "_layout_base", "_hist_solver", "_side_maps", "_sweep", "_similarity",
                  "_sorted", "_bitset", "_pair_table", "_additive", "_core", "_features", "_branch", "_seeds",
                  "_root_search", "_restricted"]

extensions = [
    Extension(
        f"optimaltrees.search.engine.{name}",
        [f"src/optimaltrees/search/engine/{name}.pyx"],
        language="c++",
        extra_compile_args=compile_args,
    )
    for name in ENGINE_MODULES
] + [
    # the SAT counterexample loop's hot steps: an example's clauses, a model's tree and its errors
    Extension(
        "optimaltrees.search.sat._loop",
        ["src/optimaltrees/search/sat/_loop.pyx"],
        language="c++",
        extra_compile_args=compile_args,
    )
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
    options={"build_ext": {"parallel": JOBS}},
)
