"""Cross-validation sweeps (local persistent workers; one process per fit on
--scheduler), the runner on a cluster given by address, and cv against
scikit-learn's GridSearchCV."""
from __future__ import annotations

import argparse
import importlib

import numpy as np
import pytest


from optimaltrees.bench.runner import Job, run_jobs  # noqa: E402


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(2)
    X = rng.integers(0, 4, size=(60, 2))
    y = np.where(X[:, 0] >= 2, "a", "b")
    path = tmp_path / "t.csv"
    path.write_text("p,q,label\n" + "\n".join(f"{r[0]},{r[1]},{t}" for r, t in zip(X, y)) + "\n")
    return path


def test_cross_validation_sweep(table, tmp_path):
    cv = importlib.import_module("optimaltrees.bench.suites.cv")
    ap = argparse.ArgumentParser()
    cv.add_arguments(ap)
    args = ap.parse_args(["--data", str(table), "--depths", "0", "1", "--folds", "3", "--time-limit", "20"])
    args.workers, args.scheduler, args.command_line = 2, None, "test"
    jobs = cv.plan(args, tmp_path)
    assert len(jobs) == 6 and {j.key["fold"] for j in jobs} == {0, 1, 2}
    seen = []
    records = cv.run_local(args, jobs, seen.append)
    assert len(seen) == 6
    assert all(r["status"] == "ok" for r in records)
    # the 3 test folds partition the 60 rows; depth 1 separates the classes exactly
    assert sum(r["n_test"] for r in records if r["setting"] == "depth 1") == 60
    assert all(r["test_acc"] == 1.0 for r in records if r["setting"] == "depth 1")
    text = cv.report(records, args, tmp_path)
    assert "| **depth 1** (best) | 3 | 1.0000 ± 0.0000 |" in text
    assert (tmp_path / "cv-t-tree.png").is_file()
    with pytest.raises(ValueError, match="--folds must be at least 2"):
        cv.plan(ap.parse_args(["--data", str(table), "--folds", "1"]), tmp_path)
    # with --scheduler a fold is a job of its own process (the Dask path): the same record
    from optimaltrees.bench.runner import run_job

    alone = run_job(jobs[-1])
    assert alone["status"] == "ok" and alone["test_acc"] == records[-1]["test_acc"]
    assert alone["n_test"] == records[-1]["n_test"]


def test_runner_on_a_scheduler_address():
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0") as cluster:
        records = run_jobs([Job("idle", {"seconds": 0.1}, key={"i": i}, time_limit=30) for i in range(2)],
                           scheduler=cluster.scheduler_address)
    assert [r["i"] for r in records] == [0, 1] and all(r["status"] == "ok" for r in records)


def test_stopping_a_suite_stops_its_fits():
    """An exception in the driver (as Ctrl-C would raise) kills the running fits."""
    import time

    from optimaltrees.bench import runner

    def stop(record):
        raise KeyboardInterrupt

    jobs = [Job("idle", {"seconds": 0.1}, time_limit=60)] + [Job("idle", {"seconds": 60}, time_limit=120)]
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        run_jobs(jobs, workers=2, on_record=stop)
    assert time.perf_counter() - start < 30
    assert not runner._LIVE


# ------------------------------------------------------------------ the sweep on local workers

def _records(out):
    import json

    return [json.loads(ln) for ln in out.with_suffix(".jsonl").read_text().splitlines()]


