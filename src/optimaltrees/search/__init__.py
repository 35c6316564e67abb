"""Search layer: compiled DP / branch-and-bound kernels and their Python drivers."""
from optimaltrees.search.contree import SearchResult, search_tree

__all__ = ["SearchResult", "search_tree"]
