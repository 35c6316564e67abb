"""The exports suite: its tables, its synthetic table, a smoke run and its report's counts."""
from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd

from optimaltrees.bench import SUITES, run_suite
from optimaltrees.bench.fits_exports import (EXPORTS, _column_thresholds, exports_agreement, mixed_table,
                                             random_rows)
from optimaltrees.bench.suites import exports

from optimaltrees import OptimalTreeClassifier


def _args(argv, out):
    ap = argparse.ArgumentParser()
    exports.add_arguments(ap)
    args = ap.parse_args(argv)
    args.out, args.workers, args.scheduler, args.command_line = str(out), 1, None, "test"
    return args


def test_the_suite_covers_numeric_bundled_and_categorical_tables():
    assert "exports" in SUITES
    names = exports.DATASETS
    assert sum(n.startswith("continuous/") for n in names) == 11
    assert {"bundled:bank.txt", "bundled:mouse.csv"} <= set(names)
    assert any(n.startswith("synthetic:") for n in names)


def test_the_mixed_table_is_the_same_for_a_seed_and_has_what_it_says():
    X, y = mixed_table(300, 4)
    again, y_again = mixed_table(300, 4)
    pd.testing.assert_frame_equal(X, again)
    assert np.array_equal(y, y_again)
    assert X["colour"].isna().any() and X["size"].isna().any() and X["level"].isna().any()
    assert "ünï ☃" in set(X["colour"].dropna()) and set(y) == {"yes", "maybe", "no"}


def test_random_rows_reach_the_thresholds_only_when_asked():
    X, y = mixed_table(300, 1)
    model = OptimalTreeClassifier(max_depth=3).fit(X, y)
    plain = random_rows(X, model, 500, 0)
    edges = random_rows(X, model, 500, 0, edges=True)
    assert list(plain.columns) == list(X.columns) and len(plain) == 500
    assert "an unseen value" in set(plain["colour"].dropna())
    thresholds = _column_thresholds(model)
    assert thresholds                        # the label reads size > 1: the tree splits on a number
    for j, ts in thresholds.items():
        column = X.columns[j]
        assert np.isin(edges[column].to_numpy(dtype=float), ts).sum() > 0
        assert np.isin(plain[column].to_numpy(dtype=float), ts).sum() <= np.isin(X[column], ts).sum() * 500


def test_every_export_agrees_on_a_small_mixed_table():
    record = exports_agreement(data="synthetic:400", depth=2, time_limit=10, random=300)
    assert record["categorical"] and record["missing"]
    for export in EXPORTS:
        result = record[export]
        assert result["train"] == 400 and result["random"] == 300, (export, result)
        if export != "to_sklearn":
            assert result["edges"] == 300, (export, result)


def test_smoke_run_and_report(tmp_path):
    out = tmp_path / "out" / "exports.md"
    args = _args(["--datasets", "synthetic:300", "bundled:bank.txt", "--random", "200", "--time-limit", "10"], out)
    text = run_suite("exports", args).read_text()
    records = [json.loads(ln) for ln in out.with_suffix(".jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(r["status"] == "ok" for r in records), records
    assert "- 10 of 10 (table, export) pairs predict as `predict` on every training row and every random row" in text
    assert "| synthetic:300 | 300 | 4 | yes | yes |" in text
    assert "synthetic:ROWS is a table made from the seed" in text
