"""Printed thresholds route every value as the model does: a threshold
is printed as the shortest string that parses back to the same float, so a
split at 157.5 never reads ``> 158``, nor a diagram's 107.5 ``>= 107``."""
import math
import re
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers import n_examples
from optimaltrees import OptimalTreeClassifier
from optimaltrees.data.binarize import Binarizer
from optimaltrees.model.diagram import DecisionDiagram
from optimaltrees.model.export import (export_diagram_dot, export_diagram_text, export_text,
                                       export_tree_dot, format_threshold)
from optimaltrees.model.tree import Tree


def stump(t: float, feature: int = 0, n_features: int = 1) -> Tree:
    return Tree([feature, -1, -1], [t, -2.0, -2.0], [1, -1, -1], [2, -1, -1],
                [[3.0, 3.0], [3.0, 0.0], [0.0, 3.0]], n_features)


def univariate(t: float, coef: float = 1.0, epsilon: float = 0.0, offset: float = 0.0,
               scale: float = 1.0) -> DecisionDiagram:
    """One node on x[0]: positive (class 1) iff coef * ((x - offset) * scale) >= t."""
    return DecisionDiagram(coef=np.array([[coef]]), threshold=np.array([t]), negative=np.array([1]),
                           positive=np.array([2]), layer=np.array([0]), n_classes=2,
                           offset=np.array([offset]), scale=np.array([scale]), epsilon=epsilon)


def near(t: float) -> np.ndarray:
    """A grid of floats around t: its neighbours, roundings, and the value
    one would read off a rounded picture."""
    vals = [t]
    for direction in (-math.inf, math.inf):
        x = t
        for _ in range(3):
            x = math.nextafter(x, direction)
            vals.append(x)
    for digits in (1, 2, 3, 4, 6, 10, 15, 17):
        vals.append(float(f"{t:.{digits}g}"))
    vals += [round(t), math.floor(t) if math.isfinite(t) else t, math.ceil(t) if math.isfinite(t) else t]
    vals = np.array(vals, dtype=np.float64)
    return vals[np.isfinite(vals)]


reals = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([157.5, 107.5, 1e19, -1e19, 5e-324, -5e-324, 2.2250738585072014e-308, -0.0, 0.0,
                     0.1 + 0.2, 0.1 / 2 + 0.2 / 2, 1 / 3, 2.0 ** 53 + 2, 1e-7, 123456.789]),
)


def test_format_threshold_examples():
    assert format_threshold(157.5) == "157.5"
    assert format_threshold(158.0) == "158"
    assert format_threshold(-0.0) == "0"
    assert format_threshold(1e19) == "1e19"
    assert format_threshold(5e-324) == "5e-324"
    assert format_threshold(0.1 + 0.2) == "0.30000000000000004"
    assert format_threshold(2 ** 60 + 1) == "1152921504606846977"     # exact integers stay exact
    assert format_threshold(np.float64(2.5)) == "2.5"
    assert format_threshold(float("inf")) == "inf"


@settings(max_examples=n_examples(300), deadline=None)
@given(reals)
def test_printed_threshold_parses_back_to_the_same_float(t):
    text = format_threshold(t)
    assert float(text) == t
    # no shorter string would do: one digit fewer names another float
    mantissa = re.sub(r"e.*", "", text).replace("-", "").replace(".", "").strip("0")
    if len(mantissa) > 1:
        assert float(f"{t:.{len(mantissa) - 1}g}") != t


def test_tree_at_157_5_prints_157_5_everywhere():
    tree = stump(157.5)
    text = export_text(tree, feature_names=["glucose"])
    assert "glucose <= 157.5" in text and "glucose >  157.5" in text
    assert "158" not in text
    assert "glucose > 157.5" in export_tree_dot(tree, feature_names=["glucose"])
    assert "158" not in export_tree_dot(tree, feature_names=["glucose"])


def test_tree_picture_shows_the_exact_threshold():
    pytest.importorskip("matplotlib")
    from optimaltrees.plot import plot_tree

    fig = plot_tree(stump(157.5), feature_names=["glucose"])
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "glucose > 157.5" in texts
    assert not any("158" in t for t in texts)


def test_value_at_the_printed_threshold_goes_the_way_the_text_says():
    for t in (157.5, 0.1 + 0.2, 0.1 / 2 + 0.2 / 2, 1e19, 5e-324):
        tree = stump(t)
        printed = re.search(r"<= (\S+)", export_text(tree)).group(1)
        x = float(printed)
        # the text says x <= printed goes left (class 0)
        assert tree.predict(np.array([[x]]))[0] == 0
        assert tree.predict(np.array([[math.nextafter(x, math.inf)]]))[0] == 1


