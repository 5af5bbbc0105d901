// SPDX-License-Identifier: GPL-3.0-or-later
// Lexer and parser of the lossless s-expression syntax tree (syntax and error handling: sexpr.h).
// One left-to-right pass over the bytes with an explicit stack of open lists: no recursion, linear
// time, every error reported at its byte position and parsing continues after it.
#include "io/sexpr.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <system_error>
#include <utility>

namespace ms::sexpr {

namespace {

// Whitespace: space, \t \n \v \f \r (the "C" locale's isspace, without depending on the locale).
bool isSpace(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Control bytes that are not whitespace: errors outside strings and comments.
bool isControl(unsigned char c) { return (c < 0x20 && !isSpace(c)) || c == 0x7f; }

// Bytes that end an atom.
bool isDelimiter(unsigned char c) {
  return isSpace(c) || c == '(' || c == ')' || c == '"' || c == ';' || isControl(c);
}

// ASCII decimal digit.
bool isDigit(char c) { return c >= '0' && c <= '9'; }

// "0x1f": a byte in hex for messages.
std::string hexByte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", c);
  return buf;
}

// Parses `tok` as a number if it matches [+-]?(digits['.'digits?]|'.'digits)([eE][+-]?digits)? and
// its value is finite (underflow gives ±0, overflow is not a number). Locale-independent.
bool parseNumber(std::string_view tok, double& value) {
  const size_t n = tok.size();
  size_t i = 0;
  bool negative = false;
  // Sign.
  if (i < n && (tok[i] == '+' || tok[i] == '-')) {
    negative = tok[i] == '-';
    ++i;
  }
  // Mantissa: integer digits, optional '.', fraction digits; at least one digit in all.
  const size_t mantissa = i;
  size_t intDigits = 0, fracDigits = 0;
  while (i < n && isDigit(tok[i])) ++i, ++intDigits;
  if (i < n && tok[i] == '.') {
    ++i;
    while (i < n && isDigit(tok[i])) ++i, ++fracDigits;
  }
  if (intDigits + fracDigits == 0) return false;
  const size_t mantissaEnd = i;
  // Exponent (saturated; only its sign and rough size matter for the range check below).
  long long exponent = 0;
  if (i < n && (tok[i] == 'e' || tok[i] == 'E')) {
    ++i;
    bool expNegative = false;
    if (i < n && (tok[i] == '+' || tok[i] == '-')) {
      expNegative = tok[i] == '-';
      ++i;
    }
    size_t expDigits = 0;
    while (i < n && isDigit(tok[i])) {
      if (exponent < 1000000000LL) exponent = exponent * 10 + (tok[i] - '0');
      ++i, ++expDigits;
    }
    if (expDigits == 0) return false;
    if (expNegative) exponent = -exponent;
  }
  if (i != n) return false;
  // Conversion (std::from_chars takes no '+').
  const char* first = tok.data() + (tok[0] == '+' ? 1 : 0);
  const char* last = tok.data() + n;
  double v = 0;
  const std::from_chars_result r = std::from_chars(first, last, v, std::chars_format::general);
  if (r.ec == std::errc() && r.ptr == last) {
    if (!std::isfinite(v)) return false;
    value = v;
    return true;
  }
  if (r.ec != std::errc::result_out_of_range) return false;
  // Out of range: the decimal exponent of the first significant digit tells underflow from overflow.
  long long magnitude = 0;
  bool nonzero = false;
  size_t digitIndex = 0;  // index among the mantissa's digits
  for (size_t k = mantissa; k < mantissaEnd && !nonzero; ++k) {
    if (tok[k] == '.') continue;
    if (tok[k] != '0') {
      nonzero = true;
      magnitude = static_cast<long long>(intDigits) - 1 - static_cast<long long>(digitIndex);
    }
    ++digitIndex;
  }
  if (nonzero && magnitude + exponent >= 0) return false;  // overflow: not a finite number
  value = negative ? -0.0 : 0.0;                            // underflow (or zero): ±0
  return true;
}

// Line and column (1-based, bytes) of `offset` given the offsets at which lines start.
void positionIn(const std::vector<size_t>& lineStarts, size_t textSize, size_t offset, int& line, int& column) {
  offset = std::min(offset, textSize);
  if (lineStarts.empty()) {
    line = 1;
    column = static_cast<int>(std::min<size_t>(offset + 1, INT_MAX));
    return;
  }
  const size_t idx = static_cast<size_t>(std::upper_bound(lineStarts.begin(), lineStarts.end(), offset) -
                                         lineStarts.begin()) - 1;
  line = static_cast<int>(std::min<size_t>(idx + 1, INT_MAX));
  column = static_cast<int>(std::min<size_t>(offset - lineStarts[idx] + 1, INT_MAX));
}

// One parse: scans the text once, builds the tree on an explicit stack and collects errors.
class Parser {
 public:
  Parser(const std::string& text, const std::vector<size_t>& lineStarts) : text_(text), lineStarts_(lineStarts) {}

