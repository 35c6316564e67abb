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


def _simplify(pt: PerfectTree, B: np.ndarray, counts_of, majority: bool = False) -> object:
    """Nested tuples: ("leaf", cls) or ("split", f, left, right), None if empty.
    Leaves take the model's class, or with ``majority`` their training majority."""
    N = 1 << pt.depth

    def build(q: int, rows: np.ndarray):
        if rows.size == 0:
            return None
        if q >= N:
            cls = int(pt.leaf_class[q - N])
            if cls < 0 or majority:                      # a leaf the model left unlabelled
                cls = int(np.argmax(counts_of(rows)))
            return ("leaf", cls)
        f = int(pt.node_feature[q])
        go_right = B[rows, f] == 1
        left = build(2 * q, rows[~go_right])
        right = build(2 * q + 1, rows[go_right])
        if left is None:
            return right
        if right is None:
            return left
        if left[0] == "leaf" and right[0] == "leaf" and left[1] == right[1]:
            return left
        return ("split", f, left, right)

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
            n_classes: int, n_tests: int, majority: bool = False) -> Tree:
    """The simplified tree over the original Boolean tests (threshold 0.5:
    left = test false), with class counts of the full training data."""
    Bk = B_full[:, columns] if columns.size else np.zeros((B_full.shape[0], 0), dtype=np.uint8)
    if pt.depth == 0:
        root = ("leaf", int(pt.leaf_class[0]))
    else:
        root = _simplify(pt, Bk, lambda rows: np.bincount(y_full[rows], minlength=n_classes),
                         majority)
        if root is None:
            root = ("leaf", int(pt.leaf_class[0]) if pt.leaf_class[0] >= 0 else 0)
    feature, left, right = [], [], []

    def emit(node) -> int:
        i = len(feature)
        feature.append(-1)
        left.append(-1)
        right.append(-1)
        if node[0] == "leaf":
            return i
        feature[i] = int(columns[node[1]])
        left[i] = emit(node[2])
        right[i] = emit(node[3])
        return i

    emit(root)
    n_nodes = len(feature)
    tree = Tree(feature=np.array(feature), threshold=np.where(np.array(feature) >= 0, 0.5, -2.0),
                children_left=np.array(left), children_right=np.array(right),
                value=np.zeros((n_nodes, n_classes)), n_features=n_tests)
    # a leaf predicts its training majority: on a consistent tree that is the
    # model's class (every leaf is pure); under MaxSAT it is the optimal label
    tree.value = tree.decision_path_counts(B_full.astype(np.float64), y_full, n_classes)
    return tree
