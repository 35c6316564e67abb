"""What a model file may hold, and the checks that keep it to that.

:mod:`optimaltrees.io` reads and writes the files; this module decodes what
a file's ``params`` and ``fitted`` entries hold and checks it:

* plain values, numeric and string arrays (every item checked against its
  dtype before numpy sees it; a declared shape allocates nothing), and the
  few library objects a file may name, each in its own place
  (``Tree``, ``RegressionTree``, ``DecisionDiagram``, ``Binarizer``,
  ``BooleanTest``, ``TracePoint``, ``FitSummary``);
* per estimator (``_ESTIMATORS``), every fitted attribute a file may set
  with its decoder (``_FITTED``), the attributes it must set
  (``_REQUIRED``), its ``FitSummary.method`` (``_METHOD``), and the checks
  that the attributes agree with each other and with the parameters
  (``_check_fitted``).

Every refusal is a ValueError naming the entry (``fitted.tree_.value``).
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from optimaltrees.anytime import TracePoint
from optimaltrees.data.binarize import Binarizer, BooleanTest
from optimaltrees.estimators._base import validate_params
from optimaltrees.estimators.classifier import OptimalTreeClassifier
from optimaltrees.estimators.diagram import DecisionDiagramClassifier
from optimaltrees.estimators.regressor import OptimalTreeRegressor
from optimaltrees.estimators.sat import MAX_SAT_DEPTH, SATTreeClassifier
from optimaltrees.model.checks import check_diagram_arrays, check_tree_arrays
from optimaltrees.model.diagram import DecisionDiagram
from optimaltrees.model.regression_tree import RegressionTree
from optimaltrees.model.summary import METHODS, FitSummary
from optimaltrees.model.tree import Tree

#: List items and dict entries in a whole file (each array element counts),
#: and the most elements one array's declared shape may have.
MAX_ELEMENTS = 50_000_000
#: Longest string a string array's dtype (``<U...``) may declare.
MAX_STRING_LENGTH = 2**16
#: Parameters that make a fit open a connection: saved as absent, and
#: dropped with a warning when a file sets them (a refit of a loaded model, or
#: its clone in a grid search, must not send the data where a file says).
CONNECTION_PARAMS = frozenset({"cluster"})
#: A string array is stored fixed-width (numpy ``<U``) only while that takes
#: at most this many times the bytes its strings take in the file.
STRING_BLOWUP = 16


# ------------------------------------------------------------------ loading: plain values

def _describe(value) -> str:
    """A short description of a file value for error messages."""
    if isinstance(value, dict):
        keys = sorted(value)
        return f"an object with keys {keys[:5]}{' ...' if len(keys) > 5 else ''}"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


# a wrapper object has exactly these keys
_WRAPPERS = {"__float__": {"__float__"}, "__tuple__": {"__tuple__"}, "__set__": {"__set__"},
             "__items__": {"__items__"}, "__dict__": {"__dict__"},
             "__ndarray__": {"__ndarray__", "dtype", "shape"}, "__object__": {"__object__", "state"}}


def _wrapper(value: dict, where: str) -> str:
    """Which wrapper a JSON object is (``__tuple__``, ``__ndarray__``, ...)."""
    for tag, keys in _WRAPPERS.items():
        if tag in value:
            if set(value) != keys:
                raise ValueError(f"{where}: a {tag} entry has exactly the keys {sorted(keys)}, "
                                 f"got {_describe(value)}")
            return tag
    raise ValueError(f"{where}: unknown entry, {_describe(value)}")


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _real(value, where: str) -> float:
    """A float: a JSON number, or ``{"__float__": "inf"}`` for a non-finite one."""
    if _is_number(value):
        return float(value)
    if isinstance(value, dict) and _wrapper(value, where) == "__float__":
        text = value["__float__"]
        if isinstance(text, str) and text.strip().lower().lstrip("+-") in ("inf", "nan", "infinity"):
            return float(text)
        raise ValueError(f"{where}: __float__ must be 'inf', '-inf' or 'nan', got {_describe(text)}")
    raise ValueError(f"{where}: expected a number, got {_describe(value)}")


def _number(value, where: str):
    """An int stays an int, anything else must be a float."""
    return value if _is_number(value) and isinstance(value, int) else _real(value, where)


def _integer(value, where: str, low: int | None = None, high: int | None = None) -> int:
    if not (_is_number(value) and isinstance(value, int)):
        raise ValueError(f"{where}: expected an integer, got {_describe(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{where}: {value} is out of range [{low}, {high}]")
    return value


def _size(value, where: str, low: int = 1) -> int:
    """A count of features, classes, nodes or tests."""
    return _integer(value, where, low, MAX_ELEMENTS)


def _boolean(value, where: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{where}: expected true or false, got {_describe(value)}")
    return value


def _string(value, where: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{where}: expected a string, got {_describe(value)}")
    return value


def _tree_source(value, where: str) -> str:
    source = _string(value, where)
    if source not in ("search", "greedy", "leaf"):
        raise ValueError(f"{where}: must be 'search', 'greedy' or 'leaf', got {source!r}")
    return source


def _diagram_source(value, where: str) -> str:
    source = _string(value, where)
    if source not in ("heuristic", "exact tree", "sat", "milp"):
        raise ValueError(f"{where}: must be 'heuristic', 'exact tree', 'sat' or 'milp', got {source!r}")
    return source


def _optional(decode):
    return lambda value, where: None if value is None else decode(value, where)


def _scalar(value, where: str):
    """A label or category value: string, number, bool or null."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return _real(value, where)


