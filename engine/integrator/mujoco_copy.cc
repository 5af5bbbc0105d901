// SPDX-License-Identifier: GPL-3.0-or-later
// The MuJoCo comparison copy (see mujoco_copy.h): MuJoCo 2.2's C API as documented in its headers
// (mujoco.h, mjmodel.h, mjdata.h) — mj_loadXML through an mjVFS, mj_step, mj_kinematics/mj_comPos/
// mj_comVel to bring the derived quantities to the new qpos/qvel, mj_objectVelocity, mj_contactForce.
// Compiled only when CMake found MuJoCo (engine/CMakeLists.txt defines MECHSTUDIO_HAVE_MUJOCO).
#include "integrator/mujoco_copy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>

#include <mujoco/mujoco.h>

#include "contact/soft_contact.h"
#include "core/check.h"
#include "core/quaternion.h"
#include "system/initial_conditions.h"

namespace ms {
namespace {

// MuJoCo reports fatal errors through mju_user_error (default: print and exit(1)). The copy turns
// them into an exception that unwinds back to step() or the constructor.
struct MuJoCoFailure : std::runtime_error {
  explicit MuJoCoFailure(const char* what) : std::runtime_error(what) {}
};
void onMuJoCoError(const char* msg) { throw MuJoCoFailure(msg); }
// Warnings (default: printed and appended to MUJOCO_LOG.TXT) are kept per thread for messages.
thread_local char lastWarning[256] = "";
void onMuJoCoWarning(const char* msg) {
  std::strncpy(lastWarning, msg, sizeof lastWarning - 1);
  lastWarning[sizeof lastWarning - 1] = '\0';
}
void installHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    mju_user_error = onMuJoCoError;
    mju_user_warning = onMuJoCoWarning;
  });
}
// mj_loadXML keeps the last parsed model in a global: one load at a time.
std::mutex loadMutex;

// The MuJoCo warnings that mean the step went wrong: MuJoCo resets its data and carries on.
constexpr int kWatchedWarnings[4] = {mjWARN_BADQPOS, mjWARN_BADQVEL, mjWARN_BADQACC, mjWARN_CONTACTFULL};

const char* warningText(int w) {
  switch (w) {
    case mjWARN_BADQPOS: return "MuJoCo found a non-finite or huge position (the motion has blown up: reduce the time step)";
    case mjWARN_BADQVEL: return "MuJoCo found a non-finite or huge velocity (the motion has blown up: reduce the time step)";
    case mjWARN_BADQACC: return "MuJoCo found a non-finite or huge acceleration (the motion has blown up: reduce the time step)";
    default: return "MuJoCo's contact list is full (contacts were dropped)";
  }
}

// MuJoCo's messages span lines ("Error: …\nObject name = …, line = 8"): one line for the user.
std::string oneLine(const char* msg) {
  std::string s;
  for (const char* p = msg; *p; ++p) {
    if (*p != '\n') s += *p;
    else if (p[1]) s += "; ";
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == ';')) s.pop_back();
  return s;
}

}  // namespace

void validateMuJoCoCopy(const CompiledSystem& sys) { checkMjcfConvertible(sys.model); }

mjModel_* loadMjcfFiles(const std::vector<MjcfFile>& files, std::string& error) {
  MS_ASSERT(!files.empty(), "no MJCF file to load");
  std::lock_guard<std::mutex> lock(loadMutex);
  auto vfs = std::make_unique<mjVFS>();  // ~2 MB of file-name slots: not on the stack
  mj_defaultVFS(vfs.get());
  mjModel* m = nullptr;
  for (const MjcfFile& f : files) {
    if (mj_makeEmptyFileVFS(vfs.get(), f.name.c_str(), int(f.text.size()) + 1) != 0) {
      mj_deleteVFS(vfs.get());
      error = "cannot create the in-memory model file " + f.name + " (" + std::to_string(files.size()) +
              " files: at most " + std::to_string(mjMAXVFS) + ")";
      return nullptr;
    }
    std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), f.name.c_str())], f.text.c_str(), f.text.size() + 1);
  }
  char msg[1024] = "";
  try {
    m = mj_loadXML(files[0].name.c_str(), vfs.get(), msg, sizeof msg);
  } catch (const std::exception& e) {
    std::snprintf(msg, sizeof msg, "%s", e.what());
    m = nullptr;
  }
  mj_deleteVFS(vfs.get());
  if (!m) error = msg[0] ? oneLine(msg) : std::string("unknown error");
  return m;
}

std::string MuJoCoIntegrator::version() { return mj_versionString(); }

