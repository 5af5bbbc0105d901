// SPDX-License-Identifier: GPL-3.0-or-later
// "Did you mean …?" for messages about unknown names (readers of .mech and .experiment files).
#pragma once

#include <string>
#include <vector>

namespace ms {

// Levenshtein distance, capped for long words (suggestions only matter for short names).
int editDistance(const std::string& a, const std::string& b);

// " (did you mean 'x'?)" for the closest candidate within a small edit distance, else "".
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace ms