def _plain(value, where: str, arrays: bool = False):
    """JSON values with tuples, sets, dicts and non-finite floats; numeric or
    string arrays only when ``arrays``; never an object."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_plain(v, f"{where}[{i}]", arrays) for i, v in enumerate(value)]
    if not isinstance(value, dict):
        raise ValueError(f"{where}: unexpected {_describe(value)}")
    tag = _wrapper(value, where)
    inner = value[tag]
    if tag == "__float__":
        return _real(value, where)
    if tag == "__ndarray__" and arrays:
        return _array(value, where, "biufU", ndim=None)
    if tag in ("__ndarray__", "__object__"):
        raise ValueError(f"{where}: {'an array' if tag == '__ndarray__' else 'an object'} is not "
                         f"allowed here, got {_describe(value)}")
    if tag == "__dict__":
        if not isinstance(inner, dict):
            raise ValueError(f"{where}: __dict__ must hold an object, got {_describe(inner)}")
        return {k: _plain(v, f"{where}.{k}" if k.isidentifier() else f"{where}[{k!r}]", arrays)
                for k, v in inner.items()}
    if not isinstance(inner, list):
        raise ValueError(f"{where}: {tag} must hold a list, got {_describe(inner)}")
    if tag == "__tuple__":
        return tuple(_plain(v, f"{where}[{i}]", arrays) for i, v in enumerate(inner))
    if tag == "__set__":
        return {_scalar(v, f"{where}[{i}]") for i, v in enumerate(inner)}
    out = {}
    for i, pair in enumerate(inner):  # __items__: [key, value] pairs
        if not (isinstance(pair, list) and len(pair) == 2):
            raise ValueError(f"{where}[{i}]: expected a [key, value] pair, got {_describe(pair)}")
        out[_scalar(pair[0], f"{where}[{i}]")] = _plain(pair[1], f"{where}[{i}]", arrays)
    return out


# ------------------------------------------------------------------ loading: arrays

def _dtype(name, where: str, kinds: str) -> np.dtype:
    """A plain numpy dtype of one of ``kinds``; never structured, datetime, void or bytes."""
    if not isinstance(name, str) or len(name) > 16:
        raise ValueError(f"{where}: dtype must be a short string, got {_describe(name)}")
    try:
        dtype = np.dtype(object) if name == "object" else np.dtype(name)
    except (TypeError, ValueError, SyntaxError):
        raise ValueError(f"{where}: unknown dtype {name!r}") from None
    if (dtype.kind not in kinds or dtype.fields is not None or dtype.subdtype is not None
            or (dtype.kind == "O" and name != "object")):
        raise ValueError(f"{where}: dtype {name!r} is not allowed here (kinds {kinds!r})")
    if dtype.kind == "U" and dtype.itemsize // 4 > MAX_STRING_LENGTH:
        raise ValueError(f"{where}: dtype {name!r} declares strings longer than {MAX_STRING_LENGTH}")
    return dtype


def _array(value, where: str, kinds: str, ndim: int | None = 1) -> np.ndarray:
    """A ``{"__ndarray__", "dtype", "shape"}`` entry, every item checked
    against the dtype before numpy sees it; the declared shape must match the
    items given (nothing is allocated from the shape alone)."""
    if not isinstance(value, dict) or _wrapper(value, where) != "__ndarray__":
        raise ValueError(f"{where}: expected an array, got {_describe(value)}")
    items, shape = value["__ndarray__"], value["shape"]
    if (not isinstance(shape, list) or not 1 <= len(shape) <= 2
            or not all(_is_number(s) and isinstance(s, int) and s >= 0 for s in shape)):
        raise ValueError(f"{where}: shape must be a list of 1 or 2 non-negative integers, "
                         f"got {_describe(shape)}")
    if ndim is not None and len(shape) != ndim:
        raise ValueError(f"{where}: expected a {ndim}-D array, got shape {shape}")
    size = math.prod(shape)
    if size > MAX_ELEMENTS:
        raise ValueError(f"{where}: shape {shape} has {size} elements, more than a model file may "
                         f"hold ({MAX_ELEMENTS})")
    if not isinstance(items, list) or len(items) != size:
        raise ValueError(f"{where}: shape {shape} needs {size} values, got {_describe(items)}")
    dtype = _dtype(value["dtype"], where, kinds)
    kind = dtype.kind
    if kind == "O":
        out = np.empty(size, dtype=object)
        for i, v in enumerate(items):
            out[i] = _scalar(v, f"{where}[{i}]")
        return out.reshape(shape)
    if kind == "U":
        return _string_array(items, where, dtype, shape)
    if kind == "b":
        check = (lambda v: isinstance(v, bool))
    elif kind in "iu":
        check = (lambda v: _is_number(v) and isinstance(v, int))
    else:
        check = _is_number
        items = [v if _is_number(v) else _real(v, f"{where}[{i}]") for i, v in enumerate(items)]
    bad = next((i for i, v in enumerate(items) if not check(v)), None)
    if bad is not None:
        raise ValueError(f"{where}[{bad}]: {_describe(items[bad])} in an array of dtype {dtype}")
    try:
        return np.array(items, dtype=dtype).reshape(shape)
    except (OverflowError, ValueError) as exc:
        raise ValueError(f"{where}: values do not fit dtype {dtype} ({exc})") from None


def _string_array(items: list, where: str, dtype: np.dtype, shape: list) -> np.ndarray:
    """A string array sized from its strings, not from the dtype the file
    declares: ``<U65536`` costs 256 KiB per element, so 4,000 empty strings
    would take 1 GB.  Fixed-width storage (4 bytes x longest x count) is used
    while it stays within ``STRING_BLOWUP`` times the strings' own size;
    beyond, an object array holds them (memory linear in the file)."""
    bad = next((i for i, v in enumerate(items) if not isinstance(v, str)), None)
    if bad is not None:
        raise ValueError(f"{where}[{bad}]: {_describe(items[bad])} in an array of dtype {dtype}")
    lengths = [len(v) for v in items]
    longest = max(lengths, default=0)
    if longest > dtype.itemsize // 4:
        raise ValueError(f"{where}: a string of {longest} characters in an array of dtype {dtype}")
    if 4 * longest * len(items) > STRING_BLOWUP * (sum(lengths) + 3 * len(items)) + 2**16:
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out.reshape(shape)
    return np.array(items, dtype=f"<U{max(longest, 1)}").reshape(shape)


def _labels(value, where: str) -> np.ndarray:
    """Class labels or group levels: a non-empty 1-D array of numbers or strings."""
    arr = _array(value, where, "biufUO")
    if arr.size == 0:
        raise ValueError(f"{where}: must not be empty")
    return arr


def _names(value, where: str) -> np.ndarray:
    """Feature names: a 1-D array of strings."""
    arr = _array(value, where, "UO")
    if any(not isinstance(s, str) for s in arr.tolist()):
        raise ValueError(f"{where}: feature names must be strings")
    return arr


def _reals(value, where: str) -> np.ndarray:
    arr = _array(value, where, "iuf")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{where}: values must be finite")
    return arr.astype(np.float64)


# ------------------------------------------------------------------ loading: the allowed objects

_TREE = "optimaltrees.model.tree:Tree"
_REGRESSION_TREE = "optimaltrees.model.regression_tree:RegressionTree"
_DIAGRAM = "optimaltrees.model.diagram:DecisionDiagram"
_BINARIZER = "optimaltrees.data.binarize:Binarizer"
_BOOLEAN_TEST = "optimaltrees.data.binarize:BooleanTest"
_TRACE_POINT = "optimaltrees.anytime:TracePoint"
_SUMMARY = "optimaltrees.model.summary:FitSummary"


def _state(value, where: str, name: str, fields: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
    """The state of an ``__object__`` entry that must name class ``name``
    and hold exactly ``fields``, and may hold ``optional`` ones (fields added
    later: files written before them load with their defaults)."""
    if not isinstance(value, dict) or _wrapper(value, where) != "__object__":
        raise ValueError(f"{where}: expected a {name.rpartition(':')[2]}, got {_describe(value)}")
    if value["__object__"] != name:
        raise ValueError(f"{where}: names the class {_describe(value['__object__'])}; only {name} "
                         "may appear here (a model file names no other classes)")
    state = value["state"]
    if not isinstance(state, dict):
        raise ValueError(f"{where}.state: expected an object, got {_describe(state)}")
    unknown, missing = sorted(set(state) - set(fields) - set(optional)), sorted(set(fields) - set(state))
    if unknown or missing:
        raise ValueError(f"{where}: a {name.rpartition(':')[2]} has the fields {list(fields)}; "
                         f"unknown {unknown[:5]}, missing {missing}")
    return state


_TREE_FIELDS = ("feature", "threshold", "children_left", "children_right", "value", "n_features")
#: fields files written before missing values and sample weights lack
_TREE_OPTIONAL = ("missing_left", "missing_in_training", "weighted", "cost_matrix")


def _tree(value, where: str) -> Tree:
    """Arrays only; the structure is checked with the estimator's sizes (``_check_fitted``)."""
    s = _state(value, where, _TREE, _TREE_FIELDS, optional=_TREE_OPTIONAL)
    try:
        return Tree(**_tree_fields(s, where))
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _tree_fields(s: dict, where: str) -> dict:
    """A tree's arrays and flags, each of its type (what ``Tree`` takes)."""
    fields = dict(feature=_array(s["feature"], f"{where}.feature", "iu"),
                  threshold=_array(s["threshold"], f"{where}.threshold", "iuf"),
                  children_left=_array(s["children_left"], f"{where}.children_left", "iu"),
                  children_right=_array(s["children_right"], f"{where}.children_right", "iu"),
                  value=_array(s["value"], f"{where}.value", "iuf", ndim=2),
                  n_features=_size(s["n_features"], f"{where}.n_features", low=0))
    if "missing_left" in s:
        fields["missing_left"] = _array(s["missing_left"], f"{where}.missing_left", "b")
    if "missing_in_training" in s:
        if not isinstance(s["missing_in_training"], bool):
            raise ValueError(f"{where}.missing_in_training: expected true or false, "
                             f"got {_describe(s['missing_in_training'])}")
        fields["missing_in_training"] = s["missing_in_training"]
    if "weighted" in s:
        if not isinstance(s["weighted"], bool):
            raise ValueError(f"{where}.weighted: expected true or false, got {_describe(s['weighted'])}")
        fields["weighted"] = s["weighted"]
    if s.get("cost_matrix") is not None:       # checked square, finite and >= 0 by Tree itself
        fields["cost_matrix"] = _array(s["cost_matrix"], f"{where}.cost_matrix", "iuf", ndim=2)
    return fields


