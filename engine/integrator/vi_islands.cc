// SPDX-License-Identifier: GPL-3.0-or-later
// Islands of a contact step: the step's Newton system (§3, (29a)–(29f)) is block diagonal over the
// sets of bodies that nothing couples — no joint, no joint limit and no candidate contact between
// two of their bodies (a contact with the ground couples nothing). Each island is a complementarity
// problem of its own, and the contact step solves them one after the other (vi_contact_step.cc):
// each island then takes the iterations its own contacts need, where one problem over all of them
// takes the iterations of the hardest for every body (a rolling sphere waits for an impact on the
// other side of the box), and an island's factorisations and solves touch its own nodes only
// (GraphLDU::restrictTo). Box2D, Bullet and Jolt split their solvers the same way.
// - A joint coupling joins the bodies of its two joints into one island.
// - Islands come from a union–find over the bodies, the smallest body index as the root, numbered
//   by their smallest body: the same candidates give the same islands in the same order.
// - With two or more islands, the interior-point pairs are numbered island by island, so each
//   island's pairs are one range [pairStart[k], pairStart[k + 1]).
// - The rows of the contacts and limits outside every island (not candidates of the step) are the
//   equalities y = 0, written into the matrix once for the step (excludedRows), as evaluate writes
//   them when it assembles every row.
#include <algorithm>

#include "core/check.h"
#include "integrator/vi_internal.h"

