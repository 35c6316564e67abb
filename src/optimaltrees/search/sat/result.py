"""What a smallest-tree search returns, whichever answers it (SAT, MaxSAT or
the DP engine): the tree so far and how far it is proven."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from optimaltrees.search.sat.decode import PerfectTree

if TYPE_CHECKING:
    from optimaltrees.search.sat.encoding import TreeEncoding


class NoTreeWithinDepthError(ValueError):
    """No tree of depth <= the cap classifies every training example."""


@dataclass
class SATStats:
    sat_calls: int = 0                     # solver calls, including repair attempts
    rounds: int = 0                        # trees decoded and checked against all examples
    repaired: int = 0                      # rounds answered by a repair call
    examples_encoded: int = 0
    variables: int = 0
    clauses: int = 0
    depths_tried: list[int] = field(default_factory=list)
    solve_seconds: float = 0.0

    def absorb(self, enc: TreeEncoding) -> None:
        self.examples_encoded = len(enc.encoded)
        self.variables = enc.n_vars
        self.clauses = enc.n_clauses


@dataclass
class SATResult:
    """What the search knows: the best tree so far and how far it is proven."""
    tree: PerfectTree | None
    depth_lower_bound: int                 # every smaller depth is proven infeasible
    leaves: int | None = None              # leaves of the simplified tree
    leaves_lower_bound: int = 1
    depth_optimal: bool = False
    size_optimal: bool = False
    stats: SATStats = field(default_factory=SATStats)
    over_tests: bool = False               # node features index all Boolean tests, not kept columns


@dataclass(frozen=True)
class SATProgress:
    """Where the search is (reported at most every ``progress`` seconds when
    asked for, for a progress display; not a result)."""
    phase: str                     # "depth" (DT-depth) or "size" (DT-size at the minimum depth)
    depth: int                     # depth of the formula being solved
    leaves: int | None             # DT-size: the leaf bound being tried
    lower: int                     # proven: depth ("depth"), or nodes ("size")
    upper: int | None              # best known by the search: nodes ("size"), None ("depth")
    sat_calls: int
    rounds: int
    examples_encoded: int


def depth_range(n_columns: int, n_rows: int, n_present: int,
                max_depth: int | None) -> tuple[int, int]:
    """First and last depth worth trying: c classes need ceil(log2 c) levels,
    and a consistent tree never needs more levels than (kept) columns or
    distinct rows minus one (every split of distinct rows leaves both sides
    smaller)."""
    first = max(1, math.ceil(math.log2(n_present)))
    cap = min(n_columns, n_rows - 1)
    if max_depth is not None:
        cap = min(cap, max_depth)
    return first, cap


def min_leaves(n_present: int, depth: int) -> int:
    """Leaves of any consistent tree at least ``depth`` deep with
    ``n_present`` classes: one per class, and depth + 1 (a root-to-leaf path
    that long has a sibling subtree at every level)."""
    return max(int(n_present), int(depth) + 1)
