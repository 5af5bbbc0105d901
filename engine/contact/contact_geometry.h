// SPDX-License-Identifier: GPL-3.0-or-later
// Contact geometry: signed distance functions φ between collision shapes with analytic gradients,
// and the friction basis of a contact. Brüdigam et al. 2023:
//   §2 "Contacts and inequality constraints": φ(z_a, z_b) ≥ 0, one signed distance per candidate;
//       a point on a body against the ground is φ = e_zᵀ(x + Q(q) p)  (here: any plane p0, n).
//   §3.3 (22)–(25): the solver imposes 0 ≤ φ(z₂(ż₁)) ⊥ γ₁ ≥ 0 at the NEXT configuration z₂ (24b)
//       and applies N(z₁)ᵀγ₁ with N = [∂φ/∂x  ∂φ/∂ʳq] (25).
//   §3.4 (26)–(28), §2 (4a)–(4b), Appendix C (C.2d)–(C.2f): friction basis vectors b_i and the map
//       B = [I; p^× Q(q)ᵀ] b from a friction force along b at body point p to a wrench (force in
//       the world, torque in the body frame). Its transpose maps (v, ω) to b·(contact point velocity),
//       which is what frictionRows() returns. (The paper's (4b) writes Q(q); (C.2d) has Q(q⁻¹) = Q(q)ᵀ,
//       which is the one consistent with body-frame torques and is used here.)
//   Appendix A: quaternions [w, x, y, z], Q(q) body → world (core/quaternion.h).
//
// Conventions (the same as dynamics/joint_constraint.h, so the rows plug into the same Newton matrix):
//   - Every function evaluates φ and its gradients at ONE given pose. For (24b) the solver evaluates
//     at z₂ = z₁ ⊕ ż₁Δt and composes with ∂x₂/∂v₁ = Δt I and ∂θ₂/∂ω₁ = quat::incrementJacobian(ω₁, Δt);
//     for N(z₁) in (24a) it evaluates at z₁. The chain rule is the caller's.
//   - Gradients are ∂φ/∂x (1×3, world position of the centre of mass) and ∂φ/∂θ (1×3, θ a small
//     body-frame rotation, q → q·[1, δθ/2]); the paper's rotational Jacobian (A.8) is 2·∂φ/∂θ.
//     For a point fixed in a body, p = x + Q(q) l:  ∂p/∂x = I,  ∂p/∂θ = −Q(q) l^×  (as ∂g_T/∂θ_b).
//   - Pair order: body A, body B; the normal n (world, unit) points from A to B: moving B along +n
//     increases φ. For shape-vs-plane contacts A is the world (the plane) and its gradients are 0.
//   - Witness points p_A, p_B (world) satisfy p_B − p_A = φ n. The gradients treat the witness
//     points as material points of their bodies and n as fixed: φ = nᵀ(p_B − p_A) with closest
//     points is stationary in the witness parameters (envelope theorem), and rotating n does not
//     change nᵀ(p_B − p_A) to first order because p_B − p_A ∥ n. Exact wherever the closest points
//     are unique; where they are not (parallel capsules, face ties inside a box, concentric spheres)
//     φ itself has a kink and the returned row is one of its one-sided derivatives.
//   - No heap allocation: fixed-size types only; outputs are caller-owned structs.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "contact/convex_hull.h"
#include "core/types.h"
#include "model/model.h"

