"""The examples a SAT encoding sees: distinct 0/1 rows, reduced columns.

Duplicate rows would only repeat clauses, and columns that are constant,
identical or complementary to another column give no new tree (a test and
its complement split the same way), so the encodings work on the reduced
problem and report features by their original column index.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class ConflictingExamplesError(ValueError):
    """Identical feature vectors with different classes: no tree fits them all."""

    def __init__(self, pairs: list[tuple[int, int]], n_conflicts: int) -> None:
        shown = ", ".join(f"rows {a} and {b}" for a, b in pairs)
        more = f" (and {n_conflicts - len(pairs)} more)" if n_conflicts > len(pairs) else ""
        super().__init__(
            "no tree classifies every training example correctly: identical feature vectors have "
            f"different classes: {shown}{more}. Remove or relabel them, or use "
            "objective='errors' with a max_depth for the tree with the fewest misclassifications.")
        self.pairs = pairs
        self.n_conflicts = n_conflicts


@dataclass
class Problem:
    """Distinct rows ``B`` (u, m) over kept columns, in lexicographic order
(whatever the order of the training rows), grouped by class.

    ``groups_row[g]``, ``groups_class[g]``, ``groups_weight[g]``: row g's
    class and how many training examples share that row and class (int64),
    or their summed sample weight (float64, ``weighted``).
    ``columns[j]`` is the original index of kept column j."""
    B: np.ndarray
    columns: np.ndarray
    groups_row: np.ndarray
    groups_class: np.ndarray
    groups_weight: np.ndarray
    n_classes: int
    first_example: np.ndarray          # an original row index of every distinct row
    #: kept columns grouped into nested chains (see :func:`nested_chains`), or
    #: None: every column on its own
    chains: list[np.ndarray] | None = None

    @property
    def n_rows(self) -> int:
        return int(self.B.shape[0])

    @property
    def weighted(self) -> bool:
        return self.groups_weight.dtype.kind == "f"

    def row_classes(self) -> np.ndarray:
        """The class of every distinct row (only for conflict-free problems)."""
        y = np.full(self.n_rows, -1, dtype=np.int64)
        y[self.groups_row] = self.groups_class
        return y


def unique_rows(A: np.ndarray, **kwargs):
    """``np.unique(A, axis=0, **kwargs)`` for a 0/1 matrix, fast: each row is
    packed to bits and compared as one opaque byte string.  (``axis=0`` sorts
    a structured dtype with one field per column: minutes on 3,000 x 30,000.)
    Packing keeps the lexicographic order, so the results are the same."""
    packed = np.ascontiguousarray(np.packbits(A, axis=1))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)
    return np.unique(keys, **kwargs)


def _pack_down(B: np.ndarray) -> np.ndarray:
    """``np.packbits(B, axis=0)`` by whole-row operations (numpy's packing
    down a C-ordered matrix walks it column by column: seconds on 90 MB)."""
    n, m = B.shape
    out = np.zeros(((n + 7) // 8, m), dtype=np.uint8)
    for k in range(8):
        rows = B[k::8]
        out[:rows.shape[0]] |= rows << np.uint8(7 - k)
    return out


def _no_check() -> None:
    return None


def column_block(B: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``B[:, columns]``, as a view when the columns are consecutive (a
    numeric column's thresholds nearly always are): the gather copies
    rows x columns bytes through a strided read (1 s on 10,000 x 26,000)."""
    columns = np.asarray(columns)
    if columns.size and columns[-1] - columns[0] == columns.size - 1 and (np.diff(columns) == 1).all():
        return B[:, int(columns[0]):int(columns[-1]) + 1]
    return B[:, columns]


def kept_columns(B: np.ndarray) -> np.ndarray:
    """Indices of the columns to keep: not constant, and the first of every
    set of identical or complementary columns."""
    if B.shape[1] == 0:
        return np.zeros(0, dtype=np.int64)
    varying = np.flatnonzero(B.min(axis=0) != B.max(axis=0))
    if varying.size == 0:
        return varying
    # columns packed to bits down the rows; a column whose first bit is 1 is
    # complemented (complement -> same column), padding bits kept at 0
    packed = np.take(_pack_down(B), varying, axis=1)
    flip = np.where(B[0, varying] == 1, 0xFF, 0).astype(np.uint8)
    np.bitwise_xor(packed, flip[None, :], out=packed)
    tail = B.shape[0] % 8
    if tail:
        packed[-1] &= np.uint8((0xFF << (8 - tail)) & 0xFF)
    keys = np.ascontiguousarray(packed.T)
    keys = keys.view(np.dtype((np.void, keys.shape[1]))).reshape(-1)
    _, first = np.unique(keys, return_index=True)
    return varying[np.sort(first)]


#: shorter groups stay single tests: a chain of d tests saves about d - 2
#: routing clauses per (example, node), and on monk1's chains of 2-3 tests the
#: solver needed a third more counterexamples than with single tests
MIN_CHAIN = 4


