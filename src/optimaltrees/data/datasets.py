"""Loading the benchmark file format (label first, whitespace separated) and bundled sets."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np


def load_dataset(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """Read a whitespace-separated file whose first column is the class label."""
    data = np.loadtxt(path, ndmin=2)
    if data.shape[1] < 2:
        raise ValueError(f"{path}: expected a label column and at least one feature column")
    y = data[:, 0]
    if np.all(y == np.round(y)):
        y = y.astype(np.int64)
    return data[:, 1:], y


def load_bank() -> tuple[np.ndarray, np.ndarray]:
    """Banknote authentication (UCI, CC BY 4.0): 1097 samples, 4 numeric features, 2 classes.

    The train split used by the ConTree and Quant-BnB papers, bundled so the demo
    and tests run without the network.
    """
    with resources.as_file(resources.files("optimaltrees.data") / "files" / "bank.txt") as p:
        return load_dataset(p)


def load_mouse() -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Mouse (Bessiere et al., used by Avellaneda, AAAI 2020): 69 examples,
    5 categorical features coded as integers, 2 classes, consistent (a perfect
    tree exists: minimum depth 4, 15 nodes).  Returns X, y, column names."""
    with resources.as_file(resources.files("optimaltrees.data") / "files" / "mouse.csv") as p:
        with open(p) as f:
            names = f.readline().strip().split(",")
        data = np.loadtxt(p, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    return data[:, :-1], data[:, -1], names[:-1]
