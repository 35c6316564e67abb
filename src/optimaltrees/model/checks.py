"""Structural checks of a tree's or a diagram's flat arrays.

Prediction and export walk the child / arc arrays without bounds checks: an
index out of range crashes them, a cycle makes them loop (or recurse) for
ever.  Arrays that come from outside the search (a model file, a dict) go
through these checks first; each failure is a ValueError saying what is wrong.
All checks are O(size) and iterative.
"""
from __future__ import annotations

import numbers

import numpy as np


def _vector(name: str, a, kind: str, length: int | None = None) -> np.ndarray:
    """``a`` as a 1-D numpy array of the given kind ("i" integer, "f" real)."""
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
    kinds = "iu" if kind == "i" else "iuf"
    if a.dtype.kind not in kinds and not (a.size == 0 and a.dtype.kind in "iuf"):
        raise ValueError(f"{name} must hold {'integers' if kind == 'i' else 'numbers'}, got dtype {a.dtype}")
    if length is not None and len(a) != length:
        raise ValueError(f"{name} has {len(a)} entries, expected {length}")
    return a


def _count(name: str, value, low: int = 0) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


# The largest dense probability array (rows x classes doubles) a predict_proba
# builds: beyond it the caller must predict in batches.  A cap, not "whatever
# fits": an allocation near the machine's memory may succeed and then be killed.
MAX_PROBABILITY_BYTES = 2 ** 32


def dense_probabilities(n_rows: int, n_classes: int) -> np.ndarray:
    """An uninitialised (n_rows, n_classes) float64 array for class
    probabilities, or a ValueError when it would take more than
    :data:`MAX_PROBABILITY_BYTES`."""
    need = float(n_rows) * float(n_classes) * 8.0
    if need > MAX_PROBABILITY_BYTES:
        raise ValueError(f"predict_proba on {n_rows} rows x {n_classes} classes needs {need / 2**30:.3g} GiB "
                         f"of probabilities, above the {MAX_PROBABILITY_BYTES / 2**30:.3g} GiB this library "
                         "allocates at once: predict in batches of fewer rows, or use predict")
    return np.empty((int(n_rows), int(n_classes)), dtype=np.float64)


def node_depths(feature, children_left, children_right, max_depth: int | None = None) -> np.ndarray:
    """Depth of every node (root 0, -1 when unreachable), level by level from
    the root.  Stops with a ValueError when a node is reached twice (a cycle or
    a shared child) or a level deeper than ``max_depth`` is reached, so it ends
    on any input.  Does not assume that parents precede their children."""
    n = len(feature)
    depth = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return depth
    frontier = np.zeros(1, dtype=np.int64)
    level = 0
    while frontier.size:
        if max_depth is not None and level > max_depth:
            raise ValueError(f"the tree is deeper than {max_depth}")
        if np.any(depth[frontier] >= 0) or len(np.unique(frontier)) != frontier.size:
            raise ValueError("the tree's child arrays contain a cycle or a node with two parents")
        depth[frontier] = level
        branches = frontier[feature[frontier] >= 0]
        frontier = np.concatenate([children_left[branches], children_right[branches]])
        if np.any((frontier < 0) | (frontier >= n)):
            raise ValueError("a branch node's child index is out of range")
        level += 1
    return depth


