"""The main job: a proven-optimal depth-3 tree on the bundled banknote data, next to
CART; then the smallest perfect tree of the bundled mouse data by SAT.

Run with ``python -m optimaltrees.demo`` (options: ``--depth``, ``--time-limit``).
"""
from __future__ import annotations

import argparse
import time

from sklearn.tree import DecisionTreeClassifier

from optimaltrees import OptimalTreeClassifier, SATTreeClassifier
from optimaltrees.data import load_bank, load_mouse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m optimaltrees.demo", description=__doc__)
    parser.add_argument("--depth", type=int, default=3, help="maximum tree depth (default 3)")
    parser.add_argument("--time-limit", type=float, default=None, help="seconds (default: none)")
    args = parser.parse_args(argv)

    X, y = load_bank()
    names = ["variance", "skewness", "curtosis", "entropy"]
    n = X.shape[0]
    print(f"Data: banknote authentication, {n} samples, {X.shape[1]} numeric features, "
          f"{len(set(y))} classes (bundled)\n")

    opt = OptimalTreeClassifier(max_depth=args.depth, time_limit=args.time_limit).fit(X, y)
    t0 = time.perf_counter()
    cart = DecisionTreeClassifier(max_depth=args.depth, random_state=0).fit(X, y)
    cart_time = time.perf_counter() - t0
    cart_errors = int((cart.predict(X) != y).sum())

    print(f"Optimal tree (depth <= {args.depth}):")
    print(opt.export_text(feature_names=names))
    fit = opt.summary_
    status = fit.status if fit.proven else f"{fit.status}; lower bound {fit.lower_bound:g}, gap {fit.gap:.2%}"
    print(f"{'method':<22}{'train accuracy':>16}{'errors':>9}{'seconds':>10}  proof")
    print(f"{'optimaltrees (ConTree)':<22}{1 - opt.train_error_ / n:>16.4f}{opt.train_error_:>9d}"
          f"{fit.fit_seconds:>10.3f}  {status}")
    print(f"{'scikit-learn CART':<22}{1 - cart_errors / n:>16.4f}{cart_errors:>9d}"
          f"{cart_time:>10.3f}  greedy, no proof")
    _sat_part()
    return 0


def _sat_part() -> None:
    X, y, names = load_mouse()
    print(f"\nData: mouse, {X.shape[0]} samples, {X.shape[1]} categorical features (bundled)\n")
    depth = SATTreeClassifier("depth", categorical="all").fit(X, y)
    size = SATTreeClassifier("size", categorical="all").fit(X, y)
    print(f"{'SAT (Avellaneda)':<22}{'depth':>7}{'nodes':>7}{'examples encoded':>18}{'seconds':>9}  proof")
    for label, clf in [("DT-depth", depth), ("DT-size", size)]:
        proof = "minimum depth" if label == "DT-depth" else "minimum size at that depth"
        print(f"{label:<22}{clf.depth_:>7d}{clf.n_nodes_:>7d}"
              f"{clf.stats_['examples_encoded']:>11d} of {clf.stats_['distinct_examples']:<4d}"
              f"{clf.summary_.fit_seconds:>9.3f}  {proof if clf.summary_.proven else clf.summary_.status}")
    print("\nSmallest perfect tree (every training example classified correctly):")
    print(size.export_text(feature_names=names))


if __name__ == "__main__":
    raise SystemExit(main())