namespace ms {
namespace vi {

namespace {

// Island lists: the items 0..n−1 whose islandOf(item) ≥ 0, grouped by island in item order.
template <class IslandOf>
void groupByIsland(Islands& is, int n, std::vector<int>& list, std::vector<int>& start, IslandOf islandOf) {
  start.assign(is.count + 1, 0);
  for (int i = 0; i < n; ++i) {
    const int k = islandOf(i);
    if (k >= 0) ++start[k + 1];
  }
  for (int k = 0; k < is.count; ++k) start[k + 1] += start[k];
  list.resize(start[is.count]);
  is.fill.assign(start.begin(), start.end() - 1);
  for (int i = 0; i < n; ++i) {
    const int k = islandOf(i);
    if (k >= 0) list[is.fill[k]++] = i;
  }
}

}  // namespace

void sizeIslands(const CompiledSystem& sys, VariationalIntegrator::Impl& m) {
  Islands& is = m.islands;
  const int nb = int(sys.bodies.size());
  is.find.resize(nb);
  is.bodyIsland.resize(nb);
  for (std::vector<int>* v : {&is.bodyStart, &is.jointStart, &is.groupStart, &is.contactStart, &is.limitStart,
                              &is.couplingStart, &is.nodeStart, &is.pairStart, &is.fill})
    v->reserve(nb + 1);
  is.bodies.reserve(nb);
  m.islandAsleep.reserve(nb + 1);
  m.startShifted.reserve(nb + 1);
  m.pushed.reserve(nb);
  is.joints.reserve(sys.joints.size());
  is.groups.reserve(sys.contactGroups.size());
  is.contacts.reserve(sys.contacts.size());
  is.limits.reserve(sys.limits.size());
  is.couplings.reserve(sys.couplings.size());
  is.nodes.reserve(sys.numNodes);
}

void selectIslands(const CompiledSystem& sys, VariationalIntegrator::Impl& m) {
  Islands& is = m.islands;
  const int nb = int(sys.bodies.size()), nj = int(sys.joints.size());
  const int nc = int(sys.contacts.size()), nl = int(sys.limits.size()), ng = int(sys.contactGroups.size());
  MS_ASSERT(int(is.find.size()) == nb, "islands not sized for this system (sizeIslands)");
  // Union–find over the bodies: joints (and so their limits) and candidate contacts between bodies.
  for (int i = 0; i < nb; ++i) is.find[i] = i;
  const auto root = [&](int i) {
    while (is.find[i] != i) i = is.find[i] = is.find[is.find[i]];
    return i;
  };
  const auto unite = [&](int a, int b) {
    if (a < 0 || b < 0) return;
    a = root(a);
    b = root(b);
    if (a < b) is.find[b] = a;
    else if (b < a) is.find[a] = b;
  };
  for (const CompiledJoint& j : sys.joints) unite(j.geo.parent, j.geo.child);
  for (const CompiledCoupling& c : sys.couplings)
    for (int i = 1; i < c.numBodies; ++i) unite(c.body[0], c.body[i]);
  for (int ci = 0; ci < nc; ++ci)
    if (m.contactOn[ci]) {
      const CompiledContactGroup& grp = sys.contactGroups[sys.contacts[ci].group];
      unite(grp.bodyA, grp.body);
    }
  // Islands numbered by their smallest body (each body's root is its island's smallest body).
  is.count = 0;
  for (int i = 0; i < nb; ++i) {
    const int r = root(i);
    is.bodyIsland[i] = r == i ? is.count++ : is.bodyIsland[r];
  }
  if (is.count < 2) return;
  const auto groupIsland = [&](int gi) { return is.bodyIsland[sys.contactGroups[gi].body]; };
  groupByIsland(is, nb, is.bodies, is.bodyStart, [&](int i) { return is.bodyIsland[i]; });
  groupByIsland(is, nj, is.joints, is.jointStart, [&](int k) { return is.bodyIsland[sys.joints[k].geo.child]; });
  groupByIsland(is, ng, is.groups, is.groupStart, [&](int gi) { return m.groupOn[gi] ? groupIsland(gi) : -1; });
  groupByIsland(is, nc, is.contacts, is.contactStart,
                [&](int ci) { return m.contactOn[ci] ? groupIsland(sys.contacts[ci].group) : -1; });
  groupByIsland(is, nl, is.limits, is.limitStart,
                [&](int li) { return m.limitOn[li] ? is.bodyIsland[sys.joints[sys.limits[li].joint].geo.child] : -1; });
  groupByIsland(is, int(sys.couplings.size()), is.couplings, is.couplingStart,
                [&](int ci) { return is.bodyIsland[sys.couplings[ci].body[0]]; });
  // Nodes of each island: its bodies, joint nodes, candidate contacts (and companions), candidate
  // limits and couplings, sorted into the contact step's elimination order.
  is.nodeStart.assign(is.count + 1, 0);
  for (int k = 0; k < is.count; ++k) {
    int n = is.bodyStart[k + 1] - is.bodyStart[k] + is.limitStart[k + 1] - is.limitStart[k] +
            is.couplingStart[k + 1] - is.couplingStart[k];
    for (int r = is.jointStart[k]; r < is.jointStart[k + 1]; ++r) n += sys.joints[is.joints[r]].node >= 0;
    for (int r = is.contactStart[k]; r < is.contactStart[k + 1]; ++r) n += 1 + (sys.contacts[is.contacts[r]].extraNode >= 0);
    is.nodeStart[k + 1] = is.nodeStart[k] + n;
  }
  is.nodes.resize(is.nodeStart[is.count]);
  const std::vector<int>& position = m.leafFirst.order().position;
  for (int k = 0; k < is.count; ++k) {
    int w = is.nodeStart[k];
    for (int r = is.bodyStart[k]; r < is.bodyStart[k + 1]; ++r) is.nodes[w++] = is.bodies[r];
    for (int r = is.jointStart[k]; r < is.jointStart[k + 1]; ++r)
      if (sys.joints[is.joints[r]].node >= 0) is.nodes[w++] = sys.joints[is.joints[r]].node;
    for (int r = is.contactStart[k]; r < is.contactStart[k + 1]; ++r) {
      const CompiledContact& c = sys.contacts[is.contacts[r]];
      is.nodes[w++] = c.node;
      if (c.extraNode >= 0) is.nodes[w++] = c.extraNode;
    }
    for (int r = is.limitStart[k]; r < is.limitStart[k + 1]; ++r) is.nodes[w++] = sys.limits[is.limits[r]].node;
    for (int r = is.couplingStart[k]; r < is.couplingStart[k + 1]; ++r) is.nodes[w++] = sys.couplings[is.couplings[r]].node;
    MS_ASSERT(w == is.nodeStart[k + 1], "an island's node count");
    std::sort(is.nodes.begin() + is.nodeStart[k], is.nodes.begin() + w,
              [&](int a, int b) { return position[a] < position[b]; });
  }
  // The interior-point pairs island by island (each candidate contact's rows, then its companion's
  // n_f − 4, then rows 0–1 of each candidate limit; selectPairs numbers the same rows globally).
  const int extra = sys.frictionDirections - kFrictionDirections;
  m.pairRow.clear();
  is.pairStart.assign(is.count + 1, 0);
  for (int k = 0; k < is.count; ++k) {
    is.pairStart[k] = int(m.pairRow.size());
    for (int r = is.contactStart[k]; r < is.contactStart[k + 1]; ++r) {
      const int ci = is.contacts[r];
      const CompiledContact& c = sys.contacts[ci];
      m.contactPair[ci] = int(m.pairRow.size());
      for (int q = 0; q < 6; ++q) m.pairRow.push_back(6 * c.node + q);
      for (int q = 0; q < extra && c.extraNode >= 0; ++q) m.pairRow.push_back(6 * c.extraNode + q);
    }
    for (int r = is.limitStart[k]; r < is.limitStart[k + 1]; ++r)
      for (int q = 0; q < 2; ++q) m.pairRow.push_back(6 * sys.limits[is.limits[r]].node + q);
  }
  is.pairStart[is.count] = int(m.pairRow.size());
  MS_ASSERT(int(m.pairRow.size()) == m.numPairs, "the islands' pairs are not the step's pairs");
}

// A contact that is not a candidate: identity diagonal (companion too), no coupling, trivial.
void excludedContactRows(const CompiledContact& cc, GraphLDU& F) {
  F.diag(cc.node).setIdentity();
  for (int blk : {cc.blockCB, cc.blockBC, cc.blockCA, cc.blockAC, cc.blockEB, cc.blockBE, cc.blockEA, cc.blockAE,
                  cc.blockCE, cc.blockEC})
    if (blk >= 0) F.block(blk).setZero();
  F.setTrivial(cc.node, true);
  if (cc.extraNode >= 0) F.diag(cc.extraNode).setIdentity(), F.setTrivial(cc.extraNode, true);
}

// A limit that is not a candidate: identity diagonal, no coupling, trivial.
void excludedLimitRows(const CompiledLimit& l, GraphLDU& F) {
  F.diag(l.node).setIdentity();
  for (int blk : {l.blockLB, l.blockBL, l.blockLA, l.blockAL})
    if (blk >= 0) F.block(blk).setZero();
  F.setTrivial(l.node, true);
}

void excludedRows(const CompiledSystem& sys, VariationalIntegrator::Impl& m, GraphLDU& F) {
  // A contact's rows are written once while it stays out (Impl::excludedClean, as evaluate does).
  if (&F != m.excludedMatrix) {
    m.excludedClean.assign(sys.contacts.size(), 0);
    m.excludedMatrix = &F;
  }
  for (size_t ci = 0; ci < sys.contacts.size(); ++ci)
    if (!m.contactOn[ci] && !m.excludedClean[ci]) {
      excludedContactRows(sys.contacts[ci], F);
      m.excludedClean[ci] = 1;
    }
  for (size_t li = 0; li < sys.limits.size(); ++li)
    if (!m.limitOn[li]) excludedLimitRows(sys.limits[li], F);
  if (sys.order.fillIn > 0) F.setFillInZero();
}

}  // namespace vi
}  // namespace ms
