"""The compiled search engine, as layers in the way of ``sklearn/tree``:

- ``_common.pxd``: types, constants, inline helpers;
- ``_control``: run control (time limit, Ctrl-C, hook, threads sharing a root);
- ``_layout_base``: what every data layout holds (sizes, class counts);
- ``_sorted`` / ``_bitset``: the two data layouts of classification, and
  ``_additive`` the layout of objectives that add up over rows (squared
  error, a cost matrix; ``_layout.pxd`` fuses them; a layout carries its
  objective, whose helpers are in ``_objective.pxd``);
- ``_intervals.pxd``: ConTree's threshold-interval pruning;
- ``_rules``: the anytime strategies' rules;
- ``_core``: the DP / branch-and-bound search, written once over the layouts;
- ``options``: each engine's tuning (``EngineOptions``), passed when it is built.

:func:`build_engine` is the one place that picks a classification layout for a
data set; :func:`build_squared_engine` and :func:`build_cost_engine` build the
additive one.
"""
from __future__ import annotations

import math

import numpy as np

from optimaltrees.search.engine._cpu import cpu_has_popcnt, engine_needs_popcnt


def unsupported_cpu_message(needs_popcnt: bool, has_popcnt: bool) -> str | None:
    """Why this CPU cannot run the compiled engine, or None when it can.

    The modules below would stop the interpreter on an illegal instruction;
    a message that names the instruction and the portable build is better.
    """
    if needs_popcnt and not has_popcnt:
        return ("optimaltrees' compiled engine was built for CPUs with the POPCNT instruction (x86-64 since "
                "2009, NumPy's own baseline), which this CPU lacks; build it from source without it: "
                "OPTIMALTREES_PORTABLE=1 pip install --no-binary optimaltrees optimaltrees")
    return None


_unsupported = unsupported_cpu_message(engine_needs_popcnt(), cpu_has_popcnt())
if _unsupported is not None:
    raise ImportError(_unsupported)

from optimaltrees.search.engine._bitset import BitsetLayout  # noqa: E402  (after the CPU check)
from optimaltrees.search.engine._control import SharedRoot
from optimaltrees.search.engine._core import Engine, SolveOutcome
from optimaltrees.search.engine._rules import RULES
from optimaltrees.search.engine._sorted import SortedLayout
from optimaltrees.search.engine._additive import AdditiveLayout
from optimaltrees.search.engine.options import EngineOptions, current_options, engine_options

__all__ = ["AdditiveLayout", "BitsetLayout", "Engine", "EngineOptions", "RULES", "SharedRoot", "SolveOutcome",
           "SortedLayout", "build_cost_engine", "build_engine", "build_for", "build_squared_engine",
           "current_options", "engine_options", "lopsided"]


def lopsided(rank: np.ndarray) -> bool:
    """Whether some feature has one value on at least half the rows
    (``rank[f, i]``: row i's value rank on feature f): only such a feature
    has splits whose lighter side is light everywhere in the tree, which
    the side floors (``EngineOptions.side_floors``) bound."""
    n = rank.shape[1]
    return n > 0 and any(2 * int(np.bincount(row).max()) >= n for row in rank)


def _engine(layout, n_classes: int, max_depth: int, rank: np.ndarray, words: np.ndarray, options: EngineOptions,
            *, cost: float, gap: float, min_leaf: int, memory_limit_mb: float) -> Engine:
    """The engine over ``layout``, with the options its constructor takes."""
    n = rank.shape[1]
    return Engine(layout, n_classes, max_depth, cost, gap, min_leaf, memory_limit_mb,
                  np.ascontiguousarray(words[0, n:n + 64]), options.root_seeds,
                  options.side_floors and lopsided(rank), options.cost_floors)


