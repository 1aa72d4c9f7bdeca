#include "analysis/title.h"

#include "analysis/frame_roles.h"
#include "analysis/title_engine.h"
#include "analysis/title_normalize.h"

namespace btaudit {

namespace {

// Architectures whose trace of a trap does not start at the trapped function: sparc64's
// show_stack() starts from the trap frame's %fp (arch/sparc/kernel/traps_64.c), parisc's first
// unwind_once() from the trap's registers (arch/parisc/kernel/traps.c parisc_show_stack) is the
// caller already, and m68k's show_trace() prints every text address on the stack above the
// exception frame (arch/m68k/kernel/traps.c). The function that trapped is named by the crash
// site alone ("TPC: <%pS>", " IAOQ[0]: %pS", "PC: [<%08lx>] %pS").
bool title_from_crash_site(Arch a) { return a == Arch::Sparc64 || a == Arch::Parisc || a == Arch::M68k; }

std::string guilty_name(const Report& r) {
  if (title_from_crash_site(r.arch) && r.rip && r.rip->function)
    return std::string(base_function_name(*r.rip->function));
  if (r.guilty && r.frames[*r.guilty].function) return std::string(base_function_name(*r.frames[*r.guilty].function));
  if (r.rip && r.rip->function) return std::string(base_function_name(*r.rip->function));
  if (r.warn_site && r.warn_site->function) return std::string(base_function_name(*r.warn_site->function));
  return {};
}

std::string with_function(std::string prefix, const std::string& fn) {
  if (fn.empty()) return prefix;
  return prefix + " in " + fn;
}

}  // namespace

std::string make_title(const Report& r) { return make_title(r, title_from_rules(r.text)); }

std::string make_title(const Report& r, const std::optional<RuleTitle>& rules) {
  // syzkaller's conventions when the report's own lines are at hand (text input). Its rules read
  // the stacks of the architectures it fuzzes; on sparc64's, parisc's and m68k's (no syzkaller
  // targets) a title whose stack they could not read says "corrupted" of a report that is not:
  // the crash site names it.
  const bool unread_stack = rules && rules->corrupted && rules->frame.empty() && title_from_crash_site(r.arch);
  if (rules && !unread_stack) return normalize_title(rules->title);
  return normalize_title(fallback_title(r));
}

std::string fallback_title(const Report& r) {
  const std::string fn = guilty_name(r);
  switch (r.kind) {
    case ReportKind::Warning: return with_function("WARNING", fn);
    case ReportKind::GeneralProtectionFault: return with_function("general protection fault", fn);
    case ReportKind::NullPointerDereference:
      return with_function("BUG: unable to handle kernel NULL pointer dereference", fn);
    case ReportKind::PageFault: return with_function("BUG: unable to handle kernel paging request", fn);
    case ReportKind::KernelBug: return with_function("kernel BUG", fn);
    case ReportKind::InvalidOpcode: return with_function("invalid opcode", fn);
    case ReportKind::DoubleFault: return with_function("PANIC: double fault", fn);
    case ReportKind::DivideError: return with_function("divide error", fn);
    case ReportKind::HungTask: return with_function("INFO: task hung", fn);
    case ReportKind::RcuStall: return with_function("INFO: rcu detected stall", fn);
    case ReportKind::SoftLockup: return with_function("BUG: soft lockup", fn);
    case ReportKind::Lockdep: return with_function("possible deadlock", fn);
    case ReportKind::CfiFailure: return with_function("CFI failure", fn);
    case ReportKind::Panic: return "kernel panic: " + r.header.substr(std::min(r.header.size(), std::size_t{28}));
    default: break;
  }
  // No family rule: the header line itself names the failure best (numbers
  // and addresses are normalised away afterwards), cut before any location.
  std::string head = r.header.substr(0, std::min<std::size_t>(r.header.size(), 100));
  if (const std::size_t at = head.find(" at "); at != std::string::npos) head.resize(at);
  while (!head.empty() && (head.back() == ' ' || head.back() == ':')) head.pop_back();
  return with_function(head, fn);
}

}  // namespace btaudit
