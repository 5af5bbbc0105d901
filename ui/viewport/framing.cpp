// SPDX-License-Identifier: GPL-3.0-or-later
// The region a fit keeps in view (framing.h): reach of every body about the pivots along the joints,
// as a ball, or as a flat cylinder for a planar mechanism; and its translates for copies side by side.
#include "viewport/framing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <utility>

#include "viewport/scene_nodes.h"

namespace ms::ui::viewport {

namespace {

// The farthest distance from c of the points within r1 of p1 and within r2 of p2: the farthest
// point of either ball if it lies in the other, or a point of the circle where the spheres meet.
// Infinite when the balls do not meet (no bound from this pair).
double lensReach(const Vec3& c, const Vec3& p1, double r1, const Vec3& p2, double r2) {
  const double gap = (p2 - p1).norm();
  if (gap < 1e-12 || gap > r1 + r2 + 1e-9) return std::numeric_limits<double>::infinity();
  double best = 0;
  // The farthest point of each ball from c (any, for a ball centred on c), if the other holds it.
  for (int k = 0; k < 2; ++k) {
    const Vec3& pa = k ? p2 : p1;
    const Vec3& pb = k ? p1 : p2;
    const double ra = k ? r2 : r1, rb = k ? r1 : r2;
    const Vec3 away = pa - c;
    const Vec3 far = pa + (away.norm() > 1e-12 ? Vec3(away.normalized()) : Vec3((pb - pa) / gap)) * ra;
    if ((far - pb).norm() <= rb + 1e-9) best = std::max(best, (far - c).norm());
  }
  // The circle where the spheres meet: centre o on the line p1p2, radius rho; its farthest point
  // from c lies off the line on c's far side.
  if (gap > std::abs(r1 - r2)) {
    const Vec3 e = (p2 - p1) / gap;
    const double a = (gap * gap + r1 * r1 - r2 * r2) / (2 * gap);
    const double rho = std::sqrt(std::max(r1 * r1 - a * a, 0.0));
    const Vec3 w = p1 + a * e - c;
    const double along = w.dot(e), across = (w - along * e).norm();
    best = std::max(best, std::hypot(along, across + rho));
  }
  return best;
}


}  // namespace

bool frameMechanism(const CompiledSystem* system, const Poses& poses, const std::vector<std::vector<Vec3>>& boxCorners,
                    Framing& out, bool overReach) {
  out = Framing{};
  const size_t nb = boxCorners.size();
  // Every body's box corners and joint points in world coordinates at the current poses.
  std::vector<std::vector<Vec3>> bodyPoints(nb);
  for (size_t i = 0; i < nb; ++i) {
    if (boxCorners[i].empty()) continue;
    bodyPoints[i] = boxCorners[i];
    // Bodies above a ground fall onto it: frame where they land too.
    if (system)
      for (const GroundDesc& g : system->model.grounds) {
        const Vec3 n = g.normal.normalized();
        for (const Vec3& p : boxCorners[i]) bodyPoints[i].push_back(p - n * n.dot(p - g.point));
      }
  }
  const size_t nj = system ? system->joints.size() : 0;
  std::vector<Vec3> worldA(nj), worldB(nj);
  const auto onBody = [&](int body, const Vec3& p) -> Vec3 {
    if (body < 0 || size_t(body) >= poses.size()) return p;
    return poses[size_t(body)].x + rotationOf(poses[size_t(body)].q) * p;
  };
  // Pivots: joints between the ground (the world and bodies welded to it) and a moving body; the
  // ground-side point is fixed.
  const std::vector<char> grounded = system ? groundedBodies(*system) : std::vector<char>();
  const auto ground = [&](int body) { return body < 0 || (size_t(body) < grounded.size() && grounded[size_t(body)]); };
  std::vector<char> isPivot(nj, 0);
  Vec3 pivot = Vec3::Zero();
  int pivots = 0;
  std::vector<Vec3> all;
  for (size_t j = 0; j < nj; ++j) {
    const JointGeometry& g = system->joints[j].geo;
    worldA[j] = onBody(g.parent, g.pa);
    worldB[j] = onBody(g.child, g.pb);
    if (g.parent >= 0 && size_t(g.parent) < nb) bodyPoints[size_t(g.parent)].push_back(worldA[j]);
    if (g.child >= 0 && size_t(g.child) < nb) bodyPoints[size_t(g.child)].push_back(worldB[j]);
    if (g.parent < 0) all.push_back(worldA[j]);
    isPivot[j] = ground(g.parent) != ground(g.child);
    if (isPivot[j]) {
      pivot += ground(g.parent) ? worldA[j] : worldB[j];
      ++pivots;
    }
  }
  for (const auto& pts : bodyPoints) all.insert(all.end(), pts.begin(), pts.end());
  if (all.empty()) return false;

  // No pivots (or the pose alone): the sphere about the centre of the points' box through the
  // farthest point.
  if (pivots == 0 || !overReach) {
    Eigen::AlignedBox3d box;
    for (const Vec3& p : all) box.extend(p);
    out.center = box.center();
    for (const Vec3& p : all) out.radius = std::max(out.radius, (p - out.center).norm());
    out.radius = std::max(out.radius, 0.05);
    return out.center.allFinite() && std::isfinite(out.radius);
  }
  const Vec3 c = pivot / pivots;

  // Planar: every body is reached from the world through joints that keep motion in planes ⊥ n
  // (welds, hinges about n, slides ⊥ n); n is the axis of the first pivot's hinge (else any hinge's).
  const auto frameOf = [&](const JointGeometry& g) -> Mat3 {
    const bool posed = g.parent >= 0 && size_t(g.parent) < poses.size();
    return (posed ? rotationOf(poses[size_t(g.parent)].q) : Mat3::Identity()) * g.Ro;
  };
  Vec3 n = Vec3::Zero();
  for (int pass = 0; pass < 2 && n.isZero(); ++pass)
    for (size_t j = 0; j < nj && n.isZero(); ++j) {
      const JointGeometry& g = system->joints[j].geo;
      if (g.fR == 1 && (pass == 1 || isPivot[j])) n = (frameOf(g) * g.axes.col(2)).normalized();
    }
  std::vector<char> keepsPlane(nj, 0);
  for (size_t j = 0; j < nj && !n.isZero(); ++j) {
    const JointGeometry& g = system->joints[j].geo;
    const Mat3 f = frameOf(g);
    bool ok = g.fR == 0 || (g.fR == 1 && (f * g.axes.col(2)).normalized().cross(n).norm() < 1e-6);
    for (int r = 0; r < g.fT && r < 3; ++r) ok = ok && std::abs((f * g.CT.row(r).transpose()).normalized().dot(n)) < 1e-6;
    keepsPlane[j] = ok;
  }
  // Breadth first from the ground over the joints that keep the plane.
  std::vector<char> reached(nb, 0);
  std::vector<int> frontier;
  const auto visit = [&](int body) {
    if (body >= 0 && size_t(body) < nb && !reached[size_t(body)]) {
      reached[size_t(body)] = 1;
      frontier.push_back(body);
    }
  };
  for (size_t i = 0; i < nb; ++i)
    if (grounded[i]) visit(int(i));
  for (size_t j = 0; j < nj; ++j) {
    const JointGeometry& g = system->joints[j].geo;
    if (keepsPlane[j] && (g.parent < 0 || g.child < 0)) visit(g.parent < 0 ? g.child : g.parent);
  }
  while (!frontier.empty()) {
    const int body = frontier.back();
    frontier.pop_back();
    if (size_t(body) >= system->bodyJoints.size()) continue;
    for (int k : system->bodyJoints[size_t(body)])
      if (k >= 0 && size_t(k) < nj && keepsPlane[size_t(k)])
        visit(system->joints[size_t(k)].geo.parent == body ? system->joints[size_t(k)].geo.child
                                                           : system->joints[size_t(k)].geo.parent);
  }
  const bool planar = nb > 0 && !n.isZero() && std::all_of(reached.begin(), reached.end(), [](char r) { return r != 0; });
  // Distances that stay bounded under the motion: in-plane for a planar mechanism, else in space.
  const auto metric = [&](const Vec3& v) { return planar ? (v - n * n.dot(v)).norm() : v.norm(); };
  // A path may cross joint j when its two points stay together (in the plane, for a planar mechanism).
  std::vector<char> holds(nj, 0);
  for (size_t j = 0; j < nj; ++j) {
    const JointGeometry& g = system->joints[j].geo;
    holds[j] = g.fT == 0;
    if (g.fT == 0 || !planar) continue;
    const Mat3 f = frameOf(g);
    bool alongN = true;
    for (int r = 0; r < g.fT && r < 3; ++r) alongN = alongN && (f * g.CT.row(r).transpose()).normalized().cross(n).norm() < 1e-6;
    holds[j] = alongN;
  }

  // Per pivot, a bound on each joint point's distance from it: the shortest path crossing moving
  // bodies between two of their joint points and joints that hold their points together. With
  // many pivots, one pass bounds the distance from c instead (seeded with the pivots' distances).
  const double inf = std::numeric_limits<double>::infinity();
  const auto pointOn = [&](size_t j, int body) { return system->joints[j].geo.parent == body ? worldA[j] : worldB[j]; };
  const auto groundPoint = [&](size_t j) { return ground(system->joints[j].geo.parent) ? worldA[j] : worldB[j]; };
  std::vector<size_t> sources;
  for (size_t j = 0; j < nj; ++j)
    if (isPivot[j] && holds[j]) sources.push_back(j);
  const bool pairwise = sources.size() <= 8;
  std::vector<std::vector<double>> dist(pairwise ? sources.size() : 1, std::vector<double>(nj, inf));
  using Item = std::pair<double, size_t>;
  for (size_t s = 0; s < dist.size(); ++s) {
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
    std::vector<double>& d = dist[s];
    if (pairwise)
      queue.push({d[sources[s]] = 0.0, sources[s]});
    else
      for (size_t j : sources) queue.push({d[j] = metric(groundPoint(j) - c), j});
    while (!queue.empty()) {
      const auto [dj, j] = queue.top();
      queue.pop();
      if (dj > d[j]) continue;
      const JointGeometry& g = system->joints[j].geo;
      for (int body : {g.parent, g.child}) {
        if (ground(body) || size_t(body) >= system->bodyJoints.size()) continue;
        for (int k : system->bodyJoints[size_t(body)]) {
          if (k < 0 || size_t(k) >= nj || !holds[size_t(k)]) continue;
          const double dk = dj + metric(pointOn(size_t(k), body) - pointOn(j, body));
          if (dk < d[size_t(k)]) queue.push({d[size_t(k)] = dk, size_t(k)});
        }
      }
    }
  }
  // Reach: a point of a moving body is within r_s of pivot s (through the best of its body's
  // joints), so within |P_s − c| + r_s of c, and within the farthest point of any two such balls'
  // intersection (loops: a link held by two pivots cannot reach as far as either path alone
  // allows). Points of the ground, and of bodies without a bounded path, count where they are now.
  const auto flat = [&](const Vec3& v) -> Vec3 { return planar ? Vec3(v - n * n.dot(v - c)) : v; };
  std::vector<double> r(dist.size());
  double reach = 0;
  for (size_t i = 0; i < nb; ++i)
    for (const Vec3& p : bodyPoints[i]) {
      double best = inf;
      for (size_t s = 0; s < dist.size() && !grounded[i] && i < system->bodyJoints.size(); ++s) {
        r[s] = inf;
        for (int k : system->bodyJoints[i])
          if (k >= 0 && size_t(k) < nj && std::isfinite(dist[s][size_t(k)]))
            r[s] = std::min(r[s], dist[s][size_t(k)] + metric(p - pointOn(size_t(k), int(i))));
        if (!std::isfinite(r[s])) continue;
        best = std::min(best, (pairwise ? metric(groundPoint(sources[s]) - c) : 0.0) + r[s]);
        for (size_t t = 0; pairwise && t < s; ++t)
          if (std::isfinite(r[t]))
            best = std::min(best, lensReach(flat(c), flat(groundPoint(sources[s])), r[s], flat(groundPoint(sources[t])), r[t]));
      }
      reach = std::max(reach, std::isfinite(best) ? best : metric(p - c));
    }
  for (size_t j = 0; j < nj; ++j)
    if (system->joints[j].geo.parent < 0) reach = std::max(reach, metric(worldA[j] - c));
  for (size_t j = 0; j < nj; ++j)
    if (isPivot[j]) reach = std::max(reach, metric(groundPoint(j) - c));
  reach = std::max(reach, 0.05);
  out.center = c;
  out.radius = reach;
  if (!planar) return std::isfinite(reach);

  // Planar: the rims of the cylinder about the axis through c, as far along n as the model goes
  // (each point keeps its coordinate along n).
  double lo = 0, hi = 0;
  for (const Vec3& p : all) {
    lo = std::min(lo, n.dot(p - c));
    hi = std::max(hi, n.dot(p - c));
  }
  const Vec3 u = n.unitOrthogonal(), v = n.cross(u);
  constexpr int kRim = 64;
  for (double along : {lo, hi})
    for (int k = 0; k < kRim; ++k) {
      const double t = 2 * kPi * k / kRim;
      out.rim.push_back(c + n * along + reach * (std::cos(t) * u + std::sin(t) * v));
    }
  out.radius = std::sqrt(reach * reach + std::max(lo * lo, hi * hi));
  return std::isfinite(out.radius);
}

void frameCopies(Framing& out, const Vec3& sideOffset, size_t n) {
  const Vec3 last = sideOffset * double(n);
  out.center += 0.5 * last;
  out.radius += 0.5 * last.norm();
  const std::vector<Vec3> rim = out.rim;
  for (size_t k = 1; k <= n; ++k)
    for (const Vec3& p : rim) out.rim.push_back(p + sideOffset * double(k));
}

}  // namespace ms::ui::viewport
