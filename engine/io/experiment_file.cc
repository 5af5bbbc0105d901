// SPDX-License-Identifier: GPL-3.0-or-later
// Reader and writer of experiment files (see experiment_file.h and docs/lessons.md).
#include "io/experiment_file.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/check.h"
#include "core/suggest.h"
#include "io/model_file.h"
#include "scenes/scenes.h"

namespace ms {

namespace {

using sexpr::Kind;
using sexpr::Node;

// Forms allowed in (experiment …), in (copy …) and in (camera …).
const std::vector<std::string> kForms = {"title",  "model",  "keyframe",    "copy",  "duration",  "focus",  "log-scale", "plot",
                                         "phase",  "camera", "follow",      "figure", "explanation", "claim", "follow-up"};
const std::vector<std::string> kCopyItems = {"integrator", "dt", "tolerance", "contacts", "baumgarte", "mujoco-integrator"};
const std::vector<std::string> kContactItems = {"stiffness", "damping"};
const std::vector<std::string> kCameraItems = {"eye", "center", "up"};


std::string where(const Node& n) { return "line " + std::to_string(n.line) + ", column " + std::to_string(n.column); }

class Reader {
 public:
  Reader(const sexpr::Document& doc, Lesson& out, Diagnostics& diags) : doc_(doc), out_(out), diags_(diags) {}

  void run() {
    const Node& root = doc_.root();
    const Node* exp = nullptr;
    for (const Node& c : root.children) {
      if (c.isList() && c.head() == "experiment") {
        if (exp) error(c, "a file holds one (experiment ...); the first is at " + where(*exp));
        else exp = &c;
      } else {
        error(c, "unexpected " + sexpr::describeNode(c) + " outside (experiment ...)" +
                     (c.isList() && !c.head().empty() ? suggestion(c.head(), {"experiment"}) : std::string()));
      }
    }
    if (!exp) {
      if (root.children.empty() || !diags_.hasErrors()) report(1, 1, "the file holds no (experiment NAME ...) form");
      return;
    }
    readExperimentForm(*exp);
  }

 private:
  void report(int line, int column, const std::string& msg) { diags_.error(doc_.fileName(), line, column, msg); }
  void error(const Node& n, const std::string& msg) { report(n.line, n.column, msg); }

  // A name: a string or a symbol.
  static bool isName(const Node& n) { return n.isString() || n.isSymbol(); }

  // (head NAME): exactly one name.
  bool oneName(const Node& n, std::string& out, const std::string& example) {
    if (n.children.size() != 2 || !isName(n.children[1])) {
      error(n, "(" + n.head() + " ...) takes one name, e.g. " + example + argsGot(n));
      return false;
    }
    out = n.children[1].text;
    return true;
  }

  // " (got 2)" / " (got 'x')" for a form with the wrong arguments.
  static std::string argsGot(const Node& n) {
    if (n.children.size() == 2) return " (got " + sexpr::describeNode(n.children[1]) + ")";
    return " (got " + std::to_string(n.children.size() - 1) + " arguments)";
  }

  // (head NUMBER): exactly one number.
  bool oneNumber(const Node& n, double& out) {
    if (n.children.size() != 2) {
      error(n, "(" + n.head() + " ...) takes 1 number (got " + std::to_string(n.children.size() - 1) + ")");
      return false;
    }
    return number(n, n.children[1], out);
  }

  bool number(const Node& form, const Node& v, double& out) {
    if (!v.isNumber()) {
      error(v, "(" + form.head() + " ...) takes a number, got " + sexpr::describeNode(v));
      return false;
    }
    out = v.number;
    return true;
  }

  bool positive(const Node& n, double& out) {
    double v = 0;
    if (!oneNumber(n, v)) return false;
    if (!(v > 0)) {
      error(n.children[1], "(" + n.head() + " ...) must be positive (got " + n.children[1].text + ")");
      return false;
    }
    out = v;
    return true;
  }

  // (head "text" "more text" …): the strings joined with one space.
  bool text(const Node& n, std::string& out) {
    if (n.children.size() < 2) {
      error(n, "(" + n.head() + " ...) takes one or more strings, e.g. (" + n.head() + " \"...\")");
      return false;
    }
    std::string s;
    for (size_t i = 1; i < n.children.size(); ++i) {
      if (!n.children[i].isString()) {
        error(n.children[i], "(" + n.head() + " ...) takes strings in double quotes, got " + sexpr::describeNode(n.children[i]));
        return false;
      }
      if (i > 1) s += ' ';
      s += n.children[i].text;
    }
    out = s;
    return true;
  }

