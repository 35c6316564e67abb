"""The release artefacts: ``python -m build`` makes an sdist and, from it, a
wheel; the wheel installs into a fresh virtual environment with no compiler
on the path and runs the demo.  (Builds the engine once more: minutes.)"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: what a working tree may hold besides its sources (built objects, environments)
BUILT = shutil.ignore_patterns("*.so", "*.cpp", "*.html", "build", "dist", "*.egg-info", ".venv", ".git",
                               "__pycache__", ".hypothesis", ".pytest_cache", "_build", "_generated", "generated",
                               "auto_examples", "models")


def _sources(dest: Path) -> Path:
    """The project's sources, without what building or testing left in the tree."""
    shutil.copytree(ROOT, dest, ignore=BUILT)
    return dest


def test_sdist_and_wheel_build_and_the_wheel_runs_without_a_compiler(tmp_path):
    src = _sources(tmp_path / "src")
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(src)], check=True,
                   capture_output=True, timeout=1800)
    sdists, wheels = sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(p.name for p in dist.iterdir())

    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    # no compiler on the path: every dependency must come as a wheel, and ours is one
    env = {k: v for k, v in os.environ.items() if k not in ("CC", "CXX", "PYTHONPATH")}
    env["PATH"] = str(bin_dir)
    python = str(bin_dir / "python")
    install = subprocess.run([python, "-m", "pip", "install", "-q", str(wheels[0])], env=env,
                             capture_output=True, text=True, timeout=1200)
    assert install.returncode == 0, install.stderr[-2000:]
    assert shutil.which("cc", path=env["PATH"]) is None and shutil.which("gcc", path=env["PATH"]) is None
    demo = subprocess.run([python, "-m", "optimaltrees.demo"], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert "proven optimal" in demo.stdout
    # the installed package is the wheel's, not the sources'
    where = subprocess.run([python, "-c", "import optimaltrees; print(optimaltrees.__file__)"], env=env,
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert str(env_dir) in where
