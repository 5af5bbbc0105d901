// SPDX-License-Identifier: GPL-3.0-or-later
// Reader of the MechStudio model language (see mech_reader.h and docs/model-language.md).
//
// The document is interpreted directly (no expanded copy of the tree is built): repeat and chain
// bind their variable and interpret their template once per value, so source spans of generated
// elements point into the template. References to bodies and joints by name (loop joints, springs,
// controllers, actuators, wrenches, order) are collected as fix-ups and resolved at the end, so
// forms may refer to bodies written later in the file.
#include "io/mech_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include <Eigen/Eigenvalues>

#include "contact/convex_hull.h"
#include "core/quaternion.h"
#include "core/suggest.h"
#include "io/collision_mesh.h"

namespace ms {

namespace {

using sexpr::Kind;
using sexpr::Node;
namespace fs = std::filesystem;

// Diagnostics one read reports before it stops with a note.
constexpr int kMaxDiagnostics = 500;
// A keyframe's orientation may differ from a unit quaternion by this much in norm (then normalised).
constexpr double kKeyframeUnitTolerance = 1e-6;
// A collision mesh whose hull centroid lies farther than this fraction of the hull's size (half the
// diagonal of its bounding box) off the body origin gets a warning when the inertia is derived from it.
constexpr double kMeshCentroidTolerance = 1e-3;
// Largest magnitude accepted for integers (repeat bounds, coordinates, iteration counts).
constexpr double kMaxInteger = 1e9;

// Forms allowed directly in (mechanism …) and in (body …), and the items of joints.
const std::vector<std::string> kTopForms = {"param",  "gravity",       "solver", "body",  "loop-joint", "spring",
                                            "actuator", "pd-controller", "wrench", "repeat", "chain",      "order",
                                            "ground", "contact-pair", "keyframe", "collisions", "exclude"};
const std::vector<std::string> kBodyForms = {"mass",     "density", "inertia",  "position",  "orientation", "rotation",
                                             "velocity", "angular-velocity", "shape", "visual", "collision", "color",
                                             "friction", "contype", "conaffinity", "joint", "body", "repeat", "chain"};
const std::vector<std::string> kJointItems = {"parent-anchor", "child-anchor", "axis",      "offset", "offset-rotation",
                                              "position",      "velocity",     "stiffness", "rest",   "damping",
                                              "lower",         "upper"};
const std::vector<std::string> kPlacements = {"at", "rotation", "orientation", "color", "scale"};
const std::vector<std::string> kFunctions = {"+", "-", "*", "/", "deg", "sqrt", "sin", "cos", "min", "max", "if"};
const std::vector<std::string> kComparisons = {"=", "<", ">", "<=", ">="};
const std::vector<std::string> kShapeKinds = {"box", "sphere", "capsule", "cylinder", "plane", "mesh"};

// True if `v` holds `s`.
bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// "3 numbers", "3 or 4 numbers", "1 to 6 numbers", "at least 1 number".
std::string countText(size_t lo, size_t hi) {
  auto noun = [](size_t n) { return n == 1 ? std::string(" number") : std::string(" numbers"); };
  if (lo == hi) return std::to_string(lo) + noun(lo);
  if (hi == size_t(-1)) return "at least " + std::to_string(lo) + noun(lo);
  if (hi == lo + 1) return std::to_string(lo) + " or " + std::to_string(hi) + " numbers";
  return std::to_string(lo) + " to " + std::to_string(hi) + " numbers";
}


// Formats a number for a message.
std::string num(double v) { return sexpr::formatNumber(v); }

// A computed quantity for a message, to 6 significant digits (locale-independent).
std::string approx(double v) {
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
  return std::string(buf, r.ptr);
}

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
  enum class Slot { LoopParent, LoopChild, SpringA, SpringB, ControllerJoint, ActuatorJoint, WrenchBody, PairA, PairB, ExcludeA, ExcludeB } slot;
  int index = 0;  // into joints, springs, controllers, actuators or wrenches
  std::string name;
  SourceRef where;
  size_t count = 0;  // actuator: number of effort values
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
  // Error at a byte offset of the main document.
  void errorAtOffset(size_t offset, const std::string& msg) {
    int line = 0, column = 0;
    if (mode_ != Mode::Override) doc_.position(offset, line, column);
    report(Severity::Error, line, column, msg);
  }
  // "L:C" of a span, for "first defined at" notes.
  static std::string at(const SourceRef& r) { return std::to_string(r.line) + ":" + std::to_string(r.column); }

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
  NameTable bodies_, joints_, springs_, controllers_, grounds_, pairs_, keyframes_;
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

// ---- expressions -------------------------------------------------------------------------------

// Value of a parameter, a repeat/chain variable or pi.
bool Reader::lookup(const Node& n, double& v) {
  for (auto it = vars_.rbegin(); it != vars_.rend(); ++it)
    if (it->first == n.text) {
      v = it->second;
      return true;
    }
  auto p = params_.find(n.text);
  if (p != params_.end()) {
    v = p->second;
    return true;
  }
  if (n.text == "pi") {
    v = kPi;
    return true;
  }
  if (badParams_.count(n.text)) return false;  // already reported at the parameter
  std::vector<std::string> known = {"pi"};
  for (const auto& kv : params_) known.push_back(kv.first);
  for (const auto& kv : vars_) known.push_back(kv.first);
  error(n, "undefined name '" + n.text + "'" + suggestion(n.text, known));
  return false;
}

// Evaluates a numeric expression (docs/model-language.md, NUM); reports and returns false on error.
bool Reader::eval(const Node& n, double& v, int depth) {
  if (stopped_) return false;
  if (++evaluations_ > kMaxEvaluations) {
    error(n, "the model needs more than " + std::to_string(kMaxEvaluations) +
                 " arithmetic steps; reading stopped (is a repeat range too large?)");
    stopped_ = true;
    return false;
  }
  if (depth > kMaxExpressionDepth) {
    error(n, "expression nested more than " + std::to_string(kMaxExpressionDepth) + " levels deep");
    return false;
  }
  // Atoms: numbers, names, strings.
  if (n.isNumber()) {
    v = n.number;
    return true;
  }
  if (n.isSymbol()) return lookup(n, v);
  if (n.isString()) {
    error(n, "expected a number, got " + sexpr::describeNode(n));
    return false;
  }
  // Lists: (function arguments…).
  if (n.children.empty()) {
    error(n, "expected a number, got ()");
    return false;
  }
  const Node& h = n.children[0];
  if (!h.isSymbol()) {
    error(h, "expected a function name (+ - * / deg sqrt sin cos min max if), got " + sexpr::describeNode(h));
    return false;
  }
  const std::string& f = h.text;
  if (!contains(kFunctions, f)) {
    std::string more;
    if (contains(kComparisons, f)) more = " (comparisons are only allowed as the condition of (if ...))";
    error(h, "unknown function '" + f + "'" + (more.empty() ? suggestion(f, kFunctions) : more));
    return false;
  }
  const size_t argc = n.children.size() - 1;
  // Arity of each function.
  size_t lo = 1, hi = 1;
  if (f == "+" || f == "*") hi = size_t(-1);
  else if (f == "-") hi = 2;
  else if (f == "/" || f == "min" || f == "max") lo = hi = 2;
  else if (f == "if") lo = hi = 3;
  if (argc < lo || argc > hi) {
    std::string what = countText(lo, hi);
    if (f == "if") what = "a condition and 2 numbers";
    error(n, "(" + f + " ...) takes " + what + " (got " + std::to_string(argc) + ")");
    return false;
  }
  // Conditionals evaluate only the branch taken.
  if (f == "if") {
    bool c = false;
    if (!evalCondition(n.children[1], c, depth + 1)) return false;
    return eval(n.children[c ? 2 : 3], v, depth + 1);
  }
  // Everything else evaluates all its arguments first.
  std::vector<double> a(argc);
  bool ok = true;
  for (size_t k = 0; k < argc; ++k) ok = eval(n.children[k + 1], a[k], depth + 1) && ok;
  if (!ok) return false;
  if (f == "+") {
    v = a[0];
    for (size_t k = 1; k < argc; ++k) v += a[k];
  } else if (f == "*") {
    v = a[0];
    for (size_t k = 1; k < argc; ++k) v *= a[k];
  } else if (f == "-") {
    v = argc == 1 ? -a[0] : a[0] - a[1];
  } else if (f == "/") {
    if (a[1] == 0) {
      error(n.children[2], "division by zero");
      return false;
    }
    v = a[0] / a[1];
  } else if (f == "deg") {
    v = a[0] * kPi / 180.0;
  } else if (f == "sqrt") {
    if (a[0] < 0) {
      error(n.children[1], "square root of a negative number (" + num(a[0]) + ")");
      return false;
    }
    v = std::sqrt(a[0]);
  } else if (f == "sin") {
    v = std::sin(a[0]);
  } else if (f == "cos") {
    v = std::cos(a[0]);
  } else if (f == "min") {
    v = std::min(a[0], a[1]);
  } else {
    v = std::max(a[0], a[1]);
  }
  if (!std::isfinite(v)) {
    error(n, "the result of (" + f + " ...) is not a finite number");
    return false;
  }
  return true;
}

// Evaluates (= a b), (< a b), (> a b), (<= a b) or (>= a b).
bool Reader::evalCondition(const Node& n, bool& result, int depth) {
  if (!n.isList() || !contains(kComparisons, n.head())) {
    error(n, "expected a condition (= a b), (< a b), (> a b), (<= a b) or (>= a b), got " + sexpr::describeNode(n));
    return false;
  }
  if (n.children.size() != 3) {
    error(n, "(" + n.head() + " ...) takes 2 numbers (got " + std::to_string(n.children.size() - 1) + ")");
    return false;
  }
  double a = 0, b = 0;
  const bool okA = eval(n.children[1], a, depth + 1);
  const bool okB = eval(n.children[2], b, depth + 1);
  if (!okA || !okB) return false;
  const std::string& op = n.head();
  result = op == "=" ? a == b : op == "<" ? a < b : op == ">" ? a > b : op == "<=" ? a <= b : a >= b;
  return true;
}

// Evaluates an integer-valued expression (|v| ≤ 1e9).
bool Reader::evalInteger(const Node& n, long& v, const std::string& what) {
  double d = 0;
  if (!eval(n, d)) return false;
  if (d != std::floor(d) || std::abs(d) > kMaxInteger) {
    error(n, what + " must be a whole number (got " + num(d) + ")");
    return false;
  }
  v = long(d);
  return true;
}

// Children [first, end) of a property form as numbers, lo ≤ count ≤ hi.
bool Reader::numbers(const Node& n, size_t first, size_t lo, size_t hi, std::vector<double>& v, PropertySource* src) {
  const size_t count = n.children.size() > first ? n.children.size() - first : 0;
  v.assign(count, 0.0);
  bool ok = true;
  if (src) {
    src->form = ref(n);
    src->values.clear();
  }
  for (size_t k = 0; k < count; ++k) {
    ok = eval(n.children[first + k], v[k]) && ok;
    if (src) src->values.push_back(ref(n.children[first + k]));
  }
  if (count < lo || count > hi) {
    const SourceRef where = count > hi ? ref(n.children[first + hi]) : ref(n);
    error(where, "(" + n.head() + " ...) takes " + countText(lo, hi) + " (got " + std::to_string(count) + ")");
    return false;
  }
  return ok;
}

// A property with exactly three numbers.
bool Reader::vec3(const Node& n, Vec3& v, PropertySource* src) {
  std::vector<double> a;
  if (!numbers(n, 1, 3, 3, a, src)) return false;
  v = Vec3(a[0], a[1], a[2]);
  return true;
}

// ---- names -------------------------------------------------------------------------------------

// True if `name` is a parameter, a variable in scope or pi.
bool Reader::isBound(const std::string& name) const {
  if (name == "pi" || params_.count(name) || badParams_.count(name)) return true;
  for (const auto& kv : vars_)
    if (kv.first == name) return true;
  return false;
}

// A parameter or variable name: a plain symbol without braces.
bool Reader::validSymbolName(const Node& n, const std::string& what) {
  if (!n.isSymbol()) {
    error(n, what + " must be a plain name, got " + sexpr::describeNode(n));
    return false;
  }
  if (n.text.find_first_of("{}") != std::string::npos) {
    error(n, what + " '" + n.text + "' must not contain '{' or '}'");
    return false;
  }
  if (contains(kFunctions, n.text) || contains(kComparisons, n.text)) {
    error(n, what + " '" + n.text + "' is the name of a function");
    return false;
  }
  return true;
}

// Replaces each {expr} in `raw` (which starts at byte `base` of the document) by its integer value.
bool Reader::interpolate(const std::string& raw, size_t base, std::string& out) {
  out.clear();
  size_t k = 0;
  while (k < raw.size()) {
    const char c = raw[k];
    if (c == '}') {
      errorAtOffset(base + k, "unmatched '}' in the name '" + raw + "'");
      return false;
    }
    if (c != '{') {
      out += c;
      ++k;
      continue;
    }
    const size_t close = raw.find_first_of("{}", k + 1);
    if (close == std::string::npos || raw[close] == '{') {
      errorAtOffset(base + k, "unmatched '{' in the name '" + raw + "'");
      return false;
    }
    const std::string inner = raw.substr(k + 1, close - k - 1);
    Diagnostics scratch;
    const sexpr::Document sub = sexpr::Document::parse(inner, doc_.fileName(), scratch);
    if (scratch.hasErrors() || sub.root().children.size() != 1) {
      errorAtOffset(base + k, "'{" + inner + "}' in a name must hold one expression, e.g. {i} or {(+ i 1)}");
      return false;
    }
    // Evaluate the expression with locations mapped back into the main document.
    double v = 0;
    const Mode savedMode = mode_;
    const size_t savedBase = subBase_;
    if (mode_ == Mode::Main) {
      mode_ = Mode::Sub;
      subBase_ = base + k + 1;
    }
    const bool ok = eval(sub.root().children[0], v);
    mode_ = savedMode;
    subBase_ = savedBase;
    if (!ok) return false;
    if (v != std::floor(v) || std::abs(v) > 1e15) {
      errorAtOffset(base + k, "'{" + inner + "}' in a name must be a whole number (got " + num(v) + ")");
      return false;
    }
    out += std::to_string(static_cast<long long>(v));
    k = close + 1;
  }
  return true;
}

// Reads the NAME at list.children[i]: a string (taken literally) or a symbol, in which {expr} parts
// are replaced by their values; a {(…)} part makes the name span several adjacent tokens.
bool Reader::readName(const Node& list, size_t& i, std::string& name, SourceRef& where, const std::string& what) {
  const std::vector<Node>& ch = list.children;
  if (i >= ch.size()) {
    error(list, "(" + list.head() + " ...) needs " + what);
    return false;
  }
  const Node& first = ch[i];
  if (first.isString()) {
    where = ref(first);
    where.literal = false;
    name = first.text;
    ++i;
    if (name.empty()) {
      error(first, what + " must not be empty");
      return false;
    }
    return true;
  }
  if (!first.isSymbol()) {
    error(first, "expected " + what + ", got " + sexpr::describeNode(first));
    ++i;
    return false;
  }
  // Gather adjacent tokens while a '{' is open.
  std::string raw = first.text;
  size_t last = i;
  auto openBraces = [](const std::string& s) {
    int depth = 0;
    for (char c : s) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
    return depth;
  };
  if (mode_ == Mode::Main) {
    while (openBraces(raw) > 0 && last + 1 < ch.size() && ch[last + 1].begin == ch[last].end) {
      ++last;
      raw = doc_.text().substr(first.begin, ch[last].end - first.begin);
    }
  }
  where = spanRef(first, ch[last]);
  i = last + 1;
  if (raw.find_first_of("{}") == std::string::npos) {
    name = raw;
    return true;
  }
  return interpolate(raw, first.begin, name);
}

// Records `name` in a table; a second definition is reported.
void Reader::define(NameTable& t, const std::string& kind, const std::string& name, int index, const SourceRef& where) {
  if (name.empty()) return;
  auto it = t.byName.find(name);
  if (it != t.byName.end()) {
    error(where, "duplicate " + kind + " name '" + name + "' (first defined at " + at(it->second.second) + ")");
    return;
  }
  t.byName.emplace(name, std::make_pair(index, where));
}

// Duplicate property check within one element.
bool Reader::duplicate(std::map<std::string, SourceRef>& seen, const std::string& key, const Node& n,
                       const std::string& owner) {
  auto it = seen.find(key);
  if (it != seen.end()) {
    error(n.children.empty() ? n : n.children[0],
          "duplicate (" + n.head() + " ...) in " + owner + " (already set at " + at(it->second) + ")");
    return true;
  }
  seen.emplace(key, ref(n));
  return false;
}

// Expansion budget: every copy made by repeat/chain costs the size of its template.
bool Reader::charge(const Node& n, size_t first) {
  if (stopped_) return false;
  long size = 0;
  for (size_t k = first; k < n.children.size(); ++k) size += treeSize(n.children[k]);
  expanded_ += std::max(1L, size);
  if (expanded_ > maxNodes_) {
    error(expansionRoot_ ? *expansionRoot_ : n, "repeat/chain expand the file to more than " + std::to_string(maxNodes_) +
                                                  " elements (tokens and lists); reading stopped");
    stopped_ = true;
    return false;
  }
  return true;
}

long Reader::treeSize(const Node& n) {
  long count = 0;
  std::vector<const Node*> stack = {&n};
  while (!stack.empty()) {
    const Node* c = stack.back();
    stack.pop_back();
    ++count;
    for (const Node& child : c->children) stack.push_back(&child);
  }
  return count;
}

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

// (param NAME NUM), possibly overridden by --set NAME=VALUE.
void Reader::readParam(const Node& n, std::map<std::string, std::string>& pending) {
  if (n.children.size() != 3) {
    error(n, "(param ...) takes a name and a value, e.g. (param n 10) (got " + std::to_string(n.children.size() - 1) +
                 " arguments)");
    if (n.children.size() >= 2 && n.children[1].isSymbol() && !params_.count(n.children[1].text) &&
        badParams_.insert(n.children[1].text).second)
      map_.params[n.children[1].text].form = ref(n);
    return;
  }
  const Node& nameNode = n.children[1];
  if (!validSymbolName(nameNode, "a parameter name")) return;
  const std::string& name = nameNode.text;
  if (name == "pi") {
    error(nameNode, "'pi' is predefined and cannot be a parameter");
    return;
  }
  if (params_.count(name) || badParams_.count(name)) {
    error(nameNode, "duplicate parameter '" + name + "' (first defined at " + at(map_.params[name].form) + ")");
    return;
  }
  PropertySource& src = map_.params[name];
  src.form = ref(n);
  src.values = {ref(n.children[2])};
  double v = 0;
  bool ok = eval(n.children[2], v);
  // A --set override replaces the written value.
  auto ov = pending.find(name);
  if (ov != pending.end()) {
    const std::string text = ov->second;
    pending.erase(ov);
    Diagnostics scratch;
    const sexpr::Document sub = sexpr::Document::parse(text, "--set", scratch);
    const Mode saved = mode_;
    mode_ = Mode::Override;
    overridePrefix_ = "--set " + name + "=" + text + ": ";
    if (scratch.hasErrors() || sub.root().children.size() != 1) {
      report(Severity::Error, 0, 0, "expected a number or one expression");
      ok = false;
    } else {
      ok = eval(sub.root().children[0], v);
    }
    mode_ = saved;
  }
  if (ok) params_[name] = v;
  else badParams_.insert(name);
  out_.params[name] = v;
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

// (gravity x y z)
void Reader::readGravity(const Node& n) {
  if (hasGravity_) {
    error(n.children[0], "duplicate (gravity ...) (already set at " + at(gravityRef_) + ")");
    return;
  }
  hasGravity_ = true;
  gravityRef_ = ref(n);
  PropertySource src;
  Vec3 g;
  if (vec3(n, g, &src)) model_.gravity = g;
  map_.mechanism.properties["gravity"] = src;
}

// (solver (dt …) (tolerance …) (complementarity-tolerance …) (max-iterations …) (line-search …)
//         (friction-directions …))
void Reader::readSolver(const Node& n) {
  if (hasSolver_) {
    error(n.children[0], "duplicate (solver ...) (already set at " + at(solverRef_) + ")");
    return;
  }
  hasSolver_ = true;
  solverRef_ = ref(n);
  std::map<std::string, SourceRef> seen;
  for (size_t i = 1; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head().empty()) {
      error(c, "expected a solver setting (dt ...), (tolerance ...), (complementarity-tolerance ...), "
               "(max-iterations ...), (line-search ...) or (friction-directions ...), got " + sexpr::describeNode(c));
      continue;
    }
    const std::string& h = c.head();
    static const std::vector<std::string> settings = {"dt", "tolerance", "complementarity-tolerance",
                                                             "max-iterations", "line-search", "friction-directions"};
    if (!contains(settings, h)) {
      error(c.children[0], "unknown solver setting '" + h + "'" + suggestion(h, settings));
      continue;
    }
    if (duplicate(seen, h, c, "(solver ...)")) continue;
    PropertySource src;
    std::vector<double> v;
    const bool ok = numbers(c, 1, 1, 1, v, &src);
    map_.mechanism.properties[h] = src;
    if (!ok) continue;
    const Node& val = c.children[1];
    if (h == "dt" || h == "tolerance" || h == "complementarity-tolerance") {
      if (!(v[0] > 0)) {
        error(val, std::string(h == "dt" ? "the time step" : "the " + h) + " must be positive (got " + num(v[0]) + ")");
        continue;
      }
      (h == "dt" ? model_.solver.dt : h == "tolerance" ? model_.solver.tolerance : model_.solver.complementarityTolerance) = v[0];
    } else if (h == "friction-directions") {
      if (v[0] != std::floor(v[0]) || v[0] < 4 || v[0] > kMaxSolverFrictionDirections || int(v[0]) % 2 != 0) {
        error(val, "(friction-directions ...) must be an even whole number from 4 to " +
                       std::to_string(kMaxSolverFrictionDirections) + " (got " + num(v[0]) + ")");
        continue;
      }
      model_.solver.frictionDirections = int(v[0]);
    } else {
      const long lo = h == "max-iterations" ? 1 : 0;
      if (v[0] != std::floor(v[0]) || v[0] < lo || v[0] > 1e6) {
        error(val, "(" + h + " ...) must be a whole number from " + std::to_string(lo) + " to 1000000 (got " + num(v[0]) + ")");
        continue;
      }
      (h == "max-iterations" ? model_.solver.maxIterations : model_.solver.maxLineSearch) = int(v[0]);
    }
  }
}

// ---- bodies ------------------------------------------------------------------------------------

// (body NAME body-item*) in `enclosing` (-1: top level). Returns the new body's index.
int Reader::readBody(const Node& n, int enclosing, bool generated) {
  size_t i = 1;
  std::string name;
  SourceRef nameRef;
  readName(n, i, name, nameRef, "a name");
  const int idx = int(model_.bodies.size());
  model_.bodies.emplace_back();
  model_.bodies.back().name = name;
  map_.bodies.emplace_back();
  map_.bodies.back().form = ref(n);
  map_.bodies.back().name = nameRef;
  map_.bodies.back().generated = generated;
  extra_.emplace_back();
  extra_.back().enclosing = enclosing;
  extra_.back().nameRef = nameRef.valid() ? nameRef : ref(n);
  // Name checks.
  if (name == "world") error(nameRef, "'world' is the fixed ground and cannot name a body");
  else define(bodies_, "body", name, idx, nameRef);
  // Items (nested bodies append after this one).
  for (; i < n.children.size() && !stopped_; ++i) item(n.children[i], Ctx{idx, generated});
  if (!stopped_) finishBody(idx);
  return idx;
}

// Mass, inertia, pose, velocity, colour, friction of a body.
void Reader::bodyProperty(const Node& n, int body) {
  BodyExtra& ex = extra_[body];
  const std::string& h = n.head();
  const std::string owner = "body '" + model_.bodies[body].name + "'";
  // rotation and orientation both set the orientation.
  const std::string key = h == "rotation" ? "orientation" : h;
  if (duplicate(ex.seen, key, n, owner)) return;
  PropertySource src;
  std::vector<double> v;
  BodyDesc& b = model_.bodies[body];
  if (h == "mass" || h == "density" || h == "friction") {
    const bool ok = numbers(n, 1, 1, 1, v, &src);
    map_.bodies[body].properties[h] = src;
    if (h == "mass") ex.hasMass = true;
    if (h == "density") {
      ex.hasDensity = true;
      ex.densityRef = ref(n);
    }
    if (!ok) return;
    if (h == "friction") {
      if (!(v[0] >= 0)) error(n.children[1], "friction must not be negative (got " + num(v[0]) + ")");
      else b.friction = v[0];
    } else if (!(v[0] > 0)) {
      error(n.children[1], h + " must be positive (got " + num(v[0]) + ")");
      ex.badMass = true;
      (h == "mass" ? ex.hasMass : ex.hasDensity) = false;
    } else if (h == "mass") {
      b.mass = v[0];
    } else {
      ex.density = v[0];
    }
    return;
  }
  if (h == "contype" || h == "conaffinity") {
    const bool ok = numbers(n, 1, 1, 1, v, &src);
    map_.bodies[body].properties[h] = src;
    if (!ok) return;
    if (!(v[0] >= 0 && v[0] <= 4294967295.0 && v[0] == std::floor(v[0]))) {
      error(n.children[1], h + " must be a whole number from 0 to 4294967295 (a bit mask; got " + num(v[0]) + ")");
      return;
    }
    (h == "contype" ? b.contype : b.conaffinity) = std::uint32_t(v[0]);
    return;
  }
  if (h == "inertia") {
    ex.hasInertia = true;
    const bool ok = numbers(n, 1, 3, 6, v, &src);
    map_.bodies[body].properties[h] = src;
    if (!ok) return;
    if (v.size() != 3 && v.size() != 6) {
      error(n, "(inertia ...) takes 3 numbers (principal moments) or 6 (ixx iyy izz ixy ixz iyz) (got " +
                   std::to_string(v.size()) + ")");
      return;
    }
    Mat3 I = Vec3(v[0], v[1], v[2]).asDiagonal();
    if (v.size() == 6) {
      I(0, 1) = I(1, 0) = v[3];
      I(0, 2) = I(2, 0) = v[4];
      I(1, 2) = I(2, 1) = v[5];
    }
    // Positive definite, and the triangle inequality of the principal moments.
    Eigen::SelfAdjointEigenSolver<Mat3> es(I, Eigen::EigenvaluesOnly);
    const Vec3 ev = es.eigenvalues();
    const std::string moments = approx(ev(0)) + ", " + approx(ev(1)) + ", " + approx(ev(2));
    if (!(ev.minCoeff() > 0)) {
      error(n, "the inertia is not positive definite (principal moments " + moments + ")");
      return;
    }
    if (ev(0) + ev(1) < ev(2) * (1 - 1e-9)) {
      error(n, "the principal moments of inertia " + moments +
                   " violate the triangle inequality (none may exceed the sum of the other two)");
      return;
    }
    b.inertia = I;
    return;
  }
  if (h == "color") {
    const bool ok = numbers(n, 1, 3, 4, v, &src);
    map_.bodies[body].properties[h] = src;
    if (!ok) return;
    for (size_t k = 0; k < v.size(); ++k)
      if (!(v[k] >= 0 && v[k] <= 1)) {
        error(n.children[k + 1], "colour components must be between 0 and 1 (got " + num(v[k]) + ")");
        return;
      }
    ex.hasColor = true;
    ex.color = Vec4(v[0], v[1], v[2], v.size() == 4 ? v[3] : 1.0);
    return;
  }
  if (h == "orientation") {
    ex.intent = true;
    const bool ok = numbers(n, 1, 4, 4, v, &src);
    map_.bodies[body].properties[h] = src;
    if (!ok) return;
    const Vec4 q(v[0], v[1], v[2], v[3]);
    if (!(q.norm() > 1e-9)) error(n, "the orientation quaternion (w x y z) must not be zero");
    else b.orientation = q;
    return;
  }
  // Three-vector properties: position, rotation, velocity, angular-velocity.
  ex.intent = true;
  Vec3 x;
  const bool ok = vec3(n, x, &src);
  map_.bodies[body].properties[h] = src;
  if (!ok) return;
  if (h == "position") b.position = x;
  else if (h == "rotation") b.orientation = quat::fromRotationVector(x);
  else if (h == "velocity") b.linearVelocity = x;
  else b.angularVelocity = x;
}

// Mass from density, derived inertia, shape colours, joint checks.
void Reader::finishBody(int body) {
  BodyExtra& ex = extra_[body];
  BodyDesc& b = model_.bodies[body];
  const std::string who = "body '" + b.name + "'";
  // The shape that mass and inertia are derived from: the first collision shape, else the first visual.
  const ShapeDesc* basis = !b.collisions.empty() ? &b.collisions[0] : !b.visuals.empty() ? &b.visuals[0] : nullptr;
  const SourceRef basisRef = !b.collisions.empty() ? ex.collisionForms[0] : !b.visuals.empty() ? ex.visualForms[0] : SourceRef();
  // What a basis without a volume is, for messages: a plane, or a mesh that is only drawn.
  const std::string noVolume = basis && basis->kind == ShapeDesc::Kind::Mesh
                                   ? "a visual mesh (only collision meshes are read: write (shape mesh ...) or (collision mesh ...))"
                                   : "a plane";
  bool massOk = ex.hasMass;
  bool derived = false;  // the inertia derived from the basis
  if (ex.hasMass && ex.hasDensity) {
    error(ex.densityRef, who + " has both (mass ...) and (density ...); give one");
    massOk = false;
  } else if (ex.hasDensity) {
    double volume = 0;
    if (!basis) {
      if (!ex.badShape) error(ex.densityRef, "(density ...) needs a box, sphere, capsule, cylinder or collision mesh shape to compute the mass of " + who);
    } else if (!shapeVolume(*basis, volume)) {
      error(basisRef, "cannot compute the volume of " + noVolume + ": give " + who + " a (mass ...)");
    } else if (!(volume > 0) || !std::isfinite(ex.density * volume)) {
      error(ex.densityRef, "the mass of " + who + " from its density is not positive");
    } else {
      b.mass = ex.density * volume;
      massOk = true;
    }
  } else if (!ex.hasMass && !ex.badMass) {
    error(ex.nameRef, who + " needs a (mass ...) or a (density ...)");
  }
  // Derived inertia.
  if (!ex.hasInertia && massOk) {
    if (!basis) {
      if (!ex.badShape) error(ex.nameRef, who + " needs an (inertia ...) or a shape to derive it from");
    } else if (!shapeInertia(*basis, b.mass, b.inertia)) {
      error(basisRef, "cannot derive the inertia of " + who + " from " + noVolume + ": give (inertia ...)");
    } else {
      derived = true;
    }
  }
  // A collision mesh's hull centroid is where its mass is centred, the body's centre of mass is its
  // frame origin: an off-centre mesh file (not compensated by the shape's (at ...)) is worth a word.
  if (derived && basis->kind == ShapeDesc::Kind::Mesh) {
    contact::ConvexHull hull;
    std::string why;
    if (contact::buildConvexHull(basis->meshVertices, hull, why)) {
      const Vec3 c = contact::hullMassProperties(hull).centroid;  // shape frame
      const Vec3 rc = quat::rotation(basis->orientation.normalized()) * c;
      const Vec3 inBody = basis->position + rc;
      Vec3 lo = hull.vertices[0], hi = hull.vertices[0];
      for (const Vec3& v : hull.vertices) lo = lo.cwiseMin(v), hi = hi.cwiseMax(v);
      const double size = 0.5 * (hi - lo).norm(), tolerance = kMeshCentroidTolerance * size;
      if (c.norm() > tolerance && inBody.norm() > tolerance) {
        // Components at round-off level are written as 0.
        const auto text = [&](const Vec3& v) {
          std::string t;
          for (int k = 0; k < 3; ++k) t += (k ? " " : "") + approx(std::abs(v(k)) < 1e-9 * size ? 0.0 : v(k));
          return t;
        };
        warning(basisRef, "the hull of mesh '" + basis->meshFile + "' has its centroid at (" + text(inBody) +
                              ") in the frame of " + who +
                              ", whose centre of mass is its frame origin (the inertia is taken about the centroid): "
                              "place the mesh with (at " + text(basis->position - inBody) + ") or give (inertia ...)");
      }
    }
  }
  // The body colour applies to shapes without their own.
  if (ex.hasColor) {
    for (size_t k = 0; k < b.visuals.size(); ++k)
      if (!ex.visualColored[k]) b.visuals[k].color = ex.color;
    for (size_t k = 0; k < b.collisions.size(); ++k)
      if (!ex.collisionColored[k]) b.collisions[k].color = ex.color;
  }
  // A nested body must be connected to the body it is written in.
  if (!ex.hasJoint && ex.enclosing >= 0)
    error(ex.nameRef, who + " is inside '" + model_.bodies[ex.enclosing].name +
                          "' but has no (joint ...) connecting it (write e.g. (joint fixed) to weld it)");
}

// (shape|visual|collision KIND dims… placement*)
void Reader::readShape(const Node& n, int body, ShapeUse use, bool generated) {
  const std::string& h = n.head();
  if (n.children.size() < 2 || !n.children[1].isSymbol()) {
    error(n.children.size() < 2 ? n : n.children[1],
          "(" + h + " ...) needs a kind: box, sphere, capsule, cylinder, plane or mesh");
    return;
  }
  const Node& kindNode = n.children[1];
  const std::string& kind = kindNode.text;
  ShapeDesc s;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  src.properties["kind"].form = ref(kindNode);
  size_t dims = 0;
  if (kind == "box") s.kind = ShapeDesc::Kind::Box, dims = 3;
  else if (kind == "sphere") s.kind = ShapeDesc::Kind::Sphere, dims = 1;
  else if (kind == "capsule") s.kind = ShapeDesc::Kind::Capsule, dims = 2;
  else if (kind == "cylinder") s.kind = ShapeDesc::Kind::Cylinder, dims = 2;
  else if (kind == "plane") s.kind = ShapeDesc::Kind::Plane, dims = 0;
  else if (kind == "mesh") s.kind = ShapeDesc::Kind::Mesh, dims = 0;
  else {
    error(kindNode, "unknown shape '" + kind + "'" + suggestion(kind, kShapeKinds) +
                        " (shapes: box, sphere, capsule, cylinder, plane, mesh)");
    return;
  }
  size_t i = 2;
  // A mesh names its file (read below when it collides).
  SourceRef fileRef;
  if (s.kind == ShapeDesc::Kind::Mesh) {
    if (i >= n.children.size() || !n.children[i].isString()) {
      error(i < n.children.size() ? n.children[i] : n, "(" + h + " mesh ...) needs a file name in quotes");
      return;
    }
    s.meshFile = n.children[i].text;
    fileRef = ref(n.children[i]);
    src.properties["file"].form = ref(n.children[i]);
    src.properties["file"].values = {ref(n.children[i])};
    ++i;
  }
  // Dimensions: the arguments before the first placement.
  size_t end = i;
  while (end < n.children.size() && !(n.children[end].isList() && contains(kPlacements, n.children[end].head()))) ++end;
  std::vector<double> v;
  PropertySource& size = src.properties["size"];
  size.form = ref(n);
  bool ok = true;
  for (size_t k = i; k < end; ++k) {
    double x = 0;
    ok = eval(n.children[k], x) && ok;
    v.push_back(x);
    size.values.push_back(ref(n.children[k]));
  }
  static const char* what[] = {"x y z extents", "a radius", "a radius and a length", "a radius and a length",
                               "no dimensions", ""};
  if (v.size() != dims) {
    const SourceRef where = v.size() > dims ? ref(n.children[i + dims]) : ref(n);
    if (s.kind == ShapeDesc::Kind::Mesh)
      error(where, "(" + h + " mesh \"file\" ...) takes no dimensions; scale it with (scale x y z)");
    else
      error(where, "(" + h + " " + kind + " ...) takes " + what[int(s.kind)] + " (got " + std::to_string(v.size()) +
                       (v.size() == 1 ? " number)" : " numbers)"));
    return;
  }
  if (!ok) return;
  // Dimensions must be positive (a capsule's length may be zero).
  for (size_t k = 0; k < dims; ++k) {
    const bool lengthMayBeZero = s.kind == ShapeDesc::Kind::Capsule && k == 1;
    if (!(v[k] > 0) && !(lengthMayBeZero && v[k] == 0)) {
      error(n.children[i + k], std::string(s.kind == ShapeDesc::Kind::Box ? "box extents" : k == 0 ? "the radius" : "the length") +
                                   " must be positive (got " + num(v[k]) + ")");
      return;
    }
    s.size(int(k)) = v[k];
  }
  // Placements: position, orientation, colour, mesh scale.
  bool colored = false;
  std::map<std::string, SourceRef> seen;
  for (size_t k = end; k < n.children.size(); ++k) {
    const Node& p = n.children[k];
    if (!p.isList() || !contains(kPlacements, p.head())) {
      if (p.isList() && !p.head().empty())
        error(p.children[0], "unknown shape property '" + p.head() + "'" + suggestion(p.head(), kPlacements) +
                                 " (shape properties: at, rotation, orientation, color, scale)");
      else
        error(p, "expected a shape property (at ...), (rotation ...), (orientation ...), (color ...) or (scale ...), got " +
                     sexpr::describeNode(p));
      continue;
    }
    const std::string& ph = p.head();
    if (duplicate(seen, ph == "rotation" ? "orientation" : ph, p, "the shape")) continue;
    PropertySource& ps = src.properties[ph];
    if (ph == "at" || ph == "rotation" || ph == "scale") {
      Vec3 x;
      if (!vec3(p, x, &ps)) continue;
      if (ph == "at") s.position = x;
      else if (ph == "rotation") s.orientation = quat::fromRotationVector(x);
      else if (s.kind != ShapeDesc::Kind::Mesh) error(p.children[0], "(scale ...) applies to mesh shapes only");
      else s.meshScale = x;
    } else if (ph == "orientation") {
      std::vector<double> q;
      if (!numbers(p, 1, 4, 4, q, &ps)) continue;
      const Vec4 qq(q[0], q[1], q[2], q[3]);
      if (!(qq.norm() > 1e-9)) error(p, "the orientation quaternion (w x y z) must not be zero");
      else s.orientation = qq;
    } else {
      std::vector<double> c;
      if (!numbers(p, 1, 3, 4, c, &ps)) continue;
      bool inRange = true;
      for (size_t m = 0; m < c.size() && inRange; ++m)
        if (!(c[m] >= 0 && c[m] <= 1)) {
          error(p.children[m + 1], "colour components must be between 0 and 1 (got " + num(c[m]) + ")");
          inRange = false;
        }
      if (!inRange) continue;
      s.color = Vec4(c[0], c[1], c[2], c.size() == 4 ? c[3] : 1.0);
      colored = true;
    }
  }
  // A collision mesh: the file's vertices (its convex hull collides), checked here.
  ShapeDesc visual = s;
  if (s.kind == ShapeDesc::Kind::Mesh && use != ShapeUse::Visual) {
    const std::string path = resolveMeshPath(s.meshFile, fs::path(doc_.fileName()).parent_path().string());
    CollisionMeshReport report;
    const bool loaded = loadCollisionMesh(s, path, meshFiles_, report);
    for (const std::string& w : report.warnings) warning(fileRef, w);
    if (!loaded) {
      error(fileRef, report.error);
      extra_[body].badShape = true;
      return;
    }
  }
  // Append to the body's visuals and/or collisions.
  BodyExtra& ex = extra_[body];
  BodyDesc& b = model_.bodies[body];
  if (use != ShapeUse::Collision) {
    b.visuals.push_back(visual);
    map_.bodies[body].visuals.push_back(src);
    ex.visualColored.push_back(colored);
    ex.visualForms.push_back(ref(n));
  }
  if (use != ShapeUse::Visual) {
    b.collisions.push_back(s);
    map_.bodies[body].collisions.push_back(src);
    ex.collisionColored.push_back(colored);
    ex.collisionForms.push_back(ref(n));
  }
}

// ---- joints ------------------------------------------------------------------------------------

// Names of all joint types, for messages.
std::string jointTypeList() {
  std::string s;
  for (int k = 0; k < kNumJointTypes; ++k) s += (k ? ", " : "") + std::string(jointKindAt(k).name);
  return s;
}

std::vector<std::string> jointTypeNames() {
  std::vector<std::string> v;
  for (int k = 0; k < kNumJointTypes; ++k) v.push_back(jointKindAt(k).name);
  return v;
}

// Reads the joint type symbol at children[i]; false (reported) if missing or unknown.
bool readJointType(const Node& n, size_t i, JointType& t, std::string& message, const Node*& where) {
  where = i < n.children.size() ? &n.children[i] : &n;
  if (i >= n.children.size() || !n.children[i].isSymbol()) {
    message = "(" + n.head() + " ...) needs a joint type: " + jointTypeList();
    return false;
  }
  const auto type = jointTypeFromName(n.children[i].text);
  if (!type) {
    message = "unknown joint type '" + n.children[i].text + "'" + suggestion(n.children[i].text, jointTypeNames()) +
              " (types: " + jointTypeList() + ")";
    return false;
  }
  t = *type;
  return true;
}

// (joint TYPE NAME? joint-item*) inside body `body`: connects it to the enclosing body or the world.
void Reader::readJoint(const Node& n, int body, bool generated) {
  BodyExtra& ex = extra_[body];
  const std::string bodyName = model_.bodies[body].name;
  if (ex.hasJoint) {
    error(n.children[0], "body '" + bodyName + "' already has a joint (at " + at(ex.jointRef) +
                             "); connect it further with a (loop-joint ...)");
    return;
  }
  ex.hasJoint = true;
  ex.jointRef = ref(n);
  JointDesc j;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  std::string message;
  const Node* where = nullptr;
  const bool typeKnown = readJointType(n, 1, j.type, message, where);
  if (!typeKnown) error(*where, message);
  else src.properties["type"].form = ref(n.children[1]);
  size_t i = 2;
  // Optional name (defaults to the body's name).
  j.name = bodyName;
  if (i < n.children.size() && (n.children[i].isSymbol() || n.children[i].isString())) {
    std::string name;
    SourceRef nameRef;
    if (readName(n, i, name, nameRef, "a joint name")) {
      j.name = name;
      src.name = nameRef;
    }
  }
  j.parent = ex.enclosing;
  j.child = body;
  jointItems(n, i, j, src, typeKnown);
  const int idx = int(model_.joints.size());
  define(joints_, "joint", j.name, idx, src.name.valid() ? src.name : src.form);
  model_.joints.push_back(std::move(j));
  map_.joints.push_back(std::move(src));
}

// Joint items from children[i] on (shared by joint and loop-joint).
void Reader::jointItems(const Node& n, size_t i, JointDesc& j, ElementSource& src, bool typeKnown) {
  const JointKind& kind = jointKind(j.type);
  const int nf = kind.freeCoordinates();
  const std::string owner = "joint '" + j.name + "'";
  std::map<std::string, SourceRef> seen;
  const Node* lowerNode = nullptr;
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head().empty()) {
      error(c, "expected a joint property such as (axis ...), got " + sexpr::describeNode(c));
      continue;
    }
    const std::string& h = c.head();
    if (!contains(kJointItems, h)) {
      error(c.children[0], "unknown joint property '" + h + "'" + suggestion(h, kJointItems));
      continue;
    }
    const std::string key = h == "offset-rotation" ? "offset" : h;
    if (duplicate(seen, key, c, owner)) continue;
    PropertySource& ps = src.properties[h];
    // Geometry: anchors, axis, offset.
    if (h == "parent-anchor" || h == "child-anchor" || h == "axis" || h == "offset-rotation") {
      Vec3 x;
      if (!vec3(c, x, &ps)) continue;
      if (h == "parent-anchor") j.parentAnchor = x;
      else if (h == "child-anchor") j.childAnchor = x;
      else if (h == "offset-rotation") j.offset = quat::fromRotationVector(x);
      else if (!(x.norm() > 1e-12)) error(c, "the axis must not have zero length");
      else j.axis = x;
      continue;
    }
    if (h == "offset") {
      std::vector<double> q;
      if (!numbers(c, 1, 4, 4, q, &ps)) continue;
      const Vec4 qq(q[0], q[1], q[2], q[3]);
      if (!(qq.norm() > 1e-9)) error(c, "the offset quaternion (w x y z) must not be zero");
      else j.offset = qq;
      continue;
    }
    // Per-coordinate values: 1 (for all) or one per free coordinate.
    std::vector<double> v;
    if (!numbers(c, 1, 1, size_t(-1), v, &ps)) continue;
    if (!typeKnown) continue;
    const std::string typeName = kind.name;
    if (nf == 0) {
      error(c.children[0], "a " + typeName + " joint has no free coordinates, so (" + h + " ...) does not apply");
      continue;
    }
    if (int(v.size()) != 1 && int(v.size()) != nf) {
      const SourceRef where = int(v.size()) > nf ? ref(c.children[nf + 1]) : ref(c);
      error(where, "a " + typeName + " joint has " + std::to_string(nf) + " free coordinate" + (nf == 1 ? "" : "s") +
                       ": (" + h + " ...) takes " + (nf == 1 ? std::string("1 number") : "1 or " + std::to_string(nf) + " numbers") +
                       " (got " + std::to_string(v.size()) + ")");
      continue;
    }
    if (h == "stiffness" || h == "damping") {
      bool bad = false;
      for (size_t m = 0; m < v.size() && !bad; ++m)
        if (v[m] < 0) {
          error(c.children[m + 1], h + " must not be negative (got " + num(v[m]) + ")");
          bad = true;
        }
      if (bad) continue;
    }
    if (h == "position") j.initialPosition = v;
    else if (h == "velocity") j.initialVelocity = v;
    else if (h == "stiffness") j.stiffness = v;
    else if (h == "rest") j.restPosition = v;
    else if (h == "damping") j.damping = v;
    else if (h == "lower") j.lowerLimit = v, lowerNode = &c;
    else j.upperLimit = v;
  }
  // Limits come in pairs, lower ≤ upper.
  const bool hasLower = seen.count("lower"), hasUpper = seen.count("upper");
  if (hasLower != hasUpper) {
    error(hasLower ? seen["lower"] : seen["upper"],
          owner + " has (" + std::string(hasLower ? "lower" : "upper") + " ...) but no (" +
              (hasLower ? "upper" : "lower") + " ...)");
  } else if (lowerNode && !j.lowerLimit.empty() && !j.upperLimit.empty() && nf > 0) {
    for (int k = 0; k < nf; ++k) {
      const double lo = j.lowerLimit.size() == 1 ? j.lowerLimit[0] : j.lowerLimit[k];
      const double hi = j.upperLimit.size() == 1 ? j.upperLimit[0] : j.upperLimit[k];
      if (lo > hi) {
        error(*lowerNode, owner + ": the lower limit " + num(lo) + " exceeds the upper limit " + num(hi));
        break;
      }
    }
  }
}