def _tree_text_route(text_threshold: str, x: float) -> bool:
    """Left ("<=") as a reader of the text decides it."""
    return x <= float(text_threshold)


@settings(max_examples=n_examples(200), deadline=None)
@given(reals)
def test_tree_text_routes_a_grid_near_t_as_predict(t):
    tree = stump(t)
    printed = re.search(r"<= (\S+)", export_text(tree)).group(1)
    grid = near(t)
    left = tree.predict(grid[:, None]) == 0
    assert np.array_equal(left, [_tree_text_route(printed, x) for x in grid])
    assert re.search(r"> (\S+)\"", export_tree_dot(tree)).group(1) == printed


@settings(max_examples=n_examples(200), deadline=None)
@given(reals, st.sampled_from([1.0, -1.0, 0.5, 3.0]), st.sampled_from([0.0, 1e-4]))
def test_diagram_text_routes_a_grid_near_t_as_predict(t, coef, epsilon):
    diagram = univariate(t, coef, epsilon)
    neg, pos = diagram.split_text(0)
    m = re.fullmatch(r"x\[0\] (>=|<=|<|>) (\S+)", pos)
    if m is None:                                     # "always" / "never": the same side for every value
        grid = near(t)
        assert pos in ("always", "never")
        assert np.all(diagram.predict(grid[:, None]) == (1 if pos == "always" else 0))
        return
    op, s = m.groups()
    v = float(s)
    grid = np.concatenate([near(t), near(v), near(t / coef) if coef else []])
    grid = grid[np.isfinite(grid)]
    said = {">=": grid >= v, "<=": grid <= v}[op]
    assert np.array_equal(diagram.predict(grid[:, None]) == 1, said), (t, coef, pos)
    assert neg == f"x[0] {'<' if op == '>=' else '>'} {s}"


def test_diagram_at_107_5_prints_107_5():
    diagram = univariate(107.5)
    assert diagram.split_text(0, ["glucose"]) == ("glucose < 107.5", "glucose >= 107.5")
    assert "glucose >= 107.5" in export_diagram_text(diagram, ["glucose"])
    assert "glucose >= 107.5" in export_diagram_dot(diagram, ["glucose"])
    assert diagram.predict(np.array([[107.5], [107.4999999]])).tolist() == [1, 0]


def test_scaled_single_feature_hyperplane_prints_where_it_flips():
    # a multivariate fit whose node uses one feature: the rule is on scaled values
    diagram = univariate(0.37, coef=1.0, offset=3.0, scale=1 / 7)
    pos = diagram.split_text(0)[1]
    v = float(pos.split(">= ")[1])
    assert diagram.predict(np.array([[v], [math.nextafter(v, -math.inf)]])).tolist() == [1, 0]


def test_binarizer_labels_are_exact():
    X = np.array([[0.1], [0.2], [157.0], [158.0]])
    labels = [left for left, _ in Binarizer().fit(X).test_labels()]
    # the shortest decimal strictly between the neighbours, nearest their midpoint
    assert labels == ["x[0] <= 0.15", "x[0] <= 100", "x[0] <= 157.5"]
    for (left, _), test in zip(Binarizer().fit(X).test_labels(), Binarizer().fit(X).tests_):
        assert float(left.split("<= ")[1]) == test.value


def test_a_fitted_tree_stores_the_shortest_decimal_between_its_neighbours():
    # the midpoint of 44.6 and 44.7 is the float 44.650000000000006
    X = np.array([[44.6], [44.7], [10.0], [50.0]])
    clf = OptimalTreeClassifier(max_depth=1).fit(X, [0, 1, 0, 1])
    assert clf.tree_.threshold[0] == 44.65
    assert "x[0] <= 44.65" in clf.export_text() and "44.650000" not in clf.export_text(decimals=8)


@settings(max_examples=400, deadline=None)
@given(st.floats(-1e300, 1e300, allow_nan=False), st.floats(-1e300, 1e300, allow_nan=False))
def test_threshold_between_routes_both_values_and_has_no_more_digits_than_the_midpoint(a, b):
    from optimaltrees.data.encoding import threshold_between

    lo, hi = min(a, b), max(a, b)
    if lo == hi:
        return
    t = threshold_between(lo, hi)
    assert lo <= t < hi
    mid = lo / 2 + hi / 2
    if lo < mid < hi:
        def significant(x):
            return len(Decimal(repr(x)).normalize().as_tuple().digits)
        assert lo < t and significant(t) <= significant(mid)