  // A form that may appear once: false (and an error) for the second.
  bool once(std::map<std::string, const Node*>& seen, const Node& n, const std::string& within) {
    auto [it, inserted] = seen.emplace(n.head(), &n);
    if (!inserted) error(n, "duplicate (" + n.head() + " ...) in (" + within + " ...); the first is at " + where(*it->second));
    return inserted;
  }

  void readExperimentForm(const Node& exp) {
    out_.sourceFile = doc_.fileName();
    if (exp.children.size() < 2 || !isName(exp.children[1]) || exp.children[1].text.empty()) {
      error(exp.children.size() < 2 ? exp : exp.children[1],
            "(experiment ...) starts with the experiment's name, e.g. (experiment \"energy\" ...)");
    } else {
      out_.id = exp.children[1].text;
    }
    std::map<std::string, const Node*> seen;
    std::map<std::string, const Node*> labels;
    bool sawCopy = false;
    for (size_t i = 2; i < exp.children.size(); ++i) {
      const Node& n = exp.children[i];
      if (!n.isList() || n.head().empty()) {
        error(n, "unexpected " + sexpr::describeNode(n) + " in (experiment ...); expected a form such as (copy ...) or (duration ...)");
        continue;
      }
      const std::string& h = n.head();
      if (std::find(kForms.begin(), kForms.end(), h) == kForms.end()) {
        error(n.children[0], "unknown form '" + h + "' in (experiment ...)" + suggestion(h, kForms));
        continue;
      }
      if (h == "copy") {
        sawCopy = true;
        LessonVariant v;
        if (readCopy(n, v)) {
          auto [it, inserted] = labels.emplace(v.label, &n);
          if (!inserted) error(n.children[1], "a copy labelled '" + v.label + "' is already at " + where(*it->second));
          else out_.variants.push_back(v);
        }
        continue;
      }
      if (h == "plot") {
        readPlot(n);
        continue;
      }
      // (phase X Y) may repeat: one portrait each.
      if (h == "phase") {
        if (n.children.size() != 3 || !isName(n.children[1]) || !isName(n.children[2]))
          error(n, "(phase ...) takes two signals, x and y, e.g. (phase joint1.angle joint1.angle_rate)" + argsGot(n));
        else
          out_.phases.emplace_back(n.children[1].text, n.children[2].text);
        continue;
      }
      if (!once(seen, n, "experiment")) continue;
      if (h == "title") text(n, out_.title);
      else if (h == "explanation") text(n, out_.explanation);
      else if (h == "claim") text(n, out_.claim);
      else if (h == "follow-up") text(n, out_.followUp);
      else if (h == "figure") text(n, out_.figure);
      else if (h == "model") readModel(n);
      else if (h == "keyframe") oneName(n, out_.keyframe, "(keyframe released)");
      else if (h == "follow") oneName(n, out_.follow, "(follow torso)");
      else if (h == "duration") positive(n, out_.duration);
      else if (h == "focus") readFocus(n);
      else if (h == "log-scale") {
        if (n.children.size() != 1) error(n.children[1], "(log-scale) takes no arguments");
        else out_.logScale = true;
      } else if (h == "camera") readCamera(n);
    }
    if (!seen.count("model")) error(exp, "the experiment has no (model ...): give scene:NAME, a model file or (mechanism ...)");
    if (!sawCopy)
      error(exp, "the experiment has no (copy ...): give at least one, e.g. (copy \"VI\" (integrator vi) (dt 0.01)); "
                 "the first is the reference");
  }

