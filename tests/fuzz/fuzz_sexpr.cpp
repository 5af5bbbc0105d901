// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the s-expression reader (engine/io/sexpr.h): parses arbitrary bytes, then
// exercises position(), atoms(), nodeAt() and a replaced() of the first atom, and traps on any
// broken invariant (text not kept, spans out of order, an edit touching other bytes).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "io/sexpr.h"

namespace {

// Aborts the run (libFuzzer reports a crash with the input) when an invariant does not hold.
void require(bool ok) {
  if (!ok) __builtin_trap();
}

// Walks the tree with an explicit stack and checks spans, ordering, positions and depth.
void checkTree(const ms::sexpr::Document& doc) {
  using ms::sexpr::Node;
  const std::string& t = doc.text();
  const Node& root = doc.root();
  require(root.isList() && root.begin == 0 && root.end == t.size());
  struct Item {
    const Node* node;
    int depth;
  };
  std::vector<Item> stack{{&root, 0}};
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    const Node& n = *it.node;
    require(n.end <= t.size());
    int line = 0, column = 0;
    doc.position(n.begin, line, column);
    require(line == n.line && column == n.column);
    // Atoms: non-empty spans; symbols and numbers are their own text.
    if (!n.isList()) {
      require(n.begin < n.end && n.children.empty());
      if (!n.isString()) require(n.text == t.substr(n.begin, n.end - n.begin));
      continue;
    }
    // Lists: bounded depth, children ordered and inside the parentheses.
    require(it.depth <= ms::sexpr::kMaxNesting);
    size_t lo = 0, hi = n.end;
    if (&n != &root) {
      require(n.begin < n.end && t[n.begin] == '(');
      lo = n.begin + 1;
      if (n.closed) {
        require(t[n.end - 1] == ')');
        hi = n.end - 1;
      }
    }
    for (const Node& c : n.children) {
      require(c.begin >= lo && c.end <= hi);
      lo = c.end;
      stack.push_back({&c, it.depth + 1});
    }
  }
}

}  // namespace

// One input: parse, check the tree, query positions and nodes, edit the first atom and re-check.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ms::Diagnostics diags;
  const ms::sexpr::Document doc = ms::sexpr::Document::parse(text, "fuzz.mech", diags);
  require(doc.text() == text);
  require(diags.errorCount() <= ms::sexpr::kMaxErrors);
  for (const ms::Diagnostic& d : diags.items()) {
    if (d.severity == ms::Severity::Error) require(d.line >= 1 && d.column >= 1);
    (void)d.format();
  }
  checkTree(doc);
  // Positions and innermost nodes at a few offsets, including past the end.
  for (size_t off : {size_t(0), size / 2, size, size + 7}) {
    int line = 0, column = 0;
    doc.position(off, line, column);
    require(line >= 1 && column >= 1);
    const ms::sexpr::Node* at = doc.nodeAt(off);
    require(at != nullptr);
    if (at != &doc.root()) require(at->begin <= off && off < at->end);
  }
  // Replace the first atom: every other byte stays, and the result parses just as safely.
  const std::vector<const ms::sexpr::Node*> atoms = doc.atoms();
  if (!atoms.empty()) {
    const ms::sexpr::Node& a = *atoms.front();
    const std::string replacement = a.isNumber() ? ms::sexpr::formatNumber(a.number * 2) : ms::sexpr::quote(a.text);
    ms::Diagnostics editDiags;
    const ms::sexpr::Document edited = doc.replaced(a.begin, a.end, replacement, editDiags);
    require(edited.text() == text.substr(0, a.begin) + replacement + text.substr(a.end));
    checkTree(edited);
  }
  // Numbers print and re-read exactly.
  for (const ms::sexpr::Node* a : atoms) {
    if (!a->isNumber()) continue;
    ms::Diagnostics numDiags;
    const ms::sexpr::Document n = ms::sexpr::Document::parse(ms::sexpr::formatNumber(a->number), "", numDiags);
    require(numDiags.empty() && n.root().children.size() == 1 && n.root().children[0].isNumber() &&
            n.root().children[0].number == a->number);
    break;
  }
  return 0;
}
