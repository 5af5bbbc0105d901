// SPDX-License-Identifier: GPL-3.0-or-later
// Tests of the lossless s-expression syntax tree (engine/io/sexpr.h) and of Diagnostics
// (engine/core/diagnostics.h): byte-identical round trips, node positions, every kind of syntax
// error at its exact line:column with recovery, single-span edits, number formatting that
// round-trips, and robustness against deep nesting and random bytes.
#include <QTest>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/diagnostics.h"
#include "io/sexpr.h"
#include "thread_clock.h"

using namespace ms;
using namespace ms::sexpr;

namespace {

// std::string from a QByteArray, keeping NUL bytes.
std::string bytes(const QByteArray& a) { return std::string(a.constData(), static_cast<size_t>(a.size())); }

// Bytes that are only whitespace and ';' comments (what the tree does not represent).
bool isTrivia(const std::string& t, size_t b, size_t e) {
  size_t i = b;
  while (i < e) {
    const unsigned char c = static_cast<unsigned char>(t[i]);
    if (c == ' ' || (c >= '\t' && c <= '\r')) {
      ++i;
    } else if (c == ';') {
      while (i < e && t[i] != '\n') ++i;
    } else {
      return false;
    }
  }
  return true;
}

// Checks the structural invariants of a parsed document without recursion; returns "" or the first
// violation. With `trivia`, also checks that every byte outside atoms and parentheses is whitespace
// or comment (i.e. the tree accounts for the whole text; meaningful for error-free input).
QString checkTree(const Document& doc, bool trivia) {
  const std::string& t = doc.text();
  const Node& root = doc.root();
  if (!root.isList() || root.begin != 0 || root.end != t.size() || root.line != 1 || root.column != 1)
    return "bad root";
  struct Item {
    const Node* node;
    int depth;
  };
  std::vector<Item> stack{{&root, 0}};
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    const Node& n = *it.node;
    const bool isRoot = it.node == &root;
    if (n.isList() && it.depth > kMaxNesting) return "list nested deeper than kMaxNesting";
    if (n.end > t.size() || (!isRoot && n.begin >= n.end)) return QString("bad span %1-%2").arg(n.begin).arg(n.end);
    int line = 0, column = 0;
    doc.position(n.begin, line, column);
    if (line != n.line || column != n.column)
      return QString("position %1:%2, expected %3:%4").arg(n.line).arg(n.column).arg(line).arg(column);
    // Atoms: the token as written, or a string's quotes.
    if (n.kind == Kind::Symbol || n.kind == Kind::Number) {
      if (n.text != t.substr(n.begin, n.end - n.begin)) return "atom text differs from its span";
      if (n.kind == Kind::Number && !std::isfinite(n.number)) return "non-finite number";
      if (!n.children.empty()) return "atom with children";
      continue;
    }
    if (n.kind == Kind::String) {
      if (t[n.begin] != '"') return "string not starting with '\"'";
      continue;
    }
    // Lists: '(' ... ')' with ordered, disjoint children inside.
    size_t lo = 0, hi = n.end;
    if (!isRoot) {
      if (t[n.begin] != '(') return "list not starting with '('";
      if (n.closed && t[n.end - 1] != ')') return "closed list not ending with ')'";
      lo = n.begin + 1;
      if (n.closed) hi = n.end - 1;
    }
    size_t prev = lo;
    for (const Node& c : n.children) {
      if (c.begin < prev || c.end > hi) return QString("child %1-%2 outside %3-%4").arg(c.begin).arg(c.end).arg(prev).arg(hi);
      if (trivia && !isTrivia(t, prev, c.begin)) return QString("unrepresented bytes at %1").arg(prev);
      prev = c.end;
      stack.push_back({&c, it.depth + 1});
    }
    if (trivia && !isTrivia(t, prev, hi)) return QString("unrepresented bytes at %1").arg(prev);
  }
  return QString();
}

// Structural equality of two trees (kinds, spans, positions, texts, values), without recursion.
bool sameTree(const Node& a, const Node& b) {
  std::vector<std::pair<const Node*, const Node*>> stack{{&a, &b}};
  while (!stack.empty()) {
    auto [x, y] = stack.back();
    stack.pop_back();
    if (x->kind != y->kind || x->begin != y->begin || x->end != y->end || x->line != y->line ||
        x->column != y->column || x->text != y->text || x->closed != y->closed ||
        x->children.size() != y->children.size())
      return false;
    if (x->kind == Kind::Number && std::memcmp(&x->number, &y->number, sizeof(double)) != 0) return false;
    for (size_t i = 0; i < x->children.size(); ++i) stack.emplace_back(&x->children[i], &y->children[i]);
  }
  return true;
}

// "line:column message" of every diagnostic, for readable failure output.
QStringList describe(const Diagnostics& d) {
  QStringList out;
  for (const Diagnostic& x : d.items())
    out << QString("%1:%2 %3").arg(x.line).arg(x.column).arg(QString::fromStdString(x.message));
  return out;
}

