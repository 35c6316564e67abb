"""A binary decision tree stored as flat arrays, in the spirit of sklearn's ``Tree``.

Node 0 is the root.  For node ``i``: ``feature[i]`` is -1 for a leaf; otherwise
samples with ``x[feature[i]] <= threshold[i]`` go to ``children_left[i]`` and
the others to ``children_right[i]``; a sample whose value is missing (NaN)
goes left where ``missing_left[i]``, else right.  ``value[i]`` holds the
training class counts that reach node ``i`` (class weights when the fit had
sample weights); a leaf predicts the first class with the largest count.

A tree fitted on data with missing values (``missing_in_training``) chose
each ``missing_left`` in its search.  Otherwise, and for model files written
before missing values were supported, a missing value goes to the child that
saw more training samples (the left one on a tie), as in scikit-learn.
"""
from __future__ import annotations

import json
import dataclasses
from dataclasses import dataclass

import numpy as np

from optimaltrees.data.counts import misclassified
from optimaltrees.model.checks import check_tree_arrays, dense_probabilities, node_depths

FORMAT_VERSION = 2      # 2: missing_left and missing_in_training


@dataclass(eq=False)
class Tree:
    """A fitted binary decision tree as flat arrays, in scikit-learn's layout.

    Node 0 is the root.  A row at split node ``i`` goes to
    ``children_left[i]`` when ``x[feature[i]] <= threshold[i]``, else to
    ``children_right[i]``; a missing value (NaN) goes left where
    ``missing_left[i]``.  Estimators hold one in ``tree_``, over their own
    columns (for category and SAT tests: the encoder's 0/1 columns).

    Parameters
    ----------
    feature : array-like of int, shape (node_count,)
        The column each node splits on; -1 for a leaf.
    threshold : array-like of float, shape (node_count,)
        Each split's threshold (ignored for leaves).
    children_left, children_right : array-like of int, shape (node_count,)
        Each split's children; -1 for a leaf.
    value : array-like of float, shape (node_count, n_classes)
        Training class counts reaching each node (class weights when
        ``weighted``); a leaf predicts the first class with the largest.
    n_features : int
        Number of columns the tree reads.
    missing_left : array-like of bool, shape (node_count,), optional
        Where each split sends a missing value; None: the child that saw
        more training rows (scikit-learn's rule).
    missing_in_training : bool, default=False
        The search chose ``missing_left`` (the training data had NaN).
    weighted : bool, default=False
        ``value`` holds class weights (a fit with sample weights).
    cost_matrix : array-like of float, shape (n_classes, n_classes), optional
        ``cost_matrix[c, k]``: the cost of predicting class k for a row of
        class c.  A leaf then predicts its cheapest class (the first of equal
        cost) instead of its largest one.

    Attributes
    ----------
    node_count : int
        Number of nodes.
    n_leaves : int
        Number of leaves.
    n_branch_nodes : int
        Number of split nodes.
    n_classes : int
        Number of classes.
    max_depth : int
        Split nodes on the longest root-to-leaf path.
    n_node_samples : ndarray of shape (node_count,)
        Training rows reaching each node (their weight, rounded down, when
        ``weighted``).
    """

    feature: np.ndarray
    threshold: np.ndarray
    children_left: np.ndarray
    children_right: np.ndarray
    value: np.ndarray
    n_features: int
    missing_left: np.ndarray | None = None   # (node_count,) bool; None: the larger child's side
    missing_in_training: bool = False        # the search chose missing_left (the data had NaN)
    weighted: bool = False                   # value holds class weights (a fit with sample weights)
    cost_matrix: np.ndarray | None = None    # (n_classes, n_classes): a leaf predicts its cheapest class

    def __post_init__(self) -> None:
        self.feature = np.asarray(self.feature, dtype=np.int64)
        self.threshold = np.asarray(self.threshold, dtype=np.float64)
        self.children_left = np.asarray(self.children_left, dtype=np.int64)
        self.children_right = np.asarray(self.children_right, dtype=np.int64)
        self.value = np.asarray(self.value, dtype=np.float64)
        if self.value.ndim != 2 or self.value.shape[0] != self.feature.shape[0]:
            raise ValueError("value must have shape (node_count, n_classes)")
        if self.missing_left is None:
            self.missing_left = self.larger_child_left()
        self.missing_left = np.asarray(self.missing_left, dtype=bool)
        if self.missing_left.shape != self.feature.shape:
            raise ValueError("missing_left must have one entry per node")
        self.missing_left = self.missing_left & (self.feature >= 0)
        self.missing_in_training = bool(self.missing_in_training)
        if self.cost_matrix is not None:
            self.cost_matrix = np.asarray(self.cost_matrix, dtype=np.float64)
            k = self.value.shape[1]
            if self.cost_matrix.shape != (k, k) or not np.all(np.isfinite(self.cost_matrix)) \
                    or np.any(self.cost_matrix < 0):
                raise ValueError(f"cost_matrix must be {k} x {k} finite costs >= 0 (one row and column per class)")

    def larger_child_left(self) -> np.ndarray:
        """Per node: its left child saw at least as many training samples as
        its right one (False for leaves)."""
        split = self.feature >= 0
        n = self.value.sum(axis=1)
        out = np.zeros(self.feature.shape, dtype=bool)
        kids = np.concatenate([self.children_left[split], self.children_right[split]])
        if kids.size and (kids.min() < 0 or kids.max() >= len(n)):
            return out            # not a tree: the structure checks say so, not an IndexError here
        out[split] = n[self.children_left[split]] >= n[self.children_right[split]]
        return out

    # -- shape ---------------------------------------------------------------
    @property
    def node_count(self) -> int:
        return int(self.feature.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.value.shape[1])

    @property
    def n_leaves(self) -> int:
        return int(np.sum(self.feature < 0))

    @property
    def n_branch_nodes(self) -> int:
        return int(np.sum(self.feature >= 0))

    @property
    def n_node_samples(self) -> np.ndarray:
        """Training rows reaching each node (their weight, rounded down, when ``weighted``)."""
        return self.value.sum(axis=1).astype(np.int64)

    @property
    def max_depth(self) -> int:
        # level by level from the root: nodes may come in any order
        depth = node_depths(self.feature, self.children_left, self.children_right)
        return int(depth.max()) if self.node_count else 0

    # -- prediction ------------------------------------------------------------
    def apply(self, X: np.ndarray) -> np.ndarray:
        """Return the leaf each row of X ends in.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric rows in the tree's own columns (NaN for a missing value).

        Returns
        -------
        ndarray of shape (n_samples,)
            Index of each row's leaf.
        """
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(
                f"X has {X.shape[-1] if X.ndim else 0} features, the tree expects {self.n_features}"
            )
        node = np.zeros(X.shape[0], dtype=np.int64)
        active = np.nonzero(self.feature[node] >= 0)[0]
        while active.size:
            cur = node[active]
            node[active] = self._step(X, active, cur)
            active = active[self.feature[node[active]] >= 0]
        return node

    def _step(self, X: np.ndarray, rows: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """The child each of ``rows`` (at split ``nodes``) goes to."""
        x = X[rows, self.feature[nodes]]
        left = np.where(np.isnan(x), self.missing_left[nodes], x <= self.threshold[nodes])
        return np.where(left, self.children_left[nodes], self.children_right[nodes])

    def decision_path(self, X: np.ndarray):
        """Return the nodes each row of X visits, as scikit-learn's ``decision_path``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric rows in the tree's own columns (NaN for a missing value).

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, node_count)
            Row i has a 1 in column j when sample i passes through node j,
            root and leaf included.
        """
        from scipy.sparse import csr_matrix

        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(
                f"X has {X.shape[-1] if X.ndim else 0} features, the tree expects {self.n_features}"
            )
        n = X.shape[0]
        node = np.zeros(n, dtype=np.int64)
        rows, cols = [np.arange(n)], [node.copy()]
        active = np.nonzero(self.feature[node] >= 0)[0]
        while active.size:
            node[active] = self._step(X, active, node[active])
            rows.append(active)
            cols.append(node[active])
            active = active[self.feature[node[active]] >= 0]
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        return csr_matrix((np.ones(len(rows), dtype=np.intp), (rows, cols)), shape=(n, self.node_count))

    def impurity_decrease(self) -> np.ndarray:
        """Per node, the weighted Gini decrease of its split on the training
        counts in ``value``: N_t G(t) - N_left G(left) - N_right G(right)
        (0 for a leaf), with N the rows and G the Gini impurity."""
        counts = self.value
        n = counts.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            weighted = np.where(n > 0, n - (counts ** 2).sum(axis=1) / np.where(n > 0, n, 1.0), 0.0)
        out = np.zeros(self.node_count)
        split = np.flatnonzero(self.feature >= 0)
        out[split] = (weighted[split] - weighted[self.children_left[split]]
                      - weighted[self.children_right[split]])
        return out

    def feature_importances(self, columns=None, n_columns: int | None = None) -> np.ndarray:
        """scikit-learn's ``feature_importances_``: the Gini decrease of every
        split (:meth:`impurity_decrease`) summed per feature, normalised to sum
        to 1 (all 0 for a single leaf).  ``columns[f]`` sends the tree's
        feature f to an output column (e.g. a Boolean test to the input column
        it tests), of which there are ``n_columns``."""
        columns = np.arange(self.n_features) if columns is None else np.asarray(columns, dtype=np.int64)
        n_columns = self.n_features if n_columns is None else int(n_columns)
        split = np.flatnonzero(self.feature >= 0)
        out = np.zeros(n_columns)
        np.add.at(out, columns[self.feature[split]], self.impurity_decrease()[split])
        total = out.sum()
        return out / total if total > 0 else out

    def node_proba(self) -> np.ndarray:
        """Return, per node, the class frequencies of its training samples.

        Uniform for a node no sample reached.

        Returns
        -------
        ndarray of shape (node_count, n_classes)
        """
        v = self.value
        totals = v.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(totals > 0, v / np.where(totals > 0, totals, 1.0), 1.0 / self.n_classes)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Return the class frequencies of the training samples in each row's leaf.

        The result is dense, rows x classes doubles: a size beyond
        :data:`~optimaltrees.model.checks.MAX_PROBABILITY_BYTES` is refused
        with a ValueError (predict in batches, or use :meth:`predict`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric rows in the tree's own columns (NaN for a missing value).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Each row sums to 1.
        """
        leaves = self.apply(X)
        out = dense_probabilities(len(leaves), self.n_classes)
        np.take(self.node_proba(), leaves, axis=0, out=out)
        return out

    def node_class(self) -> np.ndarray:
        """Return, per node, the index of the class it predicts.

        The first class with the largest count.

        Returns
        -------
        ndarray of shape (node_count,)
            The first class with the largest count; with a ``cost_matrix``
            the first class of least cost.
        """
        if self.cost_matrix is not None:
            return np.argmin(self.value @ self.cost_matrix, axis=1)
        return np.argmax(self.value, axis=1)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Return each row's predicted class, read from its leaf's class.

        No rows x classes array is built, whatever the number of classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric rows in the tree's own columns (NaN for a missing value).

        Returns
        -------
        ndarray of shape (n_samples,)
            Index into the class list (the estimator's ``classes_``).
        """
        return self.node_class()[self.apply(X)]

    def training_errors(self) -> int:
        """Misclassifications of the training data the counts in ``value`` came from."""
        return int(round(self.weighted_errors()))

    def weighted_errors(self) -> float:
        """Misclassified training weight, when ``value`` holds class weights
        (the sample weights of each leaf's rows); the misclassifications otherwise."""
        leaves = self.value[self.feature < 0]
        if self.cost_matrix is None:
            return float(misclassified(leaves).sum())
        # the rows outside each leaf's (cheapest) class, summed directly
        chosen = np.argmin(leaves @ self.cost_matrix, axis=1)
        outside = np.ones_like(leaves, dtype=bool)
        outside[np.arange(len(leaves)), chosen] = False
        return float(np.sum(leaves[outside]))

    def misclassification_cost(self) -> float:
        """The training rows' total cost under ``cost_matrix`` (each leaf's
        least), or the misclassified weight without one."""
        leaves = self.value[self.feature < 0]
        if self.cost_matrix is None:
            return self.weighted_errors()
        return float(np.sum(np.min(leaves @ self.cost_matrix, axis=1)))

    def scaled(self, factor: float) -> "Tree":
        """The same tree with ``value`` multiplied by ``factor``."""
        return dataclasses.replace(self, value=self.value * factor)

    # -- serialisation -------------------------------------------------------
    def to_dict(self) -> dict:
        """Return the tree as plain JSON values.

        Returns
        -------
        dict
            The arrays as lists, with the format's name and version.
        """
        return {
            "format": "optimaltrees.Tree",
            "version": FORMAT_VERSION,
            "n_features": int(self.n_features),
            "feature": self.feature.tolist(),
            "threshold": [float(t) for t in self.threshold],
            "children_left": self.children_left.tolist(),
            "children_right": self.children_right.tolist(),
            "value": self.value.tolist(),
            "missing_left": self.missing_left.tolist(),
            "missing_in_training": self.missing_in_training,
            "weighted": self.weighted,
            **({} if self.cost_matrix is None else {"cost_matrix": self.cost_matrix.tolist()}),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Tree":
        """Rebuild a tree from a :meth:`to_dict` document.

        Parameters
        ----------
        d : dict
            The document.

        Returns
        -------
        Tree
            The tree it describes.

        Raises
        ------
        ValueError
            The document is not a tree, or its arrays are not one proper
            tree (indices in range, every node reached once).
        """
        if not isinstance(d, dict) or d.get("format") != "optimaltrees.Tree":
            raise ValueError("not an optimaltrees.Tree document")
        version = d.get("version", 0)
        if isinstance(version, bool) or not isinstance(version, int):
            raise ValueError(f"tree format version must be an integer, got {version!r}")
        if version > FORMAT_VERSION:
            raise ValueError(f"tree format version {version} is newer than this library supports")
        arrays = {}
        for key, dtype in (("feature", np.int64), ("threshold", np.float64), ("children_left", np.int64),
                           ("children_right", np.int64), ("value", np.float64)):
            entry = d.get(key)
            if not isinstance(entry, list):
                raise ValueError(f"tree document: {key} must be a list, got {type(entry).__name__}")
            if dtype is np.int64 and not all(type(v) is int for v in entry):
                # numpy would take 1.9, "1" and true as 1
                bad = next(v for v in entry if type(v) is not int)
                raise ValueError(f"tree document: {key} must hold integers, got {bad!r}")
            try:
                arrays[key] = np.array(entry, dtype=dtype)
            except (TypeError, ValueError, OverflowError) as exc:
                raise ValueError(f"tree document: {key} is not an array of numbers ({exc})") from None
        n_features = d.get("n_features")
        if isinstance(n_features, bool) or not isinstance(n_features, int) or not 1 <= n_features <= 2 ** 31:
            raise ValueError(f"tree document: n_features must be an integer in [1, 2^31], got {n_features!r}")
        check_tree_arrays(n_features=n_features, **arrays)
        missing_left, trained = d.get("missing_left"), d.get("missing_in_training", False)
        if missing_left is not None:        # version 1 files have none: the larger child's side
            if (not isinstance(missing_left, list) or len(missing_left) != len(arrays["feature"])
                    or not all(isinstance(v, bool) for v in missing_left)):
                raise ValueError("tree document: missing_left must be a list of true/false, one per node")
        if not isinstance(trained, bool):
            raise ValueError(f"tree document: missing_in_training must be true or false, got {trained!r}")
        weighted = d.get("weighted", False)      # files before sample weights: counts
        if not isinstance(weighted, bool):
            raise ValueError(f"tree document: weighted must be true or false, got {weighted!r}")
        costs = d.get("cost_matrix")
        if costs is not None:
            try:
                costs = np.array(costs, dtype=np.float64)
            except (TypeError, ValueError, OverflowError) as exc:
                raise ValueError(f"tree document: cost_matrix is not a matrix of numbers ({exc})") from None
            k = arrays["value"].shape[1] if arrays["value"].ndim == 2 else -1
            if costs.shape != (k, k) or not np.all(np.isfinite(costs)) or np.any(costs < 0):
                raise ValueError("tree document: cost_matrix must be n_classes x n_classes finite costs >= 0")
        return cls(n_features=n_features, missing_left=missing_left, missing_in_training=trained,
                   weighted=weighted, cost_matrix=costs, **arrays)

    def to_json(self) -> str:
        """Return the tree as a JSON string (floats exact).

        Returns
        -------
        str
            :meth:`to_dict` as JSON.
        """
        # repr-exact floats: json writes the shortest round-tripping form
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, s: str) -> "Tree":
        """Rebuild a tree from :meth:`to_json`'s string.

        Parameters
        ----------
        s : str
            The JSON text.

        Returns
        -------
        Tree
            The tree it describes.

        Raises
        ------
        ValueError
            The text is not a tree document (see :meth:`from_dict`).
        """
        try:
            d = json.loads(s)
        except RecursionError:
            raise ValueError("not an optimaltrees.Tree document: nested too deeply") from None
        return cls.from_dict(d)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        return self.to_dict() == other.to_dict()
