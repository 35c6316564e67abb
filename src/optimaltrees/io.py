"""Save fitted models as JSON and load them back.

JSON rather than pickle: a model file is readable, diffable, safe to load
from a stranger (only this package's own classes are rebuilt) and does not
break when Python or numpy change.  Everything a fitted estimator holds is
stored: parameters, arrays (with their dtype), the ``Tree`` or
``DecisionDiagram``, the SAT binarizer, traces.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import numbers
from pathlib import Path

import numpy as np

FORMAT = "optimaltrees-model"
VERSION = 1
_PACKAGE = "optimaltrees."


def _encode(value, where: str):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
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


def _class(name: str):
    module, _, qualname = name.partition(":")
    if not module.startswith(_PACKAGE):
        raise ValueError(f"model file names a class outside optimaltrees: {name!r}")
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__float__" in value:
        return float(value["__float__"])
    if "__ndarray__" in value:
        items = _decode(value["__ndarray__"])
        if value["dtype"] == "object":
            arr = np.empty(len(items), dtype=object)
            arr[:] = items
        else:
            arr = np.asarray(items, dtype=np.dtype(value["dtype"]))
        return arr.reshape(value["shape"])
    if "__tuple__" in value:
        return tuple(_decode(v) for v in value["__tuple__"])
    if "__set__" in value:
        return set(_decode(v) for v in value["__set__"])
    if "__items__" in value:
        return {_decode(k): _decode(v) for k, v in value["__items__"]}
    if "__dict__" in value:
        return {k: _decode(v) for k, v in value["__dict__"].items()}
    if "__object__" in value:
        obj = object.__new__(_class(value["__object__"]))
        obj.__dict__.update({k: _decode(v) for k, v in value["state"].items()})
        return obj
    raise ValueError(f"model file has an unknown entry with keys {sorted(value)}")


def model_to_dict(model) -> dict:
    """The fitted estimator as plain JSON types."""
    fitted = {k: v for k, v in vars(model).items() if k.endswith("_") and not k.startswith("_")}
    if not fitted:
        raise ValueError(f"this {type(model).__name__} is not fitted yet: nothing to save")
    params = {}
    for k, v in model.get_params(deep=False).items():
        try:
            params[k] = _encode(v, k)
        except TypeError:
            params[k] = None   # e.g. a callback function: not part of the fitted model
    return {"format": FORMAT, "version": VERSION,
            "estimator": f"{type(model).__module__}:{type(model).__qualname__}",
            "params": params, "fitted": {k: _encode(v, k) for k, v in fitted.items()}}


def model_from_dict(data: dict):
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("not an optimaltrees model file (no 'format': 'optimaltrees-model' entry)")
    if data.get("version") != VERSION:
        raise ValueError(f"model file version {data.get('version')!r}; this optimaltrees reads {VERSION}")
    cls = _class(data["estimator"])
    model = cls(**{k: _decode(v) for k, v in data["params"].items()})
    for k, v in data["fitted"].items():
        setattr(model, k, _decode(v))
    return model


def save_model(model, path: str | Path) -> None:
    """Write a fitted estimator to ``path`` as JSON."""
    Path(path).write_text(json.dumps(model_to_dict(model), indent=1) + "\n")


def load_model(path: str | Path):
    """Read an estimator written by :func:`save_model`; it predicts as before."""
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not a JSON model file ({exc})") from None
    return model_from_dict(data)
