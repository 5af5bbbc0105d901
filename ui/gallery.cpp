// SPDX-License-Identifier: GPL-3.0-or-later
#include "gallery.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>
#include <algorithm>

namespace ms::ui {

namespace {
// Sort key: .mech before .trep before URDF, then by name.
int kindRank(const QString& path) {
  if (path.endsWith(".mech")) return 0;
  if (path.endsWith(".trep")) return 1;
  return 2;
}
}  // namespace

QList<GalleryEntry> galleryEntries() {
  QList<GalleryEntry> out;
  QDirIterator it(":/gallery", QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString path = it.next();
    if (!(path.endsWith(".mech") || path.endsWith(".trep") || path.endsWith(".urdf"))) continue;
    QString title = path.mid(QString(":/gallery/").size());
    if (!title.endsWith(".urdf")) title = QFileInfo(title).completeBaseName();
    out.push_back({title, path});
  }
  std::sort(out.begin(), out.end(), [](const GalleryEntry& a, const GalleryEntry& b) {
    const int ra = kindRank(a.resource), rb = kindRank(b.resource);
    return ra != rb ? ra < rb : a.title < b.title;
  });
  return out;
}

QString extractGalleryModel(const QString& resource, QString* error, const QString& dirIn) {
  const QString dir = dirIn.isEmpty()
                          ? QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + "/gallery"
                          : dirIn;
  // Copy every gallery file (meshes included), replacing older copies.
  QDirIterator it(":/gallery", QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString src = it.next();
    const QString dst = dir + "/" + src.mid(QString(":/gallery/").size());
    if (!QDir().mkpath(QFileInfo(dst).absolutePath())) {
      if (error) *error = "cannot create folder " + QFileInfo(dst).absolutePath();
      return {};
    }
    // Replaced atomically (other instances, e.g. tests run side by side, share the folder and may be
    // reading it): an unchanged copy stays, a new one is renamed over the old.
    QFile in(src);
    if (!in.open(QIODevice::ReadOnly)) {
      if (error) *error = "cannot read " + src;
      return {};
    }
    const QByteArray bytes = in.readAll();
    QFile old(dst);
    if (old.open(QIODevice::ReadOnly) && old.readAll() == bytes) continue;
    QSaveFile out(dst);
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit()) {
      if (error) *error = "cannot write " + dst;
      return {};
    }
    QFile::setPermissions(dst, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
  }
  const QString path = dir + "/" + resource.mid(QString(":/gallery/").size());
  if (!QFileInfo::exists(path)) {
    if (error) *error = "no example " + resource;
    return {};
  }
  return path;
}

QString defaultGalleryResource() { return ":/gallery/double-pendulum.mech"; }

}  // namespace ms::ui
