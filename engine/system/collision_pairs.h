// SPDX-License-Identifier: GPL-3.0-or-later
// Automatic collision pairs (Model::collisions == All): which pairs of bodies get contacts for a
// step. Every body with collision shapes may collide with every other (CompiledSystem::mayCollide:
// not joined, not excluded, contype/conaffinity match, not overlapping at the start); a sweep and
// prune over their world boxes (contact/broad_phase.h) keeps the work linear in the bodies, and a
// pair's contacts (the same as a contact-pair's) are added to the system for the steps where its
// bodies come close:
//   - motion bound of body i over a step: m_i = 2 (|v_i| + |ω_i| r_i) Δt + |g| Δt² (r_i its
//     shapes' reach), twice the free motion so that the contacts of the step itself fit;
//   - a pair is added when its bodies' signed distance (bodyDistance) at the step's start is below
//     m_a + m_b + kAddGap, and kept while their boxes, each inflated by 2 m_i + kKeepGap / 2, still
//     overlap (hysteresis: a resting or rolling pair is not removed and added again every step),
//     and pairs no longer near are dropped only with the next addition or once they are a quarter
//     of the pairs (a change compiles the contact part again; a far pair's contacts hold slack);
//   - after the step, a pair that was not in it and whose bodies overlap at the configuration the
//     step imposed its contacts at is a missed contact: the Simulation solves the step again with
//     it (tst_auto_collisions forces one with an impulse the motion bound cannot foresee).
// The broad phase and the distances cost O(bodies + near pairs); a change of the pair set compiles
// the system's contact part again (withAutoPairs), outside the step's numeric work.
#pragma once

#include <vector>

#include "contact/broad_phase.h"
#include "system/compiled_system.h"
#include "system/state.h"

namespace ms {

constexpr double kInitialOverlap = 1e-6;  // m: bodies overlapping deeper at the start do not collide
constexpr double kAddGap = 1e-3;           // m: distance below which a pair is added (plus motion)
constexpr double kKeepGap = 4e-3;          // m: box inflation that keeps a pair (plus twice the motion)

// Signed distance between two bodies' collision shapes at a state: the least over their shape
// pairs of the exact distance of two polytopes (polytopeSignedDistance), else the least φ of the
// pair's contact candidates (closest points for round shapes, rim points for cylinders). +∞ if no
// pair of their shapes can touch.
double bodyDistance(const CompiledSystem& sys, int a, int b, const State& s);

// Pairs (a < b, sorted) of the system's colliding bodies that may collide and whose world boxes,
// each inflated by `margin`, overlap at state s.
void nearPairs(const CompiledSystem& sys, const State& s, double margin, std::vector<BodyPair>& out);

class CollisionPairs {
 public:
  // The pairs for the step that starts at s (sorted): `active` pairs still near, and new pairs
  // closer than the add distance. True when they differ from `active`.
  bool select(const CompiledSystem& sys, const State& s, double dt, const Vec3& gravity,
              const std::vector<BodyPair>& active, std::vector<BodyPair>& out);
  // After a step that ended at s: pairs not in `active` whose bodies overlap (φ < 0) at the
  // configuration the step imposed its contacts at (the next knot, s's pose advanced by its
  // velocities over Δt). True if any.
  bool missed(const CompiledSystem& sys, const State& s, double dt, const std::vector<BodyPair>& active,
              std::vector<BodyPair>& out);
  // Pair tests of the last select (broad phase; for benchmarks).
  long tests() const { return before_.tests(); }

 private:
  void boxes(const CompiledSystem& sys, const State& s, const double* inflate);
  contact::SweepAndPrune before_, after_;
  std::vector<contact::Aabb> boxes_;
  std::vector<double> motion_, inflate_;
  State next_;
};

}  // namespace ms
