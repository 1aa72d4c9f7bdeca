// --no-cache, --cache-dir and --cache-max-mb: vmlinux's per-build-id profile
// (debuginfo/kernel_profile.h), the same for analyze, batch and vmcore.
#pragma once
#include <boost/program_options.hpp>
#include <cstdint>
#include <iostream>
#include <string>
#include <string_view>

#include "debuginfo/kernel_debuginfo.h"

namespace btaudit {

struct ProfileCacheFlags {
  bool off = false;
  std::string dir;
  std::uint64_t max_mb = 512;

  void add_to(boost::program_options::options_description& opts) {
    namespace po = boost::program_options;
    opts.add_options()("no-cache", po::bool_switch(&off),
                       "neither read nor write vmlinux's profile (the tables and answers kept per build id)")(
        "cache-dir", po::value(&dir),
        "where profiles are kept (default: $XDG_CACHE_HOME/btaudit, else ~/.cache/btaudit)")(
        "cache-max-mb", po::value(&max_mb)->default_value(512), "room for all profiles; the oldest go first");
  }
  ProfileCacheOptions options() const {
    ProfileCacheOptions o;
    o.enabled = !off;
    o.dir = dir;
    o.max_bytes = max_mb << 20;
    return o;
  }
};

// Says on stderr why a profile was rebuilt, and writes what the session learned.
// A profile that cannot be written is a note: the run's answers do not depend on it.
inline void finish_profile(KernelDebugInfo& info, std::string_view command) {
  const std::string& state = info.profile_state();
  if (state.starts_with("rebuilt "))
    std::cerr << "btaudit " << command << ": note: profile " << state.substr(8) << "; rebuilt\n";
  if (const std::string problem = info.save_profile(); !problem.empty())
    std::cerr << "btaudit " << command << ": note: profile not saved: " << problem << "\n";
}

}  // namespace btaudit
