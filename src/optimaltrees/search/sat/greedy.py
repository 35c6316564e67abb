"""A quick greedy tree: the anytime answer while the SAT search proves nothing yet.

Top-down splitting over the distinct rows of a :class:`Problem` until every
node is pure or the depth cap is reached, on the test that leaves the fewest
pairs of examples of different classes together in its worse child (every
such pair must still be separated below, so this keeps trees shallow) or, the
second criterion, of least weighted child entropy (ID3; smaller, deeper
trees).  On consistent data without a cap
that reached, the tree classifies every training example correctly: an upper
bound on the minimum depth and size, found in a pass over the data per level.
It is neither minimal nor proven anything; the estimator returns it only when
the time limit or Ctrl-C stops the search before a better tree is known.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optimaltrees.search.sat.problem import Problem

#: cells of the 0/1 matrix converted to float per block (bounds the memory)
_BLOCK_CELLS = 1 << 22
#: split criteria: fewest different-class pairs left together in the worse
#: child (shallow trees), and ID3's entropy (smaller trees)
CRITERIA = ("pairs", "entropy")


@dataclass
class GreedyTree:
    """Nested tuples ``("leaf", cls)`` / ``("split", kept_column, left, right)``
    (left: test false); ``errors``: weighted training misclassifications."""
    root: tuple
    depth: int
    leaves: int
    errors: int | float


def _xlogx(a: np.ndarray) -> np.ndarray:
    out = np.zeros_like(a)
    pos = a > 0
    out[pos] = a[pos] * np.log(a[pos])
    return out


def _best_split(B: np.ndarray, rows: np.ndarray, W: np.ndarray, criterion: str,
                checkpoint=None) -> int:
    """Kept column of least weighted child entropy that splits ``rows``; -1 if none.
    ``W``: (rows, classes) weights of ``rows``."""
    unit = bool(np.all((W == 0) | (W == 1)))
    if not unit:
        # the heaviest row as 1 (the criteria are scale-free): squares of
        # large weights (1e200) would overflow, and rows keep count-like sizes
        W = W / float(W.max())
    total = W.sum(axis=0)                                   # (classes,)
    n = float(total.sum())
    present = np.flatnonzero(total > 0)
    m = B.shape[1]
    best_j, best_h = -1, np.inf
    step = max(1, _BLOCK_CELLS // max(1, rows.size))
    for lo in range(0, m, step):
        if checkpoint is not None:
            checkpoint()
        block = B[rows, lo:lo + step]                       # (rows, step) uint8
        ones = np.empty((present.size, block.shape[1]))     # weight of "test true" per class
        for i, c in enumerate(present):
            member = W[:, c] > 0
            if unit:
                ones[i] = block[member].sum(axis=0, dtype=np.int64)
            else:
                ones[i] = W[member, c] @ block[member]
        zeros = total[present, None] - ones
        s1 = ones.sum(axis=0)
        s0 = n - s1
        if criterion == "entropy":
            # weighted child entropy up to a constant: sum_side (s log s - sum_c n_c log n_c)
            h = _xlogx(s1) + _xlogx(s0) - _xlogx(ones).sum(axis=0) - _xlogx(zeros).sum(axis=0)
        else:
            # pairs of examples of different classes left together, in the worse child
            p1 = s1 * s1 - (ones * ones).sum(axis=0)
            p0 = s0 * s0 - (zeros * zeros).sum(axis=0)
            h = np.maximum(p1, p0) + 1e-6 * (p1 + p0)
        h[(s1 <= 0) | (s0 <= 0)] = np.inf
        j = int(np.argmin(h))
        if h[j] < best_h - 1e-9:
            best_j, best_h = lo + j, float(h[j])
    return best_j


def greedy_tree(problem: Problem, max_depth: int, checkpoint=None,
                criterion: str = "pairs") -> GreedyTree:
    """The greedy tree of depth <= ``max_depth`` on ``problem``'s distinct rows,
    weighting every (row, class) group by its multiplicity, splitting by
    ``criterion`` (one of :data:`CRITERIA`).  ``checkpoint()``
    is called before each split (it may raise to stop)."""
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
    B = problem.B
    W = np.zeros((problem.n_rows, problem.n_classes), dtype=np.float64)
    np.add.at(W, (problem.groups_row, problem.groups_class), problem.groups_weight)
    errors = 0.0
    depth_reached = 0
    n_leaves = 0
    # explicit stack (a greedy tree may be deep): (rows, depth, slot to fill)
    root: list = [None]
    stack = [(np.arange(problem.n_rows), 0, root, 0)]
    while stack:
        rows, depth, parent, slot = stack.pop()
        if checkpoint is not None:
            checkpoint()
        counts = W[rows].sum(axis=0)
        cls = int(np.argmax(counts))
        pure = np.count_nonzero(counts) <= 1
        j = -1 if pure or depth >= max_depth else _best_split(B, rows, W[rows], criterion, checkpoint)
        if j < 0:
            parent[slot] = ("leaf", cls)
            errors += counts.sum() - counts[cls]
            depth_reached = max(depth_reached, depth)
            n_leaves += 1
            continue
        node = ["split", j, None, None]
        parent[slot] = node
        right = B[rows, j] == 1
        stack.append((rows[right], depth + 1, node, 3))
        stack.append((rows[~right], depth + 1, node, 2))
    # row counts: an integer; sample weights: their misclassified sum
    errors = float(errors) if problem.weighted else int(round(errors))
    return GreedyTree(_freeze(root[0]), depth_reached, n_leaves, errors)


def _freeze(node):
    """Lists to tuples, bottom-up without recursion."""
    out = {}
    stack = [(node, False)]
    while stack:
        item, done = stack.pop()
        if item[0] == "leaf":
            out[id(item)] = tuple(item)
        elif done:
            out[id(item)] = ("split", item[1], out[id(item[2])], out[id(item[3])])
        else:
            stack.append((item, True))
            stack.append((item[2], False))
            stack.append((item[3], False))
    return out[id(node)]
