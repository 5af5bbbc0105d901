// SPDX-License-Identifier: GPL-3.0-or-later
// Lossless s-expression syntax tree, shared by the MechStudio language (.mech) and trep files.
//
// A Document owns the source text; every node records the byte span it came from, so
//  - text → tree → text is byte-identical (the text is kept; nodes only point into it),
//  - an edit replaces exactly one span and leaves every other byte (comments, layout) untouched,
//    after which the document is re-parsed.
// Lexical syntax: '(' and ')' delimit lists; ';' starts a comment to the end of the line; strings
// are "..." with \" \\ \n \t escapes; anything else up to whitespace, parentheses, '"' or ';' is an
// atom, classified as a number when it parses completely as a decimal floating-point number
// (e.g. -1.5e-3), otherwise as a symbol. Nothing is case-folded (trep readers may fold themselves).
// Details (parse() reports each violation at its line:column and carries on):
//  - Lines are split on '\n' only ("\r\n" works: '\r' is whitespace); columns count bytes, so a tab
//    or a UTF-8 character advances the column by its byte count. Bytes >= 0x80 are ordinary atom and
//    string bytes (no UTF-8 validation).
//  - Whitespace is space, \t \n \r \f \v. Other control bytes (0x00-0x1f, 0x7f) outside strings and
//    comments are errors ("invalid character"); a run of them is reported once and skipped.
//  - A string must end on the line where it starts (write \n for a newline); otherwise it is
//    reported at its opening '"' and ends at the end of that line. Inside a string every byte other
//    than '"', '\\' and '\n' is taken literally. An unknown escape is reported at its '\\' and kept
//    as written (both bytes).
//  - Number grammar: [+-]? (digits ['.' digits?] | '.' digits) ([eE] [+-]? digits)?, no hex, inf or
//    nan. A token that fits the grammar but overflows a double is a symbol; one that underflows is
//    the number ±0.
//  - A stray ')' is reported and skipped. A list still open at end of file is reported at its '('
//    and ends after its last element (closed = false).
//  - Lists nested deeper than kMaxNesting are reported at the offending '(' and skipped up to their
//    matching ')' (no node); at most kMaxErrors errors are reported per parse, then one note.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/diagnostics.h"

namespace ms::sexpr {

// Deepest list nesting parse() builds nodes for (so tree recursion, copies and destructors are bounded).
constexpr int kMaxNesting = 1000;
// Errors reported by one parse(); further ones are counted in a final note.
constexpr int kMaxErrors = 100;

enum class Kind { List, Symbol, Number, String };

struct Node {
  Kind kind = Kind::List;
  size_t begin = 0, end = 0;  // byte span in Document::text(); for lists from '(' to past ')'
  int line = 0, column = 0;   // 1-based position of `begin`
  std::string text;           // atoms: the token exactly as written; strings: the unescaped value
  double number = 0;          // Kind::Number
  std::vector<Node> children; // Kind::List
  bool closed = true;         // List: false if the closing ')' was missing (error reported)

  bool isList() const { return kind == Kind::List; }
  bool isSymbol(const char* s = nullptr) const { return kind == Kind::Symbol && (!s || text == s); }
  bool isNumber() const { return kind == Kind::Number; }
  bool isString() const { return kind == Kind::String; }
  // For a list whose first element is a symbol: that symbol's text; otherwise "".
  const std::string& head() const;
  // The first child list whose head() is `name`, or nullptr.
  const Node* find(const std::string& name) const;
};

class Document {
 public:
  Document() = default;
  // Parses `text`; syntax errors (unbalanced parentheses, unterminated strings, bad escapes, stray
  // ')') are added to `diags` with fileName:line:column and parsing recovers to continue. Never
  // throws, never recurses unboundedly (deep nesting is reported as an error beyond a limit).
  static Document parse(std::string text, std::string fileName, Diagnostics& diags);

  const std::string& text() const { return text_; }
  const std::string& fileName() const { return fileName_; }
  // The top-level forms (a virtual list spanning the whole text).
  const Node& root() const { return root_; }
  // 1-based line and column of a byte offset (offsets past the end map to the end of the text).
  void position(size_t offset, int& line, int& column) const;
  // Every atom (symbol, number, string) in source order; pointers into root(), valid while this
  // document is neither modified nor destroyed.
  std::vector<const Node*> atoms() const;
  // The innermost node whose span [begin, end) contains `offset`; &root() if no node does.
  const Node* nodeAt(size_t offset) const;

  // Replace the bytes [begin, end) with `replacement` and re-parse. Returns the new document; the
  // text outside the span is unchanged byte for byte. end is clamped to text().size() and begin to end.
  Document replaced(size_t begin, size_t end, const std::string& replacement, Diagnostics& diags) const;

 private:
  std::string text_, fileName_;
  Node root_;
  std::vector<size_t> lineStarts_;
};

// Render an atom for writing: numbers in shortest round-trip form, strings quoted and escaped,
// symbols as they are.
// formatNumber: the shortest text that parses back to exactly v (std::to_chars, independent of the
// C locale): integers without ".0" ("3", "-0"), "0.1", "1e+22", "5e-324"; where fixed notation is
// shorter, large integers keep all their digits ("664474382621949824"). Non-finite values give the
// symbols "inf", "-inf", "nan" (they do not parse back as numbers).
std::string formatNumber(double v);
// quote: '"' + s with '"' '\\' newline and tab escaped + '"'; parses back to exactly s (any bytes).
std::string quote(const std::string& s);
// A short rendering of a node for messages: 'atom' (40 characters at most), the string "…",
// (head ...), a list, ().
std::string describeNode(const Node& n);

}  // namespace ms::sexpr
