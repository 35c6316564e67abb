"""Input checks for the estimators: clear errors that name the problem.

Plain numpy arrays take a fast path (scikit-learn's generic validation spends
milliseconds per call probing for dataframe libraries, which dominates small
fits); everything else - DataFrames, lists, sparse input - goes through
scikit-learn's ``validate_data`` so feature names and messages stay standard.
"""
from __future__ import annotations

import numbers
import warnings

import time

import numpy as np
from sklearn.utils.validation import validate_data


def _plain_numeric(a) -> bool:
    """True for the inputs the fast path handles: real-valued numpy arrays."""
    return type(a) is np.ndarray and a.dtype.kind in "biuf"


#: the preparation steps (encoding, checks, SAT's reduction) do about this
#: many cells of work between two checkpoints (a few ms)
CHECK_CELLS = 2 ** 22


class PreparationTimeout(Exception):
    """A fit's time limit passed while its data was being prepared."""


def preparation_clock(deadline: float | None):
    """The checkpoint the preparation steps call: raises
    :class:`PreparationTimeout` once ``deadline`` (``time.perf_counter``) has passed."""
    def checkpoint() -> None:
        if deadline is not None and time.perf_counter() > deadline:
            raise PreparationTimeout
    return checkpoint


def _fast_matrix(X: np.ndarray, estimator_name: str, allow_nan: bool = False,
                 checkpoint=None) -> np.ndarray:
    """X as C-ordered float64, refused with scikit-learn's messages when it is
    not a non-empty 2-D finite matrix (NaN allowed with ``allow_nan``).
    ``checkpoint()`` (optional) is called between blocks of rows: a fit's time
    limit raises from it while a large matrix is checked."""
    if X.ndim != 2:
        raise ValueError(
            f"Expected 2D array, got {X.ndim}D array instead. Reshape your data either using "
            "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) "
            "if it contains a single sample."
        )
    if X.shape[0] == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required.")
    if X.shape[1] == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
    X = np.ascontiguousarray(X, dtype=np.float64)
    if checkpoint is not None:
        step = max(1, CHECK_CELLS // X.shape[1])
        for r0 in range(0, X.shape[0], step):        # blocks of rows, no matrix-sized temporary
            checkpoint()
            block = X[r0:r0 + step]
            if not (np.isfinite(block).all() or (allow_nan and not np.isinf(block).any())):
                break
        else:
            return X
    if not np.isfinite(X).all():
        if allow_nan and not np.isinf(X).any():
            return X
        if np.isnan(X).any() and not allow_nan:
            raise ValueError(f"Input X contains NaN. {estimator_name} does not accept missing values.")
        raise ValueError("Input X contains infinity or a value too large for dtype('float64').")
    return X


def is_missing(v) -> bool:
    """None, NaN, pandas NA or NaT (whose truth value is an error, so tested first)."""
    if v is None:
        return True
    if type(v).__name__ in ("NAType", "NaTType"):
        return True
    try:
        return bool(v != v)
    except (TypeError, ValueError):
        return False


def check_raw_labels(y) -> None:
    """Refuse labels that numpy's conversion would silently change: missing
    ones (None, NaN, pandas NA) and strings mixed with numbers (``[1, '1']``
    becomes two equal strings, one class).  Only object-typed input (lists,
    object arrays and Series) can hold these; numeric arrays pass at once."""
    if y is None:
        return      # scikit-learn's own "requires y" message follows
    dtype = getattr(y, "dtype", None)
    if dtype is not None and getattr(dtype, "kind", "O") == "M":
        missing = np.flatnonzero(np.isnat(np.asarray(y, dtype="datetime64[ns]").reshape(-1)))
        if len(missing):
            raise ValueError(f"y has {len(missing)} missing label(s) (NaT), at row(s) "
                             f"{missing[:10].tolist()}{' ...' if len(missing) > 10 else ''}: drop those rows "
                             "or give them a class")
        return
    if dtype is not None and getattr(dtype, "kind", "O") in "biufUS":
        return
    try:
        values = np.asarray(y, dtype=object).reshape(-1)
    except (TypeError, ValueError):
        return      # ragged or exotic: scikit-learn's checks give the message
    missing = [i for i, v in enumerate(values) if is_missing(v)]
    if missing:
        raise ValueError(f"y has {len(missing)} missing label(s) (None, NaN, NA or NaT), at row(s) "
                         f"{missing[:10]}{' ...' if len(missing) > 10 else ''}: drop those rows "
                         "or give them a class")
    text = [v for v in values if isinstance(v, (str, bytes))]
    if text and len(text) < len(values):
        number = next(v for v in values if not isinstance(v, (str, bytes)))
        raise ValueError(f"y mixes text and non-text labels (e.g. {text[0]!r} and {number!r}); "
                         "numpy would turn them all into text, so that 1 and '1' become one class: "
                         "give every label the same type")


#: integers up to this magnitude are exact in float64
EXACT_FLOAT_INT = 2 ** 53


def refuse_merged_integers(values: np.ndarray, name) -> None:
    """Integers beyond 2^53 that float64 cannot tell apart are refused: a
    tree proven optimal on the merged values is not optimal on the data."""
    if values.dtype.kind not in "iu" or values.size == 0:
        return
    # compared as integers: 2^53 + 1 rounds to 2^53 as a float, so a test on
    # the float images would pass the very values that merge
    if int(values.min()) >= -EXACT_FLOAT_INT and int(values.max()) <= EXACT_FLOAT_INT:
        return
    if len(np.unique(values.astype(np.float64))) != len(np.unique(values)):
        raise ValueError(f"column {name!r} has distinct integers beyond +-2^53 that are equal as float64 "
                         "(e.g. nanosecond timestamps); scale them (e.g. to seconds) or pass the column "
                         "as categorical")


def refuse_merged_integer_series(s, name) -> None:
    """:func:`refuse_merged_integers` on a pandas column of integers
    (nullable ones too: their missing cells left out); others pass."""
    if getattr(s.dtype, "kind", "O") in "iu":
        unsigned = str(s.dtype).lower().startswith("uint")
        refuse_merged_integers(s.dropna().to_numpy(dtype=np.uint64 if unsigned else np.int64), name)


def _refuse_merged_integer_columns(X) -> None:
    """:func:`refuse_merged_integers` on every integer column of X (an array,
    a list of rows or a DataFrame, nullable integer columns included)."""
    if hasattr(X, "columns") and hasattr(X, "iloc"):
        for name, s in X.items():
            refuse_merged_integer_series(s, name)
        return
    arr = X if isinstance(X, np.ndarray) else None
    if arr is None and isinstance(X, (list, tuple)):
        try:
            arr = np.asarray(X)
        except (TypeError, ValueError):
            return
    if arr is not None and arr.ndim == 2 and arr.dtype.kind in "iu":
        for k in range(arr.shape[1]):
            refuse_merged_integers(arr[:, k], k)


_is_missing_cell = np.frompyfunc(lambda v: is_missing(v), 1, 1)


def _dense_frame(X):
    """A DataFrame's sparse columns made dense: scikit-learn's conversion goes
    through a COO matrix, which refuses any fill value but 0 ("fill value
    must be 0"), and warns for the rest."""
    if hasattr(X, "columns") and hasattr(X, "dtypes"):
        sparse = [c for c, t in X.dtypes.items() if type(t).__name__ == "SparseDtype"]
        if sparse:
            X = X.copy()
            for c in sparse:
                X[c] = X[c].sparse.to_dense()
    return X


def _missing_to_nan(X):
    """An object array's missing cells (None, pandas NA / NaT) as NaN, which
    the float conversion then reads as missing (``float(pd.NA)`` raises a
    TypeError deep in numpy).  What ``DataFrame.to_numpy()`` gives for
    nullable columns."""
    if isinstance(X, np.ndarray) and X.dtype == object and X.size:
        mask = _is_missing_cell(X).astype(bool)
        if mask.any():
            X = X.copy()
            X[mask] = np.nan
    return X


def _quiet_sum(values: np.ndarray) -> float:
    """A sum that may overflow to inf without numpy's RuntimeWarning (the caller says why)."""
    with np.errstate(over="ignore"):
        return float(values.sum())


def check_fit_data(estimator, X, y, allow_nan: bool = False, checkpoint=None) -> tuple[np.ndarray, np.ndarray]:
    """Validated (X as float64 (n, p), y as 1-D) for ``fit``; sets ``n_features_in_``.
    ``allow_nan``: missing values (NaN) in X are data; infinity stays an error.
    ``checkpoint``: see :func:`_fast_matrix` (numpy matrices only)."""
    name = type(estimator).__name__
    check_raw_labels(y)
    _refuse_merged_integer_columns(X)
    if not allow_nan:
        refuse_nan_columns(X, name)
    if _plain_numeric(X) and type(y) is np.ndarray and y.ndim == 1:
        X = _fast_matrix(X, name, allow_nan, checkpoint)
        if y.shape[0] != X.shape[0]:
            raise ValueError(
                "Found input variables with inconsistent numbers of samples: "
                f"[{X.shape[0]}, {y.shape[0]}]"
            )
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            raise ValueError("Input y contains NaN or infinity.")
        estimator.n_features_in_ = X.shape[1]
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        return X, y
    refuse_complex_input(X)
    X = _missing_to_nan(_dense_frame(X))
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) == 2 and shape[1] == 0:
        # (a DataFrame without columns reached numpy's "at least one array or dtype is required")
        raise ValueError(f"Found array with 0 feature(s) (shape={tuple(shape)}) while a minimum of 1 is required.")
    return validate_data(estimator, X, y, dtype=np.float64, ensure_all_finite="allow-nan" if allow_nan else True,
                         y_numeric=False, multi_output=False)