  // Runs the parse and returns the root (a virtual list spanning the whole text).
  Node run() {
    const size_t n = text_.size();
    // The root is open[0]; open[k] is the k-th enclosing list.
    Node root;
    root.kind = Kind::List;
    root.begin = 0;
    root.end = n;
    root.line = 1;
    root.column = 1;
    open_.reserve(64);
    open_.push_back(std::move(root));
    // Main loop: one token (or one skipped run of whitespace, comment or control bytes) per turn.
    size_t i = 0;
    while (i < n) {
      const unsigned char c = static_cast<unsigned char>(text_[i]);
      if (isSpace(c)) {
        ++i;
      } else if (c == ';') {
        while (i < n && text_[i] != '\n') ++i;
      } else if (c == '(') {
        openList(i);
        ++i;
      } else if (c == ')') {
        closeList(i);
        ++i;
      } else if (c == '"') {
        i = lexString(i);
      } else if (isControl(c)) {
        const size_t start = i;
        while (i < n && isControl(static_cast<unsigned char>(text_[i]))) ++i;
        std::string msg = "invalid character " + hexByte(c);
        if (i - start > 1) msg += " (and " + std::to_string(i - start - 1) + " more control bytes)";
        error(start, msg + " outside a string or comment");
      } else {
        i = lexAtom(i);
      }
    }
    // End of file: report lists still open (outermost first), then close them innermost first.
    for (size_t k = 1; k < open_.size(); ++k) error(open_[k].begin, "unclosed '(': no matching ')' before end of file");
    while (open_.size() > 1) {
      Node node = std::move(open_.back());
      open_.pop_back();
      node.closed = false;
      node.end = node.children.empty() ? node.begin + 1 : node.children.back().end;
      open_.back().children.push_back(std::move(node));
    }
    Node result = std::move(open_.back());
    open_.clear();
    return result;
  }

  // Adds the collected errors to `diags` (at most kMaxErrors, then a note with the rest's count).
  void report(const std::string& file, Diagnostics& diags) const {
    for (const Pending& p : errors_) {
      int line = 0, column = 0;
      positionIn(lineStarts_, text_.size(), p.offset, line, column);
      diags.error(file, line, column, p.message);
    }
    if (suppressed_ > 0)
      diags.add(Severity::Note, file, 0, 0,
                std::to_string(suppressed_) + " more syntax error" + (suppressed_ > 1 ? "s" : "") + " not shown");
  }

 private:
  struct Pending {
    size_t offset;
    std::string message;
  };

  // Records an error at a byte offset (counted only, once kMaxErrors are recorded).
  void error(size_t offset, std::string message) {
    if (errors_.size() < static_cast<size_t>(kMaxErrors))
      errors_.push_back({offset, std::move(message)});
    else
      ++suppressed_;
  }

  // Fills in a node's position from its begin offset.
  void locate(Node& node) const { positionIn(lineStarts_, text_.size(), node.begin, node.line, node.column); }

