"""optimaltrees: provably optimal decision trees as scikit-learn estimators.

Layers, each importing only the ones before it (``tests/test_layers.py``):
``data`` (input checks, encodings, bundled sets) -> ``model`` (the fitted
tree and diagram, exports; ``anytime``: the trace) -> ``search`` (the engines,
which build those models) -> ``estimators`` (scikit-learn API) -> ``io``,
``plot``, ``demo`` -> ``bench`` -> ``cli``.
"""
from optimaltrees.estimators import DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier
from optimaltrees.model import DecisionDiagram, FitSummary, Tree, export_text

__version__ = "0.1.0"
__all__ = ["DecisionDiagram", "DecisionDiagramClassifier", "FitSummary", "OptimalTreeClassifier", "SATTreeClassifier", "Tree",
           "export_text", "__version__"]
