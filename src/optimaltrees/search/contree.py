"""Drive the compiled ConTree engine and turn its node pool into a :class:`Tree`."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from optimaltrees.data.encoding import EncodedFeatures, encode_features
from optimaltrees.model.tree import Tree
from optimaltrees.search._contree import Engine, SharedRoot


@dataclass
class SearchResult:
    """What one search proved: a tree, its objective, and a lower bound on the optimum."""

    tree: Tree
    objective: float
    lower_bound: float
    timed_out: bool
    seconds: float
    stats: dict = field(default_factory=dict)
    interrupted: bool = False   # stopped by Ctrl-C: the best tree so far, not proven


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
    n_threads: int = 1,
) -> SearchResult:
    """Minimise errors + node_cost * branching nodes over trees of depth <= max_depth.

    ``X`` must be finite float64 (n, p) and ``y_index`` int labels in [0, n_classes).
    ``node_cost`` and ``max_gap`` are absolute (misclassification units).
    With ``n_threads > 1`` one engine per thread claims root features from a
    shared counter and prunes against the best tree of every thread; each
    engine keeps its own buffers and cache, so memory grows with the threads.
    """
    start = time.perf_counter()
    enc = encode_features(X)
    y32 = np.ascontiguousarray(y_index, dtype=np.int32)
    n_threads = max(1, min(int(n_threads), enc.n_features)) if max_depth >= 2 else 1
    per_engine_mb = -1.0 if memory_limit_mb is None else float(memory_limit_mb) / n_threads
    engines = [
        Engine(enc.order, enc.rank, y32, int(n_classes), int(max_depth), float(node_cost),
               float(max_gap), int(min_samples_leaf), per_engine_mb)
        for _ in range(n_threads)
    ]
    limit = -1.0 if time_limit is None else float(time_limit)
    known = conflict_lower_bound(X, y_index, n_classes)
    if n_threads == 1:
        outcomes = [engines[0].solve(limit, known)]
    else:
        outcomes = _solve_in_threads(engines, limit, known)
    # every root feature was searched by exactly one engine: the global lower
    # bound is the weakest of theirs, the answer the best of their trees
    best = min(range(n_threads), key=lambda k: outcomes[k][0])
    objective, _, root, _ = outcomes[best]
    lower_bound = min(o[1] for o in outcomes)
    interrupted = any(bool(e.interrupted) for e in engines)
    timed_out = any(o[3] for o in outcomes) and not interrupted
    tree = _tree_from_pool(engines[best].tree_arrays(), int(root), enc, X, y32, n_classes)
    stats = {
        "subproblems": sum(int(e.n_subproblems) for e in engines),
        "d2_calls": sum(int(e.n_d2) for e in engines),
        "cache_hits": sum(int(e.n_cache_hits) for e in engines),
        "similarity_prunes": sum(int(e.n_similarity_prunes) for e in engines),
        "cache_entries": sum(int(e.cache_entries) for e in engines),
        "threads": n_threads,
    }
    return SearchResult(tree, float(objective), float(lower_bound), bool(timed_out),
                        time.perf_counter() - start, stats, interrupted)


def conflict_lower_bound(X: np.ndarray, y_index: np.ndarray, n_classes: int) -> float:
    """Errors no tree can avoid: identical rows always share a leaf, so each
    group of duplicates contributes its size minus its largest label count."""
    _, group = np.unique(X, axis=0, return_inverse=True)
    group = group.reshape(-1)
    if group.max(initial=-1) + 1 == X.shape[0]:
        return 0.0
    counts = np.zeros((int(group.max()) + 1, n_classes), dtype=np.int64)
    np.add.at(counts, (group, y_index), 1)
    return float(np.sum(counts.sum(axis=1) - counts.max(axis=1)))


def _solve_in_threads(engines: list[Engine], time_limit: float, known_lb: float) -> list[tuple]:
    """Run the engines concurrently (``Engine.solve`` releases the GIL)."""
    shared = SharedRoot()
    for engine in engines:
        engine.share_root_with(shared)
    outcomes: list[tuple | None] = [None] * len(engines)
    errors: list[BaseException] = []
    done = [threading.Event() for _ in engines]

    def run(k: int) -> None:
        try:
            outcomes[k] = engines[k].solve(time_limit, known_lb)
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)
        finally:
            done[k].set()

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(len(engines))]
    for t in threads:
        t.start()
    # Poll with sleep rather than Thread.join: a KeyboardInterrupt inside join()
    # can leave the thread looking finished while it still runs.
    interrupted = False
    pause = 0.0005
    while not all(d.is_set() for d in done):
        try:
            time.sleep(pause)
            pause = min(2 * pause, 0.02)  # small fits return fast, long ones poll gently
        except KeyboardInterrupt:  # Ctrl-C: every engine returns its best tree
            interrupted = True
            shared.stop()
    for t in threads:
        t.join()
    if interrupted:
        engines[0].interrupted = True
    if errors:
        raise errors[0]
    return outcomes  # type: ignore[return-value]


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
