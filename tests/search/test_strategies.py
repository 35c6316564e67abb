"""Anytime strategies (search=...): each is complete, so with unlimited time it
must prove exactly the exhaustive optimum (checked against the brute-force
oracle and against the peers' optima), and its trace must be honest: every
incumbent's error is its tree's recomputed error, errors never increase,
bounds never decrease."""
import json
import zlib

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier
from hypothesis import given, note, settings, strategies as st

from conftest import FIXTURES, load_binary, load_continuous
from helpers import check_tree_invariants, n_examples
from oracle import brute_force_objective, recompute_error, recompute_objective
from instances import SETTINGS, instances

from optimaltrees import OptimalTreeClassifier
from optimaltrees.search.contree import search_tree
from optimaltrees.search.strategies import SCHEDULES, STRATEGIES, luby, schedule_values

ANYTIME = ["blossom", "purity", "gain", "discrepancy", "top-k", "top-k*"]
COMBOS = [(s, sch) for s in ANYTIME for sch in SCHEDULES]
DATA = FIXTURES
BINARY_OPT = json.loads((DATA / "binary_optima.json").read_text())["optima"]
NUMERIC_OPT = json.loads((DATA / "peer_optima.json").read_text())["optima"]


def assert_honest_trace(result, X, y_index):
    trace, trees = result.trace, result.trace_trees
    assert trace, "a search that found a tree must trace it"
    assert len(trace) == len(trees)
    for point, tree in zip(trace, trees):
        assert point.error == recompute_error(tree, X, y_index)
        assert point.lower_bound <= point.objective + 1e-9
    for a, b in zip(trace, trace[1:]):
        assert b.time >= a.time
        assert b.error <= a.error or b.objective <= a.objective
        assert b.objective <= a.objective + 1e-9
        assert b.lower_bound >= a.lower_bound - 1e-9
    assert trace[-1].objective == pytest.approx(result.objective)


def labels(y):
    _, y_index = np.unique(y, return_inverse=True)
    return y_index.reshape(-1), int(y_index.max()) + 1


@settings(max_examples=n_examples(300), **SETTINGS)
@given(data=instances(max_n=14, max_features=3, max_classes=4),
       depth=st.integers(0, 3),
       combo=st.sampled_from(COMBOS),
       cost=st.sampled_from([0.0, 0.0, 0.5]))
def test_every_strategy_proves_the_brute_force_optimum(data, depth, combo, cost):
    X, y = data
    strategy, schedule = combo
    note(f"strategy={strategy} schedule={schedule} depth={depth} cost={cost}")
    y_index, k = labels(y)
    expected = brute_force_objective(X, y, depth, cost_per_node=cost)
    result = search_tree(X, y_index, k, depth, node_cost=cost, strategy=strategy, schedule=schedule,
                         trace_trees=True)
    assert result.objective == pytest.approx(expected, abs=1e-9)
    assert result.lower_bound == pytest.approx(expected, abs=1e-9)
    assert recompute_objective(result.tree, X, y_index, cost) == pytest.approx(expected, abs=1e-9)
    if depth >= 1:
        assert_honest_trace(result, X, y_index)


@settings(max_examples=n_examples(200), **SETTINGS)
@given(data=instances(max_n=14, max_features=3, max_classes=4),
       depth=st.integers(0, 3),
       threads=st.sampled_from([1, 2]),
       cost=st.sampled_from([0.0, 0.0, 0.5]),
       gap=st.sampled_from([0.0, 0.0, 1.0]))
def test_greedy_start_proves_the_brute_force_optimum(data, depth, threads, cost, gap):
    """The exhaustive search started from the greedy tree (what a time limit
    switches on), on one thread or two sharing the root."""
    X, y = data
    y_index, k = labels(y)
    expected = brute_force_objective(X, y, depth, cost_per_node=cost)
    result = search_tree(X, y_index, k, depth, node_cost=cost, max_gap=gap, n_threads=threads,
                         greedy_start=True, trace_trees=True)
    assert expected - 1e-9 <= result.objective <= expected + gap + 1e-9
    assert result.lower_bound <= expected + 1e-9
    assert recompute_objective(result.tree, X, y_index, cost) == pytest.approx(result.objective, abs=1e-9)
    if gap == 0.0:
        assert result.lower_bound == pytest.approx(expected, abs=1e-9)
    if depth >= 1:
        assert_honest_trace(result, X, y_index)