// (loop-joint NAME TYPE PARENT CHILD joint-item*)
void Reader::readLoopJoint(const Node& n, bool generated) {
  JointDesc j;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  if (!readName(n, i, j.name, src.name, "a name, a joint type and two bodies, e.g. (loop-joint close revolute a b)"))
    return;
  std::string message;
  const Node* where = nullptr;
  const bool typeKnown = readJointType(n, i, j.type, message, where);
  if (!typeKnown) {
    error(*where, message);
    if (i < n.children.size() && n.children[i].isList()) return;
  } else {
    src.properties["type"].form = ref(n.children[i]);
  }
  ++i;
  // Parent (body or world) and child (body), resolved at the end.
  std::string parent, child;
  SourceRef parentRef, childRef;
  if (!readName(n, i, parent, parentRef, "a parent body (or world) and a child body")) return;
  if (!readName(n, i, child, childRef, "a child body after the parent")) return;
  src.properties["parent"].form = parentRef;
  src.properties["child"].form = childRef;
  jointItems(n, i, j, src, typeKnown);
  const int idx = int(model_.joints.size());
  define(joints_, "joint", j.name, idx, src.name);
  fixups_.push_back({Fixup::Slot::LoopParent, idx, parent, parentRef});
  fixups_.push_back({Fixup::Slot::LoopChild, idx, child, childRef});
  loopBodyRefs_.push_back(parent);
  loopBodyRefs_.push_back(child);
  model_.joints.push_back(std::move(j));
  map_.joints.push_back(std::move(src));
}

