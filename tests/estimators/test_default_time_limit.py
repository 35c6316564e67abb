"""One default time limit for every estimator: a fit with default settings
always returns, the docstrings say the same number, and the command line and
the demo keep it unless told otherwise (``--time-limit none``: no limit)."""
from __future__ import annotations

import inspect

import pytest

from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier
from optimaltrees.cli import _estimator, build_parser
from optimaltrees.estimators._base import DEFAULT_TIME_LIMIT

ESTIMATORS = (OptimalTreeClassifier, SATTreeClassifier, DecisionDiagramClassifier)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_every_estimator_defaults_to_the_shared_limit(cls):
    assert DEFAULT_TIME_LIMIT == 60.0
    assert inspect.signature(cls).parameters["time_limit"].default == DEFAULT_TIME_LIMIT
    assert cls().get_params()["time_limit"] == DEFAULT_TIME_LIMIT
    # the docstring states the same default and how to lift it
    doc = inspect.getdoc(cls)
    entry = doc[doc.index("time_limit : float or None"):]
    assert entry.startswith(f"time_limit : float or None, default={DEFAULT_TIME_LIMIT:g}\n")
    assert "None: until proven" in " ".join(entry[:600].split())


@pytest.mark.parametrize("method", ["tree", "sat", "diagram"])
@pytest.mark.parametrize("flag, expected", [([], DEFAULT_TIME_LIMIT), (["--time-limit", "none"], None),
                                            (["--time-limit", "None"], None), (["--time-limit", "2.5"], 2.5)])
def test_the_command_line_keeps_the_default_and_accepts_none(method, flag, expected):
    args = build_parser().parse_args(["fit", "data.csv", "--method", method, *flag])
    assert _estimator(args).time_limit == expected


def test_a_time_limit_that_is_not_a_number_is_refused_by_name(capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["fit", "data.csv", "--time-limit", "soon"])
    assert stop.value.code == 2
    assert "--time-limit: expected seconds or 'none', got 'soon'" in capsys.readouterr().err


def test_the_demo_keeps_the_default(monkeypatch):
    from optimaltrees import demo

    seen = []
    real_fit = OptimalTreeClassifier.fit

    def spy(self, X, y, **kwargs):
        seen.append(self.time_limit)
        return real_fit(self, X, y, **kwargs)

    monkeypatch.setattr(OptimalTreeClassifier, "fit", spy)
    demo.main(["--depth", "1"])
    demo.main(["--depth", "1", "--time-limit", "5"])
    assert seen == [DEFAULT_TIME_LIMIT, 5.0]
