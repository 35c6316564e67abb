"""save_model on a fitted Pipeline refuses clearly: a model file
never names classes for the loader to build, so preprocessing stays in code."""
import numpy as np
import pytest
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from optimaltrees import OptimalTreeClassifier
from optimaltrees.io import load_model, model_to_dict, save_model


def data():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 10, size=(120, 3)).astype(float)
    return X, (X[:, 0] > 4.5).astype(int)


def test_save_model_refuses_a_pipeline_clearly(tmp_path):
    X, y = data()
    pipe = make_pipeline(StandardScaler(), OptimalTreeClassifier(max_depth=2)).fit(X, y)
    with pytest.raises(TypeError) as info:
        save_model(pipe, tmp_path / "p.json")
    message = str(info.value)
    assert "Pipeline" in message and "StandardScaler" in message
    assert "save_model(pipeline[-1], path)" in message and "preprocessing" in message
    assert not (tmp_path / "p.json").exists()
    # what the message suggests works
    save_model(pipe[-1], tmp_path / "m.json")
    rebuilt = make_pipeline(StandardScaler().fit(X), load_model(tmp_path / "m.json"))
    assert np.array_equal(rebuilt.predict(X), pipe.predict(X))


def test_save_model_refuses_other_objects():
    with pytest.raises(TypeError, match="OptimalTreeClassifier, SATTreeClassifier, DecisionDiagramClassifier"):
        model_to_dict(DecisionTreeClassifier().fit([[0], [1]], [0, 1]))
