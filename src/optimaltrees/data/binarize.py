"""Boolean features from a mixed table, for the methods that split on 0/1 tests.

The SAT encodings (and any user who wants explicit tests) need every split to
be a yes/no question.  :class:`Binarizer` turns each column into such
questions, remembers them, and applies the same questions at predict time:

* a column with two values ``lo < hi`` (e.g. 0/1) -> one test ``col > mid``;
* a numeric column -> one test ``col > t`` per midpoint ``t`` between
  neighbouring distinct training values (a thermometer code);
* a categorical column (strings, pandas categories, or chosen by the user) ->
  one test ``col == v`` per value (one-hot); a two-valued categorical column
  gives the single test ``col == v`` for its second value.

A test's *false* side is the tree's left branch, so every rule reads naturally
("age <= 30.5" left, "age > 30.5" right; "color != red" left, "color == red"
right).  Constant columns give no test.

With ``keep_numeric`` (the exact tree search, which splits numeric columns
itself) a numeric column passes through as it is (a "value" column) and only
categorical columns become ``== v`` tests; missing values are then data: NaN
in a numeric column, and NaN in every test of a categorical column whose
value is missing (the search chooses where missing values go).
"""
from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from optimaltrees.data.encoding import threshold_between
from optimaltrees.data.tables import looks_like_identifier
from optimaltrees.data.thresholds import format_threshold
from optimaltrees.data.validation import (CHECK_CELLS, EXACT_FLOAT_INT, PLAIN_OBJECT_KINDS, IdentifierColumnWarning,
                                          PreparationTimeout,
                                          is_missing, missing_cells, object_kind, refuse_complex,
                                          refuse_merged_integer_series, refuse_merged_integers, refuse_missing_columns,
                                          refuse_time)


@dataclass(frozen=True)
class BooleanTest:
    """One yes/no question about one original column."""
    column: int
    kind: str            # "threshold" (x > value), "equals" (x == value), "in" (x in the tuple
                         # value) or "value" (x itself)
    value: Any
    name: str            # the column's name

    def labels(self, decimals: int = 4, name: str | None = None) -> tuple[str, str]:
        """(false side, true side) as text: the tree's left and right branch."""
        name = self.name if name is None else name
        if self.kind == "threshold":
            v = _fmt(self.value, decimals)
            return f"{name} <= {v}", f"{name} > {v}"
        if self.kind == "in":
            members = "{" + ", ".join(map(str, self.value)) + "}"
            return f"{name} not in {members}", f"{name} in {members}"
        return f"{name} != {self.value}", f"{name} == {self.value}"


def _fmt(value, decimals: int) -> str:
    """Exactly the test's threshold (never rounded: ``decimals`` is ignored),
    as every export prints thresholds; integers beyond 2^53 in full."""
    return format_threshold(value)


def _column_kind(col: np.ndarray, categorical: bool) -> str:
    if categorical:
        return "categorical"
    if col.dtype.kind in "biuf":
        return "numeric"
    # object columns of numbers (e.g. from a mixed DataFrame) stay numeric
    try:
        col.astype(np.float64)
    except (TypeError, ValueError):
        return "categorical"
    return "numeric"


def _unread_kind(col: np.ndarray, categorical: bool, keep: bool) -> str:
    """:func:`_column_kind` of a column a stopped fit did not read, without
    its missing-cell pass where a sample already says "categorical" (a text
    column: one non-missing cell that is not a number decides it)."""
    if categorical or col.dtype.kind in "biuf":
        return _column_kind(col, categorical)
    sample = col[:256]
    sample = sample[~missing_cells(sample)]
    if _column_kind(sample, False) == "categorical":
        return "categorical"
    return _column_kind(col[~missing_cells(col)] if keep else col, False)


