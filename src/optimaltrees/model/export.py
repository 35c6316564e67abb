"""Human-readable exports of a :class:`~optimaltrees.model.tree.Tree`."""
from __future__ import annotations

from typing import Sequence

from optimaltrees.model.tree import Tree


def export_text(
    tree: Tree,
    feature_names: Sequence[str] | None = None,
    class_names: Sequence[object] | None = None,
    decimals: int = 4,
    split_labels: Sequence[tuple[str, str]] | None = None,
) -> str:
    """Indented if/else rendering of a tree, one line per node edge.

    Names default to ``x[i]`` and to class indices; pass the estimator's
    ``feature_names_in_`` and ``classes_`` to see the user's own.
    ``split_labels[f]`` = (left text, right text) replaces "name <= t" and
    "name > t" for feature f (e.g. "color != red" / "color == red" for a
    Boolean test).
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
        counts = tree.value[node]
        label = int(counts.argmax())
        n = int(counts.sum())
        errors = n - int(counts.max())
        return f"{indent}class: {cname(label)}  (samples={n}, errors={errors})"

    def walk(node: int, indent: str) -> None:
        f = tree.feature[node]
        if f < 0:
            lines.append(leaf_line(node, indent))
            return
        if split_labels is not None:
            left_text, right_text = split_labels[f]
        else:
            t = f"{tree.threshold[node]:.{decimals}f}"
            left_text, right_text = f"{fname(f)} <= {t}", f"{fname(f)} >  {t}"
        lines.append(f"{indent}|--- {left_text}")
        walk(int(tree.children_left[node]), indent + "|   ")
        lines.append(f"{indent}|--- {right_text}")
        walk(int(tree.children_right[node]), indent + "|   ")

    walk(0, "")
    return "\n".join(lines) + "\n"
