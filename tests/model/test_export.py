"""DOT export: the text of the pictures' sources."""
def test_dot_strings_escape_quotes_and_backslashes():
    """A class '15" screen' or a category 'D:\\' ended a DOT string early."""
    import re

    import pandas as pd

    from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier
    # every attribute list: unquoted text and whole quoted strings (an escaped quote stays inside)
    dot_line = re.compile(r'^\s*(n\d+|t\d+)( -> \w+)? \[(?:[^"\]]|"(?:[^"\\]|\\.)*")*\];$')
    X = pd.DataFrame({"path": ["C:\\", "C:\\", "D:\\", "D:\\"], 'size "in"': [0.0, 1.0, 2.0, 3.0]})
    y = ['15" screen', '15" screen', "17 \\ in", "17 \\ in"]
    for model in (OptimalTreeClassifier(max_depth=1).fit(X, y),
                  DecisionDiagramClassifier((1, 2), time_limit=5).fit(X, y)):
        lines = [ln for ln in model.export_dot().splitlines() if "label=" in ln and "fontname" not in ln]
        assert lines and all(dot_line.match(ln) for ln in lines), lines
        assert any('15\\" screen' in ln for ln in lines)


def test_tree_document_indices_must_be_integers():
    """numpy took 1.9, "1" and true as node and feature index 1."""
    import json

    import pytest

    from optimaltrees.model.tree import Tree
    good = {"format": "optimaltrees.Tree", "version": 2, "n_features": 2, "feature": [1, -1, -1],
            "threshold": [0.5, 0.0, 0.0], "children_left": [1, -1, -1], "children_right": [2, -1, -1],
            "value": [[2, 2], [2, 0], [0, 2]]}
    assert Tree.from_json(json.dumps(good)).feature.tolist() == [1, -1, -1]
    for key, bad in (("feature", [1.9, -1, -1]), ("children_left", ["1", -1, -1]),
                     ("children_right", [True, -1, -1]), ("n_features", 1e30), ("n_features", 10 ** 40)):
        with pytest.raises(ValueError, match=key):
            Tree.from_json(json.dumps(dict(good, **{key: bad})))
