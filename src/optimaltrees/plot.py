"""Pictures of fitted models with matplotlib alone (no Graphviz binary needed).

Every function draws into ``ax`` when given one, else into a new
:class:`matplotlib.figure.Figure` (no pyplot state, so it works headless and
inside notebooks alike), and returns the figure.  ``save(fig, path)`` writes
PNG, SVG or PDF by the file's extension.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from optimaltrees.model.diagram import DecisionDiagram
from optimaltrees.model.tree import Tree
from optimaltrees._optional import require

_YES = dict(color="#1f6fb4", linestyle="-")
_NO = dict(color="#888888", linestyle="--")
_BOX = dict(boxstyle="round,pad=0.35", facecolor="#f4f7fb", edgecolor="#1f6fb4")
_LEAF = dict(boxstyle="round,pad=0.35", facecolor="#eeeeee", edgecolor="#555555")


def _figure(ax, width: float, height: float):
    if ax is not None:
        return ax.figure, ax
    Figure = require("matplotlib.figure", "plot", "drawing models").Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()


def _arc(ax, start, end, style: dict, label: str | None = None) -> None:
    ax.annotate("", xy=end, xytext=start,
                arrowprops=dict(arrowstyle="-|>", shrinkA=14, shrinkB=14, lw=1.2, **style))
    if label:
        mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
        ax.text(mx, my, label, fontsize=7, color=style["color"], ha="center", va="center",
                bbox=dict(boxstyle="square,pad=0.05", facecolor="white", edgecolor="none"))


def _finish(ax, title: str | None, xs, ys) -> None:
    ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.6)
    ax.axis("off")
    if title:
        ax.set_title(title)


def plot_diagram(diagram: DecisionDiagram, feature_names: Sequence[str] | None = None,
                 class_names: Sequence[object] | None = None, *, flows: np.ndarray | None = None,
                 decimals: int = 3, title: str | None = None, ax=None):
    """Layers top to bottom, class terminals in the last row.  Each box shows
    the condition of its "yes" arc (solid); the "no" arc is dashed.  Merges
    are visible as boxes with several incoming arcs; ``flows`` (e.g.
    ``model.node_flows(X)``) adds the rows through each node."""
    cname = (lambda c: str(class_names[c])) if class_names is not None else str
    depth = diagram.depth
    pos: dict[int, tuple[float, float]] = {}
    widest = max([diagram.n_classes] + [int(np.sum(diagram.layer == k)) for k in range(depth)])
    for k in range(depth):
        nodes = np.flatnonzero(diagram.layer == k)
        for i, u in enumerate(nodes):
            pos[int(u)] = ((i + 0.5) * widest / len(nodes), -float(k))
    for c in range(diagram.n_classes):
        pos[diagram.n_nodes + c] = ((c + 0.5) * widest / diagram.n_classes, -float(depth))
    fig, ax = _figure(ax, max(6.0, 2.3 * widest), 1.5 * (depth + 1) + 0.5)
    for u in range(diagram.n_nodes):
        _arc(ax, pos[u], pos[int(diagram.positive[u])], _YES, "yes")
        _arc(ax, pos[u], pos[int(diagram.negative[u])], _NO, "no")
    for u in range(diagram.n_nodes):
        text = diagram.split_text(u, feature_names, decimals)[1]
        if flows is not None:
            text += f"\nn = {int(flows[u])}"
        ax.text(*pos[u], text, ha="center", va="center", fontsize=8, bbox=_BOX, wrap=True)
    for c in range(diagram.n_classes):
        ax.text(*pos[diagram.n_nodes + c], f"class {cname(c)}", ha="center", va="center",
                fontsize=9, bbox=_LEAF)
    xs, ys = zip(*pos.values()) if pos else ((0.0,), (0.0,))
    _finish(ax, title, xs, ys)
    return fig


def plot_tree(tree: Tree, feature_names: Sequence[str] | None = None,
              class_names: Sequence[object] | None = None, *,
              split_labels: Sequence[tuple[str, str]] | None = None, decimals: int = 3,
              title: str | None = None, ax=None):
    """Root on top, leaves in order along the bottom; the left ("<=") arc is
    dashed, the right (">") arc solid.  Leaves show their class, rows and errors."""
    fname = (lambda f: str(feature_names[f])) if feature_names is not None else (lambda f: f"x[{f}]")
    cname = (lambda c: str(class_names[c])) if class_names is not None else str
    pos: dict[int, tuple[float, float]] = {}
    next_leaf = [0.0]

    def place(node: int, level: int) -> float:
        if tree.feature[node] < 0:
            x = next_leaf[0]
            next_leaf[0] += 1.0
        else:
            x = (place(int(tree.children_left[node]), level + 1)
                 + place(int(tree.children_right[node]), level + 1)) / 2
        pos[node] = (x, -float(level))
        return x

    place(0, 0)
    fig, ax = _figure(ax, max(5.0, 1.7 * next_leaf[0]), 1.4 * (tree.max_depth + 1) + 0.5)
    for node, (x, y) in pos.items():
        f = int(tree.feature[node])
        if f < 0:
            counts = tree.value[node]
            n, label = int(counts.sum()), int(counts.argmax())
            ax.text(x, y, f"class {cname(label)}\nn = {n}, err = {n - int(counts.max())}",
                    ha="center", va="center", fontsize=8, bbox=_LEAF)
            continue
        left, right = int(tree.children_left[node]), int(tree.children_right[node])
        if split_labels is not None:
            no_text, yes_text = split_labels[f]
            text = yes_text
        else:
            text = f"{fname(f)} > {tree.threshold[node]:.{decimals}g}"
        _arc(ax, pos[node], pos[left], _NO, "no")
        _arc(ax, pos[node], pos[right], _YES, "yes")
        ax.text(x, y, text, ha="center", va="center", fontsize=8, bbox=_BOX)
    xs, ys = zip(*pos.values())
    _finish(ax, title, xs, ys)
    return fig


def plot_trace(trace, *, error_label: str = "training error", title: str | None = None, ax=None):
    """Anytime curve: the incumbent's error and the proven lower bound versus
    time, as steps.  ``trace`` is a fitted model's ``trace_`` (items with
    ``time``, ``error``, ``lower_bound``) or (time, error, bound) tuples."""
    rows = [(p.time, p.error, p.lower_bound) if hasattr(p, "time") else tuple(p)[:3] for p in trace]
    if not rows:
        raise ValueError("the trace is empty: the model recorded no progress")
    t, err, bound = (np.asarray(col, dtype=float) for col in zip(*rows))
    fig, ax = _figure(ax, 6.0, 3.5)
    ax.step(t, err, where="post", color=_YES["color"], label="best model found")
    ax.step(t, bound, where="post", color="#d62728", linestyle=":", label="lower bound")
    if t[-1] > 0 and np.all(t > 0):
        ax.set_xscale("log")
    ax.set_xlabel("seconds")
    ax.set_ylabel(error_label)
    ax.legend(loc="best", fontsize=8)
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title)
    return fig


def plot_model(model, X=None, *, decimals: int = 3, title: str | None = None, ax=None):
    """Draw any fitted estimator of the library: a diagram (with the row flows
    of ``X`` when given) or a tree, in the names it was trained with."""
    summary = getattr(model, "summary_", None)
    if summary is None:
        raise TypeError(f"cannot draw {type(model).__name__}: fit it first, or pass an optimaltrees model")
    classes = list(model.classes_)
    if summary.method == "diagram":
        names = model._names(None)
        flows = None if X is None else model.node_flows(X)
        return plot_diagram(model.diagram_, names, classes, flows=flows, decimals=decimals,
                            title=title, ax=ax)
    labels = model._export_labels(decimals, None)        # "tree" and "sat": a Tree in tree_
    return plot_tree(model.tree_, class_names=classes, decimals=decimals, title=title, ax=ax, **labels)


def save(fig, path: str, dpi: int = 150) -> None:
    """Write the figure; the format follows the extension (.png, .svg, .pdf)."""
    fig.savefig(path, dpi=dpi)