MuJoCoIntegrator::MuJoCoIntegrator(std::shared_ptr<const CompiledSystem> sys, MuJoCoScheme scheme,
                                   const MjcfWriteOptions& mjcf)
    : sys_(std::move(sys)), scheme_(scheme) {
  installHandlers();
  validateMuJoCoCopy(*sys_);
  // The MJCF, with the bodies at the initial state (it closes the loops: MuJoCo takes the anchors
  // of its connect/weld constraints from this configuration).
  const State reference = makeInitialState(*sys_, sys_->model);
  xml_ = writeMjcf(*sys_, reference, mjcf, &info_);

  // Load through MuJoCo's virtual file system: in-memory files, none on disk. A tree nested deeper
  // than tinyxml2 reads (100 elements) is cut into files joined by <include>s, which MuJoCo 2.2.2
  // resolves in the same file system (xml.cc, mjIncludeXML).
  files_ = splitMjcfByNesting(xml_, "mechstudio-model.xml");
  std::string error;
  m_ = loadMjcfFiles(files_, error);
  if (!m_) throw UserError("MuJoCo cannot load the model: " + error);
  // MuJoCo's implicit integrator takes its dense velocity derivatives from the data's arena, which
  // MuJoCo's compiler sizes for the explicit step: it uses ~nv·(18·nbody + 7·nv) numbers (measured
  // on hinge and ball chains of 100–1,000 links: a 600- or 1,000-link chain stopped at its first step
  // with "Stack overflow"); sized here with a margin.
  if (scheme == MuJoCoScheme::Implicit)
    m_->nstack = int(std::min<long long>(std::numeric_limits<int>::max(),
                                         std::max<long long>(m_->nstack, 1000000LL + (long long)m_->nv * (20LL * m_->nbody + 8LL * m_->nv))));
  try {
    d_ = mj_makeData(m_);
  } catch (const std::exception&) {
    d_ = nullptr;
  }
  if (!d_) {
    mj_deleteModel(m_);
    m_ = nullptr;
    throw UserError("MuJoCo cannot allocate the data of the model");
  }
  m_->opt.integrator = scheme == MuJoCoScheme::RK4 ? mjINT_RK4 : scheme == MuJoCoScheme::Implicit ? mjINT_IMPLICIT : mjINT_EULER;

  // Ids of the bodies, joints and motors the writer named.
  const size_t nb = sys_->bodies.size(), nj = sys_->joints.size();
  auto id = [&](int type, const std::string& name) { return name.empty() ? -1 : mj_name2id(m_, type, name.c_str()); };
  bodyId_.resize(nb);
  freeJoint_.resize(nb);
  for (size_t i = 0; i < nb; ++i) {
    bodyId_[i] = id(mjOBJ_BODY, info_.body[i]);
    freeJoint_[i] = id(mjOBJ_JOINT, info_.freeJoint[i]);
    MS_ASSERT(bodyId_[i] > 0 && (info_.freeJoint[i].empty() || freeJoint_[i] >= 0), "MJCF body or free joint missing");
  }
  jointId_.resize(nj);
  motorId_.resize(nj);
  explicitForces_.resize(nj);
  for (size_t k = 0; k < nj; ++k) {
    jointId_[k] = id(mjOBJ_JOINT, info_.joint[k]);
    motorId_[k] = id(mjOBJ_ACTUATOR, info_.motor[k]);
    MS_ASSERT((info_.joint[k].empty() || jointId_[k] >= 0) && (info_.motor[k].empty() || motorId_[k] >= 0),
              "MJCF joint or motor missing");
    explicitForces_[k] = !info_.forcesInMjcf[k];
  }
  last_.bodies.resize(nb);
}

MuJoCoIntegrator::~MuJoCoIntegrator() {
  if (d_) mj_deleteData(d_);
  if (m_) mj_deleteModel(m_);
}

