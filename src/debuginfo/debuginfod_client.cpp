#include "debuginfo/debuginfod_client.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "provider/debuginfo_error.h"

namespace btaudit {

namespace {

std::string environment_urls() {
  const char* v = std::getenv(DEBUGINFOD_URLS_ENV_VAR);
  return v ? v : "";
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t") == std::string::npos; }

std::string megabytes(long bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

}  // namespace

std::string debuginfod_error_text(int rc, const std::string& urls) {
  switch (-rc) {
    case ENOENT: return "not found on " + urls + " (404)";
    case ETIME:
    case ETIMEDOUT: return "timed out asking " + urls + " (DEBUGINFOD_TIMEOUT sets the limit; default 90 s)";
    case ECONNREFUSED:
    case EHOSTUNREACH:
    case ENETUNREACH:
    case ECONNRESET:
    case EADDRNOTAVAIL: return "no debuginfod server answered at " + urls + " (" + std::strerror(-rc) + ")";
    case ENOSYS: return "no debuginfod server configured (set DEBUGINFOD_URLS or give --debuginfod URL)";
    case EINVAL: return "a malformed server URL in '" + urls + "'";
    case EFBIG: return "larger than DEBUGINFOD_MAXSIZE allows, on " + urls;
    case EACCES: return "access denied by " + urls;
    default: return std::string(std::strerror(-rc)) + " asking " + urls;
  }
}

struct DebuginfodClient::Library {
  void* handle = nullptr;
  decltype(&debuginfod_begin) begin = nullptr;
  decltype(&debuginfod_end) end = nullptr;
  decltype(&debuginfod_set_user_data) set_user_data = nullptr;
  decltype(&debuginfod_set_progressfn) set_progressfn = nullptr;
  decltype(&debuginfod_find_debuginfo) find_debuginfo = nullptr;

  Library() {
    handle = ::dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!handle) throw DebugInfoError(std::string("debuginfod: cannot load libdebuginfod.so.1: ") + ::dlerror());
    bind(begin, "debuginfod_begin");
    bind(end, "debuginfod_end");
    bind(set_user_data, "debuginfod_set_user_data");
    bind(set_progressfn, "debuginfod_set_progressfn");
    bind(find_debuginfo, "debuginfod_find_debuginfo");
  }
  ~Library() { ::dlclose(handle); }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  template <typename F>
  void bind(F& f, const char* name) {
    f = reinterpret_cast<F>(::dlsym(handle, name));
    if (!f) {
      ::dlclose(handle);
      throw DebugInfoError(std::string("debuginfod: libdebuginfod.so.1 has no ") + name);
    }
  }
};

void DebuginfodClient::ClientDeleter::operator()(debuginfod_client* c) const {
  if (end) end(c);
}

bool DebuginfodClient::configured_in_environment() { return !blank(environment_urls()); }

DebuginfodClient::DebuginfodClient(const std::string& urls, bool progress)
    : client_(nullptr, ClientDeleter{}), progress_(progress) {
  // libdebuginfod reads its servers from DEBUGINFOD_URLS at each query and has
  // no call to set them, so --debuginfod URL goes into this process's environment.
  if (!blank(urls)) ::setenv(DEBUGINFOD_URLS_ENV_VAR, urls.c_str(), 1);
  urls_ = environment_urls();
  if (blank(urls_))
    throw DebugInfoError("debuginfod: no server configured (set DEBUGINFOD_URLS or give --debuginfod URL)");
  library_ = std::make_unique<Library>();
  client_ = std::unique_ptr<debuginfod_client, ClientDeleter>(library_->begin(), ClientDeleter{library_->end});
  if (!client_) throw DebugInfoError("debuginfod: cannot start the client library");
  library_->set_user_data(client_.get(), this);
  if (progress_) library_->set_progressfn(client_.get(), &DebuginfodClient::on_progress);
}

DebuginfodClient::~DebuginfodClient() = default;

int DebuginfodClient::on_progress(debuginfod_client* c, long done, long total) {
  // The library was loaded RTLD_GLOBAL by the client this callback belongs to.
  const auto get_user_data =
      reinterpret_cast<decltype(&debuginfod_get_user_data)>(::dlsym(RTLD_DEFAULT, "debuginfod_get_user_data"));
  auto* self = get_user_data ? static_cast<DebuginfodClient*>(get_user_data(c)) : nullptr;
  if (!self || done <= 0) return 0;  // 0: go on
  std::string line = "\rbtaudit: debuginfod: downloading " + self->downloading_ + ": " + megabytes(done);
  if (total > 0) line += " of " + megabytes(total);
  line += "   ";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  self->progress_shown_ = true;
  return 0;
}

std::string DebuginfodClient::debuginfo(std::string_view build_id, std::string_view what) {
  if (const auto it = asked_.find(build_id); it != asked_.end()) {
    if (it->second.ok) return it->second.text;
    throw DebugInfoError(it->second.text);
  }
  Outcome& out = asked_[std::string(build_id)];
  const std::string id(build_id);
  downloading_ = std::string(what) + " (build id " + id.substr(0, 12) + "...)";
  progress_shown_ = false;
  char* path = nullptr;
  // build_id_len 0: the id is given as a lowercase hex string.
  const int fd = library_->find_debuginfo(client_.get(), reinterpret_cast<const unsigned char*>(id.c_str()), 0, &path);
  if (progress_shown_) std::fputs("\n", stderr);
  if (fd >= 0) ::close(fd);
  if (fd < 0 || !path) {
    std::free(path);
    out.text = "debuginfod: " + std::string(what) + " (build id " + id + "): " + debuginfod_error_text(fd, urls_);
    throw DebugInfoError(out.text);
  }
  out.ok = true;
  out.text = path;
  std::free(path);
  return out.text;
}

}  // namespace btaudit
