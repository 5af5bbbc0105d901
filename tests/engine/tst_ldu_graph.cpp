// SPDX-License-Identifier: GPL-3.0-or-later
// Tests of the graph-based sparse block LDU (Brüdigam et al. 2023, §4, Algorithms 1–4):
// elimination order (graph.h), numeric factor/solve (ldu_graph.h), invert6, and the dense block
// LDU reference (dense_ldu.h), against Eigen's FullPivLU.
#include <QTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <Eigen/LU>

#include "core/types.h"
#include "solver/dense_ldu.h"
#include "solver/graph.h"
#include "solver/ldu_graph.h"

#include "allocation_counter.h"

using namespace ms;

namespace {

using Rng = std::mt19937_64;
using Edge = std::pair<int, int>;

// Uniform random 6×6 matrix with entries in [-1, 1].
Mat6 randomMat6(Rng& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Mat6 m;
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 6; ++c) m(r, c) = u(rng);
  return m;
}

// Random vector of length n with entries in [-1, 1].
VecX randomVec(Rng& rng, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  VecX v(n);
  for (int i = 0; i < n; ++i) v[i] = u(rng);
  return v;
}

int randomInt(Rng& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// A block matrix on a graph: diagonal blocks, off-diagonal blocks for both directions of every
// edge, and the zero-diagonal flags.
struct BlockProblem {
  int n = 0;
  std::vector<Mat6, Eigen::aligned_allocator<Mat6>> diag;
  std::map<Edge, Mat6, std::less<Edge>, Eigen::aligned_allocator<std::pair<const Edge, Mat6>>> off;
  std::vector<bool> zeroDiagonal;

  std::vector<std::vector<int>> adjacency() const {
    std::vector<std::vector<int>> adj(n);
    for (const auto& [e, m] : off) adj[e.first].push_back(e.second);
    return adj;
  }
  int numEdges() const { return static_cast<int>(off.size() / 2); }
  MatX dense() const {
    MatX a = MatX::Zero(6 * n, 6 * n);
    for (int i = 0; i < n; ++i) a.block<6, 6>(6 * i, 6 * i) = diag[i];
    for (const auto& [e, m] : off) a.block<6, 6>(6 * e.first, 6 * e.second) = m;
    return a;
  }
};

// Number of connected components of an undirected graph.
int countComponents(const std::vector<std::vector<int>>& adj) {
  const int n = static_cast<int>(adj.size());
  std::vector<int> seen(n, 0), stack;
  int comps = 0;
  for (int s = 0; s < n; ++s) {
    if (seen[s]) continue;
    ++comps;
    seen[s] = 1;
    stack.push_back(s);
    while (!stack.empty()) {
      const int u = stack.back();
      stack.pop_back();
      for (int w : adj[u])
        if (!seen[w]) {
          seen[w] = 1;
          stack.push_back(w);
        }
    }
  }
  return comps;
}

// BFS distance between two nodes of an edge set (n nodes); large if disconnected.
int graphDistance(int n, const std::set<Edge>& edges, int a, int b) {
  std::vector<std::vector<int>> adj(n);
  for (const auto& [u, v] : edges) {
    adj[u].push_back(v);
    adj[v].push_back(u);
  }
  std::vector<int> dist(n, -1), queue{a};
  dist[a] = 0;
  for (size_t k = 0; k < queue.size(); ++k)
    for (int w : adj[queue[k]])
      if (dist[w] < 0) {
        dist[w] = dist[queue[k]] + 1;
        queue.push_back(w);
      }
  return dist[b] < 0 ? std::numeric_limits<int>::max() : dist[b];
}

// Random labelled tree on n nodes (random recursive tree on a shuffled labelling), as an edge set.
std::set<Edge> randomTreeEdges(Rng& rng, int n) {
  std::vector<int> label(n);
  for (int i = 0; i < n; ++i) label[i] = i;
  std::shuffle(label.begin(), label.end(), rng);
  std::set<Edge> edges;
  const int shape = randomInt(rng, 0, 3);  // 0,1: random recursive, 2: path-like, 3: star-like
  for (int k = 1; k < n; ++k) {
    int parent = randomInt(rng, 0, k - 1);
    if (shape == 2) parent = std::max(0, k - randomInt(rng, 1, 2));
    if (shape == 3) parent = randomInt(rng, 0, std::min(k - 1, 2));
    edges.insert(std::minmax(label[k], label[parent]));
  }
  return edges;
}

// Adds `count` extra edges, each between two nodes at graph distance ≥ 3, so that each closes a
// chordless cycle of length ≥ 4 (the last one stays chordless: the graph is not chordal).
int addCycleEdges(Rng& rng, int n, std::set<Edge>& edges, int count) {
  int added = 0;
  for (int attempt = 0; attempt < 1000 && added < count; ++attempt) {
    const int a = randomInt(rng, 0, n - 1), b = randomInt(rng, 0, n - 1);
    const int d = graphDistance(n, edges, a, b);
    if (a == b || d < 3 || d == std::numeric_limits<int>::max()) continue;
    edges.insert(std::minmax(a, b));
    ++added;
  }
  return added;
}

// Generic random block matrix on a graph, block-row diagonally dominant: off-diagonal blocks have
// max row sum ≤ 6, the diagonal is 6·(degree + 1)·I + a random perturbation.
BlockProblem genericProblem(Rng& rng, int n, const std::set<Edge>& edges) {
  BlockProblem p;
  p.n = n;
  p.zeroDiagonal.assign(n, false);
  std::vector<int> degree(n, 0);
  for (const auto& [u, v] : edges) {
    p.off[{u, v}] = randomMat6(rng);
    p.off[{v, u}] = randomMat6(rng);
    ++degree[u];
    ++degree[v];
  }
  for (int i = 0; i < n; ++i) p.diag.push_back(6.0 * (degree[i] + 1) * Mat6::Identity() + randomMat6(rng));
  return p;
}

// A KKT-like problem (bodies and joints): bodies have well-conditioned unsymmetric mass-like
// diagonal blocks; joint j with r constraint rows has the diagonal diag(0_r, I_{6−r}) (padding rows)
// and couples to each of its bodies b by C_jb = G (rows ≥ r zero) and B_bj = −(G + E)ᵀ.
struct KktBuilder {
  Rng& rng;
  BlockProblem p;
  std::vector<bool> isJoint;

  explicit KktBuilder(Rng& r) : rng(r) {}
  int addBody() {
    p.diag.push_back((1.0 + 2.0 * std::uniform_real_distribution<double>(0, 1)(rng)) * Mat6::Identity() +
                     0.2 * randomMat6(rng));
    p.zeroDiagonal.push_back(false);
    isJoint.push_back(false);
    return p.n++;
  }
  int addJoint(const std::vector<int>& bodies, int rows) {
    Mat6 d = Mat6::Zero();
    for (int k = rows; k < 6; ++k) d(k, k) = 1.0;
    p.diag.push_back(d);
    p.zeroDiagonal.push_back(true);
    isJoint.push_back(true);
    const int j = p.n++;
    double sign = 1.0;
    for (int b : bodies) {
      Mat6 g = sign * Mat6::Identity() + 0.3 * randomMat6(rng);
      Mat6 e = 0.05 * randomMat6(rng);
      g.bottomRows(6 - rows).setZero();
      e.bottomRows(6 - rows).setZero();
      p.off[{j, b}] = g;
      p.off[{b, j}] = -(g + e).transpose();
      sign = -sign;
    }
    return j;
  }
};

// Relabels the nodes of a problem by a random permutation (so that DFS order is not trivial).
BlockProblem shuffled(Rng& rng, const BlockProblem& q) {
  std::vector<int> perm(q.n);
  for (int i = 0; i < q.n; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  BlockProblem p;
  p.n = q.n;
  p.diag.resize(q.n);
  p.zeroDiagonal.resize(q.n);
  for (int i = 0; i < q.n; ++i) {
    p.diag[perm[i]] = q.diag[i];
    p.zeroDiagonal[perm[i]] = q.zeroDiagonal[i];
  }
  for (const auto& [e, m] : q.off) p.off[{perm[e.first], perm[e.second]}] = m;
  return p;
}

// Random KKT tree: nb bodies connected by nb−1 two-body joints with 3..maxRows constraint rows,
// plus `worldJoints` one-body joints on distinct bodies (3..maxRows rows if there is one, else 3
// rows each, so that a few pinned bodies in a row are not over-constrained).
BlockProblem kktTree(Rng& rng, int nb, int worldJoints, int maxRows) {
  KktBuilder k(rng);
  std::vector<int> bodies;
  for (int b = 0; b < nb; ++b) bodies.push_back(k.addBody());
  for (const auto& [u, v] : randomTreeEdges(rng, nb)) k.addJoint({bodies[u], bodies[v]}, randomInt(rng, 3, maxRows));
  std::vector<int> pinned = bodies;
  std::shuffle(pinned.begin(), pinned.end(), rng);
  for (int w = 0; w < worldJoints; ++w)
    k.addJoint({pinned[w % nb]}, worldJoints == 1 ? randomInt(rng, 3, maxRows) : 3);
  return shuffled(rng, k.p);
}

// Relative difference ‖a − b‖ / ‖b‖.
double relDiff(const VecX& a, const VecX& b) { return (a - b).norm() / std::max(b.norm(), 1e-300); }

// Builds the sparse solver for a problem: elimination order, storage, fill via blockIndex().
struct SparseSetup {
  EliminationOrder order;
  GraphLDU ldu;
};
// (minimumDegree: computeEliminationOrder may take the minimum-degree list.)
SparseSetup makeSparse(const BlockProblem& p, bool minimumDegree = false) {
  SparseSetup s;
  s.order = computeEliminationOrder(p.adjacency(), p.zeroDiagonal, {}, {}, minimumDegree);
  s.ldu = GraphLDU(s.order);
  s.ldu.setZero();
  for (int i = 0; i < p.n; ++i) s.ldu.diag(i) = p.diag[i];
  for (const auto& [e, m] : p.off) s.ldu.block(s.ldu.blockIndex(e.first, e.second)) = m;
  return s;
}

// The filled graph of eliminating the nodes of `list` in turn, by the definition (the elimination
// game: eliminating v joins its not-yet-eliminated neighbours pairwise), as a set of ordered pairs.
std::set<Edge> eliminationGame(const std::vector<std::vector<int>>& adj, const std::vector<int>& list) {
  const int n = static_cast<int>(adj.size());
  std::vector<std::set<int>> g(n);
  std::set<Edge> filled;
  for (int i = 0; i < n; ++i) g[i].insert(adj[i].begin(), adj[i].end());
  std::vector<char> eliminated(n, 0);
  for (int v : list) {
    eliminated[v] = 1;
    std::vector<int> later;
    for (int w : g[v])
      if (!eliminated[w]) later.push_back(w), filled.insert({v, w}), filled.insert({w, v});
    for (int a : later)
      for (int b : later)
        if (a != b) g[a].insert(b);
  }
  return filled;
}

// Checks structural invariants of an elimination order against its input graph.
void checkOrderInvariants(const BlockProblem& p, const EliminationOrder& o) {
  QCOMPARE(o.numNodes, p.n);
  QCOMPARE(static_cast<int>(o.list.size()), p.n);
  // list is a permutation and position is its inverse.
  std::vector<int> sorted = o.list;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < p.n; ++i) QCOMPARE(sorted[i], i);
  for (int k = 0; k < p.n; ++k) QCOMPARE(o.position[o.list[k]], k);
  // children earlier / parents later, both in list order; every input edge is present.
  for (int i = 0; i < p.n; ++i) {
    for (size_t k = 0; k < o.children[i].size(); ++k) {
      QVERIFY(o.position[o.children[i][k]] < o.position[i]);
      if (k > 0) QVERIFY(o.position[o.children[i][k - 1]] < o.position[o.children[i][k]]);
    }
    for (size_t k = 0; k < o.parents[i].size(); ++k) {
      QVERIFY(o.position[o.parents[i][k]] > o.position[i]);
      if (k > 0) QVERIFY(o.position[o.parents[i][k - 1]] < o.position[o.parents[i][k]]);
    }
  }
  int filledPairs = 0;
  for (int i = 0; i < p.n; ++i) filledPairs += static_cast<int>(o.children[i].size());
  for (const auto& [e, m] : p.off) {
    const auto& ch = o.children[e.first];
    const auto& pa = o.parents[e.first];
    QVERIFY(std::find(ch.begin(), ch.end(), e.second) != ch.end() || std::find(pa.begin(), pa.end(), e.second) != pa.end());
  }
  QCOMPARE(filledPairs, p.numEdges() + o.fillIn);
  // The filled graph (children, parents, fill-in pairs) is the elimination game's on the list.
  std::set<Edge> filled, fillIn;
  for (int i = 0; i < p.n; ++i)
    for (int c : o.children[i]) filled.insert({i, c}), filled.insert({c, i});
  QVERIFY(filled == eliminationGame(p.adjacency(), o.list));
  for (const auto& [a, b] : o.fillInPairs) {
    QVERIFY(p.off.count({a, b}) == 0);
    QVERIFY(fillIn.insert(std::minmax(a, b)).second);
  }
  QCOMPARE(static_cast<int>(fillIn.size()), o.fillIn);
  // Loop closures: one per independent cycle, each an input edge, no duplicates.
  const auto adj = p.adjacency();
  QCOMPARE(static_cast<int>(o.loopClosures.size()), p.numEdges() - p.n + countComponents(adj));
  std::set<Edge> closures;
  for (const auto& [a, b] : o.loopClosures) {
    QVERIFY(p.off.count({a, b}) == 1);
    QVERIFY(closures.insert(std::minmax(a, b)).second);
  }
  // No zero-diagonal node with neighbours is eliminated before all of them.
  for (int i = 0; i < p.n; ++i) {
    if (!p.zeroDiagonal[i] || adj[i].empty()) continue;
    bool hasEarlier = false;
    for (int w : adj[i]) hasEarlier = hasEarlier || o.position[w] < o.position[i];
    QVERIFY2(hasEarlier, "zero-diagonal node eliminated before all of its neighbours");
  }
}

// Solves with the sparse solver, the dense block LDU and FullPivLU; all must agree to 1e-10.
// Both storages of the lower factor (GraphLDU::Lower) are checked: L in s.ldu, G = L D in a copy.
void checkSolveAgainstReferences(Rng& rng, const BlockProblem& p, SparseSetup& s, const char* what) {
  const MatX a = p.dense();
  QVERIFY2(s.ldu.toDense() == a, "toDense() differs from the assembled matrix");
  const VecX b = randomVec(rng, 6 * p.n);
  GraphLDU ld(s.order, GraphLDU::Lower::LD);
  ld.copyValues(s.ldu);
  QVERIFY2(s.ldu.factor(), what);
  QVERIFY2(ld.factor(), what);
  VecX xs, xg;
  s.ldu.solve(b, xs);
  ld.solve(b, xg);
  VecX xd;
  QVERIFY2(denseBlockLDUSolve(a, s.order.list, 6, b, xd), what);
  Eigen::FullPivLU<MatX> lu(a);
  QVERIFY2(lu.isInvertible(), what);
  const VecX xf = lu.solve(b);
  const double eSparseDense = relDiff(xs, xd), eSparseLu = relDiff(xs, xf), eDenseLu = relDiff(xd, xf);
  const double residual = (a * xs - b).norm() / b.norm();
  const QByteArray msg = QByteArray(what) + ": n=" + QByteArray::number(p.n) +
                         " sparse-dense=" + QByteArray::number(eSparseDense, 'g', 3) +
                         " sparse-LU=" + QByteArray::number(eSparseLu, 'g', 3) +
                         " dense-LU=" + QByteArray::number(eDenseLu, 'g', 3) +
                         " residual=" + QByteArray::number(residual, 'g', 3);
  QVERIFY2(eSparseDense < 1e-10, msg.constData());
  QVERIFY2(eSparseLu < 1e-10, msg.constData());
  QVERIFY2(eDenseLu < 1e-10, msg.constData());
  QVERIFY2(residual < 1e-10, msg.constData());
  const double eLdLu = relDiff(xg, xf), residualLd = (a * xg - b).norm() / b.norm();
  const QByteArray msgLd = msg + " G=LD: LD-LU=" + QByteArray::number(eLdLu, 'g', 3) +
                           " residual=" + QByteArray::number(residualLd, 'g', 3);
  QVERIFY2(eLdLu < 1e-10, msgLd.constData());
  QVERIFY2(residualLd < 1e-10, msgLd.constData());
}

// Tree invariants of Algorithms 1/2: no fill-in, no loop closures, at most one parent per node.
void checkTreeOrder(const EliminationOrder& o) {
  QCOMPARE(o.fillIn, 0);
  QVERIFY(o.loopClosures.empty());
  for (int i = 0; i < o.numNodes; ++i) QVERIFY(o.parents[i].size() <= 1);
}

// Median wall time (µs) of f over `reps` runs after a warm-up.
template <class F>
double medianMicros(int reps, F&& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

}  // namespace

// Runs a checking helper and stops the test function if it recorded a failure.
#define MS_CHECK(call)                  \
  do {                                  \
    call;                               \
    if (QTest::currentTestFailed()) return; \
  } while (0)

class TestLduGraph : public QObject {
  Q_OBJECT

 private slots:
  // Random KKT trees (bodies + joints, ≤ 1 joint to the world): sparse = dense = FullPivLU,
  // zero fill-in, ≤ 1 parent.
  void kktTrees() {
    Rng rng(20230501);
    for (int t = 0; t < 24; ++t) {
      // Node count 2..200: nb bodies, nb − 1 joints and 0/1 world joint.
      const int world = (t % 3 == 0) ? 0 : 1;
      const int nb = (t == 0) ? 1 : (t == 1 ? 100 : randomInt(rng, 2, 40));
      const BlockProblem p = kktTree(rng, nb, t == 0 ? 1 : world, 6);
      QVERIFY(p.n >= 2 && p.n <= 200);
      SparseSetup s = makeSparse(p);
      MS_CHECK(checkOrderInvariants(p, s.order));
      MS_CHECK(checkTreeOrder(s.order));
      MS_CHECK(checkSolveAgainstReferences(rng, p, s, "kkt tree"));
    }
  }

  // KKT trees with several joints to the world (e.g. a robot with several feet pinned): loops
  // through the world, so fill-in is allowed, but factor() must succeed and agree.
  void kktTreesSeveralWorldJoints() {
    Rng rng(5);
    for (int t = 0; t < 10; ++t) {
      const int nb = randomInt(rng, 4, 40);
      const BlockProblem p = kktTree(rng, nb, randomInt(rng, 2, 4), 4);
      SparseSetup s = makeSparse(p);
      MS_CHECK(checkOrderInvariants(p, s.order));
      MS_CHECK(checkSolveAgainstReferences(rng, p, s, "kkt tree, several world joints"));
    }
  }

  // Random diagonally dominant block trees and forests (several components).
  void genericTrees() {
    Rng rng(7);
    for (int t = 0; t < 24; ++t) {
      const int n = (t == 0) ? 2 : (t == 1 ? 200 : randomInt(rng, 2, 80));
      std::set<Edge> edges = randomTreeEdges(rng, n);
      // Every third case: drop an edge to make a forest of two trees.
      if (t % 3 == 2 && !edges.empty()) edges.erase(edges.begin());
      const BlockProblem p = genericProblem(rng, n, edges);
      SparseSetup s = makeSparse(p);
      MS_CHECK(checkOrderInvariants(p, s.order));
      MS_CHECK(checkTreeOrder(s.order));
      MS_CHECK(checkSolveAgainstReferences(rng, p, s, "generic tree"));
    }
  }

  // A graph with exactly one cycle (chordless, length ≥ 4): one loop closure, fill-in > 0.
  void singleCycle() {
    Rng rng(11);
    for (int t = 0; t < 12; ++t) {
      const int n = randomInt(rng, 4, 60);
      std::set<Edge> edges = randomTreeEdges(rng, n);
      if (addCycleEdges(rng, n, edges, 1) != 1) continue;  // e.g. a star has no distance-3 pair
      const BlockProblem p = genericProblem(rng, n, edges);
      SparseSetup s = makeSparse(p);
      MS_CHECK(checkOrderInvariants(p, s.order));
      QCOMPARE(static_cast<int>(s.order.loopClosures.size()), 1);
      QVERIFY(s.order.fillIn > 0);
      MS_CHECK(checkSolveAgainstReferences(rng, p, s, "single cycle"));
    }
    // A plain ring (the simplest cycle).
    std::set<Edge> ring;
    for (int i = 0; i < 10; ++i) ring.insert(std::minmax(i, (i + 1) % 10));
    const BlockProblem p = genericProblem(rng, 10, ring);
    SparseSetup s = makeSparse(p);
    MS_CHECK(checkOrderInvariants(p, s.order));
    QCOMPARE(static_cast<int>(s.order.loopClosures.size()), 1);
    QVERIFY(s.order.fillIn > 0);
    MS_CHECK(checkSolveAgainstReferences(rng, p, s, "ring"));
  }

  // Several (nested / intersecting) cycles, a grid, disconnected cyclic components.
  void multipleCycles() {
    Rng rng(13);
    for (int t = 0; t < 16; ++t) {
      const int n = randomInt(rng, 8, 80);
      std::set<Edge> edges = randomTreeEdges(rng, n);
      if (t % 4 == 3) edges.erase(std::next(edges.begin(), randomInt(rng, 0, static_cast<int>(edges.size()) - 1)));
      const int added = addCycleEdges(rng, n, edges, randomInt(rng, 2, 10));
      if (added < 2) continue;
      const BlockProblem p = genericProblem(rng, n, edges);
      SparseSetup s = makeSparse(p);
      MS_CHECK(checkOrderInvariants(p, s.order));
      QCOMPARE(static_cast<int>(s.order.loopClosures.size()), added);
      QVERIFY(s.order.fillIn > 0);
      MS_CHECK(checkSolveAgainstReferences(rng, p, s, "multiple cycles"));
    }
    // 6×6 grid: 25 intersecting 4-cycles.
    std::set<Edge> grid;
    for (int r = 0; r < 6; ++r)
      for (int c = 0; c < 6; ++c) {
        if (c + 1 < 6) grid.insert({6 * r + c, 6 * r + c + 1});
        if (r + 1 < 6) grid.insert({6 * r + c, 6 * (r + 1) + c});
      }
    const BlockProblem p = genericProblem(rng, 36, grid);
    SparseSetup s = makeSparse(p);
    MS_CHECK(checkOrderInvariants(p, s.order));
    QCOMPARE(static_cast<int>(s.order.loopClosures.size()), 25);
    QVERIFY(s.order.fillIn > 0);
    MS_CHECK(checkSolveAgainstReferences(rng, p, s, "grid"));
  }

  // Contact graphs of piles (bodies joined through contact nodes, many cycles): the minimum-degree
  // list, taken where it fills in less than the depth-first one, keeps every invariant (its filled
  // graph is the elimination game's) and solves as the dense references.
  void minimumDegreeOrderOfPiles() {
    Rng rng(17);
    int chosen = 0;
    for (int t = 0; t < 12; ++t) {
      const int bodies = randomInt(rng, 6, 40), contacts = randomInt(rng, bodies, 3 * bodies);
      std::set<Edge> edges;
      for (int c = 0; c < contacts; ++c) {
        const int a = randomInt(rng, 0, bodies - 1), b = randomInt(rng, 0, bodies - 1), node = bodies + c;
        edges.insert(std::minmax(node, a));
        if (b != a) edges.insert(std::minmax(node, b));
      }
      const BlockProblem p = genericProblem(rng, bodies + contacts, edges);
      SparseSetup s = makeSparse(p, true);
      const EliminationOrder dfs = computeEliminationOrder(p.adjacency(), p.zeroDiagonal);
      QVERIFY(s.order.fillIn <= dfs.fillIn);
      chosen += s.order.list != dfs.list;
      MS_CHECK(checkOrderInvariants(p, s.order));
      MS_CHECK(checkSolveAgainstReferences(rng, p, s, "pile, minimum degree"));
    }
    QVERIFY(chosen > 0);  // the minimum-degree list was taken at least once
  }

  // Trivial nodes (setTrivial: identity diagonal, zero row and column, as a contact that is not a
  // candidate of the step): marked, they are skipped by factor(), solve() and multiply(), and the
  // results equal the unmarked solver's and the dense references, on graphs with cycles (fill-in
  // next to trivial nodes) and on KKT trees (trivial joints and bodies).
  void trivialNodesAreSkippedExactly() {
    Rng rng(29);
    for (int t = 0; t < 24; ++t) {
      BlockProblem p;
      if (t % 2 == 0) {
        const int n = randomInt(rng, 8, 60);
        std::set<Edge> edges = randomTreeEdges(rng, n);
        addCycleEdges(rng, n, edges, randomInt(rng, 0, 6));
        p = genericProblem(rng, n, edges);
      } else {
        p = kktTree(rng, randomInt(rng, 4, 30), 1, 6);
      }
      // About a third of the nodes become trivial, x_i = rhs_i: any node of the generic problems; in
      // the KKT trees the joints only, as in a step, where the trivial nodes are constraints (a body's
      // pivot is needed by the joint nodes eliminated before it, in the unpivoted order).
      std::vector<bool> trivial(p.n);
      for (int i = 0; i < p.n; ++i) trivial[i] = (t % 2 == 0 || p.zeroDiagonal[i]) && randomInt(rng, 0, 2) == 0;
      for (int i = 0; i < p.n; ++i)
        if (trivial[i]) p.diag[i].setIdentity();
      for (auto& [e, m] : p.off)
        if (trivial[e.first] || trivial[e.second]) m.setZero();
      SparseSetup marked = makeSparse(p), plain = makeSparse(p);
      for (int i = 0; i < p.n; ++i) marked.ldu.setTrivial(i, trivial[i]);
      // multiply(): the same product.
      const VecX x = randomVec(rng, 6 * p.n);
      VecX ym(6 * p.n), yp(6 * p.n);
      marked.ldu.multiply(x, ym);
      plain.ldu.multiply(x, yp);
      QVERIFY2(relDiff(ym, yp) < 1e-15, "multiply() differs with trivial marks");
      marked.ldu.multiplyAbs(x, ym);
      plain.ldu.multiplyAbs(x, yp);
      QVERIFY2(relDiff(ym, yp) < 1e-15, "multiplyAbs() differs with trivial marks");
      // factor() + solve(): the same solution as unmarked and as the dense references.
      const VecX b = randomVec(rng, 6 * p.n);
      QVERIFY(plain.ldu.factor());
      VecX xp;
      plain.ldu.solve(b, xp);
      MS_CHECK(checkSolveAgainstReferences(rng, p, marked, "trivial nodes"));
      VecX xm;
      marked.ldu.solve(b, xm);
      QVERIFY2(relDiff(xm, xp) < 1e-12, qPrintable(QString("marked and unmarked solves differ by %1").arg(relDiff(xm, xp))));
      for (int i = 0; i < p.n; ++i)
        if (trivial[i]) QVERIFY2(xm.segment<6>(6 * i) == b.segment<6>(6 * i), "a trivial node's x is not its rhs");
    }
  }

  // restrictTo() (with either storage of the lower factor): two islands (random graphs with cycles)
  // and trivial bridge nodes joined to one node of each (a contact between two bodies that is not a candidate: eliminated first, it fills in a
  // block between the islands). With the other island's nodes and the bridges marked trivial, the
  // factorisation and solve restricted to one island give that island's rows of the whole solve, and
  // the restricted products its rows of the whole product; rows outside it are not written.
  void restrictedToAnIslandSolvesItsRows() {
    Rng rng(31);
    for (int t = 0; t < 16; ++t) {
      const int na = randomInt(rng, 3, 25), nb = randomInt(rng, 3, 25), bridges = randomInt(rng, 1, 4);
      const int n = na + nb + bridges;
      std::set<Edge> edges = randomTreeEdges(rng, na);
      addCycleEdges(rng, na, edges, randomInt(rng, 0, 3));
      std::set<Edge> eb = randomTreeEdges(rng, nb);
      addCycleEdges(rng, nb, eb, randomInt(rng, 0, 3));
      for (const auto& [u, v] : eb) edges.insert({na + u, na + v});
      for (int k = 0; k < bridges; ++k) {
        const int c = na + nb + k;
        edges.insert({randomInt(rng, 0, na - 1), c});
        edges.insert({na + randomInt(rng, 0, nb - 1), c});
      }
      BlockProblem p = genericProblem(rng, n, edges);
      for (int k = 0; k < bridges; ++k) p.diag[na + nb + k].setIdentity();
      for (auto& [e, m] : p.off)
        if (e.first >= na + nb || e.second >= na + nb) m.setZero();
      SparseSetup whole = makeSparse(p), part = makeSparse(p);
      for (int k = 0; k < bridges; ++k) whole.ldu.setTrivial(na + nb + k, true);
      const VecX b = randomVec(rng, 6 * n), x = randomVec(rng, 6 * n);
      VecX yWhole(6 * n), xWhole;
      whole.ldu.multiply(x, yWhole);
      QVERIFY(whole.ldu.factor());
      whole.ldu.solve(b, xWhole);
      for (int run = 0; run < 4; ++run) {
        const int island = run % 2;
        const GraphLDU::Lower lower = run < 2 ? GraphLDU::Lower::L : GraphLDU::Lower::LD;
        const int first = island == 0 ? 0 : na, count = island == 0 ? na : nb;
        std::vector<int> nodes(count);
        for (int i = 0; i < count; ++i) nodes[i] = first + i;
        const std::vector<int>& position = part.ldu.order().position;
        std::sort(nodes.begin(), nodes.end(), [&](int u, int v) { return position[u] < position[v]; });
        SparseSetup fresh = makeSparse(p);
        GraphLDU L(fresh.order, lower);  // each storage of the lower factor
        L.copyValues(fresh.ldu);
        for (int i = 0; i < n; ++i) L.setTrivial(i, i < first || i >= first + count);
        L.restrictTo(nodes.data(), count);
        const double kUnwritten = 12345.0;
        VecX y = VecX::Constant(6 * n, kUnwritten), xs = VecX::Constant(6 * n, kUnwritten);
        L.multiply(x, y);
        QVERIFY(L.factor());
        L.solve(b, xs);
        for (int i = 0; i < n; ++i) {
          const bool in = i >= first && i < first + count;
          if (!in) {
            QVERIFY2((y.segment<6>(6 * i).array() == kUnwritten).all(), "a row outside the island was written");
            QVERIFY2((xs.segment<6>(6 * i).array() == kUnwritten).all(), "a row outside the island was solved");
            continue;
          }
          QVERIFY2(relDiff(VecX(y.segment<6>(6 * i)), VecX(yWhole.segment<6>(6 * i))) < 1e-15, "restricted product");
          QVERIFY2(relDiff(VecX(xs.segment<6>(6 * i)), VecX(xWhole.segment<6>(6 * i))) < 1e-10,
                   qPrintable(QString("restricted solve, node %1: %2").arg(i).arg(
                       relDiff(VecX(xs.segment<6>(6 * i)), VecX(xWhole.segment<6>(6 * i))))));
        }
      }
    }
  }

  // KKT mechanisms with kinematic loops: rings of bodies and joints (four-bar-like), a two-loop
  // ladder, with a joint to the world.
  void kktLoops() {
    Rng rng(17);
    for (int t = 0; t < 8; ++t) {
      KktBuilder k(rng);
      const int nb = randomInt(rng, 8, 30);  // ≥ 8 so that the rows (5 per joint) are not redundant
      std::vector<int> bodies;
      for (int b = 0; b < nb; ++b) bodies.push_back(k.addBody());
      // Ring of revolute-like joints (5 rows) plus one to the world and, every other case, a rung.
      for (int b = 0; b < nb; ++b) k.addJoint({bodies[b], bodies[(b + 1) % nb]}, 5);
      k.addJoint({bodies[0]}, 5);
      int loops = 1;
      if (t % 2 == 1) {
        k.addJoint({bodies[1], bodies[nb / 2 + 1]}, 3);
        ++loops;
      }
      const BlockProblem p = shuffled(rng, k.p);
      SparseSetup s = makeSparse(p);
      MS_CHECK(checkOrderInvariants(p, s.order));
      QCOMPARE(static_cast<int>(s.order.loopClosures.size()), loops);
      QVERIFY(s.order.fillIn > 0);
      MS_CHECK(checkSolveAgainstReferences(rng, p, s, "kkt loops"));
    }
  }

  // Path joint–body–joint–…–body–joint pinned to the world at both ends (revolute-like joints,
  // 5 rows; nb = 5 has exactly as many constraint rows as body coordinates). The second end joint
  // is a DFS leaf: the fix-up must move it so that factor() succeeds.
  void pinnedChainZeroDiagonalFixup() {
    Rng rng(19);
    for (int nb : {5, 8, 20}) {
      KktBuilder k(rng);
      std::vector<int> bodies, joints;
      for (int b = 0; b < nb; ++b) bodies.push_back(k.addBody());
      const int first = k.addJoint({bodies[0]}, 5);
      for (int b = 0; b + 1 < nb; ++b) joints.push_back(k.addJoint({bodies[b], bodies[b + 1]}, 5));
      const int last = k.addJoint({bodies[nb - 1]}, 5);
      const BlockProblem& p = k.p;
      SparseSetup s = makeSparse(p);
      MS_CHECK(checkOrderInvariants(p, s.order));
      // Root is the lowest-index world joint; the other world joint is moved directly before it
      // (loop-opening parent of the loop through the world): fill-in to every node of the chain.
      QCOMPARE(s.order.list.back(), first);
      QCOMPARE(s.order.position[last], p.n - 2);
      QCOMPARE(s.order.fillIn, 2 * nb - 1);
      MS_CHECK(checkSolveAgainstReferences(rng, p, s, "pinned chain"));
      // Plain DFS post-order (the leaf joint first): the first pivot is singular.
      std::vector<int> naive{last};
      for (int b = nb - 1; b >= 0; --b) {
        naive.push_back(bodies[b]);
        if (b > 0) naive.push_back(joints[b - 1]);
      }
      naive.push_back(first);
      QCOMPARE(static_cast<int>(naive.size()), p.n);
      const MatX a = p.dense();
      const VecX b = randomVec(rng, 6 * p.n);
      VecX x;
      QVERIFY(!denseBlockLDUSolve(a, naive, 6, b, x));
      // Moving the leaf joint only after its body (b_m, last, J, b_m−1, …) is not enough either:
      // the next joint's pivot has rank ≤ 6 − 5 = 1 < 5.
      std::vector<int> afterEarliest = naive;
      std::swap(afterEarliest[0], afterEarliest[1]);
      QVERIFY(!denseBlockLDUSolve(a, afterEarliest, 6, b, x));
    }
  }

  // Root choice and DFS order on small hand-checked graphs.
  void orderHandChecked() {
    // Path 0–1–2–3, no zero diagonals: root 0, list leaves first.
    {
      const EliminationOrder o = computeEliminationOrder({{1}, {0, 2}, {1, 3}, {2}}, {false, false, false, false});
      QCOMPARE(o.list, (std::vector<int>{3, 2, 1, 0}));
      QCOMPARE(o.fillIn, 0);
    }
    // Same path, node 3 is a world joint: it becomes the root.
    {
      const EliminationOrder o = computeEliminationOrder({{1}, {0, 2}, {1, 3}, {2}}, {false, false, false, true});
      QCOMPARE(o.list, (std::vector<int>{0, 1, 2, 3}));
    }
    // Star centred at 0 with leaves 1..3: sorted neighbour visit, root last.
    {
      const EliminationOrder o = computeEliminationOrder({{1, 2, 3}, {0}, {0}, {0}}, {});
      QCOMPARE(o.list, (std::vector<int>{1, 2, 3, 0}));
      QCOMPARE(o.children[0], (std::vector<int>{1, 2, 3}));
    }
    // 4-cycle 0–1–2–3–0: DFS 0→1→2→3, closure (0,3), eliminating 3 fills (0,2).
    {
      const EliminationOrder o = computeEliminationOrder({{1, 3}, {0, 2}, {1, 3}, {0, 2}}, {});
      QCOMPARE(o.list, (std::vector<int>{3, 2, 1, 0}));
      QCOMPARE(static_cast<int>(o.loopClosures.size()), 1);
      QCOMPARE(std::min(o.loopClosures[0].first, o.loopClosures[0].second), 0);
      QCOMPARE(std::max(o.loopClosures[0].first, o.loopClosures[0].second), 3);
      QCOMPARE(o.fillIn, 1);
      QCOMPARE(o.children[0], (std::vector<int>{3, 2, 1}));
      QCOMPARE(o.parents[2], (std::vector<int>{1, 0}));
    }
    // Companions: body 0 with two hanging contacts 1, 2 and their companions 3, 4 (adjacent to
    // the body and to their contact): each companion directly after its contact, the contacts
    // directly after the body as without companions; edges 0–3, 0–4 close loops; eliminating the
    // body fills in between all four.
    {
      const std::vector<std::vector<int>> adj{{1, 2, 3, 4}, {0, 3}, {0, 4}, {0, 1}, {0, 2}};
      const std::vector<bool> zero{false, true, true, true, true}, hanging{false, true, true, false, false};
      const EliminationOrder o = computeEliminationOrder(adj, zero, hanging, {-1, -1, -1, 1, 2});
      const EliminationOrder plain = computeEliminationOrder({{1, 2}, {0}, {0}}, {false, true, true}, {false, true, true});
      QCOMPARE(plain.list, (std::vector<int>{0, 2, 1}));
      QCOMPARE(o.list, (std::vector<int>{0, 2, 4, 1, 3}));
      QCOMPARE(static_cast<int>(o.loopClosures.size()), 2);
      QCOMPARE(o.fillIn, 4);
    }
    // Long path (10^4 nodes, deep DFS: must not recurse).
    {
      const int n = 10000;
      std::vector<std::vector<int>> adj(n);
      for (int i = 0; i + 1 < n; ++i) {
        adj[i].push_back(i + 1);
        adj[i + 1].push_back(i);
      }
      const EliminationOrder o = computeEliminationOrder(adj, std::vector<bool>(n, false));
      QCOMPARE(o.list.front(), n - 1);
      QCOMPARE(o.list.back(), 0);
      QCOMPARE(o.fillIn, 0);
    }
  }

  // solve() with rhs and x the same vector, and a repeated factor after refilling.
  void solveAliased() {
    Rng rng(23);
    std::set<Edge> edges = randomTreeEdges(rng, 40);
    addCycleEdges(rng, 40, edges, 3);
    const BlockProblem p = genericProblem(rng, 40, edges);
    SparseSetup s = makeSparse(p);
    QVERIFY(s.ldu.factor());
    const VecX b = randomVec(rng, 6 * p.n);
    VecX x;
    s.ldu.solve(b, x);
    VecX inPlace = b;
    s.ldu.solve(inPlace, inPlace);
    QVERIFY2(relDiff(inPlace, x) < 1e-14, "aliased solve differs");
    QVERIFY((p.dense() * inPlace - b).norm() < 1e-10 * b.norm());
  }

  // factor() and solve() do not allocate (global operator new counter).
  void noAllocationInFactorSolve() {
#ifndef MS_TEST_COUNTS_MALLOC
    QSKIP("malloc counting needs glibc and no AddressSanitizer");
#endif
    Rng rng(29);
    std::set<Edge> edges = randomTreeEdges(rng, 60);
    addCycleEdges(rng, 60, edges, 4);
    const BlockProblem p = genericProblem(rng, 60, edges);
    SparseSetup s = makeSparse(p);
    const VecX b = randomVec(rng, 6 * p.n);
    VecX x(6 * p.n), y = b;
    g_allocations = 0;
    g_countAllocations = true;
    const bool ok = s.ldu.factor();
    s.ldu.solve(b, x);
    s.ldu.solve(y, y);
    g_countAllocations = false;
    QVERIFY(ok);
    QCOMPARE(g_allocations.load(), 0L);
    // The counter works: a dynamic Eigen vector allocates.
    g_countAllocations = true;
    VecX probe = b * 2.0;
    g_countAllocations = false;
    QVERIFY(g_allocations.load() > 0);
    QVERIFY(probe.size() == b.size());
  }

  // factor() reports a singular pivot and non-finite input.
  void factorDetectsSingular() {
    const EliminationOrder o = computeEliminationOrder({{1}, {0}}, {false, false});
    GraphLDU ldu(o);
    ldu.setZero();
    ldu.diag(0) = Mat6::Identity();
    ldu.diag(1) = Mat6::Identity();
    ldu.block(ldu.blockIndex(0, 1)) = Mat6::Identity();
    ldu.block(ldu.blockIndex(1, 0)) = Mat6::Identity();
    QCOMPARE(ldu.blockIndex(0, 0), -1);
    QVERIFY(!ldu.factor());  // D_0 = I − I·I·I = 0
    ldu.setZero();
    ldu.diag(0) = Mat6::Identity();
    ldu.diag(1) = Mat6::Identity();
    ldu.diag(1)(2, 3) = std::numeric_limits<double>::quiet_NaN();
    QVERIFY(!ldu.factor());
  }

  // A contact node's pivot [a, 0…; μ, b, −1ᵀ; 0, 1, diag(d)] (inverted in closed form), with the
  // entries an interior point gives it (compliances ~1e-12, s/y from 1e-10 to 1e8, μ 0 … 5;
  // condition numbers up to ~1e21): the inverse X has a componentwise backward error at round-off,
  // |X P − I| ≤ 1e-14 |X| |P| entry by entry (in long double).
  void invert6ContactPivot() {
    Rng rng(37);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const auto logUniform = [&](double lo, double hi) { return std::pow(10.0, lo + (hi - lo) * u(rng)); };
    Mat6 inv;
    double worst = 0;
    for (int t = 0; t < 3000; ++t) {
      Mat6 p = Mat6::Zero();
      p(0, 0) = logUniform(-13, 8);
      p(1, 0) = t % 7 == 0 ? 0.0 : 5.0 * u(rng);
      p(1, 1) = logUniform(-13, 8);
      for (int k = 2; k < 6; ++k) p(1, k) = -1.0, p(k, 1) = 1.0, p(k, k) = logUniform(-13, 8);
      QVERIFY(invert6(p, inv));
      using MatL = Eigen::Matrix<long double, 6, 6>;
      const MatL X = inv.cast<long double>(), P = p.cast<long double>();
      const MatL residual = X * P - MatL::Identity(), bound = X.cwiseAbs() * P.cwiseAbs();
      for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 6; ++c)
          if (bound(r, c) > 0) worst = std::max(worst, double(std::abs(residual(r, c)) / bound(r, c)));
          else QCOMPARE(double(residual(r, c)), 0.0);
    }
    qInfo("contact pivots: largest componentwise backward error %.2e", worst);
    QVERIFY(worst < 1e-14);
    // Off the pattern by one entry: inverted as a general block, still exactly.
    Mat6 p = Mat6::Zero();
    p(0, 0) = 2.0, p(1, 0) = 0.5, p(1, 1) = 3.0;
    for (int k = 2; k < 6; ++k) p(1, k) = -1.0, p(k, 1) = 1.0, p(k, k) = 1.0 + k;
    p(3, 4) = 0.25;
    QVERIFY(invert6(p, inv));
    QVERIFY(((p * inv) - Mat6::Identity()).norm() < 1e-13);
  }

  // invert6 against FullPivLU: random matrices, singular top-left 3×3, singular and NaN input.
  void invert6Accuracy() {
    Rng rng(31);
    Mat6 inv;
    int tested = 0;
    for (int t = 0; t < 2000; ++t) {
      const Mat6 a = randomMat6(rng);
      Eigen::FullPivLU<Mat6> lu(a);
      const Mat6 ref = lu.inverse();
      // Relative accuracy is only meaningful for reasonably conditioned matrices (cond ≤ 1e3).
      if (a.norm() * ref.norm() > 1e3) continue;
      ++tested;
      QVERIFY(invert6(a, inv));
      const double e = (inv - ref).norm() / ref.norm();
      QVERIFY2(e < 1e-12, QByteArray::number(e, 'g', 3).constData());
    }
    QVERIFY(tested > 1000);
    // Well-conditioned body-like blocks.
    for (int t = 0; t < 200; ++t) {
      const Mat6 a = 2.0 * Mat6::Identity() + 0.3 * randomMat6(rng);
      QVERIFY(invert6(a, inv));
      QVERIFY((inv - a.fullPivLu().inverse()).norm() < 1e-12 * inv.norm());
    }
    // Singular top-left 3×3 (zero, and rank 2), invertible whole: the fallback path.
    for (int t = 0; t < 50; ++t) {
      Mat6 a = randomMat6(rng);
      if (t % 2 == 0) {
        a.topLeftCorner<3, 3>().setZero();
      } else {
        a.col(2).head<3>() = a.col(0).head<3>() + a.col(1).head<3>();
      }
      const Mat6 ref = a.fullPivLu().inverse();
      if (a.norm() * ref.norm() > 1e3) continue;
      QVERIFY(invert6(a, inv));
      QVERIFY2((inv - ref).norm() < 1e-12 * ref.norm(), "fallback inverse inaccurate");
      QVERIFY(((a * inv) - Mat6::Identity()).norm() < 1e-12);
    }
    // A KKT-like pivot [[0, G],[Gᵀ, 0]].
    {
      Mat6 a = Mat6::Zero();
      const Mat3 g = Mat3::Identity() + 0.2 * randomMat6(rng).topLeftCorner<3, 3>();
      a.topRightCorner<3, 3>() = g;
      a.bottomLeftCorner<3, 3>() = g.transpose();
      QVERIFY(invert6(a, inv));
      QVERIFY(((a * inv) - Mat6::Identity()).norm() < 1e-12);
    }
    // Singular (rank 5), zero and NaN matrices return false.
    Mat6 s = randomMat6(rng);
    s.row(4) = 0.5 * s.row(1) - 2.0 * s.row(3);
    QVERIFY(!invert6(s, inv));
    QVERIFY(!invert6(Mat6::Zero(), inv));
    Mat6 nan = Mat6::Identity();
    nan(1, 4) = std::numeric_limits<double>::quiet_NaN();
    QVERIFY(!invert6(nan, inv));
    Mat6 infm = Mat6::Identity();
    infm(0, 0) = std::numeric_limits<double>::infinity();
    QVERIFY(!invert6(infm, inv));
  }

  // Timings (informational): invert6 and factor+solve of a 200-node KKT chain. Also checks the
  // chain solution.
  void timings() {
    Rng rng(37);
    // Chain: world joint – body – joint – body – … – body (100 bodies, 100 joints).
    KktBuilder k(rng);
    int prev = k.addBody();
    k.addJoint({prev}, 5);
    while (k.p.n < 200) {
      const int b = k.addBody();
      k.addJoint({prev, b}, 5);
      prev = b;
    }
    const BlockProblem& p = k.p;
    QCOMPARE(p.n, 200);
    SparseSetup s = makeSparse(p);
    MS_CHECK(checkTreeOrder(s.order));
    const VecX b = randomVec(rng, 6 * p.n);
    VecX x(6 * p.n);
    auto refill = [&]() {
      for (int i = 0; i < p.n; ++i) s.ldu.diag(i) = p.diag[i];
      for (const auto& [e, m] : p.off) s.ldu.block(s.ldu.blockIndex(e.first, e.second)) = m;
    };
    // Pre-resolve block indices so the refill is not dominated by lookups.
    std::vector<std::pair<int, const Mat6*>> blocks;
    for (const auto& [e, m] : p.off) blocks.emplace_back(s.ldu.blockIndex(e.first, e.second), &m);
    auto refillFast = [&]() {
      for (int i = 0; i < p.n; ++i) s.ldu.diag(i) = p.diag[i];
      for (const auto& [kb, m] : blocks) s.ldu.block(kb) = *m;
    };
    refill();
    const double tRefill = medianMicros(200, refillFast);
    const double tTotal = medianMicros(200, [&] {
      refillFast();
      s.ldu.factor();
      s.ldu.solve(b, x);
    });
    QVERIFY((p.dense() * x - b).norm() < 1e-10 * b.norm());
    // invert6 on body-like blocks.
    std::vector<Mat6, Eigen::aligned_allocator<Mat6>> mats;
    for (int t = 0; t < 1000; ++t) mats.push_back(2.0 * Mat6::Identity() + 0.3 * randomMat6(rng));
    Mat6 inv, acc = Mat6::Zero();
    const double tInv = medianMicros(50, [&] {
                          for (const Mat6& m : mats) {
                            invert6(m, inv);
                            acc += inv;
                          }
                        }) /
                        mats.size();
    const double tLu = medianMicros(50, [&] {
                         for (const Mat6& m : mats) {
                           inv = m.partialPivLu().inverse();
                           acc += inv;
                         }
                       }) /
                       mats.size();
    QVERIFY(acc.allFinite());
    qInfo("invert6: %.3f us (Eigen partialPivLu().inverse(): %.3f us)", tInv, tLu);
    qInfo("200-node chain factor+solve: %.2f us (excluding refill %.2f us)", tTotal - tRefill, tRefill);
  }
};

QTEST_APPLESS_MAIN(TestLduGraph)
#include "tst_ldu_graph.moc"
