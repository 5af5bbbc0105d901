// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to the .mech reader (engine/io/mech_*.cc; not included outside engine/io): the Reader
// class that interprets a parsed document, its bookkeeping types, and the constants its stages share.
// The files, in the order a read runs through them:
//   mech_reader.cc          entry points and the driver: Reader::run (parameters, every form in order,
//                           final steps) and Reader::item (one form to its reader)
//   mech_eval.cc            parameters, arithmetic, `if`, names with {expr}, repeat/chain expansion
//   mech_build_settings.cc  (gravity …), (solver …)
//   mech_build_bodies.cc    (body …), its properties and shapes; shapeVolume/shapeInertia
//   mech_build_joints.cc    (joint …), (loop-joint …)
//   mech_build_forces.cc    (spring …), (actuator …), (pd-controller …), (wrench …)
//   mech_build_contacts.cc  (ground …), (contact-pair …), (collisions …), (exclude …)
//   mech_build_keyframes.cc (keyframe …), checked against the bodies once all are known
//   mech_resolve.cc         final steps: names resolved (fix-ups), unconnected bodies, (order …)
// Shared message helpers (counts, computed quantities, line:column) are in reader_diagnostics.h.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/suggest.h"
#include "io/collision_mesh.h"
#include "io/mech_reader.h"
#include "io/reader_diagnostics.h"

namespace ms::mechread {

using sexpr::Node;

// Diagnostics one read reports before it stops with a note.
constexpr int kMaxDiagnostics = 500;

// The items of a joint (read by Reader::jointItems; Reader::item also uses them to name a misplaced one).
inline const std::vector<std::string> kJointItems = {"parent-anchor", "child-anchor", "axis",      "offset", "offset-rotation",
                                                     "position",      "velocity",     "stiffness", "rest",   "damping",
                                                     "armature",      "lower",        "upper"};

// True if `v` holds `s`.
inline bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Formats a number for a message.
inline std::string num(double v) { return sexpr::formatNumber(v); }

// Which list a shape form adds to.
enum class ShapeUse { Both, Visual, Collision };

// Per-body bookkeeping while reading (parallel to model.bodies).
struct BodyExtra {
  int enclosing = -1;  // body it is written in, -1 = top level
  bool hasMass = false, hasDensity = false, hasInertia = false, hasJoint = false;
  bool intent = false;  // gave an initial pose or velocity (meant to move freely)
  bool badMass = false;  // a mass or density was given but rejected (already reported)
  bool badShape = false;  // a shape was rejected (already reported): no second error for a missing basis
  bool hasColor = false;
  Vec4 color = Vec4(0.7, 0.7, 0.75, 1.0);
  double density = 0;
  SourceRef densityRef, nameRef, jointRef;
  std::vector<bool> visualColored, collisionColored;
  std::vector<SourceRef> visualForms, collisionForms;
  std::map<std::string, SourceRef> seen;  // properties given, for duplicate detection
};

// A name reference resolved once every body and joint is known.
struct Fixup {
  enum class Slot { LoopParent, LoopChild, SpringA, SpringB, ControllerJoint, ActuatorJoint, WrenchBody, PairA, PairB, ExcludeA, ExcludeB, TendonJoint, CouplingJoint, CouplingReference } slot;
  int index = 0;  // into joints, springs, controllers, actuators or wrenches
  std::string name;
  SourceRef where;
  size_t count = 0;  // actuator: number of effort values; tendon: the term; coupling: the coordinate
};

// A lookup table of names to indices with the place each was defined.
struct NameTable {
  std::map<std::string, std::pair<int, SourceRef>> byName;
  std::vector<std::string> names() const {
    std::vector<std::string> v;
    for (const auto& kv : byName) v.push_back(kv.first);
    return v;
  }
  int find(const std::string& n) const {
    auto it = byName.find(n);
    return it == byName.end() ? -1 : it->second.first;
  }
};

class Reader {
 public:
  Reader(const sexpr::Document& doc, Diagnostics& diags, MechParseResult& out, long maxNodes)
      : doc_(doc), diags_(diags), out_(out), model_(out.model), map_(out.map),
        maxNodes_(std::max(0L, std::min(maxNodes, kMaxExpandedNodes))) {}