class IdentifierColumnWarning(UserWarning):
    """A categorical column whose values are nearly all distinct: most likely
    an identifier or a name, whose one test per value slows the fit and
    whose splits mean nothing."""


def refuse_nan_columns(X, owner: str) -> None:
    """Missing values where ``owner`` does not search them are refused naming
    their columns (scikit-learn's message names none)."""
    if hasattr(X, "columns") and hasattr(X, "isna"):
        bad = [str(c) for c, gap in X.isna().any().items() if gap]
    else:
        arr = X if isinstance(X, np.ndarray) else None
        if arr is None or arr.ndim != 2 or arr.dtype.kind != "f":
            return          # lists and object arrays: the later checks name what they find
        bad = [int(j) for j in np.flatnonzero(np.isnan(arr).any(axis=0))]
    if bad:
        raise ValueError(f"Input X contains NaN (missing values) in column(s) {bad[:10]}"
                         f"{' ...' if len(bad) > 10 else ''}. {owner} does not accept missing values.")


def refuse_missing_columns(X, fitted_names, owner: str) -> None:
    """A table without some column the model was fitted on is refused naming
    the columns it lacks (a count of features says less)."""
    if fitted_names is None or not hasattr(X, "columns"):
        return
    have = {str(c) for c in X.columns}
    missing = [str(c) for c in fitted_names if str(c) not in have]
    if missing:
        raise ValueError(f"X lacks the column(s) {missing[:10]}{' ...' if len(missing) > 10 else ''} "
                         f"that {owner} was fitted with")


