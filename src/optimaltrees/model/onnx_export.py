"""A fitted tree as an ONNX model: a ``TreeEnsembleRegressor`` (domain
``ai.onnx.ml``, version 3) over double inputs, with double thresholds
(``nodes_values_as_tensor``), so a split compares exactly what ours compares
(no float32 rounding); it finds each row's leaf, whose label, class
probabilities or value are read from double tables.

A missing value (NaN) takes the side the search chose
(``nodes_missing_value_tracks_true``).  A tree with categorical tests reads
one input per column: a categorical column of text as strings (the empty
string is a missing value), one of numbers as doubles (NaN missing); each
test becomes a 0/1 column written by a ``LabelEncoder`` (1 for the tested
values, NaN for a missing one), split by ``BRANCH_LEQ`` as ours.
"""
from __future__ import annotations

import numpy as np

ML_DOMAIN = "ai.onnx.ml"
ML_OPSET = 3          # TreeEnsemble*'s double attributes (*_as_tensor)
OPSET = 17
_MISSING_TEXT = ""    # how a missing category is written in a string input


def _onnx():
    from optimaltrees._optional import require

    return require("onnx", "interop", "exporting to ONNX")


def _native(value):
    return value.item() if isinstance(value, np.generic) else value


def _column_types(tests, n_columns: int) -> list[str]:
    """Per input column, the ONNX element type it is read as: "string" for a
    categorical column of text, "double" otherwise; a column whose tested
    values mix text and numbers (or are neither) is refused."""
    kinds: dict[int, set] = {}
    for test in tests:
        if test.kind in ("equals", "in"):
            members = test.value if test.kind == "in" else (test.value,)
            for m in members:
                m = _native(m)
                if isinstance(m, str):
                    if m == _MISSING_TEXT:
                        raise ValueError(f"to_onnx: column {test.name!r} has the empty string as a category, "
                                         "which the ONNX model reads as a missing value")
                    kinds.setdefault(test.column, set()).add("string")
                elif isinstance(m, (bool, int, float)) and m is not None:
                    kinds.setdefault(test.column, set()).add("double")
                else:
                    raise ValueError(f"to_onnx: column {test.name!r} has the category {m!r}, neither text nor "
                                     "a number")
    mixed = [c for c, k in kinds.items() if len(k) > 1]
    if mixed:
        raise ValueError(f"to_onnx: column {mixed[0]} mixes text and number categories; ONNX reads a column "
                         "as one type")
    return [next(iter(kinds.get(c, {"double"}))) for c in range(n_columns)]


def _test_columns(helper, tests, names: list[str], types: list[str]) -> tuple[list, list]:
    """Nodes writing each tree column from the inputs, and the output names."""
    nodes, outputs = [], []
    for i, test in enumerate(tests):
        source = names[test.column]
        out = f"column_{i}"
        if test.kind == "value":
            nodes.append(helper.make_node("Identity", [source], [out]))
        elif test.kind in ("equals", "in"):
            members = [_native(m) for m in (test.value if test.kind == "in" else (test.value,))]
            if types[test.column] == "string":
                nodes.append(helper.make_node("LabelEncoder", [source], [f"{out}_f"], domain=ML_DOMAIN,
                                              keys_strings=[str(m) for m in members] + [_MISSING_TEXT],
                                              values_floats=[1.0] * len(members) + [float("nan")],
                                              default_float=0.0))
                nodes.append(helper.make_node("Cast", [f"{out}_f"], [out], to=11))        # 11: double
            else:
                nodes += _number_membership(helper, source, members, out)
        else:
            raise ValueError(f"to_onnx: unknown test kind {test.kind!r}")
        outputs.append(out)
    return nodes, outputs


def _number_membership(helper, source: str, members: list, out: str) -> list:
    """1.0 where the double input is one of ``members``, 0.0 elsewhere, NaN where missing."""
    from onnx import TensorProto

    nodes, hits = [], []
    for k, m in enumerate(members):
        const = f"{out}_v{k}"
        nodes.append(helper.make_node("Constant", [], [const],
                                      value=helper.make_tensor(const, TensorProto.DOUBLE, [], [float(m)])))
        nodes.append(helper.make_node("Equal", [source, const], [f"{out}_eq{k}"]))
        hits.append(f"{out}_eq{k}")
    for k in range(1, len(hits)):
        nodes.append(helper.make_node("Or", [hits[k - 1], hits[k]], [f"{out}_or{k}"]))
        hits[k] = f"{out}_or{k}"
    nan = f"{out}_nan"
    nodes += [helper.make_node("Cast", [hits[-1]], [f"{out}_hit"], to=11),
              helper.make_node("Constant", [], [nan], value=helper.make_tensor(nan, TensorProto.DOUBLE, [],
                                                                                [float("nan")])),
              helper.make_node("IsNaN", [source], [f"{out}_missing"]),
              helper.make_node("Where", [f"{out}_missing", nan, f"{out}_hit"], [out])]
    return nodes


