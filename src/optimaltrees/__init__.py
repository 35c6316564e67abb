"""optimaltrees: provably optimal decision trees as scikit-learn estimators.

Layers: ``data`` (encodings, bundled sets) -> ``search`` (compiled engines)
-> ``model`` (the fitted tree, exports) -> ``estimators`` (scikit-learn API).
"""
from optimaltrees.estimators import DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier
from optimaltrees.model import DecisionDiagram, FitSummary, Tree, export_text

__version__ = "0.1.0"
__all__ = ["DecisionDiagram", "DecisionDiagramClassifier", "FitSummary", "OptimalTreeClassifier", "SATTreeClassifier", "Tree",
           "export_text", "__version__"]
