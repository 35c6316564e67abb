"""Model layer: fitted trees and diagrams as flat arrays, their exports, and the fit summary."""
from optimaltrees.model.diagram import DecisionDiagram
from optimaltrees.model.export import export_diagram_dot, export_diagram_text, export_text
from optimaltrees.model.summary import FitSummary
from optimaltrees.model.regression_tree import RegressionTree
from optimaltrees.model.tree import Tree

__all__ = ["DecisionDiagram", "FitSummary", "RegressionTree", "Tree", "export_diagram_dot", "export_diagram_text", "export_text"]