def _ensemble_attributes(helper, tree) -> dict:
    """The node arrays every TreeEnsemble operator takes (one tree, id 0)."""
    from onnx import TensorProto

    n = tree.node_count
    split = tree.feature >= 0
    return dict(
        nodes_treeids=[0] * n,
        nodes_nodeids=list(range(n)),
        nodes_featureids=[int(f) if s else 0 for f, s in zip(tree.feature, split)],
        nodes_modes=["BRANCH_LEQ" if s else "LEAF" for s in split],
        nodes_values_as_tensor=helper.make_tensor("nodes_values", TensorProto.DOUBLE, [n],
                                                  np.where(split, tree.threshold, 0.0).tolist()),
        nodes_truenodeids=[int(c) if s else 0 for c, s in zip(tree.children_left, split)],
        nodes_falsenodeids=[int(c) if s else 0 for c, s in zip(tree.children_right, split)],
        nodes_missing_value_tracks_true=[int(m) for m in tree.missing_left],
    )


def tree_onnx(tree, *, tests=None, n_columns: int, names: list[str], classes=None):
    """An ONNX ``ModelProto`` predicting as ``tree`` (``classes``: the labels
    of a classification tree; None for a regression tree).

    The ensemble operator finds each row's leaf (its node number is the
    leaf's only weight, exact in float32 below 2^24 nodes); the outputs are
    gathered from per-node tables in double precision: ONNX's classifier
    operator would round probabilities to float32 and choose a binary label
    by its own rule."""
    onnx = _onnx()
    from onnx import TensorProto, helper

    if tree.node_count >= 2 ** 24:
        raise ValueError(f"to_onnx: {tree.node_count} nodes; node numbers from 2^24 on are not exact in the "
                         "float32 an ONNX tree ensemble returns")
    leaves = np.flatnonzero(tree.feature < 0)
    if tests is None:
        inputs = [helper.make_tensor_value_info("X", TensorProto.DOUBLE, [None, n_columns])]
        nodes, features = [], "X"
    else:
        types = _column_types(tests, n_columns)
        inputs = [helper.make_tensor_value_info(name, TensorProto.STRING if t == "string" else TensorProto.DOUBLE,
                                                [None, 1]) for name, t in zip(names, types)]
        nodes, columns = _test_columns(helper, tests, names, types)
        nodes.append(helper.make_node("Concat", columns, ["features"], axis=1))
        features = "features"
    nodes += [
        helper.make_node("TreeEnsembleRegressor", [features], ["leaf_weight"], domain=ML_DOMAIN, n_targets=1,
                         aggregate_function="SUM", post_transform="NONE",
                         target_treeids=[0] * len(leaves), target_nodeids=leaves.tolist(),
                         target_ids=[0] * len(leaves), target_weights=leaves.astype(float).tolist(),
                         **_ensemble_attributes(helper, tree)),
        helper.make_node("Cast", ["leaf_weight"], ["leaf_2d"], to=TensorProto.INT64),
        helper.make_node("Constant", [], ["flat"], value=helper.make_tensor("flat", TensorProto.INT64, [1], [-1])),
        helper.make_node("Reshape", ["leaf_2d", "flat"], ["leaf"]),
    ]
    if classes is None:
        table = helper.make_tensor("node_values", TensorProto.DOUBLE, [tree.node_count, 1],
                                   tree.value[:, 0].tolist())
        nodes += [helper.make_node("Constant", [], ["node_values"], value=table),
                  helper.make_node("Gather", ["node_values", "leaf"], ["variable"], axis=0)]
        outputs = [helper.make_tensor_value_info("variable", TensorProto.DOUBLE, [None, 1])]
    else:
        labels, label_type = _label_table(helper, tree, classes)
        proba = helper.make_tensor("node_proba", TensorProto.DOUBLE, [tree.node_count, len(classes)],
                                   tree.node_proba().ravel().tolist())
        nodes += [helper.make_node("Constant", [], ["node_labels"], value=labels),
                  helper.make_node("Gather", ["node_labels", "leaf"], ["label"], axis=0),
                  helper.make_node("Constant", [], ["node_proba"], value=proba),
                  helper.make_node("Gather", ["node_proba", "leaf"], ["probabilities"], axis=0)]
        outputs = [helper.make_tensor_value_info("label", label_type, [None]),
                   helper.make_tensor_value_info("probabilities", TensorProto.DOUBLE, [None, len(classes)])]
    graph = helper.make_graph(nodes, "optimaltrees", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET),
                                                    helper.make_opsetid(ML_DOMAIN, ML_OPSET)],
                              producer_name="optimaltrees")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def _label_table(helper, tree, classes):
    """Per node, the label it predicts (its class, under a cost matrix the
    cheapest), as a constant of text or integers."""
    from onnx import TensorProto

    labels = [_native(c) for c in classes]
    per_node = [labels[k] for k in tree.node_class()]
    if all(isinstance(c, str) for c in labels):
        return (helper.make_tensor("node_labels", TensorProto.STRING, [len(per_node)],
                                   [c.encode("utf-8") for c in per_node]), TensorProto.STRING)
    if all(isinstance(c, (int, bool)) for c in labels):
        return (helper.make_tensor("node_labels", TensorProto.INT64, [len(per_node)], [int(c) for c in per_node]),
                TensorProto.INT64)
    raise ValueError("to_onnx: ONNX labels here are text or integers; these class labels are "
                     f"{', '.join(sorted({type(c).__name__ for c in labels}))} (fit on integer or text labels)")
