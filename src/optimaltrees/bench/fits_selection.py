"""Fits of the ``selection`` suite: model selection measured on held-out rows.

Each function runs in a worker process of its own (:mod:`optimaltrees.bench.worker`
names it ``optimaltrees.bench.fits_selection:NAME``), reads one data set,
makes the suite's one stratified split, fits one method on the training part
and returns a JSON-able record: held-out accuracy, leaves, seconds of the
whole selection (``fit`` and whatever tuning the method does), and what the
method chose.  The split is made the same way in every process, so every
method sees the same rows.

Why each method gets its data its own way: our estimator takes the table as
it is read (text columns as categories, numbers as numbers); scikit-learn's
CART needs numbers, so text columns are one-hot encoded; pystreed needs 0/1
features, so numeric columns are cut at quantile thresholds
(:func:`optimaltrees.bench.data.quantile_binarise`) and text columns one-hot
encoded.  Every encoding is fitted on the training rows only and applied
unchanged to the held-out rows.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from optimaltrees.bench.data import quantile_binarise
from optimaltrees.bench.fits import _Clock

if TYPE_CHECKING:
    import pandas as pd

#: column names that are not features (a name, an identifier)
Columns = tuple[str, ...] | list[str]

#: how each collection of the shared data is read (see :func:`read_set`)
COLLECTIONS = ("numeric", "binary", "categorical", "diagrams")

#: the methods of the suite, each a function of this module
METHODS = ("ours", "one_fit", "cart", "pystreed")


# ---------------------------------------------------------------- data

def read_set(path: str, collection: str, drop: Columns = ()) -> tuple["pd.DataFrame", np.ndarray]:
    """(X DataFrame, y class indices 0..K-1) of a data file of ``collection``.

    ``numeric`` and ``binary``: label-first, space separated, every feature
    a number.  ``diagrams``: CSV with a header, the class in column ``y``,
    features as the file has them (one-hot groups stay 0/1 columns).
    ``categorical``: CSV with a header, class last; every feature holds
    category codes, so each becomes a text column (a category, not a
    number: ``x == v`` tests, not thresholds).  ``drop``: columns that are
    not features (a name, an identifier)."""
    from optimaltrees.data.tables import read_table

    if collection not in COLLECTIONS:
        raise ValueError(f"unknown collection {collection!r}; expected one of {', '.join(COLLECTIONS)}")
    table = read_table(path)
    absent = [c for c in drop if c not in table.X.columns]
    if absent:
        raise ValueError(f"{path}: no column {absent[0]!r} to drop")
    X = table.X.drop(columns=list(drop)).reset_index(drop=True)
    if collection == "categorical":
        X = X.apply(_as_text)
    _, y = np.unique(np.asarray(table.y), return_inverse=True)
    return X, y.astype(np.int64)


def _as_text(column: "pd.Series") -> "pd.Series":
    """A column of category codes as text: whole numbers without a decimal
    point (``3``, not ``3.0``, as the file writes them); a missing value
    stays missing."""
    import pandas as pd

    values = column
    if pd.api.types.is_numeric_dtype(column):
        whole = column.dropna()
        if (whole == np.round(whole)).all():
            values = column.astype("Int64")
    return values.astype(object).where(column.notna(), None).map(lambda v: v if v is None else str(v))


def split_set(y: np.ndarray, test_share: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(training rows, held-out rows): one split stratified by class, the
    same for every method of a data set (scikit-learn's ``train_test_split``)."""
    from sklearn.model_selection import train_test_split

    train, test = train_test_split(np.arange(len(y)), test_size=test_share, stratify=y, random_state=seed)
    return np.sort(train), np.sort(test)


def _text_columns(X) -> list:
    import pandas as pd

    return [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]


