"""Binary (0/1) data: the counting depth-two solver against the peer pystreed's
optimal error counts on the CP4IM sets (``tests/fixtures/binary_optima.json``)."""
import json

import pytest

from conftest import FIXTURES, load_binary
from oracle import recompute_error

from optimaltrees import OptimalTreeClassifier

PEER = json.loads((FIXTURES / "binary_optima.json").read_text())["optima"]
CASES = sorted((key.split(":")[0], int(key.split(":")[1])) for key in PEER)


@pytest.mark.parametrize("name, depth", CASES)
def test_binary_optimum_matches_pystreed(name, depth):
    X, y = load_binary(name)
    clf = OptimalTreeClassifier(max_depth=depth).fit(X, y)
    assert clf.is_optimal_
    assert clf.train_error_ == PEER[f"{name}:{depth}"]
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
