// SPDX-License-Identifier: GPL-3.0-or-later
// The .mech reader's contact forms: (ground …), (contact-pair …), (collisions …) and (exclude …).
#include "io/mech_reader_internal.h"

namespace ms::mechread {

// (ground NAME (at x y z)? (normal nx ny nz)? (friction μ)?): a fixed plane every collision shape
// may touch; by default through the origin with normal +z, and the bodies' own friction.
void Reader::readGround(const Node& n, bool generated) {
  GroundDesc g;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  if (!readName(n, i, g.name, src.name, "a name, e.g. (ground floor (normal 0 0 1))")) return;
  std::map<std::string, SourceRef> seen;
  static const std::vector<std::string> items = {"at", "normal", "friction"};
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head().empty()) {
      error(c, "expected a ground property such as (normal ...), got " + sexpr::describeNode(c));
      continue;
    }
    const std::string& h = c.head();
    if (!contains(items, h)) {
      error(c.children[0], "unknown ground property '" + h + "'" + suggestion(h, items));
      continue;
    }
    if (duplicate(seen, h, c, "ground '" + g.name + "'")) continue;
    PropertySource& ps = src.properties[h];
    if (h == "at" || h == "normal") {
      Vec3 x;
      if (!vec3(c, x, &ps)) continue;
      if (h == "normal" && !(x.norm() > 1e-12)) {
        error(c.children[0], "the ground's normal must not be zero");
        continue;
      }
      (h == "at" ? g.point : g.normal) = x;
      continue;
    }
    std::vector<double> v;
    if (!numbers(c, 1, 1, 1, v, &ps)) continue;
    if (!(v[0] >= 0)) {
      error(c.children[1], "friction must not be negative (got " + num(v[0]) + ")");
      continue;
    }
    g.friction = v[0];
  }
  define(grounds_, "ground", g.name, int(model_.grounds.size()), src.name);
  model_.grounds.push_back(g);
  map_.grounds.push_back(std::move(src));
}

// (contact-pair NAME BODY-A BODY-B (friction μ)?): contacts between the collision shapes of two bodies.
void Reader::readContactPair(const Node& n, bool generated) {
  ContactPairDesc pr;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  if (!readName(n, i, pr.name, src.name, "a name and two bodies, e.g. (contact-pair p ball1 ball2)")) return;
  std::string a, b;
  SourceRef aRef, bRef;
  if (!readName(n, i, a, aRef, "two bodies")) return;
  if (!readName(n, i, b, bRef, "a second body")) return;
  src.properties["body-a"].form = aRef;
  src.properties["body-b"].form = bRef;
  std::map<std::string, SourceRef> seen;
  static const std::vector<std::string> items = {"friction"};
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head().empty()) {
      error(c, "expected (friction ...), got " + sexpr::describeNode(c));
      continue;
    }
    const std::string& h = c.head();
    if (!contains(items, h)) {
      error(c.children[0], "unknown contact-pair property '" + h + "'" + suggestion(h, items));
      continue;
    }
    if (duplicate(seen, h, c, "contact-pair '" + pr.name + "'")) continue;
    std::vector<double> v;
    if (!numbers(c, 1, 1, 1, v, &src.properties[h])) continue;
    if (!(v[0] >= 0)) {
      error(c.children[1], "friction must not be negative (got " + num(v[0]) + ")");
      continue;
    }
    pr.friction = v[0];
  }
  const int idx = int(model_.contactPairs.size());
  define(pairs_, "contact-pair", pr.name, idx, src.name);
  fixups_.push_back({Fixup::Slot::PairA, idx, a, aRef});
  fixups_.push_back({Fixup::Slot::PairB, idx, b, bRef});
  model_.contactPairs.push_back(pr);
  map_.contactPairs.push_back(std::move(src));
}

// (collisions all|pairs): which pairs of bodies collide (Model::collisions).
void Reader::readCollisions(const Node& n) {
  if (hasCollisions_) {
    error(n.children[0], "duplicate (collisions ...) (already set at " + at(collisionsRef_) + ")");
    return;
  }
  hasCollisions_ = true;
  collisionsRef_ = ref(n);
  PropertySource src;
  src.form = ref(n);
  map_.mechanism.properties["collisions"] = src;
  if (n.children.size() != 2 ||
      !(n.children[1].isSymbol("all") || n.children[1].isSymbol("no-self") || n.children[1].isSymbol("pairs"))) {
    error(n.children.size() >= 2 ? n.children[1] : n,
          "(collisions ...) takes 'all' (every two bodies collide, the default), 'no-self' (bodies of one "
          "mechanism do not collide with each other) or 'pairs' (only contact-pairs)" +
              std::string(n.children.size() >= 2 ? ", got " + sexpr::describeNode(n.children[1]) : ""));
    return;
  }
  model_.collisions = n.children[1].isSymbol("all")       ? CollisionMode::All
                      : n.children[1].isSymbol("no-self") ? CollisionMode::NoSelf
                                                          : CollisionMode::Pairs;
}

// (exclude BODY-A BODY-B): the two bodies do not collide with each other.
void Reader::readExclude(const Node& n, bool generated) {
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  std::string a, b;
  SourceRef aRef, bRef;
  if (!readName(n, i, a, aRef, "two bodies, e.g. (exclude finger1 finger2)")) return;
  if (!readName(n, i, b, bRef, "a second body")) return;
  if (i < n.children.size()) {
    error(n.children[i], "(exclude ...) takes two bodies, got more: " + sexpr::describeNode(n.children[i]));
    return;
  }
  src.properties["body-a"].form = aRef;
  src.properties["body-b"].form = bRef;
  const int idx = int(model_.exclusions.size());
  fixups_.push_back({Fixup::Slot::ExcludeA, idx, a, aRef});
  fixups_.push_back({Fixup::Slot::ExcludeB, idx, b, bRef});
  model_.exclusions.push_back({});
  map_.exclusions.push_back(std::move(src));
}

}  // namespace ms::mechread