// ---- other top-level forms ---------------------------------------------------------------------

// (spring NAME BODY-A BODY-B (anchor-a …)? (anchor-b …)? (stiffness …) (rest-length …)? (damping …)?)
void Reader::readSpring(const Node& n, bool generated) {
  SpringDesc s;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  if (!readName(n, i, s.name, src.name, "a name and two bodies, e.g. (spring s a b (stiffness 100))")) return;
  std::string a, b;
  SourceRef aRef, bRef;
  if (!readName(n, i, a, aRef, "two bodies (either may be world)")) return;
  if (!readName(n, i, b, bRef, "a second body")) return;
  src.properties["body-a"].form = aRef;
  src.properties["body-b"].form = bRef;
  std::map<std::string, SourceRef> seen;
  static const std::vector<std::string> items = {"anchor-a", "anchor-b", "stiffness", "rest-length", "damping"};
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head().empty()) {
      error(c, "expected a spring property such as (stiffness ...), got " + sexpr::describeNode(c));
      continue;
    }
    const std::string& h = c.head();
    if (!contains(items, h)) {
      error(c.children[0], "unknown spring property '" + h + "'" + suggestion(h, items));
      continue;
    }
    if (duplicate(seen, h, c, "spring '" + s.name + "'")) continue;
    PropertySource& ps = src.properties[h];
    if (h == "anchor-a" || h == "anchor-b") {
      Vec3 x;
      if (vec3(c, x, &ps)) (h == "anchor-a" ? s.anchorA : s.anchorB) = x;
      continue;
    }
    std::vector<double> v;
    if (!numbers(c, 1, 1, 1, v, &ps)) continue;
    if (!(v[0] >= 0)) {
      error(c.children[1], h + " must not be negative (got " + num(v[0]) + ")");
      continue;
    }
    (h == "stiffness" ? s.stiffness : h == "damping" ? s.damping : s.restLength) = v[0];
  }
  if (!seen.count("stiffness")) error(n.children[0], "spring '" + s.name + "' needs a (stiffness ...)");
  const int idx = int(model_.springs.size());
  define(springs_, "spring", s.name, idx, src.name);
  fixups_.push_back({Fixup::Slot::SpringA, idx, a, aRef});
  fixups_.push_back({Fixup::Slot::SpringB, idx, b, bRef});
  model_.springs.push_back(s);
  map_.springs.push_back(std::move(src));
}

