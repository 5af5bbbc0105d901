// SPDX-License-Identifier: GPL-3.0-or-later
// The bundled model gallery: models/ is compiled into the binary as resources under :/gallery;
// opening an example first copies the gallery to a cache folder so that the engine (which reads
// plain files) and relative mesh paths work, in the installed app as in the build tree.
#pragma once

#include <QString>
#include <QStringList>

namespace ms::ui {

struct GalleryEntry {
  QString title;     // "double-pendulum", "urdf/two-link-arm"
  QString resource;  // ":/gallery/double-pendulum.mech"
};

// Every model file in the bundled gallery (.mech, .trep, .urdf), sorted: .mech first, then
// .trep, then urdf/.
QList<GalleryEntry> galleryEntries();

// Copies the whole gallery to `dir` (default: the user's cache location; each file replaced
// atomically, so concurrent instances never read a missing or partial one) and returns the path of
// `resource` there; empty with *error set when the copy fails.
QString extractGalleryModel(const QString& resource, QString* error, const QString& dir = QString());

// The example opened when mechstudio starts without a file.
QString defaultGalleryResource();

}  // namespace ms::ui
