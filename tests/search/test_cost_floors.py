"""Cost floors: under a node cost, a node of depth d whose bound d node costs
already reach is solved one level shallower (``cost_floor`` in
``_features.pyx``): a tree of at most d - 1 branch nodes has depth at most
d - 1, and any other costs at least d node costs.  With them on, every
objective finds the brute force's optimum (node costs large enough for the
rule to fire, weights, leaf sizes, missing values, the tie-break's small
steps), and they settle nodes a depth-four search would otherwise search."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers import check_brute_force_classifier, n_examples, weights_from
from instances import SETTINGS, instances, regression_instances
from oracle import brute_force_objective, brute_force_sse
from oracle_cost import brute_force_cost

from optimaltrees import OptimalTreeClassifier, OptimalTreeRegressor
from optimaltrees.search.engine import engine_options

# node costs as a share of the rows' weight: from where the rule rarely
# fires to where a single split hardly pays
SHARES = [0.02, 0.08, 0.15, 0.3]


@settings(max_examples=n_examples(200), **SETTINGS)
@given(instances(max_n=9, max_features=3, max_classes=3, min_n=4), st.integers(2, 4), st.sampled_from(SHARES),
       st.sampled_from([1, 2]), st.booleans(), st.booleans(), st.sampled_from(["first_found", "fewest_nodes"]),
       st.data())
def test_classification_with_cost_floors_is_the_brute_force_optimum(inst, depth, share, min_leaf, weighted, nan,
                                                                     tie_break, data):
    X, y = inst
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    if nan:
        X = X.copy()
        X[rng.random(X.shape) < 0.15] = np.nan
    w = weights_from(data.draw, len(y)) if weighted else None
    check_brute_force_classifier(X, y, w, depth, share, min_leaf, {"cost_floors": True}, tie_break)


@settings(max_examples=n_examples(120), **SETTINGS)
@given(regression_instances(max_n=9), st.integers(2, 4), st.sampled_from(SHARES), st.booleans(), st.data())
def test_squared_error_with_cost_floors_is_the_brute_force_optimum(inst, depth, share, weighted, data):
    X, y = inst
    w = weights_from(data.draw, len(y)) if weighted else None
    sst = brute_force_sse(X, y, 0, 0.0, 1, w)
    expected = brute_force_sse(X, y, depth, share * sst, 1, w)
    with engine_options(cost_floors=True):
        reg = OptimalTreeRegressor(max_depth=depth, complexity_cost=share, tie_break="first_found",
                                   time_limit=None).fit(X, y, sample_weight=w)
    assert reg.is_optimal_
    assert abs(reg.objective_ - expected) <= 1e-9 * sst + 1e-12 * abs(expected) + 1e-300


@settings(max_examples=n_examples(80), **SETTINGS)
@given(instances(max_n=9, max_features=3, max_classes=3), st.integers(2, 4), st.sampled_from(SHARES))
def test_a_cost_matrix_with_cost_floors_is_the_brute_force_optimum(inst, depth, share):
    X, y = inst
    classes, index = np.unique(y, return_inverse=True)
    C = np.array([[0.0, 1.0, 5.0], [2.0, 0.0, 1.0], [0.5, 3.0, 0.0]])[np.ix_(range(len(classes)),
                                                                             range(len(classes)))]
    expected = brute_force_cost(X, index, depth, C, share * len(y))
    with engine_options(cost_floors=True):
        clf = OptimalTreeClassifier(max_depth=depth, cost_matrix=C, complexity_cost=share,
                                    tie_break="first_found", time_limit=None).fit(X, y)
    assert clf.is_optimal_
    assert abs(clf.objective_ - expected) <= 1e-9 * max(1.0, len(y) * 5.0)


def _and_of_three(copies: int = 5):
    """Label 1 exactly where a, b and c are all 1; ``copies`` rows of each of
    the eight combinations, except that (1, 1, 1) and (1, 1, 0) are where
    every tree of depth two errs as often as the leaf."""
    combos = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], dtype=float)
    X = np.repeat(combos, copies, axis=0)
    y = (X.sum(axis=1) == 3).astype(int)
    return X, y


@pytest.mark.parametrize("depth", [3, 4])
def test_a_tree_of_exactly_depth_nodes_is_not_cut(depth):
    """Three node costs of 1.5 (4.5) beat the leaf's 5 errors, and no tree
    of depth two beats the leaf: the chain a, b, c is the optimum.  A rule that
    claimed d + 1 node costs for trees beyond depth d - 1 would return the
    leaf at depth three."""
    X, y = _and_of_three()
    share = 1.5 / len(y)
    expected = brute_force_objective(X, y, depth, 1.5)
    assert expected == pytest.approx(4.5)
    assert brute_force_objective(X, y, 2, 1.5) == pytest.approx(5.0)
    with engine_options(cost_floors=True):
        clf = OptimalTreeClassifier(max_depth=depth, complexity_cost=share, tie_break="first_found",
                                    time_limit=None).fit(X, y)
    assert clf.is_optimal_
    assert clf.objective_ == pytest.approx(expected)
    assert clf.tree_.n_branch_nodes == 3


@pytest.mark.parametrize("every", [2, 3])
def test_cost_floors_settle_nodes_of_a_depth_four_search(every):
    """Breast cancer (scikit-learn's copy, every second or third row) at
    depth four and a node cost of 3 % of the rows: the same optimum with the
    floors on and off, from fewer subproblems searched with them."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[::every], y[::every]
    share = 0.03
    fits = {}
    for on in (False, True):
        with engine_options(cost_floors=on):
            fits[on] = OptimalTreeClassifier(max_depth=4, complexity_cost=share, tie_break="first_found",
                                             time_limit=None).fit(X, y)
    assert fits[True].is_optimal_ and fits[False].is_optimal_
    assert fits[True].objective_ == pytest.approx(fits[False].objective_, abs=1e-9)
    assert fits[True].stats_["subproblems"] < fits[False].stats_["subproblems"]
