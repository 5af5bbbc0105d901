// SPDX-License-Identifier: GPL-3.0-or-later
// Structure edits of a .mech document (see mech_edit.h): each edit is a set of non-overlapping
// byte-span replacements of the text, applied from the end backwards and re-parsed once.
#include "io/mech_edit.h"

#include "core/check.h"
#include "core/quaternion.h"
#include "io/mech_writer.h"
#include "system/compiled_system.h"
#include "system/initial_conditions.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace ms {

namespace {

// One replacement of the bytes [begin, end).
struct Splice {
  size_t begin = 0, end = 0;
  std::string text;
};

MechEdit refuse(const sexpr::Document& doc, const std::string& why) {
  MechEdit e;
  e.error = why;
  e.doc = doc;
  return e;
}

// Applies the splices (non-overlapping) and re-parses.
MechEdit apply(const sexpr::Document& doc, std::vector<Splice> splices) {
  std::sort(splices.begin(), splices.end(), [](const Splice& a, const Splice& b) { return a.begin > b.begin; });
  std::string text = doc.text();
  for (const Splice& s : splices) text.replace(s.begin, s.end - s.begin, s.text);
  MechEdit e;
  Diagnostics diags;
  e.doc = sexpr::Document::parse(std::move(text), doc.fileName(), diags);
  e.ok = !diags.hasErrors();
  if (!e.ok) e.error = "the edit would leave the text unreadable: " + diags.format();
  return e;
}

// A name the reader accepts as a symbol (and that does not read as a number or a template).
bool validName(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')' || c == '"' || c == ';' || c == '{' ||
        c == '}')
      return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end != s.c_str() + s.size() && s != "world";
}

size_t lineStart(const std::string& t, size_t at) {
  while (at > 0 && t[at - 1] != '\n') --at;
  return at;
}

// Indentation (spaces) of the line holding `at`.
int indentOf(const std::string& t, size_t at) {
  size_t i = lineStart(t, at);
  int n = 0;
  while (i < t.size() && t[i] == ' ') ++i, ++n;
  return n;
}

// True when [from, to) of line-start-based text holds a ';' outside strings (a comment).
bool hasComment(const std::string& t, size_t from, size_t to) {
  bool inString = false;
  for (size_t i = from; i < to; ++i) {
    if (t[i] == '"' && (i == 0 || t[i - 1] != '\\')) inString = !inString;
    if (!inString && t[i] == ';') return true;
  }
  return false;
}

// Removal of a form: its whole line(s) when nothing else is on them. When only closing
// parentheses follow it on its line, the whitespace before it goes too, so that they close the
// previous line (unless that line ends in a comment, which would swallow them).
Splice removal(const std::string& t, const SourceRef& form) {
  size_t b = form.begin, e = form.end;
  const size_t ls = lineStart(t, b);
  size_t le = e;
  while (le < t.size() && (t[le] == ' ' || t[le] == '\t')) ++le;
  const bool aloneBefore = std::all_of(t.begin() + long(ls), t.begin() + long(b), [](char c) { return c == ' ' || c == '\t'; });
  if (aloneBefore && (le == t.size() || t[le] == '\n')) {
    b = ls;
    e = le < t.size() ? le + 1 : le;
  } else if (le < t.size() && t[le] == ')') {
    size_t p = b;
    while (p > 0 && std::isspace(static_cast<unsigned char>(t[p - 1]))) --p;
    if (p > 0 && !hasComment(t, lineStart(t, p - 1), p)) b = p;
  }
  return {b, e, ""};
}

// `form` (lines separated by '\n', first line unindented) inserted as the last item of the list
// ending at `listEnd` (one past its ')'), each line indented by `indent` spaces.
Splice insertion(const std::string& form, size_t listEnd, int indent) {
  std::string pad(size_t(indent), ' '), text = "\n" + pad;
  for (char c : form) {
    text += c;
    if (c == '\n') text += pad;
  }
  return {listEnd - 1, listEnd - 1, text};
}

// The text of a form re-indented by `delta` spaces on its continuation lines.
std::string reindent(const std::string& form, int delta) {
  std::string out;
  size_t i = 0;
  while (i < form.size()) {
    const char c = form[i++];
    out += c;
    if (c != '\n') continue;
    if (delta > 0) out.append(size_t(delta), ' ');
    for (int k = 0; delta < 0 && k < -delta && i < form.size() && form[i] == ' '; ++k) ++i;
  }
  return out;
}

bool contains(const SourceRef& outer, const SourceRef& inner) {
  return outer.valid() && inner.valid() && outer.begin <= inner.begin && inner.end <= outer.end;
}

// Where a new item of body `parent` (-1: the mechanism) goes, and its indentation.
bool listOf(const sexpr::Document& doc, const MechParseResult& p, int parent, size_t& end, int& indent) {
  const SourceRef& form = parent < 0 ? p.map.mechanism.form : p.map.bodies[size_t(parent)].form;
  if (!form.valid()) return false;
  end = form.end;
  indent = parent < 0 ? 2 : indentOf(doc.text(), form.begin) + 2;
  return true;
}

const std::string& nameOf(const sexpr::Document& doc, const SourceRef& r, std::string& buf) {
  buf = doc.text().substr(r.begin, r.end - r.begin);
  return buf;
}

// Name tokens in the (order …) form equal to `name`.
void orderTokens(const sexpr::Document& doc, const std::string& name, std::vector<SourceRef>& out) {
  for (const sexpr::Node& f : doc.root().children) {
    if (!f.isList() || f.head() != "mechanism") continue;
    for (const sexpr::Node& item : f.children)
      if (item.isList() && item.head() == "order")
        for (const sexpr::Node& list : item.children)
          for (const sexpr::Node& a : list.children)
            if (!a.isList() && a.text == name) {
              SourceRef r;
              r.begin = a.begin;
              r.end = a.end;
              out.push_back(r);
            }
  }
}