@pytest.mark.parametrize("strategy, schedule", COMBOS)
def test_strategy_matches_exhaustive_on_random_data(strategy, schedule):
    """Larger than the oracle can enumerate: equal to the exhaustive search."""
    # a seed per combination that is the same in every process (hash() of a str is not)
    rng = np.random.default_rng(zlib.crc32(f"{strategy}:{schedule}".encode()))
    for trial in range(6):
        n, p = int(rng.integers(30, 90)), int(rng.integers(2, 6))
        binary = trial % 2 == 0
        X = rng.integers(0, 2 if binary else 7, size=(n, p)).astype(float)
        X[: n // 5] = X[n // 5: 2 * (n // 5)]          # duplicate rows
        k = int(rng.integers(2, 4))
        y = rng.integers(0, k, size=n)
        y[: n // 3] = (X[: n // 3, 0] > X[: n // 3, 1]).astype(int)   # some signal
        depth = int(rng.integers(2, 4 if binary or p < 4 else 3)) + (1 if binary else 0)
        exact = search_tree(X, y, k, depth)
        got = search_tree(X, y, k, depth, strategy=strategy, schedule=schedule, trace_trees=True)
        assert got.objective == pytest.approx(exact.objective), (trial, n, p, depth)
        assert got.lower_bound == pytest.approx(exact.objective)
        assert_honest_trace(got, X, y)
        # without the trees, each point's error comes from its objective: the same
        quick = search_tree(X, y, k, depth, strategy=strategy, schedule=schedule)
        assert [p.error for p in quick.trace] == [p.error for p in got.trace]
        assert not quick.trace_trees


BINARY_SETS = ["hepatitis", "lymph", "primary-tumor", "vote", "zoo-1", "heart-cleveland"]


@pytest.mark.parametrize("strategy, schedule", COMBOS)
def test_strategy_on_cp4im_sets(strategy, schedule):
    for name in BINARY_SETS:
        X, y = load_binary(name)
        depth = 3
        clf = OptimalTreeClassifier(max_depth=depth, search=strategy, schedule=schedule).fit(X, y)
        assert clf.is_optimal_, name
        assert clf.train_error_ == BINARY_OPT[f"{name}:{depth}"], name
        assert clf.trace_[-1].error == clf.train_error_


@pytest.mark.parametrize("strategy", ANYTIME)
def test_strategy_on_numeric_sets(strategy):
    for name in ["bank", "raisin", "wilt"]:
        X, y = load_continuous(name)
        clf = OptimalTreeClassifier(max_depth=2, search=strategy, schedule="exponential").fit(X, y)
        assert clf.is_optimal_, name
        assert clf.train_error_ == NUMERIC_OPT[f"{name}:2"], name
        check_tree_invariants(clf, X, y, 2)


@pytest.mark.parametrize("strategy", ANYTIME)
def test_first_tree_is_greedy_quality(strategy):
    """The first incumbent is at least as good as CART's tree of the same depth
    and comes at once."""
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_continuous("magic")
    seen = []

    def stop_after_first(progress):
        if progress.improved:
            seen.append(progress)
            return False
        return True

    clf = OptimalTreeClassifier(max_depth=4, search=strategy, callback=stop_after_first).fit(X, y)
    cart = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    cart_errors = int(np.sum(cart.predict(X) != y))
    assert clf.stopped_ and not clf.is_optimal_ and not clf.timed_out_
    assert len(seen) == 1
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    assert clf.train_error_ <= cart_errors
    assert clf.trace_[0].error == clf.train_error_


def test_callback_sees_progress_and_can_stop():
    X, y = load_continuous("magic")
    calls = []

    def callback(progress):
        calls.append(progress)
        assert progress.gap >= 0
        assert progress.lower_bound <= progress.objective
        return len([c for c in calls if c.improved]) < 3

    clf = OptimalTreeClassifier(max_depth=4, search="discrepancy", callback=callback).fit(X, y)
    improved = [c for c in calls if c.improved]
    assert len(improved) == 3 and clf.stopped_
    assert [c.objective for c in improved] == sorted((c.objective for c in improved), reverse=True)
    assert clf.objective_ == pytest.approx(improved[-1].objective)


def test_periodic_progress_runs_across_short_restarts_and_slices():
    """The progress hook's clock used to restart with every solve: with
    restarts and slices of a few hundredths of a second, the periodic calls
    (every 0.5 s) of a 3 s fit came at 1.38, 2.3 and 2.8 s.  Now at 0.5,
    1.0, ... 2.5 s."""
    import time as clock

    X, y = load_continuous("magic")
    periodic = []
    start = clock.perf_counter()

    def callback(progress):
        if not progress.improved:
            periodic.append(clock.perf_counter() - start)
        return True

    clf = OptimalTreeClassifier(max_depth=4, search="top-k*", time_limit=3, callback=callback)
    with pytest.warns(UserWarning, match="time_limit"):
        clf.fit(X, y)
    assert clf.stats_["proof_slices"] >= 2
    assert len(periodic) >= 4, periodic


@pytest.mark.parametrize("strategy", [s for s in STRATEGIES if s != "exhaustive"])
def test_greedy_first_tree_on_binary_data_counts_no_pairs(strategy):
    """The first restart must give a tree at once: its depth-two nodes take the
    rule's first split instead of the O(p^2) counting solver."""
    X, y = load_binary("splice-1")
    clf = OptimalTreeClassifier(max_depth=5, search=strategy,
                                callback=lambda progress: not progress.improved).fit(X, y)
    assert clf.stopped_ and len(clf.trace_) == 1
    assert clf.stats_["d2_calls"] == 0
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    cart = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    assert clf.train_error_ <= int((cart.predict(X) != y).sum())


@pytest.mark.parametrize("name", ["soybean", "anneal", "primary-tumor", "splice-1"])
def test_first_tree_not_worse_than_cart_on_data_with_conflicting_rows(name):
    """These sets hold identical rows with different labels.  The first tree is
    a greedy one on every row, as CART sees them (cancelling the conflicts
    first changed soybean's Gini choices: 18 errors against CART's 15)."""
    X, y = load_binary(name)
    clf = OptimalTreeClassifier(max_depth=6, search="discrepancy",
                                callback=lambda progress: not progress.improved).fit(X, y)
    assert len(clf.trace_) == 1
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    cart = DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
    assert clf.train_error_ <= int((cart.predict(X) != y).sum())


def test_callback_errors_propagate():
    X, y = load_continuous("bank")

    def broken(progress):
        raise ZeroDivisionError("user bug")

    with pytest.raises(ZeroDivisionError, match="user bug"):
        OptimalTreeClassifier(max_depth=3, search="blossom", callback=broken).fit(X, y)


def test_time_limit_keeps_best_tree_and_a_valid_bound():
    X, y = load_continuous("magic")
    clf = OptimalTreeClassifier(max_depth=5, search="top-k*", time_limit=1.0).fit(X, y)
    assert clf.timed_out_ and not clf.is_optimal_
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    assert clf.lower_bound_ <= clf.objective_
    assert clf.trace_[-1].error == clf.train_error_


def test_exhaustive_has_a_trace_too():
    X, y = load_continuous("bank")
    clf = OptimalTreeClassifier(max_depth=3).fit(X, y)
    assert clf.trace_[-1].error == clf.train_error_
    assert clf.trace_[-1].lower_bound == pytest.approx(clf.objective_)


def test_verbose_prints_a_progress_line(capsys):
    X, y = load_continuous("bank")
    OptimalTreeClassifier(max_depth=3, search="blossom", verbose=True).fit(X, y)
    err = capsys.readouterr().err
    assert "best=" in err and "bound=" in err and "gap=" in err


@pytest.mark.parametrize("bad, match", [
    (dict(search="dfs"), r"'search' parameter of OptimalTreeClassifier must be a str among .* Got 'dfs'"),
    (dict(schedule="linear"), r"'schedule' parameter of OptimalTreeClassifier must be a str among .* Got 'linear'"),
    (dict(search=3), r"'search' parameter .* Got 3"),
])
def test_bad_strategy_parameters(bad, match):
    X, y = load_continuous("bank")
    with pytest.raises(ValueError, match=match):
        OptimalTreeClassifier(**bad).fit(X, y)


def test_bad_callback():
    X, y = load_continuous("bank")
    with pytest.raises(TypeError, match=r"'callback' parameter .* must be a callable or None\. Got 3"):
        OptimalTreeClassifier(callback=3).fit(X, y)


def test_schedules():
    take = lambda s, n: [v for v, _ in zip(schedule_values(s), range(n))]  # noqa: E731
    assert take("monotonic", 5) == [0, 1, 2, 3, 4]
    assert take("exponential", 6) == [0, 1, 2, 4, 8, 16]
    assert [luby(i) for i in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]
    assert take("luby", 8) == [0, 1, 2, 4, 5, 6, 8, 12]


@pytest.mark.parametrize("strategy", ANYTIME)
def test_idle_restarts_reach_the_proof_in_few_restarts(strategy):
    """top-k and discrepancy crept up one level a restart (Luby): on these
    250 rows, proven in milliseconds exhaustively, they had no bound after
    160 restarts.  Idle restarts now double the budget."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(250, 4))
    y = ((X[:, 0] + X[:, 1] * X[:, 2] > 0) ^ (rng.random(250) < 0.1)).astype(int)
    exact = OptimalTreeClassifier(max_depth=3).fit(X, y)
    model = OptimalTreeClassifier(max_depth=3, search=strategy).fit(X, y)
    assert model.is_optimal_ and model.objective_ == exact.objective_
    assert model.stats_["restarts"] <= 40


def test_the_greedy_first_pass_stays_within_a_memory_limit_the_search_meets():
    """The greedy first pass (any fit with a time limit) keeps each feature's
    best split only, not every threshold of every feature (16 bytes each:
    more than the data's own buffers on wide data), so a limit the search's
    buffers meet is not overrun before the search starts."""
    import re
    import warnings

    rng = np.random.default_rng(0)
    X = rng.normal(size=(5000, 100))
    y = (X[:, 0] + rng.normal(size=5000) > 0).astype(int)
    with pytest.raises(ValueError, match="MB the search needs") as err:
        OptimalTreeClassifier(max_depth=3, memory_limit=0.01).fit(X, y)
    need = float(re.search(r"below the ([0-9.]+) MB", str(err.value)).group(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)      # (stopped at the time limit)
        fit = OptimalTreeClassifier(max_depth=3, memory_limit=need * 1.1, time_limit=2).fit(X, y)
    assert not fit.memory_out_
    assert fit.stats_["search_megabytes"] <= need * 1.1


@pytest.mark.parametrize("strategy", ["gain", "discrepancy", "top-k", "top-k*"])
def test_candidate_rules_prove_numeric_sets_within_proof_slices(strategy):
    """A candidate rule admits thresholds one by one: on wilt at depth 3
    (proven exhaustively in 0.02 s) these four had no bound after 60 s.
    The proof slices give them the exhaustive search's proof at a constant
    factor of its time."""
    X, y = load_continuous("wilt")
    model = OptimalTreeClassifier(max_depth=3, search=strategy, time_limit=30).fit(X, y)
    assert model.is_optimal_ and model.train_error_ == NUMERIC_OPT["wilt:3"]
    assert model.stats_["proof_slices"] >= 1
    assert model.stats_["restarts"] >= 2          # the rule ran too: not the exhaustive search alone


@pytest.mark.parametrize("strategy", ["blossom", "purity"])
def test_strategies_that_search_intervals_take_no_proof_slices(strategy):
    X, y = load_continuous("bank")
    model = OptimalTreeClassifier(max_depth=3, search=strategy).fit(X, y)
    assert model.is_optimal_ and model.stats_["proof_slices"] == model.stats_["capped_restarts"] == 0


@pytest.mark.parametrize("strategy", ["discrepancy", "top-k*"])
def test_no_proof_slices_on_binary_data(strategy):
    """On 0/1 data a node's candidates are its features, as in the
    exhaustive search: the rule reaches it without slices."""
    X, y = load_binary(BINARY_SETS[0])
    model = OptimalTreeClassifier(max_depth=3, search=strategy).fit(X, y)
    assert model.is_optimal_ and model.stats_["proof_slices"] == model.stats_["capped_restarts"] == 0
    assert model.stats_["restarts"] >= 2


class _ScriptedEngine:
    """An engine whose solves follow a script (one entry per solve): what the
    restart loop sees, without a search.  Its own clock makes the loop's
    timing exact: a solve that stops takes its whole limit; one that ends
    takes 0.25 s under the rule, 1 ms as a slice.  Records each solve's
    kind, time limit, the bound and incumbent it was given, and the rule's
    budget."""

    RULE_SECONDS = 0.25

    def __init__(self, script, cuts=1):
        self.script = list(script)
        self.calls = []
        self.rule = None
        self.budget = None
        self.cuts = cuts
        self.memory_out = False
        self.interrupted = False
        self.n_rule_cuts = 0
        self.min_cut_gap = 1e-3
        self.now = 0.0

    def perf_counter(self):
        return self.now

    def set_rule(self, rule, budget):
        self.rule, self.budget = rule, budget

    def solve(self, limit, lower, upper):
        from optimaltrees.search.engine import RULES, SolveOutcome

        objective, lb, aborted, memory_out = self.script.pop(0)
        exhaustive = self.rule == RULES["exhaustive"]
        self.calls.append(("slice" if exhaustive else "rule", limit, lower, upper, self.budget))
        self.now += limit if aborted else 0.001 if exhaustive else self.RULE_SECONDS
        self.n_rule_cuts = 0 if exhaustive else self.cuts
        self.memory_out = memory_out
        return SolveOutcome(objective, lb, 7, aborted)


def _run(engine, monkeypatch, strategy="top-k", left=100.0):
    import types

    from optimaltrees.search import strategies

    monkeypatch.setattr(strategies, "time", types.SimpleNamespace(perf_counter=engine.perf_counter))
    return strategies.run_restarts(engine, strategy, "luby", time_left=lambda: left - engine.now,
                                   known_lb=0.0, gap=0.0, on_restart=lambda *a: None,
                                   stopped=lambda: False)


def test_a_proof_slice_stopped_by_its_own_limit_lets_the_restarts_go_on(monkeypatch):
    ok, stop, mem = (False, False), (True, False), (True, True)
    engine = _ScriptedEngine([(30, 0, *ok), (30, 5, *stop), (25, 0, *ok), (25, 12, *stop),
                              (24, 0, *ok), (24, 24, *ok)])
    out = _run(engine, monkeypatch)
    assert [c[0] for c in engine.calls] == ["rule", "slice", "rule", "slice", "rule", "slice"]
    # each slice makes up its share of the rule restarts' time (half of it), at
    # least doubling the last: 0.125 s after 0.25 s of restarts, then 0.25, 0.5
    assert [c[1] for c in engine.calls if c[0] == "slice"] == [0.125, 0.25, 0.5]
    # each solve starts from the run's bound and incumbent: a stopped slice's bound is kept
    assert [(c[2], c[3]) for c in engine.calls] == [(0, float("inf")), (0, 30), (5, 30), (5, 25),
                                                    (12, 25), (12, 24)]
    assert out.objective == 24 and out.lower_bound == 24 and not out.timed_out
    assert out.log.proof_slices == 3 and out.log.restarts == 3
    # a rule restart stopped by the memory limit ends the run, with the slice's bound
    engine = _ScriptedEngine([(30, 0, *ok), (30, 5, *stop), (25, 0, *mem)])
    out = _run(engine, monkeypatch)
    assert out.lower_bound == 5 and out.objective == 25 and out.timed_out
    # a slice stopped by the memory limit ends the run (the next would stop too)
    engine = _ScriptedEngine([(30, 0, *ok), (30, 6, *mem)])
    out = _run(engine, monkeypatch)
    assert out.lower_bound == 6 and len(engine.calls) == 2


def test_no_slice_while_the_slices_are_ahead_of_their_share(monkeypatch):
    """The first slice runs at least 10 ms: after rule restarts of 1/256 s it
    is ahead of its share, and the next comes once the restarts have had
    twice the slices' time (after the sixth restart: 6/256 s > 2 x 10 ms)."""
    ok, stop = (False, False), (True, False)
    engine = _ScriptedEngine([(30, 0, *ok), (30, 0, *stop)] + [(29, 0, *ok)] * 5 + [(29, 29, *ok)])
    engine.RULE_SECONDS = 1 / 256
    out = _run(engine, monkeypatch)
    assert [c[0] for c in engine.calls] == ["rule", "slice"] + ["rule"] * 5 + ["slice"]
    assert engine.calls[1][1] == 0.01 and out.lower_bound == 29


def test_a_restart_stopped_at_its_cap_is_run_again_after_a_slice(monkeypatch):
    """One long restart must not starve the slices (gain on bidding at depth
    3: 22 s in one restart where the slices proved in 0.04 s).  A restart
    may run twice the last slice's share; stopped there, a slice runs, then
    the same restart (same budget) with a larger cap."""
    ok, stop = (False, False), (True, False)
    engine = _ScriptedEngine([(30, 0, *ok), (30, 2, *stop), (29, 2, *stop), (29, 2, *stop),
                              (28, 2, *ok), (28, 28, *ok)])
    out = _run(engine, monkeypatch)
    assert [c[0] for c in engine.calls] == ["rule", "slice", "rule", "slice", "rule", "slice"]
    rules = [c for c in engine.calls if c[0] == "rule"]
    # the greedy restart is not capped; then 2 x 0.125 / 0.5, then 2 x 0.25 / 0.5
    assert [c[1] for c in rules] == [100.0, 0.5, 1.0]
    assert rules[1][4] == rules[2][4] > rules[0][4]       # the capped restart's budget again
    assert [c[1] for c in engine.calls if c[0] == "slice"] == [0.125, 0.25, 0.5]
    assert out.log.capped == 1 and out.log.restarts == 3
    assert out.objective == out.lower_bound == 28 and not out.timed_out


def test_a_capped_level_is_judged_idle_from_its_first_attempt(monkeypatch):
    """The capped attempt found 29 (the greedy tree had 30) and its repeat
    nothing more: the level moved the incumbent, so the step is not doubled
    and the next level's budget is 2, as when the level runs in one go."""
    ok, stop = (False, False), (True, False)
    engine = _ScriptedEngine([(30, 0, *ok), (30, 2, *stop), (29, 2, *stop), (29, 2, *stop),
                              (29, 2, *ok), (29, 2, *stop), (28, 28, *ok)])
    out = _run(engine, monkeypatch)
    assert [c[0] for c in engine.calls] == ["rule", "slice"] * 3 + ["rule"]
    assert [c[4] for c in engine.calls if c[0] == "rule"] == [0.0, 1.0, 1.0, 2.0]
    assert out.objective == out.lower_bound == 28


def test_a_capped_restart_at_the_fits_time_limit_ends_the_run(monkeypatch):
    """Its limit is the time left (below its cap): stopped there, the fit
    timed out, and no slice follows."""
    engine = _ScriptedEngine([(30, 0, False, False), (30, 2, True, False), (29, 2, True, False)])
    out = _run(engine, monkeypatch, left=0.6)
    assert [c[0] for c in engine.calls] == ["rule", "slice", "rule"]
    assert engine.calls[2][1] == pytest.approx(0.6 - 0.25 - 0.125)
    assert out.timed_out and out.objective == 29 and out.lower_bound == 2 and out.log.capped == 0


def test_a_proof_slice_at_the_fits_time_limit_ends_the_run(monkeypatch):
    engine = _ScriptedEngine([(30, 0, False, False), (30, 3, True, False)])
    out = _run(engine, monkeypatch, left=0.255)      # 5 ms left after the greedy restart: less than the slice's share
    assert [c[0] for c in engine.calls] == ["rule", "slice"]
    assert engine.calls[1][1] == pytest.approx(0.005)
    assert out.timed_out and out.lower_bound == 3


def test_a_whole_proof_slice_that_proves_nothing_makes_the_restarts_exhaustive(monkeypatch):
    """Only a memory-capped cache leaves a gap after a whole exhaustive
    solve; the restarts then go on exhaustively, as when a rule cuts nothing."""
    engine = _ScriptedEngine([(30, 0, False, False), (30, 10, False, False), (28, 28, False, False)])
    out = _run(engine, monkeypatch)
    assert [c[0] for c in engine.calls] == ["rule", "slice", "slice"]
    # an exhaustive restart, not a slice: all the time left
    assert engine.calls[2][1] == pytest.approx(100 - 0.25 - 0.001)
    assert out.objective == 28 and out.lower_bound == 28


def test_whole_exhaustive_solves_that_move_no_bound_end_the_run(monkeypatch):
    """An exhaustive restart that completes without a proof is run again
    (its cache carries over), but one that moves neither bound after
    another ends the run, not proven, rather than looping until the time
    limit (or forever without one)."""
    ok = (False, False)
    engine = _ScriptedEngine([(30, 0, *ok), (30, 10, *ok), (30, 12, *ok), (30, 12, *ok), (30, 12, *ok)])
    out = _run(engine, monkeypatch, left=float("inf"))
    assert [c[0] for c in engine.calls] == ["rule", "slice", "slice", "slice"]
    assert out.timed_out and out.objective == 30 and out.lower_bound == 12
