"""Pictures a reader can read: bounded width, no overlapping
labels, arcs that do not cross boxes, traces that show every fit."""
import numpy as np
import pytest

pytest.importorskip("matplotlib")

from optimaltrees.model.diagram import DecisionDiagram
from optimaltrees.model.tree import Tree
from optimaltrees.plot import MAX_WIDTH, plot_diagram, plot_trace, plot_tree

NAMES = ["glucose", "blood pressure", "insulin", "body mass index", "age", "skin thickness"]


def perfect_tree(depth: int, seed: int = 0, n_features: int = 6) -> Tree:
    """A full tree of ``depth`` with realistic labels: thresholds like 157.5,
    leaves of a few hundred rows."""
    rng = np.random.default_rng(seed)
    feature, threshold, left, right, value = [], [], [], [], []

    def build(level: int) -> int:
        node = len(feature)
        feature.append(-1), threshold.append(-2.0), left.append(-1), right.append(-1)
        value.append(None)
        if level == depth:
            value[node] = rng.integers(0, 300, size=3).astype(float)
            return node
        feature[node] = int(rng.integers(n_features))
        threshold[node] = float(rng.integers(0, 4000)) / 8 + 0.5
        left[node] = build(level + 1)
        right[node] = build(level + 1)
        value[node] = value[left[node]] + value[right[node]]
        return node

    build(0)
    return Tree(feature, threshold, left, right, np.array(value), n_features)


def skeleton_diagram(widths, seed: int = 0, n_features: int = 6, n_classes: int = 3) -> DecisionDiagram:
    """A univariate diagram on a skeleton: every arc goes to a random node of
    a later layer or to a class terminal (merges and skipped layers included)."""
    rng = np.random.default_rng(seed)
    starts = np.concatenate([[0], np.cumsum(widths)])
    n = int(starts[-1])
    layer = np.repeat(np.arange(len(widths)), widths)
    coef = np.zeros((n, n_features))
    coef[np.arange(n), rng.integers(n_features, size=n)] = 1.0
    neg, pos = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    for u in range(n):
        later = list(range(int(starts[layer[u] + 1]), n))
        nxt = list(range(int(starts[layer[u] + 1]), int(starts[min(layer[u] + 2, len(widths))])))
        targets = [n + c for c in range(n_classes)]
        # prefer the next layer (as trained diagrams mostly do), sometimes skip or stop
        choices = nxt * 3 + later + targets if nxt else targets
        a, b = rng.choice(choices, size=2, replace=False) if len(set(choices)) > 1 else (choices[0],) * 2
        neg[u], pos[u] = a, b
    return DecisionDiagram(coef=coef, threshold=rng.integers(0, 4000, size=n) / 8 + 0.5, negative=neg,
                           positive=pos, layer=layer, n_classes=n_classes, offset=np.zeros(n_features),
                           scale=np.ones(n_features), epsilon=0.0)


