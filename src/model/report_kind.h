// The class of failure a report describes.
#pragma once
#include <string_view>

namespace btaudit {

enum class ReportKind {
  Warning,
  Bug,
  Oops,
  GeneralProtectionFault,
  PageFault,
  NullPointerDereference,
  Panic,
  KernelBug,
  InvalidOpcode,
  DoubleFault,
  StackOverflow,
  DivideError,
  Kasan,
  Kmsan,
  Kcsan,
  Kfence,
  Ubsan,
  MemoryLeak,
  Lockdep,
  AtomicSleep,
  HungTask,
  RcuStall,
  SoftLockup,
  HardLockup,
  NmiBacktrace,
  BadPage,
  ListCorruption,
  Refcount,
  CfiFailure,  // kernel/cfi.c: an indirect call to a function of another type (kCFI)
  Other,
};

std::string_view to_string(ReportKind k);

}  // namespace btaudit
