"""The engine's tuning choices, one set per engine.

Each choice is a rule whose threshold was measured on the benchmark suites
(``docs/engine.md`` explains the rules).  They live here, passed to each
engine when it is built (:func:`~optimaltrees.search.engine.build_engine`),
never in module state: two engines in two threads never share them.  Tests
and benchmarks change them for the fits inside a ``with
engine_options(...)`` block, which holds for the current thread (and
context) only.
"""
from __future__ import annotations

import dataclasses
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterator

PAIR_MODES = ("auto", "always", "never")
SELECT_MODES = ("auto", "pdep", "portable")


@dataclass(frozen=True)
class EngineOptions:
    """Tuning of one engine's sorted layout and search.

    Parameters
    ----------
    histogram_scans : float, default=100.0
        A depth-two node is solved from histograms when every feature has few
        ranks and the histograms cost less than this many depth-two scans
        (0: never, inf: always when possible).  ConTree's search makes tens to
        hundreds of scans per depth-two node, so histograms pay beyond about
        a hundred.
    histogram_min_rows : int, default=1000
        ... and only on nodes of at least this many rows: below it both
        solvers take milliseconds, and one solver for all small data keeps
        ties broken alike with and without weights.
    pairs : {"auto", "always", "never"}, default="auto"
        When a depth-three split's two depth-two children are solved together
        from one walk of the smaller: where the snapshots cost less than the
        walks they save, wherever the histograms may, or never.
    sweep_after : float, default=1.5
        A depth-two node sweeps a root feature whole once ConTree's search
        has taken this many of its intervals times log2 of the node's rows
        (-1: never, 0: at once): a sweep costs about log2(rows) scans, so it
        pays once the intervals have cost a small multiple of that.
    similarity_sets : int, default=256
        Solved sets per depth the similarity bound remembers (0: off); the
        sets a check catches were solved a depth-three split earlier.
    similarity_min_rows : int, default=64
        The least node size the similarity bound checks (smaller nodes are
        solved about as fast as they are checked).
    scan_switch_rate : float, default=0.2
        Above this share of side switches along a scan, the depth-two scan
        with three classes and more picks sides with masks, not branches
        (-1: always masks, 2: never).
    maps_after : int, default=2
        A depth-two node's side maps are built on its ``maps_after``-th
        depth-two call (0: never): a node searched no further pays no more
        than one scan.
    gather_entries : int, default=2**21
        From this many rows x features, a node's moves copy the rows'
        positions into the moved feature's order first (0: always, -1:
        never): beyond the caches, reading them in random order costs more.
    select : {"auto", "pdep", "portable"}, default="auto"
        How the two-class scan finds a word's r-th set bit: PDEP where the
        CPU has a fast one, PDEP wherever it has one at all, or popcounts.
    root_seeds : bool, default=True
        The root's children start from their nested neighbours' threshold
        bounds.
    pair_tables : float, default=1.0
        A depth-two node of an additive objective (squared error, a cost
        matrix) is solved from pairwise tables when they cost at most this
        many times the depth-one scans of ConTree's search, counted without
        pruning (0: never, inf: wherever the tables fit).
    side_floors : bool, default=True
        Nodes of depth two and three solve themselves one level shallower
        first and bound every split by it less the weight of the split's
        lighter side (``_side_floor.pxd``), so that splits of a few rows
        (a rare category, an identifier's values) cost one solve per node,
        not a search each.  Only where some feature has one value on at
        least half the rows (:func:`~optimaltrees.search.engine.lopsided`):
        elsewhere no split is light enough to pay for the solve.
    cost_floors : bool, default=True
        Under a node cost, a node of depth d >= 2 whose bound d node costs
        already reach is solved one level shallower instead: a tree of at
        most d - 1 branch nodes has depth at most d - 1, and any other
        costs too much.  A depth-four search thus settles many depth-three
        nodes by one depth-two solve each.
    """

    histogram_scans: float = 100.0
    histogram_min_rows: int = 1000
    pairs: str = "auto"
    sweep_after: float = 1.5
    similarity_sets: int = 256
    similarity_min_rows: int = 64
    scan_switch_rate: float = 0.2
    maps_after: int = 2
    gather_entries: int = 1 << 21
    select: str = "auto"
    root_seeds: bool = True
    pair_tables: float = 1.0
    side_floors: bool = True
    cost_floors: bool = True

    def __post_init__(self) -> None:
        if self.pairs not in PAIR_MODES:
            raise ValueError(f"pairs must be one of {PAIR_MODES}, not {self.pairs!r}")
        if self.select not in SELECT_MODES:
            raise ValueError(f"select must be one of {SELECT_MODES}, not {self.select!r}")


_CURRENT: ContextVar[EngineOptions] = ContextVar("optimaltrees_engine_options", default=EngineOptions())


def current_options() -> EngineOptions:
    """The options engines built now (in this thread and context) get."""
    return _CURRENT.get()


@contextmanager
def engine_options(**changes) -> Iterator[EngineOptions]:
    """Build the engines of the block with these options changed (for tests
    and benchmarks, which compare two ways of solving the same data).

    Parameters
    ----------
    **changes
        :class:`EngineOptions` fields and their values.

    Yields
    ------
    EngineOptions
        The options in force inside the block.
    """
    options = dataclasses.replace(_CURRENT.get(), **changes)
    token = _CURRENT.set(options)
    try:
        yield options
    finally:
        _CURRENT.reset(token)
