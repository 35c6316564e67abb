"""What a model file can make the loader do beyond parsing it: allocate
memory out of proportion to its size, or make a later fit connect somewhere.

Every array of every estimator's file is replaced in turn by the worst
string array a file can declare; the loader must answer each with a model or
a ValueError, allocating no more than a fixed multiple of the file's size."""
from __future__ import annotations

import json
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier, OptimalTreeRegressor, SATTreeClassifier
from optimaltrees.io import load_model, model_to_dict, save_model

#: what loading may allocate: the parsed JSON's Python objects and the
#: arrays built from them, a small multiple of the file's bytes
ALLOWED_BYTES_PER_FILE_BYTE = 40
ALLOWED_BASE_BYTES = 8 * 2**20


@pytest.fixture(scope="module")
def documents():
    """A saved file (as a dict) of each estimator, with every kind of array:
    text classes, feature names, a categorical encoder, a SAT binarizer, a
    regression tree's node statistics."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"size": rng.random(40), "colour": rng.choice(["red", "blue", "green"], 40)})
    y = np.where((frame["size"] > 0.5) ^ (frame["colour"] == "red"), "yes", "no")
    X = frame[["size"]].assign(other=rng.random(40))
    models = {"tree": OptimalTreeClassifier(max_depth=2).fit(frame, y),
              "sat": SATTreeClassifier("errors", max_depth=2).fit(frame, y),
              "diagram": DecisionDiagramClassifier((1, 2), time_limit=5, heuristic_time=0.1,
                                                   random_state=0).fit(X, y),
              "regressor": OptimalTreeRegressor(max_depth=2).fit(frame, frame["size"] * 3 + (y == "yes"))}
    return {k: json.loads(json.dumps(model_to_dict(m))) for k, m in models.items()}


def _array_paths(node, path=()):
    """Paths (keys and indices) of every ``__ndarray__`` entry in a document."""
    if isinstance(node, dict):
        if "__ndarray__" in node:
            yield path
            return
        for key, value in node.items():
            yield from _array_paths(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _array_paths(value, path + (i,))


def _replaced(doc, path, value):
    doc = json.loads(json.dumps(doc))
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


def _load_measured(tmp_path, doc):
    """(outcome, peak traced bytes, file bytes) of loading ``doc`` from a file."""
    path = tmp_path / "model.json"
    path.write_text(json.dumps(doc))
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                load_model(path)
                outcome = "loaded"
            except ValueError as exc:
                outcome = f"refused: {exc}"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return outcome, peak, path.stat().st_size


HOSTILE = {
    # 4 bytes x 65536 characters per element if the declared dtype were believed
    "empty strings": {"__ndarray__": [""] * 4000, "dtype": "<U65536", "shape": [4000]},
    # one long string beside many empty ones: fixed width is longest x count
    "one long string": {"__ndarray__": ["x" * 60000] + [""] * 20000, "dtype": "<U65536", "shape": [20001]},
}


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
@pytest.mark.parametrize("kind", ["tree", "sat", "diagram", "regressor"])
def test_no_array_of_a_model_file_allocates_beyond_the_files_size(tmp_path, documents, kind, hostile):
    doc = documents[kind]
    paths = list(_array_paths(doc))
    assert len(paths) >= 8          # the fixture holds the arrays it means to
    for path in paths:
        outcome, peak, size = _load_measured(tmp_path, _replaced(doc, path, HOSTILE[hostile]))
        assert peak <= ALLOWED_BYTES_PER_FILE_BYTE * size + ALLOWED_BASE_BYTES, (path, outcome, peak, size)


@pytest.mark.parametrize("field", ["stats_", "classes_"])
def test_declared_string_widths_cost_nothing(tmp_path, documents, field):
    # 18 KB of empty strings declared <U65536 took 1 GB; in classes_ 650 MB
    # were allocated before the class-count check refused the file
    doc = documents["tree"]
    value = HOSTILE["empty strings"]
    if field == "stats_":
        value = {"__dict__": {"names": value}}
    outcome, peak, size = _load_measured(tmp_path, _replaced(doc, ("fitted", field), value))
    assert peak < 4 * 2**20, outcome
    assert outcome == "loaded" if field == "stats_" else outcome.startswith("refused")


def test_strings_longer_than_their_declared_width_are_refused(documents):
    from optimaltrees.io import model_from_dict

    doc = _replaced(documents["tree"], ("fitted", "classes_"),
                    {"__ndarray__": ["no", "yes!"], "dtype": "<U2", "shape": [2]})
    with pytest.raises(ValueError, match="a string of 4 characters in an array of dtype <U2"):
        model_from_dict(doc)


def test_string_arrays_round_trip_with_their_dtype(tmp_path):
    X = np.arange(12.0).reshape(-1, 1)
    y = np.array(["alpha", "beta", "gamma"] * 4)
    clf = OptimalTreeClassifier(max_depth=2).fit(X, y)
    save_model(clf, tmp_path / "m.json")
    back = load_model(tmp_path / "m.json")
    assert back.classes_.dtype == clf.classes_.dtype
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))


# -- parameters that connect ---------------------------------------------------------

def test_a_cluster_address_is_never_saved(tmp_path):
    X, y = np.arange(8.0).reshape(-1, 1), np.array([0, 1] * 4)
    clf = OptimalTreeClassifier(max_depth=1).fit(X, y)
    clf.cluster = "tcp://127.0.0.1:8786"      # set after the fit: it only matters to the next one
    save_model(clf, tmp_path / "m.json")
    assert json.loads((tmp_path / "m.json").read_text())["params"]["cluster"] is None


def test_a_file_that_names_a_cluster_loads_without_it(tmp_path, documents):
    # a refit of the loaded model, or its clone in a grid search, would have
    # sent the training data to the scheduler the file named
    doc = _replaced(documents["tree"], ("params", "cluster"), "tcp://203.0.113.7:8786")
    (tmp_path / "m.json").write_text(json.dumps(doc))
    with pytest.warns(UserWarning, match="sets cluster, a parameter that makes a later fit connect"):
        clf = load_model(tmp_path / "m.json")
    assert clf.cluster is None and clone(clf).cluster is None
    assert clf.get_params()["cluster"] is None
