"""Hypothesis strategies for the small random instances the brute-force
oracle can check: ties, duplicate rows, constant features, 1-6 classes,
integer / binary / float columns and int, shifted or string labels."""
import numpy as np
from hypothesis import HealthCheck, strategies as st

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
FLOAT_POOL = [-2.5, -1.0, 0.0, 0.1, 0.2, 0.30000000000000004, 1.0, 3.75, 1e3]


@st.composite
def instances(draw, max_n=12, max_features=3, max_classes=6, min_n=1, pool=None):
    n = draw(st.integers(min_n, max_n))
    p = draw(st.integers(1, max_features))
    kind = draw(st.sampled_from(["int", "int", "binary", "float"])) if pool is None else "pool"
    if kind == "pool":
        elem = st.sampled_from(pool)
    elif kind == "int":
        hi = draw(st.sampled_from([2, 3, 5, 9]))
        elem = st.integers(0, hi).map(float)
    elif kind == "binary":
        elem = st.sampled_from([0.0, 1.0])
    else:
        elem = st.sampled_from(FLOAT_POOL)
    cols = []
    for _ in range(p):
        if draw(st.integers(0, 5)) == 0:  # constant feature
            cols.append([draw(elem)] * n)
        else:
            cols.append(draw(st.lists(elem, min_size=n, max_size=n)))
    X = np.array(cols, dtype=np.float64).T.reshape(n, p)
    if draw(st.integers(0, 4)) == 0 and n > 1:  # force duplicate rows
        X[n // 2:] = X[: n - n // 2][: n - n // 2]
    k = draw(st.integers(1, max_classes))
    codes = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    labels = draw(st.sampled_from(["int", "shifted", "str"]))
    if labels == "int":
        y = codes.astype(np.int64)
    elif labels == "shifted":
        y = (codes * 7 - 4).astype(np.int64)  # negative, non-contiguous
    else:
        y = np.array(["cls_%d" % c for c in codes])
    return X, y


@st.composite
def regression_instances(draw, max_n=10, max_features=3):
    """Small regression data: float, 0/1 or 0-3 columns, constant features,
    duplicate rows, and targets shifted and spread from 1e-9 to 1e100."""
    n = draw(st.integers(1, max_n))
    p = draw(st.integers(1, max_features))
    elem = st.sampled_from(draw(st.sampled_from([FLOAT_POOL, [0.0, 1.0], [0.0, 1.0, 2.0, 3.0]])))
    cols = []
    for _ in range(p):
        if draw(st.integers(0, 5)) == 0:                       # a constant feature
            cols.append([draw(elem)] * n)
        else:
            cols.append(draw(st.lists(elem, min_size=n, max_size=n)))
    X = np.array(cols, dtype=np.float64).T.reshape(n, p)
    if draw(st.integers(0, 4)) == 0 and n > 1:                 # duplicate rows
        X[n // 2:] = X[: n - n // 2]
    base = draw(st.sampled_from([0.0, 5.0, -3.0, 1e6, 1e15]))
    spread = draw(st.sampled_from([1.0, 1e-3, 1e3, 1e-9, 1e100]))
    if abs(base) > 0 and spread / abs(base) < 1e-12:
        spread = abs(base) * 1e-6                             # a spread the targets can still hold
    codes = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    y = base + spread * np.array(codes, dtype=np.float64)
    return X, y
