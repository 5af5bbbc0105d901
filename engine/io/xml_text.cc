// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/xml_text.h"

#include <charconv>

namespace ms::xml {

std::string number(double v) {
  if (v == 0) v = 0.0;
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string vector3(const Vec3& v) { return number(v.x()) + " " + number(v.y()) + " " + number(v.z()); }

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace ms::xml