def check_tree_arrays(feature, threshold, children_left, children_right, value, n_features,
                      n_classes: int | None = None, max_depth: int | None = None) -> None:
    """Refuse arrays that are not one binary tree rooted at node 0.

    Every node except the root has exactly one parent and is reachable from
    the root (so there is no cycle); ``feature`` is -1 (leaf) or a column in
    [0, n_features); a branch's children are in [1, node_count), a leaf's are
    -1; thresholds are not NaN (an infinite one is a test that always goes one
    way); ``value`` is (node_count, n_classes) of finite non-negative counts.  ``max_depth``: refuse deeper trees too.
    """
    n_features = _count("n_features", n_features)
    feature = _vector("feature", feature, "i")
    n = len(feature)
    if n == 0:
        raise ValueError("the tree has no nodes (a tree has at least its root)")
    threshold = _vector("threshold", threshold, "f", n)
    left = _vector("children_left", children_left, "i", n)
    right = _vector("children_right", children_right, "i", n)
    value = np.asarray(value)
    if value.ndim != 2 or value.shape[0] != n or value.dtype.kind not in "iuf":
        raise ValueError(f"value must be a ({n}, n_classes) array of counts, "
                         f"got shape {value.shape} and dtype {value.dtype}")
    if value.shape[1] < 1 or (n_classes is not None and value.shape[1] != n_classes):
        raise ValueError(f"value has {value.shape[1]} class columns, expected "
                         f"{'at least 1' if n_classes is None else n_classes}")
    if not np.all(np.isfinite(value)) or np.any(value < 0):
        raise ValueError("value must hold finite, non-negative class counts")
    if np.any(np.isnan(threshold)):
        raise ValueError("threshold must not be NaN")
    if np.any((feature < -1) | (feature >= n_features)):
        bad = int(feature[(feature < -1) | (feature >= n_features)][0])
        raise ValueError(f"feature index {bad} is out of range for {n_features} features (-1 marks a leaf)")
    branch = feature >= 0
    children = np.concatenate([left[branch], right[branch]])
    if np.any((children < 1) | (children >= n)):
        raise ValueError(f"a branch node's child index is out of range [1, {n})")
    if np.any(left[~branch] != -1) or np.any(right[~branch] != -1):
        raise ValueError("a leaf's children must be -1")
    parents = np.bincount(children, minlength=n)
    if np.any(parents[1:] != 1):
        node = int(np.flatnonzero(parents[1:] != 1)[0]) + 1
        raise ValueError(f"node {node} has {int(parents[node])} parents; every node but the root needs exactly one")
    # one parent each and the root has none: every node is reached from the root
    # exactly once unless some nodes form a cycle apart from it
    depth = node_depths(feature, left, right, max_depth)
    if np.any(depth < 0):
        raise ValueError(f"node {int(np.flatnonzero(depth < 0)[0])} is not reachable from the root "
                         "(the child arrays contain a cycle)")


def check_diagram_arrays(coef, threshold, negative, positive, layer, n_classes, offset, scale,
                         epsilon) -> None:
    """Refuse arrays that are not a layered decision diagram (a DAG).

    Nodes are ordered by layer, the root (node 0) alone in layer 0; an arc
    leads to an internal node of a strictly later layer or to a terminal
    ``n_nodes + class``, so every walk ends within ``n_nodes`` steps.  Numbers
    are finite (thresholds may be infinite, not NaN); ``coef`` is (n_nodes, n_features) with ``n_features``
    = len(offset) = len(scale).
    """
    n_classes = _count("n_classes", n_classes, low=1)
    threshold = _vector("threshold", threshold, "f")
    m = len(threshold)
    offset = _vector("offset", offset, "f")
    p = len(offset)
    scale = _vector("scale", scale, "f", p)
    coef = np.asarray(coef)
    if coef.shape != (m, p) or coef.dtype.kind not in "iuf":
        raise ValueError(f"coef must be a ({m}, {p}) array of numbers (nodes, features), "
                         f"got shape {coef.shape} and dtype {coef.dtype}")
    negative = _vector("negative", negative, "i", m)
    positive = _vector("positive", positive, "i", m)
    layer = _vector("layer", layer, "i", m)
    for name, a in (("coef", coef), ("offset", offset), ("scale", scale)):
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name} must be finite")
    if np.any(np.isnan(threshold)):     # +inf is legitimate: a test above the largest value
        raise ValueError("threshold must not be NaN")
    if isinstance(epsilon, (bool, np.bool_)) or not isinstance(epsilon, numbers.Real) \
            or not np.isfinite(epsilon) or epsilon < 0:
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    if m == 0:
        return
    if layer[0] != 0 or np.any(layer[1:] < 1) or np.any(np.diff(layer) < 0):
        raise ValueError("layer must start with the root alone in layer 0 and never decrease")
    for name, heads in (("negative", negative), ("positive", positive)):
        if np.any((heads < 0) | (heads >= m + n_classes)):
            raise ValueError(f"{name} arc target out of range [0, {m + n_classes}) "
                             f"({m} nodes + {n_classes} class terminals)")
        internal = heads < m
        tails = np.flatnonzero(internal)
        if np.any(layer[heads[internal]] <= layer[tails]):
            u = int(tails[layer[heads[internal]] <= layer[tails]][0])
            raise ValueError(f"{name} arc of node {u} leads to node {int(heads[u])} in layer "
                             f"{int(layer[heads[u]])}, not a later layer than {int(layer[u])} "
                             "(a diagram's arcs only go down)")
