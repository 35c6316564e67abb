"""The engine's platform primitives (``_portable.h``) and the CPU check.

The header is compiled here as a small C++ program in each of its builds
(builtins with and without POPCNT, and the portable bit tricks) and its bit
operations are compared with Python's on words with every bit count and
position; the CPU check's message is tested on a simulated CPU.
"""
from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import optimaltrees
from optimaltrees.search.engine import unsupported_cpu_message
from optimaltrees.search.engine._cpu import cpu_has_popcnt, engine_needs_popcnt

HEADER_DIR = Path(optimaltrees.__file__).resolve().parents[1]
PROGRAM = r"""
#include <cstdio>
#include "optimaltrees/search/engine/_portable.h"
int main() {
    unsigned long long w;
    double t0 = ot_now();
    ot_sleep_us(1000);
    if (ot_now() - t0 < 0.0005) return 2;
    while (std::scanf("%llu", &w) == 1)
        std::printf("%d %d %d\n", ot_popcount64(w), w ? ot_ctz64(w) : -1, w ? ot_clz64(w) : -1);
    return 0;
}
"""
BUILDS = {"builtins": [], "popcnt": ["-mpopcnt"], "portable": ["-DOT_PORTABLE=1"]}


def _words() -> list[int]:
    rng = np.random.default_rng(0)
    words = [0, 1, 2**63, 2**64 - 1] + [1 << i for i in range(64)] + [(2**64 - 1) >> i for i in range(64)]
    words += [int(w) for w in rng.integers(0, 2**63, 300, dtype=np.int64)]
    words += [int(w) | (1 << 63) for w in rng.integers(0, 2**63, 100, dtype=np.int64)]
    return words


@pytest.mark.parametrize("build", sorted(BUILDS))
def test_bit_operations_match_python_in_every_build(build, tmp_path):
    compiler = shutil.which("c++") or shutil.which("g++")
    if compiler is None:
        pytest.fail("a C++ compiler is needed to build the engine, and so to test its header")
    flags = BUILDS[build]
    if "-mpopcnt" in flags and platform.machine().lower() not in ("x86_64", "amd64"):
        flags = []
    source = tmp_path / "bits.cpp"
    source.write_text(PROGRAM)
    binary = tmp_path / "bits"
    subprocess.run([compiler, "-O2", "-std=c++17", *flags, f"-I{HEADER_DIR}", str(source), "-o", str(binary)],
                   check=True, capture_output=True, timeout=120)
    words = _words()
    run = subprocess.run([str(binary)], input="\n".join(map(str, words)), capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, "the monotonic clock or the sleep did not advance"
    got = [tuple(map(int, line.split())) for line in run.stdout.splitlines()]
    expected = [(bin(w).count("1"), (w & -w).bit_length() - 1 if w else -1, 64 - w.bit_length() if w else -1)
                for w in words]
    assert got == expected


def test_this_cpu_runs_this_build():
    assert unsupported_cpu_message(engine_needs_popcnt(), cpu_has_popcnt()) is None
    if platform.machine().lower() in ("x86_64", "amd64"):
        assert cpu_has_popcnt()


def test_a_cpu_without_popcnt_gets_a_message_naming_the_portable_build():
    message = unsupported_cpu_message(needs_popcnt=True, has_popcnt=False)
    assert "POPCNT" in message and "OPTIMALTREES_PORTABLE=1" in message
    assert unsupported_cpu_message(needs_popcnt=False, has_popcnt=False) is None
    assert unsupported_cpu_message(needs_popcnt=True, has_popcnt=True) is None


def test_the_package_refuses_to_load_on_such_a_cpu():
    # the compiled check answers for a CPU without POPCNT; the import must stop
    # before any module that uses the instruction loads
    script = (
        "import sys, types\n"
        "fake = types.ModuleType('optimaltrees.search.engine._cpu')\n"
        "fake.cpu_has_popcnt = lambda: False\n"
        "fake.engine_needs_popcnt = lambda: True\n"
        "sys.modules[fake.__name__] = fake\n"
        "try:\n"
        "    import optimaltrees.search.engine\n"
        "except ImportError as error:\n"
        "    loaded = [m for m in sys.modules if m.startswith('optimaltrees.search.engine._') and m != fake.__name__]\n"
        "    print('refused', loaded, error)\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.stdout.startswith("refused [] "), run.stdout + run.stderr
    assert "OPTIMALTREES_PORTABLE=1" in run.stdout
