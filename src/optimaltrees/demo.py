"""The main job: a proven-optimal depth-3 tree on the bundled banknote data, next to CART.

Run with ``python -m optimaltrees.demo`` (options: ``--depth``, ``--time-limit``).
"""
from __future__ import annotations

import argparse
import time

from sklearn.tree import DecisionTreeClassifier

from optimaltrees import OptimalTreeClassifier
from optimaltrees.data import load_bank


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
    print(_named(opt, names))
    status = "proven optimal" if opt.is_optimal_ else f"not proven (lower bound {opt.lower_bound_:g})"
    print(f"{'method':<22}{'train accuracy':>16}{'errors':>9}{'seconds':>10}  proof")
    print(f"{'optimaltrees (ConTree)':<22}{1 - opt.train_error_ / n:>16.4f}{opt.train_error_:>9d}"
          f"{opt.fit_time_:>10.3f}  {status}")
    print(f"{'scikit-learn CART':<22}{1 - cart_errors / n:>16.4f}{cart_errors:>9d}"
          f"{cart_time:>10.3f}  greedy, no proof")
    return 0


def _named(clf: OptimalTreeClassifier, names: list[str]) -> str:
    from optimaltrees import export_text

    return export_text(clf.tree_, feature_names=names, class_names=list(clf.classes_))


if __name__ == "__main__":
    raise SystemExit(main())
