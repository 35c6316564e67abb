"""Regression on the command line: ``fit --task``, the auto rule and the line
that reports it, ``predict`` and ``show`` of a regression model, and the
one-line errors for what a regression fit cannot do."""
from __future__ import annotations

import numpy as np
import pytest

from optimaltrees import OptimalTreeClassifier, OptimalTreeRegressor
from optimaltrees.cli import MANY_CLASSES, main
from optimaltrees.data.tables import read_table
from optimaltrees.io import load_model


def _write(path, text):
    path.write_text(text)
    return str(path)


@pytest.fixture
def prices(tmp_path):
    """A numeric column, a categorical one and one with missing values; the
    label is a price in cents (not integers)."""
    rng = np.random.default_rng(0)
    rows = ["rooms,colour,age,price"]
    for i in range(60):
        rooms, colour = int(rng.integers(1, 7)), str(rng.choice(["red", "green", "blue"]))
        age = "" if i % 11 == 0 else f"{rng.integers(0, 50)}"
        price = 50 * rooms + (30 if colour == "red" else 0) + round(float(rng.normal(0, 2)), 2)
        rows.append(f"{rooms},{colour},{age},{price:.2f}")
    return _write(tmp_path / "prices.csv", "\n".join(rows) + "\n")


def _integer_label(tmp_path, distinct: int, name="counts.csv"):
    """Integer labels with ``distinct`` values, 2 rows each."""
    x = np.arange(2 * distinct)
    rows = ["x,count"] + [f"{v},{v // 2}" for v in x]
    return _write(tmp_path / name, "\n".join(rows) + "\n")


def _out_lines(capsys):
    captured = capsys.readouterr()
    return captured.out.splitlines(), captured.err


# ------------------------------------------------------------------ fit, predict, show

def test_fit_predict_show_a_regression_tree(tmp_path, prices, capsys):
    model = str(tmp_path / "m.json")
    assert main(["fit", prices, "--depth", "2", "--out", model, "--png", str(tmp_path / "m.png"),
                 "--trace-png", str(tmp_path / "t.svg")]) == 0
    out, err = _out_lines(capsys)
    table = read_table(prices, allow_missing=True)
    expected = OptimalTreeRegressor(max_depth=2).fit(table.X, table.y)
    distinct = len(np.unique(table.y))
    assert out[0] == f"task: regression (label 'price' is numeric with {distinct} distinct values, not all integers)"
    assert sum(line.startswith("task: ") for line in out) == 1
    text = "\n".join(out)
    assert expected.export_text() in text and "value: " in text
    r2 = expected.score(table.X, table.y)
    assert (f"training R^2: {r2:.4f} (squared error {expected.train_error_:.6g}, "
            f"RMSE {(expected.train_error_ / 60) ** 0.5:.6g} on 60 rows)") in out
    assert any(line.startswith("objective ") and line.endswith("proven optimal") for line in out)
    assert err == ""
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and (tmp_path / "t.svg").stat().st_size > 1000
    fitted = load_model(model)
    assert type(fitted) is OptimalTreeRegressor and fitted.objective_ == expected.objective_

    assert main(["predict", model, prices]) == 0
    out, err = _out_lines(capsys)
    np.testing.assert_array_equal(np.array(out, dtype=float), expected.predict(table.X))   # every digit
    assert err == f"R^2: {r2:.4f}, RMSE: {(expected.train_error_ / 60) ** 0.5:.6g} on 60 rows\n"

    assert main(["show", model]) == 0
    assert capsys.readouterr().out == expected.export_text() + "\n"
    assert main(["show", model, "--dot"]) == 0
    assert capsys.readouterr().out.startswith("digraph Tree {")
    assert main(["show", model, "--png", str(tmp_path / "s.svg")]) == 0
    assert (tmp_path / "s.svg").stat().st_size > 1000


def test_predict_a_file_without_the_label_and_to_a_file(tmp_path, prices, capsys):
    model = str(tmp_path / "m.json")
    assert main(["fit", prices, "--depth", "2", "--out", model]) == 0
    lines = open(prices).read().splitlines()
    features = _write(tmp_path / "x.csv", "\n".join(ln.rsplit(",", 1)[0] for ln in lines) + "\n")
    capsys.readouterr()
    assert main(["predict", model, features, "--out", str(tmp_path / "p.txt")]) == 0
    out, err = _out_lines(capsys)
    assert out == ["60 predictions written to " + str(tmp_path / "p.txt")] and err == ""
    table = read_table(prices, allow_missing=True)
    expected = load_model(model).predict(table.X)
    np.testing.assert_array_equal(np.array((tmp_path / "p.txt").read_text().split(), dtype=float), expected)


def test_weighted_regression(tmp_path, capsys):
    rng = np.random.default_rng(2)
    x, w = rng.random(40), rng.integers(0, 4, 40)
    y = np.where(x > 0.5, 10.5, 1.25) + rng.normal(0, 0.3, 40)
    data = _write(tmp_path / "w.csv", "x,w,y\n" + "\n".join(f"{a:.4f},{b},{c:.3f}" for a, b, c in zip(x, w, y)) + "\n")
    assert main(["fit", data, "--depth", "1", "--weight", "w"]) == 0
    out, _ = _out_lines(capsys)
    table = read_table(data)
    expected = OptimalTreeRegressor(max_depth=1).fit(table.X[["x"]], table.y, sample_weight=w)
    r2 = expected.score(table.X[["x"]], table.y, sample_weight=w)
    assert (f"weighted training R^2: {r2:.4f} (weighted squared error {expected.train_error_:.6g} "
            f"of {expected.total_sse_:.6g})") in out


