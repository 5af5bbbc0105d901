// SPDX-License-Identifier: GPL-3.0-or-later
// The Python module mechstudio._mechstudio (pybind11): a model loaded from a file, a built-in scene or
// .mech text becomes a Simulation with the engine's integrators; state, metrics and signals come out as
// NumPy arrays; efforts, wrenches and a control callback go in. The Python package mechstudio
// (python/mechstudio/__init__.py) re-exports it. Errors: the engine's messages as Python exceptions —
// ModelError (the model: file:line:column diagnostics, compile errors), SolverError (a failed step:
// "step N: reason"), ValueError/KeyError (arguments: shapes, unknown names).
// Stepping many steps per call (step(n)) runs the loop in C++; recording per-step metrics, poses or
// signals fills preallocated arrays, so the per-step cost is the engine's.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/quaternion.h"
#include "integrator/integrator_options.h"
#include "io/mech_reader.h"
#include "io/model_file.h"
#include "signals/signals.h"
#include "simulation.h"
#include "system/compiled_system.h"

namespace py = pybind11;

namespace ms::python {
namespace {

// Exception types, created at module import (module-level statics).
PyObject* gModelError = nullptr;
PyObject* gSolverError = nullptr;

[[noreturn]] void raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

// Parameter values as the readers take them: "0.5", "(/ pi 2)" or a number.
std::map<std::string, std::string> parameterTexts(const py::dict& params) {
  std::map<std::string, std::string> out;
  for (const auto& kv : params) {
    const std::string key = py::str(kv.first);
    if (py::isinstance<py::float_>(kv.second) || py::isinstance<py::int_>(kv.second)) {
      const double v = kv.second.cast<double>();
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", v);
      out[key] = buf;
    } else if (py::isinstance<py::str>(kv.second)) {
      out[key] = kv.second.cast<std::string>();
    } else {
      throw py::type_error("parameter '" + key + "' must be a number or a string, not " +
                           std::string(py::str(kv.second.get_type().attr("__name__"))));
    }
  }
  return out;
}

// One model compiled and simulated, with its signal catalogue.
class PySimulation {
 public:
  PySimulation(const Model& model) { build(model); }

  static std::unique_ptr<PySimulation> fromSource(const std::string& source, const py::dict& params,
                                                  const std::vector<std::string>& packagePaths) {
    Model model;
    Diagnostics diags;
    ModelLoadOptions options;
    options.packagePaths = packagePaths;
    if (!loadModel(source, parameterTexts(params), model, diags, options)) raise(gModelError, diags.format());
    return std::make_unique<PySimulation>(model);
  }
  static std::unique_ptr<PySimulation> fromText(const std::string& text, const py::dict& params, const std::string& name) {
    MechParseResult r;
    Diagnostics diags;
    if (!readMechText(text, name, parameterTexts(params), r, diags)) raise(gModelError, diags.format());
    return std::make_unique<PySimulation>(r.model);
  }

  // ---- model --------------------------------------------------------------------------------------
  const Model& model() const { return sim_->system().model; }
  std::vector<std::string> bodyNames() const {
    std::vector<std::string> n;
    for (const BodyDesc& b : model().bodies) n.push_back(b.name);
    return n;
  }
  std::vector<std::string> jointNames() const {
    std::vector<std::string> n;
    for (const JointDesc& j : model().joints) n.push_back(j.name);
    return n;
  }
  // A body or joint given by index or name (IndexError / KeyError otherwise).
  int body(const py::object& key) const {
    return lookup(key, "body", int(model().bodies.size()), [this](const std::string& n) { return model().bodyIndex(n); });
  }
  int joint(const py::object& key) const {
    return lookup(key, "joint", int(model().joints.size()), [this](const std::string& n) { return model().jointIndex(n); });
  }
  template <class Find>
  static int lookup(const py::object& key, const char* kind, int count, Find find) {
    if (py::isinstance<py::int_>(key)) {
      const int i = key.cast<int>();
      if (i < 0 || i >= count) throw py::index_error(std::string(kind) + " index " + std::to_string(i) + " out of range");
      return i;
    }
    const std::string name = py::str(key);
    const int i = find(name);
    if (i < 0) throw py::key_error("unknown " + std::string(kind) + " '" + name + "'");
    return i;
  }

