"""Regenerate ``binary_optima.json``: optimal training errors on the CP4IM binary
sets from the peer ``pystreed`` (STreeD / MurTree-style DP).

Run with an interpreter that has ``pystreed`` installed::

    python tests/data/make_binary_optima.py

The data are read from ``<repo>/../shared/datasets/binary``.
"""
import json
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA_DIR = HERE.parents[2] / "shared" / "datasets" / "binary"
OUT = HERE / "binary_optima.json"
DEPTHS = (2, 3)


def main() -> None:
    from importlib.metadata import version

    from pystreed import STreeDClassifier

    optima = {}
    for path in sorted(DATA_DIR.glob("*.txt")):
        data = np.loadtxt(path)
        X, y = data[:, 1:].astype(int), data[:, 0].astype(int)
        for depth in DEPTHS:
            start = time.perf_counter()
            model = STreeDClassifier(max_depth=depth, time_limit=3600).fit(X, y)
            optima[f"{path.stem}:{depth}"] = int((model.predict(X) != y).sum())
            print(path.stem, depth, optima[f"{path.stem}:{depth}"],
                  f"{time.perf_counter() - start:.2f}s", flush=True)
    meta = {"generator": "tests/data/make_binary_optima.py",
            "meaning": "optimal number of training misclassifications, key 'name:depth'",
            "peer": f"pystreed {version('pystreed')}"}
    OUT.write_text(json.dumps({"_meta": meta, "optima": optima}, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
