// SPDX-License-Identifier: GPL-3.0-or-later
// What the simulation thread hands to the GUI: copied snapshots of the latest state (for the
// viewport and status bar) and one sample per step (for the plots). Plain data, no Qt.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "comparison.h"
#include "simulation.h"

namespace ms::ui {

// A spring from a point fixed on a body (body frame) to a target point (world), set by Ctrl+drag
// in the viewport: the engine's Drag (comparison.h), which the simulation thread turns into a force
// and torque each step (stiffness and damping scaled by the body's mass).
using Perturbation = ms::Drag;

// A loaded contact for drawing (ContactPoint: for a contact pair, the point on body B and the force
// acting on B).
struct ContactDraw {
  Vec3 point = Vec3::Zero();   // world
  Vec3 normal = Vec3::Zero();  // unit, world
  Vec3 force = Vec3::Zero();   // world, N
};

// One copy of the model in a comparison (Comparison dock, Lessons): its integrator, step and the
// label and colour of its ghost and curves.
struct CopySpec {
  std::string label;
  unsigned color = 0x1f77b4;  // 0xRRGGBB
  IntegratorOptions options;
  double dt = 0.01;
  int maxIterations = 0;  // Newton iteration cap; 0: the reference's settings
  double tolerance = 0;   // Newton tolerance; 0: the reference's settings
};

// A copy's figures as the simulation thread last saw them (copied into the snapshot).
struct CopyStatus {
  CopySpec spec;  // dt as used (equal cost may have chosen it)
  State state;
  StepMetrics metrics;
  bool failed = false;
  std::string failure;   // why it stopped ("non-finite state", "cannot start: …")
  double failedAt = 0;   // simulated time of the failed step
  double microsecondsPerStep = 0;  // mean wall time of its steps so far
  long steps = 0;                  // steps taken since the comparison started
  double calibratedMicroseconds = 0;  // equal cost: µs/step measured at the chosen Δt (0: not calibrated)
};

// Everything the GUI draws for one instant. Copied out of the simulation thread under a lock.
struct Snapshot {
  std::shared_ptr<const CompiledSystem> system;  // the mechanism `state` belongs to (null: none loaded)
  long generation = 0;  // increments when a model is loaded
  State state;
  // Minimal coordinates of every joint at `state` (Appendix B.6), first jointDof entries used.
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> jointPositions;
  StepMetrics metrics;  // of the step that produced `state`
  std::vector<ContactDraw> contacts;
  Perturbation perturbation;
  bool running = false;
  bool failed = false;
  std::string failure;  // "step N: reason" of the failed step
  double speed = 1.0;   // desired real-time factor; <= 0 means as fast as possible
  double achievedRealTimeFactor = 0;  // simulated seconds per wall second over the last ~0.5 s
  double stepsPerSecond = 0;          // wall-clock stepping rate over the last ~0.5 s
  // Steps of the (reference) simulation since load/reset accepted at the attainable accuracy
  // (StepMetrics::stalled) and solved in several sub-intervals (StepMetrics::substeps > 1).
  long stalledSteps = 0, subdividedSteps = 0;
  // Steps that met a singular configuration of a closed loop (StepMetrics::singular 1 or 2).
  long singularSteps = 0;
  // The last refinement since load/reset (StepMetrics::refinedInterval): from refinedAt on, the
  // steps are solved in sub-intervals of at most refinedInterval (0: none).
  double refinedInterval = 0, refinedAt = 0;
  int historyCount = 0;   // states kept
  int historyCursor = 0;  // index of `state` in the history (historyCount-1 = newest)
  IntegratorOptions integrator;  // of the (reference) simulation
  // Comparison mode: every copy, the reference first (its state equals `state`); empty otherwise.
  std::vector<CopyStatus> copies;
  double clock = 0;  // comparison: the lockstep clock (the reference's time, also after it failed)
};

// One step's figures for the plots (every step, not one per frame).
struct StepSample {
  int copy = 0;  // comparison: which copy (0 = the reference)
  long step = 0;
  double time = 0;
  double kinetic = 0, potential = 0, energy = 0;
  double energyError = 0;  // |E − E0| / max(|E0|, Σm·|g|·L, largest kinetic energy so far); E0 at load/reset
  double violation = 0;    // ‖g‖∞ of joint constraints, m (or rad)
  double penetration = 0;  // deepest contact penetration max(0, −min φ), m
  double limitViolation = 0;  // largest overshoot of a joint limit, rad or m
  int iterations = 0;
  double residual = 0;
  double stepMicroseconds = 0;
  double angularMomentum = 0;  // ‖L‖ about the world origin (Simulation::angularMomentum), N·m·s
  // Values of the watched signals (SimController::watchSignals), in watch order, SI units, radians.
  std::vector<double> signalValues;
};

}  // namespace ms::ui
