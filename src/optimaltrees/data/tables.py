"""Read a data table from a file: CSV, or whitespace-separated numbers.

Used by the command line and the benchmark suites, so that a user's file and
the bundled ones are read by the same rules:

* text: UTF-8 (a byte-order mark is dropped), or the ``encoding`` given; a
  file that does not decode is an error naming the line, never guessed;
* separator: comma, semicolon or tab when the first line has one (when it
  has several, the one that splits the first lines into the same number of
  values, the most values on a tie: ``1,5;2;0`` is three values with decimal
  commas), else runs of whitespace;
* blank lines are skipped, and so are lines starting with ``#`` before the
  first row (a comment block); later, ``#`` starts a value (``#ff0000``);
* a quoted value may hold the separator but not a line break (refused, as
  it would shift every line number the errors give);
* header: detected (a word of the first line heads a column of numbers, or
  no value of the first line reappears in its column below it and one of
  them is not a number), or forced with ``header=True/False``;
* label: a column name or index (negative counts from the end); by default a
  column called y / label / class / target, else the first column of a
  whitespace file (the CP4IM and ConTree files), else the last column;
* every other column stays numeric when all its values parse as numbers, and
  becomes categorical (strings) when most do not.  A column of decimal
  commas (``1,5``) is numeric too when the separator is not a comma
  (``decimal=","`` forces that reading, ``decimal="."`` turns it off);
* missing values are the tokens of :data:`MISSING` (empty, ``?``, ``NA``,
  ``NaN``, ``null``, ``N/A``; never a word such as ``none``, which is a
  category value) or the ones given as ``missing``.  Missing values and a
  stray word in a numeric column are errors that name the line and the
  column, as is a row with another number of values than the first line.

The file is parsed by pandas; the rules above are checked on its result, and
only a file with an error is looked at line by line (to name the line).
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: the tokens that mean "missing" unless the caller gives its own
MISSING = frozenset({"", "?"} | {v for base in ("na", "nan", "null", "n/a")
                                 for v in (base, base.upper(), base.title())} | {"NaN", "#N/A", "<NA>"})
_LABEL_NAMES = ("y", "label", "class", "target")
_HEAD_ROWS = 200                     # rows the header detection looks at
_DECIMAL_COMMA = re.compile(r"^[+-]?(\d+,\d*|,\d+)([eE][+-]?\d+)?$")
_BLANKISH_LINE = re.compile(r"^[ \t]+$", re.M)   # whitespace only: blank to pandas too (a tab is a value to it)
_EXTRA = "__extra__"                 # the column that catches a row's values beyond the first line's


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

    def categorical_columns(self) -> list[str]:
        """The columns that :meth:`numeric` one-hot encodes."""
        import pandas as pd

        return [c for c in self.X.columns if not pd.api.types.is_numeric_dtype(self.X[c])]

    def id_like_columns(self, share: float = 0.5, minimum: int = 20) -> list[tuple[str, int]]:
        """(name, distinct values) of each categorical column whose values are
        nearly all distinct: more than ``share`` of the rows and more than
        ``minimum`` values.  Such a column is most likely an identifier or a
        name; one-hot encoded it becomes that many features."""
        out = []
        for c in self.categorical_columns():
            n = int(self.X[c].nunique())
            if looks_like_identifier(n, len(self.X), share, minimum):
                out.append((str(c), n))
        return out

    def numeric(self) -> "object":
        """Features as numbers: categorical columns one-hot encoded ("col=value")."""
        import pandas as pd

        cat = self.categorical_columns()
        if not cat:
            return self.X
        return pd.get_dummies(self.X, columns=cat, prefix_sep="=", dtype=float)


def looks_like_identifier(n_values: int, n_rows: int, share: float = 0.5, minimum: int = 20) -> bool:
    """Whether a categorical column of ``n_values`` distinct values in
    ``n_rows`` rows looks like an identifier: more than ``share`` of the rows
    and more than ``minimum`` values."""
    return n_values > minimum and n_values > share * n_rows


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def _separator(lines: list[str]) -> str | None:
    """The first line's separator; when it has several, the one that splits
    the first lines into one number of values, the most values on a tie."""
    present = [sep for sep in (",", ";", "\t") if sep in lines[0]]
    if len(present) <= 1:
        return present[0] if present else None      # None: whitespace
    best, best_key = present[0], None
    for sep in present:
        widths = [len(_split(line, sep)) for line in lines[:50]]
        key = (len(set(widths)) == 1, widths[0])
        if best_key is None or key > best_key:
            best, best_key = sep, key
    return best


def _split(line: str, sep: str | None) -> list[str]:
    """Fields of one line; with a separator, CSV quoting rules apply ("a, b" is one field)."""
    fields = next(csv.reader([line], delimiter=sep, skipinitialspace=True)) if sep else line.split()
    return [f.strip() for f in fields]


def _has_header(rows: list[list[str]]) -> bool:
    first, rest = rows[0], rows[1:_HEAD_ROWS]
    if all(_is_number(v) for v in first):
        return False
    if not rest:      # one line with words in it: a header without data, not a data row
        return True
    for j, v in enumerate(first):
        # a word above a column of numbers names it, even where other names
        # are numbers that reappear below ("0,1,2,3_u,...,y" over 0/1 data)
        below = [r[j] for r in rest if len(r) > j and r[j] != ""]
        if not _is_number(v) and below and all(_is_number(b) for b in below):
            return True
    for j, v in enumerate(first):
        if any(len(r) > j and r[j] == v for r in rest):
            return False
    return True


def _first_lines(text: str, count: int) -> list[tuple[int, str, int]]:
    """(line number, line, offset just past it) of the first ``count`` lines
    with content, skipping blank lines and the comment lines before the
    first of them, without splitting the rest."""
    out, start, number = [], 0, 0
    while start < len(text) and len(out) < count:
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        number += 1
        line = text[start:end]
        if line.strip() and (out or not line.lstrip().startswith("#")):
            out.append((number, line, end + 1))
        start = end + 1
    return out


def _likely_encoding(data: bytes) -> str:
    """A hint for a file that is not the encoding it was read as: UTF-16 and
    UTF-32 show as a byte-order mark or as zero bytes between ASCII ones."""
    head = data[:4096]
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "it starts with a UTF-32 byte-order mark: utf-32"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "it starts with a UTF-16 byte-order mark: utf-16"
    if head and head.count(0) * 4 >= len(head):
        return "zero bytes between its characters suggest UTF-16 without a mark: utf-16-le or utf-16-be"
    return "e.g. latin-1 or cp1252"


def _decode(path: Path, data: bytes, encoding: str) -> str:
    """The file's text; bytes that are not ``encoding`` are an error naming
    the line (a replacement character would merge distinct categories)."""
    try:
        text = data.decode("utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding)
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise ValueError(f"{path}, line {line}: not {encoding} text (byte 0x{data[exc.start]:02x}); "
                         f"give the file's encoding ({_likely_encoding(data)})") from None
    except LookupError:
        raise ValueError(f"unknown text encoding {encoding!r}") from None
    if "\x00" in text:           # (UTF-16 text without a mark decodes as UTF-8 with zero bytes)
        line = text[:text.index("\x00")].count("\n") + 1
        raise ValueError(f"{path}, line {line}: a zero byte, which no table holds; give the file's "
                         f"encoding ({_likely_encoding(data)})")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _head(path: Path, text: str, header: bool | None):
    """(first lines, separator, their values, header, column names) of a file's text."""
    head = _first_lines(text, _HEAD_ROWS + 1)
    if not head:
        raise ValueError(f"{path}: the file has no data rows")
    sep = _separator([ln for _, ln, _ in head])
    rows = [_split(ln, sep) for _, ln, _ in head]
    if header is None:
        header = _has_header(rows)
    names = rows[0] if header else [f"x{j}" for j in range(len(rows[0]))]
    return head, sep, rows, header, names