def _regression_tree(value, where: str) -> RegressionTree:
    """A tree whose ``value`` holds each node's mean target (one finite
    number per node), with the rows, weight and squared error reaching each
    node (finite, >= 0).  Every field is present: regression trees came with
    files of version 3.  The structure is checked in ``_check_fitted``."""
    s = _state(value, where, _REGRESSION_TREE, _TREE_FIELDS + _TREE_OPTIONAL
               + ("node_weight", "node_samples", "node_sse"))
    fields = _tree_fields(s, where)
    n = len(fields["feature"])
    means = fields["value"]
    if means.shape != (n, 1):
        raise ValueError(f"{where}.value: a regression tree holds one mean per node, shape ({n}, 1); "
                         f"got shape {means.shape}")
    bad = np.flatnonzero(~np.isfinite(means[:, 0]))
    if bad.size:
        raise ValueError(f"{where}.value: the means must be finite; node {int(bad[0])} has "
                         f"{float(means[bad[0], 0])!r}")
    for key, kinds in (("node_weight", "iuf"), ("node_samples", "i"), ("node_sse", "iuf")):
        arr = _array(s[key], f"{where}.{key}", kinds)
        if arr.shape != (n,):
            raise ValueError(f"{where}.{key}: expected one number per node ({n}), got {arr.shape[0]}")
        bad = np.flatnonzero(~(np.isfinite(arr) & (arr >= 0)))
        if bad.size:
            raise ValueError(f"{where}.{key}: expected finite numbers >= 0; node {int(bad[0])} has "
                             f"{arr[bad[0]].item()!r}")
        fields[key] = arr
    try:
        return RegressionTree(**fields)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _diagram(value, where: str) -> DecisionDiagram:
    s = _state(value, where, _DIAGRAM, ("coef", "threshold", "negative", "positive", "layer",
                                        "n_classes", "offset", "scale", "epsilon"))
    fields = dict(coef=_array(s["coef"], f"{where}.coef", "iuf", ndim=2),
                  threshold=_array(s["threshold"], f"{where}.threshold", "iuf"),
                  negative=_array(s["negative"], f"{where}.negative", "iu"),
                  positive=_array(s["positive"], f"{where}.positive", "iu"),
                  layer=_array(s["layer"], f"{where}.layer", "iu"),
                  n_classes=_size(s["n_classes"], f"{where}.n_classes"),
                  offset=_array(s["offset"], f"{where}.offset", "iuf"),
                  scale=_array(s["scale"], f"{where}.scale", "iuf"),
                  epsilon=_real(s["epsilon"], f"{where}.epsilon"))
    try:
        check_diagram_arrays(**fields)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    return DecisionDiagram(**fields)