  // ---- settings -----------------------------------------------------------------------------------
  void setIntegrator(const std::string& kind, const std::string& contacts, double stiffness, double damping,
                     double alpha, double beta, const std::string& mujocoScheme) {
    IntegratorOptions o;
    if (!parseIntegratorKind(kind, o.kind))
      throw py::value_error("unknown integrator '" + kind + "' (vi, euler, symplectic-euler, heun, rk4, exponential, "
                            "midpoint-gc, riqn, mujoco)");
    if (!parseContactModel(contacts, o.contacts)) throw py::value_error("contacts must be 'rigid' or 'soft', not '" + contacts + "'");
    if (!parseMuJoCoScheme(mujocoScheme, o.mujocoScheme))
      throw py::value_error("mujoco_integrator must be euler, rk4 or implicit, not '" + mujocoScheme + "'");
    o.contactStiffness = stiffness, o.contactDamping = damping, o.baumgarteAlpha = alpha, o.baumgarteBeta = beta;
    try {
      sim_->setIntegrator(o);
    } catch (const UserError& e) {
      throw py::value_error(e.what());
    }
  }
  std::string integrator() const { return toString(sim_->integratorOptions().kind); }
  double dt() const { return sim_->settings().dt; }
  void setDt(double dt) {
    if (!(dt > 0) || !std::isfinite(dt)) throw py::value_error("dt must be a positive number of seconds");
    sim_->settings().dt = dt;
  }
  double tolerance() const { return sim_->settings().tolerance; }
  void setTolerance(double t) {
    if (!(t > 0) || !std::isfinite(t)) throw py::value_error("tolerance must be positive");
    sim_->settings().tolerance = t;
  }
  int maxIterations() const { return sim_->settings().maxIterations; }
  void setMaxIterations(int n) {
    if (n < 1) throw py::value_error("max_iterations must be at least 1");
    sim_->settings().maxIterations = n;
  }
  py::array_t<double> gravity() const { return vec3(sim_->settings().gravity); }
  void setGravity(const py::array_t<double>& g) { sim_->settings().gravity = toVec3(g, "gravity"); }

  // ---- stepping -----------------------------------------------------------------------------------
  void reset() { sim_->reset(); }

  // n steps; with record, per-step arrays (metrics, and poses/signals when asked). Raises SolverError
  // on a failed step (the arrays of the steps taken are lost; the simulation stays at the failure
  // until reset()).
  py::object step(long n, bool record, bool poses, const std::vector<std::string>& signals) {
    if (n < 0) throw py::value_error("the number of steps must not be negative");
    const int nb = int(model().bodies.size());
    std::vector<int> selection;
    for (const std::string& pattern : signals) {
      try {
        for (int i : catalogue_->select(pattern)) selection.push_back(i);
      } catch (const UserError& e) {
        throw py::key_error(e.what());
      }
    }
    const bool keep = record || poses || !selection.empty();
    // Preallocated outputs.
    static const char* kMetric[] = {"time", "energy", "kinetic", "potential", "constraint_violation", "residual",
                                    "penetration", "limit_violation", "step_us"};
    std::vector<py::array_t<double>> metric;
    py::array_t<int> iterations, contacts, substeps;
    py::array_t<double> position, orientation, sig;
    if (record) {
      for (int k = 0; k < kMetrics; ++k) metric.emplace_back(py::array_t<double>(n));
      iterations = py::array_t<int>(n), contacts = py::array_t<int>(n), substeps = py::array_t<int>(n);
    }
    if (poses) position = py::array_t<double>({n, long(nb), 3L}), orientation = py::array_t<double>({n, long(nb), 4L});
    if (!selection.empty()) sig = py::array_t<double>({n, long(selection.size())});
    std::vector<double> values;
    // The loop runs without the GIL (other Python threads go on); a control callback takes it back.
    bool failed = false;
    {
      py::gil_scoped_release released;
      for (long s = 0; s < n && !failed; ++s) {
        if (!sim_->step()) {
          failed = true;
          break;
        }
        if (keep) record1(s, record, poses, selection, metric, iterations, contacts, substeps, position, orientation, sig, values);
      }
    }
    if (failed) raise(gSolverError, sim_->metrics().message);
    if (!keep) return py::none();
    py::dict out;
    if (record) {
      for (int k = 0; k < kMetrics; ++k) out[kMetric[k]] = metric[size_t(k)];
      out["iterations"] = iterations, out["contacts"] = contacts, out["substeps"] = substeps;
    }
    if (poses) out["position"] = position, out["orientation"] = orientation;
    if (!selection.empty()) {
      std::vector<std::string> names;
      for (int i : selection) names.push_back(catalogue_->info(i).name);
      out["signal_names"] = names;
      out["signals"] = sig;
    }
    return std::move(out);
  }