  void readModel(const Node& n) {
    if (n.children.size() < 2) {
      error(n, "(model ...) takes a model: scene:NAME, a file \"PATH\" or an inline (mechanism ...)");
      return;
    }
    const Node& src = n.children[1];
    bool fileWithoutParams = false;
    if (src.isList() && src.head() == "mechanism") {
      out_.modelText = doc_.text().substr(src.begin, src.end - src.begin);
      out_.modelLine = src.line;
      out_.modelColumn = src.column;
    } else if (isName(src) && src.text.compare(0, 6, "scene:") == 0) {
      const std::string name = src.text.substr(6);
      std::vector<std::string> names;
      for (const SceneInfo& s : sceneCatalog()) names.push_back(s.name);
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        std::string list;
        for (const std::string& s : names) list += (list.empty() ? "" : ", ") + s;
        error(src, "unknown scene '" + name + "'" + suggestion(name, names) + " (scenes: " + list + ")");
        return;
      }
      out_.scene = name;
    } else if (isName(src) && !src.text.empty()) {
      if (!isModelFile(src.text)) {
        error(src, "unknown model file type '" + modelFileExtension(src.text) +
                       "' (expected .mech, .trep or .urdf, or scene:NAME, or an inline (mechanism ...))");
        return;
      }
      out_.modelFile = src.text;
      fileWithoutParams = modelFileExtension(src.text) != ".mech";
    } else {
      error(src, "(model ...) takes scene:NAME, a file \"PATH\" or an inline (mechanism ...), got " + sexpr::describeNode(src));
      return;
    }
    for (size_t i = 2; i < n.children.size(); ++i) {
      const Node& s = n.children[i];
      if (!s.isList() || s.head() != "set") {
        error(s, "unexpected " + sexpr::describeNode(s) + " in (model ...); parameter values are (set NAME VALUE)" +
                     (s.isList() && !s.head().empty() ? suggestion(s.head(), {"set"}) : std::string()));
        continue;
      }
      if (s.children.size() != 3 || !isName(s.children[1]) || s.children[1].text.empty()) {
        error(s, "(set ...) takes a parameter name and a value, e.g. (set angle 1.2)" + argsGot(s));
        continue;
      }
      if (fileWithoutParams) {
        error(s, "(set ...): " + modelFileExtension(out_.modelFile) +
                     " files have no parameters (set applies to scenes and .mech files)");
        continue;
      }
      const Node& v = s.children[2];
      std::string value = v.isList() ? doc_.text().substr(v.begin, v.end - v.begin) : v.text;
      if (!out_.params.emplace(s.children[1].text, value).second)
        error(s.children[1], "parameter '" + s.children[1].text + "' is set twice in (model ...)");
    }
  }

  bool readCopy(const Node& n, LessonVariant& v) {
    if (n.children.size() < 2 || !isName(n.children[1])) {
      error(n.children.size() < 2 ? n : n.children[1],
            "(copy ...) starts with the copy's label, e.g. (copy \"VI\" (integrator vi) (dt 0.01))");
      return false;
    }
    v.label = n.children[1].text;
    const int before = diags_.errorCount();
    std::map<std::string, const Node*> seen;
    for (size_t i = 2; i < n.children.size(); ++i) {
      const Node& c = n.children[i];
      if (!c.isList() || c.head().empty()) {
        error(c, "unexpected " + sexpr::describeNode(c) + " in (copy ...); expected e.g. (integrator vi) or (dt 0.01)");
        continue;
      }
      const std::string& h = c.head();
      if (std::find(kCopyItems.begin(), kCopyItems.end(), h) == kCopyItems.end()) {
        error(c.children[0], "unknown form '" + h + "' in (copy ...)" + suggestion(h, kCopyItems));
        continue;
      }
      if (!once(seen, c, "copy")) continue;
      if (h == "integrator") {
        std::string name;
        if (!oneName(c, name, "(integrator rk4)")) continue;
        if (!parseIntegratorKind(name, v.options.kind)) {
          std::vector<std::string> names;
          for (IntegratorKind k : kIntegratorKinds) names.push_back(toString(k));
          error(c.children[1], "unknown integrator '" + name + "'" + suggestion(name, names) + " (integrators: " +
                                   integratorChoices() + ")");
        }
      } else if (h == "dt") {
        positive(c, v.dt);
      } else if (h == "tolerance") {
        positive(c, v.tolerance);
      } else if (h == "contacts") {
        readContacts(c, v.options);
      } else if (h == "baumgarte") {
        if (c.children.size() != 3) {
          error(c, "(baumgarte ...) takes 2 numbers, alpha and beta in 1/s (got " + std::to_string(c.children.size() - 1) + ")");
          continue;
        }
        double a = 0, b = 0;
        if (!number(c, c.children[1], a) || !number(c, c.children[2], b)) continue;
        if (a < 0 || b < 0) {
          error(c.children[a < 0 ? 1 : 2], "(baumgarte ...) gains must not be negative");
          continue;
        }
        v.options.baumgarteAlpha = a;
        v.options.baumgarteBeta = b;
      } else if (h == "mujoco-integrator") {
        std::string name;
        if (!oneName(c, name, "(mujoco-integrator rk4)")) continue;
        if (!parseMuJoCoScheme(name, v.options.mujocoScheme))
          error(c.children[1], "unknown MuJoCo integrator '" + name + "'" + suggestion(name, {"euler", "rk4", "implicit"}) +
                                   " (euler, rk4 or implicit)");
      }
    }
    if (!seen.count("integrator"))
      error(n, "copy '" + v.label + "' needs (integrator NAME), one of " + integratorChoices());
    if (!seen.count("dt")) error(n, "copy '" + v.label + "' needs its time step, e.g. (dt 0.01)");
    return diags_.errorCount() == before;
  }