// Replaces every token in `refs` by `name` (after checking none is generated code).
MechEdit renameTokens(const sexpr::Document& doc, const std::vector<SourceRef>& refs, const std::string& name) {
  std::vector<Splice> s;
  for (const SourceRef& r : refs) s.push_back({r.begin, r.end, name});
  return apply(doc, s);
}

// The (body NAME …) entries of every keyframe for body `name` (absent ones skipped).
std::vector<const PropertySource*> keyframeEntries(const MechParseResult& p, const std::string& name) {
  std::vector<const PropertySource*> out;
  for (const ElementSource& k : p.map.keyframes) {
    const auto it = k.properties.find(name);
    if (it != k.properties.end() && it->second.form.valid() && !it->second.values.empty()) out.push_back(&it->second);
  }
  return out;
}

// Why a new body `name` cannot go into body `parent` (−1: the mechanism; in range), "" when it can.
std::string newBodyRefusal(const MechParseResult& p, int parent, const std::string& name) {
  const Model& m = p.model;
  if (parent >= 0 && p.map.bodies[size_t(parent)].generated)
    return "body '" + m.bodies[size_t(parent)].name + "' is made by repeat/chain: edit its template";
  if (!validName(name)) return "'" + name + "' is not a valid name";
  if (m.bodyIndex(name) >= 0) return "a body named '" + name + "' exists already";
  return "";
}

// Where addChildBody's joint puts the new body: its child anchor (parent anchor 0, coordinates 0).
const Vec3 kNewChildAnchor(0, 0, 0.5);

}  // namespace

MechEdit addChildBody(const sexpr::Document& doc, const MechParseResult& p, int parent, const std::string& name,
                      JointType joint) {
  const Model& m = p.model;
  if (parent < -1 || parent >= int(m.bodies.size())) return refuse(doc, "no such parent body");
  if (const std::string why = newBodyRefusal(p, parent, name); !why.empty()) return refuse(doc, why);
  const std::string jointName = name + "-joint";
  if (m.jointIndex(jointName) >= 0) return refuse(doc, "a joint named '" + jointName + "' exists already");
  size_t end = 0;
  int indent = 0;
  if (!listOf(doc, p, parent, end, indent)) return refuse(doc, "the parent's form is not in the text");
  // Every value the property panel may edit is written (absent properties are read-only there).
  const bool moves = jointKind(joint).freeCoordinates() > 0;
  const std::string form = "(body " + name + "\n  (mass 1)\n  (shape box 0.1 0.1 0.1)\n  (joint " +
                           jointKind(joint).name + " " + jointName +
                           "\n    (axis 1 0 0)\n    (parent-anchor 0 0 0)\n    (child-anchor " +
                           sexpr::formatNumber(kNewChildAnchor.x()) + " " + sexpr::formatNumber(kNewChildAnchor.y()) + " " +
                           sexpr::formatNumber(kNewChildAnchor.z()) + ")" + (moves ? "\n    (position 0)" : "") + "))";
  std::vector<Splice> splices = {insertion(form, end, indent)};
  // Every keyframe gets the new body where its joint puts it at zero coordinates, moving rigidly with
  // its parent: x = x_p − Q(q_p)·p_b, q = q_p, ω = ω_p, v = v_p + ω_p × (x − x_p).
  for (size_t k = 0; k < m.keyframes.size(); ++k) {
    const KeyframeDesc& kf = m.keyframes[k];
    KeyframeBody b;
    b.body = name;
    if (parent >= 0) {
      const auto it = std::find_if(kf.bodies.begin(), kf.bodies.end(),
                                   [&](const KeyframeBody& e) { return e.body == m.bodies[size_t(parent)].name; });
      if (it == kf.bodies.end()) return refuse(doc, "keyframe '" + kf.name + "' has no state for the parent body");
      b.orientation = it->orientation;
      b.position = it->position - quat::rotate(it->orientation, kNewChildAnchor);
      b.angularVelocity = it->angularVelocity;
      b.velocity = it->velocity + it->angularVelocity.cross(b.position - it->position);
    } else {
      b.position = -kNewChildAnchor;
    }
    const SourceRef& kfForm = p.map.keyframes[k].form;
    splices.push_back(insertion(keyframeBodyText(b), kfForm.end, indentOf(doc.text(), kfForm.begin) + 2));
  }
  return apply(doc, splices);
}

MechEdit addLoopJoint(const sexpr::Document& doc, const MechParseResult& p, const std::string& name, JointType joint,
                      int bodyA, int bodyB) {
  const Model& m = p.model;
  const int nb = int(m.bodies.size());
  if (bodyA < -1 || bodyA >= nb || bodyB < 0 || bodyB >= nb || bodyA == bodyB)
    return refuse(doc, "a loop joint needs two different bodies (the first may be the world)");
  if (!validName(name)) return refuse(doc, "'" + name + "' is not a valid name");
  if (m.jointIndex(name) >= 0) return refuse(doc, "a joint named '" + name + "' exists already");
  size_t end = 0;
  int indent = 0;
  if (!listOf(doc, p, -1, end, indent)) return refuse(doc, "the mechanism's form is not in the text");
  const std::string a = bodyA < 0 ? std::string("world") : m.bodies[size_t(bodyA)].name;
  const std::string form = "(loop-joint " + name + " " + jointKind(joint).name + " " + a + " " +
                           m.bodies[size_t(bodyB)].name + " (axis 1 0 0))";
  return apply(doc, {insertion(form, end, indent)});
}

