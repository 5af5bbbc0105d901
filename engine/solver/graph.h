// SPDX-License-Identifier: GPL-3.0-or-later
// Symbolic part of the graph-based sparse LDU (Brüdigam et al. 2023, §4, Algorithms 1–4):
// the depth-first elimination list, loop-closing edges, cyclic children and fill-in pattern.
// Computed once when a mechanism is compiled; the numeric factorisation (ldu_graph.h) only
// loops over these precomputed lists.
#pragma once

#include <utility>
#include <vector>

namespace ms {

struct EliminationOrder {
  int numNodes = 0;
  // Depth-first post-order elimination list: leaves first, each component's root last (§4.1).
  std::vector<int> list;
  // position[node] = index of node in `list`.
  std::vector<int> position;
  // children[i]: neighbours of i in the filled graph that are eliminated before i, in list order.
  // For acyclic graphs these are exactly the DFS children (Alg. 1); with cycles they also hold the
  // cyclic children that receive fill-in (Alg. 3).
  std::vector<std::vector<int>> children;
  // parents[i]: neighbours of i in the filled graph eliminated after i (direct and loop-opening
  // parents of Alg. 4), in list order.
  std::vector<std::vector<int>> parents;
  // Edges of the input graph not in the DFS spanning forest (one per independent cycle).
  std::vector<std::pair<int, int>> loopClosures;
  // Number of node pairs (unordered) connected in the filled graph but not in the input graph, and
  // those pairs.
  int fillIn = 0;
  std::vector<std::pair<int, int>> fillInPairs;
};

// adjacency: undirected graph, adjacency[i] lists the neighbours of node i (symmetric).
// zeroDiagonal[i]: node i has a structurally zero diagonal block (a joint): it is never placed in
// the list before at least one of its neighbours, so that its pivot becomes invertible.
// hangingLeaf[i]: node i is a leaf hanging on one node (an environment contact on its body): it is
// never chosen as a root and, if zero-diagonal, is moved to directly after its neighbour (the
// joint-to-the-world rule, "directly before the root", would make every body's elimination fill
// in against it: quadratic fill-in for a chain of bodies with contacts).
// companionOf[i] ≥ 0: node i is the companion of that node (the second node of a contact with
// more than 4 friction directions): the list is built without the companions, then each is placed
// directly after its node; its edges other than the one to its node close loops. A companion's
// node must not itself be a companion.
// minimumDegree: a graph with loops may be ordered by minimum degree instead (the same
// zero-diagonal rule), if that fills in less than the depth-first list: for the contact graphs of
// piles of bodies, whose many cycles the depth-first list fills in nearly densely.
EliminationOrder computeEliminationOrder(const std::vector<std::vector<int>>& adjacency,
                                         const std::vector<bool>& zeroDiagonal,
                                         const std::vector<bool>& hangingLeaf = {},
                                         const std::vector<int>& companionOf = {}, bool minimumDegree = false);

}  // namespace ms
