"""The benchmark runner: isolation, limits, Dask, and a tiny diagrams suite."""
from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd
import pytest


from optimaltrees.bench import run_suite, suite_module  # noqa: E402
from optimaltrees.bench.data import split_rows  # noqa: E402
from optimaltrees.bench.runner import Job, run_job, run_jobs  # noqa: E402


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    path = tmp_path / "tiny.csv"
    path.write_text("a,b,c,y\n" + "\n".join(f"{r[0]:.4f},{r[1]:.4f},{r[2]:.4f},{t}" for r, t in zip(X, y)) + "\n")
    return path


def test_one_fit_per_process_with_its_record(table):
    rec = run_job(Job("cart", {"data": str(table), "depth": 2}, key={"tag": "x"}, time_limit=30))
    assert rec["status"] == "ok" and rec["tag"] == "x" and rec["fit"] == "cart"
    assert rec["error"] >= 0 and rec["peak_rss_mb"] > 0 and rec["seconds"] >= 0


def test_failures_become_records(table, tmp_path):
    rec = run_job(Job("cart", {"data": str(tmp_path / "none.csv"), "depth": 2}, time_limit=30))
    assert rec["status"] == "failed" and "no such data file" in rec["message"]
    rec = run_job(Job("no_such_fit", {}, time_limit=30))
    assert rec["status"] == "failed" and "unknown fit" in rec["message"]
    rec = run_job(Job("idle", {"seconds": 30}, time_limit=0.5, grace=0.5))
    assert rec["status"] == "killed"
    rec = run_job(Job("idle", {"seconds": 0}, time_limit=30, memory_mb=2))
    assert rec["status"] == "crashed"


def test_run_jobs_on_a_local_dask_cluster(table):
    seen = []
    jobs = [Job("idle", {"seconds": 0.2}, key={"i": i}, time_limit=30) for i in range(3)]
    records = run_jobs(jobs, workers=2, on_record=seen.append)
    assert [r["i"] for r in records] == [0, 1, 2] and len(seen) == 3
    assert all(r["status"] == "ok" for r in records)


def test_splits_are_disjoint_stratified_and_reproducible():
    y = np.repeat([0, 1, 2], [20, 12, 8])
    parts = split_rows(y, seed=3)
    assert sorted(np.concatenate(parts)) == list(range(len(y)))
    assert [len(p) for p in parts] == [20, 10, 10]
    assert np.bincount(y[parts[0]]).tolist() == [10, 6, 4]
    assert all((a == b).all() for a, b in zip(parts, split_rows(y, seed=3)))


def test_diagrams_suite_end_to_end(table, tmp_path):
    ap = argparse.ArgumentParser()
    suite = suite_module("diagrams")
    suite.add_arguments(ap)
    args = ap.parse_args(["--data-dir", str(table.parent), "--datasets", "tiny", "--skeletons", "I",
                          "--methods", "diagram-uni", "tree-uni", "cart", "--time-limit", "5"])
    args.out, args.workers, args.scheduler, args.command_line = str(tmp_path / "out" / "d.md"), 2, None, "test"
    out = run_suite("diagrams", args)
    first = out.with_suffix(".jsonl").read_text().splitlines()
    # a second run with --resume keeps those records and runs only what is missing
    args = ap.parse_args(["--data-dir", str(table.parent), "--datasets", "tiny", "--skeletons", "I",
                          "--methods", "diagram-uni", "tree-uni", "optimal-tree", "cart", "--time-limit", "5"])
    args.out, args.workers, args.scheduler, args.command_line = str(tmp_path / "out" / "d.md"), 2, None, "test"
    args.resume = True
    out = run_suite("diagrams", args)
    text = out.read_text()
    assert "| diagram-uni | 1 |" in text and "| cart | 1 |" in text and "Runs without a result" not in text
    assert "| optimal-tree | 1 |" in text and "## Targets" in text
    lines = out.with_suffix(".jsonl").read_text().splitlines()
    assert lines[:3] == first and len(lines) == 4
    records = [json.loads(ln) for ln in lines]
    assert {r["method"] for r in records} == {"diagram-uni", "tree-uni", "optimal-tree", "cart"}
    diagram = next(r for r in records if r["method"] == "diagram-uni")
    tree = next(r for r in records if r["method"] == "tree-uni")
    for r in (diagram, tree):   # the MILP only ever improves on its start
        assert r["objective"] <= r["heuristic_objective"] + 1e-9 and r["bound"] <= r["objective"] + 1e-9
    if diagram["optimal"] and tree["optimal"]:   # a tree is a diagram
        assert diagram["objective"] <= tree["objective"] + 1e-9
    assert (tmp_path / "out" / "d-example.png").is_file() and "](d-example.png)" in text


def test_alpha_is_chosen_on_validation_rows_only():
    from optimaltrees.bench.suites.diagrams import calibrated

    def rec(alpha, val, test, nodes, dataset="d", method="diagram-uni"):
        return dict(dataset=dataset, seed=0, skeleton="I", method=method, alpha=alpha, val_acc=val,
                    test_acc=test, nodes=nodes)

    ok = [rec(0.01, 0.80, 0.10, 9), rec(0.1, 0.85, 0.20, 5), rec(0.5, 0.85, 0.90, 3),   # tie: fewer nodes
          rec(0.01, 0.70, 0.99, 4, "e"), rec(0.1, 0.70, 0.50, 4, "e"),                 # tie: larger alpha
          rec(0.01, 0.99, 0.99, 1, "f"),                                               # a missing alpha
          rec(0.1, 1.0, 1.0, 1, "d", "tree-uni")]
    chosen = calibrated(ok, "diagram-uni", [0.01, 0.1, 0.5])
    assert set(chosen) == {("d", 0, "I")} and chosen[("d", 0, "I")]["alpha"] == 0.5
    chosen = calibrated(ok, "diagram-uni", [0.01, 0.1])
    assert set(chosen) == {("d", 0, "I"), ("e", 0, "I")}
    assert chosen[("d", 0, "I")]["alpha"] == 0.1 and chosen[("e", 0, "I")]["alpha"] == 0.1