// (ground NAME (at x y z)? (normal nx ny nz)? (friction μ)?): a fixed plane every collision shape
// may touch; by default through the origin with normal +z, and the bodies' own friction.
void Reader::readGround(const Node& n, bool generated) {
  GroundDesc g;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  if (!readName(n, i, g.name, src.name, "a name, e.g. (ground floor (normal 0 0 1))")) return;
  std::map<std::string, SourceRef> seen;
  static const std::vector<std::string> items = {"at", "normal", "friction"};
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head().empty()) {
      error(c, "expected a ground property such as (normal ...), got " + sexpr::describeNode(c));
      continue;
    }
    const std::string& h = c.head();
    if (!contains(items, h)) {
      error(c.children[0], "unknown ground property '" + h + "'" + suggestion(h, items));
      continue;
    }
    if (duplicate(seen, h, c, "ground '" + g.name + "'")) continue;
    PropertySource& ps = src.properties[h];
    if (h == "at" || h == "normal") {
      Vec3 x;
      if (!vec3(c, x, &ps)) continue;
      if (h == "normal" && !(x.norm() > 1e-12)) {
        error(c.children[0], "the ground's normal must not be zero");
        continue;
      }
      (h == "at" ? g.point : g.normal) = x;
      continue;
    }
    std::vector<double> v;
    if (!numbers(c, 1, 1, 1, v, &ps)) continue;
    if (!(v[0] >= 0)) {
      error(c.children[1], "friction must not be negative (got " + num(v[0]) + ")");
      continue;
    }
    g.friction = v[0];
  }
  define(grounds_, "ground", g.name, int(model_.grounds.size()), src.name);
  model_.grounds.push_back(g);
  map_.grounds.push_back(std::move(src));
}

