"""The main job: a proven-optimal depth-3 tree on the bundled banknote data, next to
CART, scored on held-out data; then the smallest tree that fits the bundled mouse
data exactly, by SAT.

Run with ``python -m optimaltrees.demo`` (options: ``--depth``, ``--time-limit``).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from optimaltrees import OptimalTreeClassifier, SATTreeClassifier
from optimaltrees.data import load_bank, load_mouse

#: the held-out share of the banknote rows, and the fixed split's seed
TEST_SIZE = 0.3
SPLIT_SEED = 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m optimaltrees.demo", description=__doc__)
    parser.add_argument("--depth", type=int, default=3, help="maximum tree depth (default 3)")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds (default: 60, the estimators' default)")
    args = parser.parse_args(argv)

    X, y = load_bank()
    names = ["variance", "skewness", "curtosis", "entropy"]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=TEST_SIZE,
                                                        random_state=SPLIT_SEED, stratify=y)
    n, n_test = X_train.shape[0], X_test.shape[0]
    print("Data: banknote authentication (UCI, bundled): is a banknote genuine or forged, from "
          f"{X.shape[1]} statistics of its photograph ({', '.join(names)}); {X.shape[0]} banknotes, "
          f"{len(set(y))} classes.")
    print(f"Fixed split: {n} to train on, {n_test} held out for testing (stratified, seed {SPLIT_SEED}).\n")

    limit = {} if args.time_limit is None else {"time_limit": args.time_limit}
    opt = OptimalTreeClassifier(max_depth=args.depth, **limit).fit(X_train, y_train)
    t0 = time.perf_counter()
    cart = DecisionTreeClassifier(max_depth=args.depth, random_state=0).fit(X_train, y_train)
    cart_time = time.perf_counter() - t0

    print(f"Optimal tree (depth <= {args.depth}):")
    print(opt.export_text(feature_names=names))
    fit = opt.summary_
    status = fit.status if fit.proven else f"{fit.status}; lower bound {fit.lower_bound:g}, gap {fit.gap:.2%}"
    print(f"{'method':<24}{'train acc':>10}{'test acc':>10}{'train errors':>14}{'seconds':>9}  proof")
    for label, clf, seconds, proof in [
            ("optimaltrees (ConTree)", opt, fit.fit_seconds, status),
            ("scikit-learn CART", cart, cart_time, "greedy, no proof")]:
        train_errors = int(np.sum(clf.predict(X_train) != y_train))
        print(f"{label:<24}{clf.score(X_train, y_train):>10.4f}{clf.score(X_test, y_test):>10.4f}"
              f"{train_errors:>14d}{seconds:>9.3f}  {proof}")
    print(f"\nBoth trees have depth <= {args.depth}. The optimal tree makes the fewest training errors "
          "any such tree can (proven); the test column shows how each does on the held-out "
          "banknotes it never saw.")
    _sat_part()
    return 0


def _sat_part() -> None:
    X, y, names = load_mouse()
    print(f"\nData: mouse (Bessiere et al.; the SAT paper's example, bundled): {X.shape[0]} examples, "
          f"{X.shape[1]} categorical features ({', '.join(names)}), {len(set(y))} classes.")
    print("Question: what is the smallest tree that classifies every training example correctly?\n")
    # the paper's SAT loop (the default route is the DP engine, which encodes no examples)
    depth = SATTreeClassifier("depth", categorical="all", depth_search="sat").fit(X, y)
    size = SATTreeClassifier("size", categorical="all", depth_search="sat").fit(X, y)
    print(f"{'SAT (Avellaneda)':<22}{'depth':>7}{'nodes':>7}{'examples encoded':>18}{'seconds':>9}  proof")
    for label, clf in [("DT-depth", depth), ("DT-size", size)]:
        proof = "minimum depth" if label == "DT-depth" else "minimum size at that depth"
        print(f"{label:<22}{clf.depth_:>7d}{clf.n_nodes_:>7d}"
              f"{clf.stats_['examples_encoded']:>11d} of {clf.stats_['distinct_examples']:<4d}"
              f"{clf.summary_.fit_seconds:>9.3f}  {proof if clf.summary_.proven else clf.summary_.status}")
    leaves = size.get_n_leaves()
    print(f"\nIn plain words: {_plain_words(depth, size, leaves)}")
    print(f"(SAT proved it with {size.stats_['examples_encoded']} of the "
          f"{size.stats_['distinct_examples']} distinct examples in its formula: each round adds "
          "one example the last tree got wrong, until a tree fits them all.)")
    print("\nSmallest perfect tree (every training example classified correctly):")
    print(size.export_text(feature_names=names))


def _plain_words(depth: SATTreeClassifier, size: SATTreeClassifier, leaves: int) -> str:
    if not (depth.summary_.proven and size.summary_.proven):
        return (f"the best tree found classifies every training example correctly with depth "
                f"{size.depth_} and {size.n_nodes_} nodes (not proven smallest in the time given).")
    d = depth.depth_
    if d == 0:
        return "every training example has the same class: a single leaf classifies them all."
    return (f"every tree that classifies all training examples correctly asks at least {d} "
            f"questions on some path from the root to a prediction (depth {d}; SAT proved that "
            f"no tree of depth {d - 1} can). Among trees of depth {d}, the smallest has "
            f"{size.n_nodes_} nodes: {size.n_nodes_ - leaves} questions and {leaves} leaves "
            "(predictions).")


if __name__ == "__main__":
    raise SystemExit(main())