  // Appends a finished atom to the innermost open list (dropped inside a skipped too-deep list).
  void addAtom(Node&& node) {
    if (skipDepth_ > 0) return;
    locate(node);
    open_.back().children.push_back(std::move(node));
  }

  // '(' at offset i: opens a list, or starts/extends skipping when nesting is too deep.
  void openList(size_t i) {
    if (skipDepth_ > 0) {
      ++skipDepth_;
      return;
    }
    if (open_.size() - 1 >= static_cast<size_t>(kMaxNesting)) {
      error(i, "nesting too deep: more than " + std::to_string(kMaxNesting) +
                   " nested lists (this list is skipped up to its ')')");
      skipDepth_ = 1;
      return;
    }
    Node node;
    node.kind = Kind::List;
    node.begin = i;
    node.end = i + 1;
    node.closed = false;
    locate(node);
    open_.push_back(std::move(node));
  }

  // ')' at offset i: closes the innermost open list, ends a skipped region, or is a stray ')'.
  void closeList(size_t i) {
    if (skipDepth_ > 0) {
      --skipDepth_;
      return;
    }
    if (open_.size() == 1) {
      error(i, "unexpected ')' without a matching '('");
      return;
    }
    Node node = std::move(open_.back());
    open_.pop_back();
    node.end = i + 1;
    node.closed = true;
    open_.back().children.push_back(std::move(node));
  }

  // A symbol or number starting at i; returns the offset after it.
  size_t lexAtom(size_t i) {
    const size_t n = text_.size();
    const size_t start = i;
    while (i < n && !isDelimiter(static_cast<unsigned char>(text_[i]))) ++i;
    if (skipDepth_ > 0) return i;
    Node node;
    node.begin = start;
    node.end = i;
    node.text.assign(text_, start, i - start);
    node.kind = parseNumber(node.text, node.number) ? Kind::Number : Kind::Symbol;
    addAtom(std::move(node));
    return i;
  }

  // A string whose opening '"' is at i; returns the offset after it (after the closing '"', or at
  // the end of the line / file when unterminated).
  size_t lexString(size_t i) {
    const size_t n = text_.size();
    const size_t start = i++;
    std::string value;
    bool terminated = false;
    // Body: literal bytes and escapes up to the closing '"' or the end of the line.
    while (i < n) {
      const char c = text_[i];
      if (c == '"') {
        ++i;
        terminated = true;
        break;
      }
      if (c == '\n') break;
      if (c != '\\') {
        value += c;
        ++i;
        continue;
      }
      // Escape: a '\' at the end of a line or file leaves the string unterminated.
      if (i + 1 >= n || text_[i + 1] == '\n' || (text_[i + 1] == '\r' && (i + 2 >= n || text_[i + 2] == '\n'))) {
        ++i;
        break;
      }
      const unsigned char e = static_cast<unsigned char>(text_[i + 1]);
      switch (e) {
        case '"': value += '"'; break;
        case '\\': value += '\\'; break;
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        default: {
          const std::string shown = (e > 0x20 && e < 0x7f) ? "'\\" + std::string(1, static_cast<char>(e)) + "'"
                                                             : "'\\' followed by byte " + hexByte(e);
          error(i, "unknown escape sequence " + shown + " in string (valid: \\\" \\\\ \\n \\t)");
          value += '\\';
          value += static_cast<char>(e);
        }
      }
      i += 2;
    }
    // Unterminated: reported at the opening quote; the string ends at the line end (before the
    // '\r' of a "\r\n") or at the end of the file.
    size_t stop = i;
    if (!terminated) {
      if (stop > start + 1 && text_[stop - 1] == '\r' && !value.empty() && value.back() == '\r') {
        --stop;
        value.pop_back();
      }
      const bool eol = i < n && (text_[i] == '\n' || (text_[i] == '\r' && i + 1 < n && text_[i + 1] == '\n'));
      error(start, std::string("unterminated string: missing closing '\"' before end of ") + (eol ? "line" : "file"));
    }
    if (skipDepth_ == 0) {
      Node node;
      node.kind = Kind::String;
      node.begin = start;
      node.end = stop;
      node.text = std::move(value);
      addAtom(std::move(node));
    }
    return stop;
  }

