// SPDX-License-Identifier: GPL-3.0-or-later
// The .mech reader's evaluation stage (docs/model-language.md): numeric expressions (arithmetic,
// functions, `if`), parameters and --set overrides, names with {expr} parts, and the expansion of
// repeat/chain under the expansion budget.
#include "io/mech_reader_internal.h"

#include <cmath>

namespace ms::mechread {

namespace {

// Largest magnitude accepted for integers (repeat bounds, coordinates, iteration counts).
constexpr double kMaxInteger = 1e9;

// The functions of expressions, and the comparisons allowed as the condition of (if …).
const std::vector<std::string> kFunctions = {"+", "-", "*", "/", "deg", "sqrt", "sin", "cos", "min", "max", "if"};
const std::vector<std::string> kComparisons = {"=", "<", ">", "<=", ">="};

}  // namespace

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

}  // namespace ms::mechread
