// SPDX-License-Identifier: GPL-3.0-or-later
// The built-in lessons are data: the experiment files models/lessons/NN-ID.experiment, embedded at
// build time (scenes/lesson_files.h) and read here with the experiment reader on first use.
#include "scenes/lessons.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "core/check.h"
#include "io/experiment_file.h"
#include "io/mech_reader.h"
#include "io/model_file.h"
#include "scenes/lesson_files.h"

namespace ms {
namespace {

// Every embedded file, read in file-name order. A file that does not read, or whose name is not
// NN-ID.experiment with NN its position and ID its experiment's name, is a build error caught by
// the tests (std::logic_error, never skipped).
std::vector<Lesson> readLessons() {
  std::vector<Lesson> out;
  for (const EmbeddedFile& f : embeddedLessonFiles()) {
    Lesson l;
    Diagnostics diags;
    const std::string name = std::string("models/lessons/") + f.name;
    if (!readExperimentText(f.text, name, l, diags))
      throw std::logic_error("built-in lesson " + name + " does not read:\n" + errorSummary(diags));
    l.number = int(out.size()) + 1;
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%02d-", l.number);
    if (std::string(f.name) != prefix + l.id + ".experiment")
      throw std::logic_error("built-in lesson " + name + " should be named " + prefix + l.id + ".experiment");
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace

bool Lesson::operator==(const Lesson& o) const {
  return id == o.id && title == o.title && explanation == o.explanation && claim == o.claim && scene == o.scene &&
         modelFile == o.modelFile && modelText == o.modelText && params == o.params && keyframe == o.keyframe &&
         variants == o.variants && duration == o.duration && focus == o.focus && logScale == o.logScale &&
         followUp == o.followUp && plots == o.plots && phases == o.phases && camera == o.camera &&
         follow == o.follow && figure == o.figure;
}

const std::vector<Lesson>& lessons() {
  static const std::vector<Lesson> all = readLessons();
  return all;
}

const Lesson& findLesson(const std::string& key) {
  for (const Lesson& l : lessons())
    if (l.id == key || std::to_string(l.number) == key) return l;
  std::string list;
  for (const Lesson& l : lessons()) list += (list.empty() ? "" : ", ") + l.id;
  throw UserError("unknown lesson '" + key + "'; give 1-" + std::to_string(lessons().size()) + " or one of: " + list);
}

std::string lessonModelSource(const Lesson& l) {
  if (!l.scene.empty()) return "scene:" + l.scene;
  if (l.modelFile.empty()) return "";
  const std::filesystem::path p(l.modelFile);
  if (p.is_absolute() || l.sourceFile.empty()) return l.modelFile;
  return (std::filesystem::path(l.sourceFile).parent_path() / p).lexically_normal().string();
}

Model lessonModel(const Lesson& l) {
  Model model;
  Diagnostics diags;
  bool ok = false;
  if (!l.modelText.empty()) {
    // The inline (mechanism …) form where it stands in the experiment file, so that messages give
    // the file's line:column.
    const std::string text = std::string(size_t(std::max(l.modelLine - 1, 0)), '\n') +
                             std::string(size_t(std::max(l.modelColumn - 1, 0)), ' ') + l.modelText;
    MechParseResult r;
    ok = readMechText(text, l.sourceFile.empty() ? "(experiment " + l.id + ")" : l.sourceFile, l.params, r, diags);
    model = std::move(r.model);
  } else {
    const std::string source = lessonModelSource(l);
    ok = loadModel(source, l.params, model, diags);
    // Problems without a location (unknown scene, missing file) name the source.
    if (!ok && diags.items().size() == 1 && diags.items()[0].line == 0)
      throw UserError("'" + source + "': " + diags.items()[0].message);
  }
  if (!ok) throw UserError(errorSummary(diags));
  return model;
}

}  // namespace ms
