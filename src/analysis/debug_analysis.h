// Everything debuginfo adds to a parsed report: the KASLR offset, each
// frame's code address, file:line and inlined callers, and the call-site
// check that proves or refutes '?' frames (and flags reliable frames that
// fail it as evidence of stack corruption, without relabelling them).
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>

#include "debuginfo/kernel_debuginfo.h"
#include "model/report.h"

namespace btaudit {

inline constexpr long kDefaultCheckBudgetMs = 5000;  // --check-budget-ms: one report's call-site checks
inline constexpr long kDefaultDumpBudgetMs = 8000;   // --dump-budget-ms: all of a dump's walks

// How long the machine-code checks may take. A check is cheap once its answers are
// cached, but a hostile trace of thousands of different addresses, each behind a
// big switch of tail calls, would take minutes: past the deadline the frames left
// keep their text verdict with reason unchecked_budget (the text rule's reason in
// their debug note), and the report says how many (Report::truncated).
struct CheckBudget {
  std::chrono::milliseconds per_report{kDefaultCheckBudgetMs};
  // A deadline shared by several reports (a dump's CPUs), and the budget it stands for.
  std::optional<std::chrono::steady_clock::time_point> shared_deadline;
  std::chrono::milliseconds shared{0};
};

// One run of checks against a budget (a report's, or a walk's): the deadline that
// comes first, and what to say when frames were left unchecked.
class CheckDeadline {
 public:
  explicit CheckDeadline(const CheckBudget& budget);
  // Counts a check; false when the deadline has passed and the check is not to run.
  bool admit();
  // The limit reached, when some checks did not run.
  std::optional<Truncation> truncation() const;

 private:
  const CheckBudget& budget_;
  std::chrono::steady_clock::time_point at_;
  bool shared_first_ = false;  // the shared deadline comes first: it is the one to name
  std::uint64_t checks_ = 0, unchecked_ = 0;
};

void apply_debuginfo(Report& report, KernelDebugInfo& debuginfo, const CheckBudget& budget = {});

// Whether a module function's size as kallsyms gives it (the distance to the next symbol, printed
// in a trace or read from a dump) fits its .ko's ELF size: it runs past st_size by the padding
// and __pfx_ symbol before the next function, never short of it. (An unsized symbol fits.) Else
// the .ko is another build's, and its lines would be another function's.
inline bool module_size_fits(std::uint64_t kallsyms_size, std::uint64_t elf_size) {
  return elf_size == 0 || (kallsyms_size >= elf_size && kallsyms_size - elf_size < 64);
}

}  // namespace btaudit