# ------------------------------------------------------------------ the auto rule, and overriding it

def test_many_integer_values_are_a_regression_target_and_the_override(tmp_path, capsys):
    data = _integer_label(tmp_path, MANY_CLASSES + 1)
    assert main(["fit", data, "--depth", "1"]) == 0
    out, _ = _out_lines(capsys)
    assert out[0] == (f"task: regression (label 'count' is numeric with {MANY_CLASSES + 1} distinct values; "
                      "--task classification to override)")
    assert any(line.startswith("training R^2: ") for line in out)
    assert main(["fit", data, "--depth", "1", "--task", "classification"]) == 0
    out, err = _out_lines(capsys)
    assert out[0] == "task: classification (--task classification)"
    assert any(line.startswith("training accuracy: ") for line in out)
    # the classifier's warning names the command line's flag, not a Python class
    assert f"{MANY_CLASSES + 1} distinct numeric values" in err and "use --task regression" in err


def test_few_integer_values_are_classes_and_the_override(tmp_path, capsys):
    data = _integer_label(tmp_path, MANY_CLASSES)
    model = str(tmp_path / "m.json")
    assert main(["fit", data, "--depth", "1", "--out", model]) == 0
    out, _ = _out_lines(capsys)
    assert out[0] == (f"task: classification (label 'count' has {MANY_CLASSES} distinct integer values; "
                      "--task regression to override)")
    assert type(load_model(model)) is OptimalTreeClassifier
    assert main(["fit", data, "--depth", "1", "--task", "regression", "--out", model]) == 0
    out, _ = _out_lines(capsys)
    assert out[0] == "task: regression (--task regression)"
    assert type(load_model(model)) is OptimalTreeRegressor
    assert main(["predict", model, data]) == 0
    assert capsys.readouterr().err.startswith("R^2: ")


def test_text_labels_are_classes(tmp_path, capsys):
    data = _write(tmp_path / "t.csv", "x,kind\n1,a\n2,a\n3,b\n4,b\n")
    assert main(["fit", data, "--depth", "1"]) == 0
    assert _out_lines(capsys)[0][0] == "task: classification (label 'kind' is text, 2 distinct values)"


def test_the_auto_threshold_is_the_classifiers():
    from optimaltrees.data.validation import MANY_NUMERIC_CLASSES

    assert MANY_CLASSES == MANY_NUMERIC_CLASSES


# ------------------------------------------------------------------ what a regression fit cannot do

@pytest.mark.parametrize("argv, message", [
    (["--task", "regression", "--method", "sat"],
     "--task regression: regression trees need --method tree (--method sat classifies only)"),
    (["--method", "diagram", "{counts}"], "label 'count' looks like a regression target (--task auto chose "
                                          "regression): regression trees need --method tree (--method diagram "
                                          "classifies only); --task classification treats each value as a class"),
    (["--class-weight", "balanced"], "--class-weight weighs classes, and a regression tree has none"),
    (["--task", "regression", "--label", "colour"], "--task regression: label 'colour' holds text ('"),
])
def test_regression_errors_are_one_line(tmp_path, prices, capsys, argv, message):
    data = _integer_label(tmp_path, MANY_CLASSES + 1) if "{counts}" in argv else prices
    argv = [a for a in argv if a != "{counts}"]
    assert main(["fit", data, *argv]) == 1
    captured = capsys.readouterr()
    assert message in captured.err and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert "task: " not in captured.out


def test_predict_refuses_probabilities_and_text_labels_of_a_regression_model(tmp_path, prices, capsys):
    model = str(tmp_path / "m.json")
    assert main(["fit", prices, "--depth", "1", "--out", model]) == 0
    capsys.readouterr()
    assert main(["predict", model, prices, "--proba"]) == 1
    err = capsys.readouterr().err
    assert "--proba: " in err and "predicts numbers, not class probabilities" in err and err.count("\n") == 1
    lines = open(prices).read().splitlines()
    texts = _write(tmp_path / "t.csv", "\n".join([lines[0]] + [ln.rsplit(",", 1)[0] + ",cheap" for ln in lines[1:]]))
    assert main(["predict", model, texts]) == 1
    captured = capsys.readouterr()
    assert "the label column 'price' holds text ('cheap')" in captured.err and captured.out == ""


def test_help_names_the_task(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    out = capsys.readouterr().out
    assert "--task {auto,classification,regression}" in out and f"more than {MANY_CLASSES} distinct" in out


def test_an_anytime_regression_fit_with_progress(tmp_path, prices, capsys):
    model = str(tmp_path / "m.json")
    assert main(["fit", prices, "--depth", "2", "--strategy", "blossom", "--verbose", "--time-limit", "30",
                 "--out", model]) == 0
    out, err = _out_lines(capsys)
    assert out[0].startswith("task: regression") and "value: " in "\n".join(out)
    assert "gap" in err                                   # the live progress line
    assert load_model(model).search == "blossom"
