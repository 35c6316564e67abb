"""skops: every fitted estimator of the library dumps and loads back with
the types ``skops_trusted_types`` lists, and predicts as before."""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
import pytest

from optimaltrees import (DecisionDiagramClassifier, OptimalTreeClassifier, OptimalTreeClassifierCV,
                          OptimalTreeRegressor, OptimalTreeRegressorCV, SATTreeClassifier)
from optimaltrees.data import load_bank, load_mouse
from optimaltrees.io import skops_trusted_types

sio = pytest.importorskip("skops.io")


@functools.lru_cache(maxsize=1)
def _models():
    X, y = load_bank()
    Xm, ym, _ = load_mouse()
    frame = pd.DataFrame({"c": ["a", "b", "a", "c"] * 5, "x": np.r_[np.arange(19.0), np.nan]})
    labels = [0, 1, 0, 1] * 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [(OptimalTreeClassifier(max_depth=2).fit(X, y), X),
                (OptimalTreeClassifier(max_depth=2, search="blossom").fit(frame, labels), frame),
                (OptimalTreeRegressor(max_depth=2).fit(X, X[:, 0]), X),
                (OptimalTreeRegressor(max_depth=2).fit(frame, np.arange(20.0)), frame),
                (SATTreeClassifier().fit(Xm, ym), Xm),
                (DecisionDiagramClassifier((1, 2), time_limit=5).fit(X[:200], y[:200]), X),
                (OptimalTreeClassifierCV(max_depth=2, cv=3).fit(X, y), X),
                (OptimalTreeRegressorCV(max_depth=1, cv=3).fit(frame, np.arange(20.0)), frame)]


@pytest.mark.parametrize("index", range(8))
def test_every_estimator_round_trips_with_the_trusted_types(tmp_path, index):
    model, X = _models()[index]
    path = tmp_path / "model.skops"
    sio.dump(model, path)
    untrusted = sio.get_untrusted_types(file=path)
    assert set(untrusted) <= set(skops_trusted_types())
    back = sio.load(path, trusted=skops_trusted_types())
    np.testing.assert_array_equal(back.predict(X), model.predict(X))
    with pytest.raises(Exception, match="[Uu]ntrusted"):
        sio.load(path)            # nothing is trusted unless asked
