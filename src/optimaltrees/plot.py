"""Pictures of fitted models with matplotlib alone (no Graphviz binary needed).

Every function draws into ``ax`` when given one, else into a new
:class:`matplotlib.figure.Figure` (no pyplot state, so it works headless and
inside notebooks alike), and returns the figure.  ``save(fig, path)`` writes
PNG, SVG or PDF by the file's extension.

Trees and diagrams are laid out in inches from the measured size of every
label, so boxes and labels do not overlap and arcs do not cross boxes:

* a tree is drawn root on top while that fits in ``max_width`` inches
  (:data:`MAX_WIDTH` by default), else root on the left with one row per
  leaf (a depth-6 tree stays readable instead of 50 inches wide);
* a diagram is drawn layer by layer, nodes ordered to keep arcs short; an
  arc that skips layers passes between the boxes of the layers it crosses.

Thresholds print exactly (:func:`optimaltrees.model.export.format_threshold`),
so the picture routes every value as ``predict`` and ``export_text`` do.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from optimaltrees.model.diagram import DecisionDiagram
from optimaltrees.model.export import format_threshold, leaf_counts, leaf_prediction, split_texts
from optimaltrees.model.regression_tree import RegressionTree
from optimaltrees.model.tree import Tree
from optimaltrees._optional import require

#: widest figure (inches) the tree and diagram pictures aim for; beyond it
#: trees turn sideways and fonts shrink down to ``_MIN_FONT``
MAX_WIDTH = 14.0
_FONT = 8.0                 # box labels (points)
_MIN_FONT = 5.0
_ARC_FONT_SCALE = 0.875     # "yes"/"no" relative to the box font
_PAD = 0.35                 # box padding, in font sizes (matplotlib's boxstyle pad)
_GAP = 0.25                 # inches between neighbouring boxes
_MARGIN = 0.2               # inches around the drawing
_TITLE = 0.45               # inches reserved for a title

_YES = dict(color="#1f6fb4", linestyle="-")
_NO = dict(color="#888888", linestyle="--")
_BOX = dict(boxstyle=f"round,pad={_PAD}", facecolor="#f4f7fb", edgecolor="#1f6fb4")
_LEAF = dict(boxstyle=f"round,pad={_PAD}", facecolor="#eeeeee", edgecolor="#555555")
_ARC_LABEL = dict(boxstyle="square,pad=0.05", facecolor="white", edgecolor="none")


# ------------------------------------------------------------------ measuring and canvas

def _text_size(text: str, size: float) -> tuple[float, float]:
    """(width, height) in inches of ``text`` at ``size`` points, as drawn."""
    mod = require("matplotlib.textpath", "plot", "drawing models")
    from matplotlib.font_manager import FontProperties

    prop = FontProperties(size=size)
    lines = text.split("\n")
    width = max(mod.text_to_path.get_text_width_height_descent(line or " ", prop, ismath=False)[0]
                for line in lines)
    return width / 72.0, len(lines) * 1.2 * size / 72.0


def _box_size(text: str, size: float, min_width: float = 0.0) -> tuple[float, float]:
    """(width, height) in inches of the padded box around ``text``."""
    w, h = _text_size(text, size)
    pad = 2 * _PAD * size / 72.0
    return max(w + pad, min_width), h + pad


def _canvas(ax, width: float, height: float, title: str | None):
    """A figure of width x height inches (plus the title's band) whose data
    coordinates are inches, or the given ``ax`` set to the same coordinates."""
    top = height + (_TITLE if title else 0.0)
    # a title wider than the drawing widens the figure, the drawing centred
    wide = max(width, _text_size(title, 11)[0] + 2 * _MARGIN if title else 0.0)
    if ax is None:
        Figure = require("matplotlib.figure", "plot", "drawing models").Figure
        fig = Figure(figsize=(wide, top))
        ax = fig.add_axes((0.0, 0.0, 1.0, height / top))
    fig = ax.figure
    ax.set_xlim(-(wide - width) / 2, width + (wide - width) / 2)
    ax.set_ylim(0.0, height)
    ax.axis("off")
    if title:
        fig.suptitle(title, y=1.0 - 0.08 / top, va="top", fontsize=11, parse_math=False)
    return fig, ax


def _label(ax, x: float, y: float, text: str, size: float, box: dict, **kw) -> None:
    # parse_math=False: names are drawn as written ("a $x$ b" is not maths; "$\\frac{$" no error)
    ax.text(x, y, text, ha="center", va="center", fontsize=size, bbox=box, zorder=3, parse_math=False, **kw)


def _arc_label(ax, x: float, y: float, text: str, style: dict, size: float, va: str = "center") -> None:
    ax.text(x, y, text, fontsize=size * _ARC_FONT_SCALE, color=style["color"], ha="center", va=va,
            bbox=_ARC_LABEL, zorder=4, parse_math=False)


def _polyline(ax, points, style: dict) -> None:
    """An arc through ``points`` (inches) with an arrowhead at the last one."""
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path

    path = Path(np.asarray(points, dtype=float))
    ax.add_patch(FancyArrowPatch(path=path, arrowstyle="-|>,head_length=4,head_width=2.2",
                                 shrinkA=0, shrinkB=0, lw=1.1, mutation_scale=1.6, zorder=2, **style))


# ------------------------------------------------------------------ trees

def _tree_levels(tree: Tree) -> tuple[dict[int, float], dict[int, int], int]:
    """In-order leaf slots: (slot of every node, its level, number of leaves);
    a split sits halfway between its children."""
    slot: dict[int, float] = {}
    level: dict[int, int] = {}
    leaves = 0
    # iterative post-order (a chain tree must not exhaust the recursion limit)
    stack = [(0, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        left, right = int(tree.children_left[node]), int(tree.children_right[node])
        if tree.feature[node] < 0:
            slot[node], level[node] = float(leaves), depth
            leaves += 1
        elif done:
            slot[node], level[node] = (slot[left] + slot[right]) / 2, depth
        else:
            stack += [(node, depth, True), (right, depth + 1, False), (left, depth + 1, False)]
    return slot, level, leaves


def _spacing(rows: dict, sizes: dict[int, float], gap: float) -> float:
    """Smallest distance per slot so that neighbours in every row keep ``gap``
    between their extents (``sizes``: each item's extent along the row)."""
    unit = 0.0
    for items in rows.values():
        items = sorted(items)
        for (a, i), (b, j) in zip(items, items[1:]):
            if b > a:
                unit = max(unit, ((sizes[i] + sizes[j]) / 2 + gap) / (b - a))
    return unit


def _tree_texts(tree: Tree, fname, cname, split_labels, sideways: bool) -> dict[int, tuple[str, bool]]:
    out = {}
    for node in range(tree.node_count):
        f = int(tree.feature[node])
        if f < 0:
            what = leaf_prediction(tree, node, cname, 4, "value " if isinstance(tree, RegressionTree) else "class ")
            rows = leaf_counts(tree, node, " = ", "n").replace("squared error", "SSE").replace("errors", "err")
            out[node] = (f"{what} ({rows})" if sideways else f"{what}\n{rows}", True)
        else:
            out[node] = (split_texts(tree, node, fname(f), None if split_labels is None else split_labels[f])[1],
                         False)
    return out


def _tree_top_down(tree, texts, size):
    """(positions, box sizes, figure width, height) with the root on top."""
    slot, level, _ = _tree_levels(tree)
    boxes = {n: _box_size(t, size, 0.5) for n, (t, _) in texts.items()}
    arc_w, arc_h = _box_size("yes", size * _ARC_FONT_SCALE)
    rows: dict[float, list] = {}
    arc_sizes: dict[int, float] = {}
    for n in slot:
        rows.setdefault(level[n], []).append((slot[n], n))
        if tree.feature[n] >= 0:     # the arc labels between this level and the next, as items
            for k, child in enumerate((int(tree.children_left[n]), int(tree.children_right[n]))):
                key = -(2 * n + k + 1)
                arc_sizes[key] = arc_w
                rows.setdefault(level[n] + 0.5, []).append(((slot[n] + slot[child]) / 2, key))
    unit = max(_spacing(rows, {**{n: b[0] for n, b in boxes.items()}, **arc_sizes}, _GAP), 0.3)
    depth = max(level.values())
    box_h = max(b[1] for b in boxes.values())
    dy = box_h + max(0.55, 2.5 * arc_h)
    left = min(slot[n] * unit - boxes[n][0] / 2 for n in slot)
    right = max(slot[n] * unit + boxes[n][0] / 2 for n in slot)
    width = right - left + 2 * _MARGIN
    height = depth * dy + box_h + 2 * _MARGIN
    pos = {n: (slot[n] * unit - left + _MARGIN, height - _MARGIN - box_h / 2 - level[n] * dy) for n in slot}
    return pos, boxes, width, height


def _tree_sideways(tree, texts, size):
    """(positions, box sizes, figure width, height): root on the left, one
    row per leaf, each level a column of left-aligned boxes."""
    slot, level, leaves = _tree_levels(tree)
    boxes = {n: _box_size(t, size, 0.5) for n, (t, _) in texts.items()}
    arc_w, arc_h = _box_size("yes", size * _ARC_FONT_SCALE)
    box_h = max(b[1] for b in boxes.values())
    # neighbouring rows keep their boxes apart, and the arc labels (placed
    # _ALONG the way to the child, so siblings' labels are >= _ALONG rows apart)
    pitch = max(box_h + 0.06, (arc_h + 0.04) / _ALONG)
    depth = max(level.values())
    col_w = [max(boxes[n][0] for n in slot if level[n] == k) for k in range(depth + 1)]
    col_gap = max(0.8, (arc_w / 2 + 0.12) / (1 - _ALONG))
    col_x = np.concatenate([[0.0], np.cumsum([w + col_gap for w in col_w])])[:-1] + _MARGIN
    width = float(col_x[-1] + col_w[-1] + _MARGIN)
    height = (leaves - 1) * pitch + box_h + 2 * _MARGIN
    pos = {n: (float(col_x[level[n]] + boxes[n][0] / 2), height - _MARGIN - box_h / 2 - slot[n] * pitch)
           for n in slot}
    return pos, boxes, width, height


_ALONG = 0.7   # sideways trees: arc labels sit this far along the way from parent to child


def plot_tree(tree: Tree, feature_names: Sequence[str] | None = None,
              class_names: Sequence[object] | None = None, *,
              split_labels: Sequence[tuple[str, str]] | None = None, decimals: int = 3,
              title: str | None = None, ax=None, orientation: str = "auto",
              max_width: float = MAX_WIDTH):
    """Draw a tree.

    Each split shows the condition of its "yes" arc (solid, to the right
    child); the "no" (``<=``) arc is dashed.  Leaves show their class, rows
    and training errors (a :class:`~optimaltrees.RegressionTree`'s: their
    mean, rows and squared error, "SSE").  Thresholds print exactly.

    Parameters
    ----------
    tree : Tree
        The tree (an estimator's ``tree_``; :func:`plot_model` passes an
        estimator's names for you).
    feature_names : sequence of str or None, default=None
        One name per column (None: ``x[0]``, ``x[1]``, ...).
    class_names : sequence or None, default=None
        One name per class (None: the class indices).
    split_labels : sequence of (str, str) or None, default=None
        Per column, the ("no", "yes") texts that replace "name <= t" and
        "name > t" (category and SAT tests).
    decimals : int, default=3
        Kept for compatibility: thresholds are never rounded.
    title : str or None, default=None
        Title above the picture.
    ax : matplotlib.axes.Axes or None, default=None
        Draw into these axes (None: a new figure sized to the tree).
    orientation : {"auto", "top-down", "sideways"}, default="auto"
        ``"top-down"``: root on top, leaves along the bottom;
        ``"sideways"``: root on the left, one row per leaf, "no" above
        "yes"; ``"auto"``: top-down when it fits in ``max_width`` inches,
        else sideways, with smaller fonts if even that is wider.
    max_width : float, default=MAX_WIDTH
        Width in inches the picture should fit.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.
    """
    if orientation not in ("auto", "top-down", "sideways"):
        raise ValueError(f"orientation must be 'auto', 'top-down' or 'sideways', got {orientation!r}")
    fname = (lambda f: str(feature_names[f])) if feature_names is not None else (lambda f: f"x[{f}]")
    cname = (lambda c: str(class_names[c])) if class_names is not None else str
    size = _FONT
    sideways = orientation == "sideways"
    for _ in range(8):
        texts = _tree_texts(tree, fname, cname, split_labels, sideways)
        pos, boxes, width, height = (_tree_sideways if sideways else _tree_top_down)(tree, texts, size)
        if width <= max_width or size <= _MIN_FONT:
            break
        if orientation == "auto" and not sideways:
            sideways = True
            continue
        size = max(_MIN_FONT, size * min(0.97, max(0.8, max_width / width)))
    fig, ax = _canvas(ax, width, height, title)
    arc_size = size
    for node, (x, y) in pos.items():
        text, is_leaf = texts[node]
        _label(ax, x, y, text, size, _LEAF if is_leaf else _BOX)
        if is_leaf:
            continue
        w, h = boxes[node]
        for child, style, word in ((int(tree.children_left[node]), _NO, "no"),
                                   (int(tree.children_right[node]), _YES, "yes")):
            cx, cy = pos[child]
            cw, ch = boxes[child]
            if sideways:
                start, end = (x + w / 2, y), (cx - cw / 2, cy)
                along = _ALONG
            else:
                start, end = (x, y - h / 2), (cx, cy + ch / 2)
                along = 0.5
            _polyline(ax, [start, end], style)
            _arc_label(ax, start[0] + along * (end[0] - start[0]), start[1] + along * (end[1] - start[1]),
                       word, style, arc_size)
    return fig


# ------------------------------------------------------------------ diagrams

def _pava(target: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Non-decreasing sequence nearest to ``target`` (weighted least squares)."""
    blocks: list[list[float]] = []          # [mean, weight, count]
    for t, w in zip(target, weight):
        blocks.append([float(t), float(w), 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    return np.concatenate([[m] * c for m, _, c in blocks])


def _diagram_layout(diagram: DecisionDiagram, texts: dict[int, tuple[str, bool]], size: float):
    """Sugiyama-style: every arc that skips layers gets a waypoint in each
    layer it crosses; layers are ordered by barycentres, then placed as near
    their neighbours as the boxes allow.  Returns positions (inches) of
    nodes and waypoints, box sizes, each arc's vertices (keyed (tail, side)),
    every vertex's layer, each layer's box height, width, height."""
    n, depth = diagram.n_nodes, diagram.depth
    layer_of = {u: int(diagram.layer[u]) for u in range(n)}
    layer_of.update({n + c: depth for c in range(diagram.n_classes)})
    boxes = {v: _box_size(t, size, 0.0 if leaf else 0.8) for v, (t, leaf) in texts.items()}
    lane = 0.14                                    # width a passing arc takes in a layer
    up: dict[int, list[int]] = {}                  # vertex -> vertices above it it is joined to
    down: dict[int, list[int]] = {}
    chains: dict[tuple[int, str], list[int]] = {}
    next_id = n + diagram.n_classes
    for u, side, v in diagram.arcs():
        chain = [u]
        for k in range(layer_of[u] + 1, layer_of[v]):
            layer_of[next_id] = k
            boxes[next_id] = (lane, 0.0)
            chain.append(next_id)
            next_id += 1
        chain.append(v)
        for a, b in zip(chain, chain[1:]):
            down.setdefault(a, []).append(b)
            up.setdefault(b, []).append(a)
        chains[(u, side)] = chain
    layers = [[v for v in sorted(layer_of) if layer_of[v] == k] for k in range(depth + 1)]
    layers[depth] = [n + c for c in range(diagram.n_classes)]        # classes stay in order
    rank = {v: i for lay in layers for i, v in enumerate(lay)}

    def sweep(ks, links):
        for k in ks:
            if k == depth:
                continue
            def bary(v):
                nb = links.get(v, [])
                return (np.mean([rank[w] for w in nb]) if nb else rank[v], rank[v])
            layers[k].sort(key=bary)
            rank.update({v: i for i, v in enumerate(layers[k])})

    for _ in range(4):
        sweep(range(1, depth + 1), up)
        sweep(range(depth - 1, -1, -1), down)

    def separations(lay):
        return [(boxes[a][0] + boxes[b][0]) / 2 + (_GAP if boxes[a][1] and boxes[b][1] else 0.08)
                for a, b in zip(lay, lay[1:])]

    x: dict[int, float] = {}
    for lay in layers:
        offsets = np.concatenate([[0.0], np.cumsum(separations(lay))])
        x.update({v: float(o - offsets[-1] / 2) for v, o in zip(lay, offsets)})
    for it in range(8):                        # pull each layer towards its neighbours, order kept
        order = range(1, depth + 1) if it % 2 == 0 else range(depth - 1, -1, -1)
        links = up if it % 2 == 0 else down
        for k in order:
            lay = layers[k]
            c = np.concatenate([[0.0], np.cumsum(separations(lay))])
            want = np.array([np.mean([x[w] for w in links[v]]) if links.get(v) else x[v] for v in lay])
            weight = np.array([2.0 if boxes[v][1] else 1.0 for v in lay])
            z = _pava(want - c, weight)
            x.update({v: float(zi + ci) for v, zi, ci in zip(lay, z, c)})
    heights = [max((boxes[v][1] for v in lay), default=0.0) for lay in layers]
    arc_h = _box_size("yes", size * _ARC_FONT_SCALE)[1]
    dy = max(heights) + max(0.75, 3 * arc_h)
    left = min(x[v] - boxes[v][0] / 2 for v in x)
    right = max(x[v] + boxes[v][0] / 2 for v in x)
    width = right - left + 2 * _MARGIN
    height = depth * dy + heights[0] / 2 + heights[-1] / 2 + 2 * _MARGIN
    top = height - _MARGIN - heights[0] / 2
    pos = {v: (x[v] - left + _MARGIN, top - layer_of[v] * dy) for v in x}
    return pos, boxes, chains, layer_of, heights, width, height


def plot_diagram(diagram: DecisionDiagram, feature_names: Sequence[str] | None = None,
                 class_names: Sequence[object] | None = None, *, flows: np.ndarray | None = None,
                 decimals: int = 3, title: str | None = None, ax=None, max_width: float = MAX_WIDTH,
                 split_labels=None):
    """Draw a decision diagram.

    Layers top to bottom, class terminals in the last row.  Each box shows
    the condition of its "yes" arc (solid); the "no" arc is dashed; each
    arc's word sits just under the box it leaves.  Merges are visible as
    boxes with several incoming arcs; an arc that skips layers passes
    between the boxes of those layers.

    Parameters
    ----------
    diagram : DecisionDiagram
        The diagram (an estimator's ``diagram_``).
    feature_names : sequence of str or None, default=None
        One name per column (None: ``x[0]``, ``x[1]``, ...).
    class_names : sequence or None, default=None
        One name per class (None: the class indices).
    flows : array-like of shape (n_nodes,) or None, default=None
        Rows through each node (e.g. ``model.node_flows(X)``), written into
        the boxes.
    decimals : int, default=3
        Significant digits of hyperplane coefficients (univariate thresholds
        print exactly).
    title : str or None, default=None
        Title above the picture.
    ax : matplotlib.axes.Axes or None, default=None
        Draw into these axes (None: a new figure sized to the diagram).
    max_width : float, default=MAX_WIDTH
        Width in inches the picture should fit.
    split_labels : sequence of (str, str) or None, default=None
        Per column, None or the texts of a 0/1 column's two values
        (:meth:`~optimaltrees.model.diagram.DecisionDiagram.split_text`).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.
    """
    cname = (lambda c: str(class_names[c])) if class_names is not None else str
    n = diagram.n_nodes
    texts: dict[int, tuple[str, bool]] = {}
    for u in range(n):
        text = diagram.split_text(u, feature_names, decimals, split_labels)[1]
        if flows is not None:
            text += f"\nn = {int(flows[u])}"
        texts[u] = (text, False)
    for c in range(diagram.n_classes):
        texts[n + c] = (f"class {cname(c)}", True)
    size = _FONT
    for _ in range(8):
        pos, boxes, chains, layer_of, heights, width, height = _diagram_layout(diagram, texts, size)
        if width <= max_width or size <= _MIN_FONT:
            break
        size = max(_MIN_FONT, size * min(0.97, max(0.8, max_width / width)))
    fig, ax = _canvas(ax, width, height, title)
    # where each arc leaves its box: the one heading further left from the left quarter
    starts: dict[tuple[int, str], float] = {}
    for u in range(n):
        first = {side: pos[chains[(u, side)][1]][0] for side in "-+"}
        order = sorted("-+", key=lambda s: (first[s], s == "+"))
        w = boxes[u][0]
        starts[(u, order[0])] = pos[u][0] - w / 4
        starts[(u, order[1])] = pos[u][0] + w / 4
    # where arcs end: spread along the top of the box, in the order they arrive
    incoming: dict[int, list[tuple[float, tuple[int, str]]]] = {}
    for key, chain in chains.items():
        before = pos[chain[-2]][0] if len(chain) > 2 else starts[key]
        incoming.setdefault(chain[-1], []).append((before, key))
    ends: dict[tuple[int, str], float] = {}
    for v, arcs in incoming.items():
        arcs.sort()
        w = boxes[v][0]
        step = min(0.16, 0.8 * w / max(1, len(arcs)))
        for i, (_, key) in enumerate(arcs):
            ends[key] = pos[v][0] + (i - (len(arcs) - 1) / 2) * step
    for (u, side), chain in chains.items():
        style, word = (_YES, "yes") if side == "+" else (_NO, "no")
        x0, y0 = starts[(u, side)], pos[u][1] - boxes[u][1] / 2
        points = [(x0, y0)]
        for d in chain[1:-1]:                  # straight down through the layer it crosses
            dx, dy = pos[d]
            half = heights[layer_of[d]] / 2
            points += [(dx, dy + half + 0.05), (dx, dy - half - 0.05)]
        v = chain[-1]
        points.append((ends[(u, side)], pos[v][1] + boxes[v][1] / 2))
        _polyline(ax, points, style)
        _arc_label(ax, x0, y0 - 0.02, word, style, size, va="top")
    for v, (text, leaf) in texts.items():
        _label(ax, *pos[v], text, size, _LEAF if leaf else _BOX)
    return fig


# ------------------------------------------------------------------ anytime traces

def plot_trace(trace, *, error_label: str | None = None, end: float | None = None,
               title: str | None = None, ax=None):
    """Draw an anytime curve: the best objective and the proven lower bound versus time.

    Both are drawn as steps, each recorded point marked.  A one-point trace
    (a diagram the heuristic alone found) shows its point and, with an end,
    a flat line.

    Parameters
    ----------
    trace : estimator, list of TracePoint or list of tuple
        A fitted model (its ``trace_``, held flat to the end of the fit,
        where its final objective and bound are drawn), a model's
        ``trace_`` (items with ``time``, ``objective`` or ``error``,
        ``lower_bound``), or (time, objective, bound) tuples.
    error_label : str or None, default=None
        Label of the objective's axis (None: from the model, else
        "training error").
    end : float or None, default=None
        Seconds to extend the last values to (e.g. the time limit; None: a
        model's fit time, else the last point).
    title : str or None, default=None
        Title above the plot.
    ax : matplotlib.axes.Axes or None, default=None
        Draw into these axes (None: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.
    """
    final = None
    if hasattr(trace, "trace_") or hasattr(trace, "summary_"):
        model = trace
        trace = getattr(model, "trace_", None) or []
        summary = getattr(model, "summary_", None)
        if summary is not None:
            if end is None:
                end = summary.fit_seconds
            final = (summary.objective, summary.lower_bound)
            if error_label is None:
                error_label = summary.objective_name
    rows = []
    node_cost = False
    for p in trace:
        if hasattr(p, "time"):
            value = getattr(p, "objective", None)
            value = p.error if value is None else value
            node_cost |= hasattr(p, "error") and value != p.error
            rows.append((p.time, value, p.lower_bound))
        else:
            rows.append(tuple(p)[:3])
    if not rows:
        raise ValueError("the trace is empty: the model recorded no progress")
    if error_label is None:
        error_label = "objective (training errors + node cost)" if node_cost else "training error"
    t, err, bound = (np.asarray(col, dtype=float) for col in zip(*rows))
    if end is not None and end >= t[-1]:
        last = (err[-1], bound[-1]) if final is None else final
        t, err, bound = np.append(t, end), np.append(err, last[0]), np.append(bound, last[1])
    if ax is None:
        Figure = require("matplotlib.figure", "plot", "drawing models").Figure
        fig = Figure(figsize=(6.0, 3.5), layout="constrained")
        ax = fig.add_subplot()
    fig = ax.figure
    ax.step(t, err, where="post", color=_YES["color"], label="best model found")
    ax.step(t, bound, where="post", color="#d62728", linestyle=":", label="lower bound")
    recorded = len(rows)        # the points the search recorded (not the extension to the end)
    ax.plot(t[:recorded], err[:recorded], "o", ms=3.5, color=_YES["color"])
    ax.plot(t[:recorded], bound[:recorded], "o", ms=3, color="#d62728", fillstyle="none")
    if t[0] > 0 and t[-1] / t[0] > 20:
        ax.set_xscale("log")
    else:                       # from the start of the fit: the wait for a first answer shows
        ax.set_xlim(0.0, 1.03 * max(t[-1], 1e-3))
    ax.set_xlabel("seconds")
    ax.set_ylabel(error_label)
    ax.legend(loc="best", fontsize=8)
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title, parse_math=False)
    return fig


def plot_model(model, X=None, *, decimals: int = 3, title: str | None = None, ax=None):
    """Draw any fitted estimator of the library, in the names it was trained with.

    Parameters
    ----------
    model : OptimalTreeClassifier, OptimalTreeRegressor, SATTreeClassifier or DecisionDiagramClassifier
        A fitted estimator (a regressor's leaves show their mean, rows and
        squared error).
    X : array-like or None, default=None
        For a diagram: rows whose flow through each node is written into
        its box.
    decimals : int, default=3
        As in :func:`plot_tree` and :func:`plot_diagram`.
    title : str or None, default=None
        Title above the picture.
    ax : matplotlib.axes.Axes or None, default=None
        Draw into these axes (None: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.
    """
    summary = getattr(model, "summary_", None)
    if summary is None:
        raise TypeError(f"cannot draw {type(model).__name__}: fit it first, or pass an optimaltrees model")
    classes = None if getattr(model, "classes_", None) is None else list(model.classes_)   # a regressor has none
    if summary.method == "diagram":
        names = model._names(None)
        flows = None if X is None else model.node_flows(X)
        return plot_diagram(model.diagram_, names, classes, flows=flows, decimals=decimals,
                            title=title, ax=ax, split_labels=model._split_labels(None))
    labels = model._export_labels(decimals, None)        # "tree" and "sat": a Tree in tree_
    return plot_tree(model.tree_, class_names=classes, decimals=decimals, title=title, ax=ax, **labels)


def save(fig, path: str, dpi: int = 150) -> None:
    """Write a figure to a file; the format follows the extension.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (what the ``plot_*`` functions return).
    path : str or Path
        The file: ``.png``, ``.svg``, ``.pdf`` or another format matplotlib
        writes.
    dpi : int, default=150
        Resolution of raster formats.
    """
    fig.savefig(path, dpi=dpi)
