"""``optimaltrees cv``: the candidates' table, the chosen tree (the same as
the estimator's), its model file, and one-line errors."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from optimaltrees import OptimalTreeClassifierCV, OptimalTreeRegressorCV
from optimaltrees.cli import main
from optimaltrees.io import load_model


@pytest.fixture
def table(tmp_path):
    """A numeric column with missing values, a text column, a 0/1 label."""
    rng = np.random.default_rng(0)
    a = np.round(rng.normal(size=150), 3)
    colour = rng.choice(["red", "green", "blue"], 150)
    label = ((a > 0.3) | (colour == "red")).astype(int)
    text = pd.Series(a).astype(str)
    text[::13] = ""
    path = tmp_path / "t.csv"
    pd.DataFrame({"a": text, "colour": colour, "label": label}).to_csv(path, index=False)
    return str(path)


def test_cv_prints_the_candidates_and_saves_the_chosen_tree(tmp_path, table, capsys):
    model = str(tmp_path / "m.json")
    assert main(["cv", table, "--depth", "2", "--folds", "3", "--out", model]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("task: classification")
    assert "mean accuracy" in lines[1] and "proven folds" in lines[1]
    chosen = [line for line in lines if line.startswith("*")]
    assert len(chosen) == 1
    assert any(line.startswith("chosen (best, 3 folds): depth ") for line in lines)
    assert "model saved to" in out
    # the estimator on the same table chooses the same
    from optimaltrees.data.tables import read_table

    data = read_table(table, label="label", allow_missing=True)
    search = OptimalTreeClassifierCV(max_depth=2, cv=3).fit(data.X, data.y)
    saved = load_model(model)
    np.testing.assert_array_equal(saved.predict(data.X), search.predict(data.X))
    assert saved.export_text() == search.export_text()
    assert main(["predict", model, table]) == 0


def test_cv_regression_reports_r2(tmp_path, capsys):
    rng = np.random.default_rng(1)
    x = rng.normal(size=90)
    y = np.where(x > 0, 10.0, 0.0) + rng.normal(scale=0.5, size=90)
    path = tmp_path / "r.csv"
    pd.DataFrame({"x": x, "y": y}).to_csv(path, index=False)
    assert main(["cv", str(path), "--depth", "2", "--folds", "3", "--select", "1se"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("task: regression")
    assert "mean R^2" in out and "chosen (1se, 3 folds)" in out and "training R^2" in out
    search = OptimalTreeRegressorCV(max_depth=2, cv=3, select="1se").fit(x.reshape(-1, 1), y)
    assert f"mean R^2 {search.best_score_:.4f}" in out


@pytest.mark.parametrize("argv, message", [
    (["--folds", "200"], "--folds 200 folds, but class"),
    (["--depth", "0"], "--depth must be an int in the range [1, 30]"),
    (["--folds", "1"], "--folds must be"),
    (["--jobs", "0"], "--jobs must be"),
])
def test_cv_errors_are_one_line(table, capsys, argv, message):
    assert main(["cv", table] + argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("optimaltrees cv: error: ") and message in err
    assert err.count("\n") == 1
