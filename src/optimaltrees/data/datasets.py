"""Loading the benchmark file format (label first, whitespace separated) and bundled sets."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np


def load_dataset(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """Read a benchmark file: whitespace separated, the class label first.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The feature columns.
    y : ndarray of shape (n_samples,)
        The labels (integers when every label is a whole number).
    """
    data = np.loadtxt(path, ndmin=2)
    if data.shape[1] < 2:
        raise ValueError(f"{path}: expected a label column and at least one feature column")
    y = data[:, 0]
    if np.all(y == np.round(y)):
        y = y.astype(np.int64)
    return data[:, 1:], y


def load_bank() -> tuple[np.ndarray, np.ndarray]:
    """Load the banknote authentication data (UCI, CC BY 4.0).

    1,097 banknotes, 4 numeric features (statistics of a photograph of each:
    variance, skewness, curtosis and entropy, scaled to about [0, 1]), 2
    classes (genuine or forged).  The training split used by the ConTree and
    Quant-BnB papers, bundled so that the examples and tests run without the
    network.

    Returns
    -------
    X : ndarray of shape (1097, 4)
        The features.
    y : ndarray of shape (1097,)
        The labels, 0 or 1.
    """
    with resources.as_file(resources.files("optimaltrees.data") / "files" / "bank.txt") as p:
        return load_dataset(p)


def load_mouse() -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Load the mouse data (Bessiere et al., used by Avellaneda, AAAI 2020).

    69 examples, 5 categorical features coded as integers, 2 classes; the
    data are consistent (a perfect tree exists: minimum depth 4, 15 nodes).

    Returns
    -------
    X : ndarray of shape (69, 5)
        The features, integer codes of categories.
    y : ndarray of shape (69,)
        The labels, 0 or 1.
    names : list of str
        The column names (``A`` to ``E``).
    """
    with resources.as_file(resources.files("optimaltrees.data") / "files" / "mouse.csv") as p:
        with open(p) as f:
            names = f.readline().strip().split(",")
        data = np.loadtxt(p, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    return data[:, :-1], data[:, -1], names[:-1]
