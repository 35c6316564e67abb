"""optimaltrees: provably optimal decision trees as scikit-learn estimators.

Layers, each importing only the ones before it (``tests/test_layers.py``):
``data`` (input checks, encodings, bundled sets) -> ``model`` (the fitted
tree and diagram, exports; ``anytime``: the trace) -> ``search`` (the engines,
which build those models) -> ``estimators`` (scikit-learn API) -> ``io``,
``plot``, ``demo`` -> ``bench`` -> ``cli``.

The names below are imported on first use, so that ``import optimaltrees``
(and the command line's ``--help``) does not load scikit-learn.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from optimaltrees.estimators import (DecisionDiagramClassifier, OptimalTreeClassifier, OptimalTreeClassifierCV,
                                         OptimalTreeRegressor, OptimalTreeRegressorCV, SATTreeClassifier)
    from optimaltrees.model import DecisionDiagram, FitSummary, RegressionTree, Tree, export_text

__version__ = "0.1.0"
__all__ = ["DecisionDiagram", "DecisionDiagramClassifier", "FitSummary", "OptimalTreeClassifier",
           "OptimalTreeClassifierCV", "OptimalTreeRegressor", "OptimalTreeRegressorCV", "RegressionTree",
           "SATTreeClassifier", "Tree", "export_text", "__version__"]

_HOME = {"DecisionDiagramClassifier": "optimaltrees.estimators", "OptimalTreeClassifier": "optimaltrees.estimators",
         "SATTreeClassifier": "optimaltrees.estimators", "OptimalTreeRegressor": "optimaltrees.estimators",
         "OptimalTreeClassifierCV": "optimaltrees.estimators", "OptimalTreeRegressorCV": "optimaltrees.estimators",
         "DecisionDiagram": "optimaltrees.model", "RegressionTree": "optimaltrees.model",
         "FitSummary": "optimaltrees.model", "Tree": "optimaltrees.model", "export_text": "optimaltrees.model"}


def __getattr__(name: str):
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'optimaltrees' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
