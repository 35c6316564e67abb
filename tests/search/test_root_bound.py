"""The root's best-first search (depth >= 3, one thread): its lower bound
rises while it runs, and wherever it stops, the bound it reports is valid.

A hook called at every branching decision (``every=0``) stops the search
after a chosen number of calls: a deterministic stop point anywhere in the
search, where a time limit would be a random one."""
import numpy as np
from hypothesis import given, note, settings, strategies as st

from helpers import n_examples
from instances import SETTINGS
from oracle import brute_force_objective

from optimaltrees.data.encoding import encode_features
from optimaltrees.search.contree import search_tree
from optimaltrees.search.engine import build_engine

EPS = 1e-9


def _engine(X, y, depth, cost=0.0):
    enc = encode_features(np.asarray(X, dtype=np.float64))
    _, codes = np.unique(y, return_inverse=True)
    return build_engine(enc.order, enc.rank, codes.astype(np.int32), int(codes.max()) + 1, depth,
                        cost=cost)


def _stopped_solve(engine, stop_after):
    """Solve, stopping after ``stop_after`` hook calls (None: never); returns
    the outcome and every root bound the hook read on the way."""
    seen = []

    def hook(val, tree):
        seen.append(engine.root_lower_bound)
        return stop_after is None or len(seen) < stop_after

    engine.set_hook(hook, 0.0)
    return engine.solve(), seen


def _noisy(n, p, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)).round(2)
    y = ((X[:, 0] + X[:, 1 % p] * X[:, 2 % p] > 0.3) ^ (rng.random(n) < 0.2)).astype(int)
    return X, y


@settings(max_examples=n_examples(80), **SETTINGS)
@given(st.integers(4, 14), st.integers(1, 3), st.integers(0, 10**6), st.integers(1, 400),
       st.sampled_from([0.0, 0.5, 1.5]))
def test_a_stopped_root_search_keeps_a_valid_bound(n, p, seed, stop_after, per_node):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, p)).astype(float)
    y = rng.integers(0, 3, size=n)
    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r}); stop_after = {stop_after}")
    optimum = brute_force_objective(X, y, 3, cost_per_node=per_node)
    out, seen = _stopped_solve(_engine(X, y, 3, cost=per_node), stop_after)
    assert out.lower_bound <= optimum + EPS
    assert out.objective >= optimum - EPS
    assert all(b <= optimum + EPS for b in seen)
    assert seen == sorted(seen)            # the live bound never falls


