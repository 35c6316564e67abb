"""The selection suite: its data list, its encodings, a smoke run on tiny
files, and the arithmetic of its summary on hand-made records.  No test
reads the shared data: the files are written to tmp_path in its layout."""
from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from optimaltrees.bench import SUITES, run_suite, suite_module
from optimaltrees.bench.fits_selection import cart_grid, one_hot, read_set, split_set, zero_one
from optimaltrees.bench.fits_selection import ours as ours_fit
from optimaltrees.bench.suites import selection


def _args(argv, out):
    ap = argparse.ArgumentParser()
    selection.add_arguments(ap)
    args = ap.parse_args(argv)
    args.out, args.workers, args.scheduler, args.command_line = str(out), 1, None, "test"
    return args


@pytest.fixture
def shared(tmp_path):
    """A tiny copy of the shared folder's layout: a numeric set (bank), a
    categorical one with a name column and a byte-order mark (zoo) and a
    diagrams one (iris), 60 rows each, two classes learnable at depth 2."""
    rng = np.random.default_rng(0)
    root = tmp_path / "datasets"
    X = rng.random((60, 3)).round(3)
    label = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.6)).astype(int)
    (root / "continuous" / "full").mkdir(parents=True)
    (root / "continuous" / "full" / "bank.txt").write_text(
        "\n".join(" ".join(map(str, [t, *r])) for r, t in zip(X, label)) + "\n")
    colours = rng.choice(["red", "green", "blue"], 60)
    sizes = rng.integers(1, 4, 60)
    (root / "categorical").mkdir()
    lines = ["animal_name,colour,size,legs,class_type"] + [
        f"animal{i},{c},{s},{int(4 * (i % 2))},{int(c == 'red' or s == 3)}"
        for i, (c, s) in enumerate(zip(colours, sizes))]
    (root / "categorical" / "zoo.csv").write_text("\ufeff" + "\n".join(lines) + "\n", encoding="utf-8")
    (root / "diagrams").mkdir()
    lines = ["0,1,2_a,2_b,y"] + [f"{a:.3f},{b:.3f},{int(c)},{int(not c)},{t}"
                                 for (a, b, _), c, t in zip(X, X[:, 2] > 0.5, label)]
    (root / "diagrams" / "iris.csv").write_text("\n".join(lines) + "\n")
    return root


def test_the_suite_is_registered_with_one_worker():
    assert "selection" in SUITES and suite_module("selection").WORKERS == 1


def test_the_data_list_has_twenty_sets_from_every_collection():
    data = selection.DATASETS
    assert len(data) >= 20
    collections = {collection for collection, _, _ in data.values()}
    assert collections == {"numeric", "binary", "categorical", "diagrams"}
    folder = {"numeric": "continuous/full/", "binary": "binary/", "categorical": "categorical/",
              "diagrams": "diagrams/"}
    assert all(file.startswith(folder[collection]) for collection, file, _ in data.values())
    assert len({file for _, file, _ in data.values()}) == len(data)
    assert data["zoo"][2] == ("animal_name",)
    args = _args([], "r.md")
    assert args.datasets == list(data) and args.time_limit == 120 and args.depth == 4 and args.folds == 5


def test_each_collection_is_read_as_it_is_meant(shared):
    import pandas as pd

    X, y = read_set(str(shared / "continuous/full/bank.txt"), "numeric")
    raw = np.loadtxt(shared / "continuous/full/bank.txt")
    assert X.shape == (60, 3) and np.array_equal(X.to_numpy(), raw[:, 1:]) and np.array_equal(y, raw[:, 0])
    X, y = read_set(str(shared / "categorical/zoo.csv"), "categorical", ("animal_name",))
    assert list(X.columns) == ["colour", "size", "legs"]           # the mark does not stick to a name
    assert not any(pd.api.types.is_numeric_dtype(X[c]) for c in X.columns) and set(X["size"]) == {"1", "2", "3"}
    with pytest.raises(ValueError, match="no column 'name'"):
        read_set(str(shared / "categorical/zoo.csv"), "categorical", ("name",))
    X, y = read_set(str(shared / "diagrams/iris.csv"), "diagrams")
    assert list(X.columns) == ["0", "1", "2_a", "2_b"] and X.dtypes.map(lambda t: t.kind == "f" or t.kind == "i").all()
    train, test = split_set(y, 0.3, 0)
    assert len(test) == 18 and sorted(np.concatenate([train, test])) == list(range(60))
    assert np.abs(np.bincount(y[test]) - 0.3 * np.bincount(y)).max() < 1            # stratified


def test_the_encodings_are_fitted_on_the_training_rows():
    import pandas as pd

    Xtr = pd.DataFrame({"x": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], "c": ["a", "b", "a", "b", "a", "a"]})
    Xte = pd.DataFrame({"x": [0.15, 0.55], "c": ["b", "z"]})            # z: never seen in training
    Atr, Ate, names = one_hot(Xtr, Xte)
    assert names == ["x", "c=a", "c=b"] and Ate.tolist() == [[0.15, 0.0, 1.0], [0.55, 0.0, 0.0]]
    Btr, Bte = zero_one(Xtr, Xte, 2)
    # quantiles of the training column (levels 1/3, 2/3: 0.2 and 0.4), then the dummies
    assert Btr.dtype == np.int32 and Btr.shape == (6, 4)
    assert Btr[:, 0].tolist() == [1, 1, 0, 0, 0, 0] and Btr[:, 1].tolist() == [1, 1, 1, 1, 0, 0]
    assert Bte.tolist() == [[1, 1, 0, 1], [0, 0, 0, 0]]