def test_pruned_cart_keeps_the_path_alpha_best_on_validation(table):
    from sklearn.tree import DecisionTreeClassifier

    from optimaltrees.bench.fits import _split, cart_pruned_split

    rec = cart_pruned_split(data=str(table), seed=1, depth=4)
    (tr, va, te), _, _ = _split(str(table), 1, (0.5, 0.25, 0.25))
    path = DecisionTreeClassifier(max_depth=4, random_state=1).cost_complexity_pruning_path(*tr).ccp_alphas
    scores = {float(a): np.mean(DecisionTreeClassifier(max_depth=4, random_state=1, ccp_alpha=float(a))
                                .fit(*tr).predict(va[0]) == va[1]) for a in path}
    assert rec["val_acc"] == max(scores.values()) and scores[rec["ccp_alpha"]] == rec["val_acc"]
    assert rec["ccp_alpha"] == max(a for a, s in scores.items() if s == rec["val_acc"])   # ties: smaller tree
    assert rec["candidates"] == len(set(path)) and 0 <= rec["test_acc"] <= 1


def test_diagrams_suite_reports_alpha_chosen_on_validation(table, tmp_path):
    args = _suite_args("diagrams", ["--data-dir", str(table.parent), "--datasets", "tiny", "--skeletons", "I",
                                    "--methods", "diagram-uni", "tree-uni", "cart", "cart-pruned",
                                    "--alpha", "0.01", "0.5", "--calibrate", "diagram-uni", "--time-limit", "5"], tmp_path / "out" / "d.md")
    out = run_suite("diagrams", args)
    text, records = out.read_text(), _records(out)
    assert sorted((r["method"], r.get("alpha", -1)) for r in records) == [
        ("cart", -1), ("cart-pruned", -1), ("diagram-uni", 0.01), ("diagram-uni", 0.5), ("tree-uni", 0.01)]
    assert "| diagram-uni | 1 |" in text and "alpha = 0.01;" in text     # the protocol's rows: one alpha
    assert "## Alpha chosen on the validation split" in text and "with alpha chosen on the validation" in text
    assert (tmp_path / "out" / "models" / "tiny-s0-I-diagram-uni-a0.5.json").is_file()


def test_a_diagram_record_says_how_far_the_sat_node_bound_got():
    from optimaltrees.bench.fits import _node_bound_record

    assert _node_bound_record({"points": 3}) == {}          # no SAT phase: nothing claimed
    stats = {"sat_questions": [{"nodes": 3}, {"nodes": 2}], "sat_complete": False, "sat_seconds": 1.234}
    assert _node_bound_record(stats) == dict(sat_questions=2, sat_complete=False, sat_seconds=1.23)


# ---------------------------------------------------------------- the suites ported from benchmarks/*.py

def _suite_args(name, argv, out):
    """Parse ``argv`` as ``optimaltrees bench NAME`` would, writing to ``out``."""
    suite = suite_module(name)
    ap = argparse.ArgumentParser()
    suite.add_arguments(ap)
    args = ap.parse_args(argv)
    args.out, args.workers, args.scheduler, args.command_line = str(out), getattr(suite, "WORKERS", 1), None, "test"
    return args


