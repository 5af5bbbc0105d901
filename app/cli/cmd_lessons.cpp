// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-cli lessons: lists the teaching presets and their copies.
#include "cli/cli_common.h"
#include "scenes/lessons.h"

namespace cli {

// lessons: list the teaching presets.
int runLessons(const std::vector<std::string>& args) {
  if (!args.empty()) throw InputError{"'lessons' takes no arguments, got '" + args.front() + "'"};
  std::printf("Lessons (run with '%s lesson N'; in the app: Lessons menu or 'mechstudio --lesson N'):\n", kProg);
  for (const ms::Lesson& l : ms::lessons()) {
    std::printf("\n%d  %s\n    %s\n    copies:", l.number, l.id.c_str(), l.title.c_str());
    for (const ms::LessonVariant& v : l.variants) {
      if (v.tolerance != 0) std::printf(" [%s, dt = %g s, tol %g]", v.label.c_str(), v.dt, v.tolerance);
      else std::printf(" [%s, dt = %g s]", v.label.c_str(), v.dt);
    }
    std::printf("\n");
  }
  return std::fflush(stdout) == 0 ? kExitOk : kExitInternal;
}

}  // namespace cli
