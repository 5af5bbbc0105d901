// SPDX-License-Identifier: GPL-3.0-or-later
#include "editor/model_highlighter.h"

#include <QSet>

namespace ms::ui {

namespace {
// The heads of the MechStudio language's forms and items (docs/model-language.md).
const QSet<QString>& mechKeywords() {
  static const QSet<QString> s = {
      "mechanism", "param", "gravity", "solver", "body", "loop-joint", "spring", "actuator", "pd-controller",
      "wrench", "ground", "contact-pair", "collisions", "exclude", "contype", "conaffinity", "all", "no-self", "pairs", "keyframe", "repeat", "chain", "order", "dt", "tolerance", "complementarity-tolerance",
      "max-iterations", "line-search", "friction-directions", "mass", "density", "inertia", "position", "orientation",
      "rotation", "velocity", "angular-velocity", "shape", "visual", "collision", "color", "friction", "joint", "at",
      "scale", "parent-anchor", "child-anchor", "axis", "offset", "offset-rotation", "stiffness", "rest", "damping", "armature",
      "lower", "upper", "anchor-a", "anchor-b", "rest-length", "effort", "kp", "kd", "coordinate", "target",
      "effort-limit", "force", "torque", "normal", "next-in", "bodies", "joints", "tendon", "gear", "control-range",
      "force-range", "coupling", "follows", "multiplier"};
  return s;
}
// Joint types and shape kinds: types wherever they stand.
const QSet<QString>& mechTypes() {
  static const QSet<QString> s = {"fixed", "prismatic", "planar", "fixed-orientation", "revolute", "cylindrical",
                                  "planar-axis", "rotation-axis-free", "spherical", "cylindrical-free",
                                  "planar-free", "floating", "box", "sphere", "capsule", "cylinder", "plane", "mesh"};
  return s;
}
// Functions of numeric expressions (sin is also the head of a controller's sine target).
const QSet<QString>& mechFunctions() {
  static const QSet<QString> s = {"+", "-", "*", "/", "deg", "sqrt", "sin", "cos", "min", "max", "if",
                                  "=", "<", ">", "<=", ">="};
  return s;
}
// trep (engine/io/trep_import.h): heads and options, transform types; case-insensitive.
const QSet<QString>& trepKeywords() {
  static const QSet<QString> s = {"mechanical-system", "system", "gravity", "point-constraint", "point-constaint",
                                  "name", "mass"};
  return s;
}
const QSet<QString>& trepTypes() {
  static const QSet<QString> s = {"tx", "ty", "tz", "rx", "ry", "rz"};
  return s;
}
bool isDelimiter(QChar c) { return c.isSpace() || c == '(' || c == ')' || c == '"' || c == ';'; }
QTextCharFormat make(const char* colour, bool bold = false, bool italic = false) {
  QTextCharFormat f;
  f.setForeground(QColor(colour));
  if (bold) f.setFontWeight(QFont::Bold);
  f.setFontItalic(italic);
  return f;
}
}  // namespace

ModelHighlighter::ModelHighlighter(QTextDocument* doc, ModelLanguage language)
    : QSyntaxHighlighter(doc), language_(language) {
  // One colour per kind (light theme, in the spirit of common code editors).
  formats_[int(Kind::Comment)] = make("#6a737d", false, true);
  formats_[int(Kind::String)] = make("#067d17");
  formats_[int(Kind::Number)] = make("#1750eb");
  formats_[int(Kind::Keyword)] = make("#0033b3", true);
  formats_[int(Kind::Type)] = make("#871094");
  formats_[int(Kind::Function)] = make("#00627a", true);
  formats_[int(Kind::Template)] = make("#b35900", true);
  formats_[int(Kind::Paren)] = make("#8c8c8c");
  formats_[int(Kind::Constant)] = make("#9e3e00", false, true);
}

void ModelHighlighter::setLanguage(ModelLanguage language) {
  if (language == language_) return;
  language_ = language;
  rehighlight();
}

void ModelHighlighter::highlightBlock(const QString& text) {
  setCurrentBlockState(0);
  if (!isSExpression(language_)) return;
  const int n = int(text.size());
  int i = 0;
  bool afterParen = false;
  // A string left open on the previous line continues here (state 1).
  if (previousBlockState() == 1) {
    int j = 0;
    while (j < n && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
    if (j >= n) {
      setFormat(0, n, format(Kind::String));
      setCurrentBlockState(1);
      return;
    }
    setFormat(0, j + 1, format(Kind::String));
    i = j + 1;
  }
  // Tokens: comments, strings, parentheses, atoms.
  while (i < n) {
    const QChar c = text[i];
    if (c.isSpace()) {
      ++i;
    } else if (c == ';') {
      setFormat(i, n - i, format(Kind::Comment));
      return;
    } else if (c == '"') {
      int j = i + 1;
      while (j < n && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      if (j >= n) {
        setFormat(i, n - i, format(Kind::String));
        setCurrentBlockState(1);
        return;
      }
      setFormat(i, j + 1 - i, format(Kind::String));
      i = j + 1;
      afterParen = false;
    } else if (c == '(' || c == ')') {
      setFormat(i, 1, format(Kind::Paren));
      afterParen = c == '(';
      ++i;
    } else {
      int j = i;
      while (j < n && !isDelimiter(text[j])) ++j;
      highlightAtom(text, i, j, afterParen);
      afterParen = false;
      i = j;
    }
  }
}

void ModelHighlighter::highlightAtom(const QString& text, int start, int end, bool head) {
  const QString atom = text.mid(start, end - start);
  // Numbers: the whole token parses as a decimal floating-point number (as the reader decides).
  bool isNumber = false;
  atom.toDouble(&isNumber);
  if (isNumber && !atom.contains(QLatin1String("inf"), Qt::CaseInsensitive) &&
      !atom.contains(QLatin1String("nan"), Qt::CaseInsensitive)) {
    setFormat(start, end - start, format(Kind::Number));
    return;
  }
  if (language_ == ModelLanguage::Trep) {
    const QString lower = atom.toLower();
    if (head && trepKeywords().contains(lower)) setFormat(start, end - start, format(Kind::Keyword));
    else if (trepTypes().contains(lower)) setFormat(start, end - start, format(Kind::Type));
    else if (head && lower == "d") setFormat(start, end - start, format(Kind::Function));
    return;
  }
  // MechStudio: keywords and functions as heads, types and constants anywhere, {…} templates.
  if (head && mechKeywords().contains(atom)) setFormat(start, end - start, format(Kind::Keyword));
  else if (head && mechFunctions().contains(atom)) setFormat(start, end - start, format(Kind::Function));
  else if (mechTypes().contains(atom)) setFormat(start, end - start, format(Kind::Type));
  else if (atom == "pi" || atom == "world") setFormat(start, end - start, format(Kind::Constant));
  for (int k = atom.indexOf('{'); k >= 0; k = atom.indexOf('{', k + 1)) {
    const int close = atom.indexOf('}', k);
    const int len = (close < 0 ? int(atom.size()) : close + 1) - k;
    setFormat(start + k, len, format(Kind::Template));
    if (close < 0) break;
  }
}

}  // namespace ms::ui
