// SPDX-License-Identifier: GPL-3.0-or-later
// The simulation thread. The engine steps on its own std::thread; the GUI never waits for a step.
// Every request from the GUI (load, run/pause, step, reset, seek, settings, perturbation,
// actuators) is queued and applied by the simulation thread between two steps (one sync point,
// like MuJoCo simulate's pending edits). The GUI reads copied snapshots and drains the per-step
// samples; nothing else is shared.
//
// Pacing: with speed s > 0 the thread keeps simulated time = s × wall time since the last change
// of speed/state (sleeping when ahead, catching up at most 0.1 s of wall time when behind); with
// s <= 0 it steps as fast as it can. History: the last N states are kept in a ring; stepping back
// or seeking restores one, and running from there discards the newer ones.
//
// Comparison mode: two or more copies of the loaded model run in lockstep on this thread, stepped
// by the engine's lockstep runner (engine/comparison.h: copy 0, the reference, is the simulation the
// rest of the app sees; the others catch up with its clock; a copy that fails or blows up stops with
// its time and reason while the others go on). This thread adds the pacing, the history (every
// copy's state at each reference step: step back and seek cover every copy) and the samples; when
// all copies have stopped the run pauses.
#pragma once

#include <QObject>
#include <QString>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "signals/signals.h"
#include "sim/sim_types.h"

namespace ms::ui {

class SimController : public QObject {
  Q_OBJECT
 public:
  explicit SimController(QObject* parent = nullptr);
  ~SimController() override;  // stops and joins the thread

  // Loads a compiled mechanism (paused, empty history, t = 0). Throws UserError (in the caller's
  // thread) when its initial conditions cannot be satisfied; the previous model then stays.
  void load(std::shared_ptr<const CompiledSystem> system);
  // Apply from the editor: swaps in another compiled mechanism at the next sync point, keeping
  // run/pause. With `carryOver`, bodies whose names exist in both mechanisms keep their pose and
  // velocities (the others take the new initial conditions), projected onto the new constraints
  // (poses, then the next knot, as the initial conditions are); when that projection fails the new
  // initial conditions are used — and always at step 0 (the state is the initial one: an edit of it
  // shows as written). Throws UserError like load(); the previous model then stays.
  void apply(std::shared_ptr<const CompiledSystem> system, bool carryOver);
  // Bodies whose state the last apply() carried over (-1: it fell back to the initial conditions).
  int carriedBodies() const;

  // Transport.
  void setRunning(bool running);
  void stepOnce();   // one step (pauses)
  void stepBack();   // one state back in the history (pauses)
  void seek(int historyIndex);  // show a kept state (pauses); run continues from it
  void reset();      // t = 0, initial conditions; history and plots start again (stays paused)
  void setSpeed(double realTimeFactor);  // <= 0: as fast as possible

  // Settings (applied between steps).
  void setStepSettings(const StepSettings& settings);
  StepSettings stepSettings() const;
  void setHistoryCapacity(int states);
  int historyCapacity() const;

  // The reference simulation's integrator, applied at the next sync point. When the engine refuses
  // it (UserError: a combination that makes no sense for the model, an integrator this build lacks)
  // error() is emitted and the previous integrator stays.
  void setIntegrator(const IntegratorOptions& options);
  IntegratorOptions integratorOptions() const;

  // Comparison: copies[0] is the reference, the others run beside it; all start from the state now
  // shown (the history cursor: "compare from here"), the history and plots start again there. A
  // copy whose integrator cannot be set up is listed as failed with the reason. With `equalCost`
  // each other copy's Δt is chosen so that its time per simulated second matches the
  // reference's (CPU µs/step of the simulation thread over a short calibration run from the start
  // state, twice).
  void startComparison(const std::vector<CopySpec>& copies, bool equalCost);
  // Back to the reference alone (its state and integrator kept).
  void stopComparison();
  bool comparing() const;

  // Interaction.
  void setPerturbation(const Perturbation& p);
  void setActuator(int joint, int dof, double value);
  // Signals evaluated with every sample from the next sync point on (StepSample::signalValues, in the
  // order of `indices`, catalogue indices; SI units, radians), for the reference and the copies.
  // The catalogue must be the loaded system's (samples of another system get none).
  void watchSignals(std::shared_ptr<const SignalCatalogue> catalogue, std::vector<int> indices);
  // Initial minimal coordinates of a joint (size = its dof); resets to t = 0 with them.
  void setInitialJointPosition(int joint, const std::vector<double>& position);

