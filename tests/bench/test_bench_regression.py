"""The regression suite: its data, its plan, a smoke run, and the checks of its report."""
from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from optimaltrees.bench import SUITES, run_suite, suite_module
from optimaltrees.bench.data import (holdout_rows, quantile_binarise, regression_table, synthetic_name,
                                     synthetic_regression)
from optimaltrees.bench.fits import regression as regression_fit
from optimaltrees.bench.suites import regression


def _args(argv, out):
    ap = argparse.ArgumentParser()
    regression.add_arguments(ap)
    args = ap.parse_args(argv)
    args.out, args.workers, args.scheduler, args.command_line = str(out), 1, None, "test"
    return args


@pytest.fixture
def tiny_bank(tmp_path):
    """A 60-row label-first file named like a suite set (bank: feature 3 is the target)."""
    rng = np.random.default_rng(0)
    X = rng.random((60, 4)).round(3)
    label = (X[:, 0] > 0.5).astype(int)
    X[:, 3] = (0.6 * X[:, 0] + 0.4 * label + 0.05 * rng.random(60)).round(3)
    path = tmp_path / "data" / "bank.txt"
    path.parent.mkdir()
    path.write_text("\n".join(" ".join(map(str, [t, *r])) for r, t in zip(X, label)) + "\n")
    return path


def test_the_suite_is_registered_with_one_worker():
    assert "regression" in SUITES and suite_module("regression").WORKERS == 1
    assert set(regression.DATASETS) == set(regression.TARGETS) and len(regression.DATASETS) >= 6


def test_a_feature_column_becomes_the_target_and_the_label_a_feature(tiny_bank):
    raw = np.loadtxt(tiny_bank)
    X, y, names = regression_table(str(tiny_bank), 3)
    assert np.array_equal(y, raw[:, 4]) and X.shape == (60, 4) and names[-1] == "label"
    assert np.array_equal(X[:, :3], raw[:, 1:4]) and np.array_equal(X[:, 3], raw[:, 0])
    X, y, names = regression_table("sklearn:diabetes")
    assert X.shape == (442, 10) and y.shape == (442,) and names[0] == "age"
    with pytest.raises(ValueError, match="target must be one of its feature columns"):
        regression_table(str(tiny_bank), 4)


def test_quantile_binarisation_is_0_1_without_constant_columns():
    X = np.column_stack([np.arange(100.0), np.repeat([0.0, 1.0], 50), np.full(100, 7.0)])
    B, tests = quantile_binarise(X, 3)
    assert B.dtype == np.int32 and set(np.unique(B)) == {0, 1}
    assert 0 < B.sum(axis=0).min() and B.sum(axis=0).max() < 100           # no constant column
    assert [j for j, _ in tests] == [0, 0, 0, 1]                           # the constant column gives none
    for col, (j, q) in zip(B.T, tests):
        assert np.array_equal(col, (X[:, j] <= q).astype(np.int32))
    train, test = holdout_rows(10, 0, 0.3)
    assert len(test) == 3 and sorted(np.concatenate([train, test])) == list(range(10))
    assert np.array_equal(test, holdout_rows(10, 0, 0.3)[1])


def test_the_synthetic_table_is_the_same_for_a_seed():
    X, y = synthetic_regression(500, 6, 3)
    again, y_again = synthetic_regression(500, 6, 3)
    assert X.shape == (500, 6) and y.shape == (500,)
    assert np.array_equal(X, again) and np.array_equal(y, y_again)
    other, _ = synthetic_regression(500, 6, 4)
    assert not np.array_equal(X, other)
    # the recipe the report states: X first, then the noise, from one generator
    rng = np.random.default_rng(3)
    assert np.array_equal(X, rng.standard_normal((500, 6)))
    signal = 2 * np.sin(X[:, 0]) + X[:, 1] ** 2 + 1.5 * (X[:, 2] > 0.5)
    assert np.array_equal(y, signal + 0.5 * rng.standard_normal(500))
    assert all(len(np.unique(col)) == 500 for col in X.T)                 # every threshold distinct
    T, t, names = regression_table(synthetic_name(500, 6, 3))
    assert np.array_equal(T, X) and np.array_equal(t, y) and names == [f"x{j}" for j in range(6)]
    with pytest.raises(ValueError, match="at least 2 rows and 3 features"):
        synthetic_regression(500, 2)
    with pytest.raises(ValueError, match="synthetic:ROWSxFEATURES:SEED"):
        regression_table("synthetic:500:3")


