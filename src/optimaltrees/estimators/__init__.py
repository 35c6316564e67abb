"""Estimator layer: scikit-learn faces of the search engines."""
from optimaltrees.estimators.classifier import OptimalTreeClassifier

__all__ = ["OptimalTreeClassifier"]
