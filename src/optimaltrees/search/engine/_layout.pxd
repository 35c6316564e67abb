# cython: language_level=3
"""The data layouts the search core is written over, as one fused type.
A layout carries its objective: misclassification for the sorted and bitset
layouts, squared error or a cost matrix for ``AdditiveLayout``.

Every layout is a final extension type that extends ``DataLayout``
(``_layout_base.pxd``: sizes, costs, class counts) with the same C methods
(the core calls nothing else), so the core is compiled once per layout and
never branches on which layout it runs over.

    init_root(root)                     the whole training set as a Node
    leaf_cost(counts)                   (additive layout) the objective of one leaf over a node's
                                        statistics; the classification layouts' misclassification
                                        is inlined in the core (``_core._leaf_cost``)
    node_floor(counts, d)               (additive layout) what every tree of depth d costs there at
                                        least; class floors for the classification layouts
    node_weight(counts)                 (additive layout) the node's weight
    gini_split(node, f, &score, &pos)   feature f's best Gini split (pos: left size)
    split_floor(node, f, d, P, m, out)  feature f's class floor: the least over its splits of
                                        both children's rows outside the 2^d classes their
                                        leaves can name (and per split position into out);
                                        0 where the layout has none (has_floors False)
    thresholds(node, f, P, D) -> m      feature f's split positions (left sizes), ascending,
                                        and the left side's weight at each (D, the distance
                                        unit of ConTree's neighbourhood bounds); D[m] the
                                        node's whole weight
    split_ranks(node, f, pos, &lo, &hi) the ranks a split at pos separates
    rank_position(node, f, rank)        the split position of a rank (rows of rank <= it);
                                        -1 where the layout hands no bounds on
    partition(level, node, f, pos, out) both children, in level's buffers
    candidates(node, f, out)            feature f's splits with Gini scores (rule strategies)
    solves_whole(node, depth)           whether solve_exact takes this node (always at
                                        depth <= exact_depth; the sorted layout also takes
                                        depth-two nodes whose histograms are cheap)
    solve_exact(node, depth, ...)       a node solved whole, without search
    children_depth_one(...)             best depth-one subtree of both children of a split
    similarity_prune(node, depth, ...)  a bound from recently solved similar sets
    remember(node, depth, lb)           ... and remembering this one
    hint_sibling / clear_hint           a second child's counts as its parent's minus its sibling's
    pair_children(level, node, f, pos, out)  in place of partition for a depth-three split:
                                        the sorted layout may lay out the smaller child only
                                        and solve both together (False: partition)
    memory_bytes()                      what the layout's buffers hold
"""
from optimaltrees.search.engine._sorted cimport SortedLayout
from optimaltrees.search.engine._bitset cimport BitsetLayout
from optimaltrees.search.engine._additive cimport AdditiveLayout

ctypedef fused Layout:
    SortedLayout
    BitsetLayout
    AdditiveLayout
