// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/suggest.h"

#include <algorithm>

namespace ms {

int editDistance(const std::string& a, const std::string& b) {
  if (a.size() > 64 || b.size() > 64) return 1000;
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = int(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = int(i);
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string suggestion(const std::string& word, const std::vector<std::string>& candidates) {
  int best = 1000;
  std::string pick;
  for (const std::string& c : candidates) {
    const int d = editDistance(word, c);
    if (d < best) {
      best = d;
      pick = c;
    }
  }
  const int allowed = std::max<int>(1, std::min<int>(3, int(word.size()) / 3));
  if (pick.empty() || best > allowed || best >= int(word.size())) return "";
  return " (did you mean '" + pick + "'?)";
}

}  // namespace ms