def test_a_synthetic_fit_records_its_size_and_beats_or_ties_cart():
    data = synthetic_name(400, 5, 0)
    ours = regression_fit(lib="optimaltrees", data=data, depth=2, time_limit=60.0)
    cart = regression_fit(lib="cart", data=data, depth=2)
    assert (ours["rows"], ours["features"], cart["rows"], cart["features"]) == (400, 5, 400, 5)
    assert ours["optimal"] and ours["error"] <= cart["error"] + 1e-9 * ours["sst"]
    assert "test_r2" not in ours


def test_the_order_alternates_and_every_part_has_its_peer(tiny_bank, tmp_path):
    args = _args(["--data-dir", str(tiny_bank.parent), "--datasets", "bank", "--binary-depths", "2",
                  "--raw-depths", "2", "--repeats", "2"], tmp_path / "r.md")
    jobs = regression.plan(args, tmp_path)
    assert len(jobs) == 12 and args.planned == 12          # the scale part is in the default
    for part, peer in (("binary", "pystreed"), ("raw", "cart"), ("scale", "cart")):
        mine = [j for j in jobs if j.key["part"] == part]
        assert {j.params["lib"] for j in mine} == {"optimaltrees", peer}
        first = {j.key["repeat"]: j.key["side"] for j in mine if j.key["order"] == 1}
        assert first == {1: "ours", 2: "peer"}
    binary = [j for j in jobs if j.key["part"] == "binary"]
    assert all(j.params["thresholds"] == 8 and j.params["time_limit"] == 300 for j in binary)
    raw = [j for j in jobs if j.key["part"] == "raw"]
    assert all(j.params["test_share"] == 0.3 and "thresholds" not in j.params for j in raw)


def test_the_scale_part_plans_a_synthetic_table_without_data_files(tmp_path):
    args = _args(["--data-dir", str(tmp_path / "nowhere"), "--parts", "scale", "--scale-rows", "5000",
                  "--scale-features", "4", "--scale-seed", "7", "--scale-depths", "2", "3",
                  "--scale-time-limit", "20", "--repeats", "2"], tmp_path / "r.md")
    jobs = regression.plan(args, tmp_path)
    assert len(jobs) == 8 and {j.key["part"] for j in jobs} == {"scale"}
    assert {j.params["data"] for j in jobs} == {j.key["table"] for j in jobs} == {"synthetic:5000x4:7"}
    assert sorted({j.key["depth"] for j in jobs}) == [2, 3] and {j.key["dataset"] for j in jobs} == {"synthetic"}
    for j in jobs:               # all rows, our limit only; the runner's limit is a safety net for CART
        assert "test_share" not in j.params and "thresholds" not in j.params and j.params["target"] is None
        assert j.params["time_limit"] == (20.0 if j.key["side"] == "ours" else None) and j.time_limit == 20.0
    for depth in (2, 3):
        first = {j.key["repeat"]: j.key["side"] for j in jobs if j.key["depth"] == depth and j.key["order"] == 1}
        assert first == {1: "ours", 2: "peer"}
    args = _args(["--parts", "scale", "--scale-features", "2"], tmp_path / "r.md")
    with pytest.raises(ValueError, match="--scale-features at least 3"):
        regression.plan(args, tmp_path)


