// SPDX-License-Identifier: GPL-3.0-or-later
// Syntax highlighting of model files: the MechStudio language (.mech: forms and items, joint types
// and shape kinds, arithmetic functions, `{i}` name templates) and trep syntax (.trep: its heads and
// transform types, case-insensitive); both have `;` comments, strings, numbers and parentheses.
#pragma once

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

#include "editor/model_check.h"

namespace ms::ui {

class ModelHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
 public:
  // What a piece of text is; each kind has its own format.
  enum class Kind { Comment, String, Number, Keyword, Type, Function, Template, Paren, Constant };

  ModelHighlighter(QTextDocument* doc, ModelLanguage language);
  void setLanguage(ModelLanguage language);
  ModelLanguage language() const { return language_; }
  const QTextCharFormat& format(Kind k) const { return formats_[int(k)]; }

 protected:
  void highlightBlock(const QString& text) override;

 private:
  // Formats one atom (a symbol or number) of `text` at [start, end); `head`: it follows a '('.
  void highlightAtom(const QString& text, int start, int end, bool head);

  ModelLanguage language_;
  QTextCharFormat formats_[9];
};

}  // namespace ms::ui
