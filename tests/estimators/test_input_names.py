"""Errors and warnings name the column they are about: a column missing at
prediction, missing values where an estimator takes none, a text column that
looks like an identifier; a diagram prints a category test as the tree does."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier
from optimaltrees.data.validation import IdentifierColumnWarning

MAKERS = [lambda: OptimalTreeClassifier(max_depth=2), lambda: SATTreeClassifier("errors", max_depth=2),
          lambda: DecisionDiagramClassifier((1, 2), time_limit=5, heuristic_time=0.1, random_state=0)]
IDS = ["tree", "sat", "diagram"]


@pytest.fixture(scope="module")
def penguins():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"bill": rng.random(60), "island": rng.choice(["Dream", "Torgersen", "Biscoe"], 60)})
    y = np.where((frame["bill"] > 0.5) ^ (frame["island"] == "Dream"), "a", "b")
    return frame, y


@pytest.mark.parametrize("make", MAKERS, ids=IDS)
def test_predict_on_a_table_without_a_column_names_it(penguins, make):
    frame, y = penguins
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = make().fit(frame, y)
    for method in (clf.predict, clf.predict_proba):
        with pytest.raises(ValueError, match=r"X lacks the column\(s\) \['island'\] that \w+ was fitted with"):
            method(frame[["bill"]])


@pytest.mark.parametrize("make", MAKERS[1:], ids=IDS[1:])
def test_missing_values_are_refused_naming_their_columns(penguins, make):
    frame, y = penguins
    gappy = frame.copy()
    gappy.loc[3, "bill"] = np.nan
    gappy.loc[5, "island"] = None
    for X in (gappy, gappy[["bill"]], gappy[["bill"]].to_numpy()):
        with pytest.raises(ValueError, match=r"contains (NaN|missing values).* in column(\(s\))? \[?'?(bill|x\[0\]|0)"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                make().fit(X, y)


@pytest.mark.parametrize("make", MAKERS, ids=IDS)
def test_a_text_column_like_an_identifier_is_pointed_out(penguins, make):
    frame, y = penguins
    named = frame.assign(name=[f"bird {i}" for i in range(len(frame))])
    with pytest.warns(IdentifierColumnWarning, match="column 'name' has 60 different values in 60 rows"):
        make().fit(named, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IdentifierColumnWarning)      # three islands: a category
        make().fit(frame, y)


def test_a_diagram_prints_category_tests_in_the_users_words(penguins):
    frame, y = penguins
    clf = DecisionDiagramClassifier((1, 2), time_limit=5, heuristic_time=0.1, random_state=0).fit(frame, y)
    text, dot = clf.export_text(), clf.export_dot()
    assert "island == Dream" in text and "island != Dream" in text and "island=Dream" not in text
    assert "island == Dream" in dot and "island=Dream" not in dot
    # the printed rule is the model's: rows of Dream take the "==" side
    assert clf.score(frame, y) == 1.0