def build_engine(order: np.ndarray, rank: np.ndarray, y: np.ndarray, n_classes: int, max_depth: int,
                 *, cost: float = 0.0, gap: float = 0.0, min_leaf: int = 1,
                 memory_limit_mb: float = math.inf, seed: int = 0,
                 weights: np.ndarray | None = None, options: EngineOptions | None = None) -> Engine:
    """An engine for one encoded data set: the bitset layout when every
    feature is binary (and the tree has depth >= 2, where counting pays)
    and rows are unweighted, the sorted-order layout otherwise.

    ``order[f, k]``: id of the k-th instance sorted by feature f (stable);
    ``rank[f, i]``: unique-value rank of instance i on feature f;
    ``y``: labels 0..n_classes-1.  ``memory_limit_mb``: ``math.inf`` for none.
    ``weights``: each row's weight (finite, > 0), None for one each.
    ``options``: the engine's tuning (None: :func:`current_options`).
    """
    options = current_options() if options is None else options
    order = np.ascontiguousarray(order, dtype=np.int32)
    rank = np.ascontiguousarray(rank, dtype=np.int32)
    y = np.ascontiguousarray(y, dtype=np.int32)
    n = order.shape[1]
    words = np.random.default_rng(seed).integers(0, 2**63 - 1, size=(2, n + 64), dtype=np.int64)
    if weights is not None:
        # popcounts cannot sum weights: weighted rows take the sorted layout
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        layout = SortedLayout(order, rank, y, n_classes, max_depth, cost, min_leaf, words, weights, options)
    elif max_depth >= 2 and bool(np.all(rank <= 1)):
        layout = BitsetLayout(rank, y, n_classes, max_depth, cost, min_leaf, words)
    else:
        layout = SortedLayout(order, rank, y, n_classes, max_depth, cost, min_leaf, words, None, options)
    return _engine(layout, n_classes, max_depth, rank, words, options, cost=cost, gap=gap, min_leaf=min_leaf,
                   memory_limit_mb=memory_limit_mb)


def build_squared_engine(order: np.ndarray, rank: np.ndarray, y: np.ndarray, max_depth: int,
                         *, cost: float = 0.0, gap: float = 0.0, min_leaf: int = 1,
                         memory_limit_mb: float = math.inf, seed: int = 0,
                         weights: np.ndarray | None = None, options: EngineOptions | None = None) -> Engine:
    """An engine over squared error (:class:`AdditiveLayout`): ``y`` the
    targets, centred and scaled by the caller; the rest as :func:`build_engine`."""
    options = current_options() if options is None else options
    order = np.ascontiguousarray(order, dtype=np.int32)
    rank = np.ascontiguousarray(rank, dtype=np.int32)
    n = order.shape[1]
    words = np.random.default_rng(seed).integers(0, 2**63 - 1, size=(2, n + 64), dtype=np.int64)
    layout = AdditiveLayout(order, rank, max_depth, cost, min_leaf, words,
                            None if weights is None else np.ascontiguousarray(weights, dtype=np.float64),
                            targets=np.ascontiguousarray(y, dtype=np.float64), pair_tables=options.pair_tables)
    return _engine(layout, 3, max_depth, rank, words, options, cost=cost, gap=gap, min_leaf=min_leaf,
                   memory_limit_mb=memory_limit_mb)


def build_for(order: np.ndarray, rank: np.ndarray, fields: dict, max_depth: int, **options) -> Engine:
    """The engine an objective's ``fields`` ask for (``objectives.*.engine_fields``):
    ``targets`` for squared error, else ``y`` and ``n_classes`` for classes;
    ``options`` as :func:`build_engine`'s keywords."""
    if "targets" in fields:
        return build_squared_engine(order, rank, fields["targets"], max_depth, **options)
    if "cost_matrix" in fields:
        return build_cost_engine(order, rank, fields["y"], fields["cost_matrix"], max_depth, **options)
    return build_engine(order, rank, fields["y"], fields["n_classes"], max_depth, **options)


def build_cost_engine(order: np.ndarray, rank: np.ndarray, y: np.ndarray, cost_matrix: np.ndarray,
                      max_depth: int, *, cost: float = 0.0, gap: float = 0.0, min_leaf: int = 1,
                      memory_limit_mb: float = math.inf, seed: int = 0, weights: np.ndarray | None = None,
                      options: EngineOptions | None = None) -> Engine:
    """An engine over a cost matrix (:class:`AdditiveLayout`): ``y`` labels
    0..K-1, ``cost_matrix[true, predicted]`` (K x K, finite, >= 0); the rest
    as :func:`build_engine`."""
    options = current_options() if options is None else options
    order = np.ascontiguousarray(order, dtype=np.int32)
    rank = np.ascontiguousarray(rank, dtype=np.int32)
    n = order.shape[1]
    words = np.random.default_rng(seed).integers(0, 2**63 - 1, size=(2, n + 64), dtype=np.int64)
    matrix = np.ascontiguousarray(cost_matrix, dtype=np.float64)
    layout = AdditiveLayout(order, rank, max_depth, cost, min_leaf, words,
                            None if weights is None else np.ascontiguousarray(weights, dtype=np.float64),
                            labels=np.ascontiguousarray(y, dtype=np.int32), cost_matrix=matrix,
                            pair_tables=options.pair_tables)
    return _engine(layout, matrix.shape[0], max_depth, rank, words, options, cost=cost, gap=gap,
                   min_leaf=min_leaf, memory_limit_mb=memory_limit_mb)