  double time() const { return sim_->state().time; }
  long steps() const { return sim_->state().step; }
  py::dict metrics() const {
    const StepMetrics& m = sim_->metrics();
    py::dict d;
    d["step"] = m.step, d["time"] = m.time, d["energy"] = m.energy, d["kinetic"] = m.kinetic, d["potential"] = m.potential;
    d["constraint_violation"] = m.constraintViolation, d["iterations"] = m.iterations, d["residual"] = m.residual;
    d["penetration"] = m.penetration, d["contacts"] = m.contacts, d["limit_violation"] = m.limitViolation;
    d["substeps"] = m.substeps, d["step_us"] = m.stepMicroseconds, d["auto_pairs"] = m.autoPairs;
    d["islands"] = m.islands;
    d["sleeping"] = m.sleeping;
    d["message"] = m.message;
    return d;
  }

  // ---- state --------------------------------------------------------------------------------------
  // Per body: centre-of-mass positions (n×3), orientations w x y z (n×4), linear velocities (world,
  // n×3), angular velocities (world, n×3).
  py::array_t<double> positions() const {
    return perBody(3, [](const BodyState& b, double* o) { for (int c = 0; c < 3; ++c) o[c] = b.x(c); });
  }
  py::array_t<double> orientations() const {
    return perBody(4, [](const BodyState& b, double* o) { for (int c = 0; c < 4; ++c) o[c] = b.q(c); });
  }
  py::array_t<double> velocities() const {
    return perBody(3, [](const BodyState& b, double* o) { for (int c = 0; c < 3; ++c) o[c] = b.v(c); });
  }
  py::array_t<double> angularVelocities() const {
    return perBody(3, [](const BodyState& b, double* o) {
      const Vec3 w = quat::rotate(b.q, b.w);
      for (int c = 0; c < 3; ++c) o[c] = w(c);
    });
  }
  py::array_t<double> jointPosition(const py::object& key) const {
    const int j = joint(key);
    const Vec6 v = sim_->jointPosition(j);
    return py::array_t<double>(sim_->jointDof(j), v.data());
  }
  py::array_t<double> jointVelocity(const py::object& key) const {
    const int j = joint(key);
    const Vec6 v = sim_->jointVelocity(j);
    return py::array_t<double>(sim_->jointDof(j), v.data());
  }

