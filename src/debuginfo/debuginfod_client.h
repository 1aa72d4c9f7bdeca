// A BuildIdSource over debuginfod servers through elfutils' client library
// (libdebuginfod): downloads land in the client's own cache
// ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client), so a second run
// costs nothing, and every knob of the library (DEBUGINFOD_TIMEOUT,
// DEBUGINFOD_MAXSIZE, DEBUGINFOD_RETRY_LIMIT, ...) works as for elfutils' tools.
// The library is loaded (dlopen) when a client is made, as libdw itself loads
// it: it brings about thirty libraries (curl, TLS, ...) whose start-up every run
// would pay otherwise, debuginfod or not.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "debuginfo/build_id_source.h"

struct debuginfod_client;

namespace btaudit {

class DebuginfodClient final : public BuildIdSource {
 public:
  // `urls`: space-separated server URLs, as DEBUGINFOD_URLS holds them; empty:
  // DEBUGINFOD_URLS itself. The library reads its servers from that variable only,
  // so given URLs are put there (for this process). `progress`: a progress line on
  // standard error while a file downloads (meant for a terminal).
  // Throws DebugInfoError when no server is configured or the library fails to start.
  DebuginfodClient(const std::string& urls, bool progress);
  ~DebuginfodClient() override;
  DebuginfodClient(const DebuginfodClient&) = delete;
  DebuginfodClient& operator=(const DebuginfodClient&) = delete;

  std::string debuginfo(std::string_view build_id, std::string_view what) override;
  std::string describe() const override { return "debuginfod at " + urls_; }

  // Whether DEBUGINFOD_URLS names a server (elfutils' tools use one then).
  static bool configured_in_environment();

 private:
  struct Library;  // the loaded libdebuginfod and the calls used from it
  struct ClientDeleter {
    void (*end)(debuginfod_client*) = nullptr;
    void operator()(debuginfod_client* c) const;
  };
  static int on_progress(debuginfod_client* c, long done, long total);

  std::unique_ptr<Library> library_;  // outlives client_
  std::unique_ptr<debuginfod_client, ClientDeleter> client_;
  std::string urls_;
  bool progress_ = false;
  std::string downloading_;  // what the progress line names
  bool progress_shown_ = false;
  // build id -> the cached path, or the error: a server that failed once is not asked again in this run.
  struct Outcome {
    bool ok = false;
    std::string text;
  };
  std::map<std::string, Outcome, std::less<>> asked_;
};

// The one-line reason for a libdebuginfod error code (a negative errno).
std::string debuginfod_error_text(int rc, const std::string& urls);

}  // namespace btaudit
