"""Anytime search strategies as restarts of the one DP/branch-and-bound engine.

Every strategy is a *rule* that restricts which candidate splits a node may
try, plus a *schedule* that relaxes the rule between restarts (CA-DL8.5).  A
restart looks only for trees better than the incumbent, and the engine's cache
carries over: a subproblem that a restart explored completely is exact forever,
one that the rule cut keeps only a valid lower bound and its best tree, so the
next restart re-opens it.  Once the rule can cut nothing the restart is the
exhaustive search and proves the optimum; every strategy is therefore complete.

Blossom (bud-first search) is the rule "greedy above height h, exhaustive
below" relaxed one level per restart: its first tree is the greedy tree (Gini
splits, the deepest split by error), and it then optimises whole levels of the
current tree from the bottom up, as Blossom's decision stack does.  Within the
engine, pruning by proven-optimal siblings is the upper bound a node passes to
its second child.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import count
from typing import Callable, Iterator

from optimaltrees.search._contree import RULES

STRATEGIES = tuple(RULES)                 # "exhaustive", "blossom", "purity", ...
SCHEDULES = ("monotonic", "exponential", "luby")
PURITY_STEP = 0.002                       # CA-DL8.5's purity threshold step
GAIN_STEP_FALLBACK = 1e-3                 # when the greedy pass cut no gain gap


def luby(i: int) -> int:
    """The i-th term (1-based) of the Luby sequence 1, 1, 2, 1, 1, 2, 4, ..."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while True:
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1


def schedule_values(schedule: str) -> Iterator[int]:
    """Relaxation levels per restart, starting at 0 (the greedy restart).

    monotonic: 0, 1, 2, 3, ...; exponential: 0, 1, 2, 4, 8, ...;
    luby: 0 then the running sums of the Luby sequence, 1, 2, 4, 5, 6, 8, ...
    """
    if schedule == "monotonic":
        yield from count(0)
    elif schedule == "exponential":
        yield 0
        value = 1
        while True:
            yield value
            value *= 2
    elif schedule == "luby":
        yield 0
        total = 0
        for i in count(1):
            total += luby(i)
            yield total
    else:
        raise ValueError(f"unknown schedule {schedule!r}; expected one of {SCHEDULES}")


@dataclass
class RestartLog:
    restarts: int = 0
    rule_cuts: int = 0


def run_restarts(engine, strategy: str, schedule: str, *, time_left: Callable[[], float],
                 known_lb: float, gap: float, on_restart: Callable[[int, float, float], None],
                 stopped: Callable[[], bool]) -> tuple[float, int, float, bool, RestartLog]:
    """Restart ``engine`` under the strategy's rule until the incumbent is proven
    optimal, time runs out or ``stopped()``.  Returns (objective, root, lower
    bound, timed_out, log).  ``on_restart(index, incumbent, lower_bound)`` is
    called after every restart."""
    state = {"best": (float("inf"), -1), "lower": known_lb}
    try:
        return _restart_loop(engine, strategy, schedule, time_left, known_lb, gap, on_restart,
                             stopped, state)
    except KeyboardInterrupt:
        # Ctrl-C between two restarts (inside one, the engine handles it):
        # keep the incumbent, as an interrupted search does
        engine.interrupted = True
        best_val, best_root = state["best"]
        return best_val, best_root, state["lower"], False, state.get("log", RestartLog())


def _restart_loop(engine, strategy, schedule, time_left, known_lb, gap, on_restart, stopped,
                  state):
    rule = RULES[strategy]
    best_val, best_root = float("inf"), -1
    lower = known_lb
    timed_out = False
    log = RestartLog()
    state["log"] = log
    step = 1.0
    levels = schedule_values(schedule)
    exhaustive = False
    for restart in count(0):
        level = next(levels)
        if exhaustive:
            engine.set_rule(RULES["exhaustive"], 0.0)
        elif strategy == "purity":
            # the greedy pass first (a tree at once), then the purity thresholds
            if restart == 0:
                engine.set_rule(RULES["top-k"], 0.0)
            else:
                engine.set_rule(rule, PURITY_STEP * level)
        elif strategy == "gain":
            engine.set_rule(rule, step * level)
        else:
            engine.set_rule(rule, float(level))
        remaining = time_left()
        if remaining <= 0:
            timed_out = True
            break
        val, lb, root, aborted = engine.solve(remaining, lower, best_val)
        log.restarts += 1
        cuts = int(engine.n_rule_cuts)
        log.rule_cuts += cuts
        if val < best_val:
            best_val, best_root = val, root
            state["best"] = (val, root)
        lower = max(lower, lb)
        state["lower"] = lower
        on_restart(restart, best_val, lower)
        if aborted:
            timed_out = not stopped()
            break
        if lower >= best_val - gap - 1e-9:
            break
        if cuts == 0 and not exhaustive:
            # nothing was cut: that restart was the exhaustive search (its bound
            # proves the incumbent); only a memory-capped cache can leave a gap
            exhaustive = True
        if strategy == "gain" and restart == 0:
            gap_seen = float(engine.min_cut_gap)
            step = gap_seen if 0 < gap_seen < float("inf") else GAIN_STEP_FALLBACK
        if strategy == "purity" and PURITY_STEP * level > 1.0:
            exhaustive = True
    return best_val, best_root, lower, timed_out, log
