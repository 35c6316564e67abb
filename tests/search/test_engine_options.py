"""Each engine gets its own tuning when it is built: options set for one
thread's fits never reach another thread's engines, and the options a
block sets are the ones its engines run with."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from optimaltrees import OptimalTreeClassifier
from optimaltrees.search.engine import EngineOptions, current_options, engine_options


def test_options_of_one_thread_never_reach_another():
    inside = threading.Event()
    release = threading.Event()
    seen = {}

    def tuned():
        with engine_options(maps_after=0, sweep_after=-1.0):
            seen["tuned"] = current_options()
            inside.set()
            release.wait(10)

    worker = threading.Thread(target=tuned)
    worker.start()
    assert inside.wait(10)
    seen["main"] = current_options()
    other = threading.Thread(target=lambda: seen.setdefault("other", current_options()))
    other.start()
    other.join()
    release.set()
    worker.join()
    assert seen["tuned"].maps_after == 0 and seen["tuned"].sweep_after == -1.0
    assert seen["main"] == EngineOptions() and seen["other"] == EngineOptions()
    assert current_options() == EngineOptions()


def test_a_block_restores_the_options_even_on_error():
    with pytest.raises(RuntimeError):
        with engine_options(maps_after=5):
            assert current_options().maps_after == 5
            raise RuntimeError
    assert current_options() == EngineOptions()


def test_fits_run_with_the_options_of_their_block():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3))
    y = ((X[:, 0] + X[:, 1] > 0) ^ (rng.random(3000) < 0.1)).astype(int)
    with engine_options(maps_after=0, histogram_scans=0.0):
        plain = OptimalTreeClassifier(max_depth=2, time_limit=None).fit(X, y)
    with engine_options(maps_after=1, histogram_scans=0.0):
        mapped = OptimalTreeClassifier(max_depth=2, time_limit=None).fit(X, y)
    assert plain.stats_["map_moves"] == 0 and mapped.stats_["map_moves"] > 0
    assert plain.train_error_ == mapped.train_error_


@pytest.mark.parametrize("field, value", [("pairs", "sometimes"), ("select", "fast")])
def test_unknown_modes_are_refused(field, value):
    with pytest.raises(ValueError, match=field):
        EngineOptions(**{field: value})