  const std::string& text_;
  const std::vector<size_t>& lineStarts_;
  std::vector<Node> open_;
  int skipDepth_ = 0;  // > 0 while inside a list nested deeper than kMaxNesting
  std::vector<Pending> errors_;
  long suppressed_ = 0;
};

}  // namespace

// The first element's text when it is a symbol.
const std::string& Node::head() const {
  static const std::string empty;
  if (kind == Kind::List && !children.empty() && children.front().kind == Kind::Symbol) return children.front().text;
  return empty;
}

// First child list with the given head.
const Node* Node::find(const std::string& name) const {
  for (const Node& c : children)
    if (c.isList() && c.head() == name) return &c;
  return nullptr;
}

// Keeps the text, indexes its lines, builds the tree and reports syntax errors.
Document Document::parse(std::string text, std::string fileName, Diagnostics& diags) {
  Document doc;
  doc.text_ = std::move(text);
  doc.fileName_ = std::move(fileName);
  // Line index: offset of the first byte of every line.
  doc.lineStarts_.push_back(0);
  for (size_t i = 0; i < doc.text_.size(); ++i)
    if (doc.text_[i] == '\n') doc.lineStarts_.push_back(i + 1);
  // Tree and errors.
  Parser parser(doc.text_, doc.lineStarts_);
  doc.root_ = parser.run();
  parser.report(doc.fileName_, diags);
  return doc;
}

// Line and column of a byte offset.
void Document::position(size_t offset, int& line, int& column) const {
  positionIn(lineStarts_, text_.size(), offset, line, column);
}

// Depth-first walk with an explicit stack, collecting atoms in source order.
std::vector<const Node*> Document::atoms() const {
  std::vector<const Node*> out;
  std::vector<std::pair<const Node*, size_t>> stack;
  stack.emplace_back(&root_, 0);
  while (!stack.empty()) {
    const Node* node = stack.back().first;
    const size_t idx = stack.back().second;
    if (idx >= node->children.size()) {
      stack.pop_back();
      continue;
    }
    ++stack.back().second;
    const Node* child = &node->children[idx];
    if (child->isList())
      stack.emplace_back(child, 0);
    else
      out.push_back(child);
  }
  return out;
}

// Descends from the root through the child containing `offset` (children are sorted and disjoint).
const Node* Document::nodeAt(size_t offset) const {
  const Node* cur = &root_;
  while (cur->isList() && !cur->children.empty()) {
    const std::vector<Node>& ch = cur->children;
    auto it = std::upper_bound(ch.begin(), ch.end(), offset, [](size_t o, const Node& c) { return o < c.end; });
    if (it == ch.end() || it->begin > offset) break;
    cur = &*it;
  }
  return cur;
}

// Splices the replacement into a copy of the text and parses the result.
Document Document::replaced(size_t begin, size_t end, const std::string& replacement, Diagnostics& diags) const {
  const size_t e = std::min(end, text_.size());
  const size_t b = std::min(begin, e);
  std::string t;
  t.reserve(text_.size() - (e - b) + replacement.size());
  t.append(text_, 0, b);
  t += replacement;
  t.append(text_, e, std::string::npos);
  return parse(std::move(t), fileName_, diags);
}

// Shortest round-trip decimal form via std::to_chars (no locale involved).
std::string formatNumber(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// '"' + escaped bytes + '"'.
std::string describeNode(const Node& n) {
  switch (n.kind) {
    case Kind::Number:
    case Kind::Symbol: return "'" + (n.text.size() > 40 ? n.text.substr(0, 40) + "..." : n.text) + "'";
    case Kind::String: return "the string " + quote(n.text.size() > 40 ? n.text.substr(0, 40) + "..." : n.text);
    case Kind::List:
      if (n.children.empty()) return "()";
      return n.head().empty() ? std::string("a list") : "(" + n.head() + " ...)";
  }
  return "?";
}

std::string quote(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  out += '"';
  return out;
}

}  // namespace ms::sexpr
