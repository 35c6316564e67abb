"""A fitted tree as dependency-free code: a Python function, a SQL ``CASE``
expression or a C function that predicts what the model predicts.

Each split becomes one question about one input column, asked of the raw
value (the model's encoding is compiled away): a missing value goes to the
side the search chose; a present one goes left when the column's
``predicate`` holds.  Literals are written so that the target reads back
the very value (Python's ``repr``, C's hexadecimal floats, SQL's quoted
strings), and what a target cannot carry (a category that is not text, a
number or a Boolean; text with a NUL character) is refused, so the code
never runs anything but the comparisons.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

LANGUAGES = ("python", "sql", "c")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Question:
    """What a split asks of its input column: ``kind`` "leq" (x <= value),
    "in" (x in the tuple value), "always" or "never" (every present value
    goes left / right)."""

    column: int
    kind: str
    value: object = None


def _native(value):
    """A category or label as a plain Python value, or a ValueError."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (bool, int, str)) or (isinstance(value, float) and math.isfinite(value)):
        return value
    raise ValueError(f"export_code: the value {value!r} ({type(value).__name__}) is not text, a finite number "
                     "or a Boolean, which generated code can compare with")


def _question(test, threshold: float, column: int | None = None) -> Question:
    """The question of a split at ``threshold`` on a tree column: the column
    itself (``test`` None or of kind "value") or a 0/1 test column (1 when
    the test holds: "equals", "in" or "threshold", x > value)."""
    if test is None or test.kind == "value":
        col = column if test is None else test.column
        if threshold == math.inf:
            return Question(col, "always")
        if threshold == -math.inf:
            return Question(col, "never")
        return Question(col, "leq", float(threshold))
    # the 0/1 column goes left when it is <= threshold
    if threshold >= 1:
        return Question(test.column, "always")
    if threshold < 0:
        return Question(test.column, "never")
    if test.kind == "threshold":                  # 1 when x > value: left when x <= value
        return Question(test.column, "leq", float(test.value))
    members = tuple(test.value) if test.kind == "in" else (test.value,)
    if any(m is None for m in members):
        raise ValueError(f"export_code: column {test.name!r} has a test of missing values against its one "
                         "value, which has no comparison form")
    return Question(test.column, "not in", tuple(_native(m) for m in members))


def questions(tree, tests=None) -> dict[int, Question]:
    """Per split node, its question about an input column."""
    out = {}
    for node in np.flatnonzero(tree.feature >= 0):
        f = int(tree.feature[node])
        out[int(node)] = _question(None if tests is None else tests[f], float(tree.threshold[node]), f)
    return out


def leaf_outputs(tree, classes=None) -> np.ndarray:
    """Per node, what a leaf predicts: its class label or its mean."""
    if classes is None:
        return tree.value[:, 0]
    return np.asarray(classes, dtype=object)[tree.node_class()]


class _Writer:
    """One language's literals and statements; ``tree_code`` walks the tree."""

    def __init__(self, names: list[str], text_columns: set[int]):
        self.names = names
        self.text = text_columns

    def walk(self, tree, qs, outputs, node: int = 0, depth: int = 1, known: dict | None = None) -> list[str]:
        """The code of the subtree at ``node``; ``known`` maps the columns
        the path has asked about to whether their value is missing, so no
        question is asked twice."""
        if tree.feature[node] < 0:
            return self.leaf(outputs[node], depth)
        known = {} if known is None else known
        q = qs[node]
        left, right = int(tree.children_left[node]), int(tree.children_right[node])
        missing = left if tree.missing_left[node] else right
        state = known.get(q.column)

        def sub(child: int, is_missing: bool, at: int) -> list[str]:
            return self.walk(tree, qs, outputs, child, at, {**known, q.column: is_missing})

        if state is True:
            return sub(missing, True, depth)
        present = {"always": left, "never": right}.get(q.kind)
        if state is False and present is not None:
            return sub(present, False, depth)
        test = (None if present is not None else
                self.leq(q.column, q.value) if q.kind == "leq" else self.not_in(q.column, q.value))
        if state is False:
            return self.branch(test, sub(left, False, depth + 1), sub(right, False, depth + 1), depth)
        if present is not None:
            return self.branch(self.is_missing(q.column), sub(missing, True, depth + 1),
                               sub(present, False, depth + 1), depth)
        return self.branch3(self.is_missing(q.column), sub(missing, True, depth + 1), test,
                            sub(left, False, depth + 1), sub(right, False, depth + 1), depth)


