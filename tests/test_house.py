"""House rules for the tree's text.

The README is a front page of at most 200 lines (it is also the package's
long description).  No tracked text names a development session, an issue
number or a commit id: code and comments state a rule and why it holds,
measurements live in the benchmark reports, and history lives in version
control and CHANGELOG.md.  A reference to a session or an issue means nothing
to a reader of a release, and a commit id goes stale the day it is written.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Text that may tell history: the changelog is where it belongs.
HISTORY = {"CHANGELOG.md"}

#: Files whose references the lead engineer is rewriting with the code they
#: describe (each is also listed in the hand-over); empty this set as they land.
PENDING_FILES: set[str] = set()

SESSION = re.compile(r"\bsessions? \d+", re.I)
ISSUE = re.compile(r"\bissues? #?\d+", re.I)
#: A word of 7-40 lowercase hex digits with at least one letter and one digit:
#: what git prints for a commit.  Not after a '.' or a digit, so the digits of
#: a float (2.2250738585072014e-308) never count.
COMMIT = re.compile(r"(?<![.\w])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")


def tracked_text() -> dict[str, str]:
    """Every tracked file that is UTF-8 text, by path (binary fixtures and pictures left out)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    paths = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True,
                           check=True).stdout.decode().split("\0")
    texts = {}
    for path in filter(None, paths):
        file = ROOT / path
        if not file.is_file():          # deleted in the work tree, not yet in the index
            continue
        data = file.read_bytes()
        if b"\0" in data[:8192]:
            continue
        try:
            texts[path] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def references(text: str) -> list[str]:
    return [m.group() for pattern in (SESSION, ISSUE, COMMIT) for m in pattern.finditer(text)]


def test_the_patterns():
    # the examples are assembled, so that this file does not hold what it forbids
    session, issue, numbered = "session " + "52", "issue " + "20", "issue #" + "7"
    hashes = ["4ca0" + "cd8", "22c1" + "03d", "1d2e3f" + "4a5b6c"]
    assert references(f"as in {session}, see {issue} and {numbered}") == [session, issue, numbered]
    assert references("on {} (was {}); {}".format(*hashes)) == hashes
    assert references("x = 2.2250738585072014e-308, 1e19, deadbeef, 1234567, the session's engine") == []


def test_readme_is_a_front_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; the details belong in docs/"


def test_no_sessions_issues_or_commits_in_tracked_text():
    found = []
    for path, text in sorted(tracked_text().items()):
        if path in HISTORY or path in PENDING_FILES:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            hits = references(line)
            if hits:
                found.append(f"{path}:{number}: {', '.join(hits)}")
    assert not found, ("state the rule and why instead (history goes to CHANGELOG.md, "
                       "measurements to benchmarks/results/):\n" + "\n".join(found))