@pytest.fixture
def zero_one(tmp_path):
    """A tiny label-first, whitespace-separated 0/1 file like the CP4IM and ConTree ones."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(40, 4))
    y = X[:, 0] ^ X[:, 1]
    y[:3] = 1 - y[:3]                       # noise: no depth-2 tree is perfect
    path = tmp_path / "data" / "tiny01.txt"
    path.parent.mkdir()
    path.write_text("\n".join(" ".join(map(str, [t, *r])) for r, t in zip(X, y)) + "\n")
    return path


def _records(out):
    return [json.loads(ln) for ln in out.with_suffix(".jsonl").read_text().splitlines()]


@pytest.mark.parametrize("name", ["contree", "binary", "anytime", "sat"])
def test_ported_suites_are_registered_with_one_worker(name):
    from optimaltrees.bench import SUITES

    assert SUITES.index(name) < SUITES.index("diagrams")
    assert suite_module(name).WORKERS == 1


def test_contree_suite_end_to_end(zero_one, tmp_path):
    out = tmp_path / "out" / "contree.md"
    args = _suite_args("contree", ["--data-dir", str(zero_one.parent), "--datasets", "tiny01", "--depths", "2",
                                   "--repeats", "2", "--peer", "cart"], out)
    text = run_suite("contree", args).read_text()
    records = _records(out)
    assert len(records) == 4 and all(r["status"] == "ok" for r in records)
    # the order alternates: ours first on repeat 1, the peer first on repeat 2
    first = {r["repeat"]: r["side"] for r in records if r["order"] == 1}
    assert first == {1: "ours", 2: "peer"}
    ours = [r for r in records if r["side"] == "ours"]
    assert all(r["optimal"] and r["error"] <= min(c["error"] for c in records if c["side"] == "peer") for r in ours)
    assert "| dataset | n | p | our error | peer error | errors agree |" in text
    assert "| tiny01 | 40 | 4 |" in text and "CPU ratio" in text
    assert "**Depth 2: geometric-mean ratio (ours/peer) = " in text and "max ratio = " in text
    assert "Partial report" not in text and "Skipped" not in text
    assert "![depth 2 times](contree-d2.png)" in text and (tmp_path / "out" / "contree-d2.png").is_file()


def test_contree_suite_skips_a_missing_peer_with_a_note(zero_one, tmp_path, monkeypatch):
    from optimaltrees.bench.suites import contree

    monkeypatch.setattr(contree, "missing_libraries", lambda libs: [lib for lib in libs if lib == "pycontree"])
    args = _suite_args("contree", ["--data-dir", str(zero_one.parent), "--datasets", "tiny01", "--depths", "2",
                                   "--repeats", "1"], tmp_path / "c.md")
    jobs = contree.plan(args, tmp_path)
    assert [j.fit for j in jobs] == ["tree"]
    text = contree.report([], args, tmp_path)
    assert "Skipped, not installed: pycontree" in text


def test_contree_report_shows_what_a_stopped_fit_proves(zero_one, tmp_path):
    """At a time-limited depth the table has each side's lower bound, and the
    report counts the stopped fits whose bound is above zero."""
    from optimaltrees.bench.suites import contree

    args = _suite_args("contree", ["--data-dir", str(zero_one.parent), "--datasets", "bank", "fault",
                                   "--depths", "4", "--repeats", "1", "--peer", "cart"], tmp_path / "c.md")

    def rec(name, side, error, bound, stopped):
        return dict(status="ok", dataset=name, depth=4, side=side, error=error, seconds=1.0, n=10, p=2,
                    optimal=not stopped, timed_out=stopped, lower_bound=bound)

    records = [rec("bank", "ours", 3, 3.0, False), rec("bank", "peer", 4, None, False),
               rec("fault", "ours", 40, 12.0, True), rec("fault", "peer", 50, None, True)]
    text = contree.report(records, args, tmp_path)
    assert "| dataset | n | p | our error | peer error | our lower bound | peer lower bound |" in text
    assert "| fault | 10 | 2 | 40† | 50† | 12 | – |" in text
    assert "stopped at the limit on 1 data sets; their lower bound is above 0 on 1 of them" in text


def test_binary_suite_end_to_end(zero_one, tmp_path):
    out = tmp_path / "out" / "binary.md"
    args = _suite_args("binary", ["--data-dir", str(zero_one.parent), "--datasets", "tiny01", "--depths", "2",
                                  "--repeats", "2", "--libs", "optimaltrees", "cart"], out)
    text = run_suite("binary", args).read_text()
    records = _records(out)
    assert len(records) == 4 and all(r["status"] == "ok" for r in records)
    first = {r["repeat"]: r["lib"] for r in records if r["order"] == 1}
    assert first == {1: "optimaltrees", 2: "cart"}        # the order rotates
    assert "| dataset | n | p | optimaltrees error | cart error | agree |" in text
    assert "ours/cart geometric mean = – over 0 sets proven by both" in text   # CART never proves
    assert "proven optimal — optimaltrees 1, cart 0" in text
    row = next(ln for ln in text.splitlines() if ln.startswith("| tiny01 |"))
    assert "✗" not in row and "n/a" in row
    assert (tmp_path / "out" / "binary-d2-cart.png").is_file() and "](binary-d2-cart.png)" in text


def test_anytime_suite_end_to_end(zero_one, tmp_path):
    out = tmp_path / "out" / "anytime.md"
    args = _suite_args("anytime", ["--data-dir", str(zero_one.parent), "--datasets", "tiny01", "--depth", "2",
                                   "--budget", "5", "--strategies", "discrepancy:luby", "exhaustive", "--peers"],
                       out)
    text = run_suite("anytime", args).read_text()
    records = _records(out)
    assert {r["method"] for r in records} == {"discrepancy:luby", "exhaustive", "cart"}
    assert all(r["status"] == "ok" for r in records)
    assert "## Mean normalised primal integral" in text and "| discrepancy:luby |" in text
    assert "| method | first tree (s) | first error | final error | proof (s) | PI |" in text
    assert "best known error" in text and "(proven)" in text
    picture = tmp_path / "out" / "anytime-tiny01.png"          # beside the report, named after it
    assert picture.is_file() and picture.stat().st_size > 1000
    assert "![tiny01](anytime-tiny01.png)" in text


def test_default_reports_go_to_the_suites_folder():
    """Without --out a suite writes benchmarks/results/SUITE/NAME.md: one folder per suite,
    one report per setting, so a rerun overwrites its report instead of adding a sibling."""
    from pathlib import Path

    from optimaltrees.bench import SUITES, default_report

    for name in SUITES:
        path = default_report(name)
        assert path.parent == Path("benchmarks/results") / name and path.suffix == ".md"
    args = _suite_args("anytime", ["--kind", "numeric", "--depth", "3"], None)
    assert default_report("anytime", args) == Path("benchmarks/results/anytime/numeric-d3.md")
    args = _suite_args("anytime", [], None)
    assert default_report("anytime", args) == Path("benchmarks/results/anytime/binary-d6.md")


def test_anytime_scores_peer_budget_runs_as_one_curve():
    from optimaltrees.bench.suites.anytime import _curve

    runs = [dict(status="ok", budget=10.0, seconds=3.0, error=5, optimal=True),
            dict(status="ok", budget=1.0, seconds=1.0, error=8, optimal=False),
            dict(status="ok", budget=60.0, seconds=3.1, error=5, optimal=True)]
    r = _curve("pydl85", runs, ["pydl85"])
    assert r["curve"] == [(1.0, 8), (3.0, 5)] and r["proof_s"] == 3.0


def test_sat_suite_end_to_end(tmp_path):
    rng = np.random.default_rng(2)
    rows = rng.integers(0, 3, size=(30, 3))
    label = (rows[:, 0] == rows[:, 1]).astype(int)
    path = tmp_path / "cat" / "zoo.csv"         # "zoo": its name column is dropped
    path.parent.mkdir()
    path.write_text("animal_name,a,b,c,class_type\n"
                    + "\n".join(f"n{i},{r[0]},{r[1]},{r[2]},{t}" for i, (r, t) in enumerate(zip(rows, label))) + "\n")
    out = tmp_path / "out" / "sat.md"
    args = _suite_args("sat", ["--data-dir", str(path.parent), "--datasets", "zoo", "--configs", "sat-depth",
                               "sat-depth-plain", "dp-depth", "dp-size", "--solvers", "cadical195",
                               "--repeats", "1"], out)
    text = run_suite("sat", args).read_text()
    records = _records(out)
    assert len(records) == 8 and all(r["status"] == "ok" for r in records), records
    for tests in ("auto", "onehot"):                             # all find the same smallest depth
        assert len({r["depth"] for r in records if r["tests"] == tests}) == 1
    assert ("| data | tests | config | solver | depth | nodes | examples encoded | rounds (repaired) | seconds "
            "(range) | proven |") in text
    assert "| zoo | auto | dp-size | - |" in text and "| zoo | onehot | sat-depth | cadical195 |" in text
    assert "| zoo | onehot | sat-depth-plain | cadical195 |" in text
    assert "4 / 20 / 0.2" in text and "4 / 31 / 0.047" in text   # the paper's columns
    assert "![seconds per configuration](sat.png)" in text and (tmp_path / "out" / "sat.png").is_file()


def test_sat_suite_shuffles_one_order_per_repeat(tmp_path):
    from optimaltrees.bench.suites import sat

    path = tmp_path / "car.csv"
    path.write_text("a,b\n0,0\n1,1\n")
    args = _suite_args("sat", ["--data-dir", str(tmp_path), "--datasets", "car", "--configs", "sat-depth-shuffled",
                               "sat-depth", "--tests", "auto", "--solvers", "glucose4", "--car-repeats", "3"],
                       tmp_path / "sat.md")
    jobs = sat.plan(args, tmp_path)
    shuffled = [j.params.get("random_state") for j in jobs if j.key["config"] == "sat-depth-shuffled"]
    assert shuffled == [0, 1, 2]
    assert all("random_state" not in j.params and "shuffled" not in j.params
               for j in jobs if j.key["config"] == "sat-depth")


def test_binary_report_flags_contradicting_proofs_as_a_bug(tmp_path):
    from optimaltrees.bench.suites import binary

    args = _suite_args("binary", ["--datasets", "a", "--depths", "3", "--repeats", "1",
                                  "--libs", "optimaltrees", "pystreed"], tmp_path / "b.md")
    args.skipped = []

    def rec(lib, error, seconds, optimal=True):
        return dict(dataset="a", depth=3, lib=lib, repeat=1, order=1, status="ok", error=error, seconds=seconds,
                    cpu_seconds=seconds, optimal=optimal, timed_out=not optimal, n=10, p=4, peak_rss_mb=100.0)

    text = binary.report([rec("optimaltrees", 5, 1.0), rec("pystreed", 4, 2.0)], args, tmp_path)
    assert "| a | 10 | 4 | 5 | 4 | ✗ BUG |" in text and "disagree on the error" in text
    text = binary.report([rec("optimaltrees", 4, 1.0), rec("pystreed", 4, 2.0)], args, tmp_path)
    assert "| a | 10 | 4 | 4 | 4 | ✓ |" in text
    assert "ours/pystreed geometric mean = 0.500 over 1 sets proven by both; max = 0.50 (a)" in text
    text = binary.report([rec("optimaltrees", 4, 1.0), rec("pystreed", 6, 60.0, optimal=False)], args, tmp_path)
    assert "| a | 10 | 4 | 4 | 6† | n/a |" in text and "over 0 sets proven by both" in text


# ---------------------------------------------------------------- before/after: --baseline DIR

def _our_src() -> str:
    """This checkout's src folder: the baseline of the tests is the code under test."""
    import optimaltrees
    from pathlib import Path

    return str(Path(optimaltrees.__file__).resolve().parent.parent)


