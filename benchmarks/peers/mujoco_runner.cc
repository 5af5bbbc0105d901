// SPDX-License-Identifier: GPL-3.0-or-later
// MuJoCo (Debian's libmujoco-dev 2.2.2) in the peer benchmark. The scene is our model written as
// MJCF by engine/io/mjcf_writer.h (bodies nested along the spanning tree at the initial state, an
// explicit <inertial> with our mass and inertia, hinge/ball joints at our anchors, the loop-closing
// joint as one <connect>, sphere/box geoms against a plane for the contact scenes) and loaded with
// mj_loadXML; the timed step is mj_step alone (no metrics), with every option at MuJoCo's default:
// Euler integrator, Newton constraint solver (100 iterations, tolerance 1e-8), pyramidal friction
// cone, default solref/solimp (soft constraints and contacts).
// Debian's tinyxml2 refuses XML nested deeper than 100 elements, and MuJoCo 2.2.2 reads <include>
// only from disk: a chain deeper than kMaxNesting bodies is cut into files, each holding at most
// kMaxNesting nested bodies and an <include> of the next, written to a temporary directory, loaded
// and removed again.
#include <mujoco/mujoco.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include "io/mjcf_writer.h"
#include "peer_runner.h"
#include "system/initial_conditions.h"

namespace peers {
namespace {

constexpr int kMaxNesting = 90;  // bodies per file (tinyxml2 allows 100 nested elements)

struct MuJoCoError : std::runtime_error {
  explicit MuJoCoError(const char* w) : std::runtime_error(w) {}
};
void onError(const char* msg) { throw MuJoCoError(msg); }
void onWarning(const char*) {}

std::vector<std::string> splitLines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}
bool opens(const std::string& l) { return l.find("<body ") != std::string::npos; }
bool closes(const std::string& l) { return l.find("</body>") != std::string::npos; }

// Cuts every body that would be nested deeper than kMaxNesting into a file of its own (recursively:
// that file's own deep bodies go to further files). Returns the lines with <include>s in their place.
std::vector<std::string> cutDeepBodies(const std::vector<std::string>& lines, const std::filesystem::path& dir, int& files) {
  std::vector<std::string> out;
  int depth = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (opens(lines[i]) && depth == kMaxNesting) {
      size_t j = i;
      for (int d = 0;; ++j) {
        if (opens(lines[j])) ++d;
        if (closes(lines[j]) && --d == 0) break;
      }
      const std::vector<std::string> part(lines.begin() + long(i), lines.begin() + long(j) + 1);
      const std::vector<std::string> body = cutDeepBodies(part, dir, files);
      const std::string name = "part" + std::to_string(++files) + ".xml";
      std::ofstream f(dir / name);
      f << "<mujoco>\n";
      for (const std::string& l : body) f << l << "\n";
      f << "</mujoco>\n";
      if (!f) throw Unsupported("cannot write " + (dir / name).string());
      out.push_back("<include file=\"" + name + "\"/>");
      i = j;
      continue;
    }
    if (opens(lines[i])) ++depth;
    if (closes(lines[i])) --depth;
    out.push_back(lines[i]);
  }
  return out;
}

std::mutex loadMutex;

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
    {
      std::lock_guard<std::mutex> lock(loadMutex);
      char tmpl[] = "/tmp/mechstudio-peers-XXXXXX";
      if (!mkdtemp(tmpl)) throw Unsupported("cannot create a temporary directory");
      const std::filesystem::path dir(tmpl);
      int files = 0;
      const std::vector<std::string> main = cutDeepBodies(splitLines(xml), dir, files);
      {
        std::ofstream f(dir / "model.xml");
        for (const std::string& l : main) f << l << "\n";
      }
      char error[1024] = "";
      try {
        m_ = mj_loadXML((dir / "model.xml").c_str(), nullptr, error, sizeof error);
      } catch (const std::exception& e) {
        std::snprintf(error, sizeof error, "%s", e.what());
      }
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
      if (!m_) throw Unsupported(std::string("MuJoCo cannot load the MJCF: ") + error);
      if (files > 0) note_ = "MJCF split into " + std::to_string(files + 1) + " files (<include>; tinyxml2 nests 100 elements at most)";
    }
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
