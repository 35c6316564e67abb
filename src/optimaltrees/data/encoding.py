"""Per-feature sorted orders and unique-value ranks.

The search never looks at float values: it compares ranks, so a threshold is
exactly "rank <= r" and routing during the search cannot disagree with routing
at prediction time.  Float thresholds are produced only when a tree is exported
(:func:`threshold_between`).
"""
from __future__ import annotations

import math

from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class EncodedFeatures:
    """X as the kernels see it.

    order[f, k] is the id of the k-th sample sorted by feature f (stable), and
    rank[f, i] is the index of sample i's value among feature f's sorted
    distinct values ``unique_values[f]``.
    """

    order: np.ndarray
    rank: np.ndarray
    unique_values: list[np.ndarray]

    @property
    def n_samples(self) -> int:
        return self.order.shape[1]

    @property
    def n_features(self) -> int:
        return self.order.shape[0]

    def threshold(self, feature: int, lo_rank: int, hi_rank: int) -> float:
        """Float threshold separating rank ``lo_rank`` (left) from ``hi_rank`` (right)."""
        values = self.unique_values[feature]
        return threshold_between(float(values[lo_rank]), float(values[hi_rank]))


def threshold_between(lo: float, hi: float) -> float:
    """The threshold a split between two neighbouring values stores: the
    shortest decimal strictly between them, nearest their midpoint, so that
    it prints short and every value routes by ``x <= t`` as the split does.

    A split between 44.6 and 44.7 stores 44.65 (not the midpoint's float,
    44.650000000000006): printed, it is exactly the stored float, and no
    shorter decimal lies between the two values.  Guaranteed
    ``lo <= t < hi``; when no float lies strictly between them (adjacent
    floats) ``lo`` itself is the only threshold that routes both sides.
    """
    # Halving is exact (bar subnormals), so the sum of halves is the correctly
    # rounded midpoint; lo + (hi - lo) / 2 loses it when lo and hi differ in
    # sign, and hi - lo can overflow.
    mid = lo / 2.0 + hi / 2.0
    if not (lo < mid < hi):
        return float(lo) if not (lo <= mid < hi) else float(mid)
    # the nearest decimal of d digits to the midpoint; the interval is
    # symmetric about it, so if that one falls outside, every one of d digits does
    start = -math.floor(math.log10(max(abs(lo), abs(hi)))) - 1
    for digits in range(start, start + 40):
        try:
            t = round(mid, digits)
        except OverflowError:       # rounds beyond the largest float: a finer place will do
            continue
        if lo < t < hi:
            return float(t)
    return float(mid)


def encode_features(X: np.ndarray, checkpoint: Callable[[], None] | None = None) -> EncodedFeatures:
    """Encode a finite float64 matrix of shape (n, p).

    One sort per column: numpy's unstable (vectorised) argsort of the
    values, then ties put in row order (:func:`_sort_column`).
    ``checkpoint()`` runs before each column: on millions of rows encoding
    takes seconds, and a fit's time limit must be able to stop it."""
    X = np.asarray(X, dtype=np.float64)
    n, p = X.shape
    if n and p and np.all((X == 0.0) | (X == 1.0)):
        return _encode_binary(X)
    order = np.empty((p, n), dtype=np.int32)
    rank = np.empty((p, n), dtype=np.int32)
    uniques: list[np.ndarray] = []
    for f in range(p):
        if checkpoint is not None:
            checkpoint()
        order[f], rank[f], values = _sort_column(X[:, f])
        uniques.append(values)
    return EncodedFeatures(order=order, rank=rank, unique_values=uniques)