def test_contree_suite_against_a_baseline_checkout(zero_one, tmp_path):
    out = tmp_path / "out" / "contree.md"
    args = _suite_args("contree", ["--data-dir", str(zero_one.parent), "--datasets", "tiny01", "--depths", "2",
                                   "--repeats", "1", "--baseline", _our_src()], out)
    text = run_suite("contree", args).read_text()
    records = _records(out)
    assert len(records) == 2 and all(r["status"] == "ok" for r in records), records
    assert {(r["side"], r["lib"], r["fit"]) for r in records} == {("ours", "optimaltrees", "tree"),
                                                                  ("peer", "baseline", "tree")}
    assert all(r["optimal"] for r in records) and len({r["error"] for r in records}) == 1
    assert "# optimaltrees before/after" in text and f"`baseline` (before) is optimaltrees from `{_our_src()}`" in text
    assert "| dataset | n | p | after error | before error | errors agree | after median s | before median s | " \
           "ratio after/before |" in text
    assert "| tiny01 | 40 | 4 | 3 | 3 | ✓ |" in text         # the 3 flipped labels
    assert "**Depth 2: geometric-mean ratio (after/before) = " in text and "max ratio = " in text
    assert "Optima identical (both proven, same error) on 1 of 1 data sets." in text
    assert "Skipped" not in text and "Notes" not in text


