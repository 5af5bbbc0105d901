// SPDX-License-Identifier: GPL-3.0-or-later
// URDF import: package://NAME/PATH lookup in the package roots (UrdfImportOptions::packagePaths,
// then ROS_PACKAGE_PATH), by the rule written in urdf_import.h.
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "io/urdf_internal.h"

namespace fs = std::filesystem;

namespace ms::urdf_detail {

namespace {

// True when `p` names a regular file (following symbolic links); errors count as no.
bool isRegularFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// Splits package://NAME/PATH; false when the prefix, NAME or PATH is missing (NAME is set when known).
bool splitPackageUri(const std::string& uri, std::string& name, std::string& rest) {
  const std::string prefix = "package://";
  if (uri.compare(0, prefix.size(), prefix) != 0) return false;
  const size_t slash = uri.find('/', prefix.size());
  name = uri.substr(prefix.size(), slash == std::string::npos ? std::string::npos : slash - prefix.size());
  rest = slash == std::string::npos ? std::string() : uri.substr(slash + 1);
  // A PATH is relative to the package ("package://p//x" is p/x, never /x).
  rest.erase(0, rest.find_first_not_of('/') == std::string::npos ? rest.size() : rest.find_first_not_of('/'));
  return !name.empty() && !rest.empty();
}

}  // namespace

// The first candidate file of the rule that exists, with every candidate tried.
PackageLookup PackageFinder::resolve(const std::string& uri) {
  PackageLookup out;
  out.wellFormed = splitPackageUri(uri, out.package, out.relative);
  if (!out.wellFormed) return out;
  // Checks one candidate; true when it is the file.
  auto tryFile = [&](const fs::path& candidate) {
    out.tried.push_back(candidate.lexically_normal().string());
    if (!isRegularFile(candidate)) return false;
    out.path = out.tried.back();
    return true;
  };
  // A directory that is the package, for the message when its file is missing.
  auto noteDir = [&](const fs::path& dir) {
    const std::string d = dir.lexically_normal().string();
    auto& dirs = out.packageDirs;
    if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  };
  for (const std::string& r : roots_) {
    const fs::path root(r);
    std::error_code ec;
    // 1. R/NAME/PATH.
    if (fs::is_directory(root / out.package, ec)) noteDir(root / out.package);
    if (tryFile(root / out.package / out.relative)) return out;
    // 2. R is the package.
    if (root.filename() == out.package && isRegularFile(root / "package.xml")) {
      noteDir(root);
      if (tryFile(root / out.relative)) return out;
    }
    // 3. Packages named NAME below R (R/NAME was tried in 1).
    for (const std::string& dir : packagesBelow(r, out.package)) {
      if (fs::path(dir) == (root / out.package).lexically_normal()) continue;
      noteDir(dir);
      if (tryFile(fs::path(dir) / out.relative)) return out;
    }
  }
  return out;
}

// Directories named `name` holding a package.xml below `root`, breadth first (bounded; see the
// rule in urdf_import.h), remembered per root and name.
const std::vector<std::string>& PackageFinder::packagesBelow(const std::string& root, const std::string& name) {
  const auto key = std::make_pair(root, name);
  if (auto it = found_.find(key); it != found_.end()) return it->second;
  std::vector<std::string>& dirs = found_[key];
  std::set<std::string> visited;  // canonical paths (links may lead back)
  std::vector<std::pair<fs::path, int>> queue = {{fs::path(root), 0}};
  std::error_code ec;
  visited.insert(fs::weakly_canonical(root, ec).string());
  int directories = 0;
  for (size_t head = 0; head < queue.size() && directories < kPackageSearchDirectories; ++head) {
    const auto [dir, depth] = queue[head];
    ++directories;
    // The subdirectories, by name (not hidden ones).
    std::vector<fs::path> subdirs;
    fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
      const std::string leaf = it->path().filename().string();
      std::error_code e2;
      if (!leaf.empty() && leaf[0] != '.' && fs::is_directory(it->path(), e2)) subdirs.push_back(it->path());
    }
    ec.clear();
    std::sort(subdirs.begin(), subdirs.end());
    // A package is a match or a leaf; other directories are searched further down.
    for (const fs::path& sub : subdirs) {
      std::error_code e3;
      if (!visited.insert(fs::weakly_canonical(sub, e3).string()).second) continue;
      if (isRegularFile(sub / "package.xml")) {
        if (sub.filename() == name) dirs.push_back(sub.lexically_normal().string());
      } else if (depth + 1 < kPackageSearchDepth) {
        queue.emplace_back(sub, depth + 1);
      }
    }
  }
  return dirs;
}

}  // namespace ms::urdf_detail

namespace ms {

using urdf_detail::PackageFinder;

std::vector<std::string> urdfPackageRoots(const UrdfImportOptions& options) {
  std::vector<std::string> roots;
  // One root: absolute, normalised, without a trailing separator, each once.
  auto add = [&](const std::string& r) {
    if (r.empty()) return;
    std::error_code ec;
    fs::path p = fs::absolute(fs::path(r), ec);
    if (ec) p = fs::path(r);
    std::string s = p.lexically_normal().string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    if (std::find(roots.begin(), roots.end(), s) == roots.end()) roots.push_back(s);
  };
  for (const std::string& r : options.packagePaths) add(r);
  // ROS_PACKAGE_PATH: colon-separated, after the explicit roots.
  if (options.useRosPackagePath)
    if (const char* env = std::getenv("ROS_PACKAGE_PATH")) {
      std::istringstream in(env);
      for (std::string r; std::getline(in, r, ':');) add(r);
    }
  return roots;
}

PackageLookup resolvePackageUri(const std::string& uri, const std::vector<std::string>& roots) {
  PackageFinder finder(roots);
  return finder.resolve(uri);
}

}  // namespace ms