def test_the_bound_rises_before_the_search_ends():
    """On data whose depth-three search takes many root steps, a search
    stopped halfway already has a bound far above zero, below the optimum."""
    X, y = _noisy(300, 4, 0)
    full, calls = _stopped_solve(_engine(X, y, 3), None)
    assert full.lower_bound == full.objective and not full.aborted
    engine = _engine(X, y, 3)
    half, seen = _stopped_solve(engine, len(calls) // 2)
    assert half.aborted
    # what is left queued at the root is bounded no lower than the bound reported
    left = engine.root_frontier
    assert left and all(bound >= half.lower_bound - EPS for *_, bound in left)
    assert 0.3 * full.objective < half.lower_bound <= full.objective
    assert max(seen) <= half.lower_bound + EPS
    # and it rose on the way: an early stop knows less
    early, _ = _stopped_solve(_engine(X, y, 3), len(calls) // 20)
    assert early.lower_bound < half.lower_bound


def _threshold_costs(X, y, depth, cost=0.0):
    """Per root feature, the exact objective of every threshold index k (the
    split between the feature's k-th and (k+1)-th distinct values): both
    children solved to optimality at depth - 1, plus the split's cost."""
    out = {}
    for f in range(X.shape[1]):
        values = np.unique(X[:, f])
        row = []
        for v in values[:-1]:
            left = X[:, f] <= v
            sides = [_engine(X[m], y[m], depth - 1, cost=cost).solve().objective if len(np.unique(y[m])) > 1
                     else 0.0 for m in (left, ~left)]
            row.append(sum(sides) + cost)
        out[f] = np.array(row)
    return out


def test_every_queued_threshold_is_at_least_its_interval_bound():
    """The frontier's intervals, wherever the search stops, bound every
    threshold in them (SP and IS, child by child): checked threshold by
    threshold against exact child optima on noisy data with many values,
    where the neighbours' bounds are far from 0 and the moved weights
    matter (a bound that halves the weight moved fails here)."""
    checked = 0
    for seed, (n, p, depth) in enumerate([(160, 2, 3), (220, 3, 3), (120, 3, 3), (90, 3, 4), (110, 2, 4)]):
        X, y = _noisy(n, p, seed)
        exact = _threshold_costs(X, y, depth)
        optimum = min(min(c.min() for c in exact.values()), float(len(y) - np.bincount(y).max()))
        full, calls = _stopped_solve(_engine(X, y, depth), None)
        # the root's optimum, from the children's exact optima at every threshold
        assert abs(full.objective - optimum) <= EPS and abs(full.lower_bound - optimum) <= EPS
        for stop in sorted({2, 5, 10, len(calls) // 8, len(calls) // 4, len(calls) // 2}):
            engine = _engine(X, y, depth)
            out, _ = _stopped_solve(engine, stop)
            assert out.lower_bound <= optimum + EPS
            for f, i, j, bound in engine.root_frontier:
                worst = exact[f][i:j + 1].min()
                assert bound <= worst + EPS, (seed, stop, f, i, j, bound, worst)
                checked += 1
    assert checked > 100


def test_deeper_trees_and_the_bitset_layout_stop_with_valid_bounds():
    """Depth four, and binary features (the bitset layout), stopped at a few
    points; the optimum comes from the same engine unstopped."""
    for X, y, depth in (_noisy(120, 3, 1) + (4,), ((_noisy(200, 6, 2)[0] > 0).astype(float),
                                                   _noisy(200, 6, 2)[1], 3)):
        full, calls = _stopped_solve(_engine(X, y, depth), None)
        for share in (0.1, 0.5, 0.9):
            out, seen = _stopped_solve(_engine(X, y, depth), max(1, int(share * len(calls))))
            assert out.lower_bound <= full.objective + EPS
            assert all(b <= full.objective + EPS for b in seen)


def test_the_fit_trace_records_the_rising_bound():
    """Through ``search_tree`` (what the estimator calls): a fit stopped by
    its callback halfway reports the bound the search reached, the progress
    reports carried it, and the trace shows it rising."""
    X, y = _noisy(600, 5, 3)
    full = search_tree(X, y, 2, 3, callback=lambda progress: True, progress_every=0.0)
    calls = []

    def count(progress):
        calls.append(progress.lower_bound)
        return True

    search_tree(X, y, 2, 3, callback=count, progress_every=0.0)
    seen = []

    def stop_halfway(progress):
        seen.append(progress.lower_bound)
        return len(seen) < len(calls) // 2

    half = search_tree(X, y, 2, 3, callback=stop_halfway, progress_every=0.0)
    assert half.stopped and not full.stopped
    assert 0.3 * full.objective < half.lower_bound <= full.objective
    assert seen == sorted(seen) and 0 < seen[-1] <= half.lower_bound
    bounds = [point.lower_bound for point in half.trace]
    assert bounds == sorted(bounds) and bounds[-1] == half.lower_bound


@settings(max_examples=n_examples(40), **SETTINGS)
@given(st.integers(4, 14), st.integers(2, 3), st.integers(0, 10**6), st.integers(1, 300))
def test_two_threads_sharing_the_frontier_stop_with_a_valid_bound(n, p, seed, stop_after):
    """Two engines expanding one frontier, stopped anywhere (or not at all):
    the bound is valid, and an unstopped search proves the brute force."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, p)).astype(float)
    y = rng.integers(0, 3, size=n)
    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r}); stop_after = {stop_after}")
    optimum = brute_force_objective(X, y, 3)
    _, codes = np.unique(y, return_inverse=True)
    k = int(codes.max()) + 1
    calls = []
    stopped = search_tree(X, codes, k, 3, n_threads=2, progress_every=0.0,
                          callback=lambda progress: calls.append(progress) or len(calls) < stop_after)
    assert stopped.lower_bound <= optimum + EPS <= stopped.objective + 2 * EPS
    assert all(progress.lower_bound <= optimum + EPS for progress in calls)
    full = search_tree(X, codes, k, 3, n_threads=2)
    assert full.objective == full.lower_bound == optimum


def test_two_threads_share_the_work_of_one_feature():
    """One informative feature: two threads still both expand its intervals
    (the frontier shares intervals, not whole features), and agree with one."""
    X, y = _noisy(400, 1, 4)
    one = search_tree(X, y, 2, 3)
    two = search_tree(X, y, 2, 3, n_threads=2)
    assert two.objective == two.lower_bound == one.objective
    assert two.stats["threads"] == 2
    assert min(two.stats["subproblems_per_thread"]) > 0


def test_contree_order_steps_go_on_only_while_they_find_better_trees():
    """The root alternates best-first steps with ConTree's order; once
    ConTree's steps stop improving the incumbent they become sparse, so a
    long search takes far fewer than half of its steps in that order (the
    strict alternation took half); two threads sharing the frontier prove
    the same optimum."""
    X, y = _noisy(400, 4, 5)
    out = search_tree(X, y, 2, 3)
    steps, dives = out.stats["root_steps"], out.stats["root_dives"]
    assert steps > 64 and 1 <= dives < steps / 4, (steps, dives)
    two = search_tree(X, y, 2, 3, n_threads=2)
    assert two.objective == two.lower_bound == out.objective == out.lower_bound
    assert two.stats["root_steps"] >= 1 and two.stats["root_dives"] <= two.stats["root_steps"]
