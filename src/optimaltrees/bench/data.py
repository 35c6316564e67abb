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



#: regression sets that ship with scikit-learn (no file): ``DATA`` of
#: :func:`regression_table` is then ``"sklearn:NAME"``
SKLEARN_REGRESSION = ("diabetes",)


#: how :func:`synthetic_regression` makes its table, as a report states it
#: (``str.format`` fills in rows, features and seed): what a reader needs to
#: make it again
SYNTHETIC_REGRESSION = ("`rng = numpy.random.default_rng({seed})`; `X = rng.standard_normal(({rows}, {features}))`; "
                        "`y = 2·sin(x0) + x1² + 1.5·[x2 > 0.5] + 0.5·rng.standard_normal({rows})` "
                        "(x_j = column j of X, [·] = 1 when true, else 0)")
#: the columns the target of :func:`synthetic_regression` reads (x0, x1, x2)
SYNTHETIC_USED = 3


def synthetic_regression(rows: int, features: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) of a synthetic regression table, the same for the same arguments.

    Why this table: it needs no file nor network, any size can be made, and
    its standard-normal features hold (almost surely) ``rows`` distinct values
    each, so an exact search meets every threshold: its worst case.  The
    target is nonlinear in three of the features (a sine, a square, a step)
    plus normal noise of standard deviation 0.5, so that the best depth-two
    tree is not CART's by construction; the other features are noise.  The
    recipe is :data:`SYNTHETIC_REGRESSION`; X is drawn before the noise."""
    if rows < 2 or features < SYNTHETIC_USED:
        raise ValueError(f"the synthetic table needs at least 2 rows and {SYNTHETIC_USED} features, "
                         f"got {rows} x {features}")
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((rows, features))
    y = 2.0 * np.sin(X[:, 0]) + X[:, 1] ** 2 + 1.5 * (X[:, 2] > 0.5) + 0.5 * rng.standard_normal(rows)
    return X, y


def synthetic_name(rows: int, features: int, seed: int) -> str:
    """The ``data`` of :func:`regression_table` that means :func:`synthetic_regression`."""
    return f"synthetic:{rows}x{features}:{seed}"


@lru_cache(maxsize=4)
def regression_table(data: str, target: int | None = None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(X, y, feature names) of a regression set.

    ``"sklearn:diabetes"``: scikit-learn's diabetes data (it ships with the
    package, no network) and its own target.  ``"synthetic:ROWSxFEATURES:SEED"``
    (:func:`synthetic_name`): the table of :func:`synthetic_regression`, made
    inside the worker (a job carries its recipe, not its 8 MB).  Otherwise
    ``data`` is a label-first numeric file (as ``continuous/train/NAME.txt``):
    its feature column ``target`` (counted from 0, the label not counted)
    becomes y, and the class label becomes the last feature (as class index
    0..K-1)."""
    if data.startswith("synthetic:"):
        try:
            size, seed = data.split(":")[1:]
            rows, features = map(int, size.split("x"))
            seed = int(seed)
        except ValueError:
            raise ValueError(f"{data!r}: expected synthetic:ROWSxFEATURES:SEED") from None
        X, y = synthetic_regression(rows, features, seed)
        return X, y, [f"x{j}" for j in range(features)]
    if data.startswith("sklearn:"):
        name = data.split(":", 1)[1]
        if name not in SKLEARN_REGRESSION:
            raise ValueError(f"no scikit-learn regression set {name!r}; known: {', '.join(SKLEARN_REGRESSION)}")
        from sklearn.datasets import load_diabetes

        bunch = load_diabetes()
        return (np.ascontiguousarray(bunch.data, dtype=np.float64), np.asarray(bunch.target, dtype=np.float64),
                list(map(str, bunch.feature_names)))
    X, label, names = load_table(data)
    if target is None or not 0 <= target < X.shape[1]:
        raise ValueError(f"{data}: the target must be one of its feature columns 0..{X.shape[1] - 1}, got {target}")
    y = X[:, target].copy()
    X = np.column_stack([np.delete(X, target, axis=1), label.astype(np.float64)])
    return np.ascontiguousarray(X), y, [*(n for j, n in enumerate(names) if j != target), "label"]