// Naive line/column of an offset, to check Document::position.
void naivePosition(const std::string& t, size_t offset, int& line, int& column) {
  line = 1;
  column = 1;
  for (size_t i = 0; i < offset && i < t.size(); ++i) {
    if (t[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
}

// Bit-exact double comparison (distinguishes -0 from 0).
bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

// A random byte string biased towards the characters the lexer treats specially.
std::string randomBytes(std::mt19937_64& rng, size_t maxLen) {
  static const char special[] = "()\"\\;\n\r\t ";
  static const char numeric[] = "0123456789.eE+-";
  std::string s(rng() % (maxLen + 1), '\0');
  for (char& c : s) {
    switch (rng() % 5) {
      case 0:
      case 1: c = special[rng() % (sizeof special - 1)]; break;
      case 2: c = numeric[rng() % (sizeof numeric - 1)]; break;
      case 3: c = static_cast<char>('a' + rng() % 26); break;
      default: c = static_cast<char>(rng() % 256);
    }
  }
  return s;
}

}  // namespace

class TestSexpr : public QObject {
  Q_OBJECT
 private slots:
  void diagnosticsFormat();
  void roundTrip_data();
  void roundTrip();
  void roundTripOfMalformedInput_data();
  void roundTripOfMalformedInput();
  void nodePositions();
  void positionOfEveryOffset();
  void atomKinds_data();
  void atomKinds();
  void stringEscapes();
  void syntaxErrors_data();
  void syntaxErrors();
  void recoveryReportsEveryError();
  void errorCountIsCapped();
  void replacedChangesExactlyOneSpan();
  void replacedEveryAtom();
  void replacedClampsTheSpan();
  void findHeadAtomsNodeAt();
  void formatNumberRoundTrips();
  void quoteRoundTrips();
  void nestingLimitBoundary();
  void millionDeepNestingTerminates();
  void randomBytesNeverCrash();
};

void TestSexpr::diagnosticsFormat() {
  // Every combination of known and unknown location parts, each severity, and the list format.
  Diagnostics d;
  QVERIFY(d.empty());
  QCOMPARE(d.format(), std::string());
  d.error("a.mech", 3, 7, "unexpected ')'");
  d.warning("a.mech", 4, 0, "unused parameter");
  d.add(Severity::Note, "a.mech", 0, 0, "declared here");
  d.error("", 2, 5, "no file");
  d.error("", 0, 9, "column without line");
  d.error("", 0, 0, "nothing known");
  QCOMPARE(d.items()[0].format(), std::string("a.mech:3:7: error: unexpected ')'"));
  QCOMPARE(d.items()[1].format(), std::string("a.mech:4: warning: unused parameter"));
  QCOMPARE(d.items()[2].format(), std::string("a.mech: note: declared here"));
  QCOMPARE(d.items()[3].format(), std::string("2:5: error: no file"));
  QCOMPARE(d.items()[4].format(), std::string("error: column without line"));
  QCOMPARE(d.items()[5].format(), std::string("error: nothing known"));
  QVERIFY(d.hasErrors());
  QCOMPARE(d.errorCount(), 4);
  QCOMPARE(d.format(), std::string("a.mech:3:7: error: unexpected ')'\n"
                                   "a.mech:4: warning: unused parameter\n"
                                   "a.mech: note: declared here\n"
                                   "2:5: error: no file\n"
                                   "error: column without line\n"
                                   "error: nothing known\n"));
  Diagnostics w;
  w.warning("f", 1, 1, "w");
  QVERIFY(!w.hasErrors());
  QCOMPARE(w.errorCount(), 0);
  w.clear();
  QVERIFY(w.empty());
}

void TestSexpr::roundTrip_data() {
  QTest::addColumn<QByteArray>("input");
  QTest::newRow("empty") << QByteArray("");
  QTest::newRow("only newline") << QByteArray("\n");
  QTest::newRow("only comment, no newline") << QByteArray("; just a comment");
  QTest::newRow("atom without newline") << QByteArray("42");
  QTest::newRow("mechstudio") << QByteArray(
      "; A two-link arm.\n"
      "(param n 2)   ; links\n"
      "\n"
      "(body arm (mass 1) (inertia 0.1 0.1 0.01)\n"
      "  (joint revolute (axis 1 0 0) (anchor 0 0 -0.5))\n"
      "  (body forearm (mass 0.5)\n"
      "    (joint revolute (axis 1 0 0))))   ; closes forearm and arm\n"
      "(gravity 0 0 -9.81)\n");
  QTest::newRow("trep") << QByteArray(
      "(RX theta\n"
      "  (TZ -1.0 (MASS 1.0 (NAME \"m1\")))\n"
      "  (POINT-CONSTRAINT \"m1\" \"m2\"))\n");
  QTest::newRow("crlf") << QByteArray("(a 1)\r\n; c\r\n(b \"x\")\r\n\r\n");
  QTest::newRow("tabs and blank lines") << QByteArray("\t(a\t\tb)\n\n\n\t\t; tabbed comment\n\t(c)\n");
  QTest::newRow("escapes") << QByteArray("(s \"q\\\"uote\" \"back\\\\slash\" \"nl\\n\" \"tab\\t\" \"\")\n");
  QTest::newRow("string with raw cr and nul") << QByteArray("(s \"a\rb\0c\")", 11);
  QTest::newRow("utf-8") << QByteArray("(body \xce\xb1rm (name \"\xe2\x9c\x93\")) ; \xf0\x9f\x94\xa7\n");
  QTest::newRow("trailing text without newline") << QByteArray("(a)\n(b) ; last");
  QTest::newRow("vt and ff whitespace") << QByteArray("(a\x0b" "b\x0c" "c)");
  QTest::newRow("adjacent tokens") << QByteArray("(a\"s\"b(c)d)\"t\"");
  QTest::newRow("numbers") << QByteArray("(n 1 -2 +3 4.5 .5 5. -1.5e-3 1E+10 0x10 inf nan 1e999)");
  QByteArray deep;
  for (int i = 0; i < kMaxNesting; ++i) deep += "(x ";
  deep += "leaf";
  for (int i = 0; i < kMaxNesting; ++i) deep += ")\n";
  QTest::newRow("deep nesting at the limit") << deep;
}

void TestSexpr::roundTrip() {
  // text → tree → text is byte-identical, the tree accounts for every non-trivia byte, and parsing
  // the text again gives the same tree.
  QFETCH(QByteArray, input);
  const std::string text = bytes(input);
  Diagnostics d;
  const Document doc = Document::parse(text, "rt.mech", d);
  QVERIFY2(d.empty(), qPrintable(describe(d).join("; ")));
  QCOMPARE(doc.text(), text);
  QCOMPARE(doc.fileName(), std::string("rt.mech"));
  const QString problem = checkTree(doc, true);
  QVERIFY2(problem.isEmpty(), qPrintable(problem));
  // Rebuild the text from the top-level spans and the trivia between them.
  std::string rebuilt;
  size_t prev = 0;
  for (const Node& c : doc.root().children) {
    rebuilt += text.substr(prev, c.begin - prev);
    rebuilt += text.substr(c.begin, c.end - c.begin);
    prev = c.end;
  }
  rebuilt += text.substr(prev);
  QCOMPARE(rebuilt, text);
  Diagnostics d2;
  const Document again = Document::parse(doc.text(), "rt.mech", d2);
  QVERIFY(d2.empty());
  QVERIFY(sameTree(doc.root(), again.root()));
  // An empty edit is the identity.
  const Document same = doc.replaced(0, 0, "", d2);
  QCOMPARE(same.text(), text);
  QVERIFY(sameTree(doc.root(), same.root()));
}

void TestSexpr::roundTripOfMalformedInput_data() {
  QTest::addColumn<QByteArray>("input");
  QTest::newRow("unclosed") << QByteArray("(a (b\n");
  QTest::newRow("stray") << QByteArray(")) (a)");
  QTest::newRow("unterminated string") << QByteArray("(a \"b\r\n c)");
  QTest::newRow("bad escape") << QByteArray("\"\\q\"");
  QTest::newRow("nul and control") << QByteArray("(a\0\x01 b)", 7);
  QTest::newRow("invalid utf-8") << QByteArray("(a \xff\xfe \"\xc3\" \x80)");
  QTest::newRow("too deep") << QByteArray(kMaxNesting + 5, '(');
}

void TestSexpr::roundTripOfMalformedInput() {
  // Erroneous input still keeps its text byte for byte and gives a well-formed tree.
  QFETCH(QByteArray, input);
  const std::string text = bytes(input);
  Diagnostics d;
  const Document doc = Document::parse(text, "bad.mech", d);
  QCOMPARE(doc.text(), text);
  const QString problem = checkTree(doc, false);
  QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestSexpr::nodePositions() {
  // Lines split on '\n' (CRLF and LF), columns count bytes (tab = 1, escapes as written).
  const std::string text =
      "; header\r\n"
      "(body arm\t(mass 1.5)\r\n"
      "  (joint \"j\\\"1\" revolute))\n"
      "\n"
      "42";
  Diagnostics d;
  const Document doc = Document::parse(text, "p.mech", d);
  QVERIFY2(d.empty(), qPrintable(describe(d).join("; ")));
  const Node& root = doc.root();
  QCOMPARE(root.children.size(), size_t(2));
  const Node& body = root.children[0];
  QVERIFY(body.isList() && body.closed);
  QCOMPARE(body.head(), std::string("body"));
  QCOMPARE(std::make_pair(body.line, body.column), std::make_pair(2, 1));
  QCOMPARE(text.substr(body.begin, body.end - body.begin),
           std::string("(body arm\t(mass 1.5)\r\n  (joint \"j\\\"1\" revolute))"));
  QCOMPARE(body.children.size(), size_t(4));
  QCOMPARE(std::make_pair(body.children[0].line, body.children[0].column), std::make_pair(2, 2));
  QVERIFY(body.children[1].isSymbol("arm"));
  QCOMPARE(std::make_pair(body.children[1].line, body.children[1].column), std::make_pair(2, 7));
  const Node& mass = body.children[2];
  QCOMPARE(std::make_pair(mass.line, mass.column), std::make_pair(2, 11));
  QCOMPARE(std::make_pair(mass.children[0].line, mass.children[0].column), std::make_pair(2, 12));
  QVERIFY(mass.children[1].isNumber());
  QCOMPARE(mass.children[1].number, 1.5);
  QCOMPARE(mass.children[1].text, std::string("1.5"));
  QCOMPARE(std::make_pair(mass.children[1].line, mass.children[1].column), std::make_pair(2, 17));
  const Node& joint = body.children[3];
  QCOMPARE(std::make_pair(joint.line, joint.column), std::make_pair(3, 3));
  QVERIFY(joint.children[1].isString());
  QCOMPARE(joint.children[1].text, std::string("j\"1"));
  QCOMPARE(std::make_pair(joint.children[1].line, joint.children[1].column), std::make_pair(3, 10));
  QCOMPARE(joint.children[1].end - joint.children[1].begin, size_t(6));
  QCOMPARE(std::make_pair(joint.children[2].line, joint.children[2].column), std::make_pair(3, 17));
  const Node& answer = root.children[1];
  QVERIFY(answer.isNumber());
  QCOMPARE(std::make_pair(answer.line, answer.column), std::make_pair(5, 1));
  // position() at the ends: past the final byte, and clamped beyond.
  int line = 0, column = 0;
  doc.position(text.size(), line, column);
  QCOMPARE(std::make_pair(line, column), std::make_pair(5, 3));
  doc.position(text.size() + 100, line, column);
  QCOMPARE(std::make_pair(line, column), std::make_pair(5, 3));
  // A default-constructed document is empty and positions are 1:1.
  const Document empty;
  empty.position(7, line, column);
  QCOMPARE(std::make_pair(line, column), std::make_pair(1, 1));
  QVERIFY(empty.root().children.empty());
}

void TestSexpr::positionOfEveryOffset() {
  // position() agrees with a naive count at every offset of varied texts.
  std::mt19937_64 rng(7);
  for (int k = 0; k < 50; ++k) {
    const std::string text = randomBytes(rng, 300);
    Diagnostics d;
    const Document doc = Document::parse(text, "", d);
    for (size_t off = 0; off <= text.size(); ++off) {
      int l1 = 0, c1 = 0, l2 = 0, c2 = 0;
      doc.position(off, l1, c1);
      naivePosition(text, off, l2, c2);
      QCOMPARE(std::make_pair(l1, c1), std::make_pair(l2, c2));
    }
  }
}

void TestSexpr::atomKinds_data() {
  QTest::addColumn<QByteArray>("token");
  QTest::addColumn<bool>("isNumber");
  QTest::addColumn<double>("value");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  QTest::newRow("int") << QByteArray("1") << true << 1.0;
  QTest::newRow("negative") << QByteArray("-2") << true << -2.0;
  QTest::newRow("plus") << QByteArray("+3") << true << 3.0;
  QTest::newRow("fraction") << QByteArray("4.25") << true << 4.25;
  QTest::newRow("leading dot") << QByteArray(".5") << true << 0.5;
  QTest::newRow("trailing dot") << QByteArray("5.") << true << 5.0;
  QTest::newRow("minus leading dot") << QByteArray("-.5") << true << -0.5;
  QTest::newRow("exponent") << QByteArray("-1.5e-3") << true << -1.5e-3;
  QTest::newRow("capital exponent") << QByteArray("1E+10") << true << 1e10;
  QTest::newRow("leading zeros") << QByteArray("007") << true << 7.0;
  QTest::newRow("denormal") << QByteArray("4.9e-324") << true << 4.9e-324;
  QTest::newRow("underflow") << QByteArray("1e-400") << true << 0.0;
  QTest::newRow("huge exponent underflow") << QByteArray("1e-99999999999999999999") << true << 0.0;
  QTest::newRow("max") << QByteArray("1.7976931348623157e308") << true << 1.7976931348623157e308;
  QTest::newRow("zero with huge exponent") << QByteArray("0e99999") << true << 0.0;
  QTest::newRow("overflow") << QByteArray("1e999") << false << nan;
  QTest::newRow("overflow by digits") << QByteArray("1" + QByteArray(400, '0')) << false << nan;
  QTest::newRow("hex") << QByteArray("0x10") << false << nan;
  QTest::newRow("inf") << QByteArray("inf") << false << nan;
  QTest::newRow("minus inf") << QByteArray("-inf") << false << nan;
  QTest::newRow("infinity") << QByteArray("Infinity") << false << nan;
  QTest::newRow("nan") << QByteArray("nan") << false << nan;
  QTest::newRow("NaN") << QByteArray("NaN") << false << nan;
  QTest::newRow("exponent without digits") << QByteArray("1e") << false << nan;
  QTest::newRow("exponent sign only") << QByteArray("1e+") << false << nan;
  QTest::newRow("e only") << QByteArray("e5") << false << nan;
  QTest::newRow("dot") << QByteArray(".") << false << nan;
  QTest::newRow("minus") << QByteArray("-") << false << nan;
  QTest::newRow("plus symbol") << QByteArray("+") << false << nan;
  QTest::newRow("two dots") << QByteArray("1.2.3") << false << nan;
  QTest::newRow("comma") << QByteArray("1,5") << false << nan;
  QTest::newRow("double sign") << QByteArray("--1") << false << nan;
  QTest::newRow("suffix") << QByteArray("10deg") << false << nan;
  QTest::newRow("symbol") << QByteArray("revolute") << false << nan;
  QTest::newRow("hyphenated") << QByteArray("POINT-CONSTRAINT") << false << nan;
}

void TestSexpr::atomKinds() {
  // Number only when the whole token is a finite decimal float; the text is kept as written.
  QFETCH(QByteArray, token);
  QFETCH(bool, isNumber);
  QFETCH(double, value);
  Diagnostics d;
  const Document doc = Document::parse(bytes(token), "", d);
  QVERIFY(d.empty());
  QCOMPARE(doc.root().children.size(), size_t(1));
  const Node& n = doc.root().children[0];
  QCOMPARE(n.text, bytes(token));
  QCOMPARE(n.isNumber(), isNumber);
  QCOMPARE(n.isSymbol(), !isNumber);
  if (isNumber) QVERIFY2(sameBits(n.number, value) || n.number == value, qPrintable(QString::number(n.number, 'g', 17)));
}

void TestSexpr::stringEscapes() {
  // Escapes are unescaped in text; the span keeps the source bytes.
  Diagnostics d;
  const Document doc = Document::parse("(\"a\\\"b\" \"c\\\\d\" \"e\\nf\" \"g\\th\" \"\" \"\\\\\\\"\")", "", d);
  QVERIFY(d.empty());
  const auto& c = doc.root().children[0].children;
  QCOMPARE(c.size(), size_t(6));
  QCOMPARE(c[0].text, std::string("a\"b"));
  QCOMPARE(c[1].text, std::string("c\\d"));
  QCOMPARE(c[2].text, std::string("e\nf"));
  QCOMPARE(c[3].text, std::string("g\th"));
  QCOMPARE(c[4].text, std::string(""));
  QCOMPARE(c[5].text, std::string("\\\""));
  QCOMPARE(doc.text().substr(c[0].begin, c[0].end - c[0].begin), std::string("\"a\\\"b\""));
  // An unknown escape keeps both bytes; an unterminated string in a CRLF file excludes the '\r'.
  Diagnostics e;
  const Document bad = Document::parse("(f \"C:\\mesh\" \"open\r\n)", "", e);
  QCOMPARE(e.errorCount(), 2);
  const auto& b = bad.root().children[0].children;
  QCOMPARE(b[1].text, std::string("C:\\mesh"));
  QCOMPARE(b[2].text, std::string("open"));
  QCOMPARE(bad.text().substr(b[2].begin, b[2].end - b[2].begin), std::string("\"open"));
  QVERIFY(bad.root().children[0].closed);
}

void TestSexpr::syntaxErrors_data() {
  // Each row: input and the expected diagnostics in order, as "line:column message-fragment".
  QTest::addColumn<QByteArray>("input");
  QTest::addColumn<QStringList>("expected");
  QTest::newRow("unclosed list") << QByteArray("(body arm (mass 1)") << QStringList{"1:1 unclosed '('"};
  QTest::newRow("empty unclosed") << QByteArray("(") << QStringList{"1:1 unclosed '('"};
  QTest::newRow("two unclosed, outermost first")
      << QByteArray("(a\n  (b\n    (c)\n") << QStringList{"1:1 unclosed '('", "2:3 unclosed '('"};
  QTest::newRow("stray paren") << QByteArray("(a))") << QStringList{"1:4 unexpected ')'"};
  QTest::newRow("stray paren first") << QByteArray(")\n(a)") << QStringList{"1:1 unexpected ')'"};
  QTest::newRow("stray paren after crlf and tab")
      << QByteArray("(a)\r\n\t)\r\n") << QStringList{"2:2 unexpected ')'"};
  QTest::newRow("stray paren after utf-8") << QByteArray("(\xce\xb1))") << QStringList{"1:5 unexpected ')'"};
  QTest::newRow("paren in comment is ignored")
      << QByteArray("(a ; )\n)\n)") << QStringList{"3:1 unexpected ')'"};
  QTest::newRow("paren in string is ignored")
      << QByteArray("(a \")\")\n)") << QStringList{"2:1 unexpected ')'"};
  QTest::newRow("unterminated string swallows ')'")
      << QByteArray("(name \"arm)\n(mass 1)")
      << QStringList{"1:7 unterminated string: missing closing '\"' before end of line", "1:1 unclosed '('"};
  QTest::newRow("unterminated string at eof")
      << QByteArray("\"abc") << QStringList{"1:1 unterminated string: missing closing '\"' before end of file"};
  QTest::newRow("unterminated string, crlf")
      << QByteArray("(a \"x\r\n)") << QStringList{"1:4 unterminated string: missing closing '\"' before end of line"};
  QTest::newRow("string over two lines")
      << QByteArray("(a \"line1\nline2\")")
      << QStringList{"1:4 unterminated string", "2:6 unterminated string: missing closing '\"' before end of file",
                     "1:1 unclosed '('"};
  QTest::newRow("backslash at end of line")
      << QByteArray("(a \"x\\\n)") << QStringList{"1:4 unterminated string"};
  QTest::newRow("backslash at end of file") << QByteArray("\"x\\") << QStringList{"1:1 unterminated string"};
  QTest::newRow("escaped quote then unterminated")
      << QByteArray("(a \"b\\\")") << QStringList{"1:4 unterminated string", "1:1 unclosed '('"};
  QTest::newRow("unknown escape")
      << QByteArray("(file \"C:\\mesh.stl\")") << QStringList{"1:10 unknown escape sequence '\\m'"};
  QTest::newRow("two unknown escapes")
      << QByteArray("\"\\a\\b\"") << QStringList{"1:2 unknown escape sequence '\\a'", "1:4 unknown escape sequence '\\b'"};
  QTest::newRow("unknown escape of a control byte")
      << QByteArray("\"\\\x01\"") << QStringList{"1:2 unknown escape sequence '\\' followed by byte 0x01"};
  QTest::newRow("nul byte") << QByteArray("(a\0b)", 5) << QStringList{"1:3 invalid character 0x00"};
  QTest::newRow("control run")
      << QByteArray("(a \x01\x02\x03 b)") << QStringList{"1:4 invalid character 0x01 (and 2 more control bytes)"};
  QTest::newRow("del") << QByteArray("x\n \x7f") << QStringList{"2:2 invalid character 0x7f"};
  QTest::newRow("nesting too deep")
      << (QByteArray(kMaxNesting + 1, '(') + "x" + QByteArray(kMaxNesting + 1, ')'))
      << QStringList{QString("1:%1 nesting too deep").arg(kMaxNesting + 1)};
  QTest::newRow("nesting too deep twice")
      << (QByteArray(kMaxNesting, '(') + "(a)\n(b)" + QByteArray(kMaxNesting, ')'))
      << QStringList{QString("1:%1 nesting too deep").arg(kMaxNesting + 1), "2:1 nesting too deep"};
  QTest::newRow("errors inside a skipped list are still reported")
      << (QByteArray(kMaxNesting, '(') + "(\"\\q\")" + QByteArray(kMaxNesting, ')'))
      << QStringList{QString("1:%1 nesting too deep").arg(kMaxNesting + 1),
                     QString("1:%1 unknown escape").arg(kMaxNesting + 3)};
}

void TestSexpr::syntaxErrors() {
  // Every expected error, in order, at its exact line:column, and nothing else; the text is kept.
  QFETCH(QByteArray, input);
  QFETCH(QStringList, expected);
  Diagnostics d;
  const Document doc = Document::parse(bytes(input), "err.mech", d);
  const QStringList got = describe(d);
  QVERIFY2(got.size() == expected.size(), qPrintable("got: " + got.join(" | ")));
  for (int i = 0; i < got.size(); ++i) {
    QVERIFY2(got[i].startsWith(expected[i]), qPrintable("got: " + got.join(" | ")));
    QCOMPARE(d.items()[i].severity, Severity::Error);
    QCOMPARE(d.items()[i].file, std::string("err.mech"));
  }
  QCOMPARE(doc.text(), bytes(input));
  const QString problem = checkTree(doc, false);
  QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestSexpr::recoveryReportsEveryError() {
  // One file with an error in each of several forms: all are reported, the good forms survive.
  const std::string text =
      "(body a (mass 1))\n"                        // fine
      "(body b (mass 2)))\n"                       // stray ')' at 2:18
      "(body c \x01 (file \"x\\q\"))\n"            // invalid byte at 3:9, unknown escape at 3:19
      "(body d (mass 4))\n"                        // fine
      ")\n"                                        // stray ')' at 5:1
      "(body e (name \"oops)) ; unterminated\n"  // unterminated string at 6:15, unclosed at 6:1 and 6:9
      "(body f (mass 6))\n";                       // swallowed by the unclosed lists
  Diagnostics d;
  const Document doc = Document::parse(text, "multi.mech", d);
  const QStringList got = describe(d);
  const QStringList expected{"2:18 unexpected ')'",       "3:9 invalid character 0x01",
                             "3:19 unknown escape",       "5:1 unexpected ')'",
                             "6:15 unterminated string",  "6:1 unclosed '('",
                             "6:9 unclosed '('"};
  QVERIFY2(got.size() == expected.size(), qPrintable(got.join(" | ")));
  for (int i = 0; i < got.size(); ++i) QVERIFY2(got[i].startsWith(expected[i]), qPrintable(got.join(" | ")));
  QCOMPARE(d.errorCount(), 7);
  QCOMPARE(QString::fromStdString(d.items()[0].format()), QString("multi.mech:2:18: error: unexpected ')' without a matching '('"));
  // The tree: bodies a-e at top level, each with its name; f inside e's unclosed (name ...).
  const auto& forms = doc.root().children;
  QCOMPARE(forms.size(), size_t(5));
  const char* names[] = {"a", "b", "c", "d", "e"};
  for (int i = 0; i < 5; ++i) {
    QCOMPARE(forms[i].head(), std::string("body"));
    QVERIFY(forms[i].children[1].isSymbol(names[i]));
  }
  QVERIFY(forms[1].find("mass") && forms[1].find("mass")->children[1].number == 2.0);
  QCOMPARE(forms[2].find("file")->children[1].text, std::string("x\\q"));
  QVERIFY(!forms[4].closed);
  const Node* name = forms[4].find("name");
  QVERIFY(name && !name->closed);
  QCOMPARE(name->children.size(), size_t(3));  // name, "oops)) ; unterminated", (body f ...)
  QCOMPARE(name->children[2].head(), std::string("body"));
  QCOMPARE(name->end, name->children[2].end);
  QCOMPARE(forms[4].end, name->end);
}

void TestSexpr::errorCountIsCapped() {
  // A binary-looking file reports kMaxErrors errors and one note with the rest's count.
  std::string text;
  for (int i = 0; i < 500; ++i) text += ") ";
  Diagnostics d;
  const Document doc = Document::parse(text, "cap.mech", d);
  QCOMPARE(d.errorCount(), kMaxErrors);
  QCOMPARE(d.items().size(), size_t(kMaxErrors + 1));
  QCOMPARE(d.items().back().severity, Severity::Note);
  QCOMPARE(d.items().back().message, std::string("400 more syntax errors not shown"));
  QCOMPARE(d.items()[kMaxErrors - 1].column, 2 * kMaxErrors - 1);
}

void TestSexpr::replacedChangesExactlyOneSpan() {
  // Changing one value rewrites exactly that value's bytes; comments and layout stay.
  const std::string text =
      "; Two-link arm.\r\n"
      "(body arm   ; upper arm\n"
      "  (mass 1)  ; kg\n"
      "\t(joint revolute (axis 1 0 0)))\n"
      "(gravity 0 0 -9.81)";
  Diagnostics d;
  const Document doc = Document::parse(text, "arm.mech", d);
  QVERIFY(d.empty());
  const Node* mass = doc.root().children[0].find("mass");
  QVERIFY(mass);
  const Node& value = mass->children[1];
  QCOMPARE(value.number, 1.0);
  const Document edited = doc.replaced(value.begin, value.end, formatNumber(2.5), d);
  QVERIFY(d.empty());
  const std::string& t2 = edited.text();
  // Diff: first and last differing bytes bound exactly the replaced span.
  size_t pre = 0;
  while (pre < text.size() && pre < t2.size() && text[pre] == t2[pre]) ++pre;
  size_t post = 0;
  while (post < text.size() - pre && post < t2.size() - pre && text[text.size() - 1 - post] == t2[t2.size() - 1 - post])
    ++post;
  QCOMPARE(pre, value.begin);
  QCOMPARE(text.size() - post, value.end);
  QCOMPARE(t2.substr(pre, t2.size() - post - pre), std::string("2.5"));
  QCOMPARE(t2, std::string("; Two-link arm.\r\n"
                           "(body arm   ; upper arm\n"
                           "  (mass 2.5)  ; kg\n"
                           "\t(joint revolute (axis 1 0 0)))\n"
                           "(gravity 0 0 -9.81)"));
  // The edited document is re-parsed: the new value is there, positions after it moved.
  const Node* mass2 = edited.root().children[0].find("mass");
  QVERIFY(mass2 && mass2->children[1].isNumber());
  QCOMPARE(mass2->children[1].number, 2.5);
  QCOMPARE(edited.root().children[1].begin, doc.root().children[1].begin + 2);
  QCOMPARE(edited.root().children[1].line, doc.root().children[1].line);
  // Replacing a whole list.
  const Node* axis = doc.root().children[0].find("joint")->find("axis");
  QVERIFY(axis);
  const Document rotated = doc.replaced(axis->begin, axis->end, "(axis 0 0 1)", d);
  QCOMPARE(rotated.text().substr(0, axis->begin), text.substr(0, axis->begin));
  QCOMPARE(rotated.text().substr(axis->begin + 12), text.substr(axis->end));
  QCOMPARE(rotated.root().children[0].find("joint")->find("axis")->children[3].number, 1.0);
  // The original document is unchanged.
  QCOMPARE(doc.text(), text);
}

void TestSexpr::replacedEveryAtom() {
  // For every atom of a file: replacing it splices exactly that span and the new atom is found there.
  const std::string text =
      "(body arm (mass 1) (inertia 0.1 0.1 0.01) ; c\n"
      "  (joint revolute (axis 1 0 0)) (name \"upper \\\"arm\\\"\"))\r\n"
      "(RX theta (TZ -1.0 (MASS 1.0)))";
  Diagnostics d;
  const Document doc = Document::parse(text, "", d);
  QVERIFY(d.empty());
  const std::vector<const Node*> atoms = doc.atoms();
  QCOMPARE(atoms.size(), size_t(22));
  for (const Node* a : atoms) {
    const Document e = doc.replaced(a->begin, a->end, "X", d);
    QVERIFY(d.empty());
    QCOMPARE(e.text(), text.substr(0, a->begin) + "X" + text.substr(a->end));
    const Node* at = e.nodeAt(a->begin);
    QVERIFY(at && at->isSymbol("X"));
    QCOMPARE(at->begin, a->begin);
    QCOMPARE(std::make_pair(at->line, at->column), std::make_pair(a->line, a->column));
  }
}

void TestSexpr::replacedClampsTheSpan() {
  // Out-of-range spans are clamped: end to the text size, begin to end.
  Diagnostics d;
  const Document doc = Document::parse("(a)", "", d);
  QCOMPARE(doc.replaced(2, 100, "b)", d).text(), std::string("(ab)"));
  QCOMPARE(doc.replaced(100, 200, " ; end", d).text(), std::string("(a) ; end"));
  QCOMPARE(doc.replaced(3, 1, "x", d).text(), std::string("(xa)"));
  QVERIFY(d.empty());
}

void TestSexpr::findHeadAtomsNodeAt() {
  // Helpers: head(), find(), atoms() in source order, nodeAt() innermost node.
  const std::string text = "(body arm (mass 1) (mass 2) (\"s\" x))  ; c\n(3)";
  Diagnostics d;
  const Document doc = Document::parse(text, "", d);
  QVERIFY(d.empty());
  const Node& body = doc.root().children[0];
  QCOMPARE(body.head(), std::string("body"));
  QCOMPARE(doc.root().children[1].head(), std::string());
  QCOMPARE(body.children[4].head(), std::string());  // ("s" x): first element is a string
  QCOMPARE(body.children[1].head(), std::string());  // an atom
  QVERIFY(body.find("mass") == &body.children[2]);   // the first of two
  QVERIFY(body.find("joint") == nullptr);
  QVERIFY(body.find("arm") == nullptr);  // atoms are not lists
  std::vector<std::string> texts;
  for (const Node* a : doc.atoms()) texts.push_back(a->text);
  QCOMPARE(texts, (std::vector<std::string>{"body", "arm", "mass", "1", "mass", "2", "s", "x", "3"}));
  // nodeAt: an atom, a list's parenthesis, whitespace inside a list, a comment, past the end.
  QCOMPARE(doc.nodeAt(text.find("arm"))->text, std::string("arm"));
  QCOMPARE(doc.nodeAt(text.find("arm") + 2)->text, std::string("arm"));
  QVERIFY(doc.nodeAt(text.find("(mass 1)")) == &body.children[2]);
  QVERIFY(doc.nodeAt(text.find("(mass 1)") + 5) == &body.children[2]);  // the space in "(mass 1)"
  QVERIFY(doc.nodeAt(0) == &body);
  QVERIFY(doc.nodeAt(text.find("; c")) == &doc.root());
  QVERIFY(doc.nodeAt(text.size()) == &doc.root());
  QVERIFY(doc.nodeAt(text.size() + 10) == &doc.root());
  QCOMPARE(doc.nodeAt(text.find("3"))->number, 3.0);
}

void TestSexpr::formatNumberRoundTrips() {
  // formatNumber(v) parses back (through Document::parse) to exactly v, for 10^5 random doubles and
  // the edge cases, and is no longer than the shortest "%.{p}g" that round-trips. (Large integers in
  // fixed notation keep all their digits, e.g. "664474382621949824", which is still the shortest.)
  QCOMPARE(formatNumber(1.0), std::string("1"));
  QCOMPARE(formatNumber(-2.5), std::string("-2.5"));
  QCOMPARE(formatNumber(0.1), std::string("0.1"));
  QCOMPARE(formatNumber(100.0), std::string("100"));
  QCOMPARE(formatNumber(-0.0), std::string("-0"));
  QCOMPARE(formatNumber(1e22), std::string("1e+22"));
  QCOMPARE(formatNumber(-9.81), std::string("-9.81"));
  QCOMPARE(formatNumber(std::numeric_limits<double>::infinity()), std::string("inf"));
  QCOMPARE(formatNumber(-std::numeric_limits<double>::infinity()), std::string("-inf"));
  QCOMPARE(formatNumber(std::numeric_limits<double>::quiet_NaN()), std::string("nan"));
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                0.1,
                                1.0 / 3.0,
                                9007199254740993.0,
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::denorm_min(),
                                -std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::max(),
                                -std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::epsilon(),
                                2.2250738585072011e-308,
                                5e-324,
                                1e23,
                                123456789012345678.0};
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> uniform(-1000, 1000);
  std::uniform_real_distribution<double> logMag(-300, 300);
  while (values.size() < 100000) {
    switch (values.size() % 4) {
      case 0: {  // any finite bit pattern (normals, denormals, both signs)
        double v;
        do {
          const uint64_t bits = rng();
          std::memcpy(&v, &bits, sizeof v);
        } while (!std::isfinite(v));
        values.push_back(v);
        break;
      }
      case 1: values.push_back(uniform(rng)); break;
      case 2: values.push_back((rng() & 1 ? -1 : 1) * std::pow(10.0, logMag(rng))); break;
      default: values.push_back(static_cast<double>(static_cast<int64_t>(rng() % 2000001) - 1000000) / 8.0);
    }
  }
  int checkedShortness = 0;
  for (size_t k = 0; k < values.size(); ++k) {
    const double v = values[k];
    const std::string s = formatNumber(v);
    Diagnostics d;
    const Document doc = Document::parse(s, "", d);
    QVERIFY2(d.empty() && doc.root().children.size() == 1 && doc.root().children[0].isNumber(), s.c_str());
    QVERIFY2(sameBits(doc.root().children[0].number, v), s.c_str());
    // Shortness against printf on a sample (printf runs in the "C" locale of this test).
    if (k % 50 == 0) {
      int p = 1;
      char buf[64];
      for (; p <= 17; ++p) {
        std::snprintf(buf, sizeof buf, "%.*g", p, v);
        if (sameBits(std::strtod(buf, nullptr), v)) break;
      }
      QVERIFY2(s.size() <= std::strlen(buf), qPrintable(QString("%1 vs %2").arg(s.c_str()).arg(buf)));
      ++checkedShortness;
    }
  }
  QVERIFY(checkedShortness >= 2000);
}

void TestSexpr::quoteRoundTrips() {
  // quote(s) parses back to exactly s, for strings of any bytes.
  QCOMPARE(quote("a\"b\\c\nd\te"), std::string("\"a\\\"b\\\\c\\nd\\te\""));
  QCOMPARE(quote(""), std::string("\"\""));
  std::mt19937_64 rng(99);
  for (int k = 0; k < 10000; ++k) {
    std::string s = randomBytes(rng, 40);
    const std::string q = quote(s);
    Diagnostics d;
    const Document doc = Document::parse("(name " + q + ")", "", d);
    QVERIFY2(d.empty(), qPrintable(describe(d).join("; ")));
    const Node& str = doc.root().children[0].children[1];
    QVERIFY(str.isString());
    QVERIFY(str.text == s);
    QCOMPARE(str.end - str.begin, q.size());
  }
}

void TestSexpr::nestingLimitBoundary() {
  // kMaxNesting levels parse; one more is reported once and skipped; the tree stays usable.
  Diagnostics d;
  std::string ok = std::string(kMaxNesting, '(') + "leaf" + std::string(kMaxNesting, ')');
  const Document a = Document::parse(ok, "", d);
  QVERIFY(d.empty());
  const Node* n = &a.root();
  int depth = 0;
  while (!n->children.empty() && n->children[0].isList()) n = &n->children[0], ++depth;
  QCOMPARE(depth, kMaxNesting);
  QVERIFY(n->children[0].isSymbol("leaf"));
  // One level more: the innermost list is skipped (no node), followed by a sibling that survives.
  std::string deep = std::string(kMaxNesting, '(') + "(leaf) after" + std::string(kMaxNesting, ')') + " (next)";
  const Document b = Document::parse(deep, "", d);
  QCOMPARE(d.errorCount(), 1);
  n = &b.root().children[0];
  while (!n->children.empty() && n->children[0].isList()) n = &n->children[0];
  QCOMPARE(n->children.size(), size_t(1));
  QVERIFY(n->children[0].isSymbol("after"));
  QCOMPARE(b.root().children.size(), size_t(2));
  QCOMPARE(b.root().children[1].head(), std::string("next"));
  // Copies and destruction of a maximally deep tree are fine.
  const Document copy = b;
  QVERIFY(sameTree(copy.root(), b.root()));
}

void TestSexpr::millionDeepNestingTerminates() {
  // 10^6 nested '(' (unclosed, then balanced): one "nesting too deep" error, capped reporting, fast.
  const double t0 = ms::test::threadSeconds();  // this thread's CPU time (thread_clock.h)
  Diagnostics d;
  const Document open = Document::parse(std::string(1000000, '('), "deep.mech", d);
  QVERIFY(d.items().size() == size_t(kMaxErrors + 1));
  QCOMPARE(d.items()[0].message.rfind("nesting too deep", 0), size_t(0));
  QCOMPARE(std::make_pair(d.items()[0].line, d.items()[0].column), std::make_pair(1, kMaxNesting + 1));
  QCOMPARE(std::make_pair(d.items()[1].line, d.items()[1].column), std::make_pair(1, 1));  // outermost unclosed
  QCOMPARE(d.items().back().severity, Severity::Note);
  QCOMPARE(d.items().back().message, std::string("901 more syntax errors not shown"));
  QCOMPARE(checkTree(open, false), QString());
  Diagnostics d2;
  const Document balanced =
      Document::parse(std::string(1000000, '(') + "x" + std::string(1000000, ')'), "deep.mech", d2);
  QCOMPARE(d2.items().size(), size_t(1));
  QCOMPARE(d2.items()[0].column, kMaxNesting + 1);
  Diagnostics d3;
  std::string alternating;
  for (int i = 0; i < 500000; ++i) alternating += "((\"\\q\" ";
  const Document third = Document::parse(alternating, "deep.mech", d3);
  QVERIFY(d3.errorCount() == kMaxErrors);
  const double seconds = ms::test::threadSeconds() - t0;
  qInfo("three 10^6-deep inputs parsed in %.3f s of CPU time", seconds);
  QVERIFY(seconds < 10.0);  // ~0.1 s in a Release build; generous for sanitizer builds
}

void TestSexpr::randomBytesNeverCrash() {
  // 10^4 random byte strings (biased towards syntax characters): no crash, a well-formed tree, the
  // text kept, and position(), atoms(), nodeAt() and replaced() behave.
  std::mt19937_64 rng(2024);
  long errors = 0, nodes = 0;
  for (int k = 0; k < 10000; ++k) {
    const std::string text = randomBytes(rng, k % 100 == 0 ? 4000 : 200);
    Diagnostics d;
    const Document doc = Document::parse(text, "rand", d);
    errors += d.errorCount();
    QVERIFY(doc.text() == text);
    const QString problem = checkTree(doc, false);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(d.errorCount() <= kMaxErrors);
    for (const Diagnostic& x : d.items()) {
      if (x.severity != Severity::Error) continue;
      QVERIFY(x.line >= 1 && x.column >= 1);
    }
    const std::vector<const Node*> atoms = doc.atoms();
    nodes += static_cast<long>(atoms.size());
    for (int j = 0; j < 4; ++j) {
      const size_t off = text.empty() ? 0 : rng() % (text.size() + 2);
      int line = 0, column = 0;
      doc.position(off, line, column);
      QVERIFY(line >= 1 && column >= 1);
      const Node* at = doc.nodeAt(off);
      QVERIFY(at);
      if (at != &doc.root()) QVERIFY(at->begin <= off && off < at->end);
    }
    if (!atoms.empty()) {
      const Node* a = atoms.front();
      Diagnostics e;
      const Document r = doc.replaced(a->begin, a->end, "(X)", e);
      QVERIFY(r.text() == text.substr(0, a->begin) + "(X)" + text.substr(a->end));
    }
  }
  qInfo("10^4 random inputs: %ld errors reported, %ld atoms", errors, nodes);
  QVERIFY(errors > 0 && nodes > 0);
}

QTEST_APPLESS_MAIN(TestSexpr)
#include "tst_sexpr.moc"
