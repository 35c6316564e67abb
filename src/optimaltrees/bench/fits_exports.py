"""The exports of a fitted tree, run where they run: the generated Python
executed, the SQL evaluated in SQLite, the C compiled and called, the ONNX
model in onnxruntime, the scikit-learn tree's own ``predict``.  The ``exports``
suite counts how many rows each agrees with ``predict`` on; the tests use the
same runners.
"""
from __future__ import annotations

import ctypes
import math
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

#: the exports the suite checks, in its report's order
EXPORTS = ("to_sklearn", "to_onnx", "python", "sql", "c")


def _cells(rows) -> list[list]:
    """One list per row; a missing cell None (text columns) or NaN (numbers)."""
    import pandas as pd

    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(np.asarray(rows))
    out = []
    for row in frame.itertuples(index=False):
        out.append([None if (not isinstance(v, (float, np.floating)) and pd.isna(v)) else v for v in row])
    return out


def run_python(code: str, rows) -> np.ndarray:
    """``predict`` of the generated Python on each row."""
    namespace: dict = {}
    exec(compile(code, "<export_code>", "exec"), namespace)      # code this library generated
    return np.array([namespace["predict"](row) for row in _cells(rows)], dtype=object)


def run_sql(code: str, rows, names: list[str]) -> np.ndarray:
    """The generated ``CASE`` expression over a SQLite table of the rows (NaN and None: NULL)."""
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE t ({', '.join(_quoted(n) for n in names)})")
    cells = [[None if isinstance(v, float) and math.isnan(v) else (v.item() if isinstance(v, np.generic) else v)
              for v in row] for row in _cells(rows)]
    db.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(names))})", cells)
    return np.array([r[0] for r in db.execute(f"SELECT {code} FROM t ORDER BY rowid")], dtype=object)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def compile_c(code: str, folder: Path) -> ctypes.CDLL:
    """The generated C compiled and loaded; a new file name each time, as the
    loader hands back a library it has loaded under the same name."""
    stem = f"tree{len(list(folder.glob('*.c')))}"
    source, lib = folder / f"{stem}.c", folder / f"{stem}.so"
    source.write_text(code)
    subprocess.run(["cc", "-std=c99", "-O1", "-Wall", "-Werror", "-shared", "-fPIC", "-o", str(lib), str(source),
                    "-lm"], check=True, capture_output=True)
    return ctypes.CDLL(str(lib))


def run_c(code: str, rows, folder: Path, text_columns=(), value: bool = False) -> np.ndarray:
    """The generated C function on each row: numbers in ``x``, the
    ``text_columns`` in ``s`` (missing: NaN and NULL); class indices, or
    values with ``value``."""
    f = compile_c(code, folder).predict
    f.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_char_p)]
    f.restype = ctypes.c_double if value else ctypes.c_int
    out = []
    for row in _cells(rows):
        row = [None if isinstance(v, float) and math.isnan(v) else v for v in row]
        p = len(row)
        nums = (ctypes.c_double * p)(*[float("nan") if j in text_columns or v is None else float(v)
                                       for j, v in enumerate(row)])
        texts = (ctypes.c_char_p * p)(*[(None if v is None else str(v).encode()) if j in text_columns else None
                                        for j, v in enumerate(row)])
        out.append(f(nums, texts))
    return np.array(out)


def onnx_feeds(rows, names: list[str], numeric: bool) -> dict:
    """onnxruntime's inputs: ``X`` for numeric data, else one (n, 1) input
    per column, text as strings (missing: "") and numbers as doubles."""
    import pandas as pd

    if numeric:
        return {"X": np.asarray(rows, dtype=np.float64)}
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows, columns=names)
    feeds = {}
    for name, col in zip(names, frame.columns):
        values = frame[col].astype(object).to_numpy()
        if any(isinstance(v, str) for v in values):
            feeds[name] = np.array([v if isinstance(v, str) else "" for v in values], dtype=object).reshape(-1, 1)
        else:
            feeds[name] = frame[col].astype(float).to_numpy().reshape(-1, 1)
    return feeds


def export_predictions(model, rows, export: str, folder: Path) -> np.ndarray:
    """What ``export`` of the fitted ``model`` predicts on ``rows``."""
    names = ([str(c) for c in model.feature_names_in_] if hasattr(model, "feature_names_in_")
             else [f"x{i}" for i in range(model.n_features_in_)])
    if export == "to_sklearn":
        return model.to_sklearn().predict(rows)
    if export == "to_onnx":
        import onnxruntime

        session = onnxruntime.InferenceSession(model.to_onnx().SerializeToString(),
                                               providers=["CPUExecutionProvider"])
        numeric = getattr(model, "encoder_", None) is None
        return session.run(None, onnx_feeds(rows, names, numeric))[0].reshape(-1)
    if export == "python":
        return run_python(model.export_code("python"), rows)
    if export == "sql":
        return run_sql(model.export_code("sql", feature_names=names), rows, names)
    if export == "c":
        text = {i for i, name in enumerate(names) if _is_text(rows, i)}
        return model.classes_[run_c(model.export_code("c"), rows, folder, text)]
    raise ValueError(f"unknown export {export!r}")


def _is_text(rows, i: int) -> bool:
    import pandas as pd

    if not isinstance(rows, pd.DataFrame):
        return False
    return any(isinstance(v, str) for v in rows.iloc[:, i].astype(object))