def one_hot(Xtr: "pd.DataFrame", Xte: "pd.DataFrame") -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Numbers for CART: text columns one-hot (the training rows' values; an
    unseen value in a held-out row sets none of its column's dummies),
    numeric columns unchanged.  Returns (train, held-out, column names)."""
    import pandas as pd

    text = _text_columns(Xtr)
    train = pd.get_dummies(Xtr, columns=text, prefix_sep="=", dtype=float)
    test = pd.get_dummies(Xte, columns=text, prefix_sep="=", dtype=float).reindex(columns=train.columns,
                                                                                 fill_value=0.0)
    return (train.to_numpy(dtype=np.float64), test.to_numpy(dtype=np.float64),
            [str(c) for c in train.columns])


def zero_one(Xtr: "pd.DataFrame", Xte: "pd.DataFrame", thresholds: int) -> tuple[np.ndarray, np.ndarray]:
    """0/1 features for pystreed: each numeric column becomes ``x <= q`` for
    the quantiles q of the training rows (:func:`quantile_binarise` with
    ``thresholds`` levels), each text column one dummy per training value.
    The held-out rows get the same tests."""
    import pandas as pd

    text = _text_columns(Xtr)
    numeric = [c for c in Xtr.columns if c not in text]
    parts_tr, parts_te = [], []
    if numeric:
        values_tr = Xtr[numeric].to_numpy(dtype=np.float64)
        values_te = Xte[numeric].to_numpy(dtype=np.float64)
        Btr, tests = quantile_binarise(values_tr, thresholds)
        parts_tr.append(Btr)
        parts_te.append(np.column_stack([values_te[:, j] <= q for j, q in tests]).astype(np.int32))
    if text:
        train = pd.get_dummies(Xtr[text], prefix_sep="=", dtype=np.int32)
        test = pd.get_dummies(Xte[text], prefix_sep="=", dtype=np.int32).reindex(columns=train.columns, fill_value=0)
        parts_tr.append(train.to_numpy(dtype=np.int32))
        parts_te.append(test.to_numpy(dtype=np.int32))
    return np.hstack(parts_tr).astype(np.int32), np.hstack(parts_te).astype(np.int32)


def _prepare(data: str, collection: str, drop, test_share: float, seed: int):
    """(X train, y train, X held out, y held out, record fields of the set)."""
    X, y = read_set(data, collection, tuple(drop))
    train, test = split_set(y, test_share, seed)
    Xtr, Xte = X.iloc[train].reset_index(drop=True), X.iloc[test].reset_index(drop=True)
    info = dict(rows=int(len(y)), features=int(X.shape[1]), classes=int(len(np.unique(y))),
                categorical=len(_text_columns(X)), n_train=int(len(train)), n_test=int(len(test)))
    return Xtr, y[train], Xte, y[test], info


def _accuracy(model, X, y) -> float:
    return float(np.mean(np.asarray(model.predict(X)) == y))


def _folds(folds: int):
    """The folds every tuned method uses: scikit-learn's StratifiedKFold
    without shuffling, so that the same training rows give the same folds
    in every process."""
    from sklearn.model_selection import StratifiedKFold

    return StratifiedKFold(folds)


# ---------------------------------------------------------------- the methods

def ours(*, data: str, collection: str, drop: Columns = (), depth: int = 4, folds: int = 5,
         time_limit: float = 120.0, test_share: float = 0.3, seed: int = 0) -> dict:
    """OptimalTreeClassifierCV: depth 1..``depth`` and node cost chosen by
    ``folds``-fold cross-validation, the whole search within ``time_limit``.

    Besides accuracy, leaves and seconds the record says what was chosen,
    how many of the candidate-fold trees the selection scored are proven
    optimal (``cv_results_``'s ``split<i>_proven``), how many of the paths
    the time limit stopped, and whether the fit warned that it did."""
    from optimaltrees import OptimalTreeClassifierCV

    Xtr, ytr, Xte, yte, info = _prepare(data, collection, drop, test_share, seed)
    model = OptimalTreeClassifierCV(max_depth=depth, cv=_folds(folds), time_limit=time_limit)
    with warnings.catch_warnings(record=True) as caught, _Clock() as clock:
        warnings.simplefilter("always")
        model.fit(Xtr, ytr)
    res = model.cv_results_
    k = model.n_splits_
    proven = np.array([res[f"split{i}_proven"] for i in range(k)])
    stopped_folds = {(int(d), i) for i in range(k)
                     for d, hit in zip(res["param_max_depth"], res[f"split{i}_timed_out"]) if hit}
    stopped_all = [d for d, path in model.paths_.items() if not np.all(path.proven)]
    timeout = [str(w.message) for w in caught if issubclass(w.category, UserWarning)
               and "time_limit" in str(w.message)]
    best = model.best_estimator_
    return dict(info, method="ours", seconds=clock.seconds, cpu_seconds=clock.cpu_seconds,
                train_acc=_accuracy(model, Xtr, ytr), test_acc=_accuracy(model, Xte, yte),
                leaves=int(best.get_n_leaves()), tree_depth=int(best.get_depth()),
                depth=int(model.best_params_["max_depth"]), cost=float(model.best_params_["complexity_cost"]),
                candidates=int(len(res["params"])), fold_trees=int(proven.size),
                fold_trees_proven=int(proven.sum()), optimal=bool(model.is_optimal_),
                paths=int(len(model.paths_) * (k + 1)), paths_stopped=len(stopped_folds) + len(stopped_all),
                timed_out=bool(timeout), warning=timeout[0] if timeout else None,
                rss_before_fit_mb=clock.rss_before_mb)


def one_fit(*, data: str, collection: str, drop: Columns = (), depth: int = 4, time_limit: float = 120.0,
            test_share: float = 0.3, seed: int = 0) -> dict:
    """One OptimalTreeClassifier of depth ``depth`` (default node cost) on the
    same training rows: the yardstick of what the cross-validation costs."""
    from optimaltrees import OptimalTreeClassifier

    Xtr, ytr, Xte, yte, info = _prepare(data, collection, drop, test_share, seed)
    model = OptimalTreeClassifier(max_depth=depth, time_limit=time_limit)
    with warnings.catch_warnings(), _Clock() as clock:
        warnings.simplefilter("ignore", UserWarning)      # the time-out warning: the record says it
        model.fit(Xtr, ytr)
    return dict(info, method="one_fit", seconds=clock.seconds, cpu_seconds=clock.cpu_seconds,
                train_acc=_accuracy(model, Xtr, ytr), test_acc=_accuracy(model, Xte, yte),
                leaves=int(model.get_n_leaves()), tree_depth=int(model.get_depth()),
                optimal=bool(model.is_optimal_), timed_out=bool(model.timed_out_),
                rss_before_fit_mb=clock.rss_before_mb)


def cart_grid(X: np.ndarray, y: np.ndarray, depth: int) -> list[dict]:
    """GridSearchCV's grid for CART: one dict per depth 1..``depth``, holding
    every ``ccp_alpha`` of the pruning path of the tree of that depth on
    (X, y): each pruned subtree CART can reach at that depth is a candidate."""
    from sklearn.tree import DecisionTreeClassifier

    grid = []
    for d in range(1, depth + 1):
        path = DecisionTreeClassifier(max_depth=d, random_state=0).cost_complexity_pruning_path(X, y)
        alphas = np.unique(np.clip(path.ccp_alphas, 0.0, None))     # (rounding can leave -1e-17)
        grid.append({"max_depth": [d], "ccp_alpha": [float(a) for a in alphas]})
    return grid


def cart(*, data: str, collection: str, drop: Columns = (), depth: int = 4, folds: int = 5,
         test_share: float = 0.3, seed: int = 0, time_limit: float | None = None) -> dict:
    """scikit-learn's CART tuned by GridSearchCV on the same folds: depth
    1..``depth`` and, per depth, its whole pruning path; refitted on the
    training rows.  The seconds include computing the grid.  No time limit
    (``time_limit`` is accepted for a uniform call, and ignored)."""
    from sklearn.model_selection import GridSearchCV
    from sklearn.tree import DecisionTreeClassifier

    Xtr, ytr, Xte, yte, info = _prepare(data, collection, drop, test_share, seed)
    Atr, Ate, names = one_hot(Xtr, Xte)
    with _Clock() as clock:
        grid = cart_grid(Atr, ytr, depth)
        search = GridSearchCV(DecisionTreeClassifier(random_state=0), grid, cv=_folds(folds), n_jobs=1)
        search.fit(Atr, ytr)
    best = search.best_estimator_
    return dict(info, method="cart", seconds=clock.seconds, cpu_seconds=clock.cpu_seconds,
                encoded_columns=len(names), train_acc=_accuracy(search, Atr, ytr),
                test_acc=_accuracy(search, Ate, yte), leaves=int(best.get_n_leaves()),
                tree_depth=int(best.get_depth()), depth=int(search.best_params_["max_depth"]),
                cost=float(search.best_params_["ccp_alpha"]),
                candidates=int(sum(len(g["ccp_alpha"]) for g in grid)), rss_before_fit_mb=clock.rss_before_mb)


def pystreed(*, data: str, collection: str, drop: Columns = (), depth: int = 4, thresholds: int = 5,
             time_limit: float = 120.0, test_share: float = 0.3, seed: int = 0) -> dict:
    """pystreed's STreeDClassifier with ``hyper_tune=True`` on 0/1 features.

    Its tuning (STreeD's own, for the accuracy task) cross-validates every
    (depth, number of branch nodes) up to ``depth`` on its own folds
    (``num_hyper_runs``, 5 by default) and then fits the chosen size on all
    training rows; ``time_limit`` bounds the whole of it.  Proven: the final
    fit says so (``fit_result.is_optimal()``)."""
    from pystreed import STreeDClassifier

    Xtr, ytr, Xte, yte, info = _prepare(data, collection, drop, test_share, seed)
    Btr, Bte = zero_one(Xtr, Xte, thresholds)
    model = STreeDClassifier(max_depth=depth, hyper_tune=True, time_limit=float(time_limit))
    with _Clock() as clock:
        model.fit(Btr, ytr)
    proven = bool(model.fit_result.is_optimal())
    return dict(info, method="pystreed", seconds=clock.seconds, cpu_seconds=clock.cpu_seconds,
                encoded_columns=int(Btr.shape[1]), train_acc=_accuracy(model, Btr, ytr),
                test_acc=_accuracy(model, Bte, yte), leaves=int(model.get_n_leaves()),
                tree_depth=int(model.get_depth()), optimal=proven,
                timed_out=not proven or clock.seconds >= 0.99 * float(time_limit),
                rss_before_fit_mb=clock.rss_before_mb)