MechEdit deleteBody(const sexpr::Document& doc, const MechParseResult& p, int body) {
  const Model& m = p.model;
  const SourceMap& map = p.map;
  if (body < 0 || body >= int(m.bodies.size())) return refuse(doc, "no such body");
  const ElementSource& target = map.bodies[size_t(body)];
  if (target.generated) return refuse(doc, "body '" + m.bodies[size_t(body)].name + "' is made by repeat/chain");
  const SourceRef span = target.form;
  if (!span.valid()) return refuse(doc, "the body's form is not in the text");
  // Bodies and joints that go: those written inside the body's form, and joints on a deleted body.
  std::vector<char> goneBody(m.bodies.size(), 0), goneJoint(m.joints.size(), 0);
  for (size_t b = 0; b < m.bodies.size(); ++b) goneBody[b] = contains(span, map.bodies[b].form);
  for (size_t j = 0; j < m.joints.size(); ++j) {
    const JointDesc& jd = m.joints[j];
    goneJoint[j] = contains(span, map.joints[j].form) || goneBody[size_t(jd.child)] ||
                   (jd.parent >= 0 && goneBody[size_t(jd.parent)]);
  }
  // Forms outside the body that refer to what goes.
  std::vector<SourceRef> forms = {span};
  auto add = [&](const ElementSource& e) {
    if (!contains(span, e.form)) forms.push_back(e.form);
  };
  for (size_t j = 0; j < m.joints.size(); ++j)
    if (goneJoint[j]) add(map.joints[j]);
  for (size_t k = 0; k < m.springs.size(); ++k)
    if ((m.springs[k].bodyA >= 0 && goneBody[size_t(m.springs[k].bodyA)]) ||
        (m.springs[k].bodyB >= 0 && goneBody[size_t(m.springs[k].bodyB)]))
      add(map.springs[k]);
  for (size_t k = 0; k < m.contactPairs.size(); ++k)
    if (goneBody[size_t(m.contactPairs[k].bodyA)] || goneBody[size_t(m.contactPairs[k].bodyB)]) add(map.contactPairs[k]);
  for (size_t k = 0; k < m.exclusions.size() && k < map.exclusions.size(); ++k)
    if (goneBody[size_t(m.exclusions[k].bodyA)] || goneBody[size_t(m.exclusions[k].bodyB)]) add(map.exclusions[k]);
  for (size_t k = 0; k < m.wrenches.size(); ++k)
    if (goneBody[size_t(m.wrenches[k].body)]) add(map.wrenches[k]);
  // A tendon with a term on a joint that goes goes too, and so do the actuators on it.
  std::vector<char> goneTendon(m.tendons.size(), 0);
  for (size_t k = 0; k < m.tendons.size() && k < map.tendons.size(); ++k)
    for (const TendonTerm& term : m.tendons[k].terms)
      if (term.joint >= 0 && size_t(term.joint) < goneJoint.size() && goneJoint[size_t(term.joint)]) goneTendon[k] = 1;
  for (size_t k = 0; k < goneTendon.size(); ++k)
    if (goneTendon[k]) add(map.tendons[k]);
  for (size_t k = 0; k < m.actuators.size(); ++k)
    if (m.actuators[k].tendon >= 0 ? bool(goneTendon[size_t(m.actuators[k].tendon)]) : bool(goneJoint[size_t(m.actuators[k].joint)]))
      add(map.actuators[k]);
  for (size_t k = 0; k < m.controllers.size(); ++k)
    if (goneJoint[size_t(m.controllers[k].joint)]) add(map.controllers[k]);
  // A coupling of a joint that goes goes too.
  for (size_t k = 0; k < m.couplings.size() && k < map.couplings.size(); ++k)
    for (int j : {m.couplings[k].joint, m.couplings[k].reference})
      if (j >= 0 && size_t(j) < goneJoint.size() && goneJoint[size_t(j)]) {
        add(map.couplings[k]);
        break;
      }
  for (size_t b = 0; b < m.bodies.size(); ++b)
    if (goneBody[b]) {
      orderTokens(doc, m.bodies[b].name, forms);
      for (const PropertySource* e : keyframeEntries(p, m.bodies[b].name)) forms.push_back(e->form);
    }
  for (size_t j = 0; j < m.joints.size(); ++j)
    if (goneJoint[j] && !m.joints[j].name.empty()) orderTokens(doc, m.joints[j].name, forms);
  // One removal per distinct span (a form may be listed twice), none generated.
  std::sort(forms.begin(), forms.end(), [](const SourceRef& a, const SourceRef& b) { return a.begin < b.begin; });
  forms.erase(std::unique(forms.begin(), forms.end(),
                          [](const SourceRef& a, const SourceRef& b) { return a.begin == b.begin && a.end == b.end; }),
              forms.end());
  std::vector<Splice> s;
  for (const SourceRef& f : forms) s.push_back(removal(doc.text(), f));
  // Removals that overlap (a form alone on its line takes its newline, the next one, last before a
  // ')', takes the space before it) are one removal.
  std::sort(s.begin(), s.end(), [](const Splice& a, const Splice& b) { return a.begin < b.begin; });
  std::vector<Splice> merged;
  for (const Splice& r : s)
    if (!merged.empty() && r.begin <= merged.back().end) merged.back().end = std::max(merged.back().end, r.end);
    else merged.push_back(r);
  return apply(doc, merged);
}

