// SPDX-License-Identifier: GPL-3.0-or-later
// MuJoCo (Debian's libmujoco-dev 2.2.2) in the peer benchmark. The scene is our model written as
// MJCF by engine/io/mjcf_writer.h (bodies nested along the spanning tree at the initial state, an
// explicit <inertial> with our mass and inertia, hinge/ball joints at our anchors, the loop-closing
// joint as one <connect>, sphere/box geoms against a plane for the contact scenes) and loaded with
// mj_loadXML; the timed step is mj_step alone (no metrics), with every option at MuJoCo's default:
// Euler integrator, Newton constraint solver (100 iterations, tolerance 1e-8), pyramidal friction
// cone, default solref/solimp (soft constraints and contacts).
// Debian's tinyxml2 refuses XML nested deeper than 100 elements: a chain nested deeper is cut into
// files joined by <include>s (ms::splitMjcfByNesting, as the MuJoCo comparison copy does), loaded
// from MuJoCo's in-memory file system.
#include <mujoco/mujoco.h>

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "integrator/mujoco_copy.h"
#include "io/mjcf_writer.h"
#include "peer_runner.h"
#include "system/initial_conditions.h"

namespace peers {
namespace {

struct MuJoCoError : std::runtime_error {
  explicit MuJoCoError(const char* w) : std::runtime_error(w) {}
};
void onError(const char* msg) { throw MuJoCoError(msg); }
void onWarning(const char*) {}

class MuJoCoInstance : public PeerInstance {
 public:
  MuJoCoInstance(const PeerScene& s, int integrator) {
    static std::once_flag once;
    std::call_once(once, [] {
      mju_user_error = onError;
      mju_user_warning = onWarning;
    });
    ms::MjcfWriteOptions opt;
    opt.revoluteLoop = ms::MjcfWriteOptions::RevoluteLoop::OneConnect;  // a point constraint, as in DART and ODE
    ms::MjcfInfo info;
    const ms::State ref = ms::makeInitialState(*s.sys, s.sys->model);
    const std::string xml = ms::writeMjcf(*s.sys, ref, opt, &info);
    const std::vector<ms::MjcfFile> files = ms::splitMjcfByNesting(xml, "model.xml");
    std::string error;
    m_ = ms::loadMjcfFiles(files, error);
    if (!m_) throw Unsupported("MuJoCo cannot load the MJCF: " + error);
    if (files.size() > 1)
      note_ = "MJCF split into " + std::to_string(files.size()) + " files (<include>; tinyxml2 nests 100 elements at most)";
    m_->opt.integrator = integrator;
    d_ = mj_makeData(m_);
    if (!d_) throw Unsupported("mj_makeData failed");
    for (const std::string& b : info.body) bodyId_.push_back(mj_name2id(m_, mjOBJ_BODY, b.c_str()));
  }
  ~MuJoCoInstance() override {
    if (d_) mj_deleteData(d_);
    if (m_) mj_deleteModel(m_);
  }
  bool step() override {
    fresh_ = false;
    mj_step(m_, d_);
    for (int w : {mjWARN_BADQPOS, mjWARN_BADQVEL, mjWARN_BADQACC})
      if (d_->warning[w].number > 0) {
        failure_ = "MuJoCo warning " + std::to_string(w) + " (bad qpos/qvel/qacc): the motion blew up";
        return false;
      }
    return true;
  }
  void pose(int body, Vec3& x, Vec4& q) const override {
    update();
    const mjtNum* p = d_->xpos + 3 * bodyId_[size_t(body)];  // body frame = our centre-of-mass frame
    const mjtNum* r = d_->xquat + 4 * bodyId_[size_t(body)];
    x = Vec3(p[0], p[1], p[2]);
    q = Vec4(r[0], r[1], r[2], r[3]);
  }
  void velocity(int body, Vec3& v, Vec3& w) const override {
    update();
    mjtNum res[6];
    mj_objectVelocity(m_, d_, mjOBJ_BODY, bodyId_[size_t(body)], res, 0);  // [angular; linear], world frame
    w = Vec3(res[0], res[1], res[2]);
    v = Vec3(res[3], res[4], res[5]);
  }
  std::string failure() const override { return failure_; }
  std::string note() const override { return note_; }

 private:
  // Poses and velocities of the current qpos, qvel (mj_step leaves those of the step's start): one
  // mj_forward after each step, when they are read.
  void update() const {
    if (fresh_) return;
    mj_forward(m_, d_);
    fresh_ = true;
  }
  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
  mutable bool fresh_ = false;
  std::vector<int> bodyId_;
  std::string note_, failure_;
};

}  // namespace

PeerEngine mujocoEngine(const std::string& integrator) {
  int kind = mjINT_EULER;
  if (integrator == "rk4") kind = mjINT_RK4;
  else if (integrator == "implicit") kind = mjINT_IMPLICIT;
  else if (integrator != "euler") throw std::invalid_argument("unknown MuJoCo integrator: " + integrator);
  return {"mujoco", std::string("MuJoCo ") + mj_versionString(), integrator,
          "mj_step on the MJCF of engine/io/mjcf_writer (MuJoCo defaults: " + integrator +
              " integrator, Newton solver, pyramidal cone)",
          [kind](const PeerScene& s) -> std::unique_ptr<PeerInstance> { return std::make_unique<MuJoCoInstance>(s, kind); }};
}

}  // namespace peers