def _boolean_test(value, where: str, n_columns: int) -> BooleanTest:
    s = _state(value, where, _BOOLEAN_TEST, ("column", "kind", "value", "name"))
    kind = _string(s["kind"], f"{where}.kind")
    if kind not in ("threshold", "equals", "in", "value"):
        raise ValueError(f"{where}.kind: must be 'threshold', 'equals', 'in' or 'value', got {kind!r}")
    if kind == "in":          # a tuple of category values
        members = _plain(s["value"], f"{where}.value")
        if not (isinstance(members, tuple) and len(members) >= 2
                and all(m is None or isinstance(m, (bool, int, float, str)) for m in members)):
            raise ValueError(f"{where}.value: an 'in' test holds a tuple of two or more category values, "
                             f"got {_describe(s['value'])}")
        test_value = members
    elif kind == "value":       # the column itself (numeric columns beside categorical tests)
        if s["value"] is not None:
            raise ValueError(f"{where}.value: a 'value' column holds no value, got {_describe(s['value'])}")
        test_value = None
    elif kind == "equals":
        test_value = _scalar(s["value"], f"{where}.value")
    else:   # a float, or an int kept exact (integer columns beyond 2^53)
        test_value = _number(s["value"], f"{where}.value")
        if not (math.isfinite(test_value) and abs(test_value) < 2**64):
            raise ValueError(f"{where}.value: a threshold must be a finite number within 64 bits, "
                             f"got {_describe(test_value)}")
    return BooleanTest(column=_integer(s["column"], f"{where}.column", 0, n_columns - 1), kind=kind,
                       value=test_value, name=_string(s["name"], f"{where}.name"))


