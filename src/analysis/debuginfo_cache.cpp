#include "analysis/debuginfo_cache.h"

#include <unistd.h>

#include "provider/debuginfo_error.h"

namespace btaudit {

KernelDebugInfo* DebugInfoCache::for_report(const Report& r) {
  if (vmlinux_.empty()) return nullptr;
  std::string path = vmlinux_;
  if (path == "auto") {
    if (!r.kernel) return nullptr;
    path = find_by_release(*r.kernel);
    if (path.empty()) {
      note("no vmlinux for release " + *r.kernel + " under " + options_.debug_dir);
      return nullptr;
    }
  }
  auto it = open_.find(path);
  if (it == open_.end()) {
    std::unique_ptr<KernelDebugInfo> info;
    try {
      info = KernelDebugInfo::open(path, options_);
    } catch (const DebugInfoError& e) {
      note(e.what());
      failed_ = true;
    }
    it = open_.emplace(path, std::move(info)).first;
  }
  return it->second.get();
}

std::vector<std::string> DebugInfoCache::warnings() const {
  std::vector<std::string> all = notes_;
  for (const auto& [path, info] : open_)
    if (info)
      for (const auto& w : info->warnings()) all.push_back(w);
  return all;
}

std::string DebugInfoCache::find_by_release(const std::string& release) const {
  for (const std::string& candidate :
       {options_.debug_dir + "/boot/vmlinux-" + release, options_.debug_dir + "/lib/modules/" + release + "/vmlinux"}) {
    if (::access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return {};
}

void DebugInfoCache::note(const std::string& s) {
  for (const auto& n : notes_)
    if (n == s) return;
  notes_.push_back(s);
}

}  // namespace btaudit
