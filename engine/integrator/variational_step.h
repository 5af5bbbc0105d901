// SPDX-License-Identifier: GPL-3.0-or-later
// Variational integrator in maximal coordinates (Brüdigam et al. 2023, §3.1–3.2; the paper's
// "first-order" discretisation, second order in Δt from the half-kick start, startFromKnot):
// positions by (11)/(17), then (20a)–(20b) solved for ż and λ by Newton's method with a
// backtracking line search on the residual norm (Appendix D without the barrier), with the
// Newton matrix factorised by the graph LDU (Algorithms 1–4); contacts and joint limits by the
// interior point on the same matrix ((29a)–(29f), Appendix D).
//
// The stages of a step, in run order (files under engine/integrator/):
//   step                  variational_step.cc  public entry: flushes subnormals, then advance
//   stepWatchingSingular  vi_step_control.cc   closed loops: a step that passed a singular
//                                              configuration is undone and the previous one re-solved
//   advance               vi_step_control.cc   the step as one or more solves: subdivision of Δt and
//                                              growth of the interval back
//   solve                 variational_step.cc  one solve over an interval: prepare, warm start,
//                                              candidates, then one of the two paths below
//   vi::prepare           vi_assembly.cc       the knot z1 (11)/(17), forces and G(z1), contact
//                                              candidates and friction rows at z1
//   vi::selectCandidates  vi_candidates.cc     the limits and contacts that enter the complementarity
//                                              problem (the others are equality rows y = 0)
//   stepEqualityPath      vi_newton.cc         no candidates: Newton's method with backtracking line
//                                              search, extrapolated warm start, root check
//   vi::evaluate          vi_assembly.cc       the residual of (20a)–(20b), (29) and the Newton matrix
//                                              at an iterate (called by both paths)
//   atRoundoffLevel       vi_step_control.cc   attainable accuracy when the line search stalls
//   stepWithContacts      vi_contact_step.cc   candidates: interior point on the graph LDU (leaf-first
//                                              order, companion swaps, GMRES-corrected solves),
//                                              retries from other starts, polish of a stalled step
//     vi::selectIslands   vi_islands.cc        the bodies nothing couples: each island solved on its
//                                              own (solveIslands), else the whole step as one problem
//   excluded*Hold, pairsHold, stepAgain
//                         vi_candidates.cc     the step again when its candidates do not hold
//   finish                variational_step.cc  the solution into the state; violations, active sets
#pragma once

#include <memory>
#include <vector>

#include "integrator/integrator.h"
#include "solver/ldu_graph.h"

namespace ms {

struct CompiledSystem;
struct CompiledContact;

// Friction cones with a companion node (n_f > 4): which directions the contact node holds is
// chosen per factorisation. ratio[k] = s_k/β_k of direction k (0 ≤ k < nf); directions 0–3 sit in
// slots 2–5 of the contact node, 4…nf−1 in slots 0…nf−5 of the companion. Returns the number of
// disjoint swaps (contact slot swapC[i] ↔ companion slot swapE[i]) that bring the 4 directions of
// smallest ratio into the contact node.
int companionSwaps(const double* ratio, int nf, int swapC[4], int swapE[4]);
// Exchanges unknown/row `a` of contact c's node with unknown/row `b` of its companion in every
// block of F that couples them (F assembled, not factorised: its fill-in blocks are zero).
void swapCompanionUnknowns(GraphLDU& F, const CompiledSystem& sys, const CompiledContact& c, int a, int b);

class VariationalIntegrator final : public Integrator {
 public:
  explicit VariationalIntegrator(std::shared_ptr<const CompiledSystem> system);
  const char* name() const override { return "vi"; }
  StepReport step(const StepSettings& settings, const Inputs& inputs, State& state) override;
  void restart() override;
  bool implicitJointDamping() const override { return true; }
  void reuseWorkspace(Integrator& previous) override;

