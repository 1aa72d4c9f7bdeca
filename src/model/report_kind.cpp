#include "model/report_kind.h"

namespace btaudit {

std::string_view to_string(ReportKind k) {
  switch (k) {
    case ReportKind::Warning: return "warning";
    case ReportKind::Bug: return "bug";
    case ReportKind::Oops: return "oops";
    case ReportKind::GeneralProtectionFault: return "general_protection_fault";
    case ReportKind::PageFault: return "page_fault";
    case ReportKind::NullPointerDereference: return "null_pointer_dereference";
    case ReportKind::Panic: return "panic";
    case ReportKind::KernelBug: return "kernel_bug";
    case ReportKind::InvalidOpcode: return "invalid_opcode";
    case ReportKind::DoubleFault: return "double_fault";
    case ReportKind::StackOverflow: return "stack_overflow";
    case ReportKind::DivideError: return "divide_error";
    case ReportKind::Kasan: return "kasan";
    case ReportKind::Kmsan: return "kmsan";
    case ReportKind::Kcsan: return "kcsan";
    case ReportKind::Kfence: return "kfence";
    case ReportKind::Ubsan: return "ubsan";
    case ReportKind::MemoryLeak: return "memory_leak";
    case ReportKind::Lockdep: return "lockdep";
    case ReportKind::AtomicSleep: return "atomic_sleep";
    case ReportKind::HungTask: return "hung_task";
    case ReportKind::RcuStall: return "rcu_stall";
    case ReportKind::SoftLockup: return "soft_lockup";
    case ReportKind::HardLockup: return "hard_lockup";
    case ReportKind::NmiBacktrace: return "nmi_backtrace";
    case ReportKind::BadPage: return "bad_page";
    case ReportKind::ListCorruption: return "list_corruption";
    case ReportKind::Refcount: return "refcount";
    case ReportKind::CfiFailure: return "cfi_failure";
    case ReportKind::Other: return "other";
  }
  return "other";
}

}  // namespace btaudit
