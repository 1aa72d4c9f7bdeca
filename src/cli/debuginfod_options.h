// --debuginfod and --kernel-root, the same for analyze, batch and vmcore.
// Servers come from --debuginfod URLS, else from DEBUGINFOD_URLS as in
// elfutils' tools; `--debuginfod none` turns them off even when the variable is set.
#pragma once
#include <unistd.h>

#include <boost/program_options.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

#include "debuginfo/debuginfod_client.h"
#include "debuginfo/kernel_debuginfo.h"
#include "provider/debuginfo_error.h"

namespace btaudit {

struct DebuginfodOptions {
  std::string urls;  // "" : DEBUGINFOD_URLS; "none": off
  std::string kernel_root = "/";

  // `for_logs`: also --kernel-root (a dump states its build id; a log often does not).
  void add_to(boost::program_options::options_description& opts, bool for_logs) {
    namespace po = boost::program_options;
    opts.add_options()("debuginfod", po::value(&urls),
                       "fetch missing kernel and module debuginfo by build id from these debuginfod servers "
                       "(space-separated; default: $DEBUGINFOD_URLS; 'none': never)");
    if (for_logs)
      opts.add_options()("kernel-root", po::value(&kernel_root)->default_value("/"),
                         "where boot/vmlinuz-<release> and lib/modules/<release> are installed: the build ids to "
                         "ask debuginfod for when a log prints none");
  }
  // Sets up a run's debuginfo: --debuginfod asks for it ("auto" when no --vmlinux is
  // given), and the client joins `debug` when debuginfo is looked up at all. False,
  // after a one-line message, when the client cannot start.
  bool apply(std::string& vmlinux, DebugInfoOptions& debug, std::unique_ptr<DebuginfodClient>& server,
             std::string_view command) const {
    if (vmlinux.empty() && requested()) vmlinux = "auto";
    debug.kernel_root = kernel_root;
    if (vmlinux.empty()) return true;
    try {
      server = client();
    } catch (const DebugInfoError& e) {
      std::cerr << "btaudit " << command << ": " << e.what() << "\n";
      return false;
    }
    debug.server = server.get();
    return true;
  }
  // Whether the command line asked for debuginfod (and so for debuginfo).
  bool requested() const { return !urls.empty() && urls != "none"; }
  // The client, when servers are configured; nullptr when debuginfod is off.
  // Throws DebugInfoError when the client library cannot start.
  std::unique_ptr<DebuginfodClient> client() const {
    if (urls == "none" || (urls.empty() && !DebuginfodClient::configured_in_environment())) return nullptr;
    return std::make_unique<DebuginfodClient>(urls, ::isatty(STDERR_FILENO) != 0);
  }
};

}  // namespace btaudit