def check_predict_data(estimator, X, allow_nan: bool = False) -> np.ndarray:
    """Validated X for prediction: same width as in ``fit``."""
    refuse_missing_columns(X, getattr(estimator, "feature_names_in_", None), type(estimator).__name__)
    if not allow_nan:
        refuse_nan_columns(X, type(estimator).__name__)
    if _plain_numeric(X) and not hasattr(estimator, "feature_names_in_"):
        X = _fast_matrix(X, type(estimator).__name__, allow_nan)
        if X.shape[1] != estimator.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
                f"{estimator.n_features_in_} features as input."
            )
        return X
    refuse_complex_input(X)
    X = _missing_to_nan(_dense_frame(X))
    return validate_data(estimator, X, dtype=np.float64, ensure_all_finite="allow-nan" if allow_nan else True,
                         reset=False)


#: pandas' inferred kinds of an object column whose cells are text, bytes,
#: real numbers or bools, or missing: ``pd.isna`` then finds exactly the cells
#: :func:`is_missing` finds, and no cell is complex
PLAIN_OBJECT_KINDS = frozenset({"string", "bytes", "integer", "floating", "boolean",
                                "mixed-integer-float", "empty"})


def object_kind(col: np.ndarray) -> str:
    """pandas' inferred kind of an object column's cells (missing ones skipped),
    in one C pass."""
    from pandas.api.types import infer_dtype

    return infer_dtype(col, skipna=True)