MechEdit renameBody(const sexpr::Document& doc, const MechParseResult& p, int body, const std::string& name) {
  const Model& m = p.model;
  const SourceMap& map = p.map;
  if (body < 0 || body >= int(m.bodies.size())) return refuse(doc, "no such body");
  if (map.bodies[size_t(body)].generated) return refuse(doc, "the body is made by repeat/chain: rename its template");
  if (!validName(name)) return refuse(doc, "'" + name + "' is not a valid name");
  if (m.bodyIndex(name) >= 0) return refuse(doc, "a body named '" + name + "' exists already");
  std::string buf;
  const std::string& old = m.bodies[size_t(body)].name;
  std::vector<SourceRef> refs = {map.bodies[size_t(body)].name};
  // References by name: every body slot of loop joints, springs, contact pairs and wrenches.
  auto ref = [&](const ElementSource& e, const char* key) {
    const auto it = e.properties.find(key);
    if (it != e.properties.end() && it->second.form.valid() && nameOf(doc, it->second.form, buf) == old)
      refs.push_back(it->second.form);
  };
  for (const ElementSource& e : map.joints) ref(e, "parent"), ref(e, "child");
  for (const ElementSource& e : map.springs) ref(e, "body-a"), ref(e, "body-b");
  for (const ElementSource& e : map.contactPairs) ref(e, "body-a"), ref(e, "body-b");
  for (const ElementSource& e : map.exclusions) ref(e, "body-a"), ref(e, "body-b");
  for (const ElementSource& e : map.wrenches) ref(e, "body");
  for (const PropertySource* e : keyframeEntries(p, old)) refs.push_back(e->values[0]);
  orderTokens(doc, old, refs);
  return renameTokens(doc, refs, name);
}

MechEdit renameJoint(const sexpr::Document& doc, const MechParseResult& p, int joint, const std::string& name) {
  const Model& m = p.model;
  const SourceMap& map = p.map;
  if (joint < 0 || joint >= int(m.joints.size())) return refuse(doc, "no such joint");
  const ElementSource& e = map.joints[size_t(joint)];
  if (e.generated) return refuse(doc, "the joint is made by repeat/chain: rename its template");
  if (!e.name.valid()) return refuse(doc, "the joint has no name in the text");
  if (!validName(name)) return refuse(doc, "'" + name + "' is not a valid name");
  if (m.jointIndex(name) >= 0) return refuse(doc, "a joint named '" + name + "' exists already");
  std::string buf;
  const std::string& old = m.joints[size_t(joint)].name;
  std::vector<SourceRef> refs = {e.name};
  // References by name: actuators, PD controllers, tendon terms and couplings.
  for (const std::vector<ElementSource>* list : {&map.actuators, &map.controllers})
    for (const ElementSource& r : *list) {
      const auto it = r.properties.find("joint");
      if (it != r.properties.end() && it->second.form.valid() && nameOf(doc, it->second.form, buf) == old)
        refs.push_back(it->second.form);
    }
  for (const ElementSource& r : map.tendons)
    if (const auto it = r.properties.find("joint"); it != r.properties.end())
      for (const SourceRef& v : it->second.values)
        if (v.valid() && nameOf(doc, v, buf) == old) refs.push_back(v);
  for (const ElementSource& r : map.couplings)
    for (const char* key : {"joint", "follows"})
      if (const auto it = r.properties.find(key); it != r.properties.end())
        for (const SourceRef& v : it->second.values)
          if (v.valid() && nameOf(doc, v, buf) == old) refs.push_back(v);
  orderTokens(doc, old, refs);
  return renameTokens(doc, refs, name);
}

MechEdit duplicateBody(const sexpr::Document& doc, const MechParseResult& p, int body) {
  const Model& m = p.model;
  const SourceMap& map = p.map;
  if (body < 0 || body >= int(m.bodies.size())) return refuse(doc, "no such body");
  if (map.bodies[size_t(body)].generated) return refuse(doc, "bodies made by repeat/chain cannot be duplicated");
  const SourceRef span = map.bodies[size_t(body)].form;
  if (!span.valid()) return refuse(doc, "the body's form is not in the text");
  // The names written inside the form (bodies, joints) and the first suffix free for all of them.
  struct Named {
    SourceRef token;
    std::string name;
    bool body;
  };
  std::vector<Named> names;
  for (size_t b = 0; b < m.bodies.size(); ++b)
    if (contains(span, map.bodies[b].form) && map.bodies[b].name.valid())
      names.push_back({map.bodies[b].name, m.bodies[b].name, true});
  for (size_t j = 0; j < m.joints.size(); ++j)
    if (contains(span, map.joints[j].form) && map.joints[j].name.valid())
      names.push_back({map.joints[j].name, m.joints[j].name, false});
  std::string suffix;
  for (int k = 1;; ++k) {
    suffix = k == 1 ? "-copy" : "-copy" + std::to_string(k);
    const bool free = std::all_of(names.begin(), names.end(), [&](const Named& n) {
      return (n.body ? m.bodyIndex(n.name + suffix) : m.jointIndex(n.name + suffix)) < 0;
    });
    if (free) break;
  }
  // The copy with its names renamed (from the end, so that offsets stay valid).
  std::sort(names.begin(), names.end(), [](const Named& a, const Named& b) { return a.token.begin > b.token.begin; });
  const std::string& t = doc.text();
  std::string copy = t.substr(span.begin, span.end - span.begin);
  for (const Named& n : names) copy.insert(n.token.end - span.begin, suffix);
  // Right after the original, on its own line at the same indentation.
  std::vector<Splice> splices = {{span.end, span.end, "\n" + std::string(size_t(indentOf(t, span.begin)), ' ') + copy}};
  // Every keyframe: the copies start where the originals are (same joints, same parents).
  for (const Named& n : names) {
    if (!n.body) continue;
    for (const PropertySource* e : keyframeEntries(p, n.name)) {
      std::string entry = t.substr(e->form.begin, e->form.end - e->form.begin);
      entry.insert(e->values[0].end - e->form.begin, suffix);
      splices.push_back({e->form.end, e->form.end, "\n" + std::string(size_t(indentOf(t, e->form.begin)), ' ') + entry});
    }
  }
  return apply(doc, splices);
}

