// SPDX-License-Identifier: GPL-3.0-or-later
// Symbolic part of the graph-based sparse LDU: Brüdigam et al. 2023, §4.1–4.2.
// - DFS post-order elimination list (§4.1, the "list" of Algorithms 1–4),
// - loop-closing edges and the cyclic children / loop-opening parents of Algorithms 3–4,
//   obtained here generally by a symbolic elimination ("elimination game") on the list,
// - the zero-diagonal fix-up (joints are never eliminated before all of their bodies).
#include "solver/graph.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

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

// Symbolic elimination on a list: eliminating v joins its not-yet-eliminated neighbours pairwise
// (the "elimination game"); the new pairs are the fill-in. Computed node by node along the
// elimination tree (George & Liu): v's later neighbours in the filled graph are its later input
// neighbours and those of its tree children (the nodes whose earliest later neighbour is v), v
// excepted, so every filled edge is formed once, without the pairwise insertions of the game.
// later[v] gets v's later filled neighbours (unsorted); returns the number of fill-in pairs (stops
// counting above `limit`, returning limit + 1) and appends them to *pairs.
long symbolicElimination(const std::vector<std::vector<int>>& adj, const std::vector<int>& list,
                         const std::vector<int>& position, std::vector<std::vector<int>>& later, long limit,
                         std::vector<std::pair<int, int>>* pairs) {
  const int n = static_cast<int>(adj.size());
  later.assign(n, {});
  std::vector<int> firstChild(n, -1), nextSibling(n, -1), mark(n, -1);
  long fill = 0;
  for (int k = 0; k < static_cast<int>(list.size()); ++k) {
    const int v = list[k];
    std::vector<int>& lv = later[v];
    mark[v] = k;
    // Its later input neighbours, then its tree children's later neighbours (fill-in when new).
    for (int w : adj[v])
      if (position[w] > k) lv.push_back(w), mark[w] = k;
    const long original = static_cast<long>(lv.size());
    for (int c = firstChild[v]; c >= 0; c = nextSibling[c])
      for (int w : later[c])
        if (mark[w] != k) {
          mark[w] = k;
          lv.push_back(w);
          if (pairs) pairs->emplace_back(v, w);
        }
    fill += static_cast<long>(lv.size()) - original;
    if (fill > limit) return limit + 1;
    // v's tree parent: its earliest later neighbour.
    if (lv.empty()) continue;
    int parent = lv.front();
    for (int w : lv)
      if (position[w] < position[parent]) parent = w;
    nextSibling[v] = firstChild[parent];
    firstChild[parent] = v;
  }
  return fill;
}