void MuJoCoIntegrator::writeState(const State& s) {
  mj_resetData(m_, d_);  // clears the warm start, controls, applied forces and warning counters
  d_->time = s.time;
  // Free bodies: position of the COM (= body frame origin), orientation, v (world), ω (body frame).
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    if (freeJoint_[i] < 0) continue;
    const BodyState& b = s.bodies[i];
    mjtNum* qp = d_->qpos + m_->jnt_qposadr[freeJoint_[i]];
    mjtNum* qv = d_->qvel + m_->jnt_dofadr[freeJoint_[i]];
    const Vec4 q = b.q.normalized();
    for (int r = 0; r < 3; ++r) qp[r] = b.x(r), qv[r] = b.v(r), qv[3 + r] = b.w(r);
    for (int r = 0; r < 4; ++r) qp[3 + r] = q(r);
  }
  // Tree joints: MuJoCo's coordinates are the engine's minimal coordinates (hinge, slide) or the
  // relative rotation from the reference (ball).
  JointMinimalEval me;
  for (size_t k = 0; k < sys_->joints.size(); ++k) {
    const int j = jointId_[k];
    if (j < 0) continue;
    const JointGeometry& g = sys_->joints[k].geo;
    const JointPoses z = jointPoses(g, s);
    mjtNum* qp = d_->qpos + m_->jnt_qposadr[j];
    mjtNum* qv = d_->qvel + m_->jnt_dofadr[j];
    const BodyState& bb = s.bodies[size_t(g.child)];
    if (g.type == JointType::Spherical) {
      const Vec4 p = quat::mul(quat::conj(g.qoff), quat::mul(quat::conj(z.qa), z.qb));
      const Vec4 qb = quat::mul(quat::conj(info_.ballReference[k]), p).normalized();
      for (int r = 0; r < 4; ++r) qp[r] = qb(r);
      Vec3 w = bb.w;
      if (g.parent >= 0) w -= quat::rotation(z.qb).transpose() * (quat::rotation(z.qa) * s.bodies[size_t(g.parent)].w);
      for (int r = 0; r < 3; ++r) qv[r] = w(r);
      continue;
    }
    evalJointMinimal(g, z, me);
    qp[0] = me.theta(0);
    qv[0] = jointRate(g, me, s)(0);
  }
  synced_ = true;
}

void MuJoCoIntegrator::applyInputs(const StepSettings& st, const Inputs& in, const State& s) {
  m_->opt.timestep = st.dt;
  for (int r = 0; r < 3; ++r) m_->opt.gravity[r] = st.gravity(r);
  mju_zero(d_->xfrc_applied, 6 * m_->nbody);
  mju_zero(d_->qfrc_applied, m_->nv);
  // External wrenches: force and torque in the world frame at the centre of mass.
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    mjtNum* w = d_->xfrc_applied + 6 * bodyId_[i];
    for (int r = 0; r < 3; ++r) {
      if (i < in.force.size()) w[r] += in.force[i](r);
      if (i < in.torque.size()) w[3 + r] += in.torque[i](r);
    }
  }
  JointMinimalEval me;
  for (size_t k = 0; k < sys_->joints.size(); ++k) {
    const CompiledJoint& cj = sys_->joints[k];
    const JointGeometry& g = cj.geo;
    Vec6 u = k < in.actuator.size() ? in.actuator[k] : Vec6::Zero();
    // Hinge and slide joints of the tree: the effort acts on MuJoCo's coordinate itself.
    if (motorId_[k] >= 0) {
      d_->ctrl[motorId_[k]] = u(0);
      u.setZero();
    } else if (jointId_[k] >= 0 && g.type != JointType::Spherical) {
      d_->qfrc_applied[m_->jnt_dofadr[jointId_[k]]] += u(0);
      u.setZero();
    }
    const bool passive = explicitForces_[k] && (cj.hasSpring || cj.hasDamper);
    if (!passive && !u.any()) continue;
    // Other joints: u = effort − k(θ − θ_rest) − c θ̇ as body wrenches, f = (∂θ/∂x)ᵀu, τ = (∂θ/∂θ_body)ᵀu.
    const int a = g.parent, b = g.child;
    evalJointMinimal(g, jointPoses(g, s), me);
    if (passive) {
      if (cj.hasSpring) u -= cj.stiffness.cwiseProduct(me.theta - cj.rest);
      if (cj.hasDamper) {
        u -= cj.damping.cwiseProduct(jointRate(g, me, s));
      }
    }
    auto addWrench = [&](int body, const Mat6x3& dx, const Mat6x3& dth) {
      const Vec3 f = dx.transpose() * u;
      const Vec3 tau = quat::rotation(s.bodies[size_t(body)].q) * (dth.transpose() * u);  // body → world
      mjtNum* w = d_->xfrc_applied + 6 * bodyId_[size_t(body)];
      for (int r = 0; r < 3; ++r) w[r] += f(r), w[3 + r] += tau(r);
    };
    addWrench(b, me.dxb, me.dthb);
    if (a >= 0) addWrench(a, me.dxa, me.dtha);
  }
}

