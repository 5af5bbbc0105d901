// SPDX-License-Identifier: GPL-3.0-or-later
// Fixed-size Eigen aliases used throughout the engine.
#pragma once

#include <limits>

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace ms {

using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;  // quaternion stored as [w, x, y, z] (Appendix A.1)
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat3 = Eigen::Matrix3d;
using Mat4 = Eigen::Matrix4d;
using Mat34 = Eigen::Matrix<double, 3, 4>;
using Mat43 = Eigen::Matrix<double, 4, 3>;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using Mat36 = Eigen::Matrix<double, 3, 6>;
using Mat63 = Eigen::Matrix<double, 6, 3>;
using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace ms