namespace ms::contact {

using Row3 = Eigen::RowVector3d;

// A convex polytope as the distance functions use it (shape frame): the hull's vertices and
// triangles, and its real edges with the outward normals of their two faces (for the Gauss-map
// test of the edge–edge separating axes, Gregorius 2013).
struct ConvexShape {
  ConvexHull hull;
  struct Edge {
    int a = 0, b = 0;       // vertex indices
    Vec3 n1, n2;            // normals of the two faces that meet at the edge
  };
  std::vector<Edge> edges;
};
// Builds the edge table of a hull (each real edge is shared by exactly two triangles).
std::shared_ptr<const ConvexShape> makeConvexShape(ConvexHull hull);

// A collision shape reduced to what the distance functions need, placed in its body's frame.
struct ContactShape {
  enum class Kind { Sphere, Capsule, Box, Cylinder, Plane, Convex };
  Kind kind = Kind::Sphere;
  double radius = 0;                 // sphere, capsule, cylinder
  double halfLength = 0;             // capsule: half the distance between the cap centres; cylinder: half height
  Vec3 halfExtents = Vec3::Zero();   // box
  Vec3 position = Vec3::Zero();      // shape origin in the body frame
  Mat3 rotation = Mat3::Identity();  // shape frame → body frame (the shape axis is its z axis)
  std::shared_ptr<const ConvexShape> convex;  // Convex: the hull (shared, immutable)
  // The shape's collision filter (ShapeDesc::contype/conaffinity; all bits: the body's rule alone).
  std::uint32_t contype = 0xffffffffu, conaffinity = 0xffffffffu;
};
// Whether two filters (a shape's, another shape's or a ground's) let the two touch (MuJoCo's rule).
inline bool filtersMatch(std::uint32_t typeA, std::uint32_t affinityA, std::uint32_t typeB, std::uint32_t affinityB) {
  return ((typeA & affinityB) | (typeB & affinityA)) != 0;
}

// ShapeDesc → ContactShape (box: half of the full extents; capsule/cylinder: half of the length).
// Returns false for meshes, which need their hull (compile.cc builds Convex shapes from them).
bool contactShapeFromDesc(const ShapeDesc& s, ContactShape& out);

// Pose of a body (world: x = 0, q = 1).
struct BodyPose {
  Vec3 x = Vec3::Zero();
  Vec4 q = Vec4(1, 0, 0, 0);
};

// A plane fixed in the world: point p0 and unit normal n (the ground: p0 = 0, n = +z).
struct WorldPlane {
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();
};
WorldPlane makeWorldPlane(const Vec3& point, const Vec3& normal);  // normalises n
// The plane of a Plane shape (normal = shape +z) on a body at a pose (identity pose for the world).
WorldPlane planeFromShape(const ContactShape& plane, const BodyPose& pose);

// One contact candidate: φ, the geometry, and ∂φ/∂(x, θ) for both bodies. Every function that
// produces a candidate writes every field; the members are left uninitialised on construction so
// that a ContactSet costs nothing to create.
struct Contact {
  double phi;
  Vec3 normal;            // world, unit, from A to B
  Vec3 pointA, pointB;    // world witness points, p_B − p_A = φ n
  Vec3 localA, localB;    // the same in A's / B's body frame (world A: = pointA)
  Row3 dxA, dthA;         // ∂φ/∂x_A, ∂φ/∂θ_A (zero for the world)
  Row3 dxB, dthB;         // ∂φ/∂x_B, ∂φ/∂θ_B
};

// Candidates of one contact group (a shape against a plane, or a pair of shapes); the count and
// layout depend on the shape kinds (see below and pairCandidateCount).
constexpr int kMaxPlaneCandidates = kMaxHullVertices;  // a hull's vertices (sphere 1 … cylinder 10)
constexpr int kMaxCandidates = 2 * kMaxHullVertices + 1;  // two hulls: vertices both ways + their distance
struct ContactSet {
  int count = 0;
  Contact contacts[kMaxCandidates];
  // User-provided: a vector of sets is value-initialised without zeroing every candidate (15 kB a
  // set; a system of 1,000 groups would zero 30 MB whenever automatic pairs change).
  ContactSet() {}
};

// Gradient of dirᵀp for a point p = x + Q l fixed in a body (Q = Q(q)): ∂/∂x = dirᵀ,
// ∂/∂θ = −dirᵀ Q l^×. Also the velocity row of dirᵀ(contact point velocity) w.r.t. (v, ω).
void pointGradient(const Mat3& Q, const Vec3& l, const Vec3& dir, Row3& dx, Row3& dth);

// ---- Shape (body B) against a world plane (A = world). φ = n·(p_B − p0) for each candidate p_B.
// Sphere: 1 candidate, p_B = c − r n, φ = n·(c − p0) − r.
void spherePlane(const WorldPlane& plane, const ContactShape& sphere, const BodyPose& z, ContactSet& out);
// Capsule: 2 candidates, the hemisphere centres e± = c ± h a: φ = n·(e± − p0) − r; [0] = +z end.
void capsulePlane(const WorldPlane& plane, const ContactShape& capsule, const BodyPose& z, ContactSet& out);
// Box: 8 candidates, the corners (index bits 0/1/2 = sign of x/y/z, set = +). An edge or face resting
// on a plane is represented by its corners; for a plane this is exact (the lowest point of a convex
// polytope over a plane is always attained at a vertex, and a face touches iff its corners do).
void boxPlane(const WorldPlane& plane, const ContactShape& box, const BodyPose& z, ContactSet& out);
// Cylinder: 10 candidates, always (fixed layout, so the set never switches):
//   [0], [1]: the rim point of the +z / −z end disc closest to the plane, e ± r·w with
//             w = −n⊥/|n⊥|, n⊥ = (n·u)u + (n·v)v = n − (n·a)a (formed from its u, v components, which
//             keeps n·w accurate near the singular case): φ = n·(e − p0) − r|n⊥|, the disc's lowest point.
//   [2..5], [6..9]: the rim points at +u, −u, +v, −v (shape x, y axes) of the +z / −z end disc,
//             fixed in the body.
// Singular case (axis ∥ n, |n⊥| → 0, a disc lying flat on the plane): the lowest rim point is then any
// rim point; φ stays continuous (all rim points have the same height), its gradient has a kink
// (tilting either way lowers some rim point) and for |n⊥| < 1e-12 [0]/[1] are taken at +u. The four
// body-fixed points [2..9] are smooth everywhere and give the flat disc a support polygon (a square
// inscribed in the rim) instead of a single point that jumps around the rim. Their φ is never below
// the lowest point's, so a caller that wants only the minimal set can use [0] and [1] when the axis
// is far from the normal.
void cylinderPlane(const WorldPlane& plane, const ContactShape& cylinder, const BodyPose& z, ContactSet& out);
// Dispatch on the shape kind; returns the candidate count (0 for a Plane shape, which does not collide
// with a plane).
int shapePlane(const WorldPlane& plane, const ContactShape& shape, const BodyPose& z, ContactSet& out);
// Convex hull: one candidate per hull vertex (as the box's corners).
void convexPlane(const WorldPlane& plane, const ContactShape& convex, const BodyPose& z, ContactSet& out);

// ---- Body A against body B: one candidate each; n from A to B.
// Spheres: φ = |c_B − c_A| − r_A − r_B; concentric centres: n = +z (world).
void sphereSphere(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
                  Contact& out);
// Sphere (A) against capsule (B): closest point on B's segment, φ = distance − r_A − r_B.
void sphereCapsule(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
                   Contact& out);
// Capsules: closest points between the two segments, φ = distance − r_A − r_B. Parallel segments
// (sin² of the angle < 1e-12) take the middle of the overlap of their projections (or the nearest
// ends when they do not overlap), so the witness points are symmetric and do not jump along the
// segments. Segments that intersect (distance 0): n = ±(u_A × u_B) (oriented from c_A to c_B),
// or a perpendicular of u_A when they are also parallel; φ = −r_A − r_B.
void capsuleCapsule(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
                    Contact& out);
// Sphere (A) against box (B): centre outside the box: φ = |c − closest point| − r; centre inside
// (or on the surface): φ = −(distance to the nearest face) − r along that face's normal (ties: the
// lowest axis index, then the + face).
void sphereBox(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
               Contact& out);
// Dispatch for the pairs of round shapes and sphere–box (one candidate, the closest points),
// swapping A and B (and the outputs back) for capsule–sphere, box–sphere. Returns false for the
// other pairs, which have several candidates (pairCandidates).
bool shapePair(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
               Contact& out);
// Exchange the roles of A and B in a contact (n → −n, points and gradients swapped; φ unchanged).
void swapBodies(Contact& c);

// ---- Every pair of shapes (shape_distance.cc, pair_candidates.cc). Each candidate is a signed
// distance that is exact and smooth wherever its closest points are unique: a point that is
// material on one body (a vertex, a cap centre, a rim point, a point of an edge chosen where the
// distance along the edge is stationary) against the other shape's signed distance function, or
// the two shapes' signed distance. Where a point is chosen by minimising along a curve (Brent's
// method), the distance is stationary in the choice, so the material-point gradients are exact
// (envelope theorem) and the FD checks of the tests hold. Layouts (A, B in either order):
//   sphere–sphere, sphere–capsule  1: the closest points of the cores (segmentContact);
//   capsule–capsule                5: A's two cap centres against B's core, B's two against A's
//                                     (a swept sphere against a segment), and the cores' closest
//                                     points where both lie strictly inside their segments (the
//                                     lines' signed distance; far elsewhere, as cylinder–cylinder).
//                                     Two capsules lying side by side touch along a line: one
//                                     closest-points candidate jumps between the ends as their angle
//                                     changes sign, and its impulse acts at the knot's end while the
//                                     other end closes (docs/engine.md, "Capsule pairs");
//   plane–X                        X's plane candidates against the plane of A (shapePlane);
//   sphere–X (box, cylinder, hull) 1: the centre against X's distance function, minus r;
//   capsule–X                      3: the two cap centres, and the point of the core segment of
//                                     least distance to X (minus r);
//   polytope–polytope (box, hull)  V_B + V_A + 1: B's vertices against A's face, A's against B's face
//                                     (the face manifold, PairFeatures below), and the edge pair of
//                                     crossing edges (or far, or the full signed distance of a deep
//                                     overlap: polytopeSignedDistance);
//   cylinder–polytope              10 + V + 1: the cylinder's rim points (the rim point of least
//                                     distance to the polytope on each disc, then 4 fixed per disc, as
//                                     cylinderPlane), the polytope's vertices against the cylinder, and
//                                     the point of the polytope's edges of least distance to the cylinder;
//   cylinder–cylinder              10 + 10 + 1: the rim points both ways, and the side–side contact
//                                     of the two axes' closest points where both lie strictly inside
//                                     the axes' segments (+∞ elsewhere, where the rims take over).
// Resting faces are held by the vertex and rim candidates (a box on a box stands on 4 corners).
// Polytope pairs hold resting faces by a face manifold (as Box2D's reference and incident faces)
// instead of the vertices' distances to the other polytope, whose normal is undefined where a vertex
// meets an edge (two equal boxes stacked: every corner on an edge): at a chosen configuration (the
// step's knot z₁) the separating axis test picks a reference face (of A unless B's face separates
// better), the other body's most anti-parallel face is the incident face; B's vertices are then
// candidates against A's chosen face plane, A's against B's (φ = n·(v − p), the normal of the face),
// each only if its projection lies in that face (within kFaceMargin) and it is not deeper than
// kActivationDepth below the plane; the other vertex slots are far (φ = 1e3 m, no gradient). Within a
// step the choice is kept (PairFeatures), so φ(z₂) is smooth in the Newton iterates; it is made
// again at every step's knot. The last candidate, the polytopes' signed distance, is always active.
// The last candidate of a polytope pair is chosen with them: the edge pair of the separating axis
// test where an edge axis separates better than both faces (crossing edges; smooth, from the two
// edges' lines), the polytopes' full signed distance where they overlap deeper than
// kActivationDepth (to push them apart), else far (the face manifold describes the contact; the
// signed distance would duplicate a vertex with a witness point that jumps between tied vertices,
// and a sticking box then slid for the first steps).
struct PairFeatures {
  enum Distance { Far, EdgePair, SignedDistance };
  // Set by the caller before a choice: how far [m] the two bodies' points may move relative to each
  // other during the step; a vertex that close to the face's outline counts as over it (else a
  // vertex beside the face at z₁ could enter through it unconstrained within the step).
  double motion = 0;
  bool chosen = false;
  int faceA = -1, faceB = -1;  // face of A for B's vertices, face of B for A's vertices
  std::array<bool, kMaxCandidates> active{};  // vertex slots in use
  Distance distance = Far;
  int edgeA = -1, edgeB = -1;  // EdgePair: the edges, and the axis' sign against d_A × d_B
  bool edgeFlip = false;
  // Cylinder pairs: the rim angle (in the cylinder's own frame) around which each disc's nearest rim
  // point is sought (B's discs, then A's; NaN: a disc lying flat, its +u point), and the polytope
  // edge whose point nearest the cylinder is a candidate — chosen at z₁ and kept, so that a tie
  // between two rim regions or two edges does not switch between the step's Newton iterates.
  double rim[4] = {0, 0, 0, 0};
  int edge = -1;
};
// Distance from the shape's body origin to its farthest point (for motion bounds).
double shapeReach(const ContactShape& s);
// Number of candidates of a pair (0: plane–plane, which does not collide).
int pairCandidateCount(const ContactShape& a, const ContactShape& b);
// features == nullptr: choose the face manifold at this configuration. Otherwise `choose` makes the
// choice here and stores it in *features; !choose evaluates with the stored choice.
void pairCandidates(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
                    ContactSet& out, PairFeatures* features = nullptr, bool choose = true);

// The exact signed distance of two polytopes (boxes, hulls) with its witness points: apart, the least
// of the vertices' distances to the other polytope and of the edge–edge distances; overlapping, the
// largest gap over the separating axes (faces, and edge pairs that form Minkowski faces).
void polytopeSignedDistance(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
                            Contact& out);

// Signed distance of a point p (world) to a shape at pose z: φ < 0 inside; the closest surface
// point and the outward unit normal there (the gradient of φ at p wherever it is differentiable).
struct SurfacePoint {
  double phi;
  Vec3 point, normal;
};
SurfacePoint signedDistance(const ContactShape& s, const BodyPose& z, const Vec3& p);

// The candidates of one contact group: shape b at zb against the world plane (za == nullptr), or
// against shape a at *za (pairCandidates).
void groupCandidates(const WorldPlane& plane, const ContactShape& a, const BodyPose* za, const ContactShape& b,
                     const BodyPose& zb, ContactSet& out, PairFeatures* features = nullptr, bool choose = true);

// ---- Friction (§3.4, Appendix C).
// Orthonormal right-handed tangent basis (t1, t2, n), built continuously from n: the frame obtained by
// the minimal rotation taking +z to n applied to (x, y) (Frisvad 2012; Duff et al. 2017, "Building an
// orthonormal basis, revisited", without their sign switch, which would put a seam on the equator
// n_z = 0 where side-by-side contacts live):
//   a = 1/(1 + n_z) (written (1 − n_z)/(n_x² + n_y²) for n_z < 0, the same value without cancellation),
//   t1 = (1 − a n_x², −a n_x n_y, −n_x),  t2 = (−a n_x n_y, 1 − a n_y², −n_y).
// Smooth everywhere except the single point n = −z (a continuous tangent field on the sphere must
// vanish somewhere); at n = −z exactly: t1 = (0, −1, 0), t2 = (−1, 0, 0). At n = +z (the ground):
// t1 = x, t2 = y.
void frictionBasis(const Vec3& n, Vec3& t1, Vec3& t2);

// Linearised friction cone directions d_k = cos(2πk/n_f) t1 + sin(2πk/n_f) t2, k = 0..n_f−1
// (for even n_f, d_{k+n_f/2} = −d_k exactly: the pairs ±b_i of (4a)), and per body the rows mapping
// that body's (v world, ω body) to d_k·(velocity of its contact point):  [d_kᵀ,  (l × Q(q)ᵀ d_k)ᵀ].
// The relative sliding velocity of B over A along d_k is dvB·v_B + dwB·ω_B − dvA·v_A − dwA·ω_A.
// za = nullptr: A is the world (rows zero). Rows ≥ count are zero. 4 ≤ n_f ≤ kMaxFrictionDirections.
// `twist` turns the polygon about the normal: d_k at 2πk/n_f + twist (a step whose interior point
// fails with one orientation is solved with the other, variational_step.cc).
constexpr int kMaxFrictionDirections = 16;
struct FrictionRows {
  int count = 0;
  Vec3 t1 = Vec3::UnitX(), t2 = Vec3::UnitY();
  Eigen::Matrix<double, kMaxFrictionDirections, 3> d;  // row k: d_kᵀ (world)
  Eigen::Matrix<double, kMaxFrictionDirections, 3> dvA, dwA, dvB, dwB;
  FrictionRows() {}  // as ContactSet: vectors of them are not zeroed (written before use)
};
void frictionRows(const Contact& c, const BodyPose* za, const BodyPose& zb, int nf, FrictionRows& out,
                  double twist = 0.0);
// Friction force f (tangent, world) of the polygon `from` as non-negative impulses along the
// directions of `to` (the two directions that span its sector): the conversion of a twisted
// polygon's impulses back to the untwisted one. beta has to.count entries.
void frictionInPolygon(const Vec3& f, const FrictionRows& to, double* beta);

}  // namespace ms::contact