  void run(const std::map<std::string, std::string>& overrides);

 private:
  // ---- diagnostics and locations -------------------------------------------------------------

  // The span of a node (mapped through the interpolation sub-document when inside one).
  SourceRef ref(const Node& n) const {
    SourceRef r;
    if (mode_ == Mode::Override) return r;
    if (mode_ == Mode::Sub) {
      r.begin = subBase_ + n.begin;
      r.end = subBase_ + n.end;
      doc_.position(r.begin, r.line, r.column);
    } else {
      r.begin = n.begin;
      r.end = n.end;
      r.line = n.line;
      r.column = n.column;
    }
    r.literal = n.isNumber();
    return r;
  }
  // Span covering the nodes [first, last].
  SourceRef spanRef(const Node& first, const Node& last) const {
    SourceRef r = ref(first);
    r.end = ref(last).end;
    r.literal = false;
    return r;
  }
  // Reports once per (line, column, message); stops reading after kMaxDiagnostics.
  void report(Severity s, int line, int column, const std::string& msg) {
    if (tooMany_) return;
    const std::string text = mode_ == Mode::Override ? overridePrefix_ + msg : msg;
    if (!reported_.insert(std::make_tuple(line, column, text)).second) return;
    if (int(reported_.size()) > kMaxDiagnostics) {
      diags_.add(Severity::Note, doc_.fileName(), 0, 0,
                 "too many problems (" + std::to_string(kMaxDiagnostics) + "); reading stopped");
      tooMany_ = stopped_ = true;
      return;
    }
    diags_.add(s, doc_.fileName(), line, column, text);
  }
  void error(const SourceRef& r, const std::string& msg) { report(Severity::Error, r.line, r.column, msg); }
  void error(const Node& n, const std::string& msg) { error(ref(n), msg); }
  void warning(const SourceRef& r, const std::string& msg) { report(Severity::Warning, r.line, r.column, msg); }
  void note(const SourceRef& r, const std::string& msg) { report(Severity::Note, r.line, r.column, msg); }
  // Error at a byte offset of the main document.
  void errorAtOffset(size_t offset, const std::string& msg) {
    int line = 0, column = 0;
    if (mode_ != Mode::Override) doc_.position(offset, line, column);
    report(Severity::Error, line, column, msg);
  }
  // "L:C" of a span, for "first defined at" notes.
  static std::string at(const SourceRef& r) { return lineColumn(r.line, r.column); }

  // ---- expressions -----------------------------------------------------------------------------

  bool eval(const Node& n, double& v, int depth = 0);
  bool evalCondition(const Node& n, bool& result, int depth);
  bool lookup(const Node& n, double& v);
  bool evalInteger(const Node& n, long& v, const std::string& what);
  // Evaluates children [first, end) of `n` as numbers; the count must be within [lo, hi].
  bool numbers(const Node& n, size_t first, size_t lo, size_t hi, std::vector<double>& v, PropertySource* src);
  bool vec3(const Node& n, Vec3& v, PropertySource* src);

  // ---- names -----------------------------------------------------------------------------------

  bool readName(const Node& list, size_t& i, std::string& name, SourceRef& where, const std::string& what);
  bool interpolate(const std::string& raw, size_t base, std::string& out);
  bool validSymbolName(const Node& n, const std::string& what);
  bool isBound(const std::string& name) const;

  // ---- forms -----------------------------------------------------------------------------------