MechEdit moveBody(const sexpr::Document& doc, const MechParseResult& p, int body, int parent) {
  const Model& m = p.model;
  const SourceMap& map = p.map;
  const int nb = int(m.bodies.size());
  if (body < 0 || body >= nb || parent < -1 || parent >= nb) return refuse(doc, "no such body");
  const SourceRef span = map.bodies[size_t(body)].form;
  if (map.bodies[size_t(body)].generated || (parent >= 0 && map.bodies[size_t(parent)].generated))
    return refuse(doc, "bodies made by repeat/chain cannot be moved");
  if (parent >= 0 && contains(span, map.bodies[size_t(parent)].form))
    return refuse(doc, "a body cannot move into itself or into a body nested in it");
  size_t end = 0;
  int indent = 0;
  if (!listOf(doc, p, parent, end, indent)) return refuse(doc, "the new parent's form is not in the text");
  const std::string& t = doc.text();
  // Continuation lines relative to the form's first line; insertion() indents them all.
  const std::string form = reindent(t.substr(span.begin, span.end - span.begin), -indentOf(t, span.begin));
  return apply(doc, {removal(t, span), insertion(form, end, indent)});
}

MechEdit setKeyframe(const sexpr::Document& doc, const MechParseResult& p, const KeyframeDesc& keyframe) {
  if (keyframe.name.empty()) return refuse(doc, "a keyframe needs a name");
  const std::string& t = doc.text();
  for (size_t k = 0; k < p.model.keyframes.size(); ++k) {
    if (p.model.keyframes[k].name != keyframe.name) continue;
    const SourceRef& form = p.map.keyframes[k].form;
    if (!form.valid()) return refuse(doc, "the keyframe's form is not in the text");
    // In place, continuation lines indented like the form it replaces.
    return apply(doc, {{form.begin, form.end, reindent(keyframeText(keyframe), indentOf(t, form.begin))}});
  }
  size_t end = 0;
  int indent = 0;
  if (!listOf(doc, p, -1, end, indent)) return refuse(doc, "the mechanism's form is not in the text");
  return apply(doc, {insertion(keyframeText(keyframe), end, indent)});
}

namespace {

// Writes (KEYWORD v1 v2 …) into element `src` (`what`: "joint 'x'", for messages): in place of its
// (KEYWORD …) form, else as a new item right after its name (or as its last item when it has
// none). A form whose values are not all plain numbers is refused (the edit would replace an
// expression or a parameter; the message quotes it).
MechEdit setValues(const sexpr::Document& doc, const ElementSource& src, const std::string& what,
                   const std::string& keyword, const std::vector<double>& values) {
  if (src.generated) return refuse(doc, what + " is made by repeat/chain: edit its template");
  if (!src.form.valid()) return refuse(doc, what + " has no text to edit");
  const std::string& t = doc.text();
  std::string form = "(" + keyword;
  for (double v : values) form += " " + sexpr::formatNumber(v);
  form += ")";
  const auto it = src.properties.find(keyword);
  if (it != src.properties.end() && it->second.form.valid()) {
    for (const SourceRef& v : it->second.values)
      if (!v.literal)
        return refuse(doc, what + "'s " + keyword + " is written as " + t.substr(it->second.form.begin, it->second.form.end - it->second.form.begin) +
                               " (an expression or a parameter): write it as numbers to change it from the view");
    return apply(doc, {{it->second.form.begin, it->second.form.end, form}});
  }
  const int indent = indentOf(t, src.form.begin) + 2;
  if (src.name.valid()) return apply(doc, {{src.name.end, src.name.end, "\n" + std::string(size_t(indent), ' ') + form}});
  return apply(doc, {insertion(form, src.form.end, indent)});
}

}  // namespace

MechEdit setBodyValues(const sexpr::Document& doc, const MechParseResult& parse, int body, const std::string& keyword,
                       const std::vector<double>& values) {
  if (body < 0 || size_t(body) >= parse.map.bodies.size()) return refuse(doc, "no such body");
  return setValues(doc, parse.map.bodies[size_t(body)], "body '" + parse.model.bodies[size_t(body)].name + "'", keyword, values);
}

MechEdit setJointValues(const sexpr::Document& doc, const MechParseResult& parse, int joint, const std::string& keyword,
                        const std::vector<double>& values) {
  if (joint < 0 || size_t(joint) >= parse.map.joints.size()) return refuse(doc, "no such joint");
  return setValues(doc, parse.map.joints[size_t(joint)], "joint '" + parse.model.joints[size_t(joint)].name + "'", keyword, values);
}