  // ---- inputs -------------------------------------------------------------------------------------
  void setEffort(const py::object& key, const py::object& value) {
    const int j = joint(key);
    const int dof = sim_->jointDof(j);
    const std::vector<double> v = numbers(value, "effort");
    if (int(v.size()) != dof && v.size() != 1)
      throw py::value_error("joint '" + model().joints[size_t(j)].name + "' has " + std::to_string(dof) +
                            " coordinate(s): give 1 or " + std::to_string(dof) + " efforts, not " + std::to_string(v.size()));
    Vec6 e = Vec6::Zero();
    for (int k = 0; k < dof; ++k) e(k) = v.size() == 1 ? v[0] : v[size_t(k)];
    sim_->inputs().actuator.at(size_t(j)) = e;
  }
  py::array_t<double> effort(const py::object& key) const {
    const int j = joint(key);
    return py::array_t<double>(sim_->jointDof(j), sim_->inputs().actuator.at(size_t(j)).data());
  }
  void setWrench(const py::object& key, const py::array_t<double>& force, const py::array_t<double>& torque) {
    const int b = body(key);
    sim_->inputs().force.at(size_t(b)) = toVec3(force, "force");
    sim_->inputs().torque.at(size_t(b)) = toVec3(torque, "torque");
  }
  // fn(sim) → None or {joint: effort(s)}: called before every step; its efforts are added to the
  // persistent ones for that step only. None removes the callback.
  void setControl(py::object fn, py::object self) {
    if (fn.is_none()) {
      sim_->setControlCallback(nullptr);
      return;
    }
    if (!PyCallable_Check(fn.ptr())) throw py::type_error("the control callback must be callable");
    // The Python object of this simulation, passed to fn (a weak handle: no reference cycle).
    PyObject* handle = self.ptr();
    sim_->setControlCallback([this, fn, handle](const Simulation&, Inputs& in) {
      py::gil_scoped_acquire gil;  // step() runs without it
      py::object result = fn(py::handle(handle));
      if (result.is_none()) return;
      if (!py::isinstance<py::dict>(result))
        throw py::type_error("the control callback must return None or a dict {joint: effort(s)}");
      for (const auto& kv : result.cast<py::dict>()) {
        const int j = joint(py::reinterpret_borrow<py::object>(kv.first));
        const int dof = sim_->jointDof(j);
        const std::vector<double> v = numbers(py::reinterpret_borrow<py::object>(kv.second), "effort");
        if (int(v.size()) != dof && v.size() != 1)
          throw py::value_error("the control callback gave " + std::to_string(v.size()) + " efforts for joint '" +
                                model().joints[size_t(j)].name + "' (" + std::to_string(dof) + " coordinates)");
        for (int k = 0; k < dof; ++k) in.actuator.at(size_t(j))(k) += v.size() == 1 ? v[0] : v[size_t(k)];
      }
    });
  }

  // ---- signals ------------------------------------------------------------------------------------
  std::vector<std::string> signalNames() const {
    std::vector<std::string> n;
    for (int i = 0; i < catalogue_->size(); ++i) n.push_back(catalogue_->info(i).name);
    return n;
  }
  py::array_t<double> signalValues(const std::string& pattern) const {
    std::vector<int> sel;
    try {
      sel = catalogue_->select(pattern);
    } catch (const UserError& e) {
      throw py::key_error(e.what());
    }
    std::vector<double> v;
    catalogue_->evaluate(*sim_, sel, AngleUnit::Radians, v);
    return py::array_t<double>(py::ssize_t(v.size()), v.data());
  }

  static constexpr int kMetrics = 9;

 private:
  // Step s's values into the output arrays (no Python API: runs without the GIL).
  void record1(long s, bool record, bool poses, const std::vector<int>& selection, std::vector<py::array_t<double>>& metric,
               py::array_t<int>& iterations, py::array_t<int>& contacts, py::array_t<int>& substeps,
               py::array_t<double>& position, py::array_t<double>& orientation, py::array_t<double>& sig,
               std::vector<double>& values) const {
    const StepMetrics& m = sim_->metrics();
    if (record) {
      const double v[kMetrics] = {m.time, m.energy, m.kinetic, m.potential, m.constraintViolation, m.residual,
                                  m.penetration, m.limitViolation, m.stepMicroseconds};
      for (int k = 0; k < kMetrics; ++k) metric[size_t(k)].mutable_data()[s] = v[k];
      iterations.mutable_data()[s] = m.iterations, contacts.mutable_data()[s] = m.contacts, substeps.mutable_data()[s] = m.substeps;
    }
    if (poses) {
      const size_t nb = sim_->state().bodies.size();
      double* px = position.mutable_data() + s * long(nb) * 3;
      double* pq = orientation.mutable_data() + s * long(nb) * 4;
      for (size_t b = 0; b < nb; ++b) {
        const BodyState& bs = sim_->state().bodies[b];
        for (int c = 0; c < 3; ++c) px[3 * b + size_t(c)] = bs.x(c);
        for (int c = 0; c < 4; ++c) pq[4 * b + size_t(c)] = bs.q(c);
      }
    }
    if (!selection.empty()) {
      catalogue_->evaluate(*sim_, selection, AngleUnit::Radians, values);
      double* row = sig.mutable_data() + s * long(selection.size());
      for (size_t k = 0; k < values.size(); ++k) row[k] = values[k];
    }
  }

