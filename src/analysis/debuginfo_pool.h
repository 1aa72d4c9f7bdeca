// Kernel debuginfo for worker threads: libdwfl is not thread-safe, so instead of
// one DebugInfoCache under a mutex, each report borrows a whole cache (its own
// libdwfl sessions, symbol and line answers) for the time of its analysis. Caches
// are opened lazily, at most max_sessions of them; a worker finding none idle and
// the limit reached waits for one. What the sessions learn about vmlinux
// addresses (symbols, source lines) goes to one store they all read, so the
// slow libdwfl lookups are not repeated per session. Each session still costs its
// own libdwfl handle and symbol tables (the file itself is mapped, its pages shared).
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "analysis/debuginfo_cache.h"

namespace btaudit {

class DebugInfoPool {
 public:
  DebugInfoPool(std::string vmlinux, DebugInfoOptions options, unsigned max_sessions);

  // A cache borrowed for one report: given back when the lease goes.
  class Lease {
   public:
    Lease(DebugInfoPool& pool, std::unique_ptr<DebugInfoCache> cache) : pool_(&pool), cache_(std::move(cache)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();
    DebugInfoCache& operator*() const { return *cache_; }
    DebugInfoCache* operator->() const { return cache_.get(); }

   private:
    DebugInfoPool* pool_;
    std::unique_ptr<DebugInfoCache> cache_;
  };

  Lease borrow();
  // Every cache's warnings, each once, in the order the caches were opened.
  std::vector<std::string> warnings() const;
  // Whether a named vmlinux could not be opened (by any cache).
  bool failed() const;
  unsigned sessions() const;
  // Every session's opened vmlinux images (called once the workers have left).
  std::vector<KernelDebugInfo*> opened() const;

 private:
  void give_back(std::unique_ptr<DebugInfoCache> cache);

  KernelAnswerStore answers_;
  const std::string vmlinux_;
  DebugInfoOptions options_;  // options_.shared_answers is answers_
  const unsigned max_sessions_;
  mutable std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<DebugInfoCache>> idle_;
  std::vector<const DebugInfoCache*> opened_;  // every cache made, in order (owned by idle_ or a lease)
};

}  // namespace btaudit
