// SPDX-License-Identifier: GPL-3.0-or-later
// ODE (Debian's libode-dev 0.16, double precision) in the peer benchmark: maximal coordinates like
// ours. Each body is a dBody at our centre of mass and orientation with our mass and inertia tensor
// (dMassSetParameters); every joint, the loop-closing one included, is a constraint between two
// bodies or a body and the static environment: revolute → hinge (anchor and axis at the initial
// pose), spherical → ball; the loop-closing joint is a ball (as in DART and MuJoCo: the planar tree
// already removes the rotations a hinge would, and a hinge would add two redundant rows). Contact
// scenes: a dPlane z = 0 and dSphere/dBox geoms on the bodies; each step collides every body geom
// with the plane (dCollide, at most 8 points per pair; bodies touch only the ground, as in our
// engine) and adds contact joints with μ the body's and the friction pyramid scaled by the normal
// force (dContactApprox1, the Coulomb law; ODE's plain mode bounds friction by μ newtons), then
// takes dWorldStep (the "big matrix" LCP solver: Dantzig's algorithm on the full constraint
// matrix) and empties the contact group. The timed step is all three. ERP and CFM are the world's
// defaults (read from dWorldGetERP/dWorldGetCFM and printed), no damping, no auto-disable.
#include <ode/ode.h>
#include <ode/version.h>

#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "peer_runner.h"

namespace peers {
namespace {

constexpr int kMaxContacts = 8;

void initOde() {
  static std::once_flag once;
  std::call_once(once, [] { dInitODE2(0); });
}

class OdeInstance : public PeerInstance {
 public:
  explicit OdeInstance(const PeerScene& s) {
    initOde();
    world_ = dWorldCreate();
    dWorldSetGravity(world_, s.gravity.x(), s.gravity.y(), s.gravity.z());
    dt_ = s.dt;
    for (const PeerBody& b : s.bodies) {
      dBodyID body = dBodyCreate(world_);
      dMass m;
      dMassSetZero(&m);
      const Mat3& J = b.inertia;
      dMassSetParameters(&m, b.mass, 0, 0, 0, J(0, 0), J(1, 1), J(2, 2), J(0, 1), J(0, 2), J(1, 2));
      dBodySetMass(body, &m);
      dBodySetPosition(body, b.x.x(), b.x.y(), b.x.z());
      const dQuaternion q = {b.q(0), b.q(1), b.q(2), b.q(3)};
      dBodySetQuaternion(body, q);
      bodies_.push_back(body);
    }
    for (const PeerJoint& j : s.joints) {
      dBodyID child = bodies_[size_t(j.child)], parent = j.parent >= 0 ? bodies_[size_t(j.parent)] : nullptr;
      if (j.type == PeerJoint::Type::Revolute && !j.loop) {
        dJointID h = dJointCreateHinge(world_, nullptr);
        dJointAttach(h, child, parent);
        dJointSetHingeAnchor(h, j.anchor.x(), j.anchor.y(), j.anchor.z());
        dJointSetHingeAxis(h, j.axis.x(), j.axis.y(), j.axis.z());
      } else {
        dJointID b = dJointCreateBall(world_, nullptr);
        dJointAttach(b, child, parent);
        dJointSetBallAnchor(b, j.anchor.x(), j.anchor.y(), j.anchor.z());
      }
    }
    if (s.ground) {
      space_ = dSimpleSpaceCreate(nullptr);
      plane_ = dCreatePlane(space_, 0, 0, 1, 0);
      contacts_ = dJointGroupCreate(0);
      for (size_t i = 0; i < s.bodies.size(); ++i)
        for (const PeerShape& sh : s.bodies[i].shapes) {
          dGeomID g = sh.kind == PeerShape::Kind::Sphere ? dCreateSphere(space_, sh.size.x())
                                                          : dCreateBox(space_, sh.size.x(), sh.size.y(), sh.size.z());
          dGeomSetBody(g, bodies_[i]);
          if (sh.position.norm() != 0) dGeomSetOffsetPosition(g, sh.position.x(), sh.position.y(), sh.position.z());
          if (sh.orientation != Vec4(1, 0, 0, 0)) {
            const dQuaternion q = {sh.orientation(0), sh.orientation(1), sh.orientation(2), sh.orientation(3)};
            dGeomSetOffsetQuaternion(g, q);
          }
          geoms_.push_back(g);
          mu_.push_back(s.bodies[i].friction);
        }
    }
  }
  ~OdeInstance() override {
    if (contacts_) dJointGroupDestroy(contacts_);
    if (space_) dSpaceDestroy(space_);  // destroys its geoms
    dWorldDestroy(world_);              // destroys bodies and joints
  }
  bool step() override {
    if (space_) {
      dContact c[kMaxContacts];
      for (size_t g = 0; g < geoms_.size(); ++g) {
        const int n = dCollide(geoms_[g], plane_, kMaxContacts, &c[0].geom, sizeof(dContact));
        for (int k = 0; k < n; ++k) {
          c[k].surface.mode = dContactApprox1;
          c[k].surface.mu = mu_[g];
          dJointID cj = dJointCreateContact(world_, contacts_, &c[k]);
          dJointAttach(cj, dGeomGetBody(geoms_[g]), nullptr);
        }
      }
    }
    dWorldStep(world_, dt_);
    if (contacts_) dJointGroupEmpty(contacts_);
    return true;
  }
  void pose(int body, Vec3& x, Vec4& q) const override {
    const dReal* p = dBodyGetPosition(bodies_[size_t(body)]);
    const dReal* r = dBodyGetQuaternion(bodies_[size_t(body)]);
    x = Vec3(p[0], p[1], p[2]);
    q = Vec4(r[0], r[1], r[2], r[3]);
  }
  void velocity(int body, Vec3& v, Vec3& w) const override {
    const dReal* l = dBodyGetLinearVel(bodies_[size_t(body)]);  // of the centre of mass (the body's origin)
    const dReal* a = dBodyGetAngularVel(bodies_[size_t(body)]);
    v = Vec3(l[0], l[1], l[2]);
    w = Vec3(a[0], a[1], a[2]);
  }

 private:
  dWorldID world_ = nullptr;
  dSpaceID space_ = nullptr;
  dGeomID plane_ = nullptr;
  dJointGroupID contacts_ = nullptr;
  std::vector<dBodyID> bodies_;
  std::vector<dGeomID> geoms_;
  std::vector<double> mu_;
  double dt_ = 0.01;
};

std::string describeDefaults() {
  initOde();
  dWorldID w = dWorldCreate();
  char buf[160];
  std::snprintf(buf, sizeof buf, "dWorldStep (big-matrix LCP, Dantzig), world ERP %g, CFM %g (defaults)", double(dWorldGetERP(w)),
                double(dWorldGetCFM(w)));
  dWorldDestroy(w);
  return buf;
}

}  // namespace

PeerEngine odeEngine() { return makePeerEngine<OdeInstance>("ode", "ODE " dODE_VERSION, "semi-implicit euler", describeDefaults()); }

}  // namespace peers
