// What a libdwfl session found about vmlinux addresses, shared by the sessions
// of one run (batch workers each hold their own libdwfl handle, libdwfl not
// being thread-safe): symbols, source lines, and the call-site checker's
// answers (decoded from the file's code bytes). Only vmlinux's own addresses
// are kept here: their answers depend on the file alone, while module addresses
// depend on the order a session loaded its modules in. Thread-safe; bounded
// like the sessions' own caches (emptied when full).
#pragma once
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <utility>
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
  // The call-site checker's answers (analysis/call_site_check.h), by return
  // address and the function it was checked in (its start and the name the
  // report printed: an alias's name shows in the finding's note), and by
  // (call target, function above).
  struct CallSiteKey {
    std::uint64_t return_address = 0;
    std::uint64_t function_start = 0;
    std::string function_name;
    // Ordered too: the kernel profile keeps these answers in a sorted map, under the same key.
    // (clang-tidy 14 reads the defaulted <=>'s synthesized comparison with 0 as a null pointer.)
    auto operator<=>(const CallSiteKey&) const = default;  // NOLINT(modernize-use-nullptr)
    bool operator==(const CallSiteKey&) const = default;
  };
  std::optional<CallSiteFinding> call_site(const CallSiteKey& key) const;
  void put_call_site(const CallSiteKey& key, const CallSiteFinding& f);
  std::optional<Reach> reach(std::uint64_t target, std::uint64_t callee) const;
  void put_reach(std::uint64_t target, std::uint64_t callee, Reach r);

 private:
  struct PairHash {
    std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& k) const noexcept {
      return std::hash<std::uint64_t>{}(k.first * 0x9e3779b97f4a7c15ULL ^ k.second);
    }
  };
  struct CallSiteKeyHash {
    std::size_t operator()(const CallSiteKey& k) const noexcept {
      return PairHash{}({k.return_address, k.function_start}) ^ std::hash<std::string>{}(k.function_name);
    }
  };
  using AddressPair = std::pair<std::uint64_t, std::uint64_t>;
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::uint64_t, std::optional<Symbol>> symbols_;
  std::unordered_map<std::uint64_t, Source> sources_;
  std::unordered_map<CallSiteKey, CallSiteFinding, CallSiteKeyHash> call_sites_;
  std::unordered_map<AddressPair, Reach, PairHash> reaches_;
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
