"""A regression tree: a :class:`Tree` whose nodes hold the mean of their
training targets (``value``, shape (node_count, 1), as scikit-learn's
regression trees), the rows and weight reaching them and their squared error.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from optimaltrees.model.checks import check_tree_arrays
from optimaltrees.model.tree import FORMAT_VERSION, Tree

DOCUMENT = "optimaltrees.RegressionTree"


@dataclass(eq=False)
class RegressionTree(Tree):
    """A fitted binary regression tree as flat arrays, in scikit-learn's layout.

    Routing is :class:`Tree`'s.  A leaf predicts ``value[leaf, 0]``, the
    (weighted) mean of the training targets that reached it.

    Parameters
    ----------
    feature : array-like of int, shape (node_count,)
        The column each node splits on; -1 for a leaf.
    threshold : array-like of float, shape (node_count,)
        Each split's threshold (ignored for leaves).
    children_left, children_right : array-like of int, shape (node_count,)
        Each split's children; -1 for a leaf.
    value : array-like of float, shape (node_count, 1)
        The weighted mean training target of each node.
    n_features : int
        Number of columns the tree reads.
    missing_left : array-like of bool, shape (node_count,), optional
        Where each split sends a missing value; None: the child that saw
        more training weight.
    missing_in_training : bool, default=False
        The search chose ``missing_left`` (the training data had NaN).
    weighted : bool, default=False
        The fit had sample weights (``node_weight`` sums them).
    cost_matrix : None
        Classification trees' costs; a regression tree has none.
    node_weight : array-like of float, shape (node_count,)
        Training weight reaching each node (its rows when unweighted).
    node_samples : array-like of int, shape (node_count,)
        Training rows reaching each node.
    node_sse : array-like of float, shape (node_count,)
        Weighted squared error of each node's targets around its mean.
    """

    node_weight: np.ndarray | None = None
    node_samples: np.ndarray | None = None
    node_sse: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(np.asarray(self.feature))
        for name in ("node_weight", "node_samples", "node_sse"):
            arr = getattr(self, name)
            if arr is None or np.shape(arr) != (n,):
                raise ValueError(f"{name} must hold one number per node")
        self.node_weight = np.asarray(self.node_weight, dtype=np.float64)
        self.node_samples = np.asarray(self.node_samples, dtype=np.int64)
        self.node_sse = np.asarray(self.node_sse, dtype=np.float64)
        if self.cost_matrix is not None:
            raise ValueError("a regression tree has no cost_matrix")
        super().__post_init__()
        if self.value.shape[1] != 1:
            raise ValueError("a regression tree's value must have shape (node_count, 1)")

    def larger_child_left(self) -> np.ndarray:
        """Per node: its left child saw at least the weight of its right one (False for leaves)."""
        split = self.feature >= 0
        out = np.zeros(self.feature.shape, dtype=bool)
        if self.node_weight is None:
            return out
        kids = np.concatenate([self.children_left[split], self.children_right[split]])
        if kids.size and (kids.min() < 0 or kids.max() >= len(self.node_weight)):
            return out
        w = self.node_weight
        out[split] = w[self.children_left[split]] >= w[self.children_right[split]]
        return out

    @property
    def n_classes(self) -> int:
        return 1

    @property
    def n_node_samples(self) -> np.ndarray:
        """Training rows reaching each node."""
        return self.node_samples

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Return each row's prediction: the mean training target of its leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric rows in the tree's own columns (NaN for a missing value).

        Returns
        -------
        ndarray of shape (n_samples,)
            The leaf means.
        """
        return self.value[self.apply(X), 0]

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        raise AttributeError("a regression tree predicts values, not class probabilities")

    def node_class(self) -> np.ndarray:
        raise AttributeError("a regression tree has no classes")

    def squared_error(self) -> float:
        """Return the training data's (weighted) squared error.

        Returns
        -------
        float
            The leaves' ``node_sse`` summed.
        """
        return float(np.sum(self.node_sse[self.feature < 0]))

    def training_errors(self) -> float:
        """:meth:`squared_error` (the regression tree's training error)."""
        return self.squared_error()

    def weighted_errors(self) -> float:
        return self.squared_error()

    def impurity_decrease(self) -> np.ndarray:
        """Per node, the squared error its split removes (0 for a leaf)."""
        out = np.zeros(self.node_count)
        split = np.flatnonzero(self.feature >= 0)
        out[split] = (self.node_sse[split] - self.node_sse[self.children_left[split]]
                      - self.node_sse[self.children_right[split]])
        return out

    def scaled(self, factor: float) -> "RegressionTree":
        """The same tree with weights and squared errors multiplied by ``factor``."""
        return dataclasses.replace(self, node_weight=self.node_weight * factor,
                                   node_sse=self.node_sse * factor)

    def to_dict(self) -> dict:
        """Return the tree as plain JSON values.

        Returns
        -------
        dict
            The arrays as lists (as :meth:`Tree.to_dict`), with each node's
            mean, weight, rows and squared error.
        """
        d = super().to_dict()
        d["format"] = DOCUMENT
        d.update(node_weight=[float(v) for v in self.node_weight], node_samples=self.node_samples.tolist(),
                 node_sse=[float(v) for v in self.node_sse])
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "RegressionTree":
        """Rebuild a regression tree from a :meth:`to_dict` document.

        Parameters
        ----------
        d : dict
            The document.

        Returns
        -------
        RegressionTree
            The tree it describes.

        Raises
        ------
        ValueError
            The document is not a regression tree, or its arrays are not one
            proper tree with finite means, non-negative weights and errors.
        """
        if not isinstance(d, dict) or d.get("format") != DOCUMENT:
            raise ValueError("not an optimaltrees.RegressionTree document")
        version = d.get("version", 0)
        if isinstance(version, bool) or not isinstance(version, int) or version > FORMAT_VERSION:
            raise ValueError(f"regression tree format version must be an integer <= {FORMAT_VERSION}, "
                             f"got {version!r}")
        extra = {}
        for key, dtype in (("node_weight", np.float64), ("node_samples", np.int64), ("node_sse", np.float64),
                           ("value", np.float64)):
            entry = d.get(key)
            if not isinstance(entry, list):
                raise ValueError(f"regression tree document: {key} must be a list")
            if dtype is np.int64 and not all(type(v) is int for v in entry):
                raise ValueError(f"regression tree document: {key} must hold integers")
            try:
                extra[key] = np.array(entry, dtype=dtype)
            except (TypeError, ValueError, OverflowError) as exc:
                raise ValueError(f"regression tree document: {key} is not an array of numbers ({exc})") from None
        value = extra.pop("value")
        n = len(d.get("feature", []) if isinstance(d.get("feature"), list) else [])
        if value.shape != (n, 1) or not np.all(np.isfinite(value)):
            raise ValueError("regression tree document: value must hold one finite mean per node")
        for key, arr in extra.items():
            if arr.shape != (n,) or not np.all(np.isfinite(arr)) or np.any(arr < 0):
                raise ValueError(f"regression tree document: {key} must hold one finite number >= 0 per node")
        # the structure's checks (Tree's), with the weights standing in for counts
        shape = dict(d, format="optimaltrees.Tree", value=extra["node_weight"][:, None].tolist())
        tree = Tree.from_dict(shape)
        check_tree_arrays(tree.feature, tree.threshold, tree.children_left, tree.children_right,
                          tree.value, tree.n_features)
        return cls(tree.feature, tree.threshold, tree.children_left, tree.children_right, value,
                   tree.n_features, missing_left=tree.missing_left, missing_in_training=tree.missing_in_training,
                   weighted=tree.weighted, **extra)
