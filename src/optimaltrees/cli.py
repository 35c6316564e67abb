"""optimaltrees: provably optimal decision trees and diagrams from the shell.

  optimaltrees fit DATA --depth 3 --out model.json     learn a model, print it, save it
  optimaltrees fit DATA --task regression              a regression tree (default: chosen from the label)
  optimaltrees cv DATA --depth 4 --out model.json      choose depth and node cost by cross-validation
  optimaltrees predict model.json DATA                 predict (and score, if DATA has the label)
  optimaltrees show model.json [--dot | --png F]       print or draw a saved model
  optimaltrees bench SUITE                             reproduce the papers' experiments on Dask

DATA is a CSV (or semicolon / tab separated) file with or without a header,
or a whitespace-separated table of numbers.  Run any command with --help.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
from pathlib import Path

# Nothing heavy at the top: numpy, pandas, scikit-learn and the engine load
# inside the commands, so that --help and --version answer at once
# (tests/cli/test_cli_usability.py checks which modules --help loads).

METHODS = ("tree", "sat", "diagram")
TASKS = ("auto", "classification", "regression")
#: --task auto: a numeric label with more distinct values than this is a
#: quantity to regress on, not classes (the classifier warns at the same
#: count: ``optimaltrees.data.validation.MANY_NUMERIC_CLASSES``, not imported
#: here because it loads scikit-learn, and --help loads nothing heavy)
MANY_CLASSES = 50
COMMANDS = ("fit", "cv", "predict", "show", "bench")


class CliError(Exception):
    """A problem the user can fix: printed as one line, exit code 1."""


def version() -> str:
    """This optimaltrees' version: the installed distribution's, else the package's own."""
    try:
        from importlib.metadata import version as dist_version

        return dist_version("optimaltrees")
    except Exception:      # not installed (run from a source tree)
        import optimaltrees

        return getattr(optimaltrees, "__version__", "unknown")