def _string_list(value, where: str, length: int) -> list[str]:
    if not isinstance(value, list) or len(value) != length:
        raise ValueError(f"{where}: expected a list of {length} strings, got {_describe(value)}")
    return [_string(v, f"{where}[{i}]") for i, v in enumerate(value)]


def _binarizer(value, where: str) -> Binarizer:
    s = _state(value, where, _BINARIZER, ("categorical", "n_features_in_", "feature_names_in_",
                                          "column_names_", "column_kinds_", "tests_", "n_tests_"),
               optional=("keep_numeric", "subsets", "stopped_"))
    keep = s.get("keep_numeric", False)
    stopped = s.get("stopped_")
    if stopped not in (None, "time", "Ctrl-C"):
        raise ValueError(f"{where}.stopped_: expected null, \"time\" or \"Ctrl-C\", got {_describe(stopped)}")
    if not isinstance(keep, bool):
        raise ValueError(f"{where}.keep_numeric: expected true or false, got {_describe(keep)}")
    categorical = _plain(s["categorical"], f"{where}.categorical")
    if not (isinstance(categorical, str) or (isinstance(categorical, list) and all(
            isinstance(c, (int, str)) and not isinstance(c, bool) for c in categorical))):
        raise ValueError(f"{where}.categorical: expected a string or a list of columns, "
                         f"got {_describe(s['categorical'])}")
    n = _size(s["n_features_in_"], f"{where}.n_features_in_")
    names = s["feature_names_in_"]
    kinds = _string_list(s["column_kinds_"], f"{where}.column_kinds_", n)
    if any(k not in ("numeric", "categorical") for k in kinds):
        raise ValueError(f"{where}.column_kinds_: each must be 'numeric' or 'categorical'")
    tests = s["tests_"]
    if not isinstance(tests, list):
        raise ValueError(f"{where}.tests_: expected a list, got {_describe(tests)}")
    subsets = s.get("subsets", False)
    if not isinstance(subsets, bool):
        raise ValueError(f"{where}.subsets: expected true or false, got {_describe(subsets)}")
    b = Binarizer(categorical, keep_numeric=keep, subsets=subsets)
    b.n_features_in_ = n
    b.feature_names_in_ = None if names is None else _string_list(names, f"{where}.feature_names_in_", n)
    b.column_names_ = _string_list(s["column_names_"], f"{where}.column_names_", n)
    b.column_kinds_ = kinds
    b.stopped_ = stopped
    b.tests_ = [_boolean_test(t, f"{where}.tests_[{i}]", n) for i, t in enumerate(tests)]
    b.n_tests_ = _integer(s["n_tests_"], f"{where}.n_tests_", len(tests), len(tests))
    if any((t.kind == "value") != (keep and kinds[t.column] == "numeric") or (t.kind == "threshold" and keep)
           for t in b.tests_):
        raise ValueError(f"{where}.tests_: 'value' columns are the numeric columns of a keep_numeric "
                         "binarizer, and only those")
    return b