def test_contree_suite_at_a_node_cost_compares_objectives(zero_one, tmp_path):
    """--cost: both sides fit with that complexity_cost; the tables hold the
    objective (3 errors + 0.05 x 40 rows per branch node), not the errors."""
    out = tmp_path / "out" / "costs.md"
    args = _suite_args("contree", ["--data-dir", str(zero_one.parent), "--datasets", "tiny01", "--depths", "2",
                                   "--repeats", "1", "--baseline", _our_src(), "--cost", "0.05"], out)
    text = run_suite("contree", args).read_text()
    records = _records(out)
    assert all(r["status"] == "ok" and r["optimal"] and r["cost"] == 0.05 for r in records), records
    objectives = {r["objective"] for r in records}
    assert len(objectives) == 1
    (objective,) = objectives
    nodes = round((objective - records[0]["error"]) / (0.05 * 40))
    assert nodes >= 1 and objective == pytest.approx(records[0]["error"] + 2.0 * nodes)
    assert "# optimaltrees before/after at complexity_cost 0.05" in text
    assert f"| tiny01 | 40 | 4 | {round(objective, 6)} | {round(objective, 6)} | ✓ |" in text
    assert "Notes" not in text          # no prediction mismatch from the mapped objectives


def test_contree_suite_refuses_a_node_cost_without_a_baseline(zero_one, tmp_path):
    from optimaltrees.bench.suites import contree

    for extra, message in ((["--cost", "0.01"], "--cost needs --baseline"),
                           (["--cost", "-1", "--baseline", _our_src()], "--cost must be at least 0")):
        args = _suite_args("contree", ["--data-dir", str(zero_one.parent), "--datasets", "tiny01", "--depths", "2",
                                       *extra], tmp_path / "x.md")
        with pytest.raises(ValueError, match=message):
            contree.plan(args, tmp_path)


def test_contree_suite_two_threads_against_one(zero_one, tmp_path):
    """--baseline-jobs: the same code on both sides, two threads after, one before."""
    out = tmp_path / "out" / "contree.md"
    args = _suite_args("contree", ["--data-dir", str(zero_one.parent), "--datasets", "tiny01", "--depths", "3",
                                   "--repeats", "1", "--baseline", _our_src(), "--jobs", "2",
                                   "--baseline-jobs", "1"], out)
    text = run_suite("contree", args).read_text()
    records = _records(out)
    assert {(r["lib"], r["jobs"]) for r in records} == {("optimaltrees", 2), ("baseline", 1)}, records
    assert all(r["optimal"] for r in records) and len({r["error"] for r in records}) == 1
    assert "Threads: after n_jobs=2, before n_jobs=1." in text
    alone = _suite_args("contree", ["--data-dir", str(zero_one.parent), "--datasets", "tiny01",
                                    "--baseline-jobs", "1"], tmp_path / "x.md")
    with pytest.raises(ValueError, match="--baseline-jobs sets the threads of the --baseline side"):
        run_suite("contree", alone)


def test_binary_suite_against_a_baseline_checkout(zero_one, tmp_path):
    out = tmp_path / "out" / "binary.md"
    args = _suite_args("binary", ["--data-dir", str(zero_one.parent), "--datasets", "tiny01", "--depths", "2",
                                  "--repeats", "1", "--baseline", _our_src()], out)
    text = run_suite("binary", args).read_text()
    records = _records(out)
    assert sorted(r["lib"] for r in records) == ["baseline", "optimaltrees"]
    assert all(r["status"] == "ok" and r["optimal"] for r in records) and len({r["error"] for r in records}) == 1
    assert "| dataset | n | p | optimaltrees error | baseline error | agree |" in text
    assert "ours/baseline geometric mean = " in text and "over 1 sets proven by both" in text
    assert "errors agree (all proven, equal) on 1 of 1 sets" in text and "pystreed" not in text


def test_a_baseline_runs_from_its_own_folder_or_not_at_all(tmp_path):
    from optimaltrees.bench.common import check_baseline

    with pytest.raises(FileNotFoundError, match="no optimaltrees package in it"):
        check_baseline(str(tmp_path))
    # a folder without the package: the child refuses the optimaltrees found elsewhere
    rec = run_job(Job("idle", {"seconds": 0}, time_limit=60, path=str(tmp_path)))
    assert rec["status"] == "crashed" and f"not from {tmp_path.resolve()}" in rec["message"]
    # a (broken) package there is the one imported
    (tmp_path / "optimaltrees").mkdir()
    (tmp_path / "optimaltrees" / "__init__.py").write_text("raise ImportError('the baseline package ran')\n")
    with pytest.raises(RuntimeError, match="cannot run optimaltrees from it: .*the baseline package ran"):
        check_baseline(str(tmp_path))


def test_resume_drops_a_torn_last_record(tmp_path):
    from optimaltrees.bench import previous_records

    raw = tmp_path / "r.jsonl"
    raw.write_text('{"dataset": "a", "status": "ok"}\n{"dataset": "b", "sta')
    assert previous_records(raw) == [{"dataset": "a", "status": "ok"}]


def test_sat_table3_suite_end_to_end(tmp_path):
    # a numeric "iris" with a conflicting pair: it is dropped from the
    # training part, and every method fits every fold
    rng = np.random.default_rng(3)
    X = np.round(rng.random((40, 3)), 1)
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.3)).astype(int)
    X[1], y[1] = X[0], 1 - y[0]
    (tmp_path / "diagrams").mkdir()
    pd.DataFrame(np.column_stack([X, y]), columns=["0", "1", "2", "y"]).astype({"y": int}).to_csv(
        tmp_path / "diagrams" / "iris.csv", index=False)
    out = tmp_path / "out" / "t3.md"
    args = _suite_args("sat-table3", ["--data-root", str(tmp_path), "--datasets", "iris", "--folds", "2"], out)
    text = run_suite("sat-table3", args).read_text()
    records = _records(out)
    assert len(records) == 14 and all(r["status"] == "ok" for r in records), records
    for fold in (0, 1):                 # every route proves the same minimum depth and size
        fold_recs = {r["method"]: r for r in records if r["fold"] == fold}
        assert fold_recs["sat-depth"]["depth"] == fold_recs["auto-depth"]["depth"]
        assert fold_recs["sat-size"]["nodes"] == fold_recs["auto-size"]["nodes"]
        assert fold_recs["sat-size-binary"]["nodes"] == fold_recs["auto-size"]["nodes"]
        assert fold_recs["optimal-tree"]["depth"] <= fold_recs["auto-depth"]["depth"]
        assert all(r["train_errors"] == 0 for m, r in fold_recs.items() if m not in ("cart",))
    assert sum(r["dropped"] for r in records if r["method"] == "sat-depth") == 1
    assert "| iris | sat-depth |" in text and "0.018 s, 3, 92.9 %" in text
    assert "iris sat-depth:" in text and "the paper's 0.018 s" in text


