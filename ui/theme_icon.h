// SPDX-License-Identifier: GPL-3.0-or-later
// An icon from the desktop theme, or Qt's built-in one when there is no theme (the main window's
// actions).
#pragma once

#include <QApplication>
#include <QIcon>
#include <QStyle>

namespace ms::ui {

inline QIcon themeIcon(const char* name, QStyle::StandardPixmap fallback) {
  return QIcon::fromTheme(name, QApplication::style()->standardIcon(fallback));
}

}  // namespace ms::ui
