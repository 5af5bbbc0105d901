// SPDX-License-Identifier: GPL-3.0-or-later
// URDF package paths in the desktop application (under Xvfb): a URDF whose meshes are package://
// URIs opens with a warning until Settings > Package paths names the root; editing the field reloads
// the open URDF with the meshes resolved (they collide); the field persists across restarts; the
// session's paths (mechstudio --package-path) are searched first and are not saved; a path that is
// not a directory is named under the field.
#include <QDir>
#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

#include "main_window.h"
#include "document_controller.h"
#include "status_bar.h"
#include "settings_panel.h"
#include "ui_test_util.h"

using namespace ms;
using namespace ms::ui;

namespace {
const QString kPackages = QDir::cleanPath(MECHSTUDIO_SOURCE_DIR "/tests/data/urdf/packages");
const QString kArm = kPackages + "/mech_pkg/urdf/arm.urdf";

// Types `text` into the package paths field and finishes the edit (Enter).
void typePackagePaths(SettingsPanel* panel, const QString& text) {
  QLineEdit* field = panel->packagePathsField();
  field->setFocus();
  field->selectAll();
  QTest::keyClicks(field, text);
  QTest::keyClick(field, Qt::Key_Return);
}

// The collision shapes the simulated system has for its first body (the arm's mesh hull, or none).
int armCollisionShapes(MainWindow& w) {
  test::settle(w);
  const auto sys = w.sim().snapshot().system;
  return sys ? int(sys->bodyShapes.at(0).size()) : -1;
}
}  // namespace

class TestUrdfPackagePaths : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // settings in a test location
    QSettings().clear();
    qunsetenv("ROS_PACKAGE_PATH");
  }

  // Not found → warning banner, no collision shape; the field set → reloaded, resolved, colliding.
  void settingsFieldResolvesAndReloads() {
    {
      MainWindow w;
      w.show();
      QString err;
      QVERIFY2(w.openModel(kArm, &err), qPrintable(err));
      QVERIFY2(w.status()->bannerText().contains("package 'mech_pkg' not found"), qPrintable(w.status()->bannerText()));
      QCOMPARE(armCollisionShapes(w), 0);
      typePackagePaths(w.settingsPanel(), kPackages);
      QCOMPARE(w.settingsPanel()->packagePaths(), QStringList{kPackages});
      QVERIFY(w.settingsPanel()->packagePathsProblem().isEmpty());
      QVERIFY2(w.status()->bannerText().isEmpty(), qPrintable(w.status()->bannerText()));
      QCOMPARE(armCollisionShapes(w), 1);
      QCOMPARE(QString::fromStdString(w.sim().snapshot().system->model.bodies[0].visuals[0].meshFile),
               kPackages + "/mech_pkg/meshes/link.stl");
      w.close();
    }
    // Saved with the other settings: a new window opens the URDF resolved.
    MainWindow w2;
    w2.show();
    QCOMPARE(w2.settingsPanel()->packagePaths(), QStringList{kPackages});
    QVERIFY(w2.openModel(kArm));
    QVERIFY2(w2.status()->bannerText().isEmpty(), qPrintable(w2.status()->bannerText()));
    QCOMPARE(armCollisionShapes(w2), 1);
  }

  // The session's paths come first and are not saved; a missing directory is named.
  void sessionPathsAndMissingDirectories() {
    QSettings().remove("packagePaths");
    {
      MainWindow w;
      w.show();
      w.settingsPanel()->setPackagePaths({"/nonexistent-mechstudio-root"});
      QVERIFY(w.settingsPanel()->packagePathsProblem().contains("not a directory: /nonexistent-mechstudio-root"));
      w.addSessionPackagePaths({kPackages});
      QCOMPARE(w.documents()->packagePaths(), (QStringList{kPackages, "/nonexistent-mechstudio-root"}));
      QVERIFY(w.openModel(kArm));
      QVERIFY2(w.status()->bannerText().isEmpty(), qPrintable(w.status()->bannerText()));
      QCOMPARE(armCollisionShapes(w), 1);
      w.close();
    }
    MainWindow w2;
    w2.show();
    QCOMPARE(w2.documents()->packagePaths(), QStringList{"/nonexistent-mechstudio-root"});
    // "~" is the home directory; entries are separated as in ROS_PACKAGE_PATH.
    typePackagePaths(w2.settingsPanel(), QString("~/a%1 %2 %1").arg(QDir::listSeparator()).arg(kPackages));
    QCOMPARE(w2.settingsPanel()->packagePaths(), (QStringList{QDir::homePath() + "/a", kPackages}));
  }
};

QTEST_MAIN(TestUrdfPackagePaths)
#include "tst_urdf_package_paths.moc"