  // Keyframes (engine's system/keyframe.h), applied at the sync point like reset(): paused, a new
  // timeline, comparison copies too. loadKeyframe: the keyframe's state replaces the current one
  // exactly (t = 0). useKeyframeAsInitialState: reset() returns to it from now on, and is done now.
  // A keyframe that does not fit the model is reported through error() and nothing changes.
  void loadKeyframe(const KeyframeDesc& keyframe);
  void useKeyframeAsInitialState(const KeyframeDesc& keyframe);

  // A copy of the latest state and figures.
  Snapshot snapshot() const;
  // Moves every sample produced since the last call into `out` (appends, in step order). Returns
  // true when the timeline jumped back (step back, seek, reset, load) since the last call: the
  // caller must first drop its samples with time > *rewindTo, then append `out`.
  bool takeSamples(std::vector<StepSample>& out, double* rewindTo);
  // Blocks until every request queued so far has been applied (tests, screenshot mode).
  void sync();

 Q_SIGNALS:
  // Emitted (queued into the GUI thread) when a step fails; the simulation is then paused.
  void failed(const QString& message);
  // A request could not be applied (e.g. initial joint positions that violate the constraints).
  void error(const QString& message);

 private:
  using Command = std::function<void()>;
  void post(Command c);
  void postKeyframe(const KeyframeDesc& keyframe, bool asInitialState);
  void threadMain();
  void publish();
  void recordSample();
  void recordCopySample(int index);
  // One sample of `sim` (copy index; 0 = the reference), its energy error relative to energyScale,
  // which grows with the largest kinetic energy seen.
  void recordSampleOf(const Simulation& sim, int copy, double energy0, double& energyScale);
  void stepComparison();
  double clockTime() const;
  void pushHistory();
  void restoreHistory(int index);
  void startTimeline();
  // Runs `how` on the reference (it may throw UserError: then nothing changes), then on every other
  // copy, clears failures and counts and starts a new timeline, paused.
  void restartAll(const std::function<void(Simulation&)>& how);
  void rewind(double time);
  void stepOnceInThread();
  void countRemedies();
  void emitFailed(const std::string& message);
  void emitError(const std::string& message);

  // Shared between the threads, guarded by mutex_.
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Command> pending_;
  long postedSerial_ = 0, appliedSerial_ = 0;
  std::condition_variable applied_;
  Snapshot published_;
  std::vector<StepSample> samples_;
  StepSettings settingsCopy_;
  int historyCapacityCopy_ = 10000;
  bool quit_ = false;
  bool rewindPending_ = false;
  int carried_ = 0;
  double rewindTo_ = 0;

  // Owned by the simulation thread.
  std::shared_ptr<Simulation> sim_;
  long generation_ = 0;
  bool running_ = false, failed_ = false;
  std::string failure_;
  double speed_ = 1.0;
  Perturbation perturbation_;
  double energy0_ = 0, energyScale_ = 1;
  std::deque<State> history_;
  int historyCursor_ = -1;
  int historyCapacity_ = 10000;
  double achievedRtf_ = 0, stepsPerSecond_ = 0;
  long stalledSteps_ = 0, subdividedSteps_ = 0, singularSteps_ = 0;  // of sim_ since the timeline started
  double refinedInterval_ = 0, refinedAt_ = 0;                       // Snapshot::refinedInterval
  std::vector<StepSample> localSamples_;
  std::vector<ContactPoint> contactScratch_;
  std::shared_ptr<const SignalCatalogue> catalogue_;
  std::vector<int> watched_;
  // Comparison (all owned by the simulation thread): the runner (its copy 0 is sim_), the copies'
  // labels and colours, each copy's sample energy scale, and the others' states at every history
  // index (parallel to history_).
  std::unique_ptr<Comparison> cmp_;
  std::vector<CopySpec> specs_;
  std::vector<double> copyEnergyScale_;
  std::deque<LockstepState> copyHistory_;
  IntegratorOptions integratorCopy_;
  bool comparingCopy_ = false;

  std::thread thread_;
};

}  // namespace ms::ui
