// SPDX-License-Identifier: GPL-3.0-or-later
// The .mech reader's final steps: names of bodies and joints resolved once all are known (fix-ups),
// the warning for unconnected bodies, and (order …), read and applied.
#include "io/mech_reader_internal.h"

namespace ms::mechread {

// ---- final steps -------------------------------------------------------------------------------

// Resolves names referenced by loop joints, springs, controllers, actuators and wrenches.
void Reader::resolveFixups() {
  auto body = [&](const Fixup& f, bool worldAllowed, int& out) {
    if (f.name == "world") {
      if (worldAllowed) {
        out = -1;
        return true;
      }
      return false;
    }
    const int b = bodies_.find(f.name);
    if (b < 0) {
      error(f.where, "unknown body '" + f.name + "'" + suggestion(f.name, bodies_.names()));
      return false;
    }
    out = b;
    return true;
  };
  for (const Fixup& f : fixups_) {
    switch (f.slot) {
      case Fixup::Slot::LoopParent: body(f, true, model_.joints[f.index].parent); break;
      case Fixup::Slot::LoopChild: {
        JointDesc& j = model_.joints[f.index];
        if (f.name == "world") {
          error(f.where, "the child of loop joint '" + j.name + "' must be a body, not the world (swap the two)");
          break;
        }
        if (body(f, false, j.child) && j.child == j.parent)
          error(f.where, "loop joint '" + j.name + "' connects body '" + f.name + "' to itself");
        break;
      }
      case Fixup::Slot::SpringA: body(f, true, model_.springs[f.index].bodyA); break;
      case Fixup::Slot::SpringB: {
        SpringDesc& s = model_.springs[f.index];
        if (body(f, true, s.bodyB) && s.bodyA == s.bodyB)
          error(f.where, "spring '" + s.name + "' has both ends on " + (f.name == "world" ? std::string("the world") : "body '" + f.name + "'"));
        break;
      }
      case Fixup::Slot::PairA:
      case Fixup::Slot::PairB: {
        ContactPairDesc& pr = model_.contactPairs[f.index];
        if (f.name == "world") {
          error(f.where, "contact-pair '" + pr.name + "' is between two bodies; contact with the world is a (ground ...)");
          break;
        }
        if (body(f, false, f.slot == Fixup::Slot::PairA ? pr.bodyA : pr.bodyB) && f.slot == Fixup::Slot::PairB &&
            pr.bodyA == pr.bodyB)
          error(f.where, "contact-pair '" + pr.name + "' names body '" + f.name + "' twice");
        break;
      }
      case Fixup::Slot::ExcludeA:
      case Fixup::Slot::ExcludeB: {
        ExclusionDesc& e = model_.exclusions[f.index];
        if (f.name == "world") {
          error(f.where, "exclude names two bodies (bodies collide with the world only through grounds)");
          break;
        }
        if (body(f, false, f.slot == Fixup::Slot::ExcludeA ? e.bodyA : e.bodyB) && f.slot == Fixup::Slot::ExcludeB &&
            e.bodyA == e.bodyB)
          error(f.where, "exclude names body '" + f.name + "' twice");
        break;
      }
      case Fixup::Slot::WrenchBody:
        if (f.name == "world") error(f.where, "a wrench acts on a body, not on the world");
        else body(f, false, model_.wrenches[f.index].body);
        break;
      case Fixup::Slot::TendonJoint: {
        const int j = joints_.find(f.name);
        if (j < 0) {
          error(f.where, "unknown joint '" + f.name + "'" + suggestion(f.name, joints_.names()));
          break;
        }
        TendonTerm& term = model_.tendons[size_t(f.index)].terms[f.count];
        term.joint = j;
        const JointKind& kind = jointKind(model_.joints[j].type);
        if (term.coordinate >= kind.freeCoordinates())
          error(f.where, "joint '" + f.name + "' (" + kind.name + ") has " + std::to_string(kind.freeCoordinates()) +
                             " free coordinate" + (kind.freeCoordinates() == 1 ? "" : "s") + "; there is no coordinate " +
                             std::to_string(term.coordinate));
        break;
      }
      case Fixup::Slot::CouplingJoint:
      case Fixup::Slot::CouplingReference: {
        const int j = joints_.find(f.name);
        CouplingDesc& c = model_.couplings[size_t(f.index)];
        if (j < 0) {
          error(f.where, "unknown joint '" + f.name + "'" + suggestion(f.name, joints_.names()));
          break;
        }
        const bool own = f.slot == Fixup::Slot::CouplingJoint;
        (own ? c.joint : c.reference) = j;
        const JointKind& kind = jointKind(model_.joints[j].type);
        if (int(f.count) >= kind.freeCoordinates())
          error(f.where, "joint '" + f.name + "' (" + kind.name + ") has " + std::to_string(kind.freeCoordinates()) +
                             " free coordinate" + (kind.freeCoordinates() == 1 ? "" : "s") + "; there is no coordinate " +
                             std::to_string(f.count));
        else if (!own && c.joint == j && c.coordinate == c.referenceCoordinate)
          error(f.where, "coupling '" + c.name + "': joint '" + f.name + "' cannot follow itself");
        break;
      }
      case Fixup::Slot::ControllerJoint:
      case Fixup::Slot::ActuatorJoint: {
        const int j = joints_.find(f.name);
        // An actuator may act along a tendon (joints' names first).
        if (j < 0 && f.slot == Fixup::Slot::ActuatorJoint && tendons_.find(f.name) >= 0) {
          model_.actuators[f.index].tendon = tendons_.find(f.name);
          if (f.count != 1)
            error(map_.actuators[f.index].properties["effort"].form,
                  "tendon '" + f.name + "' has one length: (effort ...) takes 1 number (got " + std::to_string(f.count) + ")");
          break;
        }
        if (j < 0) {
          std::vector<std::string> names = joints_.names();
          if (f.slot == Fixup::Slot::ActuatorJoint)
            for (const std::string& t : tendons_.names()) names.push_back(t);
          error(f.where, std::string("unknown ") + (f.slot == Fixup::Slot::ActuatorJoint && !tendons_.byName.empty() ? "joint or tendon '" : "joint '") +
                             f.name + "'" + suggestion(f.name, names));
          break;
        }
        const JointKind& kind = jointKind(model_.joints[j].type);
        const int nf = kind.freeCoordinates();
        if (f.slot == Fixup::Slot::ControllerJoint) {
          ControllerDesc& c = model_.controllers[f.index];
          c.joint = j;
          if (c.coordinate >= nf) {
            const auto& props = map_.controllers[f.index].properties;
            const auto coord = props.find("coordinate");
            const SourceRef where =
                coord != props.end() && !coord->second.values.empty() ? coord->second.values[0] : f.where;
            error(where, "joint '" + f.name + "' (" + kind.name + ") has " + std::to_string(nf) + " free coordinate" +
                             (nf == 1 ? "" : "s") + (nf > 0 ? ", numbered from 0" : "") + "; there is no coordinate " +
                             std::to_string(c.coordinate));
          }
        } else {
          model_.actuators[f.index].joint = j;
          if (nf == 0) error(f.where, "joint '" + f.name + "' (" + kind.name + ") has no free coordinates to actuate");
          else if (int(f.count) != 1 && int(f.count) != nf)
            error(map_.actuators[f.index].properties["effort"].form,
                  "joint '" + f.name + "' (" + kind.name + ") has " + std::to_string(nf) + " free coordinates: (effort ...) takes 1 or " +
                      std::to_string(nf) + " numbers (got " + std::to_string(f.count) + ")");
        }
        break;
      }
    }
  }
}

// Top-level bodies joined to nothing fall freely: warn unless that is stated.
void Reader::warnUnconnected() {
  const std::set<std::string> looped(loopBodyRefs_.begin(), loopBodyRefs_.end());
  for (size_t b = 0; b < model_.bodies.size(); ++b) {
    const BodyExtra& ex = extra_[b];
    if (ex.enclosing >= 0 || ex.hasJoint || ex.intent || looped.count(model_.bodies[b].name)) continue;
    warning(ex.nameRef, "body '" + model_.bodies[b].name +
                            "' is not connected to the mechanism by any joint and will fall freely (add a (joint ...), "
                            "or give it an initial (position ...) or (velocity ...) if it is meant to be free)");
  }
}

// Applies (order (bodies …) (joints …)): renumbers bodies and joints and every index referring to them.
void Reader::applyOrder() {
  // Permutation newIndex → oldIndex from a list of names; false (reported) unless a permutation.
  auto permutation = [&](const OrderList& list, const NameTable& table, size_t count, const std::string& kind,
                         std::vector<int>& perm) {
    std::vector<bool> used(count, false);
    bool ok = true;
    for (const auto& [name, where] : list.names) {
      const int k = table.find(name);
      if (k < 0) {
        error(where, "unknown " + kind + " '" + name + "'" + suggestion(name, table.names()));
        ok = false;
      } else if (used[k]) {
        error(where, kind + " '" + name + "' is listed twice in (order ...)");
        ok = false;
      } else {
        used[k] = true;
        perm.push_back(k);
      }
    }
    for (size_t k = 0; k < count && ok; ++k)
      if (!used[k]) {
        error(list.form, "(order ...) must list every " + kind + "; '" + (kind == "body" ? model_.bodies[k].name : model_.joints[k].name) +
                             "' is missing");
        ok = false;
      }
    return ok;
  };
  // Bodies.
  std::vector<int> bp, jp;
  if (bodyOrder_.present && permutation(bodyOrder_, bodies_, model_.bodies.size(), "body", bp)) {
    std::vector<int> newIndex(bp.size());
    for (size_t k = 0; k < bp.size(); ++k) newIndex[bp[k]] = int(k);
    std::vector<BodyDesc> bodies;
    std::vector<ElementSource> sources;
    for (int old : bp) {
      bodies.push_back(std::move(model_.bodies[old]));
      sources.push_back(std::move(map_.bodies[old]));
    }
    model_.bodies = std::move(bodies);
    map_.bodies = std::move(sources);
    auto remap = [&](int& i) {
      if (i >= 0 && i < int(newIndex.size())) i = newIndex[i];
    };
    for (JointDesc& j : model_.joints) remap(j.parent), remap(j.child);
    for (SpringDesc& s : model_.springs) remap(s.bodyA), remap(s.bodyB);
    for (WrenchDesc& w : model_.wrenches) remap(w.body);
    for (ContactPairDesc& pr : model_.contactPairs) remap(pr.bodyA), remap(pr.bodyB);
    for (ExclusionDesc& e : model_.exclusions) remap(e.bodyA), remap(e.bodyB);
  }
  // Joints.
  if (jointOrder_.present && permutation(jointOrder_, joints_, model_.joints.size(), "joint", jp)) {
    std::vector<int> newIndex(jp.size());
    for (size_t k = 0; k < jp.size(); ++k) newIndex[jp[k]] = int(k);
    std::vector<JointDesc> joints;
    std::vector<ElementSource> sources;
    for (int old : jp) {
      joints.push_back(std::move(model_.joints[old]));
      sources.push_back(std::move(map_.joints[old]));
    }
    model_.joints = std::move(joints);
    map_.joints = std::move(sources);
    for (ControllerDesc& c : model_.controllers)
      if (c.joint >= 0 && c.joint < int(newIndex.size())) c.joint = newIndex[c.joint];
    for (ActuatorDesc& a : model_.actuators)
      if (a.joint >= 0 && a.joint < int(newIndex.size())) a.joint = newIndex[a.joint];
  }
}

// (order (bodies NAME*)? (joints NAME*)?): the index order of bodies and joints.
void Reader::readOrder(const Node& n) {
  if (orderNode_) {
    error(n.children[0], "duplicate (order ...)");
    return;
  }
  orderNode_ = &n;
  for (size_t i = 1; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || (c.head() != "bodies" && c.head() != "joints")) {
      error(c, "expected (bodies ...) or (joints ...) in (order ...), got " + sexpr::describeNode(c));
      continue;
    }
    OrderList& list = c.head() == "bodies" ? bodyOrder_ : jointOrder_;
    if (list.present) {
      error(c.children[0], "duplicate (" + c.head() + " ...) in (order ...)");
      continue;
    }
    list.present = true;
    list.form = ref(c);
    orderNames(c, 1, list);
  }
}

// Names of an (order (bodies …)) or (joints …) list from children[first] on; (repeat (i a b) …)
// inside the list expands to its names once per value.
void Reader::orderNames(const Node& list, size_t first, OrderList& out) {
  size_t k = first;
  while (k < list.children.size() && !stopped_) {
    const Node& c = list.children[k];
    if (c.isList() && c.head() == "repeat") {
      ++k;
      std::string var;
      long from = 0, to = 0;
      if (!readRange(c, var, from, to)) continue;
      const bool outermost = !expansionRoot_;
      if (outermost) expansionRoot_ = &c.children[1];
      for (long v = from; v <= to && !stopped_; ++v) {
        if (!charge(c, 2)) break;
        vars_.emplace_back(var, double(v));
        orderNames(c, 2, out);
        vars_.pop_back();
      }
      if (outermost) expansionRoot_ = nullptr;
      continue;
    }
    if (c.isList()) {
      error(c, "expected a name or (repeat (i FROM TO) names...), got " + sexpr::describeNode(c));
      ++k;
      continue;
    }
    std::string name;
    SourceRef where;
    if (readName(list, k, name, where, "names")) out.names.emplace_back(name, where);
  }
}

}  // namespace ms::mechread
