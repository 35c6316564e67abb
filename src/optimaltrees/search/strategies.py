"""Anytime search strategies as restarts of the one DP/branch-and-bound engine.

Every strategy is a *rule* that restricts which candidate splits a node may
try, plus a *schedule* that relaxes the rule between restarts (CA-DL8.5).  A
restart looks only for trees better than the incumbent, and the engine's cache
carries over: a subproblem that a restart explored completely is exact forever,
one that the rule cut keeps only a valid lower bound and its best tree, so the
next restart re-opens it.  Once the rule can cut nothing the restart is the
exhaustive search and proves the optimum; every strategy is therefore complete.

Complete is not enough when the rule stops cutting late.  The candidate rules
(gain, discrepancy, top-k, top-k*) try a node's candidates one by one, and a
numeric column has a candidate per threshold: a restart that admits k of them
solves about k subproblems per node where ConTree's interval search solves
tens, and the rule cuts until k reaches every threshold.  On wilt at depth 3
(proven exhaustively in 0.02 s) they had no bound after 60 s.  So on numeric
data these strategies interleave *proof slices*: exhaustive solves with a
time limit that doubles from slice to slice, run between restarts whenever
they have had less than ``proof_share`` of the rule restarts' time, and a
restart may run at most twice the last slice's share (stopped there, it runs
again after the slice with the next cap), so no restart starves the slices.
The proof then costs a constant factor of the exhaustive search's; a slice
that stops still raises the lower bound, and the cache keeps what each slice
proved.

Blossom (bud-first search) is the rule "greedy above height h, exhaustive
below" relaxed one level per restart: its first tree is the greedy tree (Gini
splits, the deepest split by error), and it then optimises whole levels of the
current tree from the bottom up, as Blossom's decision stack does.  Within the
engine, pruning by proven-optimal siblings is the upper bound a node passes to
its second child.

A strategy is one :class:`Strategy` entry in :data:`STRATEGIES` plus its rule
in the engine (``engine/_rules.pyx``); nothing else names strategies.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from itertools import count
from typing import Callable, Iterator

from optimaltrees.search.engine import RULES, Engine

SCHEDULES = ("monotonic", "exponential", "luby")
PURITY_STEP = 0.002                       # CA-DL8.5's purity threshold step
GAIN_STEP_FALLBACK = 1e-3                 # when the greedy pass cut no gain gap
PROOF_SHARE = 0.5                         # candidate rules: a third of the time in proof slices
FIRST_PROOF_SLICE = 0.01                  # seconds; each slice doubles the last


@dataclass(frozen=True)
class Strategy:
    """One search order over the engine: its rule, and how the rule is
    relaxed restart by restart until it cuts nothing (then the restart is
    the exhaustive search and proves the optimum)."""

    name: str
    rule: int                                   # the engine's rule (RULES)
    budget: Callable[[int, float], float] = lambda level, step: step * level
    # the rule's budget at a relaxation level (0: the greedy restart); ``step``
    # is what ``calibrate`` measured (1.0 until then), doubled by every
    # restart that moved neither bound
    greedy_rule: int | None = None              # the first restart's rule, when not ``rule``
    calibrate: Callable[[Engine], float] | None = None   # after the greedy restart: the step
    cuts_nothing_beyond: float = math.inf       # a budget above this cannot cut: go exhaustive
    proof_share: float = 0.0                    # proof slices' time per second of rule restarts

    @property
    def anytime(self) -> bool:
        """Restarts under a rule (False: one exhaustive ConTree search)."""
        return self.rule != RULES["exhaustive"]


def _gain_step(engine: Engine) -> float:
    """The smallest Gini-gain gap the greedy restart cut: relaxing by it
    re-opens at least one candidate per restart."""
    seen = float(engine.min_cut_gap)
    return seen if 0 < seen < math.inf else GAIN_STEP_FALLBACK


STRATEGIES: dict[str, Strategy] = {s.name: s for s in (
    Strategy("exhaustive", RULES["exhaustive"]),
    Strategy("blossom", RULES["blossom"]),
    # the greedy pass first (a tree at once), then the purity thresholds
    Strategy("purity", RULES["purity"], budget=lambda level, step: PURITY_STEP * step * level,
             greedy_rule=RULES["top-k"], cuts_nothing_beyond=1.0),
    Strategy("gain", RULES["gain"], budget=lambda level, step: step * level, calibrate=_gain_step,
             proof_share=PROOF_SHARE),
    Strategy("discrepancy", RULES["discrepancy"], proof_share=PROOF_SHARE),
    Strategy("top-k", RULES["top-k"], proof_share=PROOF_SHARE),
    Strategy("top-k*", RULES["top-k*"], proof_share=PROOF_SHARE),
)}


def greedy_restart(engine: Engine, time_limit: float, known_lb: float):
    """One restart under the greedy rule (every node's best Gini split, the
    last level exact): a tree in milliseconds, then the engine is set back to
    the exhaustive search, whose cache keeps what the greedy pass proved."""
    engine.set_rule(RULES["top-k"], 0.0)
    try:
        return engine.solve(time_limit, known_lb)
    finally:
        engine.set_rule(RULES["exhaustive"], 0.0)


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
    restarts: int = 0          # solves under the rule (the greedy one included)
    rule_cuts: int = 0
    proof_slices: int = 0      # exhaustive solves with a slice's time limit
    capped: int = 0            # restarts stopped at their cap (run again after a slice)


@dataclass(frozen=True)
class RestartOutcome:
    """The best tree of a run of restarts and what was proven about it."""

    objective: float          # the incumbent's objective (inf: no tree yet)
    root: int                 # its root in the engine's node pool (-1: none)
    lower_bound: float        # proven lower bound on the optimum
    timed_out: bool
    log: RestartLog


def run_restarts(engine: Engine, strategy: str, schedule: str, *, time_left: Callable[[], float],
                 known_lb: float, gap: float, on_restart: Callable[[int, float, float], None],
                 stopped: Callable[[], bool], thresholds: bool = True) -> RestartOutcome:
    """Restart ``engine`` under the strategy's rule until the incumbent is proven
    optimal, time runs out or ``stopped()``.  ``on_restart(index, incumbent,
    lower_bound)`` is called after every restart.  ``thresholds``: some
    feature has more than one split (numeric data), which the candidate
    rules try one by one; only then do they take proof slices (on 0/1 data
    a node's candidates are its features, as in the exhaustive search)."""
    plan = STRATEGIES[strategy]
    run = _Run(known_lb)
    try:
        run.loop(engine, plan, schedule, time_left, gap, on_restart, stopped,
                 plan.proof_share if thresholds else 0.0)
    except KeyboardInterrupt:
        # Ctrl-C between two restarts (inside one, the engine handles it):
        # keep the incumbent, as an interrupted search does
        engine.interrupted = True
        run.timed_out = False
    return RestartOutcome(run.best_val, run.best_root, run.lower, run.timed_out, run.log)


class _ProofSlices:
    """When the next proof slice is due and how long it may run: it doubles
    the last one, or makes up what the slices are behind their share."""

    def __init__(self, share: float):
        self.share = share
        self.rule_seconds = 0.0          # spent in restarts under the rule
        self.slice_seconds = 0.0         # spent in proof slices
        self.last = FIRST_PROOF_SLICE / 2.0

    def due(self) -> bool:
        return self.share > 0 and self.slice_seconds <= self.share * self.rule_seconds

    def next_limit(self) -> float:
        self.last = max(2.0 * self.last, self.share * self.rule_seconds - self.slice_seconds)
        return self.last

    def rule_cap(self) -> float:
        """The longest a restart under the rule may run: twice the last slice's
        share (its limit / share), so one long restart cannot starve the slices
        (gain on bidding at depth 3: a 22 s restart, where the slices proved in
        0.04 s); a restart stopped at its cap is run again with the next cap."""
        if self.share <= 0:
            return math.inf
        return 2.0 * max(self.last, FIRST_PROOF_SLICE) / self.share


class _Run:
    """The incumbent and bound of a run of restarts, kept up to date so that
    an interrupt between restarts still returns them."""

    def __init__(self, known_lb: float):
        self.best_val, self.best_root = math.inf, -1
        self.lower = known_lb
        self.timed_out = False
        self.log = RestartLog()

    def _take(self, out, index: int, on_restart) -> None:
        """A solve's tree and bound into the run's incumbent and bound."""
        if out.objective < self.best_val:
            self.best_val, self.best_root = out.objective, out.root
        self.lower = max(self.lower, out.lower_bound)
        on_restart(index, self.best_val, self.lower)

    def _proven(self, gap: float) -> bool:
        return self.lower >= self.best_val - gap - 1e-9

    def loop(self, engine, plan: Strategy, schedule, time_left, gap, on_restart, stopped,
             proof_share: float) -> None:
        step = 1.0
        levels = schedule_values(schedule)
        exhaustive = False
        slices = _ProofSlices(proof_share)
        level, repeat = 0, False
        last_whole = None       # the bounds after the last whole exhaustive solve
        for restart in count(0):
            if not repeat:
                level = next(levels)
                # a level run again after its cap is judged idle or not from its first attempt
                before = (self.best_val, self.lower)
            repeat = False
            if exhaustive:
                engine.set_rule(RULES["exhaustive"], 0.0)
            elif restart == 0 and plan.greedy_rule is not None:
                engine.set_rule(plan.greedy_rule, 0.0)
            else:
                engine.set_rule(plan.rule, plan.budget(level, step))
            remaining = time_left()
            if remaining <= 0:
                self.timed_out = True
                return
            # with slices, a restart may not run longer than a few slices (the
            # greedy restart, which must give the first tree, excepted)
            limit = remaining if exhaustive or restart == 0 else min(remaining, slices.rule_cap())
            t0 = time.perf_counter()
            out = engine.solve(limit, self.lower, self.best_val)
            slices.rule_seconds += time.perf_counter() - t0
            self.log.restarts += 1
            cuts = int(engine.n_rule_cuts)
            self.log.rule_cuts += cuts
            self._take(out, restart, on_restart)
            if self._proven(gap):
                return
            if exhaustive and not out.aborted:
                if (self.best_val, self.lower) == last_whole:
                    # a second whole exhaustive solve moved neither bound: a
                    # third would not either (it would loop until the time
                    # limit, or forever without one); not proven, say so
                    self.timed_out = True
                    return
                last_whole = (self.best_val, self.lower)
            if out.aborted:
                if limit >= remaining or stopped() or engine.memory_out:
                    self.timed_out = not stopped()
                    return
                # stopped at its cap: a slice, then the same restart with a larger cap
                repeat = True
                self.log.capped += 1
            else:
                if cuts == 0 and not exhaustive:
                    # nothing was cut: that restart was the exhaustive search (its bound
                    # proves the incumbent); only a memory-capped cache can leave a gap
                    exhaustive = True
                if restart == 0 and plan.calibrate is not None:
                    step = plan.calibrate(engine)
                elif cuts > 0 and (self.best_val, self.lower) == before:
                    # a restart that moved neither bound doubles the step, so the
                    # exhaustive search comes after a bounded number of idle
                    # restarts.  gain's calibrated step is the smallest gap the
                    # greedy pass cut (occupancy: 3e-7 of a node's weight; tiny
                    # weights far less): millions of restarts, a fit that never
                    # ended.  top-k and discrepancy crept up one level a restart
                    # on a Luby schedule: 250 rows x 4 features at depth 3, proven
                    # in 10 ms exhaustively, had no bound after 160 restarts (25 s)
                    step *= 2.0
                if plan.budget(level, step) > plan.cuts_nothing_beyond:
                    exhaustive = True
            if not exhaustive and (repeat or slices.due()):
                verdict = self._proof_slice(engine, slices, restart, time_left, gap, on_restart, stopped)
                if verdict == _OVER:
                    return
                exhaustive = verdict == _SLICE_COMPLETE

    def _proof_slice(self, engine, slices: _ProofSlices, index: int, time_left, gap, on_restart,
                     stopped) -> int:
        """One exhaustive solve within the next slice's time limit."""
        remaining = time_left()
        if remaining <= 0:
            self.timed_out = True
            return _OVER
        limit = min(slices.next_limit(), remaining)
        engine.set_rule(RULES["exhaustive"], 0.0)
        t0 = time.perf_counter()
        out = engine.solve(limit, self.lower, self.best_val)
        slices.slice_seconds += time.perf_counter() - t0
        self.log.proof_slices += 1
        self._take(out, index, on_restart)
        if self._proven(gap):
            return _OVER
        if not out.aborted:
            # a whole exhaustive solve that proved nothing: a memory-capped
            # cache; the restarts go on exhaustive, as when a rule cuts nothing
            return _SLICE_COMPLETE
        if limit >= remaining or stopped() or engine.memory_out:
            self.timed_out = not stopped()
            return _OVER
        return _SLICE_STOPPED


_OVER, _SLICE_STOPPED, _SLICE_COMPLETE = range(3)   # what a proof slice leaves the run