void MuJoCoIntegrator::readState(State& s) const {
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    const int id = bodyId_[i];
    BodyState& b = s.bodies[i];
    for (int r = 0; r < 3; ++r) b.x(r) = d_->xipos[3 * id + r];
    for (int r = 0; r < 4; ++r) b.q(r) = d_->xquat[4 * id + r];
    b.q.normalize();
    // [angular; linear] velocity at the centre of mass, world frame.
    mjtNum vel[6];
    mj_objectVelocity(m_, d_, mjOBJ_BODY, id, vel, 0);
    const Vec3 wWorld(vel[0], vel[1], vel[2]);
    b.v = Vec3(vel[3], vel[4], vel[5]);
    b.w = quat::rotation(b.q).transpose() * wWorld;
  }
}

StepReport MuJoCoIntegrator::step(const StepSettings& settings, const Inputs& inputs, State& state) {
  StepReport rep;
  // A state that is not the one the last step produced was set from outside: start from it.
  bool same = synced_ && state.bodies.size() == last_.bodies.size();
  for (size_t i = 0; same && i < state.bodies.size(); ++i) {
    const BodyState &a = state.bodies[i], &b = last_.bodies[i];
    same = a.x == b.x && a.q == b.q && a.v == b.v && a.w == b.w;
  }
  if (!same) writeState(state);
  applyInputs(settings, inputs, state);
  int before[4];
  for (int w = 0; w < 4; ++w) before[w] = d_->warning[kWatchedWarnings[w]].number;
  try {
    mj_step(m_, d_);
    // mj_step leaves the positions and velocities derived at the start of the step: update them.
    mj_kinematics(m_, d_);
    mj_comPos(m_, d_);
    mj_comVel(m_, d_);
  } catch (const std::exception& e) {
    mj_resetData(m_, d_);
    synced_ = false;
    rep.status = StepStatus::NonFinite;
    rep.message = "MuJoCo: " + oneLine(e.what());
    return rep;
  }
  // MuJoCo resets its data on a bad number and carries on; the copy stops instead.
  for (int w = 0; w < 4; ++w)
    if (d_->warning[kWatchedWarnings[w]].number > before[w]) {
      synced_ = false;
      rep.status = kWatchedWarnings[w] == mjWARN_CONTACTFULL ? StepStatus::NotConverged : StepStatus::NonFinite;
      rep.message = warningText(kWatchedWarnings[w]);
      return rep;
    }
  bool finite = true;
  for (int r = 0; r < m_->nq; ++r) finite = finite && std::isfinite(d_->qpos[r]);
  for (int r = 0; r < m_->nv; ++r) finite = finite && std::isfinite(d_->qvel[r]);
  if (!finite) {
    synced_ = false;
    rep.status = StepStatus::NonFinite;
    rep.message = "non-finite state after the MuJoCo step (the motion has blown up: reduce the time step)";
    return rep;
  }
  readState(state);
  state.time += settings.dt;
  state.step += 1;
  state.interval = 0;
  for (size_t i = 0; i < state.bodies.size(); ++i) last_.bodies[i] = state.bodies[i];

  // The engine's measures at the new poses.
  rep.iterations = d_->solver_iter;
  rep.constraintViolation = constraintViolation(*sys_, state);
  double minPhi = 0;
  for (const CompiledContactGroup& grp : sys_->contactGroups) {
    contact::ContactSet set;
    contact::BodyPose zb, za;
    groupCandidatesAt(grp, state, set, zb, za);
    for (int k = 0; k < grp.count && k < set.count; ++k) {
      const double phi = set.contacts[k].phi;
      minPhi = std::min(minPhi, phi);
      const size_t c = size_t(grp.first + k);
      if (c < state.contactGap.size()) state.contactGap[c] = phi;
      if (c < state.contactImpulse.size()) state.contactImpulse[c].setZero();  // MuJoCo's forces are not mapped
    }
  }
  rep.penetration = -minPhi;
  for (int c = 0; c < d_->ncon; ++c) {
    mjtNum f[6];
    mj_contactForce(m_, d_, c, f);
    if (f[0] > 1e-6) ++rep.activeContacts;
  }
  JointMinimalEval me;
  for (const CompiledLimit& l : sys_->limits) {
    const JointGeometry& g = sys_->joints[size_t(l.joint)].geo;
    evalJointMinimal(g, jointPoses(g, state), me);
    const double theta = l.coordinate(me.theta(0));
    rep.limitViolation = std::max({rep.limitViolation, l.lower - theta, theta - l.upper});
  }
  for (int r = 0; r < d_->nefc; ++r)
    if (d_->efc_type[r] == mjCNSTR_LIMIT_JOINT && d_->efc_force[r] > 1e-6) ++rep.activeLimits;
  return rep;
}

}  // namespace ms