MechEdit setShapeValues(const sexpr::Document& doc, const MechParseResult& parse, int body, int shape, const std::string& keyword,
                        const std::vector<double>& values) {
  if (body < 0 || size_t(body) >= parse.map.bodies.size()) return refuse(doc, "no such body");
  // The body's distinct shape forms, drawn ones first.
  const ElementSource& b = parse.map.bodies[size_t(body)];
  std::vector<const ElementSource*> forms;
  for (const std::vector<ElementSource>* list : {&b.visuals, &b.collisions})
    for (const ElementSource& s : *list)
      if (std::none_of(forms.begin(), forms.end(), [&](const ElementSource* f) { return f->form.begin == s.form.begin; }))
        forms.push_back(&s);
  if (shape < 0 || size_t(shape) >= forms.size()) return refuse(doc, "no such shape");
  const ElementSource& src = *forms[size_t(shape)];
  const std::string what = "shape " + std::to_string(shape + 1) + " of body '" + parse.model.bodies[size_t(body)].name + "'";
  if (src.generated) return refuse(doc, what + " is made by repeat/chain: edit its template");
  if (!src.form.valid()) return refuse(doc, what + " has no text to edit");
  if (src.properties.count(keyword)) return setValues(doc, src, what, keyword, values);
  std::string form = " (" + keyword;
  for (double v : values) form += " " + sexpr::formatNumber(v);
  return apply(doc, {{src.form.end - 1, src.form.end - 1, form + ")"}});
}

MechEdit setJointCoordinates(const sexpr::Document& doc, const MechParseResult& parse, int joint,
                             const std::vector<double>* position, const std::vector<double>* velocity) {
  if (joint < 0 || size_t(joint) >= parse.map.joints.size()) return refuse(doc, "no such joint");
  const ElementSource& src = parse.map.joints[size_t(joint)];
  const std::string& name = parse.model.joints[size_t(joint)].name;
  if (src.generated) return refuse(doc, "joint '" + name + "' is made by repeat/chain: edit its template");
  if (!src.form.valid()) return refuse(doc, "joint '" + name + "' has no text to edit");
  const std::string& t = doc.text();
  std::vector<Splice> splices;
  const auto put = [&](const char* keyword, const std::vector<double>* values) {
    if (!values) return;
    std::string form = std::string("(") + keyword;
    for (double v : *values) form += " " + sexpr::formatNumber(v);
    form += ")";
    const auto it = src.properties.find(keyword);
    if (it != src.properties.end() && it->second.form.valid())
      splices.push_back({it->second.form.begin, it->second.form.end, form});
    else
      splices.push_back(insertion(form, src.form.end, indentOf(t, src.form.begin) + 2));
  };
  put("position", position);
  put("velocity", velocity);
  // Two insertions at the same place (neither form there yet): one splice, position first.
  if (splices.size() == 2 && splices[0].begin == splices[1].begin && splices[0].end == splices[1].end) {
    splices[0].text += splices[1].text;
    splices.pop_back();
  }
  return apply(doc, splices);
}

// ---- building in the 3D view: add a body, connect two -------------------------------------------

namespace {

using Poses = std::vector<BodyState, Eigen::aligned_allocator<BodyState>>;

// The initial poses of the parsed model (throws UserError when it does not compile).
Poses initialPoses(const Model& model) {
  const auto sys = compile(model);
  return makeInitialState(*sys, sys->model).bodies;
}

// How far `shape` (at the body's origin, unturned) reaches along −n (unit, its frame): how far out
// along n its origin goes for it to rest on a surface of normal n. Half its extent for the symmetric
// shapes; a mesh's farthest vertex (meshVertices, scaled).
double halfExtent(const ShapeDesc& shape, const Vec3& n) {
  const Vec3 a = n.cwiseAbs();
  switch (shape.kind) {
    case ShapeDesc::Kind::Mesh: {
      double reach = 0;
      for (const Vec3& v : shape.meshVertices) reach = std::max(reach, -v.dot(n));
      return reach;
    }
    case ShapeDesc::Kind::Box: return 0.5 * a.dot(shape.size);
    case ShapeDesc::Kind::Sphere: return shape.size.x();
    case ShapeDesc::Kind::Capsule: return shape.size.x() + 0.5 * shape.size.y() * a.z();
    case ShapeDesc::Kind::Cylinder: return 0.5 * shape.size.y() * a.z() + shape.size.x() * std::sqrt(std::max(0.0, 1 - a.z() * a.z()));
    default: return 0;
  }
}

std::string shapeText(const ShapeDesc& shape) {
  switch (shape.kind) {
    case ShapeDesc::Kind::Box:
      return "(shape box " + sexpr::formatNumber(shape.size.x()) + " " + sexpr::formatNumber(shape.size.y()) + " " +
             sexpr::formatNumber(shape.size.z()) + ")";
    case ShapeDesc::Kind::Sphere: return "(shape sphere " + sexpr::formatNumber(shape.size.x()) + ")";
    case ShapeDesc::Kind::Capsule:
      return "(shape capsule " + sexpr::formatNumber(shape.size.x()) + " " + sexpr::formatNumber(shape.size.y()) + ")";
    case ShapeDesc::Kind::Cylinder:
      return "(shape cylinder " + sexpr::formatNumber(shape.size.x()) + " " + sexpr::formatNumber(shape.size.y()) + ")";
    case ShapeDesc::Kind::Mesh: {
      if (shape.meshFile.empty()) return "";
      std::string text = "(shape mesh " + sexpr::quote(shape.meshFile);
      if (shape.meshScale != Vec3::Ones())
        text += " (scale " + sexpr::formatNumber(shape.meshScale.x()) + " " + sexpr::formatNumber(shape.meshScale.y()) + " " +
                sexpr::formatNumber(shape.meshScale.z()) + ")";
      return text + ")";
    }
    default: return "";
  }
}

std::string vec3Text(const char* keyword, const Vec3& v) {
  return std::string("(") + keyword + " " + sexpr::formatNumber(tidyNumber(v.x())) + " " + sexpr::formatNumber(tidyNumber(v.y())) +
         " " + sexpr::formatNumber(tidyNumber(v.z())) + ")";
}

// A point (world) in the frame of body b (-1: the world).
Vec3 inFrame(const Poses& poses, int b, const Vec3& world) {
  if (b < 0) return world;
  return quat::rotate(quat::conj(poses[size_t(b)].q), world - poses[size_t(b)].x);
}
Vec3 directionInFrame(const Poses& poses, int b, const Vec3& world) {
  return b < 0 ? world : quat::rotate(quat::conj(poses[size_t(b)].q), world);
}

// The body at `b`'s position in each keyframe, moving rigidly with body `with` (-1: at rest where
// `pose` is): a keyframe entry per keyframe, to append to their forms.
bool keyframeSplices(const sexpr::Document& doc, const MechParseResult& p, const Poses& poses,
                     const std::string& name, const BodyState& pose, int with, std::vector<Splice>& out, std::string& why) {
  const Model& m = p.model;
  for (size_t k = 0; k < m.keyframes.size(); ++k) {
    const KeyframeDesc& kf = m.keyframes[k];
    KeyframeBody b;
    b.body = name;
    b.position = pose.x;
    b.orientation = pose.q;
    if (with >= 0) {
      const auto it = std::find_if(kf.bodies.begin(), kf.bodies.end(),
                                   [&](const KeyframeBody& e) { return e.body == m.bodies[size_t(with)].name; });
      if (it == kf.bodies.end()) {
        why = "keyframe '" + kf.name + "' has no state for body '" + m.bodies[size_t(with)].name + "'";
        return false;
      }
      // The same pose relative to `with` as at the initial state.
      const BodyState& w = poses[size_t(with)];
      const Vec4 rel = quat::mul(quat::conj(w.q), pose.q);
      b.position = it->position + quat::rotate(it->orientation, inFrame(poses, with, pose.x));
      b.orientation = quat::mul(it->orientation, rel);
      b.angularVelocity = it->angularVelocity;
      b.velocity = it->velocity + it->angularVelocity.cross(b.position - it->position);
    }
    const SourceRef& kfForm = p.map.keyframes[k].form;
    out.push_back(insertion(keyframeBodyText(b), kfForm.end, indentOf(doc.text(), kfForm.begin) + 2));
  }
  return true;
}

}  // namespace

