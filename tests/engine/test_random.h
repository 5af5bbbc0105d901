// SPDX-License-Identifier: GPL-3.0-or-later
// Seeded uniform random numbers for the engine tests: each test file keeps its own generator and
// seed, so its cases are the same on every run and independent of the other files.
#pragma once

#include <random>

#include "core/types.h"

namespace ms::test {

struct SeededRandom {
  explicit SeededRandom(unsigned seed) : rng(seed) {}
  // Uniform in [a, b).
  double uni(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); }
  // Uniform in the cube [−s, s)³.
  Vec3 randVec(double s) { return Vec3(uni(-s, s), uni(-s, s), uni(-s, s)); }
  std::mt19937 rng;
};

}  // namespace ms::test