def column_names(path: str | Path, header: bool | None = None, *, encoding: str = "utf-8",
                 head_bytes: int = 1 << 20) -> tuple[list[str], bool]:
    """(column names, whether they come from a header) as :func:`read_table`
    would give them, from the start of the file only."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path}: is a folder, not a data file")
    if not path.is_file():
        raise FileNotFoundError(f"no such data file: {path}")
    with open(path, "rb") as fh:
        data = fh.read(head_bytes)
    cut = data.rfind(b"\n") if len(data) == head_bytes else -1
    text = _decode(path, data[:cut + 1] if cut >= 0 else data, encoding)
    _, _, _, header, names = _head(path, text, header)
    return names, header


def _refuse_line_breaks_in_quotes(body: str, sep: str, first_line: int, path) -> None:
    """A quoted value spanning lines: refused by its line number."""
    reader = csv.reader(io.StringIO(body), delimiter=sep, skipinitialspace=True)
    before = 0       # lines read before this record
    for row in reader:
        if any("\n" in v for v in row):
            raise ValueError(f"{path}, line {first_line + before}: a quoted value spans lines; "
                             "a value may not hold a line break")
        before = reader.line_num


def read_table(path: str | Path, label: str | int | bool | None = None, header: bool | None = None, *,
               missing=None, decimal: str | None = None, allow_missing: bool = False,
               text_columns=(), encoding: str = "utf-8") -> Table:
    """Read ``path`` into features and labels (see the module docstring);
    ``label=False``: the file has no label column.  ``missing``: the tokens
    that mean a missing value (default :data:`MISSING`); ``decimal``: ``","``
    or ``"."`` for every numeric column, None to detect decimal commas.
    ``allow_missing``: a missing feature value is NaN (numeric column) or
    missing (text column) instead of an error; a missing label stays one.
    ``text_columns``: names of columns kept as text even when every value
    parses as a number (a model's categories, e.g. codes "1", "2", "A").
    ``encoding``: the file's text encoding."""
    import pandas as pd

    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path}: is a folder, not a data file")
    if not path.is_file():
        raise FileNotFoundError(f"no such data file: {path}")
    if decimal not in (None, ".", ","):
        raise ValueError(f"decimal must be '.' or ',', got {decimal!r}")
    missing = MISSING if missing is None else frozenset(str(m).strip() for m in missing)
    text = _decode(path, path.read_bytes(), encoding)
    head, sep, rows, header, names = _head(path, text, header)
    width = len(names)
    # the rows: everything after the header line (or after the comment block), one pandas call
    first_line, offset = (head[0][0] + 1, head[0][2]) if header else (head[0][0], text.rfind("\n", 0, head[0][2] - 1) + 1)
    body = text[offset:]
    if header and len(head) == 1:
        raise ValueError(f"{path}: the file has a header but no data rows")
    if sep and '"' in body:
        _refuse_line_breaks_in_quotes(body, sep, first_line, path)
    if _BLANKISH_LINE.search(body):
        body = _BLANKISH_LINE.sub("", body)     # blank now: pandas skips the line, numbering is kept
    split_lines = None

    def data_lines() -> tuple[np.ndarray, list[str]]:
        """(line number, text) of every data row, as pandas reads them: computed on an error only."""
        nonlocal split_lines
        if split_lines is None:
            found = [(first_line + i, ln) for i, ln in enumerate(body.split("\n")) if ln.strip()]
            split_lines = (np.array([n for n, _ in found], dtype=np.int64), [ln for _, ln in found])
        return split_lines

    def line_of(rows_) -> np.ndarray:
        return data_lines()[0][rows_]

    # "" is always missing to pandas, so that a row with fewer values shows as a missing last value
    # (a file whose user says "" is a value gets its empty cells back below)
    na = sorted(missing | {""})
    columns = list(range(width)) + [_EXTRA]
    as_text = {k for k, name in enumerate(names) if name in set(text_columns)}
    options = dict(sep=sep if sep else r"\s+", header=None, names=columns, index_col=False,
                   na_values={k: na for k in columns}, keep_default_na=False,
                   skipinitialspace=True, skip_blank_lines=True, engine="c", low_memory=False,
                   quoting=csv.QUOTE_MINIMAL if sep else csv.QUOTE_NONE,
                   dtype={_EXTRA: object, **{k: str for k in as_text}})
    try:
        df = pd.read_csv(io.StringIO(body), **options)
        bools = [k for k in range(width) if pd.api.types.is_bool_dtype(df[k])]
        if bools:   # pandas reads true/false words as booleans: keep them as the words they are
            df = pd.read_csv(io.StringIO(body), **dict(options, dtype={_EXTRA: object, **{k: str for k in {*bools, *as_text}}}))
    except pd.errors.ParserError as exc:
        _check_widths(*data_lines(), sep, width, path)      # names the first bad line
        raise ValueError(f"{path}: cannot be read as a table ({exc})") from None
    except pd.errors.EmptyDataError:
        df = pd.DataFrame(columns=columns)
    if len(df) == 0:
        raise ValueError(f"{path}: the file has a header but no data rows" if header
                         else f"{path}: the file has no data rows")
    # rows with another number of values: more fill the extra column (or end in a separator),
    # fewer leave the last column empty; those rows (only) are split here to say which
    suspects = df[_EXTRA].notna().to_numpy() | df[width - 1].isna().to_numpy()
    if sep and ((sep + "\n") in body or body[-64:].rstrip(" \t\n").endswith(sep)):
        numbers, texts = data_lines()
        suspects |= np.array([t.rstrip(" \t").endswith(sep) for t in texts])
    if suspects.any():
        numbers, texts = data_lines()
        rows_ = np.flatnonzero(suspects)
        _check_widths(numbers[rows_], [texts[i] for i in rows_], sep, width, path)
    if len(set(names)) != width:
        raise ValueError(f"{path}: the header repeats a column name")
    j = -1 if label is False else _label_index(label, names, header, sep, path)
    cols = {}
    for k, name in enumerate(names):
        col = df[k]
        where = np.flatnonzero(col.isna().to_numpy())
        if len(where) and "" not in missing:    # empty cells are values; only the tokens are missing
            texts = data_lines()[1]
            raw = [_split(texts[i], sep)[k] for i in where]
            tokens = [i for i, v in zip(where, raw) if v in missing]
            col = col.astype(object)
            col.iloc[where] = raw
            where = np.array(tokens, dtype=np.int64)
        if len(where) and not (allow_missing and k != j):
            raise ValueError(f"{path}: column {name!r} has missing values (line {line_of(where[:1])[0]}"
                             f"{f' and {len(where) - 1} more' if len(where) > 1 else ''}); "
                             "fill or drop them first")
        if len(where):
            col = col.astype(object)
            col.iloc[where] = None          # the missing cells, and only they
        elif pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            cols[name] = col.to_numpy(dtype=np.float64)
            continue
        # text: decide on the distinct values (few, in a categorical column), then spread to the rows
        codes, uniques = pd.factorize(col)          # code -1: a missing cell
        present = codes >= 0
        uniques = np.array([str(u).strip() for u in uniques], dtype=object)
        numbers = _as_numbers(pd.Series(uniques, dtype=object), sep, decimal).to_numpy(dtype=np.float64)
        parsed = ~np.isnan(numbers)[codes[present]]
        if parsed.all() and k not in as_text:
            out = np.full(len(codes), np.nan)
            out[present] = numbers[codes[present]]
            cols[name] = out
        elif parsed.sum() > 0.9 * len(parsed) and k != j and k not in as_text:
            bad = int(np.flatnonzero(present)[np.flatnonzero(~parsed)[0]])
            raise ValueError(f"{path}, line {line_of([bad])[0]}: {uniques[codes[bad]]!r} in column {name!r}, "
                             "whose other values are numbers")
        else:
            out = np.full(len(codes), None, dtype=object)
            out[present] = uniques[codes[present]]
            cols[name] = out
    for name, values in cols.items():
        if values.dtype == np.float64 and np.isinf(values).any():
            bad = int(np.flatnonzero(np.isinf(values))[0])
            raise ValueError(f"{path}, line {line_of([bad])[0]}: an infinite value in column {name!r}; "
                             "no method searches infinity (give it a large finite value, or leave it missing)")
    if j < 0:     # label=False: every column is a feature (data to predict)
        return Table(pd.DataFrame(cols), None, None, str(path), named=header)
    y = cols.pop(names[j])
    if y.dtype != object and np.all(y == np.round(y)):
        y = y.astype(np.int64)
    if not cols:
        raise ValueError(f"{path}: no feature columns besides the label {names[j]!r}")
    return Table(pd.DataFrame(cols), y, names[j], str(path), named=header)


def _as_numbers(values, sep, decimal):
    """The column's values as numbers (NaN where one does not parse); decimal
    commas count when ``decimal`` is ",", or when it is None, the separator is
    not a comma and every value with a comma has the form of one."""
    import pandas as pd

    numbers = pd.to_numeric(values, errors="coerce")
    if decimal == "." or (decimal is None and sep == ","):
        return numbers
    comma = values.str.contains(",", regex=False).to_numpy()
    if not comma.any():
        return numbers
    if decimal is None and not values[comma].str.fullmatch(_DECIMAL_COMMA).all():
        return numbers
    return pd.to_numeric(values.str.replace(",", ".", regex=False), errors="coerce")


def _check_widths(numbers, texts: list[str], sep, width: int, path) -> None:
    """Raise for the first of these rows (line numbers, texts) whose number of values is not ``width``."""
    for number, line in zip(numbers, texts):
        n = len(_split(line, sep))
        if n != width:
            raise ValueError(f"{path}, line {number}: {n} values, but the first line has {width}")


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