// (contact-pair NAME BODY-A BODY-B (friction μ)?): contacts between the collision shapes of two bodies.
void Reader::readContactPair(const Node& n, bool generated) {
  ContactPairDesc pr;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  if (!readName(n, i, pr.name, src.name, "a name and two bodies, e.g. (contact-pair p ball1 ball2)")) return;
  std::string a, b;
  SourceRef aRef, bRef;
  if (!readName(n, i, a, aRef, "two bodies")) return;
  if (!readName(n, i, b, bRef, "a second body")) return;
  src.properties["body-a"].form = aRef;
  src.properties["body-b"].form = bRef;
  std::map<std::string, SourceRef> seen;
  static const std::vector<std::string> items = {"friction"};
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head().empty()) {
      error(c, "expected (friction ...), got " + sexpr::describeNode(c));
      continue;
    }
    const std::string& h = c.head();
    if (!contains(items, h)) {
      error(c.children[0], "unknown contact-pair property '" + h + "'" + suggestion(h, items));
      continue;
    }
    if (duplicate(seen, h, c, "contact-pair '" + pr.name + "'")) continue;
    std::vector<double> v;
    if (!numbers(c, 1, 1, 1, v, &src.properties[h])) continue;
    if (!(v[0] >= 0)) {
      error(c.children[1], "friction must not be negative (got " + num(v[0]) + ")");
      continue;
    }
    pr.friction = v[0];
  }
  const int idx = int(model_.contactPairs.size());
  define(pairs_, "contact-pair", pr.name, idx, src.name);
  fixups_.push_back({Fixup::Slot::PairA, idx, a, aRef});
  fixups_.push_back({Fixup::Slot::PairB, idx, b, bRef});
  model_.contactPairs.push_back(pr);
  map_.contactPairs.push_back(std::move(src));
}

