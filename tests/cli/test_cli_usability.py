"""A user's first hour on the command line: --help and --version
answer at once, a bad output path fails before the fit, messages name the
flags, and an identifier column is pointed out."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import optimaltrees
import optimaltrees.cli as cli
from optimaltrees.cli import flag_words, main

SRC = str(Path(optimaltrees.__file__).resolve().parent.parent)
HEAVY = {"sklearn", "pandas", "matplotlib", "dask", "distributed", "scipy"}


def _run(argv: list[str]) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run the command line in a fresh interpreter; also return the modules it loaded."""
    code = ("import json, sys\n"
            "from optimaltrees.cli import main\n"
            "try:\n"
            f"    main({argv!r})\n"
            "except SystemExit:\n"
            "    pass\n"
            "print(json.dumps(sorted(sys.modules)))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                         timeout=120)
    return out, json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["fit", "--help"], ["cv", "--help"], ["predict", "--help"],
                                  ["show", "--help"], ["bench", "--help"], ["bench", "cv", "--help"]])
def test_help_and_version_load_no_heavy_module(argv):
    """What makes --help slow is importing scikit-learn, pandas, matplotlib or
    Dask; the commands import them when they run, never to print help."""
    out, modules = _run(argv)
    assert out.stdout.startswith("usage: optimaltrees" if "--help" in argv else "optimaltrees ")
    loaded = sorted({m.partition(".")[0] for m in modules} & HEAVY)
    assert loaded == []


def test_python_dash_m_help(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-m", "optimaltrees", "--help"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0 and "optimaltrees fit DATA" in out.stdout
    for command in ("fit", "cv", "predict", "show", "bench"):
        assert command in out.stdout


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"optimaltrees {cli.version()}\n"
    assert cli.version() == optimaltrees.__version__


# ------------------------------------------------------------------ output paths, checked before the fit

@pytest.fixture
def data_csv(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, size=(60, 3))
    y = (X[:, 0] > 2).astype(int)
    path = tmp_path / "data.csv"
    path.write_text("a,b,c,y\n" + "\n".join(f"{r[0]},{r[1]},{r[2]},{t}" for r, t in zip(X, y)) + "\n")
    return str(path)


@pytest.fixture
def no_fit(monkeypatch):
    """Any attempt to build an estimator (and so to fit) fails the test."""
    def estimator(args):
        raise AssertionError("a fit was started")
    monkeypatch.setattr(cli, "_estimator", estimator)


@pytest.mark.parametrize("flags, message", [
    (["--out", "{tmp}/no/such/m.json"], "--out {tmp}/no/such/m.json: no such folder {tmp}/no/such"),
    (["--out", "{tmp}"], "--out {tmp}: is a folder"),
    (["--png", "{tmp}/no/m.png"], "--png {tmp}/no/m.png: no such folder"),
    (["--png", "{tmp}/m.gif"], "--png {tmp}/m.gif: the picture format follows the extension; use .png, .svg "
                               "or .pdf (not .gif)"),
    (["--png", "{tmp}/m"], "use .png, .svg or .pdf"),
    (["--trace-png", "{tmp}"], "--trace-png {tmp}: is a folder"),
    (["--method", "sat", "--trace-png", "{tmp}/t.png"], "--trace-png: the sat method keeps no anytime curve"),
])
def test_fit_refuses_a_bad_output_path_before_the_fit(tmp_path, data_csv, no_fit, capsys, flags, message):
    flags = [f.replace("{tmp}", str(tmp_path)) for f in flags]
    assert main(["fit", data_csv, "--depth", "1", *flags]) == 1
    captured = capsys.readouterr()
    assert message.replace("{tmp}", str(tmp_path)) in captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.out == ""          # nothing of a fit was printed


def test_a_bad_output_path_fails_fast_on_data_that_takes_long(tmp_path):
    """End to end, in a fresh process: on data whose fit takes many seconds
    the command fails at once."""
    from conftest import load_continuous

    X, y = load_continuous("page")
    path = tmp_path / "page.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt="%.10g",
               header=",".join([f"f{j}" for j in range(X.shape[1])] + ["y"]), comments="")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-m", "optimaltrees", "fit", str(path), "--depth", "4",
                          "--png", str(tmp_path / "missing" / "tree.png")],
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.strip() == (f"optimaltrees fit: error: --png {tmp_path}/missing/tree.png: "
                                  f"no such folder {tmp_path}/missing")


def test_predict_and_show_refuse_bad_output_paths_first(tmp_path, data_csv, capsys):
    model = str(tmp_path / "m.json")
    assert main(["fit", data_csv, "--depth", "1", "--out", model]) == 0
    capsys.readouterr()
    assert main(["predict", model, data_csv, "--out", str(tmp_path)]) == 1
    assert f"--out {tmp_path}: is a folder" in capsys.readouterr().err
    assert main(["show", model, "--png", str(tmp_path / "x" / "m.png")]) == 1
    captured = capsys.readouterr()
    assert "--png" in captured.err and "no such folder" in captured.err and captured.out == ""


def test_bench_refuses_a_folder_as_report(tmp_path, data_csv, capsys):
    assert main(["bench", "cv", "--data", data_csv, "--out", str(tmp_path)]) == 1
    assert f"--out {tmp_path}: is a folder" in capsys.readouterr().err


# ------------------------------------------------------------------ messages name the flags

