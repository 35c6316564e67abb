"""Drive the compiled ConTree engine and turn its node pool into a :class:`Tree`."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from optimaltrees.data.encoding import EncodedFeatures, encode_features
from optimaltrees.model.tree import Tree
from optimaltrees.search._contree import Engine


@dataclass
class SearchResult:
    """What one search proved: a tree, its objective, and a lower bound on the optimum."""

    tree: Tree
    objective: float
    lower_bound: float
    timed_out: bool
    seconds: float
    stats: dict = field(default_factory=dict)


def search_tree(
    X: np.ndarray,
    y_index: np.ndarray,
    n_classes: int,
    max_depth: int,
    *,
    node_cost: float = 0.0,
    max_gap: float = 0.0,
    min_samples_leaf: int = 1,
    time_limit: float | None = None,
    memory_limit_mb: float | None = None,
) -> SearchResult:
    """Minimise errors + node_cost * branching nodes over trees of depth <= max_depth.

    ``X`` must be finite float64 (n, p) and ``y_index`` int labels in [0, n_classes).
    ``node_cost`` and ``max_gap`` are absolute (misclassification units).
    """
    start = time.perf_counter()
    enc = encode_features(X)
    y32 = np.ascontiguousarray(y_index, dtype=np.int32)
    engine = Engine(
        enc.order, enc.rank, y32, int(n_classes), int(max_depth),
        float(node_cost), float(max_gap), int(min_samples_leaf),
        -1.0 if memory_limit_mb is None else float(memory_limit_mb),
    )
    objective, lower_bound, root, timed_out = engine.solve(-1.0 if time_limit is None else float(time_limit))
    tree = _tree_from_pool(engine.tree_arrays(), int(root), enc, X, y32, n_classes)
    stats = {
        "subproblems": int(engine.n_subproblems),
        "d2_calls": int(engine.n_d2),
        "cache_hits": int(engine.n_cache_hits),
        "cache_entries": int(engine.cache_entries),
    }
    return SearchResult(tree, float(objective), float(lower_bound), bool(timed_out),
                        time.perf_counter() - start, stats)


def _tree_from_pool(pool: np.ndarray, root: int, enc: EncodedFeatures, X: np.ndarray,
                    y_index: np.ndarray, n_classes: int) -> Tree:
    """Copy the subtree at ``root`` out of the engine's shared node pool (preorder)."""
    feat_p, lo_p, hi_p, left_p, right_p = pool
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []

    def emit(node: int) -> int:
        idx = len(feature)
        feature.append(-1)
        threshold.append(0.0)
        left.append(-1)
        right.append(-1)
        f = int(feat_p[node])
        if f >= 0:
            feature[idx] = f
            threshold[idx] = enc.threshold(f, int(lo_p[node]), int(hi_p[node]))
            left[idx] = emit(int(left_p[node]))
            right[idx] = emit(int(right_p[node]))
        return idx

    emit(root)
    tree = Tree(feature, threshold, left, right, np.zeros((len(feature), n_classes)), enc.n_features)
    tree.value = tree.decision_path_counts(X, y_index, n_classes)
    return tree