class _VersionAction(argparse.Action):
    """--version: print "optimaltrees X.Y.Z" and exit (the version is looked up only then)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"optimaltrees {version()}")
        parser.exit()


# ------------------------------------------------------------------ parsers

#: ``--time-limit none``: no limit (leaving the flag out keeps the estimators' default)
NO_LIMIT = "none"


def _seconds(text: str) -> float | str:
    """A --time-limit value: a number of seconds, or ``none``."""
    if text.strip().lower() == NO_LIMIT:
        return NO_LIMIT
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds or 'none', got {text!r}") from None


def _data_options(p: argparse.ArgumentParser, label_help: str) -> None:
    p.add_argument("--label", help=label_help)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--header", dest="header", action="store_true", default=None,
                   help="the first line holds column names (default: detected)")
    g.add_argument("--no-header", dest="header", action="store_false", help="the first line is data")
    p.add_argument("--missing", nargs="*", metavar="TOKEN",
                   help="the values that mean 'missing' (default: empty, ?, NA, NaN, null, N/A; a word such as "
                        "none is a value); --missing alone: nothing is missing")
    p.add_argument("--encoding", default="utf-8",
                   help="text encoding of the file (default: utf-8; e.g. latin-1, cp1252)")
    p.add_argument("--decimal", choices=(".", ","),
                   help="decimal mark of the numbers (default: '.', and decimal commas such as 1,5 are "
                        "detected in files not separated by commas)")


def _training_options(p: argparse.ArgumentParser) -> None:
    """What fit and cv read: the data file, its label, weights, and the task."""
    p.add_argument("data", metavar="DATA", help="CSV or whitespace-separated data file")
    _data_options(p, "label column: name or index (negative counts from the end); default: a column "
                     "named y/label/class/target, else the first column of a whitespace file, else the last")
    p.add_argument("--drop", nargs="+", action="extend", default=[], metavar="COLUMN",
                   help="columns that are not features (an identifier, a name)")
    p.add_argument("--weight", metavar="COLUMN",
                   help="a numeric column of sample weights (>= 0; not a feature): errors are weighted")
    p.add_argument("--class-weight", choices=("balanced",),
                   help="balanced: weigh each class by rows / (classes x its rows), so the optimum "
                        "maximises balanced accuracy")
    p.add_argument("--task", choices=TASKS, default="auto",
                   help=f"classification (each label value a class) or regression (a numeric label; "
                        f"--method tree only); auto (default): regression when the label is numeric and "
                        f"holds a non-integer or more than {MANY_CLASSES} distinct values, else classification")


def _cv_parser(sub) -> None:
    p = sub.add_parser("cv", help=_HELP["cv"],
                       description="Choose the depth (1 to --depth) and the node cost of an optimal tree by "
                                   "k-fold cross-validation: each fold and depth costs one exact "
                                   "cost-complexity path, which holds the optimal tree at every node cost. "
                                   "Prints every candidate's mean validation score (accuracy; a regression "
                                   "tree: R^2) and the chosen tree, and optionally saves it (--out).")
    _training_options(p)
    p.add_argument("--depth", "--max-depth", dest="depth", type=int, default=3,
                   help="the deepest depth tried (default 3)")
    p.add_argument("--folds", type=int, default=5, help="number of folds (default 5; stratified for classes)")
    p.add_argument("--select", choices=("best", "1se"), default="best",
                   help="best: the best mean score (default); 1se: the fewest leaves within one standard "
                        "error of it")
    p.add_argument("--time-limit", type=_seconds,
                   help="seconds for the whole search (default 60), or 'none'; paths the limit stops keep "
                        "their best trees, with a warning")
    p.add_argument("--jobs", type=int, help="processes that search folds side by side (-1: every core)")
    p.add_argument("--verbose", action="store_true", help="one line per path on stdout")
    p.add_argument("--out", help="save the chosen model to this JSON file")
    p.add_argument("--png", help="draw the chosen tree to this image (.png, .svg or .pdf)")
    p.set_defaults(method="tree")


def _fit_parser(sub) -> None:
    from optimaltrees.search.strategies import SCHEDULES, STRATEGIES

    p = sub.add_parser("fit", help=_HELP["fit"],
                       description="Learn a model from DATA, print it with its training accuracy (a "
                                   "regression tree: R^2 and squared error), proof status and gap, and "
                                   "optionally save it (--out) or draw it (--png). It first prints which "
                                   "task it fits (--task) and why.")
    _training_options(p)
    p.add_argument("--method", choices=METHODS, default="tree",
                   help="tree: optimal tree of bounded depth (ConTree search, default); sat: smallest "
                        "perfect tree by SAT; diagram: optimal decision diagram by MILP")
    p.add_argument("--depth", "--max-depth", dest="depth", type=int,
                   help="maximum depth (tree: default 3; sat: a cap); --max-depth is scikit-learn's name")
    p.add_argument("--strategy", default="exhaustive", choices=list(STRATEGIES),
                   help="tree search order: exhaustive (default) or an anytime strategy")
    p.add_argument("--schedule", default="luby", choices=sorted(SCHEDULES), help="anytime restart schedule")
    p.add_argument("--time-limit", type=_seconds,
                   help="seconds (default 60, every method's), or 'none' to search until proven; the best "
                        "model found by then is returned, with a warning")
    p.add_argument("--verbose", action="store_true", help="a live progress line (or the solver's log) on stderr")
    p.add_argument("--objective", default="depth", choices=("depth", "size", "errors"),
                   help="sat: minimum depth, then minimum size, or fewest errors at --depth")
    p.add_argument("--skeleton", default="1,2,4,4", help="diagram: widths of the decision layers")
    p.add_argument("--splits", default="univariate", choices=("univariate", "multivariate"),
                   help="diagram: one feature per node, or hyperplanes")
    p.add_argument("--alpha", type=float, default=0.01, help="diagram: price of a node")
    p.add_argument("--out", help="save the fitted model to this JSON file")
    p.add_argument("--png", help="draw the model to this image (.png, .svg or .pdf)")
    p.add_argument("--trace-png", help="draw the anytime curve (error and bound vs time) to this image")


def _predict_parser(sub) -> None:
    p = sub.add_parser("predict", help=_HELP["predict"],
                       description="Print one prediction per row of DATA (or write them with --out). "
                                   "When DATA holds the label column too, also print the accuracy (a "
                                   "regression model: R^2 and RMSE).")
    p.add_argument("model", metavar="MODEL", help="JSON file written by 'optimaltrees fit --out'")
    p.add_argument("data", metavar="DATA", help="data file with the model's feature columns")
    _data_options(p, "label column of DATA, if it has one (default: the one the model was trained with, "
                     "when present)")
    p.add_argument("--proba", action="store_true",
                   help="print class probabilities instead (CSV with one column per class; classifiers only)")
    p.add_argument("--out", help="write the predictions here, one per line")


def _show_parser(sub) -> None:
    p = sub.add_parser("show", help=_HELP["show"],
                       description="Print a saved model as text (default), as Graphviz DOT (--dot), or "
                                   "draw it with matplotlib (--png FILE; .png, .svg or .pdf).")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--dot", action="store_true", help="print Graphviz DOT source")
    p.add_argument("--png", help="draw the model to this image")
    p.add_argument("--trace-png", help="draw the model's anytime curve to this image")


def _bench_parser(sub) -> None:
    from optimaltrees.bench import SUITES, suite_module

    p = sub.add_parser("bench", help=_HELP["bench"],
                       description="Run a named benchmark suite; every fit runs in its own process with "
                                   "its own time limit and memory cap, on a local Dask cluster or on "
                                   "--scheduler (cv: in a few worker processes that each keep the data). "
                                   "Writes a markdown report (and the raw .jsonl records).")
    suites = p.add_subparsers(dest="suite", required=True, metavar="SUITE")
    for name in SUITES:
        module = suite_module(name)
        sp = suites.add_parser(name, help=module.__doc__.splitlines()[0].split(": ", 1)[-1],
                               description=module.__doc__,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sp)
        sp.add_argument("--out", help=f"report path (default benchmarks/results/{name}/"
                                      f"{'KIND-dDEPTH' if hasattr(module, 'report_name') else name}.md; "
                                      "the raw records go beside it as .jsonl)")
        sp.add_argument("--workers", type=int, default=getattr(module, "WORKERS", 1),
                        help="fits at a time on the local cluster (default %(default)s)")
        sp.add_argument("--scheduler", help="address of a running Dask scheduler (default: a local cluster)")
        sp.add_argument("--resume", action="store_true",
                        help="keep the records already in the report's .jsonl and run only the fits missing "
                             "there (a long suite split over several runs)")


_HELP = {"fit": "learn a classification or regression tree, or a diagram, from a data file",
         "cv": "choose an optimal tree's depth and node cost by cross-validation",
         "predict": "predict with a saved model",
         "show": "print or draw a saved model",
         "bench": "run a benchmark suite: the papers' experiments, or a cross-validation sweep"}
_BUILDERS = {"fit": _fit_parser, "cv": _cv_parser, "predict": _predict_parser, "show": _show_parser, "bench": _bench_parser}


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser.  With ``argv``, only the command it names
    gets its options (building fit's and bench's imports the engine and the
    suites); the others are listed by name and help, which is all that
    ``optimaltrees --help`` shows."""
    ap = argparse.ArgumentParser(prog="optimaltrees", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", action=_VersionAction, help="print the version and exit")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    named = None if argv is None else next((a for a in argv if not a.startswith("-")), "")
    for name in COMMANDS:
        if named is None or name == named:
            _BUILDERS[name](sub)
        else:
            sub.add_parser(name, help=_HELP[name], add_help=False)
    return ap


# ------------------------------------------------------------------ checks before any work

#: what each estimator parameter is called on the command line
FLAGS = {"max_depth": "--depth", "time_limit": "--time-limit", "cv": "--folds", "n_jobs": "--jobs", "search": "--strategy", "schedule": "--schedule",
         "objective": "--objective", "skeleton": "--skeleton", "splits": "--splits", "alpha": "--alpha"}

#: picture formats matplotlib writes (the extension of --png picks one)
PICTURES = {"png", "svg", "pdf", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp", "svgz", "pgf"}


def flag_words(message: str) -> str:
    """An estimator's message in the command line's words: ``max_depth`` ->
    ``--depth``, ``objective='errors'`` -> ``--objective errors``, and
    scikit-learn's "The 'max_depth' parameter of X must be ..." -> "--depth must be ..."."""
    message = re.sub(r"The '(\w+)' parameter of \w+ must be (.*?)(?: or None)?\. Got",   # None: the flag left out
                     lambda m: f"{FLAGS.get(m[1], repr(m[1]))} must be {m[2]}. Got", message)
    message = re.sub(r"\b(\w+)=('?)([^',;:\s]*)\2",
                     lambda m: f"{FLAGS[m[1]]} {m[3]}" if m[1] in FLAGS else m[0], message)
    # plain Python names (only those with an underscore: "search" is also an English word)
    return re.sub(r"\b(" + "|".join(n for n in FLAGS if "_" in n) + r")\b", lambda m: FLAGS[m[1]], message)


def check_output(flag: str, path: str | None, *, picture: bool = False, make_parents: bool = False,
                 inputs=()) -> None:
    """Fail now, not after a long fit, when ``path`` cannot be written: a
    folder, a missing or read-only parent folder, an unknown picture format,
    or pictures without matplotlib.  ``make_parents``: missing parent folders
    will be created (the benchmark reports), so only an existing one is checked.
    ``inputs``: the files the command reads, which it must not overwrite."""
    if path is None:
        return
    p = Path(path)
    for source in inputs:
        if p.exists() and Path(source).exists() and os.path.samefile(p, source):
            raise CliError(f"{flag} {path}: is the input file {source}; give another name")
    if not str(path).strip():
        raise CliError(f"{flag}: give a file name")
    if p.is_dir():
        raise CliError(f"{flag} {path}: is a folder; give a file name")
    parent = p.parent
    if make_parents:
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
    if not parent.exists():
        raise CliError(f"{flag} {path}: no such folder {parent}")
    if not parent.is_dir():
        raise CliError(f"{flag} {path}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CliError(f"{flag} {path}: cannot write in the folder {parent}")
    if p.exists() and not os.access(p, os.W_OK):
        raise CliError(f"{flag} {path}: the file exists and is read-only")
    if picture:
        suffix = p.suffix.lower().lstrip(".")
        if suffix not in PICTURES:
            raise CliError(f"{flag} {path}: the picture format follows the extension; use .png, .svg or .pdf"
                           + (f" (not .{suffix})" if suffix else ""))
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            raise CliError(f"{flag} needs matplotlib; install it with: pip install 'optimaltrees[plot]'")


# ------------------------------------------------------------------ commands

def _read(path: str, label, header, args=None, allow_missing: bool = False, text_columns=()):
    from optimaltrees.data.tables import read_table

    try:
        return read_table(path, label=label, header=header, missing=getattr(args, "missing", None),
                          decimal=getattr(args, "decimal", None), allow_missing=allow_missing,
                          text_columns=text_columns, encoding=getattr(args, "encoding", "utf-8"))
    except (FileNotFoundError, ValueError) as exc:
        message = str(exc)
        if "has missing values" in message:
            message += " (or name the tokens that mean missing with --missing; --missing alone: none)"
        raise CliError(message) from None
    except OSError as exc:       # unreadable: permissions, a device that fails
        raise CliError(f"{path}: cannot read it ({exc.strerror or exc})") from None


def _estimator(args):
    from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier

    # the estimators' own default unless --time-limit is given
    limit = ({} if args.time_limit is None
             else {"time_limit": None if args.time_limit == NO_LIMIT else args.time_limit})
    if args.task == "regression":        # chosen by choose_task: --method tree, no classes
        from optimaltrees import OptimalTreeRegressor

        return OptimalTreeRegressor(max_depth=3 if args.depth is None else args.depth, search=args.strategy,
                                    schedule=args.schedule, verbose=args.verbose, **limit)
    if args.method == "tree":
        return OptimalTreeClassifier(max_depth=3 if args.depth is None else args.depth, search=args.strategy,
                                     schedule=args.schedule, verbose=args.verbose,
                                     class_weight=args.class_weight, **limit)
    if args.class_weight is not None:
        limit["class_weight"] = args.class_weight
    if args.method == "sat":
        return SATTreeClassifier(args.objective, max_depth=args.depth, verbose=args.verbose, **limit)
    try:
        skeleton = tuple(int(s) for s in args.skeleton.replace(" ", "").split(",") if s)
    except ValueError:
        raise CliError(f"--skeleton must be comma-separated layer widths such as 1,2,4,4; "
                       f"got {args.skeleton!r}") from None
    return DecisionDiagramClassifier(skeleton, splits=args.splits, alpha=args.alpha, verbose=args.verbose,
                                     **limit)


def choose_task(task: str, y, label) -> tuple[str, str]:
    """The task to fit and the line that says which and why.

    ``--task auto``: regression when the label is numeric and holds a
    non-integer or more than :data:`MANY_CLASSES` distinct values (a price,
    an age), else classification (text labels, or a few integer codes).
    """
    import numpy as np

    if task != "auto":
        return task, f"task: {task} (--task {task})"
    values = np.unique(y)
    n, name = len(values), str(label)
    if values.dtype.kind not in "iuf":
        return "classification", f"task: classification (label {name!r} is text, {n} distinct values)"
    if values.dtype.kind == "f" and not np.all(values == np.round(values)):
        return "regression", (f"task: regression (label {name!r} is numeric with {n} distinct values, "
                              "not all integers)")
    if n > MANY_CLASSES:
        return "regression", (f"task: regression (label {name!r} is numeric with {n} distinct values; "
                              "--task classification to override)")
    return "classification", (f"task: classification (label {name!r} has {n} distinct integer values; "
                              "--task regression to override)")


def _check_regression(args, y=None, label=None, auto: bool = False) -> None:
    """What a regression fit cannot do, as one-line errors: a label of text
    (``y``: the labels, once read), another method, classes' options."""
    import numpy as np

    y = None if y is None else np.asarray(y)
    if y is not None and y.dtype.kind not in "iuf":
        raise CliError(f"--task regression: label {str(label)!r} holds text ({y[0]!r}), not numbers; "
                       "leave --task out, or give --task classification")
    why = (f"label {str(label)!r} looks like a regression target (--task auto chose regression)"
           if auto else "--task regression")
    if args.method != "tree":
        classes = auto and bool(np.all(y == np.round(y)))      # integers: the classifier takes them
        raise CliError(f"{why}: regression trees need --method tree (--method {args.method} classifies only)"
                       + ("; --task classification treats each value as a class" if classes else ""))
    if args.class_weight is not None:
        raise CliError(f"{why}: --class-weight weighs classes, and a regression tree has none")


def _inputs(method: str, table):
    """The feature matrix a method expects: raw columns for trees and SAT
    (they search categories and, trees, missing values themselves), numbers
    with categorical columns one-hot for diagrams."""
    return table.numeric() if method == "diagram" else table.X


def _warn(command: str, message: str) -> None:
    print(f"optimaltrees {command}: warning: {message}", file=sys.stderr)


def _warn_id_like(table) -> None:
    """Say so when a text column looks like an identifier: one-hot encoded it
    is as many features as rows, which makes the fit slow and its splits meaningless."""
    for name, n in table.id_like_columns():
        _warn("fit", f"column {name!r} has {n} different values in {len(table.X)} rows, like an identifier or "
                     f"a name; as a feature it becomes {n} yes/no columns and slows the fit. If it is not a "
                     f"feature, leave it out with --drop {shlex.quote(name)}")


def _task_words(message: str) -> str:
    """The classifier's advice for numeric labels in the command line's words."""
    return message.replace("use OptimalTreeRegressor", "use --task regression")


def _fit(model, X, y, sample_weight=None, command: str = "fit") -> None:
    """model.fit, with its errors and warnings in the command line's words."""
    import warnings

    from optimaltrees.data.validation import IdentifierColumnWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model.fit(X, y) if sample_weight is None else model.fit(X, y, sample_weight=sample_weight)
        except (ValueError, TypeError) as exc:
            raise CliError(_task_words(flag_words(str(exc)))) from None
    seen = set()
    for w in caught:
        if issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning)):
            continue        # for developers, not for the user of the command
        if issubclass(w.category, IdentifierColumnWarning):
            continue        # said before the fit, with the --drop that leaves the column out
        text = _task_words(flag_words(str(w.message)))
        if text not in seen:
            seen.add(text)
            _warn(command, text)


def _status_lines(model, X, y, weight=None) -> list[str]:
    import numpy as np
    from sklearn.base import is_regressor

    if is_regressor(model):
        return _regression_lines(model, X, y, weight)
    pred = model.predict(X)
    acc = float(np.mean(pred == y))
    errors = int(np.sum(pred != y))
    summary = model.summary_
    lines = [f"training accuracy: {acc:.4f} ({errors} errors of {len(y)} rows)"]
    if weight is not None:
        lines.append(f"weighted training error: {float(weight[pred != y].sum()):.6g} of {float(weight.sum()):.6g}")
    return lines + [summary.describe(), f"fit time: {summary.fit_seconds:.3f} s"]


def _regression_lines(model, X, y, weight=None) -> list[str]:
    """R^2, squared error and RMSE on the training data (and weighted, with
    weights), the summary line and the fit time."""
    import numpy as np

    pred = model.predict(X)
    lines = [f"training R^2: {_r2(y, pred):.4f} (squared error {_squared_error(y, pred):.6g}, "
             f"RMSE {_rmse(y, pred):.6g} on {len(y)} rows)"]
    if weight is not None:
        lines.append(f"weighted training R^2: {_r2(y, pred, weight):.4f} (weighted squared error "
                     f"{float(model.train_error_):.6g} of {float(model.total_sse_):.6g})")
    summary = model.summary_
    return lines + [summary.describe(), f"fit time: {summary.fit_seconds:.3f} s"]


def _squared_error(y, pred, weight=None) -> float:
    import numpy as np

    residual = np.asarray(pred, dtype=float) - np.asarray(y, dtype=float)
    return float(np.sum((1.0 if weight is None else weight) * residual ** 2))


def _rmse(y, pred) -> float:
    return (_squared_error(y, pred) / max(len(y), 1)) ** 0.5


def _r2(y, pred, weight=None) -> float:
    """1 - squared error / squared error around the (weighted) mean; as
    scikit-learn's ``r2_score``, 1 for a perfect fit of constant targets, else 0 then."""
    import numpy as np

    y = np.asarray(y, dtype=float)
    w = np.ones(len(y)) if weight is None else np.asarray(weight, dtype=float)
    total = float(np.sum(w * (y - np.sum(w * y) / np.sum(w)) ** 2))
    error = _squared_error(y, pred, w)
    if total == 0:
        return 1.0 if error == 0 else 0.0
    return 1.0 - error / total


def _weight_column(table, name: str | None):
    """The --weight column as numbers, taken out of the features (None without --weight)."""
    import numpy as np
    import pandas as pd

    if name is None:
        return None
    if name not in table.X.columns:
        raise CliError(f"--weight: no column named {name!r}; the columns are {', '.join(table.feature_names)}")
    values = pd.to_numeric(table.X[name], errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise CliError(f"--weight {name}: row {int(bad[0]) + 1} holds {table.X[name].iloc[bad[0]]!r}, not a "
                       f"finite number ({bad.size} such rows); every row needs a weight >= 0")
    table.X = table.X.drop(columns=[name])
    return values


def _draw(model, path: str, X=None) -> None:
    from optimaltrees.plot import plot_model, save

    try:
        save(plot_model(model, X), path)
    except (ValueError, OSError) as exc:
        raise CliError(f"cannot write {path}: {exc}") from None
    print(f"picture written to {path}")


def _draw_trace(model, path: str) -> None:
    from optimaltrees.plot import plot_trace, save

    trace = getattr(model, "trace_", None)
    if not trace:
        raise CliError(f"this {type(model).__name__} has no anytime trace to draw")
    from sklearn.base import is_regressor

    # a regressor's axis is its objective's name (squared error)
    label = ("objective" if model.summary_.method == "diagram" else None if is_regressor(model)
             else "training error")
    try:
        save(plot_trace(model, error_label=label), path)   # held flat to the fit's end
    except (ValueError, OSError) as exc:
        raise CliError(f"cannot write {path}: {exc}") from None
    print(f"anytime curve written to {path}")


def _training_table(args):
    """The data file read for fit or cv: the table (without --drop and
    --weight columns) and the weights; the task chosen and printed."""
    if args.task == "regression":
        _check_regression(args)          # before reading the data
    table = _read(args.data, args.label, args.header, args, allow_missing=args.method == "tree")
    unknown = [c for c in args.drop if c not in table.X.columns]
    if unknown:
        raise CliError(f"--drop: no feature column named {', '.join(map(repr, unknown))}; the feature columns "
                       f"are {', '.join(table.feature_names)}")
    table.X = table.X.drop(columns=args.drop)
    weight = _weight_column(table, args.weight)
    if table.X.shape[1] == 0:
        raise CliError("--drop and --weight leave no feature column" if args.weight else "--drop leaves no feature column")
    _warn_id_like(table)
    auto = args.task == "auto"
    args.task, line = choose_task(args.task, table.y, table.label)
    if args.task == "regression":
        _check_regression(args, table.y, table.label, auto=auto)
    print(line)
    return table, weight


def _save(model, path: str, table) -> None:
    """Save the model with what predict needs to read a file like the training one."""
    from optimaltrees.io import save_model

    # kept beside the model (not in it)
    try:
        save_model(model, path, metadata={"label": table.label, "columns": [str(c) for c in table.X.columns]})
    except OSError as exc:
        raise CliError(f"--out {path}: cannot write it ({exc.strerror or exc})") from None
    print(f"model saved to {path}")


def cmd_fit(args) -> int:
    check_output("--out", args.out, inputs=(args.data,))
    check_output("--png", args.png, picture=True, inputs=(args.data,))
    check_output("--trace-png", args.trace_png, picture=True, inputs=(args.data,))
    if args.trace_png and args.method == "sat":
        raise CliError("--trace-png: the sat method keeps no anytime curve (tree and diagram do)")
    table, weight = _training_table(args)
    model = _estimator(args)
    X = _inputs(args.method, table)
    _fit(model, X, table.y, weight)
    print(model.export_text())
    print("\n".join(_status_lines(model, X, table.y, weight)))
    if args.out:
        _save(model, args.out, table)
    if args.png:
        _draw(model, args.png, X)
    if args.trace_png:
        _draw_trace(model, args.trace_png)
    return 0


def cmd_cv(args) -> int:
    check_output("--out", args.out, inputs=(args.data,))
    check_output("--png", args.png, picture=True, inputs=(args.data,))
    table, weight = _training_table(args)
    if args.task == "regression":
        from optimaltrees import OptimalTreeRegressorCV as Search

        options = {}
    else:
        from optimaltrees import OptimalTreeClassifierCV as Search

        options = {"class_weight": args.class_weight}
    if args.time_limit is not None:
        options["time_limit"] = None if args.time_limit == NO_LIMIT else args.time_limit
    search = Search(max_depth=args.depth, cv=args.folds, select=args.select, n_jobs=args.jobs,
                    verbose=args.verbose, **options)
    _fit(search, table.X, table.y, weight, command="cv")
    print("\n".join(_cv_lines(search)))
    model = search.best_estimator_
    print(model.export_text())
    print("\n".join(_status_lines(model, table.X, table.y, weight)))
    if args.out:
        _save(model, args.out, table)
    if args.png:
        _draw(model, args.png, table.X)
    return 0


def _cv_lines(search) -> list[str]:
    """The candidates' table (the chosen one marked) and the choice."""
    res = search.cv_results_
    k = search.n_splits_
    score = "R^2" if search.scoring is None and not hasattr(search, "classes_") else "score"
    if search.scoring is None and hasattr(search, "classes_"):
        score = "accuracy"
    lines = [f"{'':2}{'depth':>5} {'node cost':>10} {'leaves':>6} {'mean ' + score:>14} {'std':>7} "
             f"{'proven folds':>12}"]
    for j, params in enumerate(res["params"]):
        proven = sum(bool(res[f"split{i}_proven"][j]) for i in range(k))
        lines.append(f"{'*' if j == search.best_index_ else '':2}{params['max_depth']:>5} "
                     f"{params['complexity_cost']:>10.4g} {res['n_leaves'][j]:>6} "
                     f"{res['mean_test_score'][j]:>14.4f} {res['std_test_score'][j]:>7.4f} {proven:>9}/{k}")
    best = search.best_params_
    lines.append(f"chosen ({search.select}, {k} folds): depth {best['max_depth']}, node cost "
                 f"{best['complexity_cost']:.4g}, {res['n_leaves'][search.best_index_]} leaves, mean {score} "
                 f"{search.best_score_:.4f}; cross-validation took {search.fit_time_:.2f} s")
    return lines


def _load(path: str):
    """The model of a file and what the command line stored with it (label and columns, or None)."""
    from optimaltrees.io import load_model

    if not Path(path).is_file():
        raise CliError(f"no such model file: {path}")
    try:
        model, meta = load_model(path, with_metadata=True)
    except (ValueError, OSError) as exc:   # load_model refuses any bad content with ValueError
        raise CliError(f"{path}: not a model file this optimaltrees can read ({exc})") from None
    label, columns = meta.get("label"), meta.get("columns")
    if not (label is None or isinstance(label, (str, int))) or not (
            columns is None or (isinstance(columns, list) and all(isinstance(c, str) for c in columns))):
        raise CliError(f"{path}: its metadata is not a label and a list of column names")
    return model, label, columns


def _label_in_file(args, trained_label, columns, n_in: int):
    """Which column of the file to predict holds the labels (False: none).
    A file with a header has the label the model was trained with, by name;
    one without (or a model saved without that record, by the Python API)
    has it when it has one column more than the model's features: where a
    headerless training file had it (x<k>), else the reader's default."""
    from optimaltrees.data.tables import column_names

    try:
        names, named = column_names(args.data, args.header, encoding=args.encoding)
    except (FileNotFoundError, ValueError) as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"{args.data}: cannot read it ({exc.strerror or exc})") from None
    wanted = len(columns) if columns is not None else n_in
    if trained_label is not None and named:
        return trained_label if trained_label in names else False
    if len(names) == wanted + 1:
        # no names to go by: where the training file had it (x<k>), else the reader's default
        return trained_label if trained_label in names else None
    return False


def cmd_predict(args) -> int:
    import numpy as np
    from sklearn.base import is_regressor

    check_output("--out", args.out, inputs=(args.model, args.data))
    model, trained_label, columns = _load(args.model)
    regression = is_regressor(model)
    if regression and args.proba:
        raise CliError(f"--proba: {args.model} holds a regression tree; it predicts numbers, not class "
                       "probabilities")
    gaps = model.summary_.method == "tree"          # trees route missing values
    # the model's categories stay text ("1" is a category, not the number 1)
    encoder = getattr(model, "encoder_", None) or getattr(model, "binarizer_", None)
    text = [] if encoder is None else [name for name, kind in zip(encoder.column_names_, encoder.column_kinds_)
                                       if kind == "categorical"]
    label = args.label if args.label is not None else _label_in_file(args, trained_label, columns,
                                                                       model.n_features_in_)
    table = _read(args.data, label, args.header, args, allow_missing=gaps, text_columns=text)
    X = table.X
    truth = None if label is False else np.asarray(table.y)
    if truth is not None and regression and truth.dtype.kind not in "iuf":
        raise CliError(f"{args.data}: the label column {table.label!r} holds text ({truth[0]!r}); a regression "
                       "model is scored on numbers (give a file without that column to skip the score)")
    if columns is not None and set(columns) <= set(map(str, X.columns)):
        X = X[columns]
    elif columns is not None and not table.named and len(X.columns) == len(columns):
        X = X.set_axis(columns, axis=1)     # no header: the columns are taken in the model's order
    elif columns is not None:
        missing = [c for c in columns if c not in set(map(str, X.columns))]
        raise CliError(f"{args.data}: the model needs the column(s) {', '.join(missing)}, which the file "
                       f"does not have (its columns: {', '.join(map(str, X.columns))})")
    one_hot = model.summary_.method == "diagram" or (
        # a tree fitted by an earlier version on one-hot columns ("colour=red")
        model.summary_.method == "tree" and getattr(model, "encoder_", None) is None
        and getattr(model, "feature_names_in_", None) is not None
        and not set(map(str, model.feature_names_in_)) <= set(map(str, X.columns)))
    if one_hot:      # trees and SAT encode raw columns themselves
        from optimaltrees.data.tables import Table

        X = Table(X, None, None, table.path).numeric()
        expected = getattr(model, "feature_names_in_", None)
        if expected is not None:
            unseen = [str(c) for c in X.columns if c not in set(expected)]
            if unseen:
                raise CliError(f"{args.data}: value(s) the model never saw in training: "
                               f"{', '.join(unseen[:10])}{' ...' if len(unseen) > 10 else ''}; "
                               "it cannot route them")
            # a category value absent from this file is simply 0 in its column
            X = X.reindex(columns=list(expected), fill_value=0.0)
        else:   # fitted on a plain matrix: pass one (no column-name checks to trip over)
            X = X.to_numpy(dtype=float)
    if getattr(model, "feature_names_in_", None) is None and hasattr(X, "columns"):
        # fitted on a plain matrix (the Python API): columns by position, without
        # scikit-learn's "X has feature names" warning on every run
        X = X.to_numpy()
    try:
        pred = model.predict(X)
        proba = model.predict_proba(X) if args.proba else None
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if proba is not None:
        import csv
        import io

        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")   # quotes a class name holding a comma
        writer.writerow(map(str, model.classes_))
        writer.writerows([f"{v:.6g}" for v in row] for row in proba)
        text = out.getvalue()
    elif regression:        # every digit: the leaf means exactly
        text = "\n".join(repr(float(p)) for p in pred) + "\n"
    else:
        text = "\n".join(str(p) for p in pred) + "\n"
    if args.out:
        try:
            Path(args.out).write_text(text)
        except OSError as exc:
            raise CliError(f"--out {args.out}: cannot write it ({exc.strerror or exc})") from None
        print(f"{len(pred)} predictions written to {args.out}")
    else:
        sys.stdout.write(text)
    if truth is not None and regression:
        print(f"R^2: {_r2(truth, pred):.4f}, RMSE: {_rmse(truth, pred):.6g} on {len(truth)} rows", file=sys.stderr)
    elif truth is not None:
        try:
            acc = float(np.mean(pred.astype(truth.dtype) == truth))
        except (TypeError, ValueError):
            acc = float(np.mean(pred.astype(str) == truth.astype(str)))
        print(f"accuracy: {acc:.4f} on {len(truth)} rows", file=sys.stderr)
    return 0


def cmd_show(args) -> int:
    check_output("--png", args.png, picture=True, inputs=(args.model,))
    check_output("--trace-png", args.trace_png, picture=True, inputs=(args.model,))
    model = _load(args.model)[0]
    if args.dot:
        print(model.export_dot())
    elif not args.png and not args.trace_png:
        print(model.export_text())
    if args.png:
        _draw(model, args.png)
    if args.trace_png:
        _draw_trace(model, args.trace_png)
    return 0


def cmd_bench(args) -> int:
    from optimaltrees.bench import run_suite

    check_output("--out", args.out, make_parents=True)
    try:
        out = run_suite(args.suite, args)
    except (FileNotFoundError, ValueError) as exc:
        raise CliError(str(exc)) from None
    print(f"report written to {out.resolve()}")
    return 0


RUN = {"fit": cmd_fit, "cv": cmd_cv, "predict": cmd_predict, "show": cmd_show, "bench": cmd_bench}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv).parse_args(argv)
    args.command_line = "optimaltrees " + " ".join(shlex.quote(a) for a in argv)
    try:
        return RUN[args.command](args)
    except BrokenPipeError:
        # the reader of our output left (``| head``): stop quietly, as other tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except CliError as exc:
        print(f"optimaltrees {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"optimaltrees {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