@pytest.mark.parametrize("message, expected", [
    ("The 'max_depth' parameter of OptimalTreeClassifier must be an int in the range [0, 30]. Got -1 instead.",
     "--depth must be an int in the range [0, 30]. Got -1 instead."),
    ("The 'time_limit' parameter of SATTreeClassifier must be a float in the range (0, inf) or None. "
     "Got 0.0 instead.", "--time-limit must be a float in the range (0, inf). Got 0.0 instead."),
    ("objective='errors' needs max_depth: the fewest errors of a tree of which depth?",
     "--objective errors needs --depth: the fewest errors of a tree of which depth?"),
    ("the search's best tree", "the search's best tree"),       # English words stay
])
def test_flag_words(message, expected):
    assert flag_words(message) == expected


@pytest.mark.parametrize("argv, message", [
    (["--depth", "-1"], "--depth must be an int in the range [0, "),
    (["--time-limit", "0"], "--time-limit must be a float in the range (0.0, inf). Got 0.0 instead."),
    (["--method", "sat", "--objective", "errors"], "--objective errors needs --depth"),
    (["--method", "diagram", "--alpha", "-1"], "--alpha must be a float in the range [0.0, inf). Got -1.0 instead."),
])
def test_fit_errors_name_the_flags(data_csv, capsys, argv, message):
    assert main(["fit", data_csv, *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert "max_depth" not in err and "time_limit" not in err and "objective=" not in err


# ------------------------------------------------------------------ identifier columns

def _with_id(tmp_path, rows=300):
    rng = np.random.default_rng(1)
    x = rng.integers(0, 4, size=rows)
    path = tmp_path / "ids.csv"
    path.write_text("id,x,y\n" + "\n".join(f"c{i:04d},{v},{int(v > 1)}" for i, v in enumerate(x)) + "\n")
    return str(path)


def test_an_identifier_column_is_pointed_out(tmp_path, capsys):
    data = _with_id(tmp_path)
    assert main(["fit", data, "--depth", "1"]) == 0
    err = capsys.readouterr().err
    assert "warning: column 'id' has 300 different values in 300 rows" in err and "--drop id" in err
    assert err.count("column 'id' has 300") == 1        # the estimator's own warning is not said twice
    assert main(["fit", data, "--depth", "1", "--drop", "id"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "id=" not in captured.out


def test_categories_with_few_values_are_not_identifiers(tmp_path, capsys):
    rows = ["colour,size,label"] + [f"{c},{s},{'yes' if c == 'red' else 'no'}"
                                    for c in ("red", "green", "blue") for s in ("S", "M", "L")] * 20
    path = tmp_path / "cat.csv"
    path.write_text("\n".join(rows) + "\n")
    assert main(["fit", str(path), "--depth", "1"]) == 0
    assert "warning" not in capsys.readouterr().err


# ------------------------------------------------------------------ the reader's options on the command line

def test_missing_and_decimal_options(tmp_path, capsys):
    path = tmp_path / "eu.csv"
    path.write_text("size;kind;y\n" + "\n".join(f"{i},5;{'?' if i % 2 else 'none'};{int(i > 4)}"
                                                for i in range(10)) + "\n")
    # ? means missing by default: a tree searches where missing values go;
    # the other methods name the first line with one
    assert main(["fit", str(path), "--depth", "1"]) == 0
    assert "training accuracy: 1.0000" in capsys.readouterr().out
    assert main(["fit", str(path), "--method", "sat"]) == 1
    err = capsys.readouterr().err
    assert "column 'kind' has missing values (line 3 and 4 more)" in err and "--missing" in err
    # --missing alone: nothing is missing, '?' is a value; 4,5 is the number 4.5
    assert main(["fit", str(path), "--depth", "1", "--missing"]) == 0
    out = capsys.readouterr().out
    assert "size <= " in out and "size=" not in out and "training accuracy: 1.0000" in out


def test_a_tree_fit_reads_missing_values_and_says_where_they_go(tmp_path, capsys):
    path = tmp_path / "gaps.csv"
    rows = [f"{'?' if i % 3 == 0 else i},{'red' if i % 2 else 'blue'},{int(i % 3 == 0)}" for i in range(12)]
    path.write_text("size,colour,y\n" + "\n".join(rows) + "\n")
    model = str(tmp_path / "m.json")
    assert main(["fit", str(path), "--depth", "1", "--out", model]) == 0
    out = capsys.readouterr().out
    assert "size is missing" in out and "training accuracy: 1.0000" in out
    assert main(["predict", model, str(path)]) == 0
    assert capsys.readouterr().out.split() == [str(int(i % 3 == 0)) for i in range(12)]


def test_predict_keeps_a_models_number_like_categories_as_text(tmp_path, capsys):
    """Trained on codes 1, 2, A, B (text), predicted on a file of 1s and 2s
    only (which alone would read as numbers): the categories still match."""
    path = tmp_path / "codes.csv"
    rows = [f"{c},{int(c == '1')}" for c in ["1", "2", "A", "B"] * 4]
    path.write_text("code,y\n" + "\n".join(rows) + "\n")
    model = str(tmp_path / "m.json")
    assert main(["fit", str(path), "--depth", "1", "--out", model]) == 0
    assert "code == 1" in capsys.readouterr().out
    new = tmp_path / "new.csv"
    new.write_text("code,y\n1,1\n2,0\n1,1\n")
    assert main(["predict", model, str(new)]) == 0
    assert capsys.readouterr().out.split() == ["1", "0", "1"]


def test_max_depth_is_accepted_beside_depth(tmp_path, capsys):
    # scikit-learn's name for the parameter
    data = _with_id(tmp_path)
    assert main(["fit", data, "--max-depth", "2", "--drop", "id"]) == 0
    out = capsys.readouterr().out
    assert main(["fit", data, "--depth", "2", "--drop", "id"]) == 0
    assert capsys.readouterr().out.splitlines()[:3] == out.splitlines()[:3]
