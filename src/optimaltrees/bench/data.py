"""Data for benchmark fits: a table as numbers, and seeded splits."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from optimaltrees.data.tables import read_table


@lru_cache(maxsize=4)
def load_table(path: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(X as float64, y as class indices 0..K-1, feature names) of a data file."""
    table = read_table(path)
    Xdf = table.numeric()
    _, y = np.unique(table.y, return_inverse=True)
    return np.ascontiguousarray(Xdf.to_numpy(dtype=np.float64)), y.astype(np.int64), list(map(str, Xdf.columns))


def split_rows(y: np.ndarray, seed: int, fractions=(0.5, 0.25, 0.25)) -> list[np.ndarray]:
    """Row indices of each part, stratified by class when every class has
    enough rows for it (else a plain shuffle), reproducible from ``seed``."""
    from sklearn.model_selection import train_test_split

    fractions = np.asarray(fractions, dtype=float)
    if fractions.min() <= 0 or abs(fractions.sum() - 1.0) > 1e-9:
        raise ValueError(f"split fractions must be positive and sum to 1, got {list(fractions)}")
    rest = np.arange(len(y))
    parts = []
    for k in range(len(fractions) - 1):
        share = fractions[k] / fractions[k:].sum()
        counts = np.bincount(y[rest])
        strat = y[rest] if counts[counts > 0].min() >= 2 else None
        take, rest = train_test_split(rest, train_size=share, random_state=seed + k, stratify=strat)
        parts.append(np.sort(take))
    parts.append(np.sort(rest))
    return parts
