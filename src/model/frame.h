// One printed backtrace entry, as the kernel printed it plus btaudit's verdict.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "model/boxed.h"
#include "model/debug_info.h"
#include "model/stack_kind.h"
#include "model/verdict.h"

namespace btaudit {

struct Frame {
  // User-provided, with every member initialized below: a defaulted constructor would make
  // value-initialization (emplace_back(), resize()) clear all of its bytes first, per frame.
  Frame() {}  // NOLINT(modernize-use-equals-default)

  std::optional<std::string> function;  // symbol without "+off/size"; nullopt for a raw address
  std::optional<std::uint64_t> offset;
  std::optional<std::uint64_t> size;
  // The strings that few frames print are boxed (model/boxed.h): an optional<string> in place
  // is 40 bytes in every frame, set or not; a box is 8.
  Boxed<std::string> module;             // "[mod]" suffix
  Boxed<std::string> build_id;           // "[mod <build id>]" suffix (5.14+)
  std::optional<std::uint64_t> address;  // "[<ffffffff...>]" (old formats) or a raw "0xffff..." frame
  Boxed<std::string> source;             // "file.c:123" when the report is already symbolized
  bool inlined = false;                  // "[inline]" marker of symbolized reports
  bool printed_unreliable = false;       // the kernel's '?' mark (ppc: "(unreliable)")
  StackKind stack = StackKind::Unknown;
  Boxed<std::string> exception;  // "#DF", "NMI", ... for exception stacks
  Verdict verdict = Verdict::Unknown;
  Reason reason = Reason::NoAddress;
  std::uint32_t line = 0;   // 1-based line in the input file
  std::uint32_t trace = 0;  // index into Report::traces
  // Filled when vmlinux/module debuginfo is given; boxed, as it is mostly absent and would
  // otherwise be half of every frame's size.
  Boxed<FrameDebugInfo> debug;
  std::optional<std::uint64_t> slot;  // (dump walks) the stack address the word was read from
};

}  // namespace btaudit