def test_sat_table3_draw_cross_validates_rows_drawn_with_replacement(tmp_path):
    # --draw: the folds split rows drawn with replacement, so a training part
    # repeats rows (fewer distinct than rows) and its size follows the draw
    from optimaltrees.bench.fits import sat_fold

    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(30, 2))
    y = (X[:, 0] > X[:, 1]).astype(int)
    path = tmp_path / "t.csv"
    pd.DataFrame(np.column_stack([X, y]), columns=["a", "b", "y"]).to_csv(path, index=False)
    plain = sat_fold(data=str(path), method="auto-depth", fold=0, folds=5)
    drawn = sat_fold(data=str(path), method="auto-depth", fold=0, folds=5, draw=100)
    assert plain["n_train"] == 24 and plain["distinct_train"] <= 16       # 4 x 4 possible rows
    assert drawn["n_train"] == 80 and drawn["distinct_train"] <= 16
    assert drawn["train_errors"] == 0 and drawn["dropped"] == 0


def test_sat_table3_targets_count_unfinished_folds_and_flag_other_problems():
    from types import SimpleNamespace

    from optimaltrees.bench.suites.sat_table3 import _targets

    def rec(name, method, seconds, depth=3, dropped=0):
        status = "ok" if seconds is not None else "killed"
        return dict(dataset=name, method=method, status=status, seconds=seconds, depth=depth,
                    dropped=dropped)

    records = ([rec("iris", "sat-depth", t) for t in (0.01, 0.01, 0.5)]          # median 0.01: met
               + [rec("iris", "sat-size", t) for t in (0.01, None, None)]        # median: unfinished
               + [rec("wine", "sat-depth", t) for t in (0.1, 0.2, None)]         # median 0.2 (the killed fold is slowest)
               + [rec("monks2", "sat-size", None, dropped=12)] * 3
               + [rec("monks2", "auto-depth", 0.3, depth=10)] * 3)
    args = SimpleNamespace(datasets=["iris", "wine", "monks2"], limit=120.0)
    text = "\n".join(_targets(records, args))
    assert "- iris sat-depth: 0.010 s vs the paper's 0.018 s: met" in text
    assert "- iris sat-size: 2 of 3 folds without an answer in 120 s vs the paper's 0.03 s: not met" in text
    assert "- wine sat-depth: 0.200 s vs the paper's 0.6 s: met" in text
    assert ("- monks2 sat-size: 3 of 3 folds without an answer in 120 s vs the paper's 9.1 s: not met; "
            "not the paper's problem (mean depth 10 against the paper's 5.8, up to 12 conflicting rows "
            "dropped)") in text


def test_sat_artificial_suite_end_to_end(tmp_path):
    out = tmp_path / "art.md"
    args = _suite_args("sat-artificial", ["--generators", "2", "--examples", "30", "600",
                                          "--methods", "auto-size", "sat-depth", "greedy"], out)
    text = run_suite("sat-artificial", args).read_text()
    records = _records(out)
    assert len(records) == 12 and all(r["status"] == "ok" for r in records), records
    many = [r for r in records if r["examples"] == 600 and r["method"] != "greedy"]
    assert all(r["equivalent"] for r in many)      # 600 of 1,024 inputs pin a depth-5 tree down
    assert all(r["depth"] <= 5 for r in many)
    assert "| 600 | auto-size |" in text and "![time and equivalence" in text
    assert (tmp_path / "art.png").is_file()


def test_generator_trees_are_two_class_functions_of_depth_at_most_five():
    from optimaltrees.bench.fits import generator_tree

    every = ((np.arange(1024)[:, None] >> np.arange(10)) & 1).astype(float)
    for seed in range(5):
        labels = generator_tree(seed)(every)
        assert set(np.unique(labels)) == {0, 1}
        # the smallest perfect tree of the full truth table is the generator's depth
        from optimaltrees import SATTreeClassifier
        assert SATTreeClassifier("depth", categorical="none").fit(every, labels).depth_ <= 5


def test_missing_suite_end_to_end(tmp_path):
    """Raw text columns, one-hot groups folded back, 10 % removed: the three
    methods run on the same split and the report has a row per table."""
    rng = np.random.default_rng(0)
    n = 80
    colour = rng.choice(["red", "green", "blue"], n)
    size = rng.normal(size=n)
    y = ((colour == "red") & (size > 0)).astype(int)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "shop.csv").write_text(
        "colour,size,k_a,k_b,y\n" + "\n".join(
            f"{c},{s:.4f},{int(i % 3 == 1)},{int(i % 3 == 2)},{t}" for i, (c, s, t) in enumerate(zip(colour, size, y)))
        + "\n")
    out = tmp_path / "missing.md"
    args = _suite_args("missing", ["--data-dir", str(tmp_path / "data"), "--datasets", "shop.csv",
                                   "--seeds", "0", "1", "--depth", "2"], out)
    text = run_suite("missing", args).read_text()
    records = _records(out)
    assert len(records) == 6 and all(r["status"] == "ok" for r in records), records
    assert {r["categorical"] for r in records} == {2}          # colour, and k folded from k_a / k_b
    assert all(0.05 < r["missing_share"] < 0.15 for r in records)
    assert all(r["optimal"] for r in records if r["method"].startswith("optimal"))
    assert "| shop | 80 | 3 | 2 | " in text and "(2/2 proven)" in text


