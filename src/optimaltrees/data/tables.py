"""Read a data table from a file: CSV, or whitespace-separated numbers.

Used by the command line and the benchmark suites, so that a user's file and
the bundled ones are read by the same rules:

* separator: comma, semicolon or tab when the first line has one, else runs
  of whitespace;
* header: detected (no value of the first line reappears in its column below
  it, and one of them is not a number), or forced with ``header=True/False``;
* label: a column name or index (negative counts from the end); by default a
  column called y / label / class / target, else the first column of a
  whitespace file (the CP4IM and ConTree files), else the last column;
* every other column stays numeric when all its values parse as numbers, and
  becomes categorical (strings) when most do not.  Missing values and a stray
  word in a numeric column are errors that name the line and the column.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_MISSING = {"", "?", "na", "nan", "null", "none", "n/a"}
_LABEL_NAMES = ("y", "label", "class", "target")


@dataclass
class Table:
    X: "object"                # pandas DataFrame of the features
    y: np.ndarray | None       # labels (numbers when they all parse, else strings); None: no label column
    label: str | None          # name of the label column
    path: str
    named: bool = True         # column names come from a header (else x0, x1, ...)

    @property
    def feature_names(self) -> list[str]:
        return [str(c) for c in self.X.columns]

    def numeric(self) -> "object":
        """Features as numbers: categorical columns one-hot encoded ("col=value")."""
        import pandas as pd

        cat = [c for c in self.X.columns if not pd.api.types.is_numeric_dtype(self.X[c])]
        if not cat:
            return self.X
        return pd.get_dummies(self.X, columns=cat, prefix_sep="=", dtype=float)


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def _separator(line: str) -> str | None:
    for sep in (",", ";", "\t"):
        if sep in line:
            return sep
    return None      # whitespace


def _split(line: str, sep: str | None) -> list[str]:
    """Fields of one line; with a separator, CSV quoting rules apply ("a, b" is one field)."""
    fields = next(csv.reader([line], delimiter=sep, skipinitialspace=True)) if sep else line.split()
    return [f.strip() for f in fields]


def _has_header(rows: list[list[str]]) -> bool:
    first, rest = rows[0], rows[1:200]
    if all(_is_number(v) for v in first):
        return False
    if not rest:      # one line with words in it: a header without data, not a data row
        return True
    for j, v in enumerate(first):
        if any(len(r) > j and r[j] == v for r in rest):
            return False
    return True


def read_table(path: str | Path, label: str | int | bool | None = None, header: bool | None = None) -> Table:
    """Read ``path`` into features and labels (see the module docstring);
    ``label=False``: the file has no label column."""
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such data file: {path}")
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    lines = [(i + 1, ln) for i, ln in enumerate(text.splitlines()) if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise ValueError(f"{path}: the file has no data rows")
    sep = _separator(lines[0][1])
    rows = [_split(ln, sep) for _, ln in lines]
    numbers = [n for n, _ in lines]
    if header is None:
        header = _has_header(rows)
    names = rows[0] if header else [f"x{j}" for j in range(len(rows[0]))]
    if header:
        rows, numbers = rows[1:], numbers[1:]
    if not rows:
        raise ValueError(f"{path}: the file has a header but no data rows")
    width = len(names)
    for n, r in zip(numbers, rows):
        if len(r) != width:
            raise ValueError(f"{path}, line {n}: {len(r)} values, but the first line has {width}")
    if len(set(names)) != width:
        raise ValueError(f"{path}: the header repeats a column name")
    j = -1 if label is False else _label_index(label, names, header, sep, path)
    cols = {}
    for k, name in enumerate(names):
        values = [r[k] for r in rows]
        missing = [n for n, v in zip(numbers, values) if v.lower() in _MISSING]
        if missing:
            raise ValueError(f"{path}: column {name!r} has missing values (line {missing[0]}"
                             f"{f' and {len(missing) - 1} more' if len(missing) > 1 else ''}); "
                             "fill or drop them first")
        parsed = [_is_number(v) for v in values]
        if all(parsed):
            cols[name] = np.array([float(v) for v in values])
        elif sum(parsed) > 0.9 * len(values) and k != j:
            bad = next(n for n, ok in zip(numbers, parsed) if not ok)
            word = values[parsed.index(False)]
            raise ValueError(f"{path}, line {bad}: {word!r} in column {name!r}, whose other values are "
                             "numbers")
        else:
            cols[name] = np.array(values, dtype=object)
    if j < 0:     # label=False: every column is a feature (data to predict)
        return Table(pd.DataFrame(cols), None, None, str(path), named=header)
    y = cols.pop(names[j])
    if y.dtype != object and np.all(y == np.round(y)):
        y = y.astype(np.int64)
    if not cols:
        raise ValueError(f"{path}: no feature columns besides the label {names[j]!r}")
    return Table(pd.DataFrame(cols), y, names[j], str(path), named=header)


def _label_index(label, names: list[str], header: bool, sep, path) -> int:
    if label is None:
        lower = [n.lower() for n in names]
        for cand in _LABEL_NAMES:
            if header and cand in lower:
                return lower.index(cand)
        return 0 if sep is None else len(names) - 1
    if isinstance(label, str) and not label.lstrip("-").isdigit():
        if label not in names:
            raise ValueError(f"{path}: no column named {label!r}; the columns are {', '.join(names)}")
        return names.index(label)
    k = int(label)
    if not -len(names) <= k < len(names):
        raise ValueError(f"{path}: label column {k} does not exist (the file has {len(names)} columns)")
    return k % len(names)
