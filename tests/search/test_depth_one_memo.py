"""Depth-two regression on noise targets by the scans, where the depth-one scans bound a
threshold's features by those of thresholds already scanned (a side that
holds a superset of another's rows has no better split on any feature).
Noise makes nearly every threshold a close call, so many features are skipped
on those bounds; an independent vectorised search over every pair of
thresholds must find the same optimum."""
import numpy as np
import pytest

from optimaltrees import OptimalTreeRegressor
from optimaltrees.search.engine.options import engine_options


def _best_stump(X, y, w):
    """The least weighted squared error of a leaf or one split of (X, y, w)."""
    def sse(sw, sy, sq):
        return sq - sy * sy / sw

    tw, ty, tq = w.sum(), (w * y).sum(), (w * y * y).sum()
    best = sse(tw, ty, tq)
    for f in range(X.shape[1]):
        order = np.argsort(X[:, f], kind="stable")
        xs, ws, ys = X[order, f], w[order], y[order]
        cw, cy, cq = np.cumsum(ws)[:-1], np.cumsum(ws * ys)[:-1], np.cumsum(ws * ys * ys)[:-1]
        cut = xs[:-1] < xs[1:]
        if cut.any():
            err = sse(cw, cy, cq) + sse(tw - cw, ty - cy, tq - cq)
            best = min(best, float(err[cut].min()))
    return best


def depth_two_sse(X, y, w):
    """The least weighted squared error of a tree of depth at most two."""
    best = _best_stump(X, y, w)
    for f in range(X.shape[1]):
        for v in np.unique(X[:, f])[:-1]:
            left = X[:, f] <= v
            best = min(best, _best_stump(X[left], y[left], w[left]) + _best_stump(X[~left], y[~left], w[~left]))
    return best


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weighted", [False, True])
def test_noise_targets_match_the_exhaustive_depth_two_search(seed, weighted):
    rng = np.random.default_rng(seed)
    n, p = 160, 3
    X = rng.normal(size=(n, p))
    X[:, 2] = np.round(X[:, 2], 1)             # one feature with ties
    y = rng.uniform(size=n)
    w = rng.integers(1, 4, size=n).astype(float) if weighted else np.ones(n)
    model = OptimalTreeRegressor(max_depth=2, complexity_cost=0.0, min_samples_leaf=1)
    with engine_options(pair_tables=0.0):      # the scans, not the pairwise tables
        model.fit(X, y, sample_weight=w if weighted else None)
    assert model.is_optimal_
    expected = depth_two_sse(X, y, w)
    sst = float((w * (y - np.average(y, weights=w)) ** 2).sum())
    assert abs(model.train_error_ - expected) <= 1e-9 * sst
    recomputed = float((w * (y - model.predict(X)) ** 2).sum())
    assert abs(recomputed - expected) <= 1e-9 * sst
