"""Missing values (NaN) as ordinary columns for the exact search.

A split on a feature with missing values is (threshold, side the missing
rows take).  Sending the missing rows left is the same as placing them below
every value; sending them right, above every value.  So a feature with
three or more present values becomes two engine columns - its ranks with NaN
at rank 0 and with NaN at rank K + 1 (K distinct present values) - and the
engine, unchanged, searches every (threshold, side) pair exactly, including
the split of missing from present rows.  Ranks rather than sentinel values
keep extreme floats exact (no value has to be invented below -1e308).

A feature with two present values (a 0/1 column, a category's ``== v``
test) has only three splits: the missing rows with either value, or alone.
One column holds the first two - NaN ranked between the two values
(:data:`MISSING_MIDDLE`) - and the third, "missing or not", is one column
for every feature with the same missing rows (:data:`MISSING_ONLY`): the
tests of one categorical column share their missing rows, so a column of
many values costs one engine column per value, not two, and its
"missing or not" split is searched once, not once per value.  Features
without NaN stay as they are, so data without missing values costs nothing
extra.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: :attr:`MissingColumns.side` of a column: the feature has no NaN / NaN
#: placed below every value (goes left) / above every value (goes right) /
#: between its two values (goes left or right by the threshold) / the
#: column only separates missing (right) from present rows (left)
NO_MISSING, MISSING_LEFT, MISSING_RIGHT, MISSING_MIDDLE, MISSING_ONLY = 0, -1, 1, 2, 3

#: the rank of NaN in a :data:`MISSING_MIDDLE` column (its values rank 1 and 3)
MIDDLE_RANK = 2.0


@dataclass(frozen=True)
class MissingColumns:
    """The engine's columns for data with NaN and where each comes from."""

    X: np.ndarray                    # (n, q) finite float64: what the engine searches
    source: np.ndarray               # (q,) the input feature of each engine column
    side: np.ndarray                 # (q,) NO_MISSING, MISSING_LEFT, _RIGHT, _MIDDLE or _ONLY
    n_features: int                  # input features

    def nan_goes_left(self, column: int, threshold: float) -> bool:
        """Where a split of engine column ``column`` at ``threshold`` (a rank
        threshold: rows ``<= threshold`` go left) sends the missing rows."""
        side = int(self.side[column])
        if side == MISSING_MIDDLE:
            return MIDDLE_RANK <= threshold
        return side == MISSING_LEFT


def missing_columns(X: np.ndarray) -> MissingColumns | None:
    """The engine columns of ``X`` (float64 (n, p), NaN allowed, no inf), or
    None when nothing is missing."""
    missing = np.isnan(X)
    has = missing.any(axis=0)
    if not has.any():
        return None
    columns, source, side = [], [], []
    # the "missing or not" split of each set of missing rows, once: a
    # feature of three or more values holds it at an end of its columns
    split_masks: set[bytes] = set()
    only: list[tuple[bytes, int]] = []        # (missing rows, feature) still without that split

    def add(column: np.ndarray, f: int, where: int) -> None:
        columns.append(column)
        source.append(f)
        side.append(where)

    for f in range(X.shape[1]):
        if not has[f]:
            add(X[:, f], f, NO_MISSING)
            continue
        present = ~missing[:, f]
        values, rank = np.unique(X[present, f], return_inverse=True)
        mask = np.packbits(missing[:, f]).tobytes()
        if len(values) >= 3:
            ranks = np.zeros(X.shape[0])
            ranks[present] = rank.ravel() + 1.0
            high = ranks.copy()
            high[~present] = len(values) + 1.0
            add(ranks, f, MISSING_LEFT)
            add(high, f, MISSING_RIGHT)
            split_masks.add(mask)
            continue
        if len(values) == 2:
            middle = np.full(X.shape[0], MIDDLE_RANK)
            middle[present] = 2.0 * rank.ravel() + 1.0
            add(middle, f, MISSING_MIDDLE)
        only.append((mask, f))
    for mask, f in only:
        if mask not in split_masks:
            split_masks.add(mask)
            add(np.isnan(X[:, f]).astype(np.float64), f, MISSING_ONLY)
    return MissingColumns(np.ascontiguousarray(np.stack(columns, axis=1)), np.array(source, dtype=np.int64),
                          np.array(side, dtype=np.int64), X.shape[1])
