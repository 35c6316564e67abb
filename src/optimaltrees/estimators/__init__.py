"""Estimator layer: scikit-learn faces of the search engines."""
from optimaltrees.estimators.classifier import OptimalTreeClassifier
from optimaltrees.estimators.cv import OptimalTreeClassifierCV, OptimalTreeRegressorCV
from optimaltrees.estimators.diagram import DecisionDiagramClassifier
from optimaltrees.estimators.regressor import OptimalTreeRegressor
from optimaltrees.estimators.sat import SATTreeClassifier

__all__ = ["DecisionDiagramClassifier", "OptimalTreeClassifier", "OptimalTreeClassifierCV", "OptimalTreeRegressor",
           "OptimalTreeRegressorCV", "SATTreeClassifier"]