def _sort_column(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One column's stable sorted order (equal values in row order), each
    row's rank among the distinct values, and the distinct values ascending
    (equal floats, such as -0.0 and 0.0, are one value).  numpy's stable
    sort of floats is a merge sort, several times slower than its
    vectorised quicksort; the quicksort's order is made stable again by
    sorting (rank, row) keys, which are distinct, or by a radix sort of
    the ranks when they fit in 16 bits."""
    n = len(x)
    if n == 0:
        return np.empty(0, np.int32), np.empty(0, np.int32), np.empty(0, np.float64)
    order = np.argsort(x)
    v = x[order]
    change = v[1:] != v[:-1]
    ranks_sorted = np.empty(n, dtype=np.int64)
    ranks_sorted[0] = 0
    np.cumsum(change, out=ranks_sorted[1:])
    values = v[np.r_[True, change]]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = ranks_sorted
    if len(values) <= 65536:
        order = np.argsort(rank.astype(np.uint16), kind="stable")      # radix sort
    elif len(values) < n:
        order = order[np.argsort(ranks_sorted * n + order)]           # ties in row order
    return order.astype(np.int32), rank.astype(np.int32), values


def _encode_binary(X: np.ndarray) -> EncodedFeatures:
    """0/1 data (the common one-hot case) in a few whole-matrix operations."""
    bits = np.ascontiguousarray(X.T, dtype=np.uint8)                  # (p, n)
    order = np.argsort(bits, axis=1, kind="stable").astype(np.int32)  # radix sort of bytes
    has_zero = (bits == 0).any(axis=1)
    has_one = bits.any(axis=1)
    rank = bits.astype(np.int32)
    rank[~has_zero] = 0                    # an all-ones column has the single rank 0
    values = {(True, True): np.array([0.0, 1.0]), (True, False): np.array([0.0]),
              (False, True): np.array([1.0])}
    uniques = [values[(bool(z), bool(o))] for z, o in zip(has_zero, has_one)]
    return EncodedFeatures(order=order, rank=np.ascontiguousarray(rank), unique_values=uniques)


def subset(enc: EncodedFeatures, features: np.ndarray, rows: np.ndarray | None) -> EncodedFeatures:
    """The encoding of X[rows][:, features] without sorting again: each kept
    feature's order filtered to the kept rows and renumbered.  Ranks keep the
    full data's numbering (they may skip values no kept row has), so
    thresholds still index ``unique_values``."""
    rank = enc.rank[features]
    order = enc.order[features]
    if rows is not None:
        new_id = np.full(enc.n_samples, -1, dtype=np.int32)
        new_id[rows] = np.arange(len(rows), dtype=np.int32)
        order = new_id[order]
        order = order[order >= 0].reshape(len(features), len(rows))
        rank = rank[:, rows]
    return EncodedFeatures(order=np.ascontiguousarray(order, dtype=np.int32),
                           rank=np.ascontiguousarray(rank, dtype=np.int32),
                           unique_values=[enc.unique_values[f] for f in features])


def coarsen(enc: EncodedFeatures, max_bins: int) -> EncodedFeatures:
    """At most ``max_bins`` ranks per feature: runs of neighbouring values
    merged into bins of about n / max_bins rows each (a value holding more
    rows keeps a bin of its own), as histogram-based boosting does.

    A search over the coarse ranks is exact over the thresholds between
    bins, and only those: ``unique_values[f]`` becomes each bin's largest
    value, so an exported threshold still falls between two training values
    and routes every row as the search did."""
    if max_bins < 2:
        raise ValueError(f"max_bins must be at least 2, got {max_bins}")
    n = enc.n_samples
    order, rank, uniques = enc.order.copy(), enc.rank.copy(), list(enc.unique_values)
    for f in range(enc.n_features):
        m = len(uniques[f])
        if m <= max_bins:
            continue
        counts = np.bincount(rank[f], minlength=m)
        before = np.cumsum(counts) - counts
        # each value's bin by the middle of its rows: non-decreasing in the value
        raw = np.minimum(((before + counts / 2.0) * max_bins) // n, max_bins - 1).astype(np.int64)
        kept, bin_of_rank = np.unique(raw, return_inverse=True)
        bin_of_rank = bin_of_rank.reshape(-1).astype(np.int32)
        last = np.flatnonzero(np.r_[bin_of_rank[1:] != bin_of_rank[:-1], True])
        uniques[f] = uniques[f][last]
        rank[f] = bin_of_rank[rank[f]]
        order[f] = np.argsort(rank[f].astype(np.uint16), kind="stable")
    return EncodedFeatures(order=order, rank=rank, unique_values=uniques)