def quantile_binarise(X: np.ndarray, k: int) -> tuple[np.ndarray, list[tuple[int, float]]]:
    """0/1 columns ``x_j <= q`` for each distinct quantile ``q`` of levels
    1/(k+1), ..., k/(k+1) of every column ``j`` of ``X`` (numpy's "lower"
    quantiles: values of the column, so distinct thresholds give distinct
    columns; one that would be constant, all 0 or all 1, is left out: no tree
    splits on it), and the (column, threshold) of each.  Deterministic: two
    libraries given this matrix solve the same problem."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    levels = np.arange(1, k + 1) / (k + 1)
    cols, tests = [], []
    for j in range(X.shape[1]):
        for q in np.unique(np.quantile(X[:, j], levels, method="lower")):
            col = X[:, j] <= q
            if 0 < col.sum() < len(col):
                cols.append(col)
                tests.append((j, float(q)))
    if not cols:
        raise ValueError("no column has two distinct values: nothing to split on")
    return np.column_stack(cols).astype(np.int32), tests


def holdout_rows(n: int, seed: int, test_share: float) -> tuple[np.ndarray, np.ndarray]:
    """(training rows, held-out rows) of a shuffled split, reproducible from ``seed``."""
    if not 0 < test_share < 1:
        raise ValueError(f"the held-out share must be between 0 and 1, got {test_share}")
    order = np.random.default_rng(seed).permutation(n)
    cut = n - int(round(test_share * n))
    return np.sort(order[:cut]), np.sort(order[cut:])

#: rows of the UCI MONK's training files (Thrun et al. 1991), as in Avellaneda's Table 4
MONKS_TRAINING_ROWS = {"monks2": 169, "monks3": 122}
#: values of attributes a1..a6
_MONKS_VALUES = (3, 3, 2, 3, 4, 2)
#: the diagrams copy's columns holding a1..a5, one-hot with the first value dropped
_MONKS_DUMMIES = (("1_1", "1_2"), ("2_1", "2_2"), ("3",), ("4_1", "4_2"), ("5_1", "5_2", "5_3"))


def uci_monks(path: str, name: str):
    """(X, y) of the UCI MONK's training set ``name`` from the diagrams copy.

    Why: that copy is shifted by one column.  Its feature ``0`` (-1/0) is the
    class and its label ``y`` is attribute a6; a1..a5 are one-hot with their
    first value dropped.  Read as it stands, it has conflicting rows and
    deeper trees than any MONK's problem.  Its rows are the UCI training file
    followed by the test file (all 432 attribute combinations in order), so
    the training set is recovered exactly: attributes a1..a6 with values
    1..k (as ``categorical/monk1.csv`` has them) and class 0/1.  Any other
    layout is refused."""
    import itertools

    import pandas as pd

    if name not in MONKS_TRAINING_ROWS:
        raise ValueError(f"no MONK's training set named {name!r}; known: {sorted(MONKS_TRAINING_ROWS)}")
    frame = pd.read_csv(path, encoding="utf-8-sig")
    expected = ["0", *(c for group in _MONKS_DUMMIES for c in group), "y"]
    if list(frame.columns) != expected:
        raise ValueError(f"{path}: columns {list(frame.columns)}, expected the diagrams copy's {expected}")
    values = frame.to_numpy()
    if not np.isin(values[:, 0], (-1, 0)).all() or not np.isin(values[:, 1:], (0, 1)).all():
        raise ValueError(f"{path}: expected column 0 in {{-1, 0}} and 0/1 elsewhere")
    attributes = []
    for group in _MONKS_DUMMIES:
        dummies = frame[list(group)].to_numpy()
        if (dummies.sum(axis=1) > 1).any():
            raise ValueError(f"{path}: more than one of the columns {group} set in a row")
        attributes.append(1 + dummies @ np.arange(1, len(group) + 1))
    attributes.append(1 + frame["y"].to_numpy())
    A = np.column_stack(attributes).astype(np.int64)
    n_train = MONKS_TRAINING_ROWS[name]
    grid = np.array(list(itertools.product(*(range(1, k + 1) for k in _MONKS_VALUES))))
    if len(A) != n_train + len(grid) or not np.array_equal(A[n_train:], grid):
        raise ValueError(f"{path}: expected {n_train} training rows followed by the {len(grid)} "
                         "attribute combinations of the UCI test file, in order")
    X = pd.DataFrame(A[:n_train].astype(np.float64), columns=[f"a{j}" for j in range(1, 7)])
    return X, (values[:n_train, 0] + 1).astype(np.int64)
