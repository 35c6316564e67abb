"""The README's main job runs and reports proofs."""
from optimaltrees import demo


def test_demo_runs_and_reports_proofs(capsys):
    assert demo.main([]) == 0
    out = capsys.readouterr().out
    assert "proven optimal" in out
    assert "minimum size at that depth" in out and "x[" not in out
