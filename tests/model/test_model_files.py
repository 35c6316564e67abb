"""Hostile model files: loading never runs code the file names, and
every file that is not a model this library wrote is refused with a ValueError.

Each hostile file starts from a real saved model with one thing changed.
Tests that could hang on a regression (cycles) run under a deadline.
"""
from __future__ import annotations

import contextlib
import copy
import json
import signal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimaltrees import DecisionDiagramClassifier, FitSummary, OptimalTreeClassifier, SATTreeClassifier, Tree
from optimaltrees.model.export import export_text
from optimaltrees import io
from optimaltrees.cli import main
from optimaltrees.io import load_model, model_from_dict, model_to_dict, save_model


@contextlib.contextmanager
def deadline(seconds: float):
    """Fail (instead of hanging the suite) when the block runs too long."""
    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: an endless loop?")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(40, 3)).astype(float)
    y = np.where(X[:, 0] + X[:, 1] > 3, "hi", "lo")
    return X, y


@pytest.fixture(scope="module")
def saved(data):
    """A saved model (as its JSON dict) of each estimator."""
    X, y = data
    models = {"tree": OptimalTreeClassifier(max_depth=2).fit(X, y),
              "sat": SATTreeClassifier("errors", max_depth=2).fit(X, y),
              "diagram": DecisionDiagramClassifier((1, 2), time_limit=5, heuristic_time=0.1,
                                                   random_state=0).fit(X, y)}
    return {k: json.loads(json.dumps(model_to_dict(m))) for k, m in models.items()}