def test_carts_grid_is_each_depths_pruning_path():
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(1)
    X = rng.random((80, 3))
    y = (X[:, 0] + 0.3 * rng.random(80) > 0.6).astype(int)
    grid = cart_grid(X, y, 3)
    assert [g["max_depth"] for g in grid] == [[1], [2], [3]]
    for g in grid:
        path = DecisionTreeClassifier(max_depth=g["max_depth"][0], random_state=0).cost_complexity_pruning_path(X, y)
        assert g["ccp_alpha"] == sorted(set(np.clip(path.ccp_alphas, 0, None).tolist()))
        assert min(g["ccp_alpha"]) == 0.0


def test_ours_records_what_it_chose_and_what_is_proven(shared):
    rec = ours_fit(data=str(shared / "continuous/full/bank.txt"), collection="numeric", depth=2, time_limit=30)
    assert rec["n_train"] == 42 and rec["n_test"] == 18 and 1 <= rec["depth"] <= 2 and rec["cost"] >= 0
    assert rec["fold_trees"] == 5 * rec["candidates"] and rec["fold_trees_proven"] == rec["fold_trees"]
    assert rec["paths"] == 2 * 6 and rec["paths_stopped"] == 0 and not rec["timed_out"] and rec["optimal"]
    assert 0 <= rec["test_acc"] <= 1 and rec["leaves"] >= 1


def test_the_plan_and_a_missing_peer(shared, tmp_path, monkeypatch):
    args = _args(["--data-dir", str(shared), "--datasets", "bank", "zoo", "--time-limit", "30"], tmp_path / "r.md")
    jobs = selection.plan(args, tmp_path)
    assert [(j.key["dataset"], j.key["method"]) for j in jobs] == [
        (d, m) for d in ("bank", "zoo") for m in ("ours", "one_fit", "cart", "pystreed")]
    for j in jobs:
        assert j.fit == f"optimaltrees.bench.fits_selection:{j.key['method']}" and j.time_limit == 30
        assert ("time_limit" in j.params) == (j.key["method"] != "cart")
        assert ("folds" in j.params) == (j.key["method"] in ("ours", "cart"))
    assert next(j for j in jobs if j.key["dataset"] == "zoo").params["drop"] == ["animal_name"]
    monkeypatch.setattr(selection, "missing_libraries", lambda libs: [lib for lib in libs if lib == "pystreed"])
    jobs = selection.plan(args, tmp_path)
    assert {j.key["method"] for j in jobs} == {"ours", "one_fit", "cart"}
    text = selection.report([], args, tmp_path)
    assert "Skipped, not installed: pystreed" in text
    with pytest.raises(FileNotFoundError, match="no data file"):
        selection.plan(_args(["--data-dir", str(shared), "--datasets", "vote"], tmp_path / "r.md"), tmp_path)


def test_smoke_run_of_the_whole_suite(shared, tmp_path):
    out = tmp_path / "out" / "selection.md"
    # one set (each fit is a process of its own, seconds of start-up): the categorical one, with text
    # columns for every encoding; the other collections are read above
    args = _args(["--data-dir", str(shared), "--datasets", "zoo", "--depth", "2", "--time-limit", "30"], out)
    text = run_suite("selection", args).read_text()
    records = [json.loads(ln) for ln in out.with_suffix(".jsonl").read_text().splitlines()]
    assert len(records) == 4 and all(r["status"] == "ok" for r in records), records
    assert {r["n_train"] for r in records} == {42}                  # one split for every method
    assert ("| dataset | collection | rows | features | ours acc | CART acc | pystreed acc | ours leaves | "
            "CART leaves | pystreed leaves | ours s | CART s | pystreed s | one fit s | CV / one fit | "
            "ours proven |") in text
    assert "| zoo | categorical | 60 | 3 |" in text
    assert "| zoo | categorical | `categorical/zoo.csv` | 60 | 3 | 3 | 2 | 42 / 18 | column animal_name dropped" in text
    assert "| sets with a result | 1 | 1 | 1 |" in text and "### Targets" in text
    assert {r["encoded_columns"] for r in records if r["method"] in ("cart", "pystreed")} == {3 + 3 + 2}
    assert "Partial report" not in text and "Runs without a result" not in text


def _recs(name, rows, accs, leaves, seconds, one_fit_s, *, timed_out=False):
    """Records of one set: ours, one fit, CART, pystreed (accs, leaves, seconds in that order, without the one fit)."""
    out = []
    for method, acc, n, s in zip(("ours", "cart", "pystreed"), accs, leaves, seconds):
        out.append(dict(dataset=name, method=method, status="ok", rows=rows, features=4, test_acc=acc, leaves=n,
                        seconds=s, timed_out=timed_out and method == "ours", fold_trees=10, fold_trees_proven=10))
    out.append(dict(dataset=name, method="one_fit", status="ok", rows=rows, features=4, test_acc=0.5, leaves=16,
                    seconds=one_fit_s, timed_out=False))
    return out


