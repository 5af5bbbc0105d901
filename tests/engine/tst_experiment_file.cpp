// SPDX-License-Identifier: GPL-3.0-or-later
// Experiment files (engine/io/experiment_file.h): the built-in lessons are the files in
// models/lessons (the embedded copies equal the source tree's), write → read gives an equal
// experiment for every lesson and for one that uses every form, malformed files are reported at
// their line:column, and the model of an experiment (scene, relative file with parameters, inline
// (mechanism …)) builds, its errors located in the experiment file.
#include <QTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/check.h"
#include "io/experiment_file.h"
#include "scenes/lessons.h"
#include "system/compiled_system.h"
#include "test_paths.h"

using namespace ms;

namespace {

std::string lessonPath(const Lesson& l) {
  char name[64];
  std::snprintf(name, sizeof name, "lessons/%02d-%s.experiment", l.number, l.id.c_str());
  return test::modelPath(name);
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// An experiment that uses every form and awkward texts.
Lesson everyForm() {
  Lesson l;
  l.id = "every form";
  l.title = "Every \"form\" with a back\\slash, a tab\tand Δt";
  l.modelFile = "models/double-pendulum.mech";
  l.params = {{"angle", "1.2"}, {"name", "two words"}, {"expr", "(deg 30)"}, {"sym", "spherical"}, {"empty", ""}};
  l.keyframe = "released";
  l.follow = "link 2";
  l.figure = "work-precision-double-pendulum.png";
  LessonVariant a{"VI", {}, 0.01, 1e-12};
  LessonVariant b{"rk4 stabilised", {}, 0.0025, 0};
  b.options.kind = IntegratorKind::RK4;
  b.options.baumgarteAlpha = 10;
  b.options.baumgarteBeta = 0.5;
  LessonVariant c{"soft", {}, 1e-3, 0};
  c.options.kind = IntegratorKind::Exponential;
  c.options.contacts = ContactModel::Soft;
  c.options.contactStiffness = 2.5e4;
  c.options.contactDamping = 0;
  LessonVariant d{"mujoco", {}, 0.01, 0};
  d.options.kind = IntegratorKind::MuJoCo;
  d.options.mujocoScheme = MuJoCoScheme::Implicit;
  LessonVariant e{"rigid, other K", {}, 0.1 + 0.2, 0};  // 0.30000000000000004: shortest round trip
  e.options.contactStiffness = 3;
  l.variants = {a, b, c, d, e};
  l.duration = 12.5;
  l.focus = LessonFocus::AngularMomentum;
  l.logScale = true;
  l.plots = {{"joint1.angle", "joint2.angle"}, {"system.energy"}, {"a name with spaces"}};
  l.phases = {{"joint1.angle", "joint1.angle_rate"}, {"joint2.angle", "a name with spaces"}};
  l.camera = LessonCamera{{{1, -2.5, 3}}, {{0, 0, 0.5}}, {{0, 1, 0}}};
  l.explanation = std::string(300, 'x') + "  two spaces, then a very long paragraph " + std::string(40, 'y') +
                  " that must be split over several strings and joined back exactly ";
  l.claim = "One line.";
  l.followUp = "";
  return l;
}

struct BadCase {
  const char* name;
  std::string text;
  int line, column;
  const char* message;
};

}  // namespace

class TestExperimentFile : public QObject {
  Q_OBJECT
 private slots:
  // The embedded lessons are the files of models/lessons, one per lesson, in number order.
  void builtinLessonsAreTheFiles() {
    QCOMPARE(int(lessons().size()), 11);
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(test::modelPath("lessons")))
      files += isExperimentFile(e.path().string());
    QCOMPARE(files, int(lessons().size()));
    for (const Lesson& l : lessons()) {
      Diagnostics diags;
      Lesson fromFile;
      QVERIFY2(readExperimentFile(lessonPath(l), fromFile, diags), diags.format().c_str());
      QVERIFY(diags.empty());
      QVERIFY2(fromFile == l, l.id.c_str());
      QCOMPARE(fromFile.number, 0);
      QCOMPARE(QString::fromStdString(l.sourceFile), QString("models/lessons/") + QString::fromStdString(
                                                           std::filesystem::path(lessonPath(l)).filename().string()));
    }
    // Spot checks against the lessons' documented content (docs/lessons.md).
    const Lesson& drift = findLesson("1");
    QCOMPARE(QString::fromStdString(drift.id), QString("drift"));
    QCOMPARE(QString::fromStdString(drift.scene), QString("three-link-loop"));
    QCOMPARE(drift.focus, LessonFocus::ConstraintViolation);
    QVERIFY(drift.logScale);
    QCOMPARE(drift.duration, 20.0);
    QCOMPARE(int(drift.variants.size()), 2);
    QCOMPARE(drift.variants[1].options.kind, IntegratorKind::RK4);
    const Lesson& contact = findLesson("contact");
    QCOMPARE(contact.variants[1].options.contacts, ContactModel::Soft);
    QCOMPARE(contact.variants[1].options.contactStiffness, 1e5);
    QCOMPARE(contact.variants[1].options.contactDamping, 300.0);
    QCOMPARE(contact.variants[1].dt, 0.001);
    const Lesson& tol = findLesson("tolerance");
    QCOMPARE(tol.params.at("n"), std::string("300"));
    QCOMPARE(int(tol.variants.size()), 7);
    QCOMPARE(tol.variants[6].tolerance, 1e-10);
    QCOMPARE(tol.variants[6].options.kind, IntegratorKind::RIQN);
    QCOMPARE(int(findLesson("energy").phases.size()), 1);
    QCOMPARE(QString::fromStdString(findLesson("energy").phases[0].second), QString("joint1.angle_rate"));
    QVERIFY(findLesson("energy").explanation.find("oscillates but never grows") != std::string::npos);
  }