  void readContacts(const Node& c, IntegratorOptions& o) {
    if (c.children.size() < 2 || !c.children[1].isSymbol() || !parseContactModel(c.children[1].text, o.contacts)) {
      error(c.children.size() < 2 ? c : c.children[1],
            "(contacts ...) takes rigid or soft, e.g. (contacts soft (stiffness 1e5) (damping 300))" +
                (c.children.size() < 2 ? std::string() : ", got " + sexpr::describeNode(c.children[1])));
      return;
    }
    std::map<std::string, const Node*> seen;
    for (size_t i = 2; i < c.children.size(); ++i) {
      const Node& p = c.children[i];
      if (!p.isList() || std::find(kContactItems.begin(), kContactItems.end(), p.head()) == kContactItems.end()) {
        error(p, "unexpected " + sexpr::describeNode(p) + " in (contacts ...); expected (stiffness N/m) or (damping N s/m)" +
                     (p.isList() && !p.head().empty() ? suggestion(p.head(), kContactItems) : std::string()));
        continue;
      }
      if (!once(seen, p, "contacts")) continue;
      double v = 0;
      if (p.head() == "stiffness") {
        if (positive(p, v)) o.contactStiffness = v;
      } else if (oneNumber(p, v)) {
        if (v < 0) error(p.children[1], "(damping ...) must not be negative (got " + p.children[1].text + ")");
        else o.contactDamping = v;
      }
    }
  }

  void readFocus(const Node& n) {
    std::string name;
    if (!oneName(n, name, "(focus energy)")) return;
    if (!parseLessonFocus(name, out_.focus)) {
      std::vector<std::string> names;
      for (LessonFocus f : {LessonFocus::ConstraintViolation, LessonFocus::Energy, LessonFocus::Penetration,
                            LessonFocus::AngularMomentum, LessonFocus::Iterations})
        names.push_back(toString(f));
      error(n.children[1], "unknown focus '" + name + "'" + suggestion(name, names) + " (" + lessonFocusChoices() + ")");
    }
  }

  void readPlot(const Node& n) {
    std::vector<std::string> signals;
    for (size_t i = 1; i < n.children.size(); ++i) {
      if (!isName(n.children[i]) || n.children[i].text.empty()) {
        error(n.children[i], "(plot ...) takes signal names (docs/signals.md), got " + sexpr::describeNode(n.children[i]));
        return;
      }
      signals.push_back(n.children[i].text);
    }
    if (signals.empty()) {
      error(n, "(plot ...) takes one or more signal names, e.g. (plot joint1.angle joint2.angle)");
      return;
    }
    out_.plots.push_back(signals);
  }

  void readCamera(const Node& n) {
    LessonCamera cam;
    std::map<std::string, const Node*> seen;
    bool ok = true;
    for (size_t i = 1; i < n.children.size(); ++i) {
      const Node& p = n.children[i];
      if (!p.isList() || std::find(kCameraItems.begin(), kCameraItems.end(), p.head()) == kCameraItems.end()) {
        error(p, "unexpected " + sexpr::describeNode(p) + " in (camera ...); expected (eye x y z), (center x y z) or (up x y z)" +
                     (p.isList() && !p.head().empty() ? suggestion(p.head(), kCameraItems) : std::string()));
        ok = false;
        continue;
      }
      if (!once(seen, p, "camera")) {
        ok = false;
        continue;
      }
      if (p.children.size() != 4) {
        error(p, "(" + p.head() + " ...) takes 3 numbers (got " + std::to_string(p.children.size() - 1) + ")");
        ok = false;
        continue;
      }
      std::array<double, 3>& v = p.head() == "eye" ? cam.eye : p.head() == "center" ? cam.center : cam.up;
      for (int k = 0; k < 3; ++k) ok = number(p, p.children[size_t(k + 1)], v[size_t(k)]) && ok;
    }
    if (!seen.count("eye") || !seen.count("center")) {
      error(n, "(camera ...) needs (eye x y z) and (center x y z); (up x y z) is optional (default 0 0 1)");
      return;
    }
    if (!ok) return;
    if (cam.eye == cam.center) {
      error(*seen["eye"], "(camera ...): the eye is at the center");
      return;
    }
    if (cam.up == std::array<double, 3>{{0, 0, 0}}) {
      error(*seen["up"], "(camera ...): (up ...) must not be zero");
      return;
    }
    out_.camera = cam;
  }