def boxes_and_labels(fig):
    """Display-space extents of every text (its box when it has one)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)          # the Agg backend, whatever pyplot's is
    canvas.draw()
    renderer = canvas.get_renderer()
    out = []
    for text in fig.findobj(match=lambda a: a.__class__.__name__ == "Text"):
        if not text.get_text() or not text.get_visible():
            continue
        patch = text.get_bbox_patch()
        extent = (patch.get_window_extent(renderer) if patch is not None
                  else text.get_window_extent(renderer))
        out.append((text.get_text(), extent, patch is not None and "round" in str(patch.get_boxstyle())))
    return out


def overlaps(items, tol=0.5):
    bad = []
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            a, b = items[i][1], items[j][1]
            if (min(a.x1, b.x1) - max(a.x0, b.x0) > tol) and (min(a.y1, b.y1) - max(a.y0, b.y0) > tol):
                bad.append((items[i][0], items[j][0]))
    return bad


def arcs_through_boxes(fig):
    """Arcs that pass through a box other than their own two ends."""
    from matplotlib.patches import FancyArrowPatch

    items = [it for it in boxes_and_labels(fig) if it[2]]
    ax = fig.axes[0]
    bad = []
    for patch in ax.patches:
        if not isinstance(patch, FancyArrowPatch):
            continue
        verts = patch.get_path().vertices if patch._path_original is None else patch._path_original.vertices
        pts = []
        for p, q in zip(verts, verts[1:]):
            for s in np.linspace(0, 1, 40):
                pts.append(p + s * (q - p))
        disp = ax.transData.transform(np.array(pts))
        ends = ax.transData.transform(np.array([verts[0], verts[-1]]))
        for text, ext, _ in items:
            inside = ((disp[:, 0] > ext.x0 + 1) & (disp[:, 0] < ext.x1 - 1)
                      & (disp[:, 1] > ext.y0 + 1) & (disp[:, 1] < ext.y1 - 1))
            own = any(ext.x0 - 2 <= e[0] <= ext.x1 + 2 and ext.y0 - 2 <= e[1] <= ext.y1 + 2 for e in ends)
            if inside.any() and not own:
                bad.append(text)
    return bad


@pytest.mark.parametrize("depth", [2, 3, 4, 5, 6])
def test_tree_pictures_fit_the_width_cap_without_overlaps(depth):
    fig = plot_tree(perfect_tree(depth), NAMES, ["no", "yes", "maybe"], title=f"depth {depth}")
    assert fig.get_figwidth() <= MAX_WIDTH + 1e-9
    assert overlaps(boxes_and_labels(fig)) == []
    assert arcs_through_boxes(fig) == []


def test_depth_4_tree_labels_do_not_overlap_top_down_either():
    fig = plot_tree(perfect_tree(4, seed=3), NAMES, orientation="top-down", max_width=60)
    assert overlaps(boxes_and_labels(fig)) == []


def test_small_trees_stay_top_down_and_deep_ones_turn_sideways():
    small = plot_tree(perfect_tree(2), NAMES).axes[0]
    xs = sorted(t.get_position()[0] for t in small.texts if t.get_text().startswith("class"))
    ys = {round(t.get_position()[1], 6) for t in small.texts if t.get_text().startswith("class")}
    assert len(ys) == 1 and len(xs) == 4          # leaves side by side along the bottom
    deep = plot_tree(perfect_tree(6), NAMES)
    assert deep.get_figheight() > deep.get_figwidth()


def test_single_leaf_tree():
    leaf = Tree([-1], [-2.0], [-1], [-1], [[4.0, 1.0]], 2)
    fig = plot_tree(leaf)
    assert [t.get_text() for t in fig.axes[0].texts] == ["class 0\nn = 5, err = 1"]


@pytest.mark.parametrize("widths", [(1, 2), (1, 2, 3), (1, 2, 4, 4), (1, 2, 4, 8), (1, 2, 3, 3, 3, 3)])
def test_diagram_pictures_have_no_overlaps_and_arcs_avoid_boxes(widths):
    for seed in range(3):
        diagram = skeleton_diagram(widths, seed)
        fig = plot_diagram(diagram, NAMES, ["low", "mid", "high"], flows=np.arange(diagram.n_nodes) * 10)
        assert fig.get_figwidth() <= MAX_WIDTH + 1e-9
        assert overlaps(boxes_and_labels(fig)) == [], (widths, seed)
        assert arcs_through_boxes(fig) == [], (widths, seed)


def _plotted_points(fig):
    return sum(len(line.get_xdata()) for line in fig.axes[0].lines)


def test_one_point_trace_is_drawn():
    fig = plot_trace([(0.4, 0.12, 0.0)])
    assert _plotted_points(fig) >= 1
    fig = plot_trace([(0.4, 0.12, 0.0)], end=2.0)
    assert max(max(line.get_xdata()) for line in fig.axes[0].lines) == 2.0


def test_heuristic_only_diagram_trace_is_drawn():
    from optimaltrees import DecisionDiagramClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(int)
    model = DecisionDiagramClassifier((1, 2), time_limit=0.3, heuristic_time=1.0, random_state=0).fit(X, y)
    fig = plot_trace(model)
    assert _plotted_points(fig) >= 1
    visible = [line for line in fig.axes[0].lines if len(line.get_xdata()) >= 2]
    assert visible, "the trace shows a line, not only a point"
    assert max(visible[0].get_xdata()) == pytest.approx(model.fit_time_)


def test_tree_trace_runs_to_the_end_of_the_fit():
    from optimaltrees import OptimalTreeClassifier

    rng = np.random.default_rng(1)
    X = rng.integers(0, 6, size=(80, 3)).astype(float)
    y = (X[:, 0] + X[:, 1] > 5).astype(int)
    model = OptimalTreeClassifier(max_depth=2, search="blossom").fit(X, y)
    fig = plot_trace(model)
    best = fig.axes[0].lines[0]
    assert best.get_xdata()[-1] == model.fit_time_
    assert best.get_ydata()[-1] == model.objective_
    assert fig.axes[0].get_ylabel() == "training errors"


def test_names_with_dollar_signs_are_drawn_as_written():
    """'a $x$ b' was drawn as maths and 'p $\\frac{$' failed in matplotlib's parser."""
    import io

    stump = Tree([0, -1, -1], [0.5, -2.0, -2.0], [1, -1, -1], [2, -1, -1],
                 [[2.0, 2.0], [2.0, 0.0], [0.0, 2.0]], 1)
    for name in ("a $x$ b", "p $\\frac{$"):
        fig = plot_tree(stump, feature_names=[name], class_names=["$1", "$2"], title=name)
        fig.savefig(io.BytesIO(), format="png")        # renders every text: the maths parser ran here
        assert any(name in t.get_text() for t in fig.axes[0].texts)


def test_a_regressor_is_drawn_with_its_leaves_mean_rows_and_squared_error(tmp_path):
    import json

    import pandas as pd

    from optimaltrees import OptimalTreeRegressor
    from optimaltrees.io import model_from_dict, model_to_dict
    from optimaltrees.plot import plot_model, save

    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"size": rng.random(40), "colour": rng.choice(["red", "blue"], 40)})
    y = 3 * frame["size"].to_numpy() + (frame["colour"] == "red").to_numpy()
    frame.loc[[0, 5], "size"] = np.nan
    model = OptimalTreeRegressor(max_depth=2).fit(frame, y)
    fig = plot_model(model, title="price")
    texts = [t.get_text() for t in fig.axes[0].texts]
    leaves = [t for t in texts if t.startswith("value ")]
    assert len(leaves) == model.tree_.n_leaves
    for node in np.flatnonzero(model.tree_.feature < 0):
        tree = model.tree_
        assert any(f"value {tree.value[node, 0]:.6g}\nn = {tree.node_samples[node]}, "
                   f"SSE = {tree.node_sse[node]:.6g}" == text for text in leaves), (node, leaves)
    assert any("colour == red" in t for t in texts) and not any("SSEor" in t or "class" in t for t in texts)
    save(fig, str(tmp_path / "regressor.png"))
    assert (tmp_path / "regressor.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    back = model_from_dict(json.loads(json.dumps(model_to_dict(model))))
    assert [t.get_text() for t in plot_model(back, title="price").axes[0].texts] == texts
    assert plot_trace(model).axes[0].get_ylabel() == "squared error"