  void build(const Model& model) {
    try {
      sim_ = std::make_unique<Simulation>(compile(model));
    } catch (const UserError& e) {
      raise(gModelError, e.what());
    }
    catalogue_ = std::make_unique<SignalCatalogue>(sim_->system());
  }
  template <class F>
  py::array_t<double> perBody(int width, F fill) const {
    const size_t nb = sim_->state().bodies.size();
    py::array_t<double> a({py::ssize_t(nb), py::ssize_t(width)});
    for (size_t b = 0; b < nb; ++b) fill(sim_->state().bodies[b], a.mutable_data(py::ssize_t(b), 0));
    return a;
  }
  static py::array_t<double> vec3(const Vec3& v) { return py::array_t<double>(3, v.data()); }
  static Vec3 toVec3(const py::array_t<double>& a, const char* what) {
    if (a.ndim() != 1 || a.shape(0) != 3)
      throw py::value_error(std::string(what) + " must be 3 numbers (shape (3,)), got shape " + shapeText(a));
    const Vec3 v(a.at(0), a.at(1), a.at(2));
    if (!v.allFinite()) throw py::value_error(std::string(what) + " must be finite");
    return v;
  }
  static std::string shapeText(const py::array_t<double>& a) {
    std::string s = "(";
    for (py::ssize_t k = 0; k < a.ndim(); ++k) s += (k ? ", " : "") + std::to_string(a.shape(k));
    return s + (a.ndim() == 1 ? ",)" : ")");
  }
  static std::vector<double> numbers(const py::object& o, const char* what) {
    py::array_t<double, py::array::c_style | py::array::forcecast> a;
    try {
      a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(o);
    } catch (const py::error_already_set&) {
      a = {};
    }
    if (!a || a.ndim() > 1) throw py::value_error(std::string(what) + " must be a number or a 1-D sequence of numbers");
    std::vector<double> v(a.data(), a.data() + a.size());
    for (double x : v)
      if (!std::isfinite(x)) throw py::value_error(std::string(what) + " must be finite");
    return v;
  }

  std::unique_ptr<Simulation> sim_;
  std::unique_ptr<SignalCatalogue> catalogue_;
};

}  // namespace
}  // namespace ms::python