  const sexpr::Document& doc_;
  Lesson& out_;
  Diagnostics& diags_;
};

// ---- writing -----------------------------------------------------------------------------------

// True when `s` parses as exactly one node of kind `k` that reads back as `s`.
bool parsesAs(const std::string& s, Kind k) {
  if (s.empty()) return false;
  Diagnostics d;
  const sexpr::Document doc = sexpr::Document::parse(s, "", d);
  if (d.hasErrors() || doc.root().children.size() != 1) return false;
  const Node& n = doc.root().children[0];
  if (n.kind != k || n.begin != 0 || n.end != s.size()) return false;
  return k == Kind::List || n.text == s;
}

// A name as a symbol when it reads back as one, else as a string.
std::string name(const std::string& s) { return parsesAs(s, Kind::Symbol) ? s : sexpr::quote(s); }

// A parameter value as the reader stored it: a number, symbol or list as written, else a string.
std::string value(const std::string& s) {
  return parsesAs(s, Kind::Number) || parsesAs(s, Kind::Symbol) || parsesAs(s, Kind::List) ? s : sexpr::quote(s);
}

std::string num(double v) { return sexpr::formatNumber(v); }

// (head "…" "…"): the text split at spaces into strings of about `width` bytes (the reader joins
// them with one space).
std::string textForm(const std::string& head, const std::string& s, const std::string& indent) {
  constexpr size_t width = 88;
  std::string out = indent + "(" + head + " ";
  size_t start = 0;
  bool first = true;
  while (true) {
    size_t cut = std::string::npos;
    if (s.size() - start > width) {
      // The last space within the width (or the first after it) ends this piece.
      cut = s.rfind(' ', start + width);
      if (cut == std::string::npos || cut < start + 1) cut = s.find(' ', start + width);
      if (cut != std::string::npos && cut <= start) cut = std::string::npos;
    }
    if (!first) out += "\n" + indent + std::string(head.size() + 2, ' ');
    first = false;
    out += sexpr::quote(s.substr(start, cut == std::string::npos ? std::string::npos : cut - start));
    if (cut == std::string::npos) break;
    start = cut + 1;
  }
  return out + ")\n";
}

std::string triple(const char* head, const std::array<double, 3>& v) {
  return std::string("(") + head + " " + num(v[0]) + " " + num(v[1]) + " " + num(v[2]) + ")";
}

}  // namespace

const char* toString(LessonFocus f) {
  switch (f) {
    case LessonFocus::ConstraintViolation: return "constraint-violation";
    case LessonFocus::Energy: return "energy";
    case LessonFocus::Penetration: return "penetration";
    case LessonFocus::AngularMomentum: return "angular-momentum";
    case LessonFocus::Iterations: return "iterations";
  }
  return "energy";
}

bool parseLessonFocus(const std::string& s, LessonFocus& out) {
  for (LessonFocus f : {LessonFocus::ConstraintViolation, LessonFocus::Energy, LessonFocus::Penetration,
                        LessonFocus::AngularMomentum, LessonFocus::Iterations})
    if (s == toString(f)) {
      out = f;
      return true;
    }
  return false;
}

std::string lessonFocusChoices() { return "constraint-violation, energy, penetration, angular-momentum or iterations"; }

bool isExperimentFile(const std::string& path) { return modelFileExtension(path) == ".experiment"; }

bool readExperiment(const sexpr::Document& doc, Lesson& out, Diagnostics& diags) {
  out = Lesson();
  const int before = diags.errorCount();
  Reader(doc, out, diags).run();
  return diags.errorCount() == before;
}