def _file(tmp_path, doc, name="model.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _refused(doc, match=None):
    """model_from_dict refuses ``doc`` with a ValueError (never another exception)."""
    with deadline(10):
        with pytest.raises(ValueError, match=match) as info:
            model_from_dict(doc)
    return str(info.value)


def _tree(doc):
    return doc["fitted"]["tree_"]["state"]


def _set_array(entry, values, shape=None):
    entry["__ndarray__"] = list(values)
    entry["shape"] = list(shape) if shape is not None else [len(values)]


# ------------------------------------------------------------------ code named by the file

@pytest.mark.parametrize("estimator", [
    "optimaltrees.bench.runner:os.system",
    "optimaltrees.__main__",
    "optimaltrees.__main__:main",
    "optimaltrees.cli:main",
    "optimaltrees.io:load_model",
    "optimaltrees.model.tree:Tree",
    "os:system",
    "builtins:eval",
])
def test_estimator_naming_code_is_refused_and_never_run(tmp_path, saved, estimator):
    marker = tmp_path / "marker"
    doc = copy.deepcopy(saved["tree"])
    doc["estimator"] = estimator
    doc["params"] = {"command": f"touch {marker}"}
    with pytest.raises(ValueError, match="not one of optimaltrees' estimators"):
        load_model(_file(tmp_path, doc))
    assert not marker.exists()


@pytest.mark.parametrize("where, name", [
    ("tree_", "optimaltrees.bench.runner:os.system"),
    ("tree_", "optimaltrees.model.diagram:DecisionDiagram"),   # allowed class, wrong place
    ("trace_", "optimaltrees.cli:CliError"),
    ("stats_", "optimaltrees.model.tree:Tree"),
])
def test_objects_inside_fitted_state_are_allow_listed(tmp_path, saved, where, name):
    marker = tmp_path / "marker"
    doc = copy.deepcopy(saved["tree"])
    hostile = {"__object__": name, "state": {"command": f"touch {marker}"}}
    if where == "trace_":
        doc["fitted"]["trace_"][0] = hostile
    elif where == "stats_":
        doc["fitted"]["stats_"]["__dict__"]["extra"] = hostile
    else:
        doc["fitted"][where] = hostile
    message = _refused(doc)
    assert f"fitted.{where}" in message
    assert not marker.exists()


def test_binarizer_and_its_tests_are_allow_listed(saved):
    doc = copy.deepcopy(saved["sat"])
    doc["fitted"]["binarizer_"]["state"]["tests_"][0]["__object__"] = "optimaltrees.cli:CliError"
    assert "fitted.binarizer_.state" not in _refused(doc, "fitted.binarizer_.tests_")
    doc = copy.deepcopy(saved["sat"])
    doc["fitted"]["binarizer_"]["state"]["transform"] = "evil"      # unknown field
    _refused(doc, "fitted.binarizer_")


# ------------------------------------------------------------------ tree structure

def test_cyclic_tree_is_refused(tmp_path, saved, data):
    """Node 0's right child is node 0: predict used to loop for ever, export_text to recurse."""
    doc = copy.deepcopy(saved["tree"])
    _tree(doc)["children_right"]["__ndarray__"][0] = 0
    with deadline(10):
        with pytest.raises(ValueError, match="fitted.tree_"):
            load_model(_file(tmp_path, doc)).predict(data[0])


def test_cycle_apart_from_the_root_is_refused(saved):
    """Every node has one parent, yet nodes 3 and 4 point at each other, unreachable."""
    doc = copy.deepcopy(saved["tree"])
    s = _tree(doc)
    _set_array(s["feature"], [0, -1, -1, 1, 1, -1, -1])
    _set_array(s["threshold"], [1.5] * 7)
    _set_array(s["children_left"], [1, -1, -1, 4, 3, -1, -1])
    _set_array(s["children_right"], [2, -1, -1, 5, 6, -1, -1])
    _set_array(s["value"], [1.0] * 14, (7, 2))
    _refused(doc, "not reachable from the root")


@pytest.mark.parametrize("node, side, child, match", [
    (0, "children_left", 99, "out of range"),
    (0, "children_left", -5, "out of range"),
    (0, "children_right", -1, "out of range"),
    (1, "children_right", 7, "out of range"),
    (2, "children_left", 3, "leaf's children must be -1"),
    (4, "children_left", 2, "2 parents"),        # a shared child: not a tree
])
def test_out_of_range_children_are_refused(saved, node, side, child, match):
    doc = copy.deepcopy(saved["tree"])
    _tree(doc)[side]["__ndarray__"][node] = child
    _refused(doc, match)


@pytest.mark.parametrize("feature", [3, 10**6, -2])
def test_feature_index_out_of_range_is_refused(saved, feature):
    doc = copy.deepcopy(saved["tree"])
    _tree(doc)["feature"]["__ndarray__"][0] = feature
    _refused(doc, f"feature index {feature} is out of range for 3 features")


def test_tree_features_must_match_the_model(saved):
    doc = copy.deepcopy(saved["tree"])
    _tree(doc)["n_features"] = 5
    _refused(doc, "the tree has 5 features, the model 3")
    doc = copy.deepcopy(saved["sat"])          # SAT: the tree splits on the binarizer's tests
    _tree(doc)["n_features"] += 1
    _refused(doc, "fitted.tree_")


def test_class_counts_must_match_classes(saved):
    doc = copy.deepcopy(saved["tree"])
    value = _tree(doc)["value"]
    _set_array(value, [1.0] * 21, (7, 3))
    _refused(doc, "3 class columns, expected 2")
    doc = copy.deepcopy(saved["tree"])
    doc["fitted"]["n_classes_"] = 3
    _refused(doc, "n_classes_")
    doc = copy.deepcopy(saved["tree"])
    _set_array(doc["fitted"]["classes_"], ["hi"])
    doc["fitted"]["n_classes_"] = 1
    _refused(doc, "2 class columns, expected 1")


def test_thresholds_must_not_be_nan(saved, data):
    doc = copy.deepcopy(saved["tree"])
    _tree(doc)["threshold"]["__ndarray__"][0] = {"__float__": "nan"}
    _refused(doc, "threshold must not be NaN")
    doc = copy.deepcopy(saved["diagram"])
    doc["fitted"]["diagram_"]["state"]["threshold"]["__ndarray__"][0] = {"__float__": "nan"}
    _refused(doc, "threshold must not be NaN")
    # an infinite threshold is a test that always goes one way: it loads
    doc = copy.deepcopy(saved["tree"])
    _tree(doc)["threshold"]["__ndarray__"][0] = {"__float__": "inf"}
    assert len(model_from_dict(doc).predict(data[0])) == len(data[0])


def test_class_counts_must_be_non_negative(saved):
    doc = copy.deepcopy(saved["tree"])
    _tree(doc)["value"]["__ndarray__"][0] = -4.0
    _refused(doc, "non-negative")


def test_tree_deeper_than_max_depth_is_refused(saved):
    doc = copy.deepcopy(saved["tree"])
    doc["params"]["max_depth"] = 1
    _refused(doc, "more than a tree of depth 1 has")
    doc["params"]["max_depth"] = 0     # the root a leaf: 7 nodes can not be
    _refused(doc, "more than a tree of depth 0 has")
    doc = copy.deepcopy(saved["tree"])  # a chain of depth 3 in 7 nodes, max_depth 2
    s = _tree(doc)
    _set_array(s["feature"], [0, -1, 1, -1, 2, -1, -1])
    _set_array(s["children_left"], [1, -1, 3, -1, 5, -1, -1])
    _set_array(s["children_right"], [2, -1, 4, -1, 6, -1, -1])
    _refused(doc, "deeper than 2")


def test_tree_from_dict_checks_the_structure():
    good = Tree(feature=[0, -1, -1], threshold=[0.5, 0, 0], children_left=[1, -1, -1],
                children_right=[2, -1, -1], value=[[2, 2], [2, 0], [0, 2]], n_features=1).to_dict()
    assert Tree.from_dict(good).node_count == 3
    for key, values in [("children_right", [0, -1, -1]), ("children_left", [5, -1, -1]),
                        ("feature", [1, -1, -1]), ("threshold", [float("nan"), 0, 0]),
                        ("feature", "abc"), ("value", [[1, "x"], [1, 1], [1, 1]])]:
        bad = dict(good, **{key: values})
        with deadline(10), pytest.raises(ValueError):
            Tree.from_dict(bad)
    with pytest.raises(ValueError):
        Tree.from_dict(dict(good, n_features="1"))


def test_max_depth_does_not_assume_parents_come_first():
    """Node 3 is node 1's parent: the old loop left node 1 at depth 0."""
    tree = Tree(feature=[0, 0, -1, 0, -1, -1, -1], threshold=[0.5] * 7,
                children_left=[2, 5, -1, 1, -1, -1, -1], children_right=[3, 6, -1, 4, -1, -1, -1],
                value=np.ones((7, 2)), n_features=1)
    assert tree.max_depth == 3
    assert Tree.from_dict(tree.to_dict()).max_depth == 3


# ------------------------------------------------------------------ diagram structure

@pytest.mark.parametrize("node, side, target, match", [
    (1, "positive", 0, "not a later layer"),     # an arc back to the root: endless predict
    (1, "negative", 1, "not a later layer"),     # a self-loop
    (2, "positive", 1, "not a later layer"),     # within one layer
    (0, "negative", 5, "out of range"),          # 3 nodes + 2 terminals
    (0, "negative", -1, "out of range"),
])
def test_diagram_arcs_must_go_down(tmp_path, saved, data, node, side, target, match):
    doc = copy.deepcopy(saved["diagram"])
    state = doc["fitted"]["diagram_"]["state"]
    assert state["layer"]["__ndarray__"] == [0, 1, 1]
    state[side]["__ndarray__"][node] = target
    with deadline(10):
        with pytest.raises(ValueError, match=match):
            load_model(_file(tmp_path, doc)).predict(data[0])


def test_diagram_must_fit_its_skeleton_and_classes(saved):
    doc = copy.deepcopy(saved["diagram"])
    doc["params"]["skeleton"] = {"__tuple__": [1, 1]}
    _refused(doc, "exceed the skeleton")
    doc = copy.deepcopy(saved["diagram"])
    doc["fitted"]["diagram_"]["state"]["n_classes"] = 3
    _refused(doc, "3 class terminals")
    doc = copy.deepcopy(saved["diagram"])
    _set_array(doc["fitted"]["diagram_"]["state"]["coef"], [1.0] * 6, (3, 2))
    _refused(doc, "coef must be a")
    doc = copy.deepcopy(saved["diagram"])
    _set_array(doc["fitted"]["diagram_"]["state"]["layer"], [0, 2, 1])
    _refused(doc, "never decrease")


# ------------------------------------------------------------------ sizes

def test_enormous_declared_shape_is_refused_without_allocating(saved):
    doc = copy.deepcopy(saved["tree"])
    _tree(doc)["value"]["shape"] = [10**12, 10**12]
    _refused(doc, "elements, more than a model file may hold")
    doc = copy.deepcopy(saved["tree"])
    doc["fitted"]["classes_"]["dtype"] = "<U100000"            # 400 kB per label: too long a name
    _refused(doc, "longer than")
    doc["fitted"]["classes_"]["dtype"] = "<U2000000000"        # 8 GB per label: numpy says no
    _refused(doc, "fitted.classes_")


def test_element_and_file_size_caps(tmp_path, saved, monkeypatch):
    path = _file(tmp_path, saved["tree"])
    load_model(path)
    monkeypatch.setattr(io, "MAX_ELEMENTS", 20)
    with pytest.raises(ValueError, match="more than 20 values"):
        load_model(path)
    monkeypatch.setattr(io, "MAX_ELEMENTS", 10**6)
    monkeypatch.setattr(io, "MAX_FILE_BYTES", 500)
    with pytest.raises(ValueError, match=r"larger than a model file may be \(500\)"):
        load_model(path)


def test_deep_nesting_is_refused(tmp_path, saved):
    doc = copy.deepcopy(saved["tree"])
    nested = []
    for _ in range(200):                       # parses, but deeper than any model file
        nested = [nested]
    doc["fitted"]["stats_"]["__dict__"]["deep"] = nested
    _refused(doc, "deeper than")
    text = json.dumps(saved["tree"])[:-1] + ', "x": ' + "[" * 200_000 + "]" * 200_000 + "}"
    path = tmp_path / "deep.json"
    path.write_text(text)                      # json itself gives up: RecursionError
    with pytest.raises(ValueError, match="too deeply"):
        load_model(path)


# ------------------------------------------------------------------ types

def _mutate(doc, path, value):
    entry = doc
    for key in path[:-1]:
        entry = entry[key]
    entry[path[-1]] = value


T = ("fitted", "tree_", "state")


@pytest.mark.parametrize("path, value, match", [
    (("fitted", "classes_"), "hi", "fitted.classes_: expected an array"),
    (("fitted", "classes_"), {"__ndarray__": [{"a": 1}, {"b": 2}], "dtype": "object", "shape": [2]},
     r"fitted.classes_\[0\]"),
    (("fitted", "classes_", "dtype"), "O", "fitted.classes_: dtype 'O' is not allowed"),
    (("fitted", "classes_", "dtype"), "V8", "fitted.classes_: dtype 'V8'"),
    (("fitted", "classes_", "dtype"), "M8", "fitted.classes_: dtype 'M8'"),
    (("fitted", "classes_", "dtype"), "S2", "fitted.classes_: dtype 'S2'"),
    (("fitted", "classes_", "dtype"), "<i8,<i8", "fitted.classes_: dtype"),
    (("fitted", "classes_", "dtype"), "no such", "fitted.classes_: unknown dtype"),
    (("fitted", "classes_", "shape"), [3], "fitted.classes_: shape"),
    (("fitted", "classes_", "shape"), [-2], "fitted.classes_: shape"),
    (("fitted", "classes_", "shape"), "2", "fitted.classes_: shape"),
    (("fitted", "n_features_in_"), {"a": 1}, "fitted.n_features_in_"),
    (("fitted", "n_features_in_"), "3", "fitted.n_features_in_"),
    (("fitted", "n_features_in_"), 3.0, "fitted.n_features_in_"),
    (("fitted", "n_features_in_"), True, "fitted.n_features_in_"),
    (("fitted", "n_features_in_"), 0, "fitted.n_features_in_"),
    (("fitted", "n_features_in_"), 4, "the tree has 3 features, the model 4"),
    (("fitted", "feature_names_in_"), {"__ndarray__": ["a", "b"], "dtype": "object", "shape": [2]},
     "2 names for 3 features"),
    (("fitted", "feature_names_in_"), {"__ndarray__": [1, 2, 3], "dtype": "<i8", "shape": [3]},
     "fitted.feature_names_in_: dtype"),
    (("fitted", "is_optimal_"), "yes", "fitted.is_optimal_"),
    (("fitted", "trace_"), {"a": 1}, "fitted.trace_"),
    (("fitted", "stats_"), [1, 2], "fitted.stats_"),
    (("fitted", "tree_"), 7, "fitted.tree_"),
    (("fitted", "tree_", "state"), [1, 2], "fitted.tree_.state"),
    (T + ("feature", "__ndarray__", 0), "0", r"fitted.tree_.feature\[0\]"),
    (T + ("feature", "__ndarray__", 0), 0.5, r"fitted.tree_.feature\[0\]"),
    (T + ("feature", "__ndarray__", 0), 2**70, "fitted.tree_.feature: values do not fit"),
    (T + ("feature", "dtype"), "<f8", "fitted.tree_.feature: dtype"),
    (T + ("feature", "__ndarray__"), "0,1", "fitted.tree_.feature"),
    (T + ("value", "shape"), [7], "fitted.tree_.value: expected a 2-D array"),
    (T + ("value", "shape"), [2, 7], "fitted.tree_"),
    (T + ("threshold", "__ndarray__", 1), {"__float__": "__import__('os')"}, "fitted.tree_.threshold"),
    (T + ("threshold", "__ndarray__", 1), [1.0], r"fitted.tree_.threshold\[1\]"),
    (T + ("n_features",), None, "fitted.tree_.n_features"),
    (("fitted", "tree_", "__object__"), None, "fitted.tree_"),
    (("fitted", "tree_", "extra"), 1, "fitted.tree_"),
    (("fitted",), [], "fitted: expected an object"),
    (("params",), "max_depth=2", "params: expected an object"),
    (("version",), True, "version"),
    (("extra",), 1, "unknown top-level"),
])
def test_wrong_types_are_refused_naming_the_entry(saved, path, value, match):
    doc = copy.deepcopy(saved["tree"])
    _mutate(doc, path, value)
    _refused(doc, match)


def test_missing_fitted_state_is_refused(saved):
    doc = copy.deepcopy(saved["tree"])
    del doc["fitted"]["tree_"]
    _refused(doc, "missing tree_")
    doc = copy.deepcopy(saved["tree"])
    del _tree(doc)["value"]
    _refused(doc, "missing")


# ------------------------------------------------------------------ parameters and attributes

@pytest.mark.parametrize("name, value, match", [
    ("evil", 1, "has no parameter 'evil'"),
    ("max_depth", -3, r"'max_depth' parameter .* must be an int in the range \[0, 30\]\. Got -3"),
    ("max_depth", "3", r"'max_depth' parameter .* Got '3'"),
    ("max_depth", 10**9, r"'max_depth' parameter .* Got 1000000000"),
    ("max_depth", True, r"'max_depth' parameter .* Got True"),
    ("search", {"__object__": "optimaltrees.cli:main", "state": {}}, "params.search"),
    ("callback", "print", r"'callback' parameter .* must be a callable or None"),
    ("max_gap", {"__float__": "nan"}, r"'max_gap' parameter .* Got nan"),
])
def test_parameters_are_checked(saved, name, value, match):
    doc = copy.deepcopy(saved["tree"])
    doc["params"][name] = value
    _refused(doc, match)


def test_sat_and_diagram_parameters_are_checked(saved):
    doc = copy.deepcopy(saved["sat"])
    doc["params"]["solver"] = "os.system"
    _refused(doc, "unknown SAT solver")
    doc = copy.deepcopy(saved["diagram"])
    doc["params"]["epsilon"] = -1
    _refused(doc, "epsilon")
    doc = copy.deepcopy(saved["diagram"])
    doc["params"]["skeleton"] = "1,2"
    _refused(doc, "skeleton")


@pytest.mark.parametrize("name", ["predict", "zzz_", "_sklearn_output_config", "__class__", "__dict__"])
def test_unknown_fitted_attributes_are_refused(saved, name):
    doc = copy.deepcopy(saved["tree"])
    doc["fitted"][name] = 1
    _refused(doc, f"has no fitted attribute {name!r}")


def test_attributes_of_another_estimator_are_refused(saved):
    doc = copy.deepcopy(saved["tree"])
    doc["fitted"]["binarizer_"] = saved["sat"]["fitted"]["binarizer_"]
    _refused(doc, "has no fitted attribute 'binarizer_'")


# ------------------------------------------------------------------ command line

def _hostile_files(tmp_path, saved, marker):
    code = copy.deepcopy(saved["tree"])
    code["estimator"] = "optimaltrees.bench.runner:os.system"
    code["params"] = {"command": f"touch {marker}"}
    cyclic = copy.deepcopy(saved["tree"])
    _tree(cyclic)["children_left"]["__ndarray__"][0] = 0
    garbage = copy.deepcopy(saved["tree"])
    garbage["fitted"]["classes_"] = {"__items__": [[[1], 2]]}
    return [_file(tmp_path, doc, f"{i}.json") for i, doc in enumerate((code, cyclic, garbage))]


def test_cli_refuses_hostile_files_in_one_line(tmp_path, saved, data, capsys):
    marker = tmp_path / "marker"
    X, _ = data
    csv = tmp_path / "x.csv"
    csv.write_text("\n".join(",".join(f"{v:g}" for v in row) for row in X) + "\n")
    for path in _hostile_files(tmp_path, saved, marker):
        for argv in (["predict", str(path), str(csv)], ["show", str(path)], ["show", str(path), "--dot"]):
            with deadline(20):
                assert main(argv) == 1, argv
            captured = capsys.readouterr()
            assert captured.out == ""
            assert "not a model file this optimaltrees can read" in captured.err
            assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert not marker.exists()


# ------------------------------------------------------------------ random damage

def _paths(value, prefix=()):
    """Every position in a JSON document."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


_replacements = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 12), st.sampled_from([2**63, -(2**63) - 1, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=4),
    st.sampled_from(["<f8", "<i8", "object", "V8", "O", "<U3", "optimaltrees.cli:main"]),
    st.lists(st.integers(-2, 8), max_size=8), st.just({}),
    st.sampled_from([{"__float__": "nan"}, {"__tuple__": [1]}, {"__object__": "x", "state": {}}]),
)


@pytest.mark.parametrize("kind", ["tree", "sat", "diagram"])
@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(choice=st.data())
def test_random_damage_loads_a_working_model_or_raises_value_error(saved, data, kind, choice):
    """One random change anywhere in a valid file: either ValueError, or a model
    that predicts, gives probabilities and prints, in bounded time."""
    doc = copy.deepcopy(saved[kind])
    paths = [p for p in _paths(doc) if p]
    path = choice.draw(st.sampled_from(paths))
    entry = doc
    for key in path[:-1]:
        entry = entry[key]
    old = entry[path[-1]]
    if isinstance(old, int) and not isinstance(old, bool) and choice.draw(st.booleans()):
        new = old + choice.draw(st.integers(-3, 3))
    elif isinstance(entry, dict) and choice.draw(st.integers(0, 5)) == 0:
        del entry[path[-1]]
        new = None
    else:
        new = choice.draw(_replacements)
    if path[-1] in entry or isinstance(entry, list):
        entry[path[-1]] = new
    X = data[0]
    with deadline(10):
        try:
            model = model_from_dict(doc)
        except ValueError:
            return
        proba = model.predict_proba(X)
        assert proba.shape == (len(X), len(model.classes_))
        assert set(model.predict(X).tolist()) <= set(model.classes_.tolist())
        model.export_text()


def test_export_text_of_a_very_deep_tree_does_not_recurse():
    # a chain 5,000 branches deep: a valid tree, deeper than Python's recursion limit
    depth = 5000
    feature = [0] * depth + [-1] * (depth + 1)           # branches 0..depth-1, then leaves
    left = list(range(depth, 2 * depth)) + [-1] * (depth + 1)
    right = list(range(1, depth)) + [2 * depth] + [-1] * (depth + 1)
    tree = Tree.from_dict({"format": "optimaltrees.Tree", "version": 1, "n_features": 1,
                           "feature": feature, "threshold": [float(i) for i in range(2 * depth + 1)],
                           "children_left": left, "children_right": right,
                           "value": [[1.0, 0.0]] * (2 * depth + 1)})
    text = export_text(tree)
    assert text.count("|--- ") == 2 * depth and tree.max_depth == depth


# ------------------------------------------------------------------ the fit summary and metadata

def test_summary_round_trips(tmp_path, data):
    X, y = data
    models = [OptimalTreeClassifier(max_depth=2, time_limit=30).fit(X, y),
              SATTreeClassifier("errors", max_depth=2).fit(X, y),
              DecisionDiagramClassifier((1, 2, 2), time_limit=0.5, random_state=0).fit(X, y)]
    for m in models:
        save_model(m, tmp_path / "m.json")
        back = load_model(tmp_path / "m.json")
        assert type(back.summary_) is FitSummary and back.summary_ == m.summary_
        assert back.gap_ == m.gap_ == m.summary_.gap


def _summary(doc):
    return doc["fitted"]["summary_"]["state"]


@pytest.mark.parametrize("field, value, match", [
    ("method", "diagram", "method 'diagram', but the estimator is OptimalTreeClassifier"),
    ("method", "forest", r"summary_\.method: must be one of"),
    ("proven", False, "proven is False, but is_optimal_ is True"),
    ("gap", 0.5, "gap is 0.5, but gap_ is 0.0"),
    ("timed_out", 1, r"summary_\.timed_out: expected true or false"),
    ("status", ["x"], r"summary_\.status: expected a string"),
    ("objective", "1", r"summary_\.objective: expected a number"),
])
def test_summary_entries_are_checked(saved, field, value, match):
    doc = copy.deepcopy(saved["tree"])
    _summary(doc)[field] = value
    _refused(doc, match)


def test_summary_is_required_and_only_a_fit_summary(saved):
    doc = copy.deepcopy(saved["tree"])
    del doc["fitted"]["summary_"]
    _refused(doc, "missing summary_")
    doc = copy.deepcopy(saved["tree"])
    doc["fitted"]["summary_"]["__object__"] = "optimaltrees.anytime:TracePoint"
    _refused(doc, "only optimaltrees.model.summary:FitSummary may appear here")
    doc = copy.deepcopy(saved["tree"])
    _summary(doc)["extra"] = 1
    _refused(doc, "unknown")


def test_metadata_is_kept_beside_the_model_and_plain(tmp_path, data):
    X, y = data
    model = OptimalTreeClassifier(max_depth=1).fit(X, y)
    meta = {"label": "y", "columns": ["a", "b"], "note": {"n": 3}}
    save_model(model, tmp_path / "m.json", metadata=meta)
    back, got = load_model(tmp_path / "m.json", with_metadata=True)
    assert got == meta and not any(k.startswith("label") or k == "metadata" for k in vars(back))
    assert load_model(tmp_path / "m.json", with_metadata=True)[0].summary_ == model.summary_
    doc = model_to_dict(model, {"label": "y"})
    doc["metadata"]["__dict__"]["label"] = {"__object__": "optimaltrees.cli:main", "state": {}}
    _refused(doc, "metadata.label: an object is not allowed here")
    with pytest.raises(TypeError, match="cannot store"):
        model_to_dict(model, {"f": print})