  // write → read gives an equal experiment, and writing that again gives the same text.
  void roundTrip() {
    std::vector<Lesson> all = lessons();
    all.push_back(everyForm());
    Lesson inlineModel = everyForm();
    inlineModel.modelFile.clear();
    inlineModel.params = {{"angle", "0.3"}};
    inlineModel.modelText = "(mechanism \"inline\"\n  ; a comment kept in the text\n  (param angle 0.5)\n"
                            "  (body b (mass 1) (shape box 0.1 0.1 0.1)\n    (joint revolute j (axis 1 0 0) "
                            "(child-anchor 0 0 1) (position angle))))";
    all.push_back(inlineModel);
    for (const Lesson& l : all) {
      const std::string text = writeExperiment(l);
      Lesson back;
      Diagnostics diags;
      QVERIFY2(readExperimentText(text, "written.experiment", back, diags), (diags.format() + text).c_str());
      QVERIFY2(diags.empty(), diags.format().c_str());
      QVERIFY2(back == l, text.c_str());
      QCOMPARE(QString::fromStdString(writeExperiment(back)), QString::fromStdString(text));
      // No line longer than the text wrapping allows (besides a long unbreakable word).
      size_t longest = 0, start = 0;
      for (size_t nl = text.find('\n'); nl != std::string::npos; start = nl + 1, nl = text.find('\n', start))
        longest = std::max(longest, nl - start);
      if (&l != &all.back() && &l != &all[all.size() - 2]) QVERIFY2(longest <= 130, text.c_str());
    }
    // Every field matters to ==.
    Lesson a = everyForm(), b = a;
    QVERIFY(a == b);
    b.keyframe = "other";
    QVERIFY(a != b);
    b = a;
    b.follow = "link1";
    QVERIFY(a != b);
    b = a;
    b.figure = "other.png";
    QVERIFY(a != b);
    b = a;
    b.camera->up[2] = 1;
    QVERIFY(a != b);
    b = a;
    b.plots.pop_back();
    QVERIFY(a != b);
    b = a;
    b.variants[2].options.contactDamping = 1;
    QVERIFY(a != b);
  }

