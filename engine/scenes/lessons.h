// SPDX-License-Identifier: GPL-3.0-or-later
// Teaching presets ("Lessons"): one model, two or more integrators run side by side in lockstep,
// after Brüdigam et al. 2023 Fig. 7 (a)–(d) and Hammoud et al. 2021. Defined once and shared by
// the app's Lessons menu, `mechstudio-cli lesson N` and the tests that check each lesson's claim.
#pragma once

#include <map>
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
};

// Which quantity a lesson is about (the plot it brings to the front).
enum class LessonFocus { ConstraintViolation, Energy, Penetration, AngularMomentum, Iterations };

struct Lesson {
  int number = 0;              // 1-based, menu order
  std::string id;              // "drift", "energy", "dissipation", "contact", "intermediate-axis", "stiff-contact"
  std::string title;           // menu text
  std::string explanation;     // a short paragraph for the explanation panel (plain text)
  std::string claim;           // what the user should see, one sentence
  std::string scene;           // built-in scene (scenes.h)
  std::map<std::string, std::string> params;
  std::vector<LessonVariant> variants;  // the first is the reference (drawn solid; the others as ghosts)
  double duration = 10;        // suggested simulated time [s]
  LessonFocus focus = LessonFocus::Energy;
  bool logScale = false;       // the focus plot on a logarithmic axis
  std::string followUp;        // what to try next (e.g. "raise Δt to 0.05 s"), plain text
  // A phase portrait shown with the lesson: signal y against signal x (docs/signals.md); empty: none.
  std::string phaseX, phaseY;
};

// All lessons in menu order.
const std::vector<Lesson>& lessons();
// By number (1-based) or id; throws UserError listing the lessons if unknown.
const Lesson& findLesson(const std::string& numberOrId);
// The lesson's model (its scene with its parameters).
Model lessonModel(const Lesson& l);

}  // namespace ms
