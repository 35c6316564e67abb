"""Human-readable exports of a :class:`~optimaltrees.model.tree.Tree` and
of a :class:`~optimaltrees.model.diagram.DecisionDiagram`.

Every threshold that becomes text (here, in :mod:`optimaltrees.plot`, in the
SAT binarizer's test labels and so on the command line) goes through
:func:`format_threshold`, so a picture and a text export route every value
as the model does.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from optimaltrees.data.thresholds import format_threshold
from optimaltrees.model.regression_tree import RegressionTree
from optimaltrees.model.tree import Tree

__all__ = ["export_diagram_dot", "export_diagram_text", "export_text", "export_tree_dot", "format_threshold"]


def export_text(
    tree: Tree,
    feature_names: Sequence[str] | None = None,
    class_names: Sequence[object] | None = None,
    decimals: int = 4,
    split_labels: Sequence[tuple[str, str]] | None = None,
) -> str:
    """Render a tree as indented if/else text, one line per branch and leaf.

    Estimators have their own ``export_text`` method, which passes their
    column and class names; this function works on a bare :class:`Tree`.

    Parameters
    ----------
    tree : Tree
        The tree.
    feature_names : sequence of str or None, default=None
        One name per column (None: ``x[0]``, ``x[1]``, ...).
    class_names : sequence or None, default=None
        One name per class (None: the class indices).
    decimals : int, default=4
        Never rounds a threshold (a rounded one would route some value
        differently from the model): thresholds print exactly, and a fitted
        tree stores each as the shortest decimal strictly between its two
        neighbouring training values, so they print short (``44.65``).
    split_labels : sequence of (str, str) or None, default=None
        Per column, the (left, right) texts that replace "name <= t" and
        "name > t", e.g. ("color != red", "color == red") for a 0/1 test.

    Returns
    -------
    str
        The text, ending with a newline.
    """
    if split_labels is not None and len(split_labels) != tree.n_features:
        raise ValueError(
            f"split_labels has {len(split_labels)} entries, the tree has {tree.n_features} features"
        )
    if feature_names is not None and len(feature_names) != tree.n_features:
        raise ValueError(
            f"feature_names has {len(feature_names)} names, the tree has {tree.n_features} features"
        )
    fname = (lambda f: str(feature_names[f])) if feature_names is not None else (lambda f: f"x[{f}]")
    cname = (lambda c: str(class_names[c])) if class_names is not None else (lambda c: str(c))
    lines: list[str] = []

    def leaf_line(node: int, indent: str) -> str:
        return f"{indent}{leaf_prediction(tree, node, cname, decimals)}  ({leaf_counts(tree, node, '=')})"

    # depth-first with an explicit stack: a deep (chain) tree cannot exhaust
    # Python's recursion limit; entries are a node to expand or a line to emit
    stack: list[tuple[int, str] | str] = [(0, "")]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            lines.append(item)
            continue
        node, indent = item
        f = tree.feature[node]
        if f < 0:
            lines.append(leaf_line(node, indent))
            continue
        left_text, right_text = split_texts(tree, node, fname(f),
                                            None if split_labels is None else split_labels[f], " >  ")
        stack += [(int(tree.children_right[node]), indent + "|   "), f"{indent}|--- {right_text}",
                  (int(tree.children_left[node]), indent + "|   "), f"{indent}|--- {left_text}"]
    return "\n".join(lines) + "\n"


def _diagram_names(diagram, feature_names, class_names):
    if feature_names is not None and len(feature_names) != diagram.n_features:
        raise ValueError(f"feature_names has {len(feature_names)} names, the diagram has "
                         f"{diagram.n_features} features")
    cname = (lambda c: str(class_names[c])) if class_names is not None else (lambda c: str(c))
    return feature_names, cname


def export_diagram_text(diagram, feature_names: Sequence[str] | None = None,
                        class_names: Sequence[object] | None = None, decimals: int = 4,
                        split_labels=None) -> str:
    """Render a diagram as text, one node after the other, layer by layer.

    Parameters
    ----------
    diagram : DecisionDiagram
        The diagram.
    feature_names : sequence of str or None, default=None
        One name per column (None: ``x[0]``, ``x[1]``, ...).
    class_names : sequence or None, default=None
        One name per class (None: the class indices).
    decimals : int, default=4
        Significant digits of hyperplane coefficients (univariate thresholds
        print exactly).
    split_labels : sequence of (str, str) or None, default=None
        Per column, None or the texts of a 0/1 column's two values
        (:meth:`DecisionDiagram.split_text`).

    Returns
    -------
    str
        Per node its layer, merges (``[2 incoming arcs]``), both conditions
        and where each leads.
    """
    names, cname = _diagram_names(diagram, feature_names, class_names)
    indeg = diagram.in_degree()

    def target(t: int) -> str:
        return f"node {t}" if t < diagram.n_nodes else f"class {cname(t - diagram.n_nodes)}"

    lines = []
    for u in range(diagram.n_nodes):
        neg, pos = diagram.split_text(u, names, decimals, split_labels)
        merge = f"  [{indeg[u]} incoming arcs]" if u and indeg[u] > 1 else ""
        lines.append(f"node {u} (layer {diagram.layer[u]}){merge}")
        lines.append(f"  if {neg}: {target(int(diagram.negative[u]))}")
        lines.append(f"  if {pos}: {target(int(diagram.positive[u]))}")
    return "\n".join(lines)


def dot_escape(text: str) -> str:
    """Text inside a DOT string: a backslash or a quote in a name (``D:\\``,
    ``15" screen``) would end the string early."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def export_diagram_dot(diagram, feature_names: Sequence[str] | None = None,
                       class_names: Sequence[object] | None = None, decimals: int = 4,
                       split_labels=None) -> str:
    """Render a diagram as Graphviz DOT source.

    Boxes for decisions (the negative arc dashed), ellipses for the class
    terminals, layers ranked top to bottom.

    Parameters
    ----------
    diagram : DecisionDiagram
        The diagram.
    feature_names : sequence of str or None, default=None
        One name per column (None: ``x[0]``, ``x[1]``, ...).
    class_names : sequence or None, default=None
        One name per class (None: the class indices).
    decimals : int, default=4
        Significant digits of hyperplane coefficients.
    split_labels : sequence of (str, str) or None, default=None
        Per column, None or the texts of a 0/1 column's two values
        (:meth:`DecisionDiagram.split_text`).

    Returns
    -------
    str
        A ``digraph`` for Graphviz's ``dot``.
    """
    names, cname = _diagram_names(diagram, feature_names, class_names)
    esc = dot_escape
    out = ["digraph DecisionDiagram {", '  node [fontname="Helvetica"];', '  edge [fontname="Helvetica"];']
    for u in range(diagram.n_nodes):
        neg, pos = diagram.split_text(u, names, decimals, split_labels)
        out.append(f'  n{u} [shape=box, label="{esc(pos)}"];')
    for c in range(diagram.n_classes):
        out.append(f'  t{c} [shape=ellipse, style=filled, fillcolor="#eeeeee", label="{esc(cname(c))}"];')
    for layer in range(diagram.depth):
        same = " ".join(f"n{u};" for u in range(diagram.n_nodes) if diagram.layer[u] == layer)
        out.append(f"  {{rank=same; {same}}}")
    out.append("  {rank=sink; " + " ".join(f"t{c};" for c in range(diagram.n_classes)) + "}")

    def ref(t: int) -> str:
        return f"n{t}" if t < diagram.n_nodes else f"t{t - diagram.n_nodes}"

    for u in range(diagram.n_nodes):
        out.append(f'  n{u} -> {ref(int(diagram.positive[u]))} [label="yes"];')
        out.append(f'  n{u} -> {ref(int(diagram.negative[u]))} [label="no", style=dashed];')
    out.append("}")
    return "\n".join(out)


def split_texts(tree: Tree, node: int, name: str, labels: tuple[str, str] | None = None,
                greater: str = " > ") -> tuple[str, str]:
    """(left, right) texts of the split at ``node`` on a column called
    ``name``: ``labels`` when the column is a yes/no test ("colour != red",
    "colour == red"), else "name <= t" / "name > t".  A tree fitted on data
    with missing values also says which side they take, and a split of
    missing from present values says just that."""
    t = float(tree.threshold[node])
    if labels is not None:
        left, right = labels
    else:
        left, right = f"{name} <= {format_threshold(t)}", f"{name}{greater}{format_threshold(t)}"
    if not tree.missing_in_training:
        return left, right
    if bool(tree.missing_left[node]):
        return ((f"{name} is missing", f"{name} is present") if t == -np.inf
                else (f"{left} or missing", right))
    return ((f"{name} is present", f"{name} is missing") if t == np.inf
            else (left, f"{right} or missing"))


def leaf_prediction(tree: Tree, node: int, cname, decimals: int, prefix: str | None = None) -> str:
    """What a leaf predicts: ``class: setosa``, or a regression tree's
    ``value: 12.34`` (its mean, to ``decimals`` significant digits at least 6)."""
    if isinstance(tree, RegressionTree):
        return f"{'value: ' if prefix is None else prefix}{float(tree.value[node, 0]):.{max(decimals, 6)}g}"
    return f"{'class: ' if prefix is None else prefix}{cname(int(tree.node_class()[node]))}"


def leaf_counts(tree: Tree, node: int, eq: str, rows: str = "samples") -> str:
    """A leaf's rows and errors, or its weight and misclassified weight when
    the tree was fitted with sample weights; a regression leaf's rows (and
    weight) and squared error."""
    if isinstance(tree, RegressionTree):
        weight = f", weight{eq}{float(tree.node_weight[node]):.6g}" if tree.weighted else ""
        return (f"{rows}{eq}{int(tree.node_samples[node])}{weight}, "
                f"squared error{eq}{float(tree.node_sse[node]):.6g}")
    counts = tree.value[node]
    # the leaf's class is its largest, or with a cost matrix its cheapest
    total, top = float(counts.sum()), float(counts[int(tree.node_class()[node])])
    chosen = int(tree.node_class()[node])
    cost = "" if tree.cost_matrix is None else f", cost{eq}{float(counts @ tree.cost_matrix[:, chosen]):.6g}"
    if tree.weighted:
        return f"weight{eq}{total:.6g}, errors{eq}{total - top:.6g}{cost}"
    return f"{rows}{eq}{int(total)}, errors{eq}{int(total) - int(top)}{cost}"


def export_tree_dot(tree: Tree, feature_names: Sequence[str] | None = None,
                    class_names: Sequence[object] | None = None, decimals: int = 4,
                    split_labels: Sequence[tuple[str, str]] | None = None) -> str:
    """Graphviz DOT source of a tree: boxes for splits (the left, "<=" arc
    dashed), ellipses for leaves with their class, rows and errors."""
    fname = (lambda f: str(feature_names[f])) if feature_names is not None else (lambda f: f"x[{f}]")
    cname = (lambda c: str(class_names[c])) if class_names is not None else (lambda c: str(c))
    out = ["digraph Tree {", '  node [fontname="Helvetica"];', '  edge [fontname="Helvetica"];']
    for node in range(tree.node_count):
        f = int(tree.feature[node])
        if f < 0:
            label = (f"{dot_escape(leaf_prediction(tree, node, cname, decimals, ''))}\\n"
                     f"{leaf_counts(tree, node, ' = ', 'n')}")
            out.append(f'  n{node} [shape=ellipse, style=filled, fillcolor="#eeeeee", label="{label}"];')
            continue
        text = split_texts(tree, node, fname(f), None if split_labels is None else split_labels[f])[1]
        out.append(f'  n{node} [shape=box, label="{dot_escape(text)}"];')
        nan_left = tree.missing_in_training and bool(tree.missing_left[node])
        nan_right = tree.missing_in_training and not nan_left
        out.append(f'  n{node} -> n{int(tree.children_left[node])} '
                   f'[label="{"no or missing" if nan_left else "no"}", style=dashed];')
        out.append(f'  n{node} -> n{int(tree.children_right[node])} [label="{"yes or missing" if nan_right else "yes"}"];')
    out.append("}")
    return "\n".join(out)
