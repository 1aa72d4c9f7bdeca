#include "debuginfo/kernel_answers.h"

namespace btaudit {

std::optional<std::optional<Symbol>> KernelAnswers::symbol(std::uint64_t address) const {
  std::shared_lock lock(mutex_);
  if (auto it = symbols_.find(address); it != symbols_.end()) return it->second;
  return std::nullopt;
}

void KernelAnswers::put_symbol(std::uint64_t address, const std::optional<Symbol>& s) {
  std::unique_lock lock(mutex_);
  if (symbols_.size() >= kMaxAnswers) symbols_.clear();
  symbols_.try_emplace(address, s);
}

std::optional<KernelAnswers::Source> KernelAnswers::source(std::uint64_t address) const {
  std::shared_lock lock(mutex_);
  if (auto it = sources_.find(address); it != sources_.end()) return it->second;
  return std::nullopt;
}

void KernelAnswers::put_source(std::uint64_t address, const Source& s) {
  std::unique_lock lock(mutex_);
  if (sources_.size() >= kMaxAnswers) sources_.clear();
  sources_.try_emplace(address, s);
}

std::optional<CallSiteFinding> KernelAnswers::call_site(const CallSiteKey& key) const {
  std::shared_lock lock(mutex_);
  if (auto it = call_sites_.find(key); it != call_sites_.end()) return it->second;
  return std::nullopt;
}

void KernelAnswers::put_call_site(const CallSiteKey& key, const CallSiteFinding& f) {
  std::unique_lock lock(mutex_);
  if (call_sites_.size() >= kMaxAnswers) call_sites_.clear();
  call_sites_.try_emplace(key, f);
}

std::optional<Reach> KernelAnswers::reach(std::uint64_t target, std::uint64_t callee) const {
  std::shared_lock lock(mutex_);
  if (auto it = reaches_.find({target, callee}); it != reaches_.end()) return it->second;
  return std::nullopt;
}

void KernelAnswers::put_reach(std::uint64_t target, std::uint64_t callee, Reach r) {
  std::unique_lock lock(mutex_);
  if (reaches_.size() >= kMaxAnswers) reaches_.clear();
  reaches_.try_emplace({target, callee}, r);
}

std::shared_ptr<KernelAnswers> KernelAnswerStore::for_image(const std::string& key) {
  std::lock_guard lock(mutex_);
  std::shared_ptr<KernelAnswers>& slot = images_[key];
  if (!slot) slot = std::make_shared<KernelAnswers>();
  return slot;
}

}  // namespace btaudit
