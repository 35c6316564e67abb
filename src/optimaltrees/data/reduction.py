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
  Leaf sizes change, so it is skipped under ``min_samples_leaf > 1``; the
  anytime strategies skip it too, so that their greedy first tree sees the
  class counts CART sees.
* What conflicts remain give a lower bound: identical rows always share a leaf.
  With row weights the bound sums weights, and no row is cancelled (removing
  one row of each class lowers a leaf's error by no fixed amount).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from optimaltrees.data.counts import misclassified
from optimaltrees.data.encoding import EncodedFeatures, encode_features, subset


@dataclass(frozen=True)
class Reduction:
    """The reduced problem and how to map it back."""

    enc: EncodedFeatures         # encoding of the kept rows and columns
    y: np.ndarray                # labels of the kept rows
    features: np.ndarray         # original index of each kept column
    rows: np.ndarray             # original index of each kept row
    offset: float                # errors removed with the cancelled rows
    conflict_bound: float        # errors the kept rows' identical duplicates force
    n_samples_full: int

    @property
    def rows_removed(self) -> int:
        return self.n_samples_full - len(self.rows)


def reduce_problem(data: np.ndarray | EncodedFeatures, y_index: np.ndarray, n_classes: int, *,
                   cancel_rows: bool = True, checkpoint: Callable[[], None] | None = None,
                   weights: np.ndarray | None = None) -> Reduction:
    """Drop redundant features and (optionally) cancel conflicting duplicate rows.
    ``data`` is X (n, p) or its :func:`encode_features` encoding; ``checkpoint()``
    runs between steps (a time limit raises there); ``weights``: each row's
    weight (None: 1 each)."""
    enc = data if isinstance(data, EncodedFeatures) else encode_features(np.asarray(data, dtype=np.float64))
    y = np.asarray(y_index).reshape(-1)
    n = enc.n_samples
    features = _distinct_features(enc.rank)
    group = _row_groups(enc.rank[features], checkpoint)
    rows = np.arange(n)
    offset = 0.0
    counts = _group_counts(group, y, n_classes, weights)
    if cancel_rows and weights is None and n_classes >= 2 and counts is not None:
        cancel = counts.min(axis=1)
        if cancel.any() and cancel.sum() * n_classes < n:
            keep = _drop_first(group, y, cancel)
            rows = np.flatnonzero(keep)
            offset = float(cancel.sum() * (n_classes - 1))
            counts = counts - cancel[:, None]
    bound = 0.0 if counts is None else float(misclassified(counts).sum())
    red_enc = subset(enc, features, None if len(rows) == n else rows)
    return Reduction(red_enc, np.ascontiguousarray(y[rows]), features, rows, offset, bound, n)


def _distinct_features(rank: np.ndarray) -> np.ndarray:
    """Indices of the first column of each partition-equivalence class."""
    kept: list[int] = []
    seen: set[bytes] = set()
    tops = rank.max(axis=1, initial=0).tolist()
    for f, top in enumerate(tops):
        r = rank[f]
        if top == 0:
            continue  # constant: never splits
        # ranks are dense per column, so equal partitions <=> equal (or mirrored) ranks
        key = min(r.tobytes(), (top - r).tobytes())
        if key in seen:
            continue
        seen.add(key)
        kept.append(f)
    if not kept:
        kept.append(0)  # all constant: the search still needs one column
    return np.asarray(kept, dtype=np.intp)


def _row_groups(rank: np.ndarray, checkpoint: Callable[[], None] | None = None) -> np.ndarray:
    """Group id of each row (identical rows share one), from the (p, n) ranks.

    Columns are folded into one mixed-radix key for as long as the key fits
    in 62 bits (dozens of binary columns at once), then the rows are grouped
    by that key with one sort, so ``checkpoint()`` can stop it between
    batches, and it ends as soon as every row is alone (on numeric data,
    usually after a column or two)."""
    n = rank.shape[1]
    group = np.zeros(n, dtype=np.int64)
    n_groups = 1
    limit = 1 << 62
    f, p = 0, rank.shape[0]
    while f < p and n_groups < n:
        if checkpoint is not None:
            checkpoint()
        key, span = group, n_groups
        while f < p:
            radix = int(rank[f].max(initial=0)) + 1
            if span * radix >= limit and span > n_groups:
                break  # the batch is full: group by it first
            # span * radix < 2^62 unless a lone column is that wide, which needs n > 2^31
            key = key * radix + rank[f]
            span *= radix
            f += 1
        uniq, group = np.unique(key, return_inverse=True)
        group = group.reshape(-1)
        n_groups = len(uniq)
    return group


def _group_counts(group: np.ndarray, y: np.ndarray, n_classes: int,
                  weights: np.ndarray | None = None) -> np.ndarray | None:
    """Class counts (weights) per group of identical rows, or None when no row repeats."""
    n_groups = int(group.max(initial=-1)) + 1
    if n_groups == len(group):
        return None
    if weights is not None:
        counts = np.zeros((n_groups, n_classes), dtype=np.float64)
        np.add.at(counts, (group, y), weights)
        return counts
    counts = np.zeros((n_groups, n_classes), dtype=np.int64)
    np.add.at(counts, (group, y), 1)
    return counts


def _drop_first(group: np.ndarray, y: np.ndarray, cancel: np.ndarray) -> np.ndarray:
    """Mask keeping all rows but the first ``cancel[g]`` of each class in group g."""
    order = np.lexsort((np.arange(len(y)), y, group))
    g_sorted, y_sorted = group[order], y[order]
    boundary = np.r_[True, (g_sorted[1:] != g_sorted[:-1]) | (y_sorted[1:] != y_sorted[:-1])]
    run_start = np.maximum.accumulate(np.where(boundary, np.arange(len(order)), 0))
    position = np.arange(len(order)) - run_start
    keep = np.ones(len(y), dtype=bool)
    keep[order[position < cancel[g_sorted]]] = False
    return keep