double tidyNumber(double v) {
  if (!std::isfinite(v)) return v;
  // Below 1e-12 of a metre or radian: zero (a point picked on a face at 1e-13 from it; no "-0").
  if (std::abs(v) < 1e-12) return 0.0;
  const double scale = std::pow(10.0, 11 - std::floor(std::log10(std::abs(v))));
  return std::round(v * scale) / scale;
}

std::string freeBodyName(const Model& model, const std::string& stem) {
  for (int i = 1;; ++i) {
    const std::string name = stem + std::to_string(i);
    if (model.bodyIndex(name) < 0 && model.jointIndex(name + "-joint") < 0 && model.jointIndex(name) < 0) return name;
  }
}

MechEdit addBodyAt(const sexpr::Document& doc, const MechParseResult& p, const std::string& name, const ShapeDesc& shape,
                   int parent, std::optional<JointType> joint, const Vec3& point, const Vec3& normal) {
  const Model& m = p.model;
  if (parent < -1 || parent >= int(m.bodies.size())) return refuse(doc, "no such body");
  if (const std::string why = newBodyRefusal(p, joint ? parent : -1, name); !why.empty()) return refuse(doc, why);
  const std::string shapeForm = shapeText(shape);
  if (shapeForm.empty() || !(shape.kind == ShapeDesc::Kind::Mesh ? !shape.meshVertices.empty() : shape.size.x() > 0))
    return refuse(doc, "a new body needs a box, sphere, capsule, cylinder or mesh (with its vertices)");
  if (!(normal.norm() > 0) || !point.allFinite()) return refuse(doc, "no point to put the body at");
  Poses poses;
  try {
    poses = initialPoses(m);
  } catch (const UserError& e) {
    return refuse(doc, e.what());
  }
  const Vec3 n = normal.normalized();
  // A free body goes at the top level; a jointed one into its parent's form.
  size_t end = 0;
  int indent = 0;
  if (!listOf(doc, p, joint ? parent : -1, end, indent)) return refuse(doc, "the parent's form is not in the text");
  std::vector<Splice> splices;
  std::string why;
  BodyState pose;
  std::string form = "(body " + name + "\n  (mass 1)\n  " + shapeForm;
  if (!joint) {
    // A free body resting on the point: its centre half its extent out along the normal; a model
    // without a ground gets the plane z = 0 it was put on (else the body would fall through it).
    pose.x = point + halfExtent(shape, n) * n;
    form += "\n  " + vec3Text("position", pose.x) + ")";
    if (parent < 0 && m.grounds.empty() && std::abs(point.z()) <= 1e-12 && std::abs(n.z() - 1) <= 1e-12) form += "\n(ground ground)";
  } else {
    // Jointed to the parent at the point, the axis along the normal (in the parent's frame, which is
    // the joint's: no offset); the new body turned as its parent, just outside the surface.
    const Vec3 nParent = directionInFrame(poses, parent, n);
    if (parent >= 0) pose.q = poses[size_t(parent)].q;
    pose.x = point + halfExtent(shape, nParent) * n;
    const std::string jointName = name + "-joint";
    if (m.jointIndex(jointName) >= 0) return refuse(doc, "a joint named '" + jointName + "' exists already");
    const bool moves = jointKind(*joint).freeCoordinates() > 0;
    form += "\n  (joint " + std::string(jointKind(*joint).name) + " " + jointName +
            (*joint == JointType::Fixed ? std::string() : "\n    " + vec3Text("axis", nParent)) + "\n    " +
            vec3Text("parent-anchor", inFrame(poses, parent, point)) + "\n    " +
            vec3Text("child-anchor", -halfExtent(shape, nParent) * nParent) + (moves ? "\n    (position 0)" : "") + "))";
  }
  splices.push_back(insertion(form, end, indent));
  if (!keyframeSplices(doc, p, poses, name, pose, joint ? parent : -1, splices, why)) return refuse(doc, why);
  return apply(doc, splices);
}