def _as_columns(X, allow_missing: bool = False) -> tuple[list[np.ndarray], list[str] | None, list[bool]]:
    """Columns of X as 1-D arrays, the column names if X has them, and which
    columns pandas marks as categorical."""
    names = None
    pandas_categorical: list[bool]
    if hasattr(X, "columns") and hasattr(X, "iloc"):          # a pandas DataFrame
        names = [str(c) for c in X.columns]
        series = [s for _, s in X.items()]        # a column each, even under repeated names
        missing = [] if allow_missing else [names[i] for i, s in enumerate(series) if s.isna().any()]
        if missing:
            raise ValueError(f"Input X contains missing values (NaN/None/NA) in column(s) {missing}; "
                             "missing values are not supported.")
        for name, s in zip(names, series):
            refuse_time(s.dtype, name)
        cols = []
        pandas_categorical = []
        for s in series:
            is_cat = str(s.dtype) == "category"
            pandas_categorical.append(is_cat or s.dtype == object or str(s.dtype) in ("string", "str", "bool")
                                      or _pd_text(s))
            if allow_missing and not is_cat and pd_numeric(s):
                refuse_merged_integer_series(s, str(s.name))      # (ints beyond 2^53 would merge as floats)
                cols.append(s.to_numpy(dtype=np.float64, na_value=np.nan))   # nullable ints and floats: NaN
            else:
                cols.append(np.asarray(s.astype(object) if is_cat else s.to_numpy()))
        refuse_complex(cols, names)
        return cols, names, pandas_categorical
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise TypeError("sparse input is not supported; pass a dense array or DataFrame")
    arr = np.asarray(X, dtype=None if not isinstance(X, list) else object)
    if arr.dtype.kind == "O" and isinstance(X, list):
        try:
            # integers stay int64 (exact beyond 2^53); other numbers become
            # float64, unless an integer there would lose digits (beyond int64:
            # then each column is read on its own, refusing what would merge)
            natural = np.asarray(X)
            if natural.dtype.kind in "iubf":
                arr = natural
            elif not any(isinstance(v, int) and abs(v) > EXACT_FLOAT_INT for v in arr.reshape(-1)):
                arr = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            arr = np.asarray(X, dtype=object)
    if arr.ndim != 2:
        raise ValueError(
            f"Expected 2D array, got {arr.ndim}D array instead. Reshape your data either using "
            "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) "
            "if it contains a single sample.")
    refuse_time(arr.dtype, None)
    cols = [arr[:, i] for i in range(arr.shape[1])]
    refuse_complex(cols, None)
    return cols, None, [False] * arr.shape[1]


def _pd_text(series) -> bool:
    """A pandas text column (object, "string", pandas 3's "str")."""
    import pandas as pd

    return pd.api.types.is_string_dtype(series.dtype) and not pd.api.types.is_numeric_dtype(series.dtype)


def pd_numeric(series) -> bool:
    """A pandas column of numbers (nullable integer and float included, bool not)."""
    import pandas as pd

    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)


def _check_missing(col: np.ndarray, name: str, allow: bool = False, missing_checked: bool = False) -> None:
    """Refuse missing values (unless ``allow``) and infinity in a column;
    ``missing_checked``: its missing values were refused already (a
    DataFrame's up-front pass), only infinity is left to find."""
    if allow:
        if col.dtype.kind == "f" and np.isinf(col).any():
            raise ValueError(f"Input X contains infinity in column {name!r}.")
        return
    if col.dtype.kind == "f":
        if np.isnan(col).any():
            raise ValueError(f"Input X contains NaN in column {name!r}; missing values are not supported.")
        if not np.isfinite(col).all():
            raise ValueError(f"Input X contains infinity in column {name!r}.")
    elif col.dtype.kind == "O":
        inferred = object_kind(col)
        if inferred in PLAIN_OBJECT_KINDS:           # one vectorised pass for the missing cells
            if not missing_checked and missing_cells(col, inferred).any():
                raise ValueError(f"Input X contains a missing value (None/NaN/NA) in column {name!r}; "
                                 "missing values are not supported.")
            if inferred not in ("floating", "mixed-integer-float"):
                return                                   # no float cell: no infinity either
        for v in col:
            if is_missing(v):
                raise ValueError(f"Input X contains a missing value (None/NaN/NA) in column {name!r}; "
                                 "missing values are not supported.")
            if isinstance(v, float) and not np.isfinite(v):
                raise ValueError(f"Input X contains infinity in column {name!r}.")