def test_fold_one_hot_keeps_the_dropped_level():
    from optimaltrees.bench.fits import fold_one_hot

    frame = pd.DataFrame({"a_x": [1, 0, 0], "a_y": [0, 1, 0], "b": [0.5, 1.5, 2.5], "c_1": [1, 1, 0]})
    folded = fold_one_hot(frame)
    assert list(folded.columns) == ["a", "b", "c_1"]         # a lone c_1 is not a group
    assert folded["a"].tolist() == ["x", "y", "other"]


def test_scale_suite_end_to_end(tmp_path):
    """Synthetic rows and a jittered replicate of a small table, exact and
    binned (and pycontree when installed): a table per (kind, depth), an
    exponent and a plot."""
    (tmp_path / "data").mkdir()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    y = (X[:, 0] > 0).astype(int)
    (tmp_path / "data" / "tiny.txt").write_text("\n".join(" ".join([str(t)] + [f"{v:.5f}" for v in row])
                                                          for t, row in zip(y, X)) + "\n")
    out = tmp_path / "scale.md"
    args = _suite_args("scale", ["--kinds", "synthetic", "tiny", "--data-dir", str(tmp_path / "data"),
                                 "--rows", "300", "3000", "--depths", "2", "--bins", "16", "--time-limit", "60",
                                 "--slope-from", "300"], out)
    text = run_suite("scale", args).read_text()
    records = _records(out)
    assert all(r["status"] == "ok" for r in records), records
    exact = {(r["kind"], r["rows"]): r for r in records if r["side"] == "exact"}
    binned = {(r["kind"], r["rows"]): r for r in records if r["side"] == "binned"}
    assert len(exact) == len(binned) == 4 and all(r["optimal"] for r in exact.values())
    # the binned optimum is over fewer thresholds: never below the exact one
    assert all(binned[k]["error"] >= exact[k]["error"] for k in exact)
    for r in records:
        if r["side"] == "pycontree":
            assert r["error"] == exact[(r["kind"], r["rows"])]["error"]
    assert "## synthetic, depth 2" in text and "## tiny, depth 2" in text and "Growth exponent" in text
    assert "Memory per row x feature" in text and " B (" in text
    assert (tmp_path / "scale-synthetic-d2.png").is_file()


def test_scale_suite_jobs_reach_the_fits(tmp_path):
    """``--jobs 2``: the optimaltrees fits run two threads (their stats say
    so), find the same optimum, and the report says how many threads ran."""
    out = tmp_path / "scale.md"
    args = _suite_args("scale", ["--rows", "400", "--depths", "2", "--time-limit", "60", "--jobs", "2",
                                 "--sides", "exact", "binned", "--bins", "8"], out)
    text = run_suite("scale", args).read_text()
    records = _records(out)
    assert {r["side"] for r in records} == {"exact", "binned"}
    assert all(r["status"] == "ok" and r["threads"] == 2 for r in records), records
    from optimaltrees import OptimalTreeClassifier
    from optimaltrees.bench.fits import scale_data

    X, y = scale_data("synthetic", 400)
    one = OptimalTreeClassifier(max_depth=2).fit(X, y)
    exact = next(r for r in records if r["side"] == "exact")
    assert exact["optimal"] and exact["error"] == one.train_error_
    assert "use 2 thread(s)" in text


def test_scale_slope_is_the_log_log_exponent():
    from optimaltrees.bench.suites.scale import slope

    assert slope([(10, 1.0), (100, 10.0), (1000, 100.0)]) == pytest.approx(1.0)
    assert slope([(1000, 2.0), (10000, 200.0)]) == pytest.approx(2.0)
    assert slope([(1000, 2.0)]) is None


def _diagrams_monks_copy(path, train_rows, train_labels):
    """Write rows of MONK's attributes (values 1..k) and their classes in the
    diagrams copy's layout: class as feature "0" (-1/0), a1..a5 one-hot
    without their first value, a6 - 1 as the label "y", the training rows
    followed by the whole attribute grid (labelled by the MONK's-2 concept)."""
    import itertools

    grid = np.array(list(itertools.product(range(1, 4), range(1, 4), range(1, 3), range(1, 4),
                                           range(1, 5), range(1, 3))))
    rows = np.vstack([train_rows, grid])
    labels = np.concatenate([train_labels, ((grid == 1).sum(axis=1) == 2).astype(int)])
    cols = {"0": labels - 1}
    for j, k in enumerate((3, 3, 2, 3, 4)):
        names = [f"{j + 1}_{v}" for v in range(1, k)] if k > 2 else [f"{j + 1}"]
        for v, name in enumerate(names, start=2):
            cols[name] = (rows[:, j] == v).astype(int)
    cols["y"] = rows[:, 5] - 1
    pd.DataFrame(cols).to_csv(path, index=False)
    return grid


