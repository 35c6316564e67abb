"""Estimator layer: scikit-learn faces of the search engines."""
from optimaltrees.estimators.classifier import OptimalTreeClassifier
from optimaltrees.estimators.sat import SATTreeClassifier

__all__ = ["OptimalTreeClassifier", "SATTreeClassifier"]