def test_cv_scores_are_grid_search_scores(tmp_path, capsys):
    """`optimaltrees bench cv` and GridSearchCV on the same folds: the same
    test accuracy for every depth and fold (both fit the proven optimum)."""
    import lzma
    import re

    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from conftest import dataset_path
    from optimaltrees import OptimalTreeClassifier
    from optimaltrees.cli import main
    from optimaltrees.data.tables import read_table

    path = tmp_path / "bank.txt"
    path.write_bytes(lzma.decompress(dataset_path("continuous/train", "bank.txt").read_bytes()))
    out = tmp_path / "results" / "cv.md"
    assert main(["bench", "cv", "--data", str(path), "--depths", "1", "2", "3", "--folds", "5",
                 "--out", str(out)]) == 0
    records = _records(out)
    assert len(records) == 15 and all(r["status"] == "ok" and r["optimal"] for r in records)

    table = read_table(path)
    grid = GridSearchCV(OptimalTreeClassifier(time_limit=60), {"max_depth": [1, 2, 3]}, scoring="accuracy",
                        cv=StratifiedKFold(5, shuffle=True, random_state=0), refit=False).fit(table.numeric(), table.y)
    for i, depth in enumerate([1, 2, 3]):
        ours = [r["test_acc"] for r in sorted((r for r in records if r["setting"] == f"depth {depth}"),
                                              key=lambda r: r["fold"])]
        assert ours == [grid.cv_results_[f"split{k}_test_score"][i] for k in range(5)]

    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 15
    pattern = re.compile(r"\[(\d+)/15\] depth [123], fold [1-5]/5: test accuracy 0\.\d{3}, train 0\.\d{3}, "
                         r"proven optimal \(\d+\.\d\d s\)")
    assert all(pattern.fullmatch(ln) for ln in lines), lines
    assert [int(pattern.fullmatch(ln)[1]) for ln in lines] == list(range(1, 16))
    assert f"report written to {out.resolve()}" in captured.out
    text = out.read_text()
    assert "2 local worker process(es)" in text
    assert (out.parent / "cv-bank-tree.png").is_file() and "Partial report" not in text


def test_cv_report_goes_to_benchmarks_results_by_default(table, tmp_path, monkeypatch, capsys):
    from optimaltrees.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["bench", "cv", "--data", str(table), "--depths", "1", "--folds", "2", "--workers", "1"]) == 0
    out = tmp_path / "benchmarks" / "results" / "cv" / "cv.md"      # the suite's own folder
    assert out.is_file() and f"report written to {out}" in capsys.readouterr().out
    assert [r["test_acc"] for r in _records(out)] == [1.0, 1.0]


def test_cv_with_a_bad_file_fails_before_any_fit(tmp_path, capsys):
    from optimaltrees.cli import main

    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,y\n1,2,0\n3,?,1\n")
    assert main(["bench", "cv", "--data", str(bad), "--out", str(tmp_path / "cv.md")]) == 1
    captured = capsys.readouterr()
    assert "column 'b' has missing values (line 3)" in captured.err and "[1/" not in captured.err


def test_workers_kill_a_fit_past_its_limit_and_go_on():
    import time

    from optimaltrees.bench.runner import run_jobs_in_workers

    jobs = [Job("idle", {"seconds": 30}, key={"i": 0}, time_limit=0.3, grace=0.3),
            Job("no_such_fit", {}, key={"i": 1}, time_limit=30),
            Job("idle", {"seconds": 0}, key={"i": 2}, time_limit=30)]
    seen = []
    start = time.perf_counter()
    records = run_jobs_in_workers(jobs, workers=1, on_record=seen.append)
    assert time.perf_counter() - start < 20
    assert [r["i"] for r in records] == [0, 1, 2] and len(seen) == 3
    assert [r["status"] for r in records] == ["killed", "failed", "ok"]
    assert "unknown fit" in records[1]["message"] and "within 0.6 s" in records[0]["message"]


def test_cv_flags_are_checked_before_any_fit(tmp_path, capsys):
    from optimaltrees.cli import main
    path = tmp_path / "d.csv"
    path.write_text("a,y\n1,0\n2,1\n3,0\n4,1\n")
    assert main(["bench", "cv", "--data", str(path), "--method", "diagram", "--skeletons", "a",
                 "--out", str(tmp_path / "r.md")]) == 1
    assert "--skeletons: 'a' is not layer widths" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bench", "cv", "--data", str(path), "--strategy", "bogus", "--out", str(tmp_path / "r.md")])
    assert "invalid choice: 'bogus'" in capsys.readouterr().err
    assert not (tmp_path / "r.md").exists()
