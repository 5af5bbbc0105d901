// SPDX-License-Identifier: GPL-3.0-or-later
// Signal plots (issue 15), under Xvfb: Plot ▸ … from a joint's and a body's context menu in the
// model tree makes a signal plot that receives one sample per step with the engine's values (the
// joint angle equals the Joints dock's minimal-coordinate readout), degrees switch the display,
// CSV export carries the signal columns with units, a model applied from the editor keeps the plot
// by name, and lesson 2 opens with a phase portrait of two curves (VI and Heun).
#include <QApplication>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QMenu>
#include <memory>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <qcustomplot.h>

#include "editor/model_tree.h"
#include "joint_panel.h"
#include "main_window.h"
#include "document_controller.h"
#include "plot_actions.h"
#include "plots/phase_dock.h"
#include "plots/plot_dock.h"
#include "plots/plot_manager.h"
#include "signals/signals.h"
#include "ui_test_util.h"

using namespace ms;
using namespace ms::ui;

namespace {
using test::settle;
using test::stepN;


// Triggers "Plot ▸ <label>" of the tree node named `node`.
bool plotFromTree(MainWindow& w, const QString& node, const QString& label) {
  ModelTreePanel* tree = w.findChild<ModelTreePanel*>();
  if (!tree) return false;
  const QList<QTreeWidgetItem*> items = tree->tree()->findItems(node, Qt::MatchExactly | Qt::MatchRecursive);
  if (items.isEmpty()) return false;
  const std::unique_ptr<QMenu> menu = tree->contextMenu(items.front());
  if (!menu) return false;
  for (QAction* a : menu->actions())
    if (a->menu() && a->text() == "Plot")
      for (QAction* b : a->menu()->actions())
        if (b->text() == label) {
          b->trigger();
          return true;
        }
  return false;
}

// The graph of a signal plot's curve named `name` (the reference's).
QCPGraph* graphOf(PlotDock* dock, const QString& name) {
  for (int g = 0; g < dock->plot()->graphCount(); ++g)
    if (dock->plot()->graph(g)->name() == name) return dock->plot()->graph(g);
  return nullptr;
}
}  // namespace