// A minimum-degree elimination list (greedy, on the elimination graph; ties to the lowest index)
// of the nodes that are not companions, with the zero-diagonal rule of the depth-first list: a
// zero-diagonal node only after all of its neighbours. Empty if the rule blocks it (never for
// graphs of bodies, joints, contacts and limits, whose zero-diagonal nodes touch only bodies).
std::vector<int> minimumDegreeList(const std::vector<std::vector<int>>& adj, const std::vector<bool>& zeroDiagonal,
                                   const std::vector<int>& companionOf) {
  const int n = static_cast<int>(adj.size());
  std::vector<std::vector<int>> g(n);  // the elimination graph, each list sorted
  std::vector<int> waiting(n, 0);      // zero-diagonal nodes: neighbours not yet eliminated
  std::vector<char> done(n, 0);
  int count = 0;
  for (int v = 0; v < n; ++v) {
    if (!companionOf.empty() && companionOf[v] >= 0) {
      done[v] = 1;
      continue;
    }
    g[v] = adj[v];
    if (!zeroDiagonal.empty() && zeroDiagonal[v]) waiting[v] = static_cast<int>(adj[v].size());
    ++count;
  }
  // The nodes that may be eliminated, by (degree, node): a min-heap whose entries go stale when a
  // node's degree changes or it is eliminated (skipped when they come up; a node's current entry
  // is pushed with each change), so it pops what an ordered set of the current pairs would.
  using Entry = std::pair<int, int>;  // (degree, node)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (int v = 0; v < n; ++v)
    if (!done[v] && waiting[v] == 0) ready.push({static_cast<int>(g[v].size()), v});
  std::vector<int> list;
  list.reserve(count);
  std::vector<int> nb, merged;
  while (!ready.empty()) {
    const auto [degree, v] = ready.top();
    ready.pop();
    if (done[v] || degree != static_cast<int>(g[v].size())) continue;
    done[v] = 1;
    list.push_back(v);
    nb.swap(g[v]);
    g[v].clear();
    // Its neighbours lose it and become pairwise adjacent (g[w] \ {v} ∪ nb \ {w}); their degrees change.
    for (int w : nb) {
      merged.clear();
      auto a = g[w].begin(), b = nb.begin();
      while (a != g[w].end() || b != nb.end()) {
        int x;
        if (b == nb.end() || (a != g[w].end() && *a < *b)) x = *a++;
        else if (a == g[w].end() || *b < *a) x = *b++;
        else x = *a++, ++b;
        if (x != v && x != w) merged.push_back(x);
      }
      g[w].swap(merged);
      if (std::binary_search(adj[v].begin(), adj[v].end(), w) && waiting[w] > 0) --waiting[w];
    }
    for (int w : nb)
      if (waiting[w] == 0) ready.push({static_cast<int>(g[w].size()), w});
  }
  if (static_cast<int>(list.size()) != count) list.clear();
  return list;
}

}  // namespace

EliminationOrder computeEliminationOrder(const std::vector<std::vector<int>>& adjacency,
                                         const std::vector<bool>& zeroDiagonal, const std::vector<bool>& hangingLeaf,
                                         const std::vector<int>& companionOf, bool minimumDegree) {
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

  // Many loops (contacts between bodies: a pile): the minimum-degree list instead of the
  // depth-first one when it fills in less (DFS orders a pile's cycles with fronts as wide as the
  // pile). The loop closures are then the input edges that are not in the filled graph's
  // elimination tree; they are informative only (the factorisation uses children and parents).
  if (minimumDegree && order.loopClosures.size() >= 2) {
    std::vector<int> md = minimumDegreeList(adj, zeroDiagonal, companionOf);
    if (!md.empty()) {
      std::vector<int> mdPosition(n, 0), dfsPosition(n, 0);
      for (int k = 0; k < static_cast<int>(md.size()); ++k) mdPosition[md[k]] = k;
      for (int k = 0; k < static_cast<int>(list.size()); ++k) dfsPosition[list[k]] = k;
      std::vector<std::vector<int>> scratch;
      const long dfsFill = symbolicElimination(adj, list, dfsPosition, scratch, std::numeric_limits<long>::max() - 1, nullptr);
      const long mdFill = symbolicElimination(adj, md, mdPosition, scratch, dfsFill, nullptr);
      if (mdFill < dfsFill) {
        list.swap(md);
        order.position.swap(mdPosition);
      }
    }
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

  // Symbolic elimination on the list: the filled graph and its fill-in pairs.
  std::vector<std::vector<int>> later;
  order.fillIn = static_cast<int>(symbolicElimination(adjFull, list, order.position, later,
                                                      std::numeric_limits<long>::max() - 1, &order.fillInPairs));

  // Children (filled neighbours eliminated earlier) and parents (later), both in list order.
  order.children.assign(n, {});
  order.parents.assign(n, {});
  auto byPosition = [&](int a, int b) { return order.position[a] < order.position[b]; };
  for (int i = 0; i < n; ++i) {
    order.parents[i] = later[i];
    for (int w : later[i]) order.children[w].push_back(i);
  }
  for (int i = 0; i < n; ++i) {
    std::sort(order.children[i].begin(), order.children[i].end(), byPosition);
    std::sort(order.parents[i].begin(), order.parents[i].end(), byPosition);
  }
  return order;
}

}  // namespace ms
