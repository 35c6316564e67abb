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