def nested_chains(B: np.ndarray, groups: list[np.ndarray], min_length: int = MIN_CHAIN,
                  checkpoint=_no_check) -> list[np.ndarray]:
    """``groups`` (column indices of B) as chains whose true-sets shrink
    (``B[:, c[0]] >= B[:, c[1]] >= ...`` on every row), every other column
    (and every group shorter than ``min_length``) alone.  A group is ordered
    by its columns' counts of ones and kept only if the rows confirm the
    nesting, so a wrong grouping costs speed, never a wrong formula.
    ``checkpoint()`` is called before every group (a time limit raises from it)."""
    m = B.shape[1]
    seen = np.zeros(m, dtype=bool)
    chains: list[np.ndarray] = []
    for group in groups:
        group = np.asarray(group, dtype=np.int64)
        group = group[~seen[group]]
        if group.size == 0:
            continue
        seen[group] = True
        if group.size < min_length:
            chains += [np.array([f]) for f in group]
            continue
        checkpoint()
        order = group[np.argsort(-column_block(B, group).sum(axis=0, dtype=np.int64), kind="stable")]
        cols = column_block(B, order)
        if not (cols[:, :-1] >= cols[:, 1:]).all():
            chains += [np.array([f]) for f in group]
        else:
            chains.append(order)
    chains += [np.array([f]) for f in np.flatnonzero(~seen)]
    return chains


def _refuse_conflicts(inverse: np.ndarray, y: np.ndarray, groups_row: np.ndarray) -> None:
    """:class:`ConflictingExamplesError` when a distinct row (``inverse``: each
    example's) is in more than one (row, class) group."""
    rows, n_per_row = np.unique(groups_row, return_counts=True)
    bad = rows[n_per_row > 1]
    if bad.size:
        pairs = []
        for r in bad[:5]:
            members = np.flatnonzero(inverse == r)
            a = members[0]
            b = members[np.flatnonzero(y[members] != y[a])[0]]
            pairs.append((int(a), int(b)))
        raise ConflictingExamplesError(pairs, int(bad.size))


def refuse_conflicts(B: np.ndarray, y: np.ndarray, n_classes: int) -> None:
    """Raise :class:`ConflictingExamplesError` when identical rows of the 0/1
    matrix ``B`` have different classes (what :func:`prepare` checks, alone:
    one pass over the rows)."""
    y = np.asarray(y, dtype=np.int64)
    if B.shape[1] == 0:
        inverse = np.zeros(B.shape[0], dtype=np.int64)
    else:
        _, inverse = unique_rows(np.ascontiguousarray(B, dtype=np.uint8), return_inverse=True)
    inverse = inverse.reshape(-1).astype(np.int64)
    _refuse_conflicts(inverse, y, np.unique(inverse * n_classes + y) // n_classes)


def prepare(B: np.ndarray, y: np.ndarray, n_classes: int, *, allow_conflicts: bool,
            weight: np.ndarray | None = None, chains: list[np.ndarray] | None = None,
            checkpoint=_no_check) -> Problem:
    """Reduce (B, y) to distinct rows and kept columns; raise
    :class:`ConflictingExamplesError` on conflicting rows unless allowed.
    With ``weight`` (each row's, > 0) a group weighs its rows' sum.
    ``chains``: groups of B's columns that may nest (a numeric column's
    thresholds), kept as :func:`nested_chains` over the kept columns.
    ``checkpoint()`` is called between the steps (each a few whole-matrix
    passes: under a second at the encoder's cap of 2^28 cells); a fit's time
    limit raises from it."""
    B = np.ascontiguousarray(B, dtype=np.uint8)
    y = np.asarray(y, dtype=np.int64)
    checkpoint()
    columns = kept_columns(B)
    checkpoint()
    R = B if columns.size == B.shape[1] else np.take(B, columns, axis=1)
    if R.shape[1] == 0:
        R = np.zeros((B.shape[0], 0), dtype=np.uint8)
        _, first, inverse = np.unique(np.zeros(B.shape[0]), return_index=True, return_inverse=True)
    else:
        _, first, inverse = unique_rows(R, return_index=True, return_inverse=True)
    checkpoint()
    inverse = inverse.reshape(-1)
    # (row, class) groups with their multiplicity
    key = inverse.astype(np.int64) * n_classes + y
    gkeys, gfirst, gcount = np.unique(key, return_index=True, return_counts=True)
    groups_row = gkeys // n_classes
    groups_class = gkeys % n_classes
    if not allow_conflicts:
        _refuse_conflicts(inverse, y, groups_row)
    # distinct rows in their canonical (lexicographic) order, not the data's:
    # the counterexample loop adds the first misclassified row, so a data
    # order would make the search, its time and its tree depend on how the
    # user's rows happen to be sorted (car: 31 s sorted, 65-160 s shuffled)
    R = np.ascontiguousarray(R[first])
    checkpoint()
    if chains is not None:
        position = np.full(B.shape[1], -1, dtype=np.int64)
        position[columns] = np.arange(columns.size)
        kept = [position[np.asarray(c, dtype=np.int64)] for c in chains]
        chains = nested_chains(R, [c[c >= 0] for c in kept], MIN_CHAIN, checkpoint)
    return Problem(B=R, columns=columns, chains=chains,
                   groups_row=groups_row, groups_class=groups_class,
                   groups_weight=gcount.astype(np.int64) if weight is None
                   else np.bincount(np.searchsorted(gkeys, key), weights=weight, minlength=len(gkeys)),
                   n_classes=n_classes,
                   first_example=first)