  // Malformed files: each problem at its line:column, with a clear message.
  void errorsAtLineColumn() {
    const std::string head = "(experiment \"x\"\n  (model scene:pendulum)\n";
    const std::string copy = "  (copy \"VI\" (integrator vi) (dt 0.01))\n";
    const std::vector<BadCase> cases = {
        {"unknown form", head + copy + "  (durration 3))\n", 4, 4, "unknown form 'durration' in (experiment ...) (did you mean 'duration'?)"},
        {"wrong arity", head + copy + "  (duration 3 4))\n", 4, 3, "(duration ...) takes 1 number (got 2)"},
        {"bad number", head + "  (copy \"VI\" (integrator vi) (dt fast))\n)\n", 3, 34, "(dt ...) takes a number, got 'fast'"},
        {"negative dt", head + "  (copy \"VI\" (integrator vi) (dt -0.01))\n)\n", 3, 34, "(dt ...) must be positive (got -0.01)"},
        {"unknown integrator", head + "  (copy \"VI\" (integrator rk5) (dt 0.01))\n)\n", 3, 26,
         "unknown integrator 'rk5' (did you mean 'rk4'?)"},
        {"unknown focus", head + copy + "  (focus energie))\n", 4, 10, "unknown focus 'energie' (did you mean 'energy'?)"},
        {"missing model", "(experiment \"x\"\n" + copy + ")\n", 1, 1, "the experiment has no (model ...)"},
        {"no copies", head + "  (duration 3))\n", 1, 1, "the experiment has no (copy ...)"},
        {"copy without dt", head + "  (copy \"VI\" (integrator vi)))\n", 3, 3, "copy 'VI' needs its time step"},
        {"unknown scene", "(experiment \"x\"\n  (model scene:pendulun)\n" + copy + ")\n", 2, 10,
         "unknown scene 'pendulun' (did you mean 'pendulum'?)"},
        {"duplicate", head + copy + "  (duration 3)\n  (duration 4))\n", 5, 3, "duplicate (duration ...) in (experiment ...); the first is at line 4, column 3"},
        {"duplicate label", head + copy + copy + ")\n", 4, 9, "a copy labelled 'VI' is already at line 3, column 3"},
        {"soft stiffness", head + "  (copy \"E\" (integrator euler) (dt 0.01) (contacts soft (stiffness -5)))\n)\n", 3, 68,
         "(stiffness ...) must be positive"},
        {"contacts kind", head + "  (copy \"E\" (integrator euler) (dt 0.01) (contacts squishy))\n)\n", 3, 52,
         "(contacts ...) takes rigid or soft"},
        {"camera arity", head + copy + "  (camera (eye 1 2) (center 0 0 0)))\n", 4, 11, "(eye ...) takes 3 numbers (got 2)"},
        {"phase arity", head + copy + "  (phase joint1.angle))\n", 4, 3, "(phase ...) takes two signals"},
        {"text not a string", head + copy + "  (claim energy is conserved))\n", 4, 10, "(claim ...) takes strings in double quotes"},
        {"set on a urdf", "(experiment \"x\"\n  (model \"arm.urdf\" (set n 2))\n" + copy + ")\n", 2, 21, "files have no parameters"},
        {"model file type", "(experiment \"x\"\n  (model \"arm.txt\")\n" + copy + ")\n", 2, 10, "unknown model file type '.txt'"},
        {"outside", "(mechanism \"m\")\n(experiment \"x\"\n  (model scene:pendulum)\n" + copy + ")\n", 1, 1,
         "unexpected (mechanism ...) outside (experiment ...)"},
        {"no experiment", "; nothing\n", 1, 1, "the file holds no (experiment NAME ...) form"},
        {"unclosed", head + copy, 1, 1, "unclosed"},
        {"no name", "(experiment (model scene:pendulum)\n" + copy + ")\n", 1, 13, "starts with the experiment's name"},
    };
    for (const BadCase& c : cases) {
      Lesson l;
      Diagnostics diags;
      QVERIFY2(!readExperimentText(c.text, "bad.experiment", l, diags), c.name);
      const Diagnostic* hit = nullptr;
      for (const Diagnostic& d : diags.items())
        if (d.severity == Severity::Error && d.message.find(c.message) != std::string::npos) hit = &d;
      QVERIFY2(hit, (std::string(c.name) + ": no error containing '" + c.message + "' in:\n" + diags.format()).c_str());
      QCOMPARE(hit->file, std::string("bad.experiment"));
      if (hit->line != c.line || hit->column != c.column)
        QFAIL((std::string(c.name) + ": at " + std::to_string(hit->line) + ":" + std::to_string(hit->column) +
               ", expected " + std::to_string(c.line) + ":" + std::to_string(c.column) + ": " + hit->message)
                  .c_str());
    }
    // loadExperiment: the errors as one UserError, "file:line:column: message".
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tst_experiment_file";
    std::filesystem::create_directories(dir);
    const std::string bad = (dir / "bad.experiment").string();
    writeFile(bad, head + copy + "  (focus energie))\n");
    try {
      loadExperiment(bad);
      QFAIL("a malformed file was accepted");
    } catch (const UserError& e) {
      QCOMPARE(QString(e.what()), QString::fromStdString(bad + ":4:10: unknown focus 'energie' (did you mean 'energy'?) (" +
                                                       lessonFocusChoices() + ")"));
    }
    QVERIFY_THROWS_EXCEPTION(UserError, loadExperiment((dir / "none.experiment").string()));
  }

