"""Save fitted models as JSON and load them back.

JSON rather than pickle: a model file is readable, diffable and does not
break when Python or numpy change.  Everything a fitted estimator holds is
stored: parameters, arrays (with their dtype), the ``Tree``,
``RegressionTree`` or ``DecisionDiagram``, the SAT binarizer, traces.

Loading a file from a stranger runs none of the file's choosing: whatever
:func:`load_model` (and :func:`model_from_dict`) accepts,

* the only classes built are the four estimators and, each in its own place
  inside them, ``Tree``, ``RegressionTree``, ``DecisionDiagram``,
  ``Binarizer``, ``BooleanTest``, ``TracePoint`` and ``FitSummary``; names
  are looked up in fixed tables (``optimaltrees.io_schema``), never
  imported;
* parameters are the estimator's own, plain JSON values that pass the
  estimator's own validation (``validate_params``: scikit-learn's
  ``_parameter_constraints``, then the checks across parameters); a
  parameter that makes a fit connect somewhere (``cluster``) is never saved,
  and is dropped with a warning when a file sets it;
* ``metadata`` (what a caller such as the command line stores next to the
  model, e.g. the training file's columns) is plain JSON values only;
* fitted attributes are those the estimator has, each of the expected type,
  dtype and shape, and consistent with each other (``classes_``,
  ``n_features_in_``, the tree's or diagram's features and classes, its size
  within the ``max_depth`` or ``skeleton`` parameter); a regression tree's
  means are finite, its weights, rows and squared errors finite and >= 0;
* trees and diagrams are checked structurally
  (:mod:`optimaltrees.model.checks`): indices in range, one proper tree or a
  layered DAG, so ``predict`` and ``export_text`` end;
* files over ``MAX_FILE_BYTES``, with more than ``MAX_CONTAINERS`` lists and
  objects or more than ``MAX_ELEMENTS`` values are refused before parsing
  (counted on the raw bytes), as is nesting deeper than ``MAX_NESTING``;
  strings must be valid Unicode (JSON escapes can spell lone surrogates);
  a string array is sized from its strings, not from the dtype it declares,
  so what a file allocates grows with the file, not with its claims.

Anything else raises ValueError naming the entry.  Not checked: that the
numbers mean anything (a file can hold a valid tree that predicts nonsense,
or made-up statistics).
"""
from __future__ import annotations

import dataclasses
import json
import numbers
from pathlib import Path

import numpy as np

# the limits on arrays, the parameters never saved, and what a file may hold (re-exported here)
from optimaltrees.io_schema import (CONNECTION_PARAMS, MAX_ELEMENTS, MAX_STRING_LENGTH, STRING_BLOWUP,  # noqa: F401
                                    _ESTIMATORS, _FITTED, _check_fitted, _describe, _metadata, _params)

FORMAT = "optimaltrees-model"
VERSION = 3
#: versions this library reads: 1 had no missing values (trees route NaN to
#: the larger child) and no categorical encoders; 2 had no sample weights (tree
#: values are counts)
READS = (1, 2, 3)
_PACKAGE = "optimaltrees."

#: Larger files are refused unread.  A depth-20 perfect tree (2 million nodes)
#: takes about 100 MB; real models are kilobytes.
MAX_FILE_BYTES = 256 * 2**20
#: Deepest nesting of lists and dicts; real files nest about 8 deep.
MAX_NESTING = 50
#: lists and objects a model file may hold: a real one has tens (arrays are
#: lists of numbers), and each costs a Python object when parsed
MAX_CONTAINERS = 1_000_000


# ------------------------------------------------------------------ saving

