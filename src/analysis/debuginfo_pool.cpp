#include "analysis/debuginfo_pool.h"

#include <algorithm>

namespace btaudit {

DebugInfoPool::DebugInfoPool(std::string vmlinux, DebugInfoOptions options, unsigned max_sessions)
    : vmlinux_(std::move(vmlinux)), options_(std::move(options)), max_sessions_(std::max(1u, max_sessions)) {
  options_.shared_answers = &answers_;
}

DebugInfoPool::Lease::~Lease() {
  if (cache_) pool_->give_back(std::move(cache_));
}

DebugInfoPool::Lease DebugInfoPool::borrow() {
  std::unique_lock lock(mutex_);
  returned_.wait(lock, [&] { return !idle_.empty() || opened_.size() < max_sessions_; });
  if (idle_.empty()) {
    // Made here, not opened: the vmlinux is opened by the cache on its first report,
    // outside this lock, so two workers open theirs at the same time.
    auto cache = std::make_unique<DebugInfoCache>(vmlinux_, options_);
    opened_.push_back(cache.get());
    return Lease(*this, std::move(cache));
  }
  std::unique_ptr<DebugInfoCache> cache = std::move(idle_.back());
  idle_.pop_back();
  return Lease(*this, std::move(cache));
}

void DebugInfoPool::give_back(std::unique_ptr<DebugInfoCache> cache) {
  {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(cache));
  }
  returned_.notify_one();
}

// Called once the workers have left: every cache is idle again.
std::vector<std::string> DebugInfoPool::warnings() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> all;
  for (const DebugInfoCache* cache : opened_)
    for (std::string& w : cache->warnings())
      if (std::find(all.begin(), all.end(), w) == all.end()) all.push_back(std::move(w));
  return all;
}

bool DebugInfoPool::failed() const {
  std::lock_guard lock(mutex_);
  return std::any_of(opened_.begin(), opened_.end(), [](const DebugInfoCache* c) { return c->failed(); });
}

unsigned DebugInfoPool::sessions() const {
  std::lock_guard lock(mutex_);
  return static_cast<unsigned>(opened_.size());
}

std::vector<KernelDebugInfo*> DebugInfoPool::opened() const {
  std::lock_guard lock(mutex_);
  std::vector<KernelDebugInfo*> all;
  for (const DebugInfoCache* cache : opened_)
    for (KernelDebugInfo* info : cache->opened()) all.push_back(info);
  return all;
}

}  // namespace btaudit