MechEdit connectBodies(const sexpr::Document& doc, const MechParseResult& p, const std::string& name, JointType type,
                       int a, const Vec3& pointA, int b, const Vec3& pointB, const Vec3& axis) {
  const Model& m = p.model;
  const int nb = int(m.bodies.size());
  if (a < -1 || a >= nb || b < 0 || b >= nb) return refuse(doc, "no such body");
  if (a == b) return refuse(doc, "a body cannot be jointed to itself");
  if (!validName(name)) return refuse(doc, "'" + name + "' is not a valid name");
  if (m.jointIndex(name) >= 0) return refuse(doc, "a joint named '" + name + "' exists already");
  if (!(axis.norm() > 0)) return refuse(doc, "the joint needs an axis");
  Poses poses;
  try {
    poses = initialPoses(m);
  } catch (const UserError& e) {
    return refuse(doc, e.what());
  }
  // B's tree joint (nested in its form), and whether A lies inside B's form (B's subtree).
  const ElementSource& srcB = p.map.bodies[size_t(b)];
  bool bHasJoint = false;
  for (size_t k = 0; k < m.joints.size(); ++k)
    bHasJoint = bHasJoint || (m.joints[k].child == b && contains(srcB.form, p.map.joints[k].form));
  const bool aInsideB = a >= 0 && contains(srcB.form, p.map.bodies[size_t(a)].form);
  // B keeps its orientation q_A⁻¹ q_B relative to A: as the joint's angle when that is a turn about
  // the axis and the joint turns about it, else as the joint frame's offset (B at coordinate 0).
  const Vec4 qa = a >= 0 ? poses[size_t(a)].q : quat::identity();
  const Vec4 relative = quat::mul(quat::conj(qa), poses[size_t(b)].q);
  const Vec3 axisA = directionInFrame(poses, a, axis.normalized()), turn = quat::toRotationVector(relative);
  const JointKind& kind = jointKind(type);
  const bool aboutAxis = kind.freeRotational() == 1 && (turn - turn.dot(axisA) * axisA).norm() <= 1e-12;
  const bool offset = !aboutAxis && quat::toRotationVector(relative).norm() > 1e-12;
  const Vec3 axisJoint = offset ? directionInFrame(poses, b, axis.normalized()) : axisA;
  std::string items;
  if (type != JointType::Fixed) items += "\n  " + vec3Text("axis", axisJoint);
  if (offset)
    items += "\n  (offset " + sexpr::formatNumber(tidyNumber(relative(0))) + " " + sexpr::formatNumber(tidyNumber(relative(1))) + " " +
             sexpr::formatNumber(tidyNumber(relative(2))) + " " + sexpr::formatNumber(tidyNumber(relative(3))) + ")";
  items += "\n  " + vec3Text("parent-anchor", inFrame(poses, a, pointA)) + "\n  " + vec3Text("child-anchor", inFrame(poses, b, pointB));
  if (aboutAxis) {
    // The coordinates: the translations 0, the angle the turn about the axis.
    std::string position = "\n  (position";
    for (int i = 0; i < kind.freeCoordinates(); ++i)
      position += " " + sexpr::formatNumber(i == kind.freeTranslational() ? tidyNumber(turn.dot(axisA)) : 0.0);
    items += position + ")";
  } else if (kind.freeCoordinates() > 0) {
    items += "\n  (position 0)";
  }
  // B already hangs on a joint, or A is in its subtree: a loop joint (Assemble closes it).
  if (bHasJoint || aInsideB || srcB.generated || (a >= 0 && p.map.bodies[size_t(a)].generated)) {
    size_t end = 0;
    int indent = 0;
    if (!listOf(doc, p, -1, end, indent)) return refuse(doc, "the mechanism's form is not in the text");
    const std::string form = "(loop-joint " + name + " " + jointKind(type).name + " " +
                             (a < 0 ? std::string("world") : m.bodies[size_t(a)].name) + " " + m.bodies[size_t(b)].name + items + ")";
    return apply(doc, {insertion(form, end, indent)});
  }
  // B is free: its form moves into A's (stays at the top level for the world) with the joint in it.
  const std::string& t = doc.text();
  if (!srcB.name.valid()) return refuse(doc, "body '" + m.bodies[size_t(b)].name + "' has no name token to add a joint after");
  std::string formB = t.substr(srcB.form.begin, srcB.name.end - srcB.form.begin) + "\n  (joint " + jointKind(type).name + " " +
                      name + reindent(items, 2) + ")" + t.substr(srcB.name.end, srcB.form.end - srcB.name.end);
  formB = reindent(formB, -indentOf(t, srcB.form.begin));
  size_t end = 0;
  int indent = 0;
  if (!listOf(doc, p, a, end, indent)) return refuse(doc, "the parent's form is not in the text");
  return apply(doc, {removal(t, srcB.form), insertion(formB, end, indent)});
}

}  // namespace ms
