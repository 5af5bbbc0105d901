// SPDX-License-Identifier: GPL-3.0-or-later
#include "scenes/lessons.h"

#include <cstdlib>

#include "core/check.h"
#include "scenes/scenes.h"

namespace ms {
namespace {

IntegratorOptions opts(IntegratorKind k, ContactModel c = ContactModel::Rigid) {
  IntegratorOptions o;
  o.kind = k;
  o.contacts = c;
  return o;
}

std::vector<Lesson> makeLessons() {
  using K = IntegratorKind;
  std::vector<Lesson> out;
  Lesson l;

  // 1. Constraint drift (Fig. 7a).
  l = Lesson();
  l.number = 1;
  l.id = "drift";
  l.title = "Constraint drift: three-link loop, VI vs RK4";
  l.explanation =
      "A closed loop of three links pinned to the ground at both ends. The variational integrator solves "
      "for positions that satisfy every joint at every step. RK4 integrates accelerations: it keeps the "
      "constraints only to second derivative, so numerical error lets the links drift apart.";
  l.claim = "RK4's link-length error grows steadily; the variational integrator's stays at round-off (below 1e-9 m).";
  l.scene = "three-link-loop";
  l.variants = {{"VI", opts(K::Variational), 0.01}, {"RK4", opts(K::RK4), 0.01}};
  l.duration = 20;
  l.focus = LessonFocus::ConstraintViolation;
  l.logScale = true;
  l.followUp = "Give RK4 Baumgarte stabilisation (alpha = beta = 10 1/s): the drift stops growing, but the joints now "
               "act as stiff springs that add their own energy error.";
  out.push_back(l);

  // 2. Energy conservation (Fig. 7b).
  l = Lesson();
  l.number = 2;
  l.id = "energy";
  l.title = "Energy: double pendulum, VI vs Heun";
  l.explanation =
      "A frictionless double pendulum: its total energy is constant. The variational integrator conserves a "
      "nearby energy exactly, so its energy error oscillates but never grows. Heun's method (explicit RK2) "
      "has no such structure: its energy error accumulates.";
  l.claim = "Heun's energy error grows over 60 s; the variational integrator's stays bounded.";
  l.scene = "double-pendulum";
  l.variants = {{"VI", opts(K::Variational), 0.01}, {"Heun", opts(K::Heun), 0.01}};
  l.duration = 60;
  l.focus = LessonFocus::Energy;
  l.followUp = "Raise the step of both to 0.05 s: Heun's error grows much faster, the variational one stays bounded.";
  // The upper joint's angle against its rate: the VI's curve stays in its band, Heun's drifts out.
  l.phaseX = "joint1.angle";
  l.phaseY = "joint1.angle_rate";
  out.push_back(l);

  // 3. Dissipation (Fig. 7c).
  l = Lesson();
  l.number = 3;
  l.id = "dissipation";
  l.title = "Dissipation: damped pendulum at dt = 0.1 s, VI vs explicit Euler";
  l.explanation =
      "A pendulum with joint damping, simulated with a large step of 0.1 s. The reference is RK4 with a "
      "1 ms step. The variational integrator dissipates energy at nearly the right rate; explicit Euler adds "
      "energy every step, so the pendulum is drastically underdamped.";
  l.claim = "Explicit Euler's energy stays far above the reference; the variational decay follows it within a few percent.";
  l.scene = "damped-pendulum";
  l.variants = {{"VI", opts(K::Variational), 0.1}, {"explicit Euler", opts(K::ExplicitEuler), 0.1},
                {"reference (RK4, 1 ms)", opts(K::RK4), 0.001}};
  l.duration = 20;
  l.focus = LessonFocus::Energy;
  l.followUp = "Lower the step to 0.01 s: explicit Euler comes closer to the reference, but is still the worst.";
  out.push_back(l);

  // 4. Contact (Fig. 7d).
  l = Lesson();
  l.number = 4;
  l.id = "contact";
  l.title = "Contact: box drop, rigid (VI) vs soft contacts";
  l.explanation =
      "A box dropped onto the ground. The variational integrator treats contacts as rigid inequality "
      "constraints: the box stops at the surface. Soft contacts are springs and dampers at the corners "
      "(K = 1e5 N/m, B = 300 N s/m): the box must sink into the ground before they push back.";
  l.claim = "Both soft-contact boxes penetrate by millimetres (explicit Euler about 5 mm, the exponential integrator "
            "about 1 cm: it notices the ground only at the start of a 10 ms step); the rigid one stays within 1e-5 m.";
  l.scene = "box-drop";
  l.variants = {{"VI, rigid", opts(K::Variational), 0.01},
                {"explicit Euler, soft", opts(K::ExplicitEuler, ContactModel::Soft), 0.001},
                {"exponential, soft", opts(K::Exponential, ContactModel::Soft), 0.01}};
  l.duration = 3;
  l.focus = LessonFocus::Penetration;
  l.followUp = "Lower the contact stiffness to 1e4 N/m: the soft boxes sink deeper.";
  out.push_back(l);

  // 5. Free rigid body near its intermediate axis.
  l = Lesson();
  l.number = 5;
  l.id = "intermediate-axis";
  l.title = "Free body near its intermediate axis, VI vs RK4";
  l.explanation =
      "A torque-free body spinning about its intermediate principal axis flips over again and again (the "
      "tennis-racket effect). Energy and angular momentum are constant. At a coarse step of 0.1 s the "
      "variational integrator conserves angular momentum exactly and energy within a bound; RK4 slowly "
      "loses both.";
  l.claim = "RK4's energy and angular momentum drift; the variational integrator's momentum is exact and its energy bounded.";
  l.scene = "free-body";
  l.variants = {{"VI", opts(K::Variational), 0.1}, {"RK4", opts(K::RK4), 0.1}};
  l.duration = 100;
  l.focus = LessonFocus::AngularMomentum;
  l.followUp = "Lower the step to 0.01 s: RK4's drift becomes tiny, at ten times the cost.";
  // Body-frame rates about the intermediate (y) and smallest-inertia (x) axes: closed loops, one per
  // flip, that the VI retraces and RK4's slowly leave.
  l.phaseX = "body.wy_local";
  l.phaseY = "body.wx_local";
  out.push_back(l);

  // 6. Stiff soft contact at a large step (Hammoud et al. 2021).
  l = Lesson();
  l.number = 6;
  l.id = "stiff-contact";
  l.title = "Stiff soft contact at dt = 10 ms: explicit Euler vs exponential";
  l.explanation =
      "The same box on stiff soft contacts (K = 1e5 N/m, B = 300 N s/m) with a 10 ms step. The contact's "
      "spring-damper is far too stiff for explicit Euler at this step: the box bounces away and the "
      "simulation blows up. The exponential integrator integrates the contact dynamics exactly over the "
      "step (a matrix exponential) and stays stable.";
  l.claim = "Explicit Euler diverges within a few steps of touching the ground; the exponential integrator settles.";
  l.scene = "box-drop";
  l.variants = {{"exponential, soft", opts(K::Exponential, ContactModel::Soft), 0.01},
                {"explicit Euler, soft", opts(K::ExplicitEuler, ContactModel::Soft), 0.01}};
  l.duration = 3;
  l.focus = LessonFocus::Penetration;
  l.followUp = "Lower explicit Euler's step until it survives (1 ms; at 1.5 ms it still gains energy): that is the "
               "price of stiffness.";
  out.push_back(l);

  // 7. Tolerance robustness (Brüdigam et al. 2023 Fig. 10).
  l = Lesson();
  l.number = 7;
  l.id = "tolerance";
  l.title = "Tolerance: 300-link pendulum, VI vs midpoint-gc and riqn at 1e-6 / 1e-8 / 1e-10";
  l.explanation =
      "A chain of 300 links falling from horizontal, solved to three Newton tolerances, the same weighted "
      "measure for all (forces relative to the chain's weight). The maximal-coordinate VI has one residual row "
      "per body: the forces on one link. In joint coordinates (trep's midpoint VI with Newton, and Lee et al.'s "
      "RIQN on the same equations) the residual of a joint sums the impulses of the whole chain below it: near "
      "the root its terms are so large that their round-off alone comes near the tolerance, and RIQN's "
      "approximate Jacobian converges slowly once the chain whips.";
  l.claim = "The VI completes at 1e-10. midpoint-gc completes at 1e-6 and 1e-8 and stops after about 2.5 s at "
            "1e-10; riqn stops at every tolerance, earlier the tighter it is.";
  l.scene = "chain";
  l.params = {{"n", "300"}};
  l.variants = {{"VI, tol 1e-10", opts(K::Variational), 0.01, 1e-10},
                {"midpoint-gc, tol 1e-6", opts(K::MidpointGC), 0.01, 1e-6},
                {"midpoint-gc, tol 1e-8", opts(K::MidpointGC), 0.01, 1e-8},
                {"midpoint-gc, tol 1e-10", opts(K::MidpointGC), 0.01, 1e-10},
                {"riqn, tol 1e-6", opts(K::RIQN), 0.01, 1e-6},
                {"riqn, tol 1e-8", opts(K::RIQN), 0.01, 1e-8},
                {"riqn, tol 1e-10", opts(K::RIQN), 0.01, 1e-10}};
  l.duration = 5;
  l.focus = LessonFocus::Iterations;
  l.followUp = "With mechstudio-cli try n = 150: every copy completes at 1e-10, and at --tol 1e-12 both "
               "joint-coordinate solvers stop within half a second while the VI completes.";
  out.push_back(l);

  // 8. Singular configurations (Brüdigam et al. 2023 Fig. 12).
  l = Lesson();
  l.number = 8;
  l.id = "singular";
  l.title = "Singular configurations: double four-bar, VI vs midpoint-gc";
  l.explanation =
      "Two parallelograms sharing a coupler: whenever the bars lie flat, the loop constraints lose rank (the "
      "mechanism could switch to an anti-parallelogram). The maximal-coordinate VI (first order) and trep's "
      "midpoint VI in joint coordinates with the loops as constraints (second order) both pass these "
      "configurations and keep the loops closed. The paper's comparator (a GGL index-2 method) drifts here; a "
      "variational method in joint coordinates does not.";
  l.claim = "Both pass every flat configuration with the loops closed to 1e-9 m and a bounded energy error; the "
            "second-order midpoint-gc's error is about 100 times smaller at this step.";
  l.scene = "double-four-bar";
  l.variants = {{"VI", opts(K::Variational), 0.01}, {"midpoint-gc", opts(K::MidpointGC), 0.01}};
  l.duration = 60;
  l.focus = LessonFocus::Energy;
  l.followUp = "Raise both steps to 0.05 s and omega to 10 rad/s: the VI now revisits steps at the flat "
               "configurations, and both energy errors grow but stay bounded.";
  out.push_back(l);

  // 9. The industry simulator: contact.
  l = Lesson();
  l.number = 9;
  l.id = "mujoco-contact";
  l.title = "MuJoCo: box drop, VI vs MuJoCo's soft contacts";
  l.explanation =
      "The box drop again, beside a MuJoCo copy of the same model (Debian's MuJoCo 2.2.2, its default solver "
      "and semi-implicit Euler at the same step). MuJoCo detects a contact after the step that crosses the "
      "ground and resolves it as a soft constraint: the box sinks in at the first impact and rests a fraction "
      "of a millimetre inside. The variational integrator's contacts are rigid inequalities at the next "
      "configuration.";
  l.claim = "MuJoCo's box overshoots about 2.7 cm into the ground at the first contact; the VI's stays within 1e-5 m.";
  l.scene = "box-drop";
  l.variants = {{"VI", opts(K::Variational), 0.01}, {"MuJoCo", opts(K::MuJoCo), 0.01}};
  l.duration = 3;
  l.focus = LessonFocus::Penetration;
  l.followUp = "Try MuJoCo's other integrators (mechstudio-cli simulate scene:box-drop --integrator mujoco "
               "--mujoco-integrator rk4 or implicit): the overshoot stays (2.51 and 2.67 cm). MuJoCo finds the "
               "contact only after the step that crosses the ground, then pushes back softly.";
  out.push_back(l);

  // 10. The industry simulator: a closed loop.
  l = Lesson();
  l.number = 10;
  l.id = "mujoco-loop";
  l.title = "MuJoCo: three-link loop, VI vs MuJoCo's equality constraints";
  l.explanation =
      "The three-link loop of lesson 1 beside a MuJoCo copy, where the loop closure is an equality constraint. "
      "MuJoCo integrates accelerations and holds equality constraints softly (a spring-damper reference "
      "acceleration), so the loop opens slowly. The variational integrator solves for positions that close "
      "it at every step.";
  l.claim = "MuJoCo's loop violation grows to millimetres within 60 s; the VI's stays below 1e-9 m.";
  l.scene = "three-link-loop";
  l.variants = {{"VI", opts(K::Variational), 0.01}, {"MuJoCo", opts(K::MuJoCo), 0.01}};
  l.duration = 60;
  l.focus = LessonFocus::ConstraintViolation;
  l.logScale = true;
  l.followUp = "Compare with lesson 1: RK4 without stabilisation drifts faster; MuJoCo's soft constraints hold "
               "the loop to millimetres, not to round-off.";
  out.push_back(l);
  return out;
}

}  // namespace

const std::vector<Lesson>& lessons() {
  static const std::vector<Lesson> all = makeLessons();
  return all;
}

const Lesson& findLesson(const std::string& key) {
  for (const Lesson& l : lessons())
    if (l.id == key || std::to_string(l.number) == key) return l;
  std::string list;
  for (const Lesson& l : lessons()) list += (list.empty() ? "" : ", ") + l.id;
  throw UserError("unknown lesson '" + key + "'; give 1-" + std::to_string(lessons().size()) + " or one of: " + list);
}

Model lessonModel(const Lesson& l) { return buildScene(l.scene, l.params); }

}  // namespace ms