def test_smoke_run_on_diabetes_and_a_tiny_set(tiny_bank, tmp_path):
    out = tmp_path / "out" / "regression.md"
    args = _args(["--data-dir", str(tiny_bank.parent), "--datasets", "diabetes", "bank", "--binary-depths", "2",
                  "--raw-depths", "2", "--repeats", "1", "--parts", "binary", "raw"], out)
    text = run_suite("regression", args).read_text()
    records = [json.loads(ln) for ln in out.with_suffix(".jsonl").read_text().splitlines()]
    assert len(records) == 8 and all(r["status"] == "ok" for r in records), records
    ours = [r for r in records if r["lib"] == "optimaltrees"]
    assert all(r["optimal"] and abs(r["sse_reported"] - r["error"]) <= 1e-9 * r["sst"] for r in ours)
    for name in ("diabetes", "bank"):                # the same problem: the same optimum
        sse = [r["error"] for r in records if r["part"] == "binary" and r["dataset"] == name]
        assert len(sse) == 2 and abs(sse[0] - sse[1]) <= 1e-9 * records[0]["sst"]
    assert ("| dataset | n | features | 0/1 columns | ours SSE | pystreed SSE | SSE agree | ours median s | "
            "pystreed median s | ratio ours/pystreed |") in text
    assert ("| dataset | train rows | held-out rows | features | ours SSE | CART SSE | ours ≤ CART | "
            "SSE ours/CART | ours test R² | CART test R² |") in text
    assert "| diabetes | 442 | 10 | target | disease progression |" in text
    assert "0/1 features, depth 2: geometric-mean time ratio ours/pystreed = " in text
    assert "SSE agree on 2 of 2 sets both proved; no disagreement" in text
    assert "raw features, depth 2: ours proven on 2 of 2 sets; SSE at most CART's on 2 of 2" in text
    assert "✗" not in text.split("Legend:")[0] and "Partial report" not in text
    assert "](regression-pystreed.png)" in text and (tmp_path / "out" / "regression-pystreed.png").is_file()


def _rec(part, side, sse, *, proven=True, seconds=1.0, name="a", depth=3, sst=100.0, **extra):
    lib = "optimaltrees" if side == "ours" else regression.PEER[part]
    return dict(part=part, dataset=name, depth=depth, side=side, lib=lib, repeat=1, order=1, status="ok", error=sse,
                seconds=seconds, cpu_seconds=seconds, optimal=proven, timed_out=not proven, n=50, p=20, features=4,
                rows=50, sst=sst, peak_rss_mb=150.0, rss_before_fit_mb=149.0, **extra)


def test_the_report_flags_a_disagreement_with_pystreed(tmp_path):
    args = _args(["--datasets", "bank", "--parts", "binary", "--binary-depths", "3", "--repeats", "1"],
                 tmp_path / "r.md")
    args.skipped = []
    text = regression.report([_rec("binary", "ours", 5.0, name="bank"),
                              _rec("binary", "peer", 4.0, seconds=2.0, name="bank")], args, tmp_path)
    section = text.split("## The same 0/1 features")[1]
    row = next(ln for ln in section.splitlines() if ln.startswith("| bank |"))
    assert row.startswith("| bank | 50 | 4 | 20 | 5 | 4 | ✗ BUG | 1.000 | 2.000 | 0.50 |")
    assert "**DISAGREE on bank**" in text and "a correctness failure" in text.split("## Notes")[1]
    # equal within the tolerance (1e-9 of the total sum of squares): they agree
    text = regression.report([_rec("binary", "ours", 4.0 + 5e-8, name="bank"),
                              _rec("binary", "peer", 4.0, seconds=2.0, name="bank")], args, tmp_path)
    assert "| ✓ |" in text and "time ratio ours/pystreed = 0.500 over 1 data sets" in text
    assert "SSE agree on 1 of 1 sets both proved; no disagreement" in text and "## Notes" not in text
    # a proven optimum beaten by an unproven tree is a failure too; above it, not
    text = regression.report([_rec("binary", "ours", 5.0, name="bank"),
                              _rec("binary", "peer", 4.0, proven=False, name="bank")], args, tmp_path)
    assert "✗ BUG" in text
    text = regression.report([_rec("binary", "ours", 4.0, name="bank"),
                              _rec("binary", "peer", 5.0, proven=False, name="bank")], args, tmp_path)
    assert "| 4 | 5† | n/a |" in text and "SSE agree on 0 of 0 sets both proved" in text