def test_uci_monks_recovers_the_training_set_from_the_shifted_diagrams_copy(tmp_path):
    # the diagrams copy swaps the class and a6: decoding gives back exactly the
    # training rows and classes, and any other layout is refused by name
    from optimaltrees.bench.data import uci_monks

    rng = np.random.default_rng(7)
    path = tmp_path / "monks3.csv"
    grid = _diagrams_monks_copy(path, np.zeros((0, 6), dtype=int), np.zeros(0, dtype=int))
    train = grid[rng.choice(len(grid), size=122, replace=False)]
    labels = rng.integers(0, 2, size=122)
    _diagrams_monks_copy(path, train, labels)
    X, y = uci_monks(str(path), "monks3")
    assert list(X.columns) == ["a1", "a2", "a3", "a4", "a5", "a6"]
    np.testing.assert_array_equal(X.to_numpy(), train)
    np.testing.assert_array_equal(y, labels)
    with pytest.raises(ValueError, match="169 training rows followed by the 432"):
        uci_monks(str(path), "monks2")                  # 122 training rows, not 169
    frame = pd.read_csv(path)
    frame.iloc[-1, 1:] = frame.iloc[-2, 1:].to_numpy()  # the test part is not the grid
    frame.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ValueError, match="attribute combinations"):
        uci_monks(str(tmp_path / "bad.csv"), "monks3")
    frame = pd.read_csv(path).rename(columns={"0": "class"})
    frame.to_csv(tmp_path / "renamed.csv", index=False)
    with pytest.raises(ValueError, match="expected the diagrams copy's"):
        uci_monks(str(tmp_path / "renamed.csv"), "monks3")
    with pytest.raises(ValueError, match="no MONK's training set"):
        uci_monks(str(path), "monks1")


def test_sat_table3_cross_validates_monks2_as_its_uci_training_set(tmp_path):
    # the suite reads monks2 through the decoder: folds of its 169 training
    # rows, consistent (nothing dropped), perfect trees of the concept's data
    rng = np.random.default_rng(11)
    (tmp_path / "diagrams").mkdir()
    path = tmp_path / "diagrams" / "monks2.csv"
    grid = _diagrams_monks_copy(path, np.zeros((0, 6), dtype=int), np.zeros(0, dtype=int))
    train = grid[rng.choice(len(grid), size=169, replace=False)]
    _diagrams_monks_copy(path, train, ((train == 1).sum(axis=1) == 2).astype(int))
    out = tmp_path / "out" / "t3.md"
    args = _suite_args("sat-table3", ["--data-root", str(tmp_path), "--datasets", "monks2", "--folds", "2",
                                      "--methods", "auto-depth", "sat-depth"], out)
    text = run_suite("sat-table3", args).read_text()
    records = _records(out)
    assert len(records) == 4 and all(r["status"] == "ok" for r in records), records
    assert {r["n_train"] for r in records} <= {84, 85} and all(r["dropped"] == 0 for r in records)
    assert all(r["train_errors"] == 0 for r in records)
    by = {(r["method"], r["fold"]): r["depth"] for r in records}
    assert by["sat-depth", 0] == by["auto-depth", 0] and by["sat-depth", 1] == by["auto-depth", 1]
    assert "| monks2 | sat-depth |" in text and "monks2: the UCI training sets (169 rows;" in text


def test_sat_table3_half_splits_train_on_half_and_test_on_a_quarter(tmp_path):
    # --splits half: each "fold" is its own stratified half / quarter / quarter
    # split (the paper's split files); the training half is disjoint from the
    # test quarter, and different folds draw different halves
    from optimaltrees.bench.fits import sat_fold

    rng = np.random.default_rng(2)
    X = rng.integers(0, 50, size=(80, 2))
    y = np.where(X[:, 0] > X[:, 1], "yes", "no")          # string classes
    path = tmp_path / "t.csv"
    pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": y}).to_csv(path, index=False)
    recs = [sat_fold(data=str(path), method="auto-depth", fold=f, folds=5, splits="half") for f in (0, 1)]
    cv = sat_fold(data=str(path), method="auto-depth", fold=0, folds=5)
    assert [r["n_train"] for r in recs] == [40, 40] and cv["n_train"] == 64
    assert all(r["train_errors"] == 0 for r in recs)
    with pytest.raises(ValueError, match="splits must be"):
        sat_fold(data=str(path), method="auto-depth", fold=0, splits="thirds")
    out = tmp_path / "out" / "t3.md"
    (tmp_path / "diagrams").mkdir()
    pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": y}).to_csv(tmp_path / "diagrams" / "iris.csv", index=False)
    args = _suite_args("sat-table3", ["--data-root", str(tmp_path), "--datasets", "iris", "--folds", "2",
                                      "--methods", "auto-depth", "--splits", "half"], out)
    text = run_suite("sat-table3", args).read_text()
    assert [r["n_train"] for r in _records(out)] == [40, 40]
    assert "2 stratified splits into halves and quarters" in text and "1.6x the paper's rows" not in text


def test_binary_suite_measures_the_fewest_node_tie_break_against_the_first_optimum(zero_one, tmp_path):
    out = tmp_path / "out" / "binary.md"
    args = _suite_args("binary", ["--data-dir", str(zero_one.parent), "--datasets", "tiny01", "--depths", "3",
                                  "--repeats", "1", "--baseline", _our_src(), "--tie-break", "fewest_nodes"], out)
    text = run_suite("binary", args).read_text()
    records = {r["lib"]: r for r in _records(out)}
    assert records["optimaltrees"]["tie_break"] == "fewest_nodes"
    assert records["baseline"]["tie_break"] == "first_found"
    assert records["optimaltrees"]["error"] == records["baseline"]["error"]
    assert records["optimaltrees"]["leaves"] <= records["baseline"]["leaves"]
    assert 'fits with `tie_break="fewest_nodes"` (its default)' in text
    assert "depth 3: ours has fewer leaves than baseline on " in text and " of 1 sets" in text
    plain = run_suite("binary", _suite_args("binary", ["--data-dir", str(zero_one.parent), "--datasets", "tiny01",
                                                      "--depths", "2", "--repeats", "1", "--libs", "optimaltrees"],
                                            tmp_path / "plain" / "binary.md")).read_text()
    assert 'fits with `tie_break="first_found"`: like the peers' in plain