  struct Ctx {
    int body = -1;           // enclosing body, -1 = top level of (mechanism …)
    bool generated = false;  // inside repeat/chain
  };
  void item(const Node& n, const Ctx& ctx);
  void readParam(const Node& n, std::map<std::string, std::string>& pending);
  void readGravity(const Node& n);
  void readSolver(const Node& n);
  int readBody(const Node& n, int enclosing, bool generated);
  void bodyProperty(const Node& n, int body);
  void finishBody(int body);
  void readShape(const Node& n, int body, ShapeUse use, bool generated);
  void readJoint(const Node& n, int body, bool generated);
  void jointItems(const Node& n, size_t i, JointDesc& j, ElementSource& src, bool typeKnown);
  void readLoopJoint(const Node& n, bool generated);
  void readSpring(const Node& n, bool generated);
  void readTendon(const Node& n, bool generated);
  void readCoupling(const Node& n, bool generated);
  void readActuator(const Node& n, bool generated);
  void readController(const Node& n, bool generated);
  void readWrench(const Node& n, bool generated);
  void readGround(const Node& n, bool generated);
  void readContactPair(const Node& n, bool generated);
  void readCollisions(const Node& n);
  void readExclude(const Node& n, bool generated);
  void readOrder(const Node& n);
  void readKeyframe(const Node& n);
  struct OrderList;
  void orderNames(const Node& list, size_t first, OrderList& out);
  bool readRange(const Node& n, std::string& var, long& from, long& to);
  void readRepeat(const Node& n, const Ctx& ctx);
  void readChain(const Node& n, const Ctx& ctx);
  // Registers a name in a table, reporting a duplicate.
  void define(NameTable& t, const std::string& kind, const std::string& name, int index, const SourceRef& where);
  // True (after reporting) if the property `key` was already given in `seen`.
  bool duplicate(std::map<std::string, SourceRef>& seen, const std::string& key, const Node& n, const std::string& owner);
  // Charges one instantiation of the nodes [first, end) of `n` (a repeat/chain template) to the
  // expansion budget; false (reported once, reading stops) when the budget is spent.
  bool charge(const Node& n, size_t first);
  // Number of nodes in a subtree (iterative).
  static long treeSize(const Node& n);

  // ---- final steps -----------------------------------------------------------------------------

  void resolveFixups();
  void warnUnconnected();
  void applyOrder();
  void resolveKeyframes();

  const sexpr::Document& doc_;
  Diagnostics& diags_;
  MechParseResult& out_;
  Model& model_;
  SourceMap& map_;
  const long maxNodes_;
  MeshFileCache meshFiles_;  // collision mesh files read so far (a repeat reads each once)

  enum class Mode { Main, Sub, Override };
  Mode mode_ = Mode::Main;
  size_t subBase_ = 0;
  std::string overridePrefix_;

  std::map<std::string, double> params_;
  std::set<std::string> badParams_;  // declared, but their value failed (no cascade of errors)
  std::vector<std::pair<std::string, double>> vars_;  // repeat/chain variables, innermost last
  std::set<std::tuple<int, int, std::string>> reported_;
  bool tooMany_ = false, stopped_ = false;
  long expanded_ = 0, evaluations_ = 0;
  const Node* expansionRoot_ = nullptr;  // range of the outermost repeat/chain being expanded

  std::vector<BodyExtra> extra_;
  NameTable bodies_, joints_, springs_, controllers_, grounds_, pairs_, keyframes_, tendons_, couplings_;
  std::vector<Fixup> fixups_;
  std::vector<std::string> loopBodyRefs_;  // names referenced by loop joints (connectivity)
  bool hasGravity_ = false, hasSolver_ = false, hasCollisions_ = false;
  SourceRef gravityRef_, solverRef_, collisionsRef_;
  const Node* orderNode_ = nullptr;
  struct OrderList {
    bool present = false;
    SourceRef form;
    std::vector<std::pair<std::string, SourceRef>> names;
  } bodyOrder_, jointOrder_;
};

}  // namespace ms::mechread