class _Python(_Writer):
    def literal(self, v):
        return repr(_native(v)) if not isinstance(v, float) else repr(float(v))

    def value(self, column):
        return f"x[{column}]"

    def is_missing(self, column):
        v = self.value(column)
        return f"{v} is None or {v} != {v}"

    def leq(self, column, t):
        return f"{self.value(column)} <= {float(t)!r}"

    def not_in(self, column, members):
        return f"{self.value(column)} not in ({', '.join(self.literal(m) for m in members)},)"

    def leaf(self, out, depth):
        return ["    " * depth + f"return {self.literal(out)}"]

    def branch(self, cond, then, other, depth):
        pad = "    " * depth
        return [f"{pad}if {cond}:", *then, f"{pad}else:", *other]

    def branch3(self, cond, then, test, left, right, depth):
        pad = "    " * depth
        return [f"{pad}if {cond}:", *then, f"{pad}elif {test}:", *left, f"{pad}else:", *right]


class _Sql(_Writer):
    def literal(self, v):
        v = _native(v) if not isinstance(v, float) else float(v)
        if isinstance(v, bool):
            return "1" if v else "0"
        if isinstance(v, str):
            if "\x00" in v:
                raise ValueError(f"export_code: SQL text cannot hold the NUL character of {v!r}")
            return "'" + v.replace("'", "''") + "'"
        return repr(v)

    def value(self, column):
        return '"' + self.names[column].replace('"', '""') + '"'

    def is_missing(self, column):
        return f"{self.value(column)} IS NULL"

    def leq(self, column, t):
        return f"{self.value(column)} <= {float(t)!r}"

    def not_in(self, column, members):
        return f"{self.value(column)} NOT IN ({', '.join(self.literal(m) for m in members)})"

    def leaf(self, out, depth):
        return ["  " * depth + self.literal(out)]

    def branch(self, cond, then, other, depth):
        pad = "  " * depth
        return [f"{pad}CASE WHEN {cond} THEN", *then, f"{pad}ELSE", *other, f"{pad}END"]

    def branch3(self, cond, then, test, left, right, depth):
        pad = "  " * depth
        return [f"{pad}CASE WHEN {cond} THEN", *then, f"{pad}WHEN {test} THEN", *left, f"{pad}ELSE", *right,
                f"{pad}END"]


def _c_string(text: str) -> str:
    """A C string literal of ``text``'s UTF-8 bytes: printable ASCII as it is
    (but quote, backslash and question mark, which trigraphs read), every
    other byte as a three-digit octal escape."""
    if "\x00" in text:
        raise ValueError(f"export_code: a C string cannot hold the NUL character of {text!r}")
    out = []
    for b in text.encode("utf-8"):
        ch = chr(b)
        out.append(ch if 32 <= b < 127 and ch not in '"\\?' else f"\\{b:03o}")
    return '"' + "".join(out) + '"'