// (collisions all|pairs): which pairs of bodies collide (Model::collisions).
void Reader::readCollisions(const Node& n) {
  if (hasCollisions_) {
    error(n.children[0], "duplicate (collisions ...) (already set at " + at(collisionsRef_) + ")");
    return;
  }
  hasCollisions_ = true;
  collisionsRef_ = ref(n);
  PropertySource src;
  src.form = ref(n);
  map_.mechanism.properties["collisions"] = src;
  if (n.children.size() != 2 || !(n.children[1].isSymbol("all") || n.children[1].isSymbol("pairs"))) {
    error(n.children.size() >= 2 ? n.children[1] : n,
          "(collisions ...) takes 'all' (every two bodies collide, the default) or 'pairs' (only contact-pairs)" +
              std::string(n.children.size() >= 2 ? ", got " + sexpr::describeNode(n.children[1]) : ""));
    return;
  }
  model_.collisions = n.children[1].isSymbol("all") ? CollisionMode::All : CollisionMode::Pairs;
}

// (exclude BODY-A BODY-B): the two bodies do not collide with each other.
void Reader::readExclude(const Node& n, bool generated) {
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  std::string a, b;
  SourceRef aRef, bRef;
  if (!readName(n, i, a, aRef, "two bodies, e.g. (exclude finger1 finger2)")) return;
  if (!readName(n, i, b, bRef, "a second body")) return;
  if (i < n.children.size()) {
    error(n.children[i], "(exclude ...) takes two bodies, got more: " + sexpr::describeNode(n.children[i]));
    return;
  }
  src.properties["body-a"].form = aRef;
  src.properties["body-b"].form = bRef;
  const int idx = int(model_.exclusions.size());
  fixups_.push_back({Fixup::Slot::ExcludeA, idx, a, aRef});
  fixups_.push_back({Fixup::Slot::ExcludeB, idx, b, bRef});
  model_.exclusions.push_back({});
  map_.exclusions.push_back(std::move(src));
}

// (keyframe NAME (body BODY (position x y z) (orientation w x y z) (velocity vx vy vz)
// (angular-velocity wx wy wz))…): a saved state. Body names are checked against the model once every
// body is known (resolveKeyframes). SourceMap: the form, the name, and per body (keyed by its name)
// the (body …) entry with its name token as values[0].
void Reader::readKeyframe(const Node& n) {
  KeyframeDesc k;
  ElementSource src;
  src.form = ref(n);
  size_t i = 1;
  if (!readName(n, i, k.name, src.name, "a name, e.g. (keyframe start (body b (position 0 0 0) ...))")) return;
  const std::string owner = "keyframe '" + k.name + "'";
  static const std::vector<std::string> items = {"position", "orientation", "velocity", "angular-velocity"};
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head() != "body") {
      error(c.isList() && !c.children.empty() ? c.children[0] : c,
            owner + ": expected (body NAME (position ...) (orientation ...) (velocity ...) (angular-velocity ...)), got " +
                sexpr::describeNode(c));
      continue;
    }
    size_t j = 1;
    KeyframeBody b;
    SourceRef bodyRef;
    if (!readName(c, j, b.body, bodyRef, "a body name")) continue;
    if (src.properties.count(b.body)) {
      error(bodyRef, owner + " gives body '" + b.body + "' twice (first at " + at(src.properties[b.body].values[0]) + ")");
      continue;
    }
    PropertySource& ps = src.properties[b.body];
    ps.form = ref(c);
    ps.values = {bodyRef};
    std::map<std::string, SourceRef> seen;
    bool ok = true;
    for (; j < c.children.size(); ++j) {
      const Node& p = c.children[j];
      if (!p.isList() || p.head().empty()) {
        error(p, "expected (position ...), (orientation ...), (velocity ...) or (angular-velocity ...), got " + sexpr::describeNode(p));
        ok = false;
        continue;
      }
      const std::string& h = p.head();
      if (!contains(items, h)) {
        error(p.children[0], "unknown keyframe property '" + h + "'" + suggestion(h, items));
        ok = false;
        continue;
      }
      if (duplicate(seen, h, p, "body '" + b.body + "' of " + owner)) {
        ok = false;
        continue;
      }
      if (h == "orientation") {
        std::vector<double> q;
        if (!numbers(p, 1, 4, 4, q, nullptr)) {
          ok = false;
          continue;
        }
        const Vec4 qv(q[0], q[1], q[2], q[3]);
        const double norm = qv.norm();
        if (!(std::abs(norm - 1.0) <= kKeyframeUnitTolerance)) {
          error(p.children[0], "the orientation of body '" + b.body + "' in " + owner + " is not a unit quaternion (norm " +
                                   approx(norm) + "; it must be 1 within 1e-6)");
          ok = false;
          continue;
        }
        // Normalised, unless unit to rounding already (so that written keyframes read back exactly).
        b.orientation = std::abs(norm - 1.0) <= 1e-14 ? qv : Vec4(qv / norm);
        continue;
      }
      Vec3 x;
      if (!vec3(p, x, nullptr)) {
        ok = false;
        continue;
      }
      (h == "position" ? b.position : h == "velocity" ? b.velocity : b.angularVelocity) = x;
    }
    for (const std::string& item : items)
      if (ok && !seen.count(item)) {
        error(c.children[0], "body '" + b.body + "' of " + owner + " has no (" + item + " ...)");
        ok = false;
      }
    if (ok) k.bodies.push_back(b);
  }
  define(keyframes_, "keyframe", k.name, int(model_.keyframes.size()), src.name);
  model_.keyframes.push_back(std::move(k));
  map_.keyframes.push_back(std::move(src));
}

// (actuator JOINT (effort NUM+))
void Reader::readActuator(const Node& n, bool generated) {
  ActuatorDesc a;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  std::string joint;
  SourceRef jointRef;
  if (!readName(n, i, joint, jointRef, "a joint name and an (effort ...)")) return;
  src.name = jointRef;
  src.properties["joint"].form = jointRef;
  bool hasEffort = false;
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head() != "effort") {
      if (c.isList() && !c.head().empty())
        error(c.children[0], "unknown actuator property '" + c.head() + "'" + suggestion(c.head(), {"effort"}));
      else
        error(c, "expected (effort ...), got " + sexpr::describeNode(c));
      continue;
    }
    if (hasEffort) {
      error(c.children[0], "duplicate (effort ...) in the actuator");
      continue;
    }
    hasEffort = true;
    numbers(c, 1, 1, size_t(-1), a.effort, &src.properties["effort"]);
  }
  if (!hasEffort) {
    error(n.children[0], "(actuator ...) needs an (effort ...)");
    return;
  }
  const int idx = int(model_.actuators.size());
  fixups_.push_back({Fixup::Slot::ActuatorJoint, idx, joint, jointRef, a.effort.size()});
  model_.actuators.push_back(a);
  map_.actuators.push_back(std::move(src));
}

// (pd-controller NAME JOINT (kp …) (kd …) (coordinate …)? (target NUM (sin A F P?)?)? (effort-limit …)?)
void Reader::readController(const Node& n, bool generated) {
  ControllerDesc c;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  if (!readName(n, i, c.name, src.name, "a name and a joint, e.g. (pd-controller hold elbow (kp 10) (kd 1))")) return;
  std::string joint;
  SourceRef jointRef;
  if (!readName(n, i, joint, jointRef, "a joint after its name")) return;
  src.properties["joint"].form = jointRef;
  std::map<std::string, SourceRef> seen;
  static const std::vector<std::string> items = {"kp", "kd", "coordinate", "target", "effort-limit"};
  for (; i < n.children.size(); ++i) {
    const Node& p = n.children[i];
    if (!p.isList() || p.head().empty()) {
      error(p, "expected a controller property such as (kp ...), got " + sexpr::describeNode(p));
      continue;
    }
    const std::string& h = p.head();
    if (!contains(items, h)) {
      error(p.children[0], "unknown controller property '" + h + "'" + suggestion(h, items));
      continue;
    }
    if (duplicate(seen, h, p, "controller '" + c.name + "'")) continue;
    PropertySource& ps = src.properties[h];
    if (h == "target") {
      // (target OFFSET (sin AMPLITUDE FREQUENCY PHASE?)?)
      ps.form = ref(p);
      if (p.children.size() < 2 || p.children.size() > 3) {
        error(p, "(target ...) takes an offset and optionally (sin amplitude frequency phase?)");
        continue;
      }
      ps.values.push_back(ref(p.children[1]));
      if (!eval(p.children[1], c.offset)) continue;
      if (p.children.size() == 3) {
        const Node& s = p.children[2];
        if (!s.isList() || s.head() != "sin") {
          error(s, "expected (sin amplitude frequency phase?) after the target offset, got " + sexpr::describeNode(s));
          continue;
        }
        std::vector<double> v;
        PropertySource sinSrc;
        if (!numbers(s, 1, 2, 3, v, &sinSrc)) continue;
        for (const SourceRef& r : sinSrc.values) ps.values.push_back(r);
        c.amplitude = v[0];
        c.frequency = v[1];
        c.phase = v.size() == 3 ? v[2] : 0.0;
      }
      continue;
    }
    std::vector<double> v;
    if (!numbers(p, 1, 1, 1, v, &ps)) continue;
    if (h == "coordinate") {
      if (v[0] != std::floor(v[0]) || v[0] < 0 || v[0] > 5) {
        error(p.children[1], "(coordinate ...) is a free-coordinate index from 0 to 5 (got " + num(v[0]) + ")");
        continue;
      }
      c.coordinate = int(v[0]);
      continue;
    }
    if (!(v[0] >= 0)) {
      error(p.children[1], h + " must not be negative (got " + num(v[0]) + ")");
      continue;
    }
    (h == "kp" ? c.kp : h == "kd" ? c.kd : c.effortLimit) = v[0];
  }
  if (!seen.count("kp")) error(n.children[0], "controller '" + c.name + "' needs a (kp ...)");
  if (!seen.count("kd")) error(n.children[0], "controller '" + c.name + "' needs a (kd ...)");
  const int idx = int(model_.controllers.size());
  define(controllers_, "controller", c.name, idx, src.name);
  fixups_.push_back({Fixup::Slot::ControllerJoint, idx, joint, jointRef});
  model_.controllers.push_back(c);
  map_.controllers.push_back(std::move(src));
}