def plain_object_column(col: np.ndarray) -> bool:
    """True for an object column of text, numbers or bools (and missing
    cells): what pandas infers in one C pass, so that the per-cell Python
    checks (missing, complex) can be vectorised (200,000 rows x 60 text
    columns: 9 s of ``is_missing`` calls)."""
    return col.dtype.kind == "O" and object_kind(col) in PLAIN_OBJECT_KINDS


def missing_cells(col: np.ndarray, kind: str | None = None) -> np.ndarray:
    """Which cells of a column are missing (:func:`is_missing`: NaN, None,
    pandas NA, NaT), vectorised for numeric and plain object columns;
    ``kind``: the column's :func:`object_kind`, when the caller has it."""
    if col.dtype.kind == "f":
        return np.isnan(col)
    if col.dtype.kind != "O":
        return np.zeros(len(col), dtype=bool)
    if (kind if kind is not None else object_kind(col)) in PLAIN_OBJECT_KINDS:
        import pandas as pd

        return np.asarray(pd.isna(col), dtype=bool)
    return np.fromiter((is_missing(v) for v in col.tolist()), dtype=bool, count=len(col))


def refuse_complex(cols: list[np.ndarray], names: list[str] | None) -> None:
    """Complex numbers are refused, not cast: a cast to float keeps the real
    part and drops the imaginary one without a word (scikit-learn's message)."""
    for i, col in enumerate(cols):
        if col.dtype.kind == "c" or (col.dtype.kind == "O" and not plain_object_column(col)
                                     and any(isinstance(v, complex) for v in col)):
            name = names[i] if names is not None else i
            raise ValueError(f"Complex data not supported: column {name!r} holds complex numbers")


def refuse_time(dtype, name) -> None:
    """Dates, periods and durations are refused by name: a tree splits numbers or
    categories, and which one a date should be (an ordered instant, a
    category, days since something) is the user's choice, not a cast's."""
    where = "X" if name is None else f"column {name!r}"
    if getattr(dtype, "kind", "") in ("M", "m"):
        what, unit = ("dates", "days since a reference date") if dtype.kind == "M" else ("durations", "days")
        raise TypeError(f"{where} holds {what} ({dtype}), which are not supported; convert them "
                        f"to numbers (e.g. {unit}) or to strings (a category)")
    if type(dtype).__name__ == "PeriodDtype":      # months, quarters: dates too, not categories
        raise TypeError(f"{where} holds periods ({dtype}), which are not supported; convert them to "
                        "numbers (e.g. the period's ordinal or year) or to strings (a category)")


def refuse_complex_input(X) -> None:
    """:func:`refuse_complex` and :func:`refuse_time` on a DataFrame's
    columns or a 2-D array-like's (anything else is left to the checks that
    follow)."""
    if hasattr(X, "columns") and hasattr(X, "items"):
        for name, s in X.items():
            refuse_time(s.dtype, str(name))
        refuse_complex([np.asarray(s.to_numpy()) for _, s in X.items()], [str(c) for c in X.columns])
        return
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        return
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError):
        return
    if arr.ndim == 2:
        refuse_time(arr.dtype, None)
        refuse_complex([arr[:, i] for i in range(arr.shape[1])], None)


