// SPDX-License-Identifier: GPL-3.0-or-later
// The built-in lessons' experiment files (models/lessons/NN-ID.experiment), embedded at build time
// by engine/scenes/embed_lessons.cmake into a generated source, so that the CLI and the app have
// them without the source tree.
#pragma once

#include <vector>

namespace ms {

struct EmbeddedFile {
  const char* name;  // file name, e.g. "01-drift.experiment"
  const char* text;  // its whole text
};

// Every models/lessons/*.experiment, sorted by file name.
const std::vector<EmbeddedFile>& embeddedLessonFiles();

}  // namespace ms
