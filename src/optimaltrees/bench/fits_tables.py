"""Fits of the ``tables`` suite: mixed tables (numeric and categorical
columns, missing values) searched raw by optimaltrees, and by the peers on
the version of the same table they can take.

A table is one of two kinds (:func:`mixed_table`):

* ``real``: a shared diagrams file, its one-hot groups folded back into one
  text column each (:func:`~optimaltrees.bench.fits.fold_one_hot`);
* ``mixed``: a numeric benchmark set whose every third column (from the
  second) becomes a text column of ``LEVELS`` levels: its quantile bins,
  named in a shuffled order, so that only ``x == v`` tests read it;
* ``mixed-id``: the same with one more text column of nearly all-distinct
  names, as a forgotten identifier column would be.

Then a share ``remove`` of every feature column's values is removed at
random (seeded). pycontree gets the table imputed (median, most frequent)
and one-hot encoded; pystreed the same with every numeric column as 0/1
quantile tests (:func:`~optimaltrees.bench.data.quantile_binarise`).
Training errors are counted on the table's rows in each library's own
encoding.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

#: levels of a numeric column turned categorical (a ``mixed`` table)
LEVELS = 6
#: quantile tests per numeric column for pystreed (its 0/1 features)
PYSTREED_QUANTILES = 8
TABLE_LIBS = ("optimaltrees", "pycontree", "pystreed")


def mixed_table(path: str, kind: str, remove: float, seed: int = 0):
    """(X DataFrame with text columns and missing values, y class indices)."""
    import pandas as pd

    from optimaltrees.bench.fits import fold_one_hot
    from optimaltrees.data.tables import read_table

    table = read_table(path, allow_missing=True)
    _, y = np.unique(table.y, return_inverse=True)
    rng = np.random.default_rng(seed)
    if kind == "real":
        X = fold_one_hot(table.X)
    elif kind in ("mixed", "mixed-id"):
        X = table.X.reset_index(drop=True).copy()
        X.columns = [f"x{j}" for j in range(X.shape[1])]
        for j in range(1, X.shape[1], 3):
            col = X.columns[j]
            bins = pd.qcut(X[col].rank(method="first"), LEVELS, labels=False).to_numpy()
            names = np.array([f"level-{chr(ord('a') + k)}" for k in rng.permutation(LEVELS)], dtype=object)
            X[col] = pd.Series(names[bins], dtype=object)
        if kind == "mixed-id":
            X["name"] = pd.Series([f"name-{v}" for v in rng.integers(0, 6 * len(X) // 5, len(X))], dtype=object)
    else:
        raise ValueError(f"unknown table kind {kind!r}: expected 'real', 'mixed' or 'mixed-id'")
    if remove > 0:
        keep = rng.random(X.shape) >= remove
        X = pd.DataFrame({c: X[c].where(keep[:, j]) if pd.api.types.is_numeric_dtype(X[c])
                          else X[c].astype(object).where(keep[:, j], None) for j, c in enumerate(X.columns)})
    return X, y.astype(np.int64)


def imputed_one_hot(X, quantiles: int | None = None) -> np.ndarray:
    """The table as the peers take it: numeric columns median-imputed (as 0/1
    quantile tests when ``quantiles`` is given), text columns most-frequent
    imputed and one-hot encoded."""
    import pandas as pd

    from optimaltrees.bench.data import quantile_binarise

    parts = []
    numeric = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])]
    if numeric:
        values = X[numeric].to_numpy(dtype=np.float64)
        medians = np.nanmedian(values, axis=0)
        values = np.where(np.isnan(values), medians, values)
        parts.append(values if quantiles is None else quantile_binarise(values, quantiles)[0].astype(np.float64))
    for c in X.columns:
        if c in numeric:
            continue
        col = X[c].astype(object)
        filled = col.where(col.notna(), col.mode(dropna=True).iloc[0])
        levels = sorted(map(str, filled.unique()))
        parts.append(np.column_stack([(filled.astype(str) == v).to_numpy() for v in levels]).astype(np.float64))
    return np.ascontiguousarray(np.column_stack(parts))


def table_fit(*, data: str, kind: str, lib: str, depth: int, time_limit: float, remove: float = 0.05,
              seed: int = 0) -> dict:
    """One library's fit of one table on all its rows: training errors, proof,
    lower bound (ours) and seconds."""
    from optimaltrees.bench.fits import _Clock, fit_pycontree

    X, y = mixed_table(data, kind, remove, seed)
    shape = dict(n=len(y), columns=int(X.shape[1]),
                 categorical=int(sum(not np.issubdtype(X[c].dtype, np.number) for c in X.columns)),
                 missing_share=float(X.isna().to_numpy().mean()), source=Path(data).name, kind=kind)
    if lib == "optimaltrees":
        from optimaltrees import OptimalTreeClassifier

        model = OptimalTreeClassifier(max_depth=depth, time_limit=time_limit, tie_break="first_found")
        with _Clock() as clock, warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            model.fit(X, y)
        s = model.summary_
        return dict(shape, seconds=clock.seconds, cpu_seconds=clock.cpu_seconds, error=float(model.train_error_),
                    optimal=bool(s.proven), lower_bound=float(s.lower_bound), gap=float(s.gap),
                    timed_out=bool(s.timed_out), features=int(model.encoder_.n_tests_) if model.encoder_ else X.shape[1])
    if lib == "pycontree":
        Xp = imputed_one_hot(X)
        model, clock, hit = fit_pycontree(Xp, y, depth, time_limit)
    elif lib == "pystreed":
        from pystreed import STreeDClassifier

        Xp = imputed_one_hot(X, PYSTREED_QUANTILES).astype(np.int32)
        model = STreeDClassifier(max_depth=depth, time_limit=float(time_limit))
        with _Clock() as clock:
            model.fit(Xp, y)
        hit = clock.seconds >= 0.99 * time_limit
    else:
        raise ValueError(f"unknown library {lib!r}; expected one of {TABLE_LIBS}")
    return dict(shape, seconds=clock.seconds, cpu_seconds=clock.cpu_seconds,
                error=float((model.predict(Xp) != y).sum()), optimal=not hit, timed_out=hit,
                features=int(Xp.shape[1]))
