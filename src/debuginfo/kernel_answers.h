// What a libdwfl session found about vmlinux addresses, shared by the sessions
// of one run (batch workers each hold their own libdwfl handle, libdwfl not
// being thread-safe). Only vmlinux's own addresses are kept here: their symbol
// and source depend on the file alone, while module addresses depend on the
// order a session loaded its modules in. Thread-safe; bounded like the
// sessions' own caches (emptied when full).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/debug_info.h"
#include "model/symbol.h"

namespace btaudit {

class KernelAnswers {
 public:
  // describe_source's answer for an address.
  struct Source {
    std::optional<std::string> innermost_function;
    std::optional<SourceLocation> source;
    std::vector<InlinedCall> inlined;
  };
  static constexpr std::size_t kMaxAnswers = std::size_t{1} << 20;

  // nullopt: not asked yet; a nullopt inside: no symbol there.
  std::optional<std::optional<Symbol>> symbol(std::uint64_t address) const;
  void put_symbol(std::uint64_t address, const std::optional<Symbol>& s);
  std::optional<Source> source(std::uint64_t address) const;
  void put_source(std::uint64_t address, const Source& s);

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::uint64_t, std::optional<Symbol>> symbols_;
  std::unordered_map<std::uint64_t, Source> sources_;
};

// One KernelAnswers per vmlinux (by build id, else by path), for every session of a run.
class KernelAnswerStore {
 public:
  std::shared_ptr<KernelAnswers> for_image(const std::string& key);

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<KernelAnswers>> images_;
};

}  // namespace btaudit
