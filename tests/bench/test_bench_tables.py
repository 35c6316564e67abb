"""The ``tables`` suite end to end on two tiny tables at the suite's paths:
a one-hot diagrams-style file and a numeric label-first file."""
from __future__ import annotations

import json

import numpy as np
import pytest

from optimaltrees.bench import run_suite
from optimaltrees.bench.fits_tables import imputed_one_hot, mixed_table
from test_bench import _suite_args


@pytest.fixture
def shared(tmp_path):
    rng = np.random.default_rng(3)
    root = tmp_path / "datasets"
    numeric = root / "continuous" / "train" / "bank.txt"
    numeric.parent.mkdir(parents=True)
    X = rng.random((60, 4))
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    numeric.write_text("\n".join(" ".join(map(str, [t, *r])) for r, t in zip(X, y)) + "\n")
    onehot = root / "diagrams" / "statlog-german-credit.csv"
    onehot.parent.mkdir()
    level = rng.integers(0, 3, 50)
    amount = rng.random(50).round(3)
    label = ((level == 1) | (amount > 0.8)).astype(int)
    rows = ["0,1_a,1_b,1_c,y"] + [f"{a},{int(v == 0)},{int(v == 1)},{int(v == 2)},{t}"
                                   for a, v, t in zip(amount, level, label)]
    onehot.write_text("\n".join(rows) + "\n")
    return root


def test_tables_are_mixed_and_the_peers_get_their_encoding(shared):
    X, y = mixed_table(str(shared / "continuous" / "train" / "bank.txt"), "mixed", 0.1)
    assert list(X.dtypes.map(lambda t: t.kind)) == ["f", "O", "f", "f"]
    assert X["x1"].dropna().str.startswith("level-").all() and X["x1"].nunique() == 6
    assert 0.02 < X.isna().to_numpy().mean() < 0.2
    real, _ = mixed_table(str(shared / "diagrams" / "statlog-german-credit.csv"), "real", 0.0)
    assert list(real.columns) == ["0", "1"] and set(real["1"]) == {"a", "b", "c"}
    encoded = imputed_one_hot(X)
    assert encoded.shape == (60, 3 + 6) and not np.isnan(encoded).any()
    binary = imputed_one_hot(X, 4)
    assert set(np.unique(binary)) <= {0.0, 1.0}


def test_tables_suite_end_to_end(shared, tmp_path):
    out = tmp_path / "out" / "tables.md"
    args = _suite_args("tables", ["--data-dir", str(shared), "--datasets", "bank-mixed", "german-credit",
                                  "--depths", "2", "--time-limits", "20"], out)
    text = run_suite("tables", args).read_text()
    records = [json.loads(line) for line in out.with_suffix(".jsonl").read_text().splitlines()]
    assert len(records) == 6 and all(r["status"] == "ok" for r in records), records
    ours = [r for r in records if r["lib"] == "optimaltrees"]
    assert all(r["optimal"] and r["lower_bound"] == r["error"] and r["gap"] == 0 for r in ours)
    assert "## Depth 2, 20 s" in text and "| bank-mixed | 60 | 4 (1) |" in text
    assert "depth 2, 20 s: proven — optimaltrees 2, pycontree 2, pystreed 2 of 2 tables" in text
    assert "our gap at most 10 % on 2 of 2 tables" in text


def test_an_identifier_column_is_measured_against_its_absence(shared, tmp_path):
    X, _ = mixed_table(str(shared / "continuous" / "train" / "bank.txt"), "mixed-id", 0.0)
    assert X["name"].nunique() > 0.5 * len(X)
    out = tmp_path / "out" / "tables.md"
    args = _suite_args("tables", ["--data-dir", str(shared), "--datasets", "bank-mixed", "bank-mixed-id",
                                  "--depths", "2", "--time-limits", "20", "--libs", "optimaltrees"], out)
    text = run_suite("tables", args).read_text()
    assert "depth 2, 20 s: an identifier-like column costs " in text and "× its absence (bank-mixed)" in text