def test_the_report_flags_a_proven_tree_above_cart(tmp_path):
    args = _args(["--datasets", "bank", "--parts", "raw", "--raw-depths", "2", "--repeats", "1"], tmp_path / "r.md")
    args.skipped = []

    def recs(ours, cart, proven=True):
        return [_rec("raw", "ours", ours, proven=proven, name="bank", depth=2, test_r2=0.5, gap=0.0, n_test=20),
                _rec("raw", "peer", cart, proven=False, name="bank", depth=2, test_r2=0.4, n_test=20)]

    text = regression.report(recs(6.0, 5.0), args, tmp_path)
    assert "| 6 | 5 | ✗ BUG | 1.200 | 0.500 | 0.400 |" in text and "a proven optimum above CART's on bank" in text
    text = regression.report(recs(4.0, 5.0), args, tmp_path)
    assert "| 4 | 5 | ✓ | 0.800 |" in text and "SSE at most CART's on 1 of 1" in text
    assert "mean held-out R² ours 0.500, CART 0.400" in text
    text = regression.report(recs(6.0, 5.0, proven=False), args, tmp_path)
    assert "| 6† | 5 | above† |" in text and "✗ BUG |" not in text


def test_a_missing_peer_is_skipped_with_a_note(tiny_bank, tmp_path, monkeypatch):
    monkeypatch.setattr(regression, "missing_libraries", lambda libs: [lib for lib in libs if lib == "pystreed"])
    args = _args(["--data-dir", str(tiny_bank.parent), "--datasets", "bank", "--repeats", "1"], tmp_path / "r.md")
    jobs = regression.plan(args, tmp_path)
    assert {j.params["lib"] for j in jobs} == {"optimaltrees", "cart"}
    assert "Skipped, not installed: pystreed" in regression.report([], args, tmp_path)


def _scale_recs(ours_s=(8.0, 9.0), cart_sse=260.0, ours_sse=250.0, proven=True, table="synthetic:100000x10:0"):
    """Fake records of the scale part at depth 2: ours with these seconds, CART once per repeat."""
    recs = []
    for k, seconds in enumerate(ours_s, 1):
        for side, sse, mb, s in (("ours", ours_sse, 220.0, seconds), ("peer", cart_sse, 180.0, 0.3)):
            rec = _rec("scale", side, sse, proven=proven and side == "ours", seconds=s, name="synthetic", depth=2,
                       sst=1000.0, table=table)
            recs.append({**rec, "rows": 100_000, "features": 10, "repeat": k, "peak_rss_mb": mb,
                         "timed_out": side == "ours" and not proven})       # CART has no limit
    return recs


def test_the_scale_report_says_whether_the_target_was_met(tmp_path):
    args = _args(["--parts", "scale", "--repeats", "2"], tmp_path / "r.md")
    args.skipped = []
    text = regression.report(_scale_recs(), args, tmp_path)
    assert "## Data" not in text and "Libraries: optimaltrees " in text
    assert ("- scale, depth 2: 100,000 × 10 proven in 8.500 s (target 30 s; 2 of 2 fits met it); "
            "SSE at most CART's: ✓") in text
    assert ("| rows | features | depth | ours median s | proven | proven within 30 s | ours SSE | CART SSE | "
            "ours ≤ CART | CART median s | ours peak MB | CART peak MB |") in text
    assert "| 100,000 | 10 | 2 | 8.500 | yes | 2 of 2 | 250 | 260 | ✓ | 0.300 | 220 | 180 |" in text
    # the table's recipe, with the size and seed filled in
    assert "`X = rng.standard_normal((100000, 10))`" in text and "default_rng(0)" in text
    assert "## Notes" not in text
    # one fit over the target, proven all the same
    text = regression.report(_scale_recs(ours_s=(8.0, 31.0)), args, tmp_path)
    assert "| 2 of 2 |" not in text and "proven in 19.5 s (target 30 s; 1 of 2 fits met it)" in text
    # not proven: the SSE is an upper bound, the target is missed
    text = regression.report(_scale_recs(ours_s=(60.0, 60.0), proven=False), args, tmp_path)
    assert "not proven within the 60 s limit, SSE 250† (target 30 s; 0 of 2 fits met it)" in text
    assert "| 60.0† | no | 0 of 2 | 250† | 260 | ✓ |" in text
    # a proven optimum above CART's is a correctness failure
    text = regression.report(_scale_recs(ours_sse=270.0), args, tmp_path)
    assert "SSE at most CART's: ✗ BUG" in text and "a correctness failure" in text.split("## Notes")[1]
    # records of another table (a resumed run with another size) are not this table's
    text = regression.report(_scale_recs(table="synthetic:5000x10:0"), args, tmp_path)
    assert "- scale," not in text and "| 100,000 |" not in text