class _C(_Writer):
    def __init__(self, names, text_columns, classes=None):
        super().__init__(names, text_columns)
        self.classes = None if classes is None else [_native(c) for c in classes]

    def is_missing(self, column):
        return f"s[{column}] == NULL" if column in self.text else f"isnan(x[{column}])"

    def leq(self, column, t):
        return f"x[{column}] <= {float(t).hex()}"

    def member(self, column, m):
        if column in self.text:
            return f"strcmp(s[{column}], {_c_string(m)}) == 0"
        return f"x[{column}] == {float(m).hex()}"

    def not_in(self, column, members):
        return "!(" + " || ".join(self.member(column, m) for m in members) + ")"

    def leaf(self, out, depth):
        value = str(self.classes.index(_native(out))) if self.classes is not None else float(out).hex()
        return ["    " * depth + f"return {value};"]

    def branch(self, cond, then, other, depth):
        pad = "    " * depth
        return [f"{pad}if ({cond}) {{", *then, f"{pad}}} else {{", *other, f"{pad}}}"]

    def branch3(self, cond, then, test, left, right, depth):
        pad = "    " * depth
        return [f"{pad}if ({cond}) {{", *then, f"{pad}}} else if ({test}) {{", *left, f"{pad}}} else {{", *right,
                f"{pad}}}"]


def _text_columns(qs: dict[int, Question]) -> set[int]:
    """Input columns compared with text (for C: read from the string array);
    a column with text and numbers among its categories is refused."""
    kinds: dict[int, set] = {}
    for q in qs.values():
        if q.kind == "not in":
            kinds.setdefault(q.column, set()).update(isinstance(m, str) for m in q.value)
        elif q.kind == "leq":
            kinds.setdefault(q.column, set()).add(False)
    mixed = [c for c, k in kinds.items() if len(k) > 1]
    if mixed:
        raise ValueError(f"export_code: column {mixed[0]} is compared with text and with numbers; C reads a "
                         "column as one or the other")
    return {c for c, k in kinds.items() if k == {True}}


def tree_code(tree, language: str, *, tests=None, classes=None, names: list[str], function_name: str) -> str:
    """The code of ``tree`` in ``language`` (see :data:`LANGUAGES`)."""
    if language not in LANGUAGES:
        raise ValueError(f"export_code: language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    if not isinstance(function_name, str) or not _IDENTIFIER.match(function_name):
        raise ValueError(f"export_code: function_name must be an identifier (letters, digits, _), "
                         f"got {function_name!r}")
    qs = questions(tree, tests)
    outputs = leaf_outputs(tree, classes)
    text = _text_columns(qs)
    described = ", ".join(f"{i}: {name}" for i, name in enumerate(names))
    if language == "python":
        body = _Python(names, text).walk(tree, qs, outputs)
        return "\n".join([f"def {function_name}(x):",
                          f'    """Predict one row: x[i] is column i ({_python_doc(described)}); None or NaN '
                          'is missing."""', *body]) + "\n"
    if language == "sql":
        return "\n".join(_Sql(names, text).walk(tree, qs, outputs, depth=0)) + "\n"
    writer = _C(names, text, classes)
    kind = "int" if classes is not None else "double"
    returns = ("the index of the class in the list above" if classes is not None
               else "the predicted value")
    head = [f"/* {function_name}: one row; x[i] holds numeric column i (NaN: missing), s[i] text column i",
            f"   (NULL: missing); columns {_c_comment(described)}."]
    if classes is not None:
        head.append(f"   classes: {_c_comment(', '.join(f'{i}: {c!r}' for i, c in enumerate(writer.classes)))}.")
    head.append(f"   Returns {returns}. */")
    return "\n".join(["#include <math.h>", "#include <stddef.h>", "#include <string.h>", "", *head,
                      f"{kind} {function_name}(const double *x, const char *const *s) {{",
                      "    (void)x; (void)s;", *writer.walk(tree, qs, outputs), "}"]) + "\n"


def _python_doc(text: str) -> str:
    """Text safe inside a triple-quoted docstring."""
    return text.encode("unicode_escape").decode("ascii").replace('"', '\\"')


def _c_comment(text: str) -> str:
    """Text safe inside a C comment (ASCII, no comment end)."""
    return text.encode("ascii", "backslashreplace").decode("ascii").replace("*/", "* /")