def _trace(value, where: str) -> list:
    """An anytime trace: TracePoints (trees) or (seconds, objective, bound) tuples (diagrams)."""
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected a list, got {_describe(value)}")
    out = []
    for i, item in enumerate(value):
        w = f"{where}[{i}]"
        if isinstance(item, dict) and "__object__" in item:
            s = _state(item, w, _TRACE_POINT, ("time", "error", "objective", "lower_bound"))
            out.append(TracePoint(**{k: _number(v, f"{w}.{k}") for k, v in s.items()}))
            continue
        point = _plain(item, w)
        if not (isinstance(point, tuple) and 2 <= len(point) <= 4 and all(map(_is_number, point))):
            raise ValueError(f"{w}: expected a trace point or a tuple of 2-4 numbers, got {_describe(item)}")
        out.append(point)
    return out


def _stats(value, where: str) -> dict:
    stats = _plain(value, where, arrays=True)
    if not isinstance(stats, dict):
        raise ValueError(f"{where}: expected a dict, got {_describe(value)}")
    return stats


def _summary(value, where: str) -> FitSummary:
    """A FitSummary: each field of its type (``_check_fitted`` then matches it to the estimator)."""
    decoders = {"method": _string, "objective_name": _string, "objective": _real, "lower_bound": _real,
                "gap": _real, "proven": _boolean, "timed_out": _boolean, "interrupted": _boolean,
                "memory_out": _boolean, "stopped": _boolean, "fit_seconds": _real, "status": _string}
    s = _state(value, where, _SUMMARY, tuple(decoders))
    fields = {k: decode(s[k], f"{where}.{k}") for k, decode in decoders.items()}
    if fields["method"] not in METHODS:
        raise ValueError(f"{where}.method: must be one of {METHODS}, got {fields['method']!r}")
    return FitSummary(**fields)


def _metadata(value, where: str) -> dict:
    """What a caller stored beside the model: plain JSON values under string keys."""
    meta = _plain(value, where)
    if not isinstance(meta, dict) or not all(isinstance(k, str) for k in meta):
        raise ValueError(f"{where}: expected an object with string keys, got {_describe(value)}")
    return meta


def _pair_of_reals(value, where: str) -> tuple:
    pair = _plain(value, where)
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(map(_is_number, pair))):
        raise ValueError(f"{where}: expected two numbers, got {_describe(value)}")
    return tuple(pair)


# ------------------------------------------------------------------ loading: estimators

def _non_negative(value, where: str) -> int:
    return _integer(value, where, 0)


def _squared_error(value, where: str) -> float:
    """A squared error, or a bound on one: a finite number >= 0."""
    value = _real(value, where)
    if not 0 <= value < float("inf"):
        raise ValueError(f"{where}: expected a finite number >= 0, got {value!r}")
    return value