bool readExperimentText(const std::string& text, const std::string& fileName, Lesson& out, Diagnostics& diags) {
  const int before = diags.errorCount();
  const sexpr::Document doc = sexpr::Document::parse(text, fileName, diags);
  readExperiment(doc, out, diags);
  return diags.errorCount() == before;
}

bool readExperimentFile(const std::string& path, Lesson& out, Diagnostics& diags) {
  std::string text;
  if (!readWholeFile(path, text, diags)) {
    out = Lesson();
    return false;
  }
  return readExperimentText(text, path, out, diags);
}

Lesson loadExperiment(const std::string& path) {
  Lesson l;
  Diagnostics diags;
  if (!readExperimentFile(path, l, diags)) throw UserError(errorSummary(diags));
  return l;
}

std::string errorSummary(const Diagnostics& diags) {
  std::string out;
  int shown = 0, more = 0;
  for (const Diagnostic& d : diags.items()) {
    if (d.severity != Severity::Error) continue;
    if (shown == 10) {
      ++more;
      continue;
    }
    std::string loc = d.file;
    if (d.line > 0) loc += (loc.empty() ? "" : ":") + std::to_string(d.line) + (d.column > 0 ? ":" + std::to_string(d.column) : "");
    out += (shown ? "\n" : "") + (loc.empty() ? std::string() : loc + ": ") + d.message;
    ++shown;
  }
  if (more) out += "\n(and " + std::to_string(more) + " more error(s))";
  return out;
}

std::string writeExperiment(const Lesson& l) {
  const std::string in = "  ";
  std::string s = "(experiment " + sexpr::quote(l.id) + "\n";
  if (!l.title.empty()) s += textForm("title", l.title, in);
  // The model.
  s += in + "(model ";
  if (!l.modelText.empty()) s += l.modelText;
  else if (!l.scene.empty()) s += name("scene:" + l.scene);
  else s += sexpr::quote(l.modelFile);
  for (const auto& [k, v] : l.params) s += "\n" + in + "  (set " + name(k) + " " + value(v) + ")";
  s += ")\n";
  if (!l.keyframe.empty()) s += in + "(keyframe " + name(l.keyframe) + ")\n";
  // The copies, the reference first.
  for (const LessonVariant& v : l.variants) {
    const IntegratorOptions& o = v.options;
    s += in + "(copy " + sexpr::quote(v.label) + " (integrator " + toString(o.kind) + ") (dt " + num(v.dt) + ")";
    if (v.tolerance != 0) s += " (tolerance " + num(v.tolerance) + ")";
    const IntegratorOptions defaults;
    if (o.contacts != ContactModel::Rigid || o.contactStiffness != defaults.contactStiffness ||
        o.contactDamping != defaults.contactDamping)
      s += std::string("\n") + in + "  (contacts " + toString(o.contacts) + " (stiffness " + num(o.contactStiffness) +
           ") (damping " + num(o.contactDamping) + "))";
    if (o.baumgarteAlpha != 0 || o.baumgarteBeta != 0)
      s += " (baumgarte " + num(o.baumgarteAlpha) + " " + num(o.baumgarteBeta) + ")";
    if (o.mujocoScheme != MuJoCoScheme::Euler) s += std::string(" (mujoco-integrator ") + toString(o.mujocoScheme) + ")";
    s += ")\n";
  }
  s += in + "(duration " + num(l.duration) + ")\n";
  s += in + "(focus " + toString(l.focus) + ")\n";
  if (l.logScale) s += in + "(log-scale)\n";
  for (const std::vector<std::string>& p : l.plots) {
    s += in + "(plot";
    for (const std::string& sig : p) s += " " + name(sig);
    s += ")\n";
  }
  for (const auto& [x, y] : l.phases) s += in + "(phase " + name(x) + " " + name(y) + ")\n";
  if (l.camera)
    s += in + "(camera " + triple("eye", l.camera->eye) + " " + triple("center", l.camera->center) + " " +
         triple("up", l.camera->up) + ")\n";
  if (!l.follow.empty()) s += in + "(follow " + name(l.follow) + ")\n";
  if (!l.figure.empty()) s += textForm("figure", l.figure, in);
  if (!l.explanation.empty()) s += textForm("explanation", l.explanation, in);
  if (!l.claim.empty()) s += textForm("claim", l.claim, in);
  if (!l.followUp.empty()) s += textForm("follow-up", l.followUp, in);
  // Close the experiment on its last line.
  s.pop_back();
  return s + ")\n";
}

}  // namespace ms
