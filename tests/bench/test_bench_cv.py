"""Cross-validation sweeps on the benchmark runner, and a cluster given by address."""
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
    records = run_jobs(jobs, workers=2)
    assert all(r["status"] == "ok" for r in records)
    # the 3 test folds partition the 60 rows; depth 1 separates the classes exactly
    assert sum(r["n_test"] for r in records if r["setting"] == "depth 1") == 60
    assert all(r["test_acc"] == 1.0 for r in records if r["setting"] == "depth 1")
    text = cv.report(records, args, tmp_path)
    assert "| **depth 1** (best) | 3 | 1.0000 ± 0.0000 |" in text
    assert (tmp_path / "cv-t-tree.png").is_file()
    with pytest.raises(ValueError, match="--folds must be at least 2"):
        cv.plan(ap.parse_args(["--data", str(table), "--folds", "1"]), tmp_path)


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