def agreement(model, rows, export: str) -> tuple[int, float]:
    """(rows where ``export`` predicts as ``model.predict``, seconds it took)."""
    expected = model.predict(rows)
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        got = export_predictions(model, rows, export, Path(folder))
        seconds = time.perf_counter() - start
    same = np.asarray(got).astype(str) == np.asarray(expected).astype(str)
    return int(same.sum()), seconds


def random_rows(frame, model, n: int, seed: int, missing: float = 0.1, edges: bool = False):
    """``n`` rows like the table's: a numeric cell uniform over its column's
    range or a training value (``edges``: or a threshold of the tree or one
    float64 step beside it, where float32 rounding would show); a text cell
    one of the column's values or an unseen one; a share ``missing`` of the
    cells missing."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    columns = {}
    thresholds = _column_thresholds(model)
    for j, name in enumerate(frame.columns):
        col = frame[name]
        present = col.dropna().to_numpy()
        if len(present) and any(isinstance(v, str) for v in present):
            pool = np.array(list(dict.fromkeys(present.tolist())) + ["an unseen value"], dtype=object)
            cells = pool[rng.integers(0, len(pool), n)].astype(object)
            cells[rng.random(n) < missing] = None
        else:
            values = col.astype(float).to_numpy()
            lo, hi = np.nanmin(values), np.nanmax(values)
            cells = rng.uniform(lo, hi, n) if np.isfinite(lo) and hi > lo else np.full(n, lo)
            copy = rng.random(n) < 1 / 3
            cells[copy] = rng.choice(values[~np.isnan(values)], copy.sum())
            ts = thresholds.get(j, []) if edges else []
            if ts:
                near = rng.random(n) < 1 / 3
                picks = np.array(ts)[rng.integers(0, len(ts), near.sum())]
                step = rng.integers(-1, 2, near.sum())
                cells[near] = np.where(step < 0, np.nextafter(picks, -np.inf),
                                       np.where(step > 0, np.nextafter(picks, np.inf), picks))
            cells[rng.random(n) < missing] = np.nan
        columns[name] = cells
    return pd.DataFrame(columns)


def _column_thresholds(model) -> dict[int, list[float]]:
    """Input column -> the finite thresholds the tree compares it with."""
    tree, encoder = model.tree_, getattr(model, "encoder_", None)
    out: dict[int, list[float]] = {}
    for node in np.flatnonzero(tree.feature >= 0):
        f, t = int(tree.feature[node]), float(tree.threshold[node])
        if encoder is not None:
            test = encoder.tests_[f]
            if test.kind != "value":
                continue
            f = test.column
        if math.isfinite(t):
            out.setdefault(f, []).append(t)
    return out


def exports_agreement(*, data: str, depth: int = 3, time_limit: float = 60.0, seed: int = 0,
                      random: int = 10_000) -> dict:
    """Fit ``OptimalTreeClassifier`` on the table ``data`` (read raw:
    categories and missing values kept) and count, per export, the training
    rows, the ``random`` random rows and as many rows at the tree's
    thresholds that it predicts as ``predict``."""
    import warnings

    from optimaltrees import OptimalTreeClassifier
    from optimaltrees.data.tables import read_table

    if data.startswith("synthetic:"):
        X, y = mixed_table(int(data.split(":", 1)[1]), seed)
    else:
        table = read_table(data, allow_missing=True)
        X, y = table.X, table.y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model = OptimalTreeClassifier(max_depth=depth, time_limit=time_limit).fit(X, y)
        fit_seconds = time.perf_counter() - start
    rows = random_rows(X, model, random, seed)
    edge_rows = random_rows(X, model, random, seed + 1, edges=True)
    record = dict(n=int(len(y)), p=int(X.shape[1]), categorical=getattr(model, "encoder_", None) is not None,
                  missing=bool(X.isna().any().any()), leaves=model.tree_.n_leaves, fit_seconds=fit_seconds,
                  random=random)
    for export in EXPORTS:
        try:
            train, t_train = agreement(model, X, export)
            new, t_new = agreement(model, rows, export)
            edge, t_edge = agreement(model, edge_rows, export)
            record[export] = dict(train=train, random=new, edges=edge, seconds=t_train + t_new + t_edge)
        except Exception as exc:         # an export that fails is a result of the suite, said in the report
            record[export] = dict(error=f"{type(exc).__name__}: {exc}"[:300])
    return record


#: how :func:`mixed_table` makes its table, as the report states it
MIXED_TABLE = ("columns `colour` (text: red, green, blue, `gr'een \"x\"`, `ünï ☃`), `size` (standard normal), "
               "`level` (1, 2 or 3, a category), `weight` (uniform 0-100); label yes when colour is red or size > 1, "
               "else maybe when level is 2, else no, flipped for 5 % of rows; 10 % of each feature's cells missing; "
               "`numpy.random.default_rng(seed)`")


def mixed_table(rows: int, seed: int):
    """A table of text categories (quotes and Unicode included), numbers and
    missing values, the same for the same arguments (see :data:`MIXED_TABLE`)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "gr'een \"x\"", "ünï ☃"], rows).astype(object)
    size = rng.standard_normal(rows)
    level = rng.choice([1, 2, 3], rows).astype(float)
    weight = rng.uniform(0, 100, rows)
    y = np.where((colour == "red") | (size > 1.0), "yes", np.where(level == 2, "maybe", "no"))
    flip = rng.random(rows) < 0.05
    y[flip] = rng.choice(["yes", "maybe", "no"], flip.sum())
    for values in (colour, size, level, weight):
        values[rng.random(rows) < 0.1] = None if values.dtype == object else np.nan
    return pd.DataFrame({"colour": colour, "size": size, "level": pd.Categorical(level), "weight": weight}), y
