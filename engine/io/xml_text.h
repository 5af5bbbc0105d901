// SPDX-License-Identifier: GPL-3.0-or-later
// Text pieces shared by the XML writers (io/mjcf_writer.cc, io/urdf_writer.cc): numbers that read
// back as the same double, vectors of them, and escaped attribute values.
#pragma once

#include <string>

#include "core/types.h"

namespace ms::xml {

// The shortest text that reads back as the same double (std::to_chars); 0 for −0.
std::string number(double v);
// "x y z" of number().
std::string vector3(const Vec3& v);
// `s` with & < > " ' escaped, for an attribute value or text.
std::string escape(const std::string& s);

}  // namespace ms::xml
