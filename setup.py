"""Build the compiled search kernels (Cython, C++) during ``pip install``."""
import platform

from Cython.Build import cythonize
from setuptools import Extension, setup

compile_args = ["-O3", "-std=c++17"]
if platform.machine().lower() in ("x86_64", "amd64"):
    # hardware popcount (every x86-64 CPU since 2008); the binary depth-two
    # solver is a loop of popcounts
    compile_args.append("-mpopcnt")

extensions = [
    Extension(
        "optimaltrees.search._contree",
        ["src/optimaltrees/search/_contree.pyx"],
        language="c++",
        extra_compile_args=compile_args,
    ),
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={"language_level": 3, "boundscheck": False, "wraparound": False},
    ),
)
