"""Sphinx configuration of the optimaltrees documentation.

Build (from the repository root, after ``pip install ".[docs]"``)::

    python -m sphinx -W -b html docs docs/_build/html

The build needs no network: no intersphinx, no remote images or fonts.  It
runs every gallery example (``examples/plot_*.py``) and reads the benchmark
reports present in ``benchmarks/results/`` (see ``_ext/otdocs.py``).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import optimaltrees  # noqa: E402  (after the backend is chosen)

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))

project = "optimaltrees"
author = "the optimaltrees developers"
copyright = "the optimaltrees developers"
release = optimaltrees.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "otdocs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "_generated", "README.md", "sg_execution_times.rst", "**/sg_execution_times.rst",
                    "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip"]
# every page is written for a reader who arrives from a search engine: warnings are errors (-W)
nitpicky = False
suppress_warnings: list[str] = []

# -- API reference -------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"member-order": "groupwise"}
autodoc_typehints = "none"           # the numpydoc sections give the types
autodoc_inherit_docstrings = True
add_module_names = False

numpydoc_show_class_members = False  # the class template lists members (autodoc :members:)
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False
# Every public docstring is checked against numpydoc's rules at build time; a
# failed check is a warning, so -W makes it an error.  Not required: See Also,
# Examples and extended summaries (the user guide and the gallery carry them).
numpydoc_validation_checks = {"all", "SA01", "EX01", "ES01"}
numpydoc_validation_exclude = {
    # scikit-learn's own methods, inherited by the estimators: validated by scikit-learn
    r"\.get_params$", r"\.set_params$", r"\.score$", r"\.get_metadata_routing$", r"\.set_\w+_request$",
    r"\.__init__$", r"\.__sklearn_\w+__$", r"\.__getstate__$", r"\.__setstate__$", r"\.__repr__$",
    r"\.__eq__$", r"\.__post_init__$",
}

# -- pages written in Markdown ---------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# -- gallery ----------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "backreferences_dir": "_generated/backreferences",
    "doc_module": ("optimaltrees",),
    "reference_url": {"optimaltrees": None},
    "run_stale_examples": True,      # every build runs every example (the docs test relies on it)
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib", "otdocs"),
    "reset_modules": ("matplotlib",),
    "min_reported_time": 1,
    "show_memory": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "plot_gallery": os.environ.get("OPTIMALTREES_DOCS_GALLERY", "True"),
}

# -- HTML --------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"optimaltrees {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "install": []}
html_context = {"default_mode": "light"}
