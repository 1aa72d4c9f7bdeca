// The lab kernels' debug vmlinux files present on this machine: the
// colon-separated list in BTAUDIT_KALLSYMS_VMLINUXES (tests/CMakeLists.txt passes
// the lab kernels it was configured with), else Debian's 6.1; absent ones left out.
// clang_lab_kernels(): those built by clang, in BTAUDIT_CLANG_VMLINUXES (no default).
#pragma once
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace btaudit::testing {

inline std::vector<std::string> kernels_in(const char* variable, const char* fallback) {
  std::vector<std::string> out;
  const char* env = std::getenv(variable);
  const std::string list = env ? env : fallback;
  for (std::size_t pos = 0; pos <= list.size();) {
    const std::size_t end = std::min(list.find(':', pos), list.size());
    const std::string p = list.substr(pos, end - pos);
    std::error_code ec;
    if (!p.empty() && std::filesystem::is_regular_file(p, ec)) out.push_back(p);
    pos = end + 1;
  }
  return out;
}

inline std::vector<std::string> lab_kernels() {
  return kernels_in("BTAUDIT_KALLSYMS_VMLINUXES", "/usr/lib/debug/boot/vmlinux-6.1.0-57-cloud-amd64");
}

inline std::vector<std::string> clang_lab_kernels() { return kernels_in("BTAUDIT_CLANG_VMLINUXES", ""); }

}  // namespace btaudit::testing
