// The kernel debuginfo a run of reports needs, opened once per vmlinux: a
// given --vmlinux, or with "auto" the image of each report's release under the
// debug directory. Failures are remembered once and reported as warnings.
// Not thread-safe (nor is libdwfl): batch workers share one under a mutex.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "debuginfo/kernel_debuginfo.h"
#include "model/report.h"

namespace btaudit {

// Opens vmlinux once per release and keeps it for every report of the call.
// With a BuildIdSource in the options (debuginfod), "auto" falls back to it when
// the debug directory has no vmlinux for the release: by the build id the log
// printed, else by the build id of the release's image under the kernel root.
class DebugInfoCache {
 public:
  DebugInfoCache(std::string vmlinux, DebugInfoOptions options)
      : vmlinux_(std::move(vmlinux)), options_(std::move(options)) {}

  // The debuginfo for this report, or nullptr (none given, none found, or unusable).
  KernelDebugInfo* for_report(const Report& r);
  // What went wrong, once each, plus every opened image's own warnings.
  std::vector<std::string> warnings() const;
  // Whether a named vmlinux could not be opened.
  bool failed() const { return failed_; }
  // Every vmlinux opened, in the order of their paths (to save their profiles at the end).
  std::vector<KernelDebugInfo*> opened() const;

 private:
  std::string find_by_release(const std::string& release) const;
  std::string fetch_vmlinux(const Report& r);
  DebugInfoOptions options_for(const Report& r) const;
  void note(const std::string& s);

  std::string vmlinux_;
  DebugInfoOptions options_;
  std::map<std::string, std::unique_ptr<KernelDebugInfo>> open_;
  std::vector<std::string> notes_;
  std::map<std::string, std::string> image_build_ids_;  // release -> build id of its installed image ("" none)
  bool failed_ = false;
};

}  // namespace btaudit
