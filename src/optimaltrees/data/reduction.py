"""Lossless problem reductions done before any search (Blossom's preprocessing).

* Features that induce the same partitions as another feature are dropped:
  constant columns, and columns whose value order equals another column's or
  its reverse (identical and complementary binary features, or any monotone
  transform of another numeric column).  Every tree on the full features has
  a twin of equal objective on the kept ones.
* Identical rows whose labels cover every class cancel: removing one row of
  each class from such a group lowers every leaf's error by exactly K - 1,
  whatever the tree, so the optimum shifts by a known constant.  This is
  what makes "error equals the unavoidable conflicts" provable at once.
  Leaf sizes change, so it is skipped under ``min_samples_leaf > 1``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Reduction:
    """The reduced problem and how to map it back."""

    X: np.ndarray                # rows and columns kept
    y: np.ndarray
    features: np.ndarray         # original index of each kept column
    offset: float                # errors removed with the cancelled rows
    rows_removed: int


def reduce_problem(X: np.ndarray, y_index: np.ndarray, n_classes: int, *,
                   cancel_rows: bool = True) -> Reduction:
    """Drop redundant features and (optionally) cancel conflicting duplicate rows."""
    features = _distinct_features(X)
    Xr = X[:, features]
    y = np.asarray(y_index)
    offset = 0.0
    removed = 0
    if cancel_rows and n_classes >= 2 and Xr.shape[0] > 1:
        keep, offset = _cancel_conflicts(Xr, y, n_classes)
        removed = int(Xr.shape[0] - keep.sum())
        if removed and keep.any():
            Xr = Xr[keep]
            y = y[keep]
        else:
            offset = 0.0
            removed = 0
    return Reduction(np.ascontiguousarray(Xr), np.ascontiguousarray(y), features,
                     float(offset), removed)


def _distinct_features(X: np.ndarray) -> np.ndarray:
    """Indices of the first column of each partition-equivalence class."""
    kept: list[int] = []
    seen: set[bytes] = set()
    for f in range(X.shape[1]):
        _, rank = np.unique(X[:, f], return_inverse=True)
        rank = rank.reshape(-1).astype(np.int32)
        top = int(rank.max(initial=0))
        if top == 0:
            continue  # constant: never splits
        key = min(rank.tobytes(), (top - rank).tobytes())
        if key in seen:
            continue
        seen.add(key)
        kept.append(f)
    if not kept:
        kept.append(0)  # all constant: the search still needs one column
    return np.asarray(kept, dtype=np.intp)


def _cancel_conflicts(X: np.ndarray, y: np.ndarray, n_classes: int) -> tuple[np.ndarray, float]:
    """Mask of rows kept after removing, in each group of identical rows,
    min-over-classes copies of every class; and the errors so removed."""
    _, group = np.unique(X, axis=0, return_inverse=True)
    group = group.reshape(-1)
    n_groups = int(group.max()) + 1
    if n_groups == X.shape[0]:
        return np.ones(X.shape[0], dtype=bool), 0.0
    counts = np.zeros((n_groups, n_classes), dtype=np.int64)
    np.add.at(counts, (group, y), 1)
    cancel = counts.min(axis=1)          # copies of each class to remove per group
    if not cancel.any():
        return np.ones(X.shape[0], dtype=bool), 0.0
    # drop the first `cancel[g]` rows of each class in group g (stable order)
    order = np.lexsort((np.arange(X.shape[0]), y, group))
    g_sorted, y_sorted = group[order], y[order]
    boundary = np.r_[True, (g_sorted[1:] != g_sorted[:-1]) | (y_sorted[1:] != y_sorted[:-1])]
    run_start = np.maximum.accumulate(np.where(boundary, np.arange(len(order)), 0))
    position = np.arange(len(order)) - run_start
    keep = np.ones(X.shape[0], dtype=bool)
    keep[order[position < cancel[g_sorted]]] = False
    return keep, float(cancel.sum() * (n_classes - 1))
