// SPDX-License-Identifier: GPL-3.0-or-later
// Reader of the MechStudio model language (see mech_reader.h and docs/model-language.md).
//
// The document is interpreted directly (no expanded copy of the tree is built): repeat and chain
// bind their variable and interpret their template once per value, so source spans of generated
// elements point into the template. References to bodies and joints by name (loop joints, springs,
// controllers, actuators, wrenches, order) are collected as fix-ups and resolved at the end, so
// forms may refer to bodies written later in the file.
//
// The stages live in their own files (listed in mech_reader_internal.h); this file holds the driver —
// Reader::run (parameters, then every form in order, then the final steps), the dispatch of one form
// to its reader (Reader::item) — and the entry points.
#include "io/mech_reader.h"

#include <algorithm>

#include "io/mech_reader_internal.h"

namespace ms {

namespace mechread {

namespace {

// Forms allowed directly in (mechanism …) and in (body …).
const std::vector<std::string> kTopForms = {"param",  "gravity",       "solver", "body",  "loop-joint", "spring",
                                            "actuator", "pd-controller", "wrench", "repeat", "chain",      "order",
                                            "ground", "contact-pair", "keyframe", "collisions", "exclude", "tendon",
                                            "coupling"};
const std::vector<std::string> kBodyForms = {"mass",     "density", "inertia",  "position",  "orientation", "rotation",
                                             "velocity", "angular-velocity", "shape", "visual", "collision", "color",
                                             "friction", "contype", "conaffinity", "joint", "body", "repeat", "chain"};

}  // namespace

// ---- top level ---------------------------------------------------------------------------------

void Reader::run(const std::map<std::string, std::string>& overrides) {
  const Node& root = doc_.root();
  const Node* mech = nullptr;
  // Find the one (mechanism …) form; anything else at the top level is reported.
  for (const Node& c : root.children) {
    if (c.isList() && c.head() == "mechanism") {
      if (mech) error(c, "a file holds one (mechanism ...); this is a second one");
      else mech = &c;
    } else if (c.isList() && !c.head().empty()) {
      error(c.children[0], "unknown top-level form '" + c.head() + "': a .mech file holds one (mechanism ...)" +
                               suggestion(c.head(), {"mechanism"}));
    } else {
      error(c, "unexpected " + sexpr::describeNode(c) + " outside (mechanism ...)");
    }
  }
  std::map<std::string, std::string> pending = overrides;
  if (mech) {
    map_.mechanism.form = ref(*mech);
    size_t i = 1;
    // Optional name.
    if (i < mech->children.size() && (mech->children[i].isString() || mech->children[i].isSymbol())) {
      model_.name = mech->children[i].text;
      PropertySource ps;
      ps.form = ps.values.emplace_back(ref(mech->children[i]));
      map_.mechanism.name = ps.form;
      map_.mechanism.properties["name"] = ps;
      ++i;
    }
    // Parameters first (in order), so that every form may use them.
    for (size_t k = i; k < mech->children.size(); ++k)
      if (mech->children[k].isList() && mech->children[k].head() == "param") readParam(mech->children[k], pending);
  } else if (root.children.empty() || diags_.errorCount() == 0) {
    report(Severity::Error, 1, 1, "the file holds no (mechanism ...) form");
  }
  // Overrides that named no parameter.
  for (const auto& kv : pending) {
    std::vector<std::string> names;
    for (const auto& p : params_) names.push_back(p.first);
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    report(Severity::Error, 0, 0,
           "--set " + kv.first + "=" + kv.second + ": the model has no parameter '" + kv.first + "'" +
               suggestion(kv.first, names) + (list.empty() ? " (it has none)" : " (parameters: " + list + ")"));
  }
  if (!mech) return;
  // Every other form, in order.
  size_t i = 1;
  if (i < mech->children.size() && (mech->children[i].isString() || mech->children[i].isSymbol())) ++i;
  for (; i < mech->children.size() && !stopped_; ++i) item(mech->children[i], Ctx{});
  if (stopped_) return;
  resolveFixups();
  warnUnconnected();
  applyOrder();
  resolveKeyframes();
}

// ---- dispatch ----------------------------------------------------------------------------------

// One form inside (mechanism …), a body, or a repeat/chain.
void Reader::item(const Node& n, const Ctx& ctx) {
  if (stopped_) return;
  if (!n.isList()) {
    error(n, "expected a form such as (body ...), got " + sexpr::describeNode(n));
    return;
  }
  if (n.children.empty()) {
    error(n, "empty form ()");
    return;
  }
  const std::string& h = n.head();
  if (h.empty()) {
    error(n.children[0], "a form starts with its name, e.g. (body ...), got " + sexpr::describeNode(n.children[0]));
    return;
  }
  // Forms allowed in both places.
  if (h == "body") {
    readBody(n, ctx.body, ctx.generated);
    return;
  }
  if (h == "repeat") {
    readRepeat(n, ctx);
    return;
  }
  if (h == "chain") {
    readChain(n, ctx);
    return;
  }
  if (ctx.body < 0) {
    // Top-level forms.
    if (h == "param") {
      if (ctx.generated) error(n.children[0], "(param ...) must be written directly in (mechanism ...), not repeated");
    } else if (h == "gravity") {
      readGravity(n);
    } else if (h == "solver") {
      readSolver(n);
    } else if (h == "loop-joint") {
      readLoopJoint(n, ctx.generated);
    } else if (h == "spring") {
      readSpring(n, ctx.generated);
    } else if (h == "tendon") {
      readTendon(n, ctx.generated);
    } else if (h == "coupling") {
      readCoupling(n, ctx.generated);
    } else if (h == "actuator") {
      readActuator(n, ctx.generated);
    } else if (h == "pd-controller") {
      readController(n, ctx.generated);
    } else if (h == "wrench") {
      readWrench(n, ctx.generated);
    } else if (h == "ground") {
      readGround(n, ctx.generated);
    } else if (h == "contact-pair") {
      readContactPair(n, ctx.generated);
    } else if (h == "exclude") {
      readExclude(n, ctx.generated);
    } else if (h == "collisions") {
      if (ctx.generated) error(n.children[0], "(collisions ...) cannot be repeated");
      else readCollisions(n);
    } else if (h == "order") {
      if (ctx.generated) error(n.children[0], "(order ...) cannot be repeated");
      else readOrder(n);
    } else if (h == "keyframe") {
      if (ctx.generated) error(n.children[0], "(keyframe ...) cannot be repeated");
      else readKeyframe(n);
    } else if (contains(kBodyForms, h) || contains(kJointItems, h)) {
      error(n.children[0], "(" + h + " ...) belongs inside a (body ...)" +
                               std::string(contains(kJointItems, h) && !contains(kBodyForms, h) ? " (in its joint)" : ""));
    } else {
      error(n.children[0], "unknown form '" + h + "'" + suggestion(h, kTopForms));
    }
    return;
  }
  // Body-level forms.
  if (h == "joint") {
    readJoint(n, ctx.body, ctx.generated);
  } else if (h == "shape" || h == "visual" || h == "collision") {
    readShape(n, ctx.body, h == "shape" ? ShapeUse::Both : h == "visual" ? ShapeUse::Visual : ShapeUse::Collision,
              ctx.generated);
  } else if (contains(kBodyForms, h)) {
    bodyProperty(n, ctx.body);
  } else if (contains(kTopForms, h)) {
    error(n.children[0], "(" + h + " ...) belongs at the top level of (mechanism ...), not inside a body");
  } else if (contains(kJointItems, h)) {
    error(n.children[0], "(" + h + " ...) belongs inside the body's (joint ...)");
  } else {
    error(n.children[0], "unknown form '" + h + "'" + suggestion(h, kBodyForms));
  }
}

}  // namespace mechread

// ---- entry points ------------------------------------------------------------------------------

bool readMech(const sexpr::Document& doc, const std::map<std::string, std::string>& overrides, MechParseResult& out,
              Diagnostics& diags, long maxExpandedForms) {
  out = MechParseResult();
  Diagnostics mine;
  mechread::Reader reader(doc, mine, out, maxExpandedForms);
  reader.run(overrides);
  // Report in source order (problems without a line, from --set, first; the final note last).
  std::vector<Diagnostic> items = mine.items();
  std::stable_sort(items.begin(), items.end(), [](const Diagnostic& a, const Diagnostic& b) {
    const bool noteA = a.severity == Severity::Note, noteB = b.severity == Severity::Note;
    if (noteA != noteB) return noteB;
    return std::make_pair(a.line, a.column) < std::make_pair(b.line, b.column);
  });
  for (const Diagnostic& d : items) diags.add(d.severity, d.file, d.line, d.column, d.message);
  return !mine.hasErrors();
}

bool readMechText(const std::string& text, const std::string& fileName,
                  const std::map<std::string, std::string>& overrides, MechParseResult& out, Diagnostics& diags,
                  long maxExpandedForms) {
  const int before = diags.errorCount();
  const sexpr::Document doc = sexpr::Document::parse(text, fileName, diags);
  readMech(doc, overrides, out, diags, maxExpandedForms);
  return diags.errorCount() == before;
}

bool readMechFile(const std::string& path, const std::map<std::string, std::string>& overrides, MechParseResult& out,
                  Diagnostics& diags, long maxExpandedForms) {
  std::string text;
  if (!readWholeFile(path, text, diags)) {
    out = MechParseResult();
    return false;
  }
  return readMechText(text, path, overrides, out, diags, maxExpandedForms);
}

}  // namespace ms