class TestSignalPlots : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  void jointAngleFromTheTree() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QString err;
    QVERIFY2(w.openModel(QStringLiteral(MECHSTUDIO_SOURCE_DIR "/models/four-bar.mech"), &err), qPrintable(err));
    settle(w);
    QVERIFY(plotFromTree(w, "crank-shaft", "Coordinates (angle, position)"));
    QCOMPARE(w.plots()->signalDocks().size(), 1);
    PlotDock* dock = w.plots()->signalDocks().front();
    QCOMPARE(dock->signalNames(), QStringList{"crank-shaft.angle"});
    QVERIFY(dock->isVisible());
    // The same request again raises the same plot.
    QVERIFY(plotFromTree(w, "crank-shaft", "Coordinates (angle, position)"));
    QCOMPARE(w.plots()->signalDocks().size(), 1);
    // One sample per step, each with the signal's value.
    const long before = w.plots()->sampleCount();
    stepN(w, 40);
    QCOMPARE(w.plots()->sampleCount() - before, 40L);
    dock->refresh(0, true);
    QCPGraph* g = graphOf(dock, "crank-shaft.angle");
    QVERIFY(g);
    QCOMPARE(g->data()->size(), 41);  // the state shown when the plot was made, then one per step
    // The last plotted value is the engine's minimal coordinate of the state shown (Joints dock).
    const Snapshot s = w.sim().snapshot();
    int joint = -1;
    for (size_t k = 0; k < s.system->joints.size(); ++k)
      if (s.system->joints[k].name == "crank-shaft") joint = int(k);
    QVERIFY(joint >= 0);
    const double angle = s.jointPositions[size_t(joint)][0];
    const double plotted = (g->data()->constEnd() - 1)->value;
    QVERIFY2(std::abs(plotted - angle) <= 1e-12, qPrintable(QString("%1 vs %2").arg(plotted).arg(angle)));
    // Degrees everywhere (View's action): the plot scales and says so, the Joints dock too.
    QAction* degrees = w.findChild<QAction*>("angles-degrees-action");
    QVERIFY(degrees);
    degrees->setChecked(true);
    settle(w);
    dock->refresh(0, true);
    QVERIFY(std::abs((g->data()->constEnd() - 1)->value - angle * 180 / M_PI) <= 1e-9);
    QVERIFY2(dock->plot()->yAxis->label().contains("deg"), qPrintable(dock->plot()->yAxis->label()));
    QDoubleSpinBox* field = w.jointPanel()->positionField(joint, 0);
    QVERIFY(field);
    QCOMPARE(field->suffix(), QString(" °"));
    // Shown to the field's 4 decimals; the value it stands for is the same angle.
    QVERIFY2(std::abs(field->value() - angle * 180 / M_PI) <= 1e-4, qPrintable(QString("%1 vs %2").arg(field->value()).arg(angle * 180 / M_PI)));
    degrees->setChecked(false);
    settle(w);
    QCOMPARE(w.jointPanel()->positionField(joint, 0)->suffix(), QString(" rad"));
    QVERIFY(std::abs(w.jointPanel()->positionField(joint, 0)->value() - angle) <= 1e-4);

    // A body's reaction and pose signals into further plots; the CSV has their columns with units.
    QVERIFY(plotFromTree(w, "crank-shaft", "Reaction force"));
    QVERIFY(plotFromTree(w, "crank", "Orientation (roll, pitch, yaw)"));
    QCOMPARE(w.plots()->signalDocks().size(), 3);
    // The 3D view's context menu of the crank: its own quantities and its joint's.
    int crank = -1;
    for (size_t b = 0; b < s.system->bodies.size(); ++b)
      if (s.system->bodies[b].name == "crank") crank = int(b);
    const std::unique_ptr<QMenu> viewMenu = w.plotActions()->bodyPlotMenu(crank);
    QVERIFY(viewMenu);
    QAction* torque = nullptr;
    for (QAction* a : viewMenu->actions())
      if (a->menu() && a->text() == "Plot joint crank-shaft")
        for (QAction* b : a->menu()->actions())
          if (b->text() == "Reaction torque") torque = b;
    QVERIFY(torque);
    torque->trigger();
    QCOMPARE(w.plots()->signalDocks().size(), 4);
    QCOMPARE(w.plots()->signalDocks().back()->signalNames(),
             (QStringList{"crank-shaft.torque.x", "crank-shaft.torque.y", "crank-shaft.torque.z"}));
    QVERIFY(!w.plotActions()->bodyPlotMenu(-1));
    stepN(w, 10);
    QTemporaryDir dir;
    const QString csv = dir.filePath("run.csv");
    QVERIFY2(w.plots()->exportCsv(csv, &err), qPrintable(err));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray header = f.readLine();
    for (const char* col : {"crank-shaft.angle [rad]", "crank-shaft.force.z [N]", "crank.yaw [rad]"})
      QVERIFY2(header.contains(col), header.constData());
    int rows = 0;
    while (!f.readLine().isEmpty()) ++rows;
    QCOMPARE(long(rows), w.plots()->sampleCount());
  }

  void appliedModelKeepsThePlot() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QString err;
    QVERIFY2(w.openModel(QStringLiteral(MECHSTUDIO_SOURCE_DIR "/models/pendulum.mech"), &err), qPrintable(err));
    settle(w);
    QVERIFY(w.plotSignals({"joint1.angle", "system.energy"}, &err));
    stepN(w, 5);
    // Applying the same text again (a new compiled system): the plot keeps its signals.
    QVERIFY2(w.documents()->applyEditor(&err), qPrintable(err));
    settle(w);
    QCOMPARE(w.plots()->signalDocks().size(), 1);
    QCOMPARE(w.plots()->signalDocks().front()->signalNames(), (QStringList{"joint1.angle", "system.energy"}));
    const long before = w.plots()->sampleCount();
    stepN(w, 7);
    QCOMPARE(w.plots()->sampleCount() - before, 7L);
    PlotDock* dock = w.plots()->signalDocks().front();
    dock->refresh(0, true);
    QCPGraph* g = graphOf(dock, "system.energy");
    QVERIFY(g && g->data()->size() >= 7);
    QVERIFY(std::isfinite((g->data()->constEnd() - 1)->value));
    // An unknown name is refused with the reason.
    QVERIFY(!w.plotSignals({"joint1.angel"}, &err));
    QVERIFY2(err.contains("no signal matches joint1.angel"), qPrintable(err));
  }

  void lessonTwoPhasePortrait() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QString err;
    QVERIFY2(w.openLesson("2", &err), qPrintable(err));
    settle(w);
    QCOMPARE(w.plots()->phaseDocks().size(), 1);
    PhaseDock* phase = w.plots()->phaseDocks().front();
    QCOMPARE(phase->curveCount(), 2);  // VI and Heun
    stepN(w, 100);
    phase->refresh(0, true);
    QVERIFY2(phase->pointCount(0) >= 100, qPrintable(QString::number(phase->pointCount(0))));
    QVERIFY2(phase->pointCount(1) >= 100, qPrintable(QString::number(phase->pointCount(1))));
    QTemporaryDir dir;
    QVERIFY2(phase->saveImage(dir.filePath("phase.png"), &err), qPrintable(err));
    // Opening the lesson again does not duplicate it.
    QVERIFY2(w.openLesson("2", &err), qPrintable(err));
    settle(w);
    QCOMPARE(w.plots()->phaseDocks().size(), 1);
  }
};

MECHSTUDIO_GUI_TEST_MAIN(TestSignalPlots)
#include "tst_signal_plots.moc"
