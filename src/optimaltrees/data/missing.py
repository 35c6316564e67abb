"""Missing values (NaN) as ordinary columns for the exact search.

A split on a feature with missing values is (threshold, side the missing
rows take).  Sending the missing rows left is the same as placing them below
every value; sending them right, above every value.  So each such feature
becomes two engine columns - its ranks with NaN at rank 0 and with NaN at
rank K + 1 (K distinct present values) - and the engine, unchanged, searches
every (threshold, side) pair exactly, including the split of missing from
present rows.  Ranks rather than sentinel values keep extreme floats exact
(no value has to be invented below -1e308).  Features without NaN stay as
they are, so data without missing values costs nothing extra.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: :attr:`MissingColumns.side` of a column: the feature has no NaN / NaN
#: placed below every value (goes left) / above every value (goes right)
NO_MISSING, MISSING_LEFT, MISSING_RIGHT = 0, -1, 1


@dataclass(frozen=True)
class MissingColumns:
    """The engine's columns for data with NaN and where each comes from."""

    X: np.ndarray                    # (n, q) finite float64: what the engine searches
    source: np.ndarray               # (q,) the input feature of each engine column
    side: np.ndarray                 # (q,) NO_MISSING, MISSING_LEFT or MISSING_RIGHT
    n_features: int                  # input features


def missing_columns(X: np.ndarray) -> MissingColumns | None:
    """The engine columns of ``X`` (float64 (n, p), NaN allowed, no inf), or
    None when nothing is missing."""
    missing = np.isnan(X)
    has = missing.any(axis=0)
    if not has.any():
        return None
    columns, source, side = [], [], []
    for f in range(X.shape[1]):
        if not has[f]:
            columns.append(X[:, f])
            source.append(f)
            side.append(NO_MISSING)
            continue
        present = ~missing[:, f]
        values, rank = np.unique(X[present, f], return_inverse=True)
        ranks = np.zeros(X.shape[0])
        ranks[present] = rank.ravel() + 1.0
        high = ranks.copy()
        high[~present] = len(values) + 1.0
        columns += [ranks, high]
        source += [f, f]
        side += [MISSING_LEFT, MISSING_RIGHT]
    return MissingColumns(np.ascontiguousarray(np.stack(columns, axis=1)), np.array(source, dtype=np.int64),
                          np.array(side, dtype=np.int64), X.shape[1])