PYBIND11_MODULE(_mechstudio, m) {
  using ms::python::PySimulation;
  m.doc() = "MechStudio's engine: variational integration of mechanisms in maximal coordinates";
  static py::exception<std::runtime_error> base(m, "MechStudioError");
  static py::exception<std::runtime_error> modelError(m, "ModelError", base.ptr());
  static py::exception<std::runtime_error> solverError(m, "SolverError", base.ptr());
  ms::python::gModelError = modelError.ptr();
  ms::python::gSolverError = solverError.ptr();
  // Engine errors that reach Python otherwise (UserError: a bad input the engine refused).
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ms::UserError& e) {
      PyErr_SetString(ms::python::gModelError, e.what());
    }
  });

  py::class_<PySimulation>(m, "Simulation", R"(A mechanism and its simulation.

Simulation(source, params={}, package_paths=[]): a model file (.mech, .trep, .urdf, MJCF .xml/.mjcf)
or "scene:NAME"; params are the .mech/scene parameters (numbers or expressions as text).
Simulation.from_text(text, params={}): a model written in the .mech language.)")
      .def(py::init(&PySimulation::fromSource), py::arg("source"), py::arg("params") = py::dict(),
           py::arg("package_paths") = std::vector<std::string>())
      .def_static("from_text", &PySimulation::fromText, py::arg("text"), py::arg("params") = py::dict(),
                  py::arg("name") = "<text>")
      .def_property_readonly("name", [](const PySimulation& s) { return s.model().name; })
      .def_property_readonly("body_names", &PySimulation::bodyNames)
      .def_property_readonly("joint_names", &PySimulation::jointNames)
      .def("set_integrator", &PySimulation::setIntegrator, py::arg("kind") = "vi", py::arg("contacts") = "rigid",
           py::arg("contact_stiffness") = 1e5, py::arg("contact_damping") = 300.0, py::arg("baumgarte_alpha") = 0.0,
           py::arg("baumgarte_beta") = 0.0, py::arg("mujoco_integrator") = "euler",
           "Choose the time stepper (vi, euler, symplectic-euler, heun, rk4, exponential, midpoint-gc, riqn, mujoco).")
      .def_property_readonly("integrator", &PySimulation::integrator)
      .def_property("dt", &PySimulation::dt, &PySimulation::setDt, "time step [s]")
      .def_property("tolerance", &PySimulation::tolerance, &PySimulation::setTolerance, "Newton tolerance on the residual")
      .def_property("max_iterations", &PySimulation::maxIterations, &PySimulation::setMaxIterations)
      .def_property("gravity", &PySimulation::gravity, &PySimulation::setGravity, "gravity [m/s^2], shape (3,)")
      .def("reset", &PySimulation::reset, "Back to t = 0 with the initial conditions.")
      .def("step", &PySimulation::step, py::arg("n") = 1, py::arg("record") = false, py::arg("poses") = false,
           py::arg("signals") = std::vector<std::string>(),
           "Take n steps. record=True returns per-step metrics as arrays, poses=True positions (n, bodies, 3) "
           "and orientations (n, bodies, 4), signals=[patterns] the signals (n, k). Raises SolverError on a failed step.")
      .def_property_readonly("time", &PySimulation::time)
      .def_property_readonly("steps", &PySimulation::steps)
      .def_property_readonly("metrics", &PySimulation::metrics, "the last step's metrics")
      .def_property_readonly("positions", &PySimulation::positions, "centre-of-mass positions, shape (bodies, 3)")
      .def_property_readonly("orientations", &PySimulation::orientations, "unit quaternions w x y z, shape (bodies, 4)")
      .def_property_readonly("velocities", &PySimulation::velocities, "linear velocities (world), shape (bodies, 3)")
      .def_property_readonly("angular_velocities", &PySimulation::angularVelocities, "angular velocities (world), shape (bodies, 3)")
      .def("joint_position", &PySimulation::jointPosition, py::arg("joint"))
      .def("joint_velocity", &PySimulation::jointVelocity, py::arg("joint"))
      .def("set_effort", &PySimulation::setEffort, py::arg("joint"), py::arg("effort"),
           "Constant actuator effort of a joint (N or N m per coordinate; one value for all).")
      .def("effort", &PySimulation::effort, py::arg("joint"))
      .def("set_wrench", &PySimulation::setWrench, py::arg("body"), py::arg("force"), py::arg("torque"),
           "Constant force (at the centre of mass) and torque on a body, world frame.")
      .def(
          "set_control",
          [](py::object self, py::object fn) { self.cast<PySimulation&>().setControl(fn, self); }, py::arg("fn"),
          "fn(sim) -> None or {joint: effort(s)}, called before every step (added to the constant efforts).")
      .def_property_readonly("signal_names", &PySimulation::signalNames)
      .def("signals", &PySimulation::signalValues, py::arg("pattern") = "*",
           "Values of the signals matching a pattern (docs/signals.md), SI units, angles in radians.");
}
