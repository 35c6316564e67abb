"""What every fitted-tree estimator shares: prediction and export over ``tree_``.

Subclasses say how raw input becomes the tree's feature matrix
(``_tree_input``) and how splits read (``_export_labels``)."""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.validation import check_is_fitted

from optimaltrees.model.export import export_text


class FittedTreeMixin:
    """predict / predict_proba / apply / export_text / get_depth / get_n_leaves."""

    def _tree_input(self, X) -> np.ndarray:
        raise NotImplementedError

    def _export_labels(self, decimals: int, feature_names) -> dict:
        names = feature_names if feature_names is not None else getattr(self, "feature_names_in_", None)
        return {"feature_names": None if names is None else list(names)}

    def _validated(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        return self._tree_input(X)

    def predict(self, X) -> np.ndarray:
        """Majority training class of the leaf each row falls into."""
        X = self._validated(X)
        return self.classes_[self.tree_.predict(X)]

    def predict_proba(self, X) -> np.ndarray:
        """Training class frequencies of each row's leaf, columns in ``classes_`` order."""
        X = self._validated(X)
        return self.tree_.predict_proba(X)

    def predict_log_proba(self, X) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def apply(self, X) -> np.ndarray:
        """Index in ``tree_`` of the leaf each row falls into."""
        X = self._validated(X)
        return self.tree_.apply(X)

    def export_text(self, decimals: int = 4, feature_names=None) -> str:
        """The fitted tree as indented text, in the training data's feature
        names (or ``feature_names``, one per input column) and class names."""
        check_is_fitted(self, "tree_")
        if feature_names is not None and len(feature_names) != self.n_features_in_:
            raise ValueError(f"feature_names has {len(feature_names)} names, the model was fitted "
                             f"with {self.n_features_in_} features")
        return export_text(self.tree_, class_names=list(self.classes_), decimals=decimals,
                           **self._export_labels(decimals, feature_names))

    def get_depth(self) -> int:
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves


def check_number(name: str, value, *, allow_none: bool = False, positive: bool = False,
                 low: float | None = None, high: float | None = None) -> None:
    """A real number in range, with an error that names the parameter."""
    if value is None:
        if allow_none:
            return
        raise TypeError(f"{name} must be a number, got None")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r} ({type(value).__name__})")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if positive and value <= 0:
        raise ValueError(f"{name} must be > 0 (or None for no limit), got {value}")
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {value}")


def check_integer(name: str, value, *, low: int | None = None, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
