// SPDX-License-Identifier: GPL-3.0-or-later
// Teaching presets ("Lessons") and experiments: one model, two or more integrators run side by side
// in lockstep, after Brüdigam et al. 2023 Fig. 7 (a)–(d) and Hammoud et al. 2021. A Lesson is what an
// experiment file (.experiment, io/experiment_file.h) holds; the built-in lessons are the files
// models/lessons/NN-ID.experiment, embedded in the engine at build time and parsed on first use.
// Shared by the app's Lessons menu, `mechstudio-cli lesson N|FILE` and the tests that check each
// lesson's claim.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "integrator/integrator_options.h"
#include "model/model.h"

namespace ms {

// One copy of the model in a comparison: its integrator and step.
struct LessonVariant {
  std::string label;          // legend entry, e.g. "VI" or "RK4"
  IntegratorOptions options;
  double dt = 0.01;
  double tolerance = 0;       // Newton tolerance; 0: the model's
  bool operator==(const LessonVariant& o) const {
    return label == o.label && options == o.options && dt == o.dt && tolerance == o.tolerance;
  }
  bool operator!=(const LessonVariant& o) const { return !(*this == o); }
};

// Which quantity a lesson is about (the plot it brings to the front).
enum class LessonFocus { ConstraintViolation, Energy, Penetration, AngularMomentum, Iterations };
// File names: constraint-violation, energy, penetration, angular-momentum, iterations.
const char* toString(LessonFocus f);
bool parseLessonFocus(const std::string& s, LessonFocus& out);
// "constraint-violation, energy, penetration, angular-momentum or iterations" (messages).
std::string lessonFocusChoices();

// The 3D view's camera (world frame, z up by default).
struct LessonCamera {
  std::array<double, 3> eye{{3, -3, 2}}, center{{0, 0, 0}}, up{{0, 0, 1}};
  bool operator==(const LessonCamera& o) const { return eye == o.eye && center == o.center && up == o.up; }
  bool operator!=(const LessonCamera& o) const { return !(*this == o); }
};

struct Lesson {
  int number = 0;              // 1-based menu order of the built-in lessons; 0 for an experiment file
  std::string id;              // "drift", "energy", "dissipation", "contact", "intermediate-axis", "stiff-contact"
  std::string title;           // menu text
  std::string explanation;     // a short paragraph for the explanation panel (plain text)
  std::string claim;           // what the user should see, one sentence
  // The model: exactly one of scene, modelFile and modelText is set.
  std::string scene;           // built-in scene (scenes.h): (model scene:NAME …)
  std::string modelFile;       // (model "PATH" …) as written; a relative PATH is relative to sourceFile's folder
  std::string modelText;       // (model (mechanism …)): the text of the inline (mechanism …) form
  std::map<std::string, std::string> params;  // (set NAME VALUE): scene parameters or the .mech file's params
  // The model's keyframe the run starts from ((keyframe NAME)); empty: the model's initial state.
  std::string keyframe;
  std::vector<LessonVariant> variants;  // the first is the reference (drawn solid; the others as ghosts)
  double duration = 10;        // suggested simulated time [s]
  LessonFocus focus = LessonFocus::Energy;
  bool logScale = false;       // the focus plot on a logarithmic axis
  std::string followUp;        // what to try next (e.g. "raise Δt to 0.05 s"), plain text
  // Signal plots shown with the lesson, one per (plot …) form, each the signals it overlays
  // (names as in docs/signals.md).
  std::vector<std::vector<std::string>> plots;
  // Phase portraits shown with the lesson, one per (phase X Y) form: signal y against signal x
  // (docs/signals.md), in order.
  std::vector<std::pair<std::string, std::string>> phases;
  std::optional<LessonCamera> camera;  // the view to open with; none: fit the model
  std::string follow;          // the body the 3D view follows ((follow BODY)); empty: none
  // A figure shown with the lesson ((figure "NAME.png")): a PNG of docs/images, built into the
  // application; in an experiment file of one's own also a path relative to that file. Empty: none.
  std::string figure;
  // Where it was read from (not content: ignored by ==): the experiment file (for relative model
  // paths and messages) and the line:column of an inline (mechanism …) form.
  std::string sourceFile;
  int modelLine = 0, modelColumn = 0;

  // Equal content: every field above except number, sourceFile, modelLine and modelColumn.
  bool operator==(const Lesson& o) const;
  bool operator!=(const Lesson& o) const { return !(*this == o); }
};
// An experiment is a lesson read from any file.
using Experiment = Lesson;

// All built-in lessons in menu order (parsed from the embedded models/lessons files; one that does
// not parse is an internal error, thrown as std::logic_error).
const std::vector<Lesson>& lessons();
// By number (1-based) or id; throws UserError listing the lessons if unknown.
const Lesson& findLesson(const std::string& numberOrId);
// The lesson's model: its scene with its parameters, its model file (relative to the experiment
// file), or its inline (mechanism …) form. Throws UserError with the located diagnostics if the
// model cannot be read.
Model lessonModel(const Lesson& l);
// The model source as loadModel() takes it: "scene:NAME" or the model file's path resolved against
// the experiment file's folder; empty for an inline model.
std::string lessonModelSource(const Lesson& l);

}  // namespace ms
