"""What the search driver (:mod:`optimaltrees.search.contree`) needs of an
objective, beside the engine's layout that carries it: how the data are
reduced, which engine to build, how a tree's nodes are filled from the rows
that reach them, and what a single leaf scores.

The driver itself - limits, threads, Dask, the anytime strategies, traces,
missing values - is written once for every objective.  Each objective here
works in the engine's units: class counts (weights scaled by a power of two)
for :class:`Misclassification` and :class:`CostSensitive`, centred and scaled targets with weights of
mean one for :class:`SquaredError` (its caller maps the results back).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from optimaltrees.data.counts import misclassified
from optimaltrees.data.reduction import Reduction, reduce_problem
from optimaltrees.model.regression_tree import RegressionTree
from optimaltrees.model.tree import Tree


class Misclassification:
    """Errors (misclassified weight) over ``n_classes`` classes ``y_index``."""

    #: identical rows whose labels cover every class may cancel (a known offset)
    cancels_rows = True
    #: a tree's error at a trace point is its objective less the node cost, an
    #: integer count without weights
    name = "misclassification"

    def __init__(self, y_index: np.ndarray, n_classes: int) -> None:
        self.y_index = np.asarray(y_index)
        self.n_classes = int(n_classes)

    @property
    def n_rows(self) -> int:
        return len(self.y_index)

    def subset(self, rows: np.ndarray) -> "Misclassification":
        """The objective over these rows only."""
        return Misclassification(self.y_index[rows], self.n_classes)

    def reduce(self, enc, *, cancel_rows: bool, checkpoint, weight) -> Reduction:
        return reduce_problem(enc, self.y_index, self.n_classes, cancel_rows=cancel_rows,
                              checkpoint=checkpoint, weights=weight)

    def engine_fields(self, red: Reduction) -> dict:
        """What the engine builder needs beside the encoding (:func:`engine.build_for`)."""
        return {"y": np.ascontiguousarray(red.y, dtype=np.int32), "n_classes": self.n_classes}

    def leaf_objective(self, rows: np.ndarray, weight: np.ndarray | None) -> float:
        """The single leaf over these rows (``weight``: theirs, or None)."""
        counts = np.bincount(self.y_index[rows], weights=weight, minlength=self.n_classes)
        return float(misclassified(counts)[0])

    def errors(self, objective: float, branches: int, node_cost: float, weighted: bool,
               tree: Tree | None = None) -> float:
        """A trace point's error: recounted on ``tree`` when it was rebuilt,
        else its objective less the node cost (exact in the search's counts)."""
        if tree is not None:
            return tree.training_errors() if not weighted else tree.weighted_errors()
        errors = objective - node_cost * branches
        return round(errors) if not weighted else max(errors, 0.0)

    def arrays(self, weight: np.ndarray | None) -> "_ClassArrays":
        """The node-array builder for trees over these rows."""
        return _ClassArrays(self.y_index, self.n_classes, weight)


class CostSensitive(Misclassification):
    """A cost matrix over ``n_classes`` classes: a leaf predicts the class of
    least total cost, ``cost_matrix[true, predicted]`` per unit of weight."""

    #: identical rows cancel under misclassification only (with costs a
    #: group's share of a leaf's cost depends on the leaf's class)
    cancels_rows = False
    name = "cost"

    def __init__(self, y_index: np.ndarray, n_classes: int, cost_matrix: np.ndarray) -> None:
        super().__init__(y_index, n_classes)
        self.cost_matrix = np.asarray(cost_matrix, dtype=np.float64)

    def subset(self, rows: np.ndarray) -> "CostSensitive":
        return CostSensitive(self.y_index[rows], self.n_classes, self.cost_matrix)

    def reduce(self, enc, *, cancel_rows: bool, checkpoint, weight) -> Reduction:
        """Redundant features dropped; the duplicates' bound is misclassification's, not kept."""
        red = reduce_problem(enc, self.y_index, self.n_classes, cancel_rows=False, checkpoint=checkpoint,
                             weights=weight)
        return dataclasses.replace(red, conflict_bound=0.0)

    def engine_fields(self, red: Reduction) -> dict:
        return dict(super().engine_fields(red), cost_matrix=self.cost_matrix)

    def leaf_objective(self, rows: np.ndarray, weight: np.ndarray | None) -> float:
        counts = np.bincount(self.y_index[rows], weights=weight, minlength=self.n_classes)
        return float(np.min(counts @ self.cost_matrix))

    def errors(self, objective: float, branches: int, node_cost: float, weighted: bool,
               tree: Tree | None = None) -> float:
        """A trace point's cost (the objective less the node cost)."""
        return max(objective - node_cost * branches, 0.0)

    def arrays(self, weight: np.ndarray | None) -> "_ClassArrays":
        return _ClassArrays(self.y_index, self.n_classes, weight, self.cost_matrix)


class SquaredError:
    """Squared error of leaf means: the engine's targets ``engine_y`` (centred
    and scaled); the trees' nodes hold the user's targets ``y`` and weights
    ``user_weight`` (the caller's units, for means and errors)."""

    cancels_rows = False
    name = "squared error"

    def __init__(self, engine_y: np.ndarray, y: np.ndarray, user_weight: np.ndarray | None) -> None:
        self.engine_y = np.asarray(engine_y, dtype=np.float64)
        self.y = np.asarray(y, dtype=np.float64)
        self.user_weight = user_weight

    @property
    def n_rows(self) -> int:
        return len(self.y)

    def subset(self, rows: np.ndarray) -> "SquaredError":
        return SquaredError(self.engine_y[rows], self.y[rows],
                            None if self.user_weight is None else self.user_weight[rows])

    def reduce(self, enc, *, cancel_rows: bool, checkpoint, weight) -> Reduction:
        """Redundant features dropped; every row kept (no labels to cancel)."""
        return reduce_problem(enc, np.zeros(len(self.y), dtype=np.intp), 1, cancel_rows=False,
                              checkpoint=checkpoint, weights=weight)

    def engine_fields(self, red: Reduction) -> dict:
        """The engine's targets of the rows the search keeps."""
        return {"targets": np.ascontiguousarray(self.engine_y[red.rows])}

    def leaf_objective(self, rows: np.ndarray, weight: np.ndarray | None) -> float:
        """The single leaf over these rows, in the engine's units."""
        return weighted_sse(self.engine_y[rows], weight)[1]

    def errors(self, objective: float, branches: int, node_cost: float, weighted: bool,
               tree: Tree | None = None) -> float:
        """A trace point's squared error, in the engine's units."""
        return max(objective - node_cost * branches, 0.0)

    def arrays(self, weight: np.ndarray | None) -> "RegressionArrays":
        """Node arrays in the user's units (``weight``, the engine's, is not used)."""
        return RegressionArrays(self.y, self.user_weight)


class _ClassArrays:
    """The flat arrays of a classification tree copied out node by node
    (preorder): each node starts as a leaf with the class counts of its rows."""

    def __init__(self, y_index: np.ndarray, n_classes: int, weight: np.ndarray | None = None,
                 cost_matrix: np.ndarray | None = None) -> None:
        self.y_index, self.n_classes, self.weight = y_index, n_classes, weight
        self.cost_matrix = cost_matrix
        self.feature: list[int] = []
        self.threshold: list[float] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.missing_left: list[bool] = []
        self.value: list[np.ndarray] = []

    def add(self, rows: np.ndarray) -> int:
        self.feature.append(-1)
        self.threshold.append(0.0)
        self.left.append(-1)
        self.right.append(-1)
        self.missing_left.append(False)
        self.value.append(np.bincount(self.y_index[rows], minlength=self.n_classes,
                                      weights=None if self.weight is None else self.weight[rows]))
        return len(self.feature) - 1

    def split(self, idx: int, feature: int, threshold: float, left: int, right: int,
              missing_left: bool = False) -> None:
        self.feature[idx], self.threshold[idx] = feature, threshold
        self.left[idx], self.right[idx], self.missing_left[idx] = left, right, missing_left

    def tree(self, n_features: int, missing_in_training: bool = False) -> Tree:
        return Tree(self.feature, self.threshold, self.left, self.right, np.array(self.value, dtype=np.float64),
                    n_features, missing_left=self.missing_left if missing_in_training else None,
                    missing_in_training=missing_in_training, weighted=self.weight is not None,
                    cost_matrix=self.cost_matrix)


def weighted_sse(y: np.ndarray, w: np.ndarray | None) -> tuple[float, float]:
    """(mean, squared error around it) of the targets, in two passes.

    The deviations are taken from one of the targets first: between close
    values that difference is exact, while the mean itself may not be
    representable (within a rounding unit of the targets), and squaring
    deviations from a rounded mean would add n times that rounding squared."""
    ref = float(y[0])
    d = y - ref
    shift = float(np.average(d, weights=w))
    e = d - shift
    shift += float(np.average(e, weights=w))
    e = d - shift
    return ref + shift, float(np.dot(e * e, np.ones_like(e) if w is None else w))


class RegressionArrays:
    """A regression tree's flat arrays, copied out node by node (preorder):
    each node starts as a leaf with the mean, weight and squared error of
    its rows."""

    def __init__(self, y: np.ndarray, weight: np.ndarray | None) -> None:
        self.y, self.weight = y, weight
        self.feature: list[int] = []
        self.threshold: list[float] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.missing_left: list[bool] = []
        self.mean: list[float] = []
        self.node_weight: list[float] = []
        self.samples: list[int] = []
        self.sse: list[float] = []

    def add(self, rows: np.ndarray) -> int:
        self.feature.append(-1)
        self.threshold.append(0.0)
        self.left.append(-1)
        self.right.append(-1)
        self.missing_left.append(False)
        w = None if self.weight is None else self.weight[rows]
        mean, err = weighted_sse(self.y[rows], w) if len(rows) else (0.0, 0.0)
        self.mean.append(mean)
        self.node_weight.append(float(len(rows) if w is None else w.sum()))
        self.samples.append(len(rows))
        self.sse.append(err)
        return len(self.feature) - 1

    def split(self, idx: int, feature: int, threshold: float, left: int, right: int,
              missing_left: bool = False) -> None:
        self.feature[idx], self.threshold[idx] = feature, threshold
        self.left[idx], self.right[idx], self.missing_left[idx] = left, right, missing_left

    def tree(self, n_features: int, missing_in_training: bool = False) -> RegressionTree:
        return RegressionTree(self.feature, self.threshold, self.left, self.right, np.array(self.mean)[:, None],
                              n_features, missing_left=self.missing_left if missing_in_training else None,
                              missing_in_training=missing_in_training, weighted=self.weight is not None,
                              node_weight=self.node_weight, node_samples=self.samples, node_sse=self.sse)