def _numeric_values(col: np.ndarray, name: str) -> np.ndarray:
    """The column as int64/uint64 (kept exact: float64 would merge integers
    above 2^53) or float64.  Raises if a conversion would merge values."""
    if col.dtype.kind in "iuf":
        return col
    if col.dtype.kind == "b":
        return col.astype(np.uint8)
    try:
        values = np.asarray(col.tolist())
    except (TypeError, ValueError):
        values = None
    if values is not None and values.ndim == 1 and values.dtype.kind in "iuf":
        return values
    as_float = col.astype(np.float64)                # e.g. Decimal, mixed int/float, huge ints
    if len(np.unique(as_float)) != len(set(col.tolist())):
        raise ValueError(f"column {name!r} has distinct numeric values that are equal as float64 "
                         "(e.g. integers beyond +-2^53 mixed with other types); pass it as an int64 "
                         "column or as categorical")
    return as_float


def _thresholds(values: np.ndarray):
    """Thresholds between neighbouring distinct sorted ``values``: the
    tree search's (:func:`~optimaltrees.data.encoding.threshold_between`),
    or for integers beyond 2^53 the lower neighbour itself (``x > a`` is then
    exact for integers, where a float midpoint would round onto a value)."""
    if values.dtype.kind in "iu" and values.size and (
            values[0] < -EXACT_FLOAT_INT or values[-1] > EXACT_FLOAT_INT):
        return [int(v) for v in values[:-1]]
    values = values.astype(np.float64)
    return [threshold_between(float(a), float(b)) for a, b in zip(values[:-1], values[1:])]