def _encode(value, where: str):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):          # a category of a bool column
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        if not isinstance(value, (float, np.floating)):
            # a Fraction category saved as a float would no longer equal the data's values
            raise TypeError(f"{where}: cannot store a {type(value).__name__} exactly in a model file; "
                            "convert the column to float or to strings before fitting")
        v = float(value)
        return v if np.isfinite(v) else {"__float__": repr(v)}
    if isinstance(value, np.str_):
        return str(value)
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return {"__ndarray__": [_encode(v, where) for v in value.ravel()],
                    "dtype": "object", "shape": list(value.shape)}
        if value.dtype.kind == "U":
            return {"__ndarray__": value.ravel().tolist(), "dtype": value.dtype.str,
                    "shape": list(value.shape)}
        if value.dtype.kind not in "biuf":
            raise TypeError(f"{where}: cannot store an array of dtype {value.dtype}")
        return {"__ndarray__": _encode(value.ravel().tolist(), where), "dtype": value.dtype.str,
                "shape": list(value.shape)}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
        return items if isinstance(value, list) else {"__tuple__": items}
    if isinstance(value, set):
        return {"__set__": [_encode(v, where) for v in sorted(value, key=repr)]}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return {"__items__": [[_encode(k, where), _encode(v, f"{where}[{k!r}]")]
                                  for k, v in value.items()]}
        return {"__dict__": {k: _encode(v, f"{where}.{k}") for k, v in value.items()}}
    cls = type(value)
    if cls.__module__.startswith(_PACKAGE) and hasattr(value, "__dict__"):
        state = vars(value) if not dataclasses.is_dataclass(value) else {
            f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return {"__object__": f"{cls.__module__}:{cls.__qualname__}",
                "state": {k: _encode(v, f"{where}.{k}") for k, v in state.items()}}
    raise TypeError(f"{where}: cannot store a {cls.__name__} in a model file")


def _check_savable(model) -> None:
    """Only the four estimators themselves: a file that named anything else
    (a Pipeline's transformers, a subclass) could not be loaded without
    building classes the file chooses, which loading never does."""
    if type(model) in _FITTED:
        return
    names = ", ".join(c.__name__ for c in _ESTIMATORS.values())
    steps = getattr(model, "steps", None)
    if isinstance(steps, list) and hasattr(model, "named_steps"):
        last = steps[-1][1] if steps else None
        inner = (f"its last step, a {type(last).__name__}, with save_model(pipeline[-1], path)"
                 if type(last) in _FITTED else f"the estimator alone ({names})")
        before = ", ".join(type(step).__name__ for _, step in steps[:-1]) or "none"
        raise TypeError(
            f"save_model cannot store a {type(model).__name__}: a model file holds one optimaltrees "
            f"estimator and nothing else, because loading a file never builds classes the file names "
            f"(preprocessing steps here: {before}). Save {inner}, and keep the preprocessing in your "
            f"code: rebuild and fit it there, then make_pipeline(preprocessing..., load_model(path)).")
    raise TypeError(f"save_model stores the estimators {names}, not a {type(model).__module__}."
                    f"{type(model).__qualname__}")


def model_to_dict(model, metadata: dict | None = None) -> dict:
    """Return a fitted estimator as plain JSON values.

    Parameters
    ----------
    model : OptimalTreeClassifier, OptimalTreeRegressor, SATTreeClassifier or DecisionDiagramClassifier
        A fitted estimator of the library.  Anything else, a scikit-learn
        ``Pipeline`` included, raises TypeError (for a Pipeline: save its
        last step, and keep the preprocessing in your code).
    metadata : dict or None, default=None
        Plain values (strings, numbers, lists, dicts) stored beside the
        model, not in it.

    Returns
    -------
    dict
        The document :func:`save_model` writes and :func:`model_from_dict`
        reads.
    """
    _check_savable(model)
    fitted = {k: v for k, v in vars(model).items() if k.endswith("_") and not k.startswith("_")}
    if not fitted:
        raise ValueError(f"this {type(model).__name__} is not fitted yet: nothing to save")
    params = {}
    for k, v in model.get_params(deep=False).items():
        if k in CONNECTION_PARAMS:
            params[k] = None   # where a fit connects is the caller's choice, never a file's
            continue
        try:
            params[k] = _encode(v, k)
        except TypeError:
            params[k] = None   # e.g. a callback function: not part of the fitted model
    doc = {"format": FORMAT, "version": VERSION,
           "estimator": f"{type(model).__module__}:{type(model).__qualname__}",
           "params": params, "fitted": {k: _encode(v, k) for k, v in fitted.items()}}
    if metadata is not None:
        if not isinstance(metadata, dict):
            raise TypeError(f"metadata must be a dict, got {type(metadata).__name__}")
        doc["metadata"] = _encode(metadata, "metadata")
        _metadata(doc["metadata"], "metadata")      # only what loading accepts
    return doc


def save_model(model, path: str | Path, metadata: dict | None = None) -> None:
    """Write a fitted estimator to a JSON file.

    Parameters
    ----------
    model : OptimalTreeClassifier, OptimalTreeRegressor, SATTreeClassifier or DecisionDiagramClassifier
        A fitted estimator of the library.  A fitted scikit-learn
        ``Pipeline`` is refused with a TypeError: a file that held its
        transformers could only be loaded by building classes the file
        names, and loading never does.  Save ``pipeline[-1]`` and keep the
        preprocessing in your code.
    path : str or Path
        The file to write.
    metadata : dict or None, default=None
        Plain values stored beside the model; :func:`load_model` with
        ``with_metadata=True`` returns them.
    """
    Path(path).write_text(json.dumps(model_to_dict(model, metadata), indent=1) + "\n")


# ------------------------------------------------------------------ loading: a whole file

def _check_text(text: str) -> None:
    """JSON's escapes can spell a lone surrogate (\\ud800), which no output can
    print or write: refused here rather than at the first print."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"model file holds a string that is not valid Unicode ({text[:40]!r})") from None


def _check_nesting(data) -> None:
    """Bound the nesting depth and the number of values before anything
    recurses, and check every string (:func:`_check_text`)."""
    stack, count = [(data, 0)], 0
    while stack:
        value, depth = stack.pop()
        if depth > MAX_NESTING:
            raise ValueError(f"model file nests lists or objects deeper than {MAX_NESTING} levels")
        if isinstance(value, dict):
            for key in value:
                _check_text(key)
            items = value.values()
        else:
            items = value
        count += len(items)
        if count > MAX_ELEMENTS:
            raise ValueError(f"model file holds more than {MAX_ELEMENTS} values")
        for v in items:
            if isinstance(v, (dict, list)):
                stack.append((v, depth + 1))
            elif isinstance(v, str):
                _check_text(v)


def _model_from_dict(data):
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("not an optimaltrees model file (no 'format': 'optimaltrees-model' entry)")
    if data.get("version") not in READS or isinstance(data.get("version"), bool):
        raise ValueError(f"model file version {_describe(data.get('version'))}; this optimaltrees reads "
                         f"{', '.join(map(str, READS[:-1]))} and {READS[-1]}")
    unknown = sorted(set(data) - {"format", "version", "estimator", "params", "fitted", "metadata"})
    if unknown:
        raise ValueError(f"model file has unknown top-level entries {unknown[:5]}")
    _check_nesting(data)
    name = data.get("estimator")
    cls = _ESTIMATORS.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"estimator {_describe(name)} is not one of optimaltrees' estimators "
                         f"({', '.join(c.__name__ for c in _ESTIMATORS.values())}); nothing outside "
                         "optimaltrees, nor any other name in it, is ever loaded")
    model = cls()
    _params(cls, data.get("params", {}), model)
    fitted = data.get("fitted")
    if not isinstance(fitted, dict):
        raise ValueError(f"fitted: expected an object, got {_describe(fitted)}")
    decoders = _FITTED[cls]
    unknown = sorted(set(fitted) - set(decoders))
    if unknown:
        raise ValueError(f"fitted: {cls.__name__} has no fitted attribute {unknown[0]!r}")
    values = {k: decoders[k](v, f"fitted.{k}") for k, v in fitted.items()}
    _check_fitted(model, values)
    metadata = _metadata(data["metadata"], "metadata") if "metadata" in data else {}
    for k, v in values.items():
        setattr(model, k, v)
    return model, metadata


def model_from_dict(data: dict, *, with_metadata: bool = False):
    """Rebuild the estimator a :func:`model_to_dict` document describes.

    Parameters
    ----------
    data : dict
        The document.
    with_metadata : bool, default=False
        Also return the metadata stored with the model.

    Returns
    -------
    estimator or tuple
        The estimator; with ``with_metadata``, the pair (estimator, metadata
        dict, empty when none was stored).

    Raises
    ------
    ValueError
        Any content that is not a valid model (see the module docstring for
        what is checked).
    """
    try:
        model, metadata = _model_from_dict(data)
        return (model, metadata) if with_metadata else model
    except (KeyError, TypeError, AttributeError, IndexError, OverflowError, RecursionError) as exc:
        # every check above raises ValueError; this is the net under them
        raise ValueError(f"malformed model file ({type(exc).__name__}: {exc})") from None


def _check_counts_before_parsing(path: Path, raw: bytes) -> None:
    """Bound what parsing builds, from the raw bytes (a string's brackets and
    commas count too, so this only over-counts): 20 MB of ``{}`` would
    otherwise parse into 7 million dicts, 700 MB, before any check."""
    containers = raw.count(b"{") + raw.count(b"[")
    if containers > MAX_CONTAINERS:
        raise ValueError(f"{path}: more than {MAX_CONTAINERS} lists or objects; a model file has tens")
    if raw.count(b",") + 1 > MAX_ELEMENTS:
        raise ValueError(f"{path}: more than {MAX_ELEMENTS} values")


def _read_bounded(path: Path) -> bytes:
    """The file's bytes, at most ``MAX_FILE_BYTES + 1`` of them, read in
    chunks: one ``read(MAX_FILE_BYTES + 1)`` would allocate that much for a
    file of a few bytes (and a pipe or device may feed without end)."""
    chunks, total = [], 0
    with open(path, "rb") as f:
        while total <= MAX_FILE_BYTES:
            chunk = f.read(min(2**20, MAX_FILE_BYTES + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    return b"".join(chunks)


def load_model(path: str | Path, *, with_metadata: bool = False):
    """Read an estimator written by :func:`save_model`; it predicts as before.

    Safe on files from anywhere: nothing the file names is imported, and
    bad content raises ValueError (see the module docstring).

    Parameters
    ----------
    path : str or Path
        The file.
    with_metadata : bool, default=False
        Also return the metadata saved with the model.

    Returns
    -------
    estimator or tuple
        The estimator; with ``with_metadata``, the pair (estimator, metadata
        dict).

    Raises
    ------
    ValueError
        The file is too large, not JSON, or not a valid model file.
    """
    path = Path(path)
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"{path}: {path.stat().st_size} bytes, larger than a model file may be "
                         f"({MAX_FILE_BYTES})")
    raw = _read_bounded(path)
    if len(raw) > MAX_FILE_BYTES:
        raise ValueError(f"{path}: larger than a model file may be ({MAX_FILE_BYTES} bytes)")
    _check_counts_before_parsing(path, raw)
    try:
        data = json.loads(raw)
    except RecursionError:
        raise ValueError(f"{path}: nests lists or objects too deeply for a model file") from None
    except ValueError as exc:   # JSONDecodeError, UnicodeDecodeError, an int of too many digits
        raise ValueError(f"{path}: not a JSON model file ({exc})") from None
    return model_from_dict(data, with_metadata=with_metadata)


#: the library's types a fitted estimator may hold, as skops names them
SKOPS_TYPES = (
    "optimaltrees.estimators.classifier.OptimalTreeClassifier",
    "optimaltrees.estimators.regressor.OptimalTreeRegressor",
    "optimaltrees.estimators.sat.SATTreeClassifier",
    "optimaltrees.estimators.diagram.DecisionDiagramClassifier",
    "optimaltrees.estimators.cv.OptimalTreeClassifierCV",
    "optimaltrees.estimators.cv.OptimalTreeRegressorCV",
    "optimaltrees.model.tree.Tree",
    "optimaltrees.model.regression_tree.RegressionTree",
    "optimaltrees.model.diagram.DecisionDiagram",
    "optimaltrees.model.summary.FitSummary",
    "optimaltrees.anytime.TracePoint",
    "optimaltrees.data.binarize.Binarizer",
    "optimaltrees.data.binarize.BooleanTest",
    "sklearn.utils._bunch.Bunch",        # the CV estimators' paths
)


def skops_trusted_types() -> list[str]:
    """Return the types to trust when ``skops.io`` loads an estimator of this library.

    ``skops.io.load(path, trusted=skops_trusted_types())`` loads a file that
    ``skops.io.dump`` wrote of any fitted estimator of the library.  skops
    rebuilds these objects from their attributes without importing or
    running anything the file names, but it does not check the attributes
    against each other as :func:`load_model` does (a tree's structure, the
    classes, the feature counts): for files from elsewhere, the JSON model
    files of :func:`save_model` are the format that is checked.

    Returns
    -------
    list of str
        Fully qualified type names, as ``skops.io.get_untrusted_types`` lists them.
    """
    return list(SKOPS_TYPES)