// (wrench BODY (force …)? (torque …)?)
void Reader::readWrench(const Node& n, bool generated) {
  WrenchDesc w;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  std::string body;
  SourceRef bodyRef;
  if (!readName(n, i, body, bodyRef, "a body, e.g. (wrench box (force 0 0 1))")) return;
  src.name = bodyRef;
  src.properties["body"].form = bodyRef;
  std::map<std::string, SourceRef> seen;
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || (c.head() != "force" && c.head() != "torque")) {
      if (c.isList() && !c.head().empty())
        error(c.children[0], "unknown wrench property '" + c.head() + "'" + suggestion(c.head(), {"force", "torque"}));
      else
        error(c, "expected (force ...) or (torque ...), got " + sexpr::describeNode(c));
      continue;
    }
    if (duplicate(seen, c.head(), c, "the wrench")) continue;
    Vec3 x;
    if (vec3(c, x, &src.properties[c.head()])) (c.head() == "force" ? w.force : w.torque) = x;
  }
  const int idx = int(model_.wrenches.size());
  fixups_.push_back({Fixup::Slot::WrenchBody, idx, body, bodyRef});
  model_.wrenches.push_back(w);
  map_.wrenches.push_back(std::move(src));
}

// (order (bodies NAME*)? (joints NAME*)?): the index order of bodies and joints.
void Reader::readOrder(const Node& n) {
  if (orderNode_) {
    error(n.children[0], "duplicate (order ...)");
    return;
  }
  orderNode_ = &n;
  for (size_t i = 1; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || (c.head() != "bodies" && c.head() != "joints")) {
      error(c, "expected (bodies ...) or (joints ...) in (order ...), got " + sexpr::describeNode(c));
      continue;
    }
    OrderList& list = c.head() == "bodies" ? bodyOrder_ : jointOrder_;
    if (list.present) {
      error(c.children[0], "duplicate (" + c.head() + " ...) in (order ...)");
      continue;
    }
    list.present = true;
    list.form = ref(c);
    orderNames(c, 1, list);
  }
}

// Names of an (order (bodies …)) or (joints …) list from children[first] on; (repeat (i a b) …)
// inside the list expands to its names once per value.
void Reader::orderNames(const Node& list, size_t first, OrderList& out) {
  size_t k = first;
  while (k < list.children.size() && !stopped_) {
    const Node& c = list.children[k];
    if (c.isList() && c.head() == "repeat") {
      ++k;
      std::string var;
      long from = 0, to = 0;
      if (!readRange(c, var, from, to)) continue;
      const bool outermost = !expansionRoot_;
      if (outermost) expansionRoot_ = &c.children[1];
      for (long v = from; v <= to && !stopped_; ++v) {
        if (!charge(c, 2)) break;
        vars_.emplace_back(var, double(v));
        orderNames(c, 2, out);
        vars_.pop_back();
      }
      if (outermost) expansionRoot_ = nullptr;
      continue;
    }
    if (c.isList()) {
      error(c, "expected a name or (repeat (i FROM TO) names...), got " + sexpr::describeNode(c));
      ++k;
      continue;
    }
    std::string name;
    SourceRef where;
    if (readName(list, k, name, where, "names")) out.names.emplace_back(name, where);
  }
}

// ---- repetition --------------------------------------------------------------------------------

// The range (NAME FROM TO) of repeat/chain.
bool Reader::readRange(const Node& n, std::string& var, long& from, long& to) {
  if (n.children.size() < 2 || !n.children[1].isList()) {
    error(n.children.size() < 2 ? n : n.children[1],
          "(" + n.head() + " ...) needs a range (NAME FROM TO), e.g. (" + n.head() + " (i 1 10) ...)");
    return false;
  }
  const Node& r = n.children[1];
  if (r.children.size() != 3) {
    error(r, "a range is (NAME FROM TO), e.g. (i 1 10) (got " + std::to_string(r.children.size()) + " elements)");
    return false;
  }
  if (!validSymbolName(r.children[0], "a variable name")) return false;
  var = r.children[0].text;
  if (isBound(var)) {
    error(r.children[0], "the variable '" + var + "' would hide " +
                             (var == "pi" ? std::string("pi") : vars_.empty() || params_.count(var) ? "a parameter" : "a name in use"));
    return false;
  }
  const bool okFrom = evalInteger(r.children[1], from, "the start of a range");
  const bool okTo = evalInteger(r.children[2], to, "the end of a range");
  if (!okFrom || !okTo) return false;
  if (to - from + 1 > maxNodes_) {
    error(r, "the range of '" + var + "' has " + std::to_string(to - from + 1) +
                 " values; repeat and chain may expand a file to at most " + std::to_string(maxNodes_) + " elements");
    return false;
  }
  return true;
}

// (repeat (NAME FROM TO) item+): the items once per value, as siblings.
void Reader::readRepeat(const Node& n, const Ctx& ctx) {
  std::string var;
  long from = 0, to = 0;
  if (!readRange(n, var, from, to)) return;
  if (n.children.size() < 3) {
    error(n.children[0], "(repeat ...) has nothing to repeat");
    return;
  }
  const bool outermost = !expansionRoot_;
  if (outermost) expansionRoot_ = &n.children[1];
  for (long v = from; v <= to && !stopped_; ++v) {
    if (!charge(n, 2)) break;
    vars_.emplace_back(var, double(v));
    for (size_t i = 2; i < n.children.size() && !stopped_; ++i) item(n.children[i], Ctx{ctx.body, true});
    vars_.pop_back();
  }
  if (outermost) expansionRoot_ = nullptr;
}

// (chain (NAME FROM TO) (next-in NAME)? body): each copy of the body nested in the previous copy
// (in its body named by next-in, else in its outer body).
void Reader::readChain(const Node& n, const Ctx& ctx) {
  std::string var;
  long from = 0, to = 0;
  if (!readRange(n, var, from, to)) return;
  const Node* nextIn = nullptr;
  const Node* templ = nullptr;
  for (size_t i = 2; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (c.isList() && c.head() == "next-in" && !nextIn && !templ) nextIn = &c;
    else if (c.isList() && c.head() == "body" && !templ) templ = &c;
    else {
      error(c, "(chain ...) takes a range, optionally (next-in BODY), and exactly one (body ...); got " + sexpr::describeNode(c));
      return;
    }
  }
  if (!templ) {
    error(n.children[0], "(chain ...) needs one (body ...) to repeat");
    return;
  }
  int parent = ctx.body;
  const bool outermost = !expansionRoot_;
  if (outermost) expansionRoot_ = &n.children[1];
  for (long v = from; v <= to && !stopped_; ++v) {
    vars_.emplace_back(var, double(v));
    if (!charge(n, 2)) break;
    const int first = int(model_.bodies.size());
    const int outer = readBody(*templ, parent, true);
    parent = outer;
    // The body of this copy that holds the next copy.
    if (nextIn && !stopped_) {
      size_t k = 1;
      std::string name;
      SourceRef where;
      if (nextIn->children.size() != 2 || !readName(*nextIn, k, name, where, "one body name")) {
        if (nextIn->children.size() != 2) error(*nextIn, "(next-in ...) takes one body name");
        vars_.pop_back();
        break;
      }
      int found = -1;
      for (int b = first; b < int(model_.bodies.size()); ++b)
        if (model_.bodies[b].name == name) found = b;
      if (found < 0) {
        error(where, "no body '" + name + "' in this copy of the chain");
        vars_.pop_back();
        break;
      }
      parent = found;
    }
    vars_.pop_back();
  }
  if (outermost) expansionRoot_ = nullptr;
}

// ---- final steps -------------------------------------------------------------------------------

// Resolves names referenced by loop joints, springs, controllers, actuators and wrenches.
void Reader::resolveFixups() {
  auto body = [&](const Fixup& f, bool worldAllowed, int& out) {
    if (f.name == "world") {
      if (worldAllowed) {
        out = -1;
        return true;
      }
      return false;
    }
    const int b = bodies_.find(f.name);
    if (b < 0) {
      error(f.where, "unknown body '" + f.name + "'" + suggestion(f.name, bodies_.names()));
      return false;
    }
    out = b;
    return true;
  };
  for (const Fixup& f : fixups_) {
    switch (f.slot) {
      case Fixup::Slot::LoopParent: body(f, true, model_.joints[f.index].parent); break;
      case Fixup::Slot::LoopChild: {
        JointDesc& j = model_.joints[f.index];
        if (f.name == "world") {
          error(f.where, "the child of loop joint '" + j.name + "' must be a body, not the world (swap the two)");
          break;
        }
        if (body(f, false, j.child) && j.child == j.parent)
          error(f.where, "loop joint '" + j.name + "' connects body '" + f.name + "' to itself");
        break;
      }
      case Fixup::Slot::SpringA: body(f, true, model_.springs[f.index].bodyA); break;
      case Fixup::Slot::SpringB: {
        SpringDesc& s = model_.springs[f.index];
        if (body(f, true, s.bodyB) && s.bodyA == s.bodyB)
          error(f.where, "spring '" + s.name + "' has both ends on " + (f.name == "world" ? std::string("the world") : "body '" + f.name + "'"));
        break;
      }
      case Fixup::Slot::PairA:
      case Fixup::Slot::PairB: {
        ContactPairDesc& pr = model_.contactPairs[f.index];
        if (f.name == "world") {
          error(f.where, "contact-pair '" + pr.name + "' is between two bodies; contact with the world is a (ground ...)");
          break;
        }
        if (body(f, false, f.slot == Fixup::Slot::PairA ? pr.bodyA : pr.bodyB) && f.slot == Fixup::Slot::PairB &&
            pr.bodyA == pr.bodyB)
          error(f.where, "contact-pair '" + pr.name + "' names body '" + f.name + "' twice");
        break;
      }
      case Fixup::Slot::ExcludeA:
      case Fixup::Slot::ExcludeB: {
        ExclusionDesc& e = model_.exclusions[f.index];
        if (f.name == "world") {
          error(f.where, "exclude names two bodies (bodies collide with the world only through grounds)");
          break;
        }
        if (body(f, false, f.slot == Fixup::Slot::ExcludeA ? e.bodyA : e.bodyB) && f.slot == Fixup::Slot::ExcludeB &&
            e.bodyA == e.bodyB)
          error(f.where, "exclude names body '" + f.name + "' twice");
        break;
      }
      case Fixup::Slot::WrenchBody:
        if (f.name == "world") error(f.where, "a wrench acts on a body, not on the world");
        else body(f, false, model_.wrenches[f.index].body);
        break;
      case Fixup::Slot::ControllerJoint:
      case Fixup::Slot::ActuatorJoint: {
        const int j = joints_.find(f.name);
        if (j < 0) {
          error(f.where, "unknown joint '" + f.name + "'" + suggestion(f.name, joints_.names()));
          break;
        }
        const JointKind& kind = jointKind(model_.joints[j].type);
        const int nf = kind.freeCoordinates();
        if (f.slot == Fixup::Slot::ControllerJoint) {
          ControllerDesc& c = model_.controllers[f.index];
          c.joint = j;
          if (c.coordinate >= nf) {
            const auto& props = map_.controllers[f.index].properties;
            const auto coord = props.find("coordinate");
            const SourceRef where =
                coord != props.end() && !coord->second.values.empty() ? coord->second.values[0] : f.where;
            error(where, "joint '" + f.name + "' (" + kind.name + ") has " + std::to_string(nf) + " free coordinate" +
                             (nf == 1 ? "" : "s") + (nf > 0 ? ", numbered from 0" : "") + "; there is no coordinate " +
                             std::to_string(c.coordinate));
          }
        } else {
          model_.actuators[f.index].joint = j;
          if (nf == 0) error(f.where, "joint '" + f.name + "' (" + kind.name + ") has no free coordinates to actuate");
          else if (int(f.count) != 1 && int(f.count) != nf)
            error(map_.actuators[f.index].properties["effort"].form,
                  "joint '" + f.name + "' (" + kind.name + ") has " + std::to_string(nf) + " free coordinates: (effort ...) takes 1 or " +
                      std::to_string(nf) + " numbers (got " + std::to_string(f.count) + ")");
        }
        break;
      }
    }
  }
}