  // The Newton matrix assembled by the last residualAt(..., true) call (before factorisation), for
  // tests comparing against finite differences and against the dense LDU.
  const GraphLDU& matrix() const { return matrix_; }
  // Residual of (20a)–(20b) at given velocities/multipliers for the state's current knot z_k and
  // previous velocity (exposed for finite-difference tests). `vel` is 6 per body [v; ω], `lambda`
  // 6 per joint; the result is node-major. Returns false if |ω| ≥ 2/Δt for some body.
  bool residualAt(const StepSettings& settings, const Inputs& inputs, const State& state, const VecX& vel,
                  const VecX& lambda, VecX& residual, bool assembleMatrix);

  struct Impl;  // preallocated per-step workspace (defined in vi_internal.h)

 private:
  // One step as one or more solves; the first interval shortened by 2^firstHalvings.
  StepReport advance(const StepSettings& settings, const Inputs& inputs, State& state, int firstHalvings);
  // Closed loops: the step, undone and the previous one solved again if it passed a singular
  // configuration by switching branch.
  StepReport stepWatchingSingular(const StepSettings& settings, const Inputs& inputs, State& state);
  StepReport solve(const StepSettings& settings, double h0, const Inputs& inputs, State& state);
  // The solve without contact or limit candidates (prepared and warm-started by solve).
  StepReport stepEqualityPath(const StepSettings& settings, double h0, State& state);
  double kineticEnergy(const State& state) const;
  double constraintWork(double h, const State& state) const;
  bool atRoundoffLevel();
  StepReport stepWithContacts(const StepSettings& settings, State& state);
  // Joint limits left out of a step (far from their bounds): check, and the step with all of them.
  bool excludedLimitsHold() const;
  // Contacts left out of a step (far at its start) that close at its solution: made candidates.
  bool excludedContactsHold();
  StepReport stepWithAllLimits(const StepSettings& settings, State& state);
  // Polytope pairs overlapping at the solution: features chosen again there, the step solved again.
  bool pairsHold();
  StepReport stepAgain(const StepSettings& settings, State& state);
  void finish(const StepSettings& settings, State& state, StepReport& report);
  // A step solved with turned friction polygons: contact ci's friction impulses stored along the
  // untwisted directions (the warm start of the next step and the displayed force use those).
  void storeUntwisted(int ci, State& state);
  std::shared_ptr<const CompiledSystem> sys_;
  GraphLDU matrix_;
  std::shared_ptr<Impl> impl_;
  double totalMass_ = 0;
  State backup_;  // the state at the start of a step that is solved in sub-intervals
  bool startInvalid_ = false;  // the last solve failed in prepare (|ω₀| ≥ 2/h0 at its start)
  StepReport startFromKnot(const StepSettings& st, const Inputs& inputs, State& state);
  // A step is subdivided down to Δt/2^kMaxHalvings (advance), the start too (startFromKnot).
  static constexpr int kMaxHalvings = 6;
  static constexpr int kMaxStartHalvings = kMaxHalvings;
  bool finalAttempt_ = true;   // the solve is the last try of its step (shortest interval)
  bool fullInterval_ = true;   // the solve covers the whole step Δt
  bool rootChecked_ = true;    // the solve covers Δt or Δt/2 (refined: that interval or its half): its root is checked
  bool growthAttempt_ = false; // the solve tries a longer interval than the last (optional: no retries)
  // Growth of a subdivided interval: solves left before the next attempt, and the next hold.
  int hold_ = 0, backoff_ = 1;
  // The refinement (advance): the longest interval solved, in units of Δt/64; lowered for the rest of
  // the run when a solve of the equality path had no solution at a longer one. restart() resets it.
  int refineUnits_ = 1 << kMaxHalvings;
  double refineDt_ = 0;  // the Δt refineUnits_ counts in (another Δt resets the refinement)
  bool equalitySolve_ = false;
  // the last solve took the equality path (no contact or limit candidates)
  // Singular configurations of closed loops (step): the start of this step and of the previous one
  // with its inputs and settings, the first outcome of a step solved again, the joint work so far.
  bool watchSingular_ = false;
  State start_, previous_, outcome_;
  Inputs startInputs_, previousInputs_;
  StepSettings previousSettings_;
  int previousBackoff_ = 1;
  bool havePrevious_ = false;
  long lastStep_ = -1;
  double lastInterval_ = 0;
  Vec3 lastX0_ = Vec3::Zero();
  double stepWork_ = 0;
};

}  // namespace ms
