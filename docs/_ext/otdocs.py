"""Pages generated at build time from the code and the committed measurements.

* ``_generated/cli/*.txt``: the ``--help`` of the command line and of every
  benchmark suite, as ``optimaltrees`` prints them (so the pages never drift
  from the parser).
* ``_generated/results/<suite>.md``: the current report(s) of each benchmark
  suite, read from ``benchmarks/results/<suite>/*.md`` (or, in a checkout
  that still keeps one report per suite at the top of ``benchmarks/results/``,
  from ``benchmarks/results/<suite>.md``), made fit to include in a page:
  headings moved under the page's *Results* section, links to files that
  are not part of the site turned into plain text, pictures copied beside.
  A suite without a report gets a sentence saying so.  The benchmark pages
  include these files, so they build whichever reports are present.

Everything is written under ``docs/_generated/`` (not tracked, rebuilt by
every build); the folders autosummary and sphinx-gallery generate
(``docs/generated/``, ``docs/auto_examples/``) are emptied first, so nothing
stale survives a removed page or example.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import weakref
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: width of the generated ``--help`` text
HELP_COLUMNS = "88"
#: the report's first heading becomes this level (the page's Results section is level 2)
REPORT_LEVEL = 3

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)(\s+\"[^\"]*\")?\)")


# ------------------------------------------------------------------ command line

def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:          # argparse keeps no public handle on them
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def write_cli_help(out: Path) -> list[str]:
    """Write ``optimaltrees --help``, each command's and each bench suite's
    ``--help`` into ``out``; returns the names written."""
    from optimaltrees.cli import COMMANDS, build_parser

    out.mkdir(parents=True, exist_ok=True)
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    written = []
    try:
        texts = {"optimaltrees": build_parser([]).format_help()}
        for command in COMMANDS:
            sub = _subparsers(build_parser([command]))[command]
            texts[command] = sub.format_help()
            if command == "bench":
                for suite, parser in _subparsers(sub).items():
                    texts[f"bench-{suite}"] = parser.format_help()
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    for name, text in texts.items():
        _write_if_changed(out / f"{name}.txt", text)
        written.append(name)
    return written


# ------------------------------------------------------------------ benchmark reports

def find_reports(results: Path, suite: str) -> list[Path]:
    """The suite's current reports: ``results/<suite>/*.md``, else ``results/<suite>.md``."""
    folder = results / suite
    if folder.is_dir():
        return sorted(p for p in folder.glob("*.md") if p.is_file())
    flat = results / f"{suite}.md"
    return [flat] if flat.is_file() else []


def adapt_report(text: str, source: Path, pictures: Path, picture_prefix: str) -> str:
    """A report's markdown made fit to include under a level-2 section.

    Headings start at :data:`REPORT_LEVEL` and never skip a level; a link to
    a relative file becomes its text (the site does not hold the reports'
    neighbours); a picture found beside the report is copied into
    ``pictures`` and linked there, one that is missing becomes its alt text.
    """
    lines = text.splitlines()
    levels = [len(m.group(1)) for line in _outside_fences(lines) if (m := _HEADING.match(line))]
    shift = REPORT_LEVEL - min(levels) if levels else 0
    out, fenced, last = [], False, REPORT_LEVEL - 1
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
            out.append(line)
            continue
        if fenced:
            out.append(line)
            continue
        heading = _HEADING.match(line)
        if heading:
            level = min(6, len(heading.group(1)) + shift, last + 1)
            last = level
            line = "#" * level + " " + heading.group(2)
        out.append(_LINK.sub(lambda m: _adapt_link(m, source, pictures, picture_prefix), line))
    return "\n".join(out) + "\n"


def _outside_fences(lines: list[str]):
    fenced = False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield line


def _adapt_link(m: re.Match, source: Path, pictures: Path, prefix: str) -> str:
    bang, label, target = m.group(1), m.group(2), m.group(3)
    if re.match(r"^[a-z]+:", target) or target.startswith("#"):
        return m.group(0)                      # an address or an anchor: leave it
    if bang:
        found = (source.parent / target).resolve()
        if not found.is_file():                # a report moved without its picture folder
            found = source.parent / Path(target).name
        if found.is_file():
            pictures.mkdir(parents=True, exist_ok=True)
            shutil.copy2(found, pictures / found.name)
            return f"![{label}]({prefix}/{found.name})"
        return f"*{label or target}*"
    return f"`{label}`" if label == target else label


def write_reports(results: Path, out: Path, suites) -> dict[str, list[str]]:
    """Write ``out/<suite>.md`` for every suite; returns the reports used per suite."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    used: dict[str, list[str]] = {}
    for suite in suites:
        reports = find_reports(results, suite)
        used[suite] = [str(p.relative_to(results.parent.parent)) for p in reports]
        if not reports:
            body = (f"No report of this suite is present in this checkout (looked for "
                    f"`benchmarks/results/{suite}/*.md`). Run `optimaltrees bench {suite}` to make one.\n")
        else:
            parts = []
            for report in reports:
                rel = report.relative_to(results.parent.parent)
                parts.append(f"<!-- {rel} -->\n")
                parts.append(adapt_report(report.read_text(encoding="utf-8"), report,
                                          out / suite, suite))
                parts.append(f"\n*Source: `{rel}`.*\n\n")
            body = "".join(parts)
        _write_if_changed(out / f"{suite}.md", body)
    return used


# ------------------------------------------------------------------ gallery pictures

_SHOWN: "weakref.WeakSet" = weakref.WeakSet()


def figure_scraper(block, block_vars, gallery_conf, **kwargs) -> str:
    """sphinx-gallery scraper for the figures an example holds in its
    variables: :mod:`optimaltrees.plot` draws on figures of its own, outside
    pyplot, which the matplotlib scraper does not see.  Each figure is shown
    once, after the code block that made it."""
    from matplotlib.figure import Figure
    from sphinx_gallery.scrapers import figure_rst

    figures = [v for v in block_vars["example_globals"].values()
               if isinstance(v, Figure) and v not in _SHOWN]
    paths = []
    for fig, path in zip(figures, block_vars["image_path_iterator"]):
        fig.savefig(path, dpi=110)
        _SHOWN.add(fig)
        paths.append(path)
    return figure_rst(paths, gallery_conf["src_dir"])


def _get_sg_image_scraper():
    """What sphinx-gallery calls for ``image_scrapers = ("otdocs", ...)``."""
    return figure_scraper


# ------------------------------------------------------------------ the extension

def _write_if_changed(path: Path, text: str) -> None:
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(app: Sphinx) -> None:
    docs = Path(app.srcdir)
    root = docs.parent
    generated = docs / "_generated"
    names = write_cli_help(generated / "cli")
    from optimaltrees.bench import SUITES

    used = write_reports(root / "benchmarks" / "results", generated / "results", SUITES)
    found = {suite: reports for suite, reports in used.items() if reports}
    logger.info("optimaltrees docs: %d help texts; benchmark reports: %s", len(names),
                "; ".join(f"{s}: {', '.join(r)}" for s, r in found.items()) or "none")


#: folders other extensions generate into the source tree; emptied before each
#: build, so a page or example removed from the sources leaves nothing behind
GENERATED = ("generated", "auto_examples", "_generated", "sg_execution_times.rst")


def clean(app: Sphinx) -> None:
    docs = Path(app.srcdir)
    for name in GENERATED:
        path = docs / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", clean, priority=100)      # before autosummary and the gallery (500)
    app.connect("builder-inited", generate)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
