"""Build the compiled search kernels (Cython, C++) during ``pip install``."""
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        "optimaltrees.search._contree",
        ["src/optimaltrees/search/_contree.pyx"],
        language="c++",
        extra_compile_args=["-O3", "-g", "-std=c++17"],
    ),
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={"language_level": 3, "boundscheck": False, "wraparound": False},
    ),
)