class Binarizer:
    """Learn the Boolean tests of a table (``fit``) and answer them (``transform``).

    ``categorical``: "auto" (non-numeric columns and pandas categories),
    "all", "none", or a list of column indices or names.
    """

    def __init__(self, categorical: str | Sequence[int | str] = "auto", keep_numeric: bool = False,
                 subsets: bool = False) -> None:
        self.categorical = categorical
        self.keep_numeric = keep_numeric
        self.subsets = subsets

    # -- fit -------------------------------------------------------------------
    def fit(self, X, checkpoint=None) -> "Binarizer":
        """Learn each column's tests.  ``checkpoint()`` (optional) is called
        between columns: when it raises :class:`PreparationTimeout` (a fit's
        time limit), or Ctrl-C comes, the columns not read yet get no test
        and ``stopped_`` says why ("time" or "Ctrl-C"; None when every column
        was read), so that a stopped fit still has an encoder that checks
        X's columns for its leaf."""
        keep = bool(getattr(self, "keep_numeric", False))
        cols, names, pandas_cat = _as_columns(X, allow_missing=keep)
        n = len(cols[0]) if cols else 0
        if not cols:
            shape = tuple(np.shape(X)) if np.ndim(X) == 2 else None
            raise ValueError(f"Found array with 0 feature(s){f' (shape={shape})' if shape else ''} while a "
                             "minimum of 1 is required.")
        if n == 0:
            raise ValueError("Found array with 0 sample(s) while a minimum of 1 is required.")
        self.n_features_in_ = len(cols)
        self.feature_names_in_ = names
        self.column_names_ = names or [f"x[{i}]" for i in range(len(cols))]
        chosen = self._categorical_columns(pandas_cat)
        self.column_kinds_: list[str] = []
        self.stopped_: str | None = None
        tests: list[BooleanTest] = []
        for i, col in enumerate(cols):
            try:
                if checkpoint is not None:
                    checkpoint()
                tests += self._column_fit(i, col, i in chosen, keep)
            except (PreparationTimeout, KeyboardInterrupt) as stop:
                if checkpoint is None:
                    raise
                self.stopped_ = "time" if isinstance(stop, PreparationTimeout) else "Ctrl-C"
                # the unread columns get no test, but their kind and what a
                # complete fit refuses in them (missing values, infinity, text
                # in a numeric column): the leaf must not accept more
                del self.column_kinds_[i:]
                for j in range(i, len(cols)):
                    kind = _unread_kind(cols[j], j in chosen, keep)
                    self.column_kinds_.append(kind)
                    self._check_unread(j, cols[j], kind, keep, frame=names is not None)
                break
        self.tests_ = tests
        self.n_tests_ = len(tests)
        return self

    def _check_unread(self, i: int, col: np.ndarray, kind: str, keep: bool, frame: bool,
                      predict: bool = False) -> None:
        """What the fit (``predict``: the encoding) refuses in column ``i``, for
        a column a stopped fit gave no test, in the same words; ``frame``: the
        column is a DataFrame's, whose missing values were refused up front
        where they are not allowed."""
        name = self.column_names_[i]
        _check_missing(col, name, allow=keep, missing_checked=frame)
        if kind != "numeric":
            return
        if predict:
            _numbers_now(col, name, as_values=keep)
        else:
            _value_column(col, name) if keep else _numeric_values(col, name)

    def _column_fit(self, i: int, col: np.ndarray, categorical: bool, keep: bool) -> list[BooleanTest]:
        """Column ``i``'s tests (its kind appended to ``column_kinds_``)."""
        name = self.column_names_[i]
        _check_missing(col, name, allow=keep)
        miss = missing_cells(col) if keep else None
        kind = _column_kind(col[~miss] if keep else col, categorical)
        self.column_kinds_.append(kind)
        if kind == "numeric" and keep:
            _value_column(col, name)                    # refuses values float64 would merge
            return [BooleanTest(i, "value", None, name)]
        if kind == "numeric":
            values = np.unique(_numeric_values(col, name))
            return [BooleanTest(i, "threshold", t, name) for t in _thresholds(values)]
        gaps = keep and bool(miss.any())
        values = _unique_objects(col[~miss] if gaps else col, name)
        if looks_like_identifier(len(values), len(col)):
            warnings.warn(f"column {name!r} has {len(values)} different values in {len(col)} rows, like an "
                          f"identifier or a name: as a feature it becomes {len(values)} tests, slows the fit "
                          "and its splits say nothing about new rows; drop it if it is not a feature",
                          IdentifierColumnWarning, stacklevel=2)
        if getattr(self, "subsets", False) and len(values) >= 3:
            return _subset_tests(i, values, name)
        if len(values) == 2:
            values = values[1:]
        elif len(values) < 2 and keep:
            # a constant test (the search drops it) keeps every column represented,
            # so data that allows no split still fits a leaf; with missing values
            # it is a real test (missing against the one value)
            values = values or [None]
        elif len(values) < 2:
            values = []
        return [BooleanTest(i, "equals", v, name) for v in values]

    def _categorical_columns(self, pandas_cat: list[bool]) -> set[int]:
        p = len(pandas_cat)
        spec = self.categorical
        if isinstance(spec, str):
            if spec == "auto":
                return {i for i in range(p) if pandas_cat[i]}
            if spec == "all":
                return set(range(p))
            if spec == "none":
                return set()
            raise ValueError(f"categorical must be 'auto', 'all', 'none' or a list of columns, got {spec!r}")
        chosen = set()
        for c in spec:
            if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
                if not 0 <= c < p:
                    raise ValueError(f"categorical column index {c} is out of range for {p} columns")
                chosen.add(int(c))
            else:
                if c not in self.column_names_:
                    raise ValueError(f"categorical column {c!r} is not a column of X "
                                     f"(columns: {self.column_names_})")
                chosen.add(self.column_names_.index(c))
        return chosen

    # -- transform -------------------------------------------------------------
    def transform(self, X, owner: str = "Binarizer", checkpoint=None) -> np.ndarray:
        """The 0/1 matrix (n, n_tests_) of every test on every row; ``owner``
        names the estimator in errors (scikit-learn's wording).
        ``checkpoint()`` (optional) is called between columns and between
        blocks of about :data:`CHECK_CELLS` cells: a fit's time limit raises
        from it, so that encoding a large table stops with the clock."""
        keep = bool(getattr(self, "keep_numeric", False))
        refuse_missing_columns(X, self.feature_names_in_, owner)
        cols, names, _ = _as_columns(X, allow_missing=keep)
        if len(cols) != self.n_features_in_:
            raise ValueError(f"X has {len(cols)} features, but {owner} is expecting "
                             f"{self.n_features_in_} features as input.")
        if self.feature_names_in_ is not None and names is not None and names != self.feature_names_in_:
            raise ValueError(f"X has columns {names}, but the model was fitted with columns "
                             f"{self.feature_names_in_}")
        n = len(cols[0])
        if n == 0:
            raise ValueError("Found array with 0 sample(s) while a minimum of 1 is required.")
        _check_encoded_size(n, self.tests_, owner)
        check = checkpoint if checkpoint is not None else (lambda: None)
        # One output, each column's tests written into their own columns (no
        # per-column blocks to cast, concatenate and reorder: on 20,000 rows x
        # 4,000 categories those copies were 2.5 of the 2.8 s), a column at a
        # time and a block of rows at a time: the checkpoint paces the work and
        # the first touch of the output's pages (seconds on gigabytes), and
        # only one column's codes are held at once.
        if getattr(self, "stopped_", None) is not None:
            # a leaf of a stopped fit: the columns without a test are checked as a
            # complete encoder would check them (missing values, infinity, numbers)
            tested = {t.column for t in self.tests_}
            for j in range(self.n_features_in_):
                if j not in tested:
                    self._check_unread(j, cols[j], self.column_kinds_[j], keep, frame=names is not None,
                                       predict=True)
        out = np.zeros((n, self.n_tests_), dtype=np.float64 if keep else np.uint8)
        step = max(1, CHECK_CELLS // max(1, self.n_tests_))
        for column, kind, index, values in self._column_tests():
            check()
            col = cols[column]
            name = self.tests_[index[0]].name
            _check_missing(col, name, allow=keep)
            # a column's tests are consecutive (but under subsets): a slice writes in place
            dest = (slice(int(index[0]), int(index[-1]) + 1)
                    if np.array_equal(index, np.arange(index[0], index[0] + len(index))) else index)
            if kind in ("value", "threshold"):
                x = _numbers_now(col, name, as_values=kind == "value")
                if kind == "threshold" and values.dtype == object:      # exact integer thresholds
                    x, values = _exact_pair(x, values)
                for r0 in range(0, n, step):
                    check()
                    if kind == "value":
                        out[r0:r0 + step, index[0]] = x[r0:r0 + step]
                    else:
                        out[r0:r0 + step, dest] = x[r0:r0 + step, None] > values[None, :]
                continue
            codes, lut = _equality_codes(col, values, subsets=kind == "in")
            miss = missing_cells(col) if keep else None
            for r0 in range(0, n, step):
                check()
                r1 = min(n, r0 + step)
                if codes is None:                          # unhashable cells: a pass per value
                    out[r0:r1, dest] = _equality_dense(col[r0:r1], values, kind == "in")
                elif lut.ndim == 2:                        # subsets: the tests of each code
                    out[r0:r1, dest] = lut[codes[r0:r1]]
                else:                                      # equals: at most one test per code
                    test = lut[codes[r0:r1]]
                    hit = np.flatnonzero(test >= 0)
                    out[r0 + hit, index[test[hit]]] = 1
                if miss is not None and miss[r0:r1].any():  # missing in each of its tests
                    out[r0 + np.flatnonzero(miss[r0:r1])[:, None], index[None, :]] = np.nan
        return out

    def _column_tests(self):
        """(column, kind, test indices, test values) per column and kind, so
        that transform compares a whole column against all its thresholds."""
        groups: dict[tuple[int, str], list[int]] = {}
        for j, t in enumerate(self.tests_):
            groups.setdefault((t.column, t.kind), []).append(j)
        for (column, kind), index in groups.items():
            raw = [self.tests_[j].value for j in index]
            if kind == "threshold":
                exact = any(isinstance(v, int) for v in raw)
                values = np.array(raw, dtype=object if exact else np.float64)
            elif kind == "value":
                values = None
            else:
                values = raw
            yield column, kind, np.array(index), values

    def fit_transform(self, X) -> np.ndarray:
        return self.fit(X).transform(X)

    def test_labels(self, decimals: int = 4, column_names=None) -> list[tuple[str, str] | None]:
        """(left, right) text of every test (None for a "value" column, whose
        threshold is the tree's); ``column_names`` renames the columns."""
        return [None if t.kind == "value"
                else t.labels(decimals, None if column_names is None else str(column_names[t.column]))
                for t in self.tests_]

    def test_names(self, column_names=None) -> list[str]:
        """The name of each test's column (``column_names`` renames them)."""
        return [t.name if column_names is None else str(column_names[t.column]) for t in self.tests_]


def _exact_pair(x: np.ndarray, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``x`` and integer ``thresholds`` in one dtype that compares them
    exactly: x's own integer dtype when they fit, else Python objects."""
    if x.dtype.kind in "iu":
        try:
            return x, np.array(thresholds.tolist(), dtype=x.dtype)
        except OverflowError:
            pass
    return x.astype(object), thresholds              # Python compares int and float exactly


#: the encoded matrix (rows x tests) is refused beyond this many cells, before
#: it is built: 2 GB as the tree's float64 (a column of 100,000 categories over
#: 300,000 rows would be 30 billion cells, an out-of-memory crash)
MAX_ENCODED_CELLS = 2 ** 28


def _check_encoded_size(n_rows: int, tests: list, owner: str) -> None:
    """Refuse an encoded matrix over :data:`MAX_ENCODED_CELLS`, naming the
    column with the most tests (most likely an identifier or a free-text field)."""
    cells = n_rows * len(tests)
    if cells <= MAX_ENCODED_CELLS:
        return
    per_column: dict = {}
    for t in tests:
        per_column[t.name] = per_column.get(t.name, 0) + 1
    name, most = max(per_column.items(), key=lambda kv: kv[1])
    if any(t.kind == "threshold" for t in tests if t.name == name):
        what = ("one per threshold between its distinct values): round or bin it (or use "
                "OptimalTreeClassifier, which reads numeric columns without encoding them)")
    else:
        what = "one per category): drop it if it is an identifier, or group its categories"
    raise ValueError(f"{owner}: the encoded data would be {n_rows:,} rows x {len(tests):,} tests "
                     f"({cells:,} cells, more than {MAX_ENCODED_CELLS:,}); column {name!r} alone makes "
                     f"{most:,} tests ({what}; or predict in smaller batches")


#: categorical_splits="subsets": a column of m values gives 2^(m-1) - 1 tests,
#: one per way of splitting its values in two; more values than this are refused
MAX_SUBSET_VALUES = 12


def _subset_tests(column: int, values: list, name: str) -> list[BooleanTest]:
    """One test per split of ``values`` into two non-empty groups: "x in S"
    for each non-empty S among the values after the first (the first stays
    on the "not in" side; a lone value is an "equals" test)."""
    m = len(values)
    if m > MAX_SUBSET_VALUES:
        raise ValueError(f"categorical_splits='subsets': column {name!r} has {m} values, which would be "
                         f"2^{m - 1} - 1 = {2 ** (m - 1) - 1:,} tests; at most {MAX_SUBSET_VALUES} values "
                         "(use 'one-vs-rest' for this column's data, or merge rare values)")
    rest = values[1:]
    tests = []
    for mask in range(1, 2 ** (m - 1)):
        members = tuple(v for k, v in enumerate(rest) if mask >> k & 1)
        tests.append(BooleanTest(column, "equals", members[0], name) if len(members) == 1
                     else BooleanTest(column, "in", members, name))
    return tests


def _numbers_now(col: np.ndarray, name: str, as_values: bool) -> np.ndarray:
    """A column that was numeric in fit, read at predict time (:func:`_value_column`
    or :func:`_numeric_values`), refused by name when it no longer holds numbers."""
    try:
        return _value_column(col, name) if as_values else _numeric_values(col, name)
    except (TypeError, ValueError):
        raise ValueError(f"column {name!r} was numeric in fit but holds "
                         "non-numeric values now") from None


def _value_column(col: np.ndarray, name: str) -> np.ndarray:
    """A numeric column as float64, NaN where a value is missing."""
    if col.dtype.kind == "f":
        return col.astype(np.float64)
    miss = missing_cells(col)
    out = np.full(len(col), np.nan)
    values = _numeric_values(col[~miss], name)
    refuse_merged_integers(values, name)
    out[~miss] = values.astype(np.float64)
    return out


def _refuse_bool_number_merge(cells: list, name=None) -> None:
    """True equals 1 and False equals 0 in Python, so one category would hold
    both: refused, as for labels (give the column one type).  Numbers equal
    in value (1 and 1.0) are one category."""
    first: dict = {}
    try:
        for v in cells:
            is_bool = isinstance(v, (bool, np.bool_))
            if isinstance(v, (bool, np.bool_, numbers.Number)) and not is_missing(v):
                other = first.setdefault(v, v)
                if isinstance(other, (bool, np.bool_)) != is_bool:
                    where = "a column" if name is None else f"column {name!r}"
                    raise ValueError(f"{where} holds {other!r} and {v!r}, which Python counts as one "
                                     "value (True == 1, False == 0): give the column one type (all "
                                     "Booleans, all numbers or all strings)")
    except TypeError:
        return      # unhashable cells: the caller's own checks speak


def _unique_objects(col: np.ndarray, name=None) -> list:
    """Distinct values in a stable order (sorted when comparable)."""
    if col.dtype.kind in "biufUS":
        return list(np.unique(col))
    cells = col.tolist()
    _refuse_bool_number_merge(cells, name)
    seen = list(dict.fromkeys(cells))
    try:
        return sorted(seen)
    except TypeError:
        return seen


def _equals(col: np.ndarray, value) -> np.ndarray:
    """Cells equal to ``value``; a missing cell (NaN, None, pandas NA) equals nothing."""
    if col.dtype.kind in "biuf" and isinstance(value, (int, float, np.number)):
        return col == value
    return np.fromiter((not is_missing(v) and bool(v == value) for v in col.tolist()), dtype=bool, count=len(col))


def _equality_block(col: np.ndarray, values, subsets: bool = False) -> np.ndarray:
    """(rows, tests) booleans: cell == values[j] (``subsets``: cell in the
    set values[j]); a missing cell matches nothing (see :func:`_equality_codes`)."""
    codes, lut = _equality_codes(col, values, subsets)
    if codes is None:
        return _equality_dense(col, values, subsets)
    if lut.ndim == 2:
        return lut[codes]
    out = np.zeros((len(col), len(values)), dtype=bool)
    test = lut[codes]
    hit = np.flatnonzero(test >= 0)
    out[hit, test[hit]] = True
    return out


def _equality_dense(col: np.ndarray, values, subsets: bool) -> np.ndarray:
    """:func:`_equality_block` by a pass per value (cells or values that
    cannot be hashed)."""
    block = np.zeros((len(col), len(values)), dtype=bool)
    for j, v in enumerate(values):
        block[:, j] = np.any([_equals(col, m) for m in v], axis=0) if subsets else _equals(col, v)
    return block


def _equality_codes(col: np.ndarray, values, subsets: bool = False):
    """(codes, lut): each cell's code (-1: missing) and what a code answers:
    the index of its test or -1 (a vector), or, with ``subsets``, a row of
    booleans over the tests (a matrix); the last entry is the missing code's.
    One hashing pass over the cells (pandas' factorize), where a pass per
    value (:func:`_equals`) was rows x values in Python (20,000 rows x 4,000
    values: 12 s).  (None, None) when cells or values cannot be hashed."""
    import pandas as pd

    tests_of: dict = {}
    try:
        for j, v in enumerate(values):
            for member in (v if subsets else (v,)):
                tests_of.setdefault(member, []).append(j)
        codes, uniques = pd.factorize(np.asarray(col, dtype=object) if col.dtype.kind not in "biuf" else col,
                                      use_na_sentinel=True)
        found = [tests_of.get(u, ()) if not is_missing(u) else () for u in uniques]
    except TypeError:
        return None, None
    if subsets:
        lut = np.zeros((len(uniques) + 1, len(values)), dtype=bool)
        for u, hit in enumerate(found):
            lut[u, hit] = True
    else:
        lut = np.full(len(uniques) + 1, -1, dtype=np.intp)
        for u, hit in enumerate(found):
            if hit:
                lut[u] = hit[0]          # (the values of "equals" tests are distinct)
    return codes, lut


def categorical_encoder(X, spec, owner: str, subsets: bool = False, checkpoint=None) -> "Binarizer | None":
    """For the exact tree search: the fitted ``Binarizer(keep_numeric=True)``
    of ``X`` when ``spec`` (scikit-learn's ``categorical_features``:
    "from_dtype", None, column indices or names, or a Boolean mask) makes
    some column categorical, else None (every column numeric: the caller's
    plain numeric path, at no cost).  A fit the ``checkpoint`` stopped
    (``stopped_``) is returned as it is: the caller's leaf checks X with it."""
    if spec is None:
        return None
    if isinstance(spec, str):
        if spec != "from_dtype":
            raise ValueError(f"categorical_features must be 'from_dtype', None, or columns, got {spec!r}")
        if type(X) is np.ndarray and X.dtype.kind in "biuf":
            return None
        if hasattr(X, "columns") and hasattr(X, "iloc"):
            if all(pd_numeric(X.iloc[:, i]) or X.iloc[:, i].dtype == bool for i in range(X.shape[1])):
                return None       # 0/1 and numbers: the plain path, as before categories were searched
        elif not _has_text(X):
            return None
        categorical = "auto"
    else:
        mask = np.asarray(spec)
        if mask.dtype == bool:
            categorical = [int(i) for i in np.flatnonzero(mask)]
            width = np.shape(X)[1] if np.ndim(X) == 2 else None
            if width is not None and len(mask) != width:
                raise ValueError(f"categorical_features has {len(mask)} entries, X has {width} columns")
        else:
            categorical = [c.item() if isinstance(c, np.generic) else c for c in mask.tolist()]
        if not categorical:
            return None
    encoder = fit_binarizer(X, categorical, owner=owner, keep_numeric=True, subsets=subsets,
                            checkpoint=checkpoint)
    if encoder.stopped_ is None and "categorical" not in encoder.column_kinds_:
        return None
    return encoder


def _has_text(X) -> bool:
    """An array-like whose values are not all numbers (strings, objects)."""
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        return False                      # sparse: the numeric path refuses it in its own words
    if isinstance(X, np.ndarray) and X.dtype.kind == "c":
        return False                      # complex: the same, without casting it first
    try:
        np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        return True
    return False


def fit_binarizer(X, categorical, *, owner: str, keep_numeric: bool = False, subsets: bool = False,
                  checkpoint=None) -> Binarizer:
    """``Binarizer(categorical, keep_numeric).fit(X, checkpoint)``; a cell that
    cannot be a category value (a dict, a list: unhashable) is refused in
    scikit-learn's words, naming the estimator ``owner`` and the column."""
    try:
        return Binarizer(categorical, keep_numeric=keep_numeric, subsets=subsets).fit(X, checkpoint)
    except TypeError as exc:
        if not str(exc).startswith("unhashable type"):
            raise
        where = ""
        cols, names, _ = _as_columns(X, allow_missing=keep_numeric)
        for i, col in enumerate(cols):
            for value in col:
                try:
                    hash(value)
                except TypeError:
                    where = (f" column {names[i] if names else f'x[{i}]'} holds a "
                             f"{type(value).__name__!r}")
                    break
            if where:
                break
        raise TypeError(f"{owner}: every value of the X argument must be a string or a real number "
                        f"(a category or a number);{where or ' ' + str(exc)}") from None


def raw_columns(X) -> list[np.ndarray]:
    """X's columns as 1-D arrays, as the binarizer reads them (text kept)."""
    return _as_columns(X, allow_missing=True)[0]