def check_class_labels(y: np.ndarray) -> None:
    """Reject regression targets, as scikit-learn's ``check_classification_targets`` does."""
    if type(y) is np.ndarray and y.ndim == 1 and y.dtype.kind in "biuUS":
        return
    if type(y) is np.ndarray and y.ndim == 1 and y.dtype.kind == "f":
        if np.all(y == np.round(y)):
            return
        raise ValueError(
            "Unknown label type: continuous. Classification needs discrete labels; "
            "y has non-integer float values (for a numeric target use OptimalTreeRegressor)."
        )
    from sklearn.utils.multiclass import check_classification_targets

    check_classification_targets(y)


#: numeric labels with more distinct values than this look like a quantity, not classes
MANY_NUMERIC_CLASSES = 50


def warn_numeric_classes(y: np.ndarray, n_classes: int, owner: str) -> None:
    """Warn when numeric labels have so many distinct values that they are
    more likely a quantity to regress on (a price, an age) than classes:
    each value would be a class, and the tree would be proven optimal at
    the wrong task."""
    if n_classes > MANY_NUMERIC_CLASSES and np.asarray(y).dtype.kind in "iuf":
        warnings.warn(f"y has {n_classes} distinct numeric values and {owner} treats each as a class; "
                      "for a numeric target use OptimalTreeRegressor", UserWarning, stacklevel=3)


def check_integer(name: str, value, *, low: int | None = None, allow_none: bool = False) -> None:
    """An integer (not a bool) of at least ``low``, with an error that names the parameter."""
    if value is None and allow_none:
        return
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")


def check_fit_weights(sample_weight, class_weight, y_index: np.ndarray, classes: np.ndarray) -> np.ndarray | None:
    """Each row's weight for ``fit``, as scikit-learn's trees take them: the
    sample weights (one per row, or one number for all) times the weight of
    the row's class (``"balanced"``: n / (n_classes * rows of the class), so
    that the optimum maximises balanced accuracy; a dict: label -> weight,
    1 for labels it leaves out).  None when both are None.  Errors name the
    problem: wrong shape, text, NaN, infinity, negative weights, unknown
    labels, or every weight 0."""
    n = y_index.shape[0]
    weight = None
    if sample_weight is not None:
        try:
            weight = np.asarray(sample_weight, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError("sample_weight must hold numbers, one per row") from None
        if weight.ndim == 0:
            weight = np.full(n, float(weight))
        if weight.shape != (n,):
            raise ValueError(f"sample_weight has shape {weight.shape}, expected ({n},): one weight per row")
        if not np.isfinite(weight).all():
            raise ValueError("sample_weight contains NaN or infinity: every weight must be a finite number")
        if (weight < 0).any():
            raise ValueError(f"sample_weight has {int(np.count_nonzero(weight < 0))} negative weight(s) "
                             f"(first at row {int(np.flatnonzero(weight < 0)[0])}): weights must be >= 0")
    if class_weight is not None:
        per_class = np.ones(len(classes))
        if isinstance(class_weight, str):
            if class_weight != "balanced":
                raise ValueError(f"class_weight must be 'balanced', a dict or None, got {class_weight!r}")
            per_class = n / (len(classes) * np.bincount(y_index, minlength=len(classes)))
        else:
            position = {label: k for k, label in enumerate(classes.tolist())}
            unknown = [label for label in class_weight if label not in position]
            if unknown:
                raise ValueError(f"class_weight names label(s) {unknown[:5]} that are not in y "
                                 f"(classes: {classes.tolist()[:10]})")
            for label, value in class_weight.items():
                if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) \
                        or not np.isfinite(value) or value < 0:
                    raise ValueError(f"class_weight[{label!r}] = {value!r}: class weights must be "
                                     "finite numbers >= 0")
                per_class[position[label]] = float(value)
        weight = per_class[y_index] if weight is None else weight * per_class[y_index]
    if weight is not None and not (weight > 0).any():
        raise ValueError("all sample weights are zero (sample_weight times class_weight): nothing to fit")
    if weight is not None and not np.isfinite(_quiet_sum(weight)):
        raise ValueError("the sample weights (times class_weight) sum to more than a float64 holds: "
                         "rescale them")
    return weight
