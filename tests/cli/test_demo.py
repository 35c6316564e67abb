"""The README's main job runs, scores on held-out data beside CART, explains
the data and the SAT answer in plain words, and reports proofs."""
import re

from optimaltrees import demo


def test_demo_runs_and_reports_proofs(capsys):
    assert demo.main([]) == 0
    out = capsys.readouterr().out
    assert "proven optimal" in out
    assert "minimum size at that depth" in out and "x[" not in out
    # one line on what the data is, and the fixed held-out split
    assert "is a banknote genuine or forged" in out
    assert "767 to train on, 330 held out for testing" in out
    # train and test accuracy of both methods, each a real accuracy
    rows = {m.group(1): (float(m.group(2)), float(m.group(3)), int(m.group(4)))
            for m in re.finditer(r"^(optimaltrees \(ConTree\)|scikit-learn CART)\s+([\d.]+)\s+([\d.]+)"
                                 r"\s+(\d+)", out, re.M)}
    assert set(rows) == {"optimaltrees (ConTree)", "scikit-learn CART"}
    opt, cart = rows["optimaltrees (ConTree)"], rows["scikit-learn CART"]
    assert opt[2] <= cart[2]                       # the proven optimum never has more training errors
    assert abs(opt[0] - (1 - opt[2] / 767)) < 1e-4 and abs(cart[0] - (1 - cart[2] / 767)) < 1e-4
    assert 0.5 < opt[1] <= 1 and 0.5 < cart[1] <= 1
    # the SAT part in plain words
    assert "asks at least 4 questions" in out and "no tree of depth 3 can" in out
    assert "15 nodes: 7 questions and 8 leaves" in out
    # the SAT loop really ran: it encoded some, not all and not none, of the examples
    encoded = [(int(a), int(b)) for a, b in re.findall(r"(\d+) of (\d+)\s+\d", out)]
    assert len(encoded) == 2 and all(0 < a < b for a, b in encoded), encoded
    said = re.search(r"SAT proved it with (\d+) of the (\d+) distinct examples", out)
    assert said and (int(said.group(1)), int(said.group(2))) == encoded[1]


def test_demo_is_deterministic(capsys):
    demo.main([])
    first = re.sub(r"\d+\.\d{3}  ", "", capsys.readouterr().out)       # drop the seconds
    demo.main([])
    assert re.sub(r"\d+\.\d{3}  ", "", capsys.readouterr().out) == first