// Top-level bodies joined to nothing fall freely: warn unless that is stated.
void Reader::warnUnconnected() {
  const std::set<std::string> looped(loopBodyRefs_.begin(), loopBodyRefs_.end());
  for (size_t b = 0; b < model_.bodies.size(); ++b) {
    const BodyExtra& ex = extra_[b];
    if (ex.enclosing >= 0 || ex.hasJoint || ex.intent || looped.count(model_.bodies[b].name)) continue;
    warning(ex.nameRef, "body '" + model_.bodies[b].name +
                            "' is not connected to the mechanism by any joint and will fall freely (add a (joint ...), "
                            "or give it an initial (position ...) or (velocity ...) if it is meant to be free)");
  }
}

// Applies (order (bodies …) (joints …)): renumbers bodies and joints and every index referring to them.
void Reader::applyOrder() {
  // Permutation newIndex → oldIndex from a list of names; false (reported) unless a permutation.
  auto permutation = [&](const OrderList& list, const NameTable& table, size_t count, const std::string& kind,
                         std::vector<int>& perm) {
    std::vector<bool> used(count, false);
    bool ok = true;
    for (const auto& [name, where] : list.names) {
      const int k = table.find(name);
      if (k < 0) {
        error(where, "unknown " + kind + " '" + name + "'" + suggestion(name, table.names()));
        ok = false;
      } else if (used[k]) {
        error(where, kind + " '" + name + "' is listed twice in (order ...)");
        ok = false;
      } else {
        used[k] = true;
        perm.push_back(k);
      }
    }
    for (size_t k = 0; k < count && ok; ++k)
      if (!used[k]) {
        error(list.form, "(order ...) must list every " + kind + "; '" + (kind == "body" ? model_.bodies[k].name : model_.joints[k].name) +
                             "' is missing");
        ok = false;
      }
    return ok;
  };
  // Bodies.
  std::vector<int> bp, jp;
  if (bodyOrder_.present && permutation(bodyOrder_, bodies_, model_.bodies.size(), "body", bp)) {
    std::vector<int> newIndex(bp.size());
    for (size_t k = 0; k < bp.size(); ++k) newIndex[bp[k]] = int(k);
    std::vector<BodyDesc> bodies;
    std::vector<ElementSource> sources;
    for (int old : bp) {
      bodies.push_back(std::move(model_.bodies[old]));
      sources.push_back(std::move(map_.bodies[old]));
    }
    model_.bodies = std::move(bodies);
    map_.bodies = std::move(sources);
    auto remap = [&](int& i) {
      if (i >= 0 && i < int(newIndex.size())) i = newIndex[i];
    };
    for (JointDesc& j : model_.joints) remap(j.parent), remap(j.child);
    for (SpringDesc& s : model_.springs) remap(s.bodyA), remap(s.bodyB);
    for (WrenchDesc& w : model_.wrenches) remap(w.body);
    for (ContactPairDesc& pr : model_.contactPairs) remap(pr.bodyA), remap(pr.bodyB);
    for (ExclusionDesc& e : model_.exclusions) remap(e.bodyA), remap(e.bodyB);
  }
  // Joints.
  if (jointOrder_.present && permutation(jointOrder_, joints_, model_.joints.size(), "joint", jp)) {
    std::vector<int> newIndex(jp.size());
    for (size_t k = 0; k < jp.size(); ++k) newIndex[jp[k]] = int(k);
    std::vector<JointDesc> joints;
    std::vector<ElementSource> sources;
    for (int old : jp) {
      joints.push_back(std::move(model_.joints[old]));
      sources.push_back(std::move(map_.joints[old]));
    }
    model_.joints = std::move(joints);
    map_.joints = std::move(sources);
    for (ControllerDesc& c : model_.controllers)
      if (c.joint >= 0 && c.joint < int(newIndex.size())) c.joint = newIndex[c.joint];
    for (ActuatorDesc& a : model_.actuators)
      if (a.joint >= 0 && a.joint < int(newIndex.size())) a.joint = newIndex[a.joint];
  }
}

// Every keyframe names each body of the model once (after (order …): bodies in their final order).
void Reader::resolveKeyframes() {
  std::vector<std::string> bodyNames;
  for (const BodyDesc& b : model_.bodies) bodyNames.push_back(b.name);
  for (size_t k = 0; k < model_.keyframes.size(); ++k) {
    KeyframeDesc& kf = model_.keyframes[k];
    const ElementSource& src = map_.keyframes[k];
    const std::string owner = "keyframe '" + kf.name + "'";
    for (const auto& [name, ps] : src.properties)
      if (model_.bodyIndex(name) < 0)
        error(ps.values[0], owner + " names body '" + name + "' that the model does not have" + suggestion(name, bodyNames));
    std::vector<std::string> missing;
    for (const BodyDesc& b : model_.bodies)
      if (!b.name.empty() && !src.properties.count(b.name)) missing.push_back(b.name);
    if (!missing.empty()) {
      std::string list;
      const size_t shown = std::min<size_t>(missing.size(), 5);
      for (size_t m = 0; m < shown; ++m) list += std::string(m == 0 ? "" : m + 1 == shown && shown == missing.size() ? " and " : ", ") + "'" + missing[m] + "'";
      if (missing.size() > shown) list += " and " + std::to_string(missing.size() - shown) + " more";
      error(src.name, owner + " has no state for bod" + std::string(missing.size() == 1 ? "y " : "ies ") + list);
    }
    std::stable_sort(kf.bodies.begin(), kf.bodies.end(), [&](const KeyframeBody& a, const KeyframeBody& b) {
      return unsigned(model_.bodyIndex(a.body)) < unsigned(model_.bodyIndex(b.body));
    });
  }
}

}  // namespace

// ---- shape geometry ----------------------------------------------------------------------------

namespace {
// Mass properties of a collision mesh's convex hull; false for a mesh without vertices (visual only).
bool meshHullProperties(const ShapeDesc& s, contact::HullMassProperties& mp) {
  if (s.meshVertices.empty()) return false;
  contact::ConvexHull hull;
  std::string why;
  if (!contact::buildConvexHull(s.meshVertices, hull, why)) return false;
  mp = contact::hullMassProperties(hull);
  return mp.volume > 0;
}
}  // namespace

bool shapeVolume(const ShapeDesc& s, double& volume) {
  const double r = s.size.x(), l = s.size.y();
  switch (s.kind) {
    case ShapeDesc::Kind::Box: volume = s.size.x() * s.size.y() * s.size.z(); return true;
    case ShapeDesc::Kind::Sphere: volume = 4.0 / 3.0 * kPi * r * r * r; return true;
    case ShapeDesc::Kind::Cylinder: volume = kPi * r * r * l; return true;
    case ShapeDesc::Kind::Capsule: volume = kPi * r * r * l + 4.0 / 3.0 * kPi * r * r * r; return true;
    case ShapeDesc::Kind::Mesh: {
      contact::HullMassProperties mp;
      if (!meshHullProperties(s, mp)) return false;
      volume = mp.volume;
      return true;
    }
    case ShapeDesc::Kind::Plane: return false;
  }
  return false;
}

bool shapeInertia(const ShapeDesc& s, double m, Mat3& inertia) {
  const double r = s.size.x(), l = s.size.y();
  Vec3 d = Vec3::Zero();
  switch (s.kind) {
    case ShapeDesc::Kind::Box: {
      const Vec3& e = s.size;
      d = Vec3(m * (e.y() * e.y() + e.z() * e.z()) / 12, m * (e.x() * e.x() + e.z() * e.z()) / 12,
               m * (e.x() * e.x() + e.y() * e.y()) / 12);
      break;
    }
    case ShapeDesc::Kind::Sphere: d = Vec3::Constant(0.4 * m * r * r); break;
    case ShapeDesc::Kind::Cylinder: {
      const double t = m * (3 * r * r + l * l) / 12.0;
      d = Vec3(t, t, 0.5 * m * r * r);
      break;
    }
    case ShapeDesc::Kind::Capsule: {
      // Cylinder plus two hemispheres, mass shared by volume (hemisphere centroid 3r/8 from its base).
      const double vc = kPi * r * r * l, vs = 4.0 / 3.0 * kPi * r * r * r;
      const double mc = m * vc / (vc + vs), ms = m * vs / (vc + vs);
      const double t = mc * (3 * r * r + l * l) / 12.0 + ms * (0.4 * r * r + l * l / 4 + 3 * l * r / 8);
      d = Vec3(t, t, 0.5 * mc * r * r + 0.4 * ms * r * r);
      break;
    }
    case ShapeDesc::Kind::Mesh: {
      // The hull as a uniform solid of mass m, about its centroid (its offset ignored, like `at`).
      contact::HullMassProperties mp;
      if (!meshHullProperties(s, mp)) return false;
      inertia = mp.inertiaPerDensity * (m / mp.volume);
      if (s.orientation != Vec4(1, 0, 0, 0) && s.orientation.norm() > 0) {
        const Mat3 R = quat::rotation(s.orientation.normalized());
        inertia = R * inertia * R.transpose();
      }
      inertia = 0.5 * (inertia + inertia.transpose()).eval();
      return true;
    }
    case ShapeDesc::Kind::Plane: return false;
  }
  inertia = d.asDiagonal();
  // Rotate into the body frame when the shape is rotated.
  if (s.orientation != Vec4(1, 0, 0, 0) && s.orientation.norm() > 0) {
    const Mat3 R = quat::rotation(s.orientation.normalized());
    inertia = R * inertia * R.transpose();
    inertia = 0.5 * (inertia + inertia.transpose()).eval();
  }
  return true;
}

// ---- entry points ------------------------------------------------------------------------------

bool readMech(const sexpr::Document& doc, const std::map<std::string, std::string>& overrides, MechParseResult& out,
              Diagnostics& diags, long maxExpandedForms) {
  out = MechParseResult();
  Diagnostics mine;
  Reader reader(doc, mine, out, maxExpandedForms);
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