def _summary_args(tmp_path, names):
    args = _args(["--datasets", *names], tmp_path / "r.md")
    args.skipped = []
    return args


def test_the_summary_arithmetic(tmp_path):
    names = ["bank", "vote", "car", "iris"]
    records = (_recs("bank", 1372, (0.90, 0.80, 0.85), (4, 8, 6), (2.0, 0.1, 1.0), 1.0)
               + _recs("vote", 435, (0.70, 0.70, 0.60), (3, 5, 3), (8.0, 0.1, 1.0), 0.5)     # a tie counts
               + _recs("car", 1728, (0.60, 0.80, 0.70), (10, 7, 9), (121.0, 0.1, 1.0), 4.0, timed_out=True)
               + _recs("iris", 6000, (0.96, 0.90, 0.93), (3, 4, 6), (500.0, 0.1, 1.0), 5.0))   # over 5,000 rows
    s = selection.summarise(records, names, list(selection.METHODS))
    assert s["pair"] == s["common"] == names and s["wins"] == ["bank", "vote", "iris"]
    assert s["pair_means"]["ours"]["acc"] == pytest.approx(0.79)
    assert s["pair_means"]["cart"]["leaves"] == pytest.approx(6.0)
    assert s["common_means"]["pystreed"]["acc"] == pytest.approx(0.77)
    assert s["ratio"] == pytest.approx((2.0 * 16.0 * 30.25 * 100.0) ** 0.25)
    assert s["largest"] == (121.0, "car") and s["small"] == 3 and s["over"] == ["car"]
    assert s["limited"]["ours"] == ["car"]
    # ≥ CART on 75 % of the sets; mean accuracy below CART's; fewer leaves; 121 s > 120 s; 17.6× > 10×
    assert [flag for _, _, flag in selection.targets(s)] == [True, False, True, False, False]
    text = selection.report(records, _summary_args(tmp_path, names), tmp_path)
    assert "| mean held-out accuracy, the 4 sets all finished | 0.790 | 0.800 | 0.770 |" in text
    assert "| mean leaves, the 4 sets all finished | 5.0 | 6.0 | 6.0 |" in text
    assert "- ours ≥ tuned CART in held-out accuracy on 3 of 4 sets (75 %)" in text
    assert "| held-out accuracy at least tuned CART's on ≥ 70 % of the sets | 3 of 4 sets (75 %) | **yes** |" in text
    assert "| mean held-out accuracy at least tuned CART's | 0.790 vs 0.800 | **no** |" in text
    assert "geometric mean of ours' seconds / one depth-4 fit's seconds: 18 over 4 sets" in text
    assert ("| the CV estimator within 120 s on every set of at most 5,000 rows | largest 121.0 s (car); over 120 s "
            "on 1 of 3 sets | **no** |") in text
    assert "- ours: the time limit stopped some cost-complexity path on 1 of 4 sets: car" in text
    assert "| car | categorical | 1728 | 4 | 0.600 | 0.800 | 0.700 | 10 | 7 | 9 | 121.0† |" in text


def test_a_set_without_a_result_is_left_out_of_the_means_and_named(tmp_path):
    names = ["bank", "vote"]
    records = _recs("bank", 1372, (0.90, 0.80, 0.85), (4, 8, 6), (2.0, 0.1, 1.0), 1.0)
    vote = _recs("vote", 435, (0.70, 0.70, 0.60), (3, 5, 3), (8.0, 0.1, 1.0), 0.5)
    crash = ("exit code 1: The passed value -0.01 is not in the allowed range for float parameter time | "
             "The allowed range is [0, 2.14748e+09]")
    vote[2] = dict(dataset="vote", method="pystreed", status="crashed", message=crash)
    s = selection.summarise(records + vote, names, list(selection.METHODS))
    assert s["common"] == ["bank"] and s["pair"] == names and s["results"]["pystreed"] == 1
    text = selection.report(records + vote, _summary_args(tmp_path, names), tmp_path)
    assert "| mean held-out accuracy, the 1 sets all finished | 0.900 | 0.800 | 0.850 |" in text
    assert "| mean held-out accuracy, the 2 sets ours and CART finished | 0.800 | 0.750 |  |" in text
    assert "- vote, pystreed: crashed exit code 1" in text and "pystreed on vote: its hyper_tune used up" in text
    assert "| vote | binary | 435 | 4 | 0.700 | 0.700 | – |" in text
    # ours without a result on a small set: the time target is not met, whatever the other sets took
    vote[0] = dict(dataset="vote", method="ours", status="killed", message="no answer")
    s = selection.summarise(records + vote, names, list(selection.METHODS))
    assert s["unfinished"] == ["vote"] and selection.targets(s)[3][2] is False
    assert "no result on vote" in selection.targets(s)[3][1]
