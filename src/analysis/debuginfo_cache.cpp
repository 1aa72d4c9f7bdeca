#include "analysis/debuginfo_cache.h"

#include <unistd.h>

#include "debuginfo/build_id_source.h"
#include "debuginfo/kernel_build_id.h"
#include "provider/debuginfo_error.h"

namespace btaudit {

KernelDebugInfo* DebugInfoCache::for_report(const Report& r) {
  if (vmlinux_.empty()) return nullptr;
  std::string path = vmlinux_;
  if (path == "auto") {
    if (!r.kernel && !r.kernel_build_id) return nullptr;
    if (r.kernel) path = find_by_release(*r.kernel);
    if (path.empty() && options_.server) path = fetch_vmlinux(r);
    if (path.empty()) {
      if (!options_.server) note("no vmlinux for release " + r.kernel.value_or("?") + " under " + options_.debug_dir);
      return nullptr;
    }
  }
  auto it = open_.find(path);
  if (it == open_.end()) {
    std::unique_ptr<KernelDebugInfo> info;
    try {
      info = KernelDebugInfo::open(path, options_for(r));
    } catch (const DebugInfoError& e) {
      note(e.what());
      failed_ = true;
    }
    it = open_.emplace(path, std::move(info)).first;
  }
  if (it->second)
    for (const Frame& f : r.frames)
      if (f.module && f.build_id) it->second->note_module_build_id(*f.module, *f.build_id);
  return it->second.get();
}

// The module trees of the report's release under the kernel root join the given ones:
// their stripped modules carry the build ids the server knows them by.
DebugInfoOptions DebugInfoCache::options_for(const Report& r) const {
  DebugInfoOptions o = options_;
  if (r.kernel && o.server) {
    const std::string tree = options_.kernel_root + "/lib/modules/" + *r.kernel;
    if (::access(tree.c_str(), R_OK) == 0) o.module_paths.push_back(tree);
  }
  return o;
}

std::string DebugInfoCache::fetch_vmlinux(const Report& r) {
  std::string build_id = r.kernel_build_id.value_or("");
  const std::string release = r.kernel.value_or("");
  if (build_id.empty()) {
    auto [it, fresh] = image_build_ids_.try_emplace(release);
    if (fresh) {
      const std::string image = options_.kernel_root + "/boot/vmlinuz-" + release;
      if (::access(image.c_str(), R_OK) != 0) {
        note("no vmlinux for release " + release + " under " + options_.debug_dir + ", and no build id to ask " +
             options_.server->describe() + ": the log prints none and " + image +
             " is absent (give --kernel-root DIR)");
      } else {
        const BuildIdResult id = kernel_image_build_id(image);
        if (id.build_id)
          it->second = *id.build_id;
        else
          note(id.problem);
      }
    }
    build_id = it->second;
  }
  if (build_id.empty()) return {};
  try {
    return options_.server->debuginfo(build_id, "vmlinux " + (release.empty() ? build_id.substr(0, 12) : release));
  } catch (const DebugInfoError& e) {
    note(e.what());
    failed_ = true;
    return {};
  }
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

std::vector<KernelDebugInfo*> DebugInfoCache::opened() const {
  std::vector<KernelDebugInfo*> all;
  for (const auto& [path, info] : open_)
    if (info) all.push_back(info.get());
  return all;
}

}  // namespace btaudit