def _errors(value, where: str) -> int | float:
    """Training errors: a count, or a misclassified weight (a fit with sample weights)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _integer(value, where, 0)
    value = _real(value, where)
    if not 0 <= value < float("inf"):
        raise ValueError(f"{where}: expected a finite number >= 0, got {value!r}")
    return value


#: The estimators a model file may name, and per estimator every fitted
#: attribute a file may set, with its decoder.  A new fitted attribute must
#: be added here, or models that have it will not load.
_ESTIMATORS = {
    "optimaltrees.estimators.classifier:OptimalTreeClassifier": OptimalTreeClassifier,
    "optimaltrees.estimators.sat:SATTreeClassifier": SATTreeClassifier,
    "optimaltrees.estimators.diagram:DecisionDiagramClassifier": DecisionDiagramClassifier,
    "optimaltrees.estimators.regressor:OptimalTreeRegressor": OptimalTreeRegressor,
}
_COMMON = {"classes_": _labels, "n_features_in_": _size, "feature_names_in_": _names,
           "train_error_": _errors, "is_optimal_": _boolean, "fit_time_": _real,
           "stats_": _stats, "summary_": _summary, "gap_": _real}
_FITTED = {
    OptimalTreeClassifier: {
        **_COMMON, "tree_": _tree, "n_classes_": _size, "objective_": _real, "lower_bound_": _real,
        "timed_out_": _boolean, "interrupted_": _boolean, "stopped_": _boolean,
        "memory_out_": _boolean, "trace_": _trace, "encoder_": _optional(_binarizer),
        "fewest_nodes_": _boolean},
    SATTreeClassifier: {
        **_COMMON, "tree_": _tree, "binarizer_": _binarizer, "n_classes_": _size,
        "timed_out_": _boolean, "interrupted_": _boolean, "depth_": _non_negative, "n_nodes_": _size,
        "min_depth_": _optional(_non_negative), "depth_lower_bound_": _optional(_non_negative),
        "size_lower_bound_": _optional(_size), "tree_source_": _tree_source},
    DecisionDiagramClassifier: {
        **_COMMON, "diagram_": _diagram, "n_classes_": _size, "sensitive_levels_": _labels, "scale_offset_": _reals,
        "scale_": _reals, "objective_": _real, "lower_bound_": _real, "status_": _string,
        "from_heuristic_": _boolean, "diagram_source_": _diagram_source, "timed_out_": _boolean,
        "interrupted_": _boolean, "heuristic_objective_": _real, "trace_": _trace, "solve_time_": _real, "n_nodes_": _non_negative,
        "fairness_rates_": _pair_of_reals, "encoder_": _optional(_binarizer)},
    OptimalTreeRegressor: {
        "n_features_in_": _size, "feature_names_in_": _names, "encoder_": _optional(_binarizer),
        "tree_": _regression_tree, "train_error_": _squared_error, "objective_": _squared_error,
        "lower_bound_": _squared_error, "total_sse_": _squared_error, "gap_": _real, "is_optimal_": _boolean,
        "timed_out_": _boolean, "interrupted_": _boolean, "stopped_": _boolean, "memory_out_": _boolean,
        "fit_time_": _real, "stats_": _stats, "trace_": _trace, "summary_": _summary, "fewest_nodes_": _boolean},
}
_REQUIRED = {OptimalTreeClassifier: ("classes_", "n_features_in_", "tree_", "summary_"),
             SATTreeClassifier: ("classes_", "n_features_in_", "tree_", "binarizer_", "summary_"),
             DecisionDiagramClassifier: ("classes_", "n_features_in_", "diagram_", "summary_"),
             OptimalTreeRegressor: ("n_features_in_", "tree_", "summary_")}
#: FitSummary.method of each estimator
_METHOD = {OptimalTreeClassifier: "tree", SATTreeClassifier: "sat", DecisionDiagramClassifier: "diagram",
           OptimalTreeRegressor: "tree"}


def _params(cls, params, model) -> None:
    """Set the file's parameters on ``model``, then run the estimator's own validation."""
    if not isinstance(params, dict):
        raise ValueError(f"params: expected an object, got {_describe(params)}")
    known = set(cls._get_param_names())
    unknown = sorted(set(params) - known)
    if unknown:
        raise ValueError(f"params: {cls.__name__} has no parameter {unknown[0]!r}")
    dropped = sorted(k for k in CONNECTION_PARAMS & set(params) if params[k] is not None)
    if dropped:
        warnings.warn(f"the model file sets {', '.join(dropped)}, a parameter that makes a later fit "
                      "connect somewhere (e.g. send the data to a Dask scheduler); it was dropped: set "
                      "it yourself after loading", UserWarning, stacklevel=3)
        params = {k: v for k, v in params.items() if k not in dropped}
    # categorical_features may be a list, a Boolean mask or an array of columns
    model.set_params(**{k: _plain(v, f"params.{k}", arrays=k == "categorical_features") for k, v in params.items()})
    try:
        validate_params(model)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"params: {exc}") from None
    except ImportError:
        pass   # a solver not installed here (gurobi): only fitting needs it


def _check_tree(tree: Tree, where: str, n_features: int, n_classes: int, max_depth: int) -> None:
    if tree.n_features != n_features:
        raise ValueError(f"{where}: the tree has {tree.n_features} features, the model {n_features}")
    if tree.node_count >= 2 ** (max_depth + 1):
        raise ValueError(f"{where}: {tree.node_count} nodes, more than a tree of depth {max_depth} has")
    # a regression tree's means may be negative: its weights stand in for the counts
    counts = tree.node_weight[:, None] if isinstance(tree, RegressionTree) else tree.value
    try:
        check_tree_arrays(tree.feature, tree.threshold, tree.children_left, tree.children_right,
                          counts, tree.n_features, n_classes=n_classes, max_depth=max_depth)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _check_skeleton(diagram: DecisionDiagram, skeleton) -> None:
    """The diagram fits in the skeleton it was trained on: no more layers, nor
    more nodes in a layer, than the skeleton has."""
    if not (isinstance(skeleton, (tuple, list)) and skeleton and all(
            _is_number(w) and isinstance(w, int) and w >= 1 for w in skeleton)):
        raise ValueError(f"params.skeleton: expected layer widths such as (1, 2, 4), got {skeleton!r:.60}")
    if diagram.n_nodes and int(diagram.layer.max()) >= len(skeleton):
        raise ValueError(f"fitted.diagram_: layer {int(diagram.layer.max())} is beyond the skeleton's "
                         f"{len(skeleton)} layers")
    widths = np.bincount(diagram.layer, minlength=len(skeleton))
    if any(int(n) > w for n, w in zip(widths, skeleton)):
        raise ValueError(f"fitted.diagram_: layer widths {widths.tolist()} exceed the skeleton {list(skeleton)}")


def _same(a, b) -> bool:
    """Equal, with nan equal to nan."""
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def _check_fitted(model, fitted: dict) -> None:
    """The attributes agree with each other and with the parameters."""
    missing = [k for k in _REQUIRED[type(model)] if k not in fitted]
    if missing:
        raise ValueError(f"fitted: missing {', '.join(missing)}")
    n_classes = len(fitted["classes_"]) if "classes_" in fitted else 1    # a regressor: one value per node
    n_features = fitted["n_features_in_"]
    if fitted.get("n_classes_", n_classes) != n_classes:
        raise ValueError(f"fitted.n_classes_: {fitted['n_classes_']}, but classes_ has {n_classes} labels")
    if fitted.get("fewest_nodes_") and not fitted.get("is_optimal_"):
        raise ValueError("fitted.fewest_nodes_: True, but is_optimal_ is not (the fewest nodes are "
                         "proven only with the optimum)")
    summary = fitted["summary_"]
    if summary.method != _METHOD[type(model)]:
        raise ValueError(f"fitted.summary_: method {summary.method!r}, but the estimator is "
                         f"{type(model).__name__} ({_METHOD[type(model)]!r})")
    for key, field in (("is_optimal_", "proven"), ("gap_", "gap"), ("timed_out_", "timed_out"),
                       ("interrupted_", "interrupted"), ("fit_time_", "fit_seconds")):
        if key in fitted and not _same(fitted[key], getattr(summary, field)):
            raise ValueError(f"fitted.summary_: {field} is {getattr(summary, field)!r}, "
                             f"but {key} is {fitted[key]!r}")
    names = fitted.get("feature_names_in_")
    if names is not None and len(names) != n_features:
        raise ValueError(f"fitted.feature_names_in_: {len(names)} names for {n_features} features")
    if isinstance(model, (OptimalTreeClassifier, OptimalTreeRegressor)):
        encoder = fitted.get("encoder_")
        if encoder is not None:
            if encoder.n_features_in_ != n_features or not getattr(encoder, "keep_numeric", False):
                raise ValueError(f"fitted.encoder_: {encoder.n_features_in_} columns (keep_numeric "
                                 f"{getattr(encoder, 'keep_numeric', False)}), the model has {n_features}")
            n_features = encoder.n_tests_
        _check_tree(fitted["tree_"], "fitted.tree_", n_features, n_classes, model.max_depth)
    elif isinstance(model, SATTreeClassifier):
        binarizer = fitted["binarizer_"]
        if binarizer.n_features_in_ != n_features:
            raise ValueError(f"fitted.binarizer_: {binarizer.n_features_in_} columns, the model has {n_features}")
        depth = MAX_SAT_DEPTH if model.max_depth is None else model.max_depth
        _check_tree(fitted["tree_"], "fitted.tree_", binarizer.n_tests_, n_classes, depth)
        if fitted.get("train_error_") == 0:      # lower bounds of a tree that fits the data
            tree = fitted["tree_"]
            for key, actual in (("depth_lower_bound_", tree.max_depth), ("size_lower_bound_", tree.node_count)):
                bound = fitted.get(key)
                if bound is not None and bound > actual:
                    raise ValueError(f"fitted.{key}: {bound}, above the {actual} of the tree that "
                                     "fits the training data")
    else:
        diagram = fitted["diagram_"]
        if n_classes < 2 or diagram.n_classes != n_classes:
            raise ValueError(f"fitted.diagram_: {diagram.n_classes} class terminals, classes_ has "
                             f"{n_classes} labels (a diagram has at least 2)")
        encoder = fitted.get("encoder_")
        if encoder is not None:
            if encoder.n_features_in_ != n_features or not getattr(encoder, "keep_numeric", False):
                raise ValueError(f"fitted.encoder_: {encoder.n_features_in_} columns, the model has {n_features}")
            n_features = encoder.n_tests_
        if diagram.n_features != n_features or diagram.coef.shape[1] != n_features:
            raise ValueError(f"fitted.diagram_: {diagram.n_features} features, the model {n_features}")
        _check_skeleton(diagram, model.skeleton)
        for key in ("scale_offset_", "scale_"):
            if key in fitted and fitted[key].shape != (n_features,):
                raise ValueError(f"fitted.{key}: shape {fitted[key].shape}, expected ({n_features},)")
