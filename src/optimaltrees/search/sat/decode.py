"""From a solver's perfect tree (heap arrays) to the library's :class:`Tree`.

A SAT model describes a *perfect* tree of depth k whose unused parts are
arbitrary.  The fitted tree drops every branch no training example reaches
(its parent becomes the other child: the paper's ``simplifyTree``) and merges
sibling leaves that predict the same class, so the size read off the result is
the paper's node count 2*leaves - 1 and prediction never lands on a leaf no
training example supports.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optimaltrees.model.tree import Tree


@dataclass
class PerfectTree:
    """Heap-ordered perfect tree: ``node_feature[q]`` for q in 1..2^k-1 (an
    index into the kept columns), ``leaf_class[v]`` for leaf v (-1: none)."""
    depth: int
    node_feature: np.ndarray
    leaf_class: np.ndarray


def _simplify(pt: PerfectTree, B: np.ndarray, counts_of, majority: bool = False,
              columns: np.ndarray | None = None) -> object:
    """Nested tuples: ("leaf", cls, rows) or ("split", f, left, right, rows),
    None if empty; ``rows`` are the rows of B reaching the node.  Leaves take
    the model's class, or with ``majority`` their training majority.
    ``columns``: node features index these columns of B (no column copy of B)."""
    N = 1 << pt.depth

    def build(q: int, rows: np.ndarray):
        if rows.size == 0:
            return None
        if q >= N:
            cls = int(pt.leaf_class[q - N])
            if cls < 0 or majority:                      # a leaf the model left unlabelled
                cls = int(np.argmax(counts_of(rows)))
            return ("leaf", cls, rows)
        f = int(pt.node_feature[q])
        go_right = B[rows, f if columns is None else int(columns[f])] == 1
        left = build(2 * q, rows[~go_right])
        right = build(2 * q + 1, rows[go_right])
        if left is None:
            return right
        if right is None:
            return left
        if left[0] == "leaf" and right[0] == "leaf" and left[1] == right[1]:
            return ("leaf", left[1], rows)
        return ("split", f, left, right, rows)

    return build(1, np.arange(B.shape[0]))


def leaf_count(pt: PerfectTree, B: np.ndarray, y: np.ndarray, n_classes: int) -> int:
    """Leaves of the simplified tree (the size the paper counts as 2L-1 nodes)."""
    if pt.depth == 0:
        return 1
    root = _simplify(pt, B, lambda rows: np.bincount(y[rows], minlength=n_classes))

    def leaves(node) -> int:
        return 1 if node is None or node[0] == "leaf" else leaves(node[2]) + leaves(node[3])

    return leaves(root)


def to_tree(pt: PerfectTree, columns: np.ndarray, B_full: np.ndarray, y_full: np.ndarray,
            n_classes: int, n_tests: int, majority: bool = False, weight: np.ndarray | None = None) -> Tree:
    """The simplified tree over the original Boolean tests (threshold 0.5:
    left = test false), with class counts of the full training data (class
    weights with ``weight``).  Reads only the tested columns of ``B_full``
    (it may be rows x 30,000 tests)."""
    counts_of = _counter(y_full, n_classes, weight)

    everyone = np.arange(B_full.shape[0])
    if pt.depth == 0:
        root = ("leaf", int(pt.leaf_class[0]), everyone)
    else:
        root = _simplify(pt, B_full, counts_of, majority, columns=columns)
        if root is None:
            root = ("leaf", int(pt.leaf_class[0]) if pt.leaf_class[0] >= 0 else 0, everyone)
    return _emit(root, columns, counts_of, n_classes, n_tests, weight is not None)


def _counter(y_full: np.ndarray, n_classes: int, weight: np.ndarray | None):
    """Class counts (or weights) of a set of rows."""
    def counts_of(rows):
        return np.bincount(y_full[rows], minlength=n_classes, weights=None if weight is None else weight[rows])
    return counts_of


def nested_to_tree(node: tuple, columns: np.ndarray, B_full: np.ndarray, y_full: np.ndarray,
                   n_classes: int, n_tests: int, weight: np.ndarray | None = None) -> Tree:
    """A nested tree over kept columns (``("leaf", cls)`` / ``("split", j,
    left, right)``, e.g. the greedy fallback's) as a :class:`Tree` over the
    original tests; each leaf predicts its training majority."""
    counts_of = _counter(y_full, n_classes, weight)

    def route(item, rows):
        if item[0] == "leaf" or rows.size == 0:
            return ("leaf", int(item[1]) if item[0] == "leaf" else 0, rows)
        right = B_full[rows, int(columns[item[1]])] == 1
        left_node, right_node = route(item[2], rows[~right]), route(item[3], rows[right])
        if not right.any():
            return left_node
        if right.all():
            return right_node
        if (left_node[0] == "leaf" and right_node[0] == "leaf"
                and np.argmax(counts_of(left_node[2])) == np.argmax(counts_of(right_node[2]))):
            return ("leaf", left_node[1], rows)         # siblings predicting the same class
        return ("split", item[1], left_node, right_node, rows)

    return _emit(route(node, np.arange(B_full.shape[0])), columns, counts_of, n_classes, n_tests,
                 weight is not None)


def _emit(root, columns: np.ndarray, counts_of, n_classes: int, n_tests: int, weighted: bool = False) -> Tree:
    """Nested ("leaf", cls, rows) / ("split", j, left, right, rows) as a Tree."""
    feature, left, right, value = [], [], [], []

    def emit(node) -> int:
        i = len(feature)
        feature.append(-1)
        left.append(-1)
        right.append(-1)
        # a leaf predicts its training majority: on a consistent tree that is the
        # model's class (every leaf is pure); under MaxSAT it is the optimal label
        value.append(counts_of(node[-1]))
        if node[0] == "leaf":
            return i
        feature[i] = int(columns[node[1]])
        left[i] = emit(node[2])
        right[i] = emit(node[3])
        return i

    emit(root)
    feature_arr = np.array(feature)
    return Tree(feature=feature_arr, threshold=np.where(feature_arr >= 0, 0.5, -2.0),
                children_left=np.array(left), children_right=np.array(right),
                value=np.array(value, dtype=np.float64).reshape(len(feature), n_classes),
                n_features=n_tests, weighted=weighted)
