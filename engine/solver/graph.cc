// SPDX-License-Identifier: GPL-3.0-or-later
// Symbolic part of the graph-based sparse LDU: Brüdigam et al. 2023, §4.1–4.2.
// - DFS post-order elimination list (§4.1, the "list" of Algorithms 1–4),
// - loop-closing edges and the cyclic children / loop-opening parents of Algorithms 3–4,
//   obtained here generally by a symbolic elimination ("elimination game") on the list,
// - the zero-diagonal fix-up (joints are never eliminated before all of their bodies).
#include "solver/graph.h"

#include <algorithm>
#include <set>

#include "core/check.h"

namespace ms {

namespace {

// Sorted, duplicate-free neighbour lists without self-loops; asserts symmetry.
std::vector<std::vector<int>> normalisedAdjacency(const std::vector<std::vector<int>>& adjacency) {
  const int n = static_cast<int>(adjacency.size());
  std::vector<std::vector<int>> adj(adjacency.size());
  for (int i = 0; i < n; ++i) {
    for (int j : adjacency[i]) {
      MS_ASSERT(j >= 0 && j < n, "adjacency index out of range");
      if (j != i) adj[i].push_back(j);
    }
    std::sort(adj[i].begin(), adj[i].end());
    adj[i].erase(std::unique(adj[i].begin(), adj[i].end()), adj[i].end());
  }
  // Check symmetry: j in adj[i] implies i in adj[j].
  for (int i = 0; i < n; ++i)
    for (int j : adj[i]) MS_ASSERT(std::binary_search(adj[j].begin(), adj[j].end(), i), "adjacency must be symmetric");
  return adj;
}

// Nodes of the connected component containing `start` (iterative BFS), marking them in `seen`.
std::vector<int> collectComponent(const std::vector<std::vector<int>>& adj, int start, std::vector<char>& seen) {
  std::vector<int> comp{start};
  seen[start] = 1;
  for (size_t k = 0; k < comp.size(); ++k)
    for (int w : adj[comp[k]])
      if (!seen[w]) {
        seen[w] = 1;
        comp.push_back(w);
      }
  return comp;
}

}  // namespace

EliminationOrder computeEliminationOrder(const std::vector<std::vector<int>>& adjacency,
                                         const std::vector<bool>& zeroDiagonal, const std::vector<bool>& hangingLeaf,
                                         const std::vector<int>& companionOf) {
  const int n = static_cast<int>(adjacency.size());
  MS_ASSERT(zeroDiagonal.empty() || static_cast<int>(zeroDiagonal.size()) == n, "zeroDiagonal size mismatch");
  MS_ASSERT(companionOf.empty() || static_cast<int>(companionOf.size()) == n, "companionOf size mismatch");
  auto isZero = [&](int v) { return !zeroDiagonal.empty() && zeroDiagonal[v]; };
  auto isHanging = [&](int v) { return !hangingLeaf.empty() && hangingLeaf[v]; };
  auto anchorOf = [&](int v) { return companionOf.empty() ? -1 : companionOf[v]; };
  const std::vector<std::vector<int>> full = normalisedAdjacency(adjacency);
  // The graph without the companions: DFS, root choice and zero-diagonal fix-up run on it.
  std::vector<std::vector<int>> adj = full;
  int numCompanions = 0;
  for (int v = 0; v < n; ++v) {
    if (anchorOf(v) < 0) continue;
    MS_ASSERT(anchorOf(v) < n && anchorOf(anchorOf(v)) < 0 &&
                  std::binary_search(full[v].begin(), full[v].end(), anchorOf(v)),
              "a companion must be adjacent to its node, which is not a companion");
    ++numCompanions;
    adj[v].clear();
  }
  if (numCompanions > 0)
    for (auto& a : adj) a.erase(std::remove_if(a.begin(), a.end(), [&](int w) { return anchorOf(w) >= 0; }), a.end());

  EliminationOrder order;
  order.numNodes = n;
  order.list.reserve(n);

  // Iterative DFS per connected component; post-order list, non-tree edges are loop closures.
  // 0 = unvisited, 1 = on the DFS stack, 2 = finished.
  std::vector<char> state(n, 0), seenComp(n, 0);
  std::vector<int> dfsParent(n, -1), nextNeighbour(n, 0), rootOf(n, -1), stack;
  for (int start = 0; start < n; ++start) {
    if (seenComp[start] || anchorOf(start) >= 0) continue;
    // Root: the lowest-index zero-diagonal node of degree 1 (a joint to the world), else the
    // lowest-index node of the component.
    std::vector<int> comp = collectComponent(adj, start, seenComp);
    std::sort(comp.begin(), comp.end());
    int root = comp.front();
    for (int v : comp)
      if (isZero(v) && adj[v].size() == 1 && !isHanging(v)) {
        root = v;
        break;
      }
    for (int v : comp) rootOf[v] = root;
    // Depth-first search visiting neighbours in ascending order.
    stack.push_back(root);
    state[root] = 1;
    while (!stack.empty()) {
      const int u = stack.back();
      if (nextNeighbour[u] < static_cast<int>(adj[u].size())) {
        const int w = adj[u][nextNeighbour[u]++];
        if (state[w] == 0) {
          state[w] = 1;
          dfsParent[w] = u;
          stack.push_back(w);
        } else if (state[w] == 1 && w != dfsParent[u]) {
          // Back edge to an ancestor still on the stack: seen exactly once from this side.
          order.loopClosures.emplace_back(w, u);
        }
      } else {
        state[u] = 2;
        order.list.push_back(u);
        stack.pop_back();
      }
    }
  }
  MS_ASSERT(static_cast<int>(order.list.size()) == n - numCompanions, "DFS did not visit every node");

  // Zero-diagonal fix-up: a zero-diagonal node eliminated before all of its neighbours would be a
  // singular pivot. It is moved to directly after its latest-eliminated neighbour, so that it
  // becomes a loop-opening parent of its cycle (Alg. 3/4). A node with a single neighbour (a joint
  // to the world, the world being an implicit neighbour eliminated last) is moved to directly
  // before its component's root. Each node is moved at most once.
  // (Moving it only after its earliest-eliminated neighbour would leave the next joint of the loop
  // a pivot of rank ≤ 6 − rows(moved joint): singular for revolute loops; see tst_ldu_graph.)
  std::vector<int>& list = order.list;
  order.position.assign(n, 0);
  for (int k = 0; k < n - numCompanions; ++k) order.position[list[k]] = k;
  // Single pass: moving v shifts only nodes at positions k..target, so earlier nodes stay valid;
  // the node that slides into position k is examined next.
  std::vector<char> moved(n, 0);
  for (int k = 0; k < n - numCompanions;) {
    const int v = list[k];
    int target = -1;
    if (isZero(v) && !moved[v] && !adj[v].empty()) {
      int earliest = n, latest = -1;
      for (int w : adj[v]) {
        earliest = std::min(earliest, order.position[w]);
        latest = std::max(latest, order.position[w]);
      }
      if (earliest > k) target = adj[v].size() == 1 && !isHanging(v) ? order.position[rootOf[v]] - 1 : latest;
    }
    if (target <= k) {
      ++k;
      continue;
    }
    // Move v from position k to position target (directly after / before the chosen node).
    std::rotate(list.begin() + k, list.begin() + k + 1, list.begin() + target + 1);
    for (int m = k; m <= target; ++m) order.position[list[m]] = m;
    moved[v] = 1;
  }

  // Companions: each directly after its node; its other edges close loops (its tree edge is the one
  // to its node).
  if (numCompanions > 0) {
    std::vector<int> withCompanions;
    withCompanions.reserve(n);
    std::vector<std::vector<int>> companions(n);
    for (int v = 0; v < n; ++v)
      if (anchorOf(v) >= 0) companions[anchorOf(v)].push_back(v);
    for (int v : list) {
      withCompanions.push_back(v);
      for (int c : companions[v]) {
        withCompanions.push_back(c);
        for (int w : full[c])
          if (w != v && (anchorOf(w) < 0 || w < c)) order.loopClosures.emplace_back(w, c);
      }
    }
    list.swap(withCompanions);
    MS_ASSERT(static_cast<int>(list.size()) == n, "a companion's node is missing from the list");
    for (int k = 0; k < n; ++k) order.position[list[k]] = k;
  }
  const std::vector<std::vector<int>>& adjFull = full;

  // Symbolic elimination (elimination game) on the list: eliminating v connects all of its
  // not-yet-eliminated neighbours pairwise; the new pairs are the fill-in.
  std::vector<std::set<int>> filled(n);
  for (int i = 0; i < n; ++i) filled[i].insert(adjFull[i].begin(), adjFull[i].end());
  std::vector<int> later;
  for (int k = 0; k < n; ++k) {
    const int v = list[k];
    later.clear();
    for (int w : filled[v])
      if (order.position[w] > k) later.push_back(w);
    for (size_t a = 0; a < later.size(); ++a)
      for (size_t b = a + 1; b < later.size(); ++b)
        if (filled[later[a]].insert(later[b]).second) {
          filled[later[b]].insert(later[a]);
          ++order.fillIn;
          order.fillInPairs.emplace_back(later[a], later[b]);
        }
  }

  // Children (filled neighbours eliminated earlier) and parents (later), both in list order.
  order.children.assign(n, {});
  order.parents.assign(n, {});
  auto byPosition = [&](int a, int b) { return order.position[a] < order.position[b]; };
  for (int i = 0; i < n; ++i) {
    for (int w : filled[i]) (order.position[w] < order.position[i] ? order.children[i] : order.parents[i]).push_back(w);
    std::sort(order.children[i].begin(), order.children[i].end(), byPosition);
    std::sort(order.parents[i].begin(), order.parents[i].end(), byPosition);
  }
  return order;
}

}  // namespace ms