  // The model of an experiment: a .mech file relative to the experiment with (set …), and an
  // inline (mechanism …) whose errors are located in the experiment file.
  void models() {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tst_experiment_file" / "models";
    std::filesystem::create_directories(dir / "sub");
    std::filesystem::copy_file(test::modelPath("pendulum.mech"), dir / "sub" / "pendulum.mech",
                               std::filesystem::copy_options::overwrite_existing);
    const std::string path = (dir / "file.experiment").string();
    writeFile(path, "(experiment \"file\"\n  (model \"sub/pendulum.mech\" (set angle 0.25))\n"
                    "  (copy \"VI\" (integrator vi) (dt 0.01)))\n");
    const Lesson l = loadExperiment(path);
    QCOMPARE(QString::fromStdString(l.modelFile), QString("sub/pendulum.mech"));
    QCOMPARE(QString::fromStdString(lessonModelSource(l)), QString::fromStdString((dir / "sub" / "pendulum.mech").string()));
    const Model m = lessonModel(l);
    QCOMPARE(int(m.bodies.size()), 1);
    QCOMPARE(m.joints[0].initialPosition.at(0), 0.25);

    // Inline: the parameter set by the experiment, the body's mass as written.
    const std::string text =
        "(experiment \"inline\"\n"
        "  (model (mechanism \"m\" (param angle 0.5)\n"
        "           (body b (mass 2) (shape box 0.1 0.1 0.1)\n"
        "             (joint revolute j (axis 1 0 0) (child-anchor 0 0 1) (position angle))))\n"
        "    (set angle 0.75))\n"
        "  (copy \"VI\" (integrator vi) (dt 0.01)))\n";
    Lesson in;
    Diagnostics diags;
    QVERIFY2(readExperimentText(text, "inline.experiment", in, diags), diags.format().c_str());
    QCOMPARE(in.modelLine, 2);
    QCOMPARE(in.modelColumn, 10);
    const Model im = lessonModel(in);
    QCOMPARE(im.bodies[0].mass, 2.0);
    QCOMPARE(im.joints[0].initialPosition.at(0), 0.75);
    compile(im);
    // An error inside the inline model: at its place in the experiment file.
    std::string broken = text;
    broken.replace(broken.find("(mass 2)"), 8, "(mass x)");
    QVERIFY(readExperimentText(broken, "inline.experiment", in, diags));
    try {
      lessonModel(in);
      QFAIL("an inline model with an error built");
    } catch (const UserError& e) {
      QVERIFY2(QString(e.what()).startsWith("inline.experiment:3:26: undefined name 'x'"), e.what());
    }
    // A missing model file: named in the error.
    Lesson missing = l;
    missing.modelFile = "sub/none.mech";
    try {
      lessonModel(missing);
      QFAIL("a missing model file was accepted");
    } catch (const UserError& e) {
      QVERIFY2(QString(e.what()).contains("none.mech") && QString(e.what()).contains("cannot open"), e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestExperimentFile)
#include "tst_experiment_file.moc"
