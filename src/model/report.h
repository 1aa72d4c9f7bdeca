// One kernel report (WARN, oops, BUG, panic, lockup, sanitizer report, ...).
// Pure data: produced by the text front end or the vmcore reader, refined by
// analysis, consumed by renderers. No I/O here.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/frame.h"
#include "model/report_kind.h"
#include "model/truncation.h"

namespace btaudit {

// A code location printed as "func+0xoff/0xsize [mod]" outside the call trace
// (the RIP: line, the WARNING: ... at line).
struct CodeLocation {
  std::optional<std::string> function;
  std::optional<std::uint64_t> offset;
  std::optional<std::uint64_t> size;
  std::optional<std::string> module;
  std::optional<std::uint64_t> address;
};

// One contiguous "Call Trace:"-like block. Traces after the first are
// secondary (another CPU's NMI backtrace, lockdep's chains, KASAN's alloc/free stacks).
struct Trace {
  std::string label;              // "Call Trace", "NMI backtrace for cpu 1", "Allocated by task 42", ...
  bool primary = true;            // false for auxiliary traces that are not the crashing context
  std::uint32_t first_frame = 0;  // index into Report::frames
  std::uint32_t frame_count = 0;
  std::uint32_t line = 0;
};

// A stack switch seen in the trace (<IRQ>, </IRQ>, <EOI>, <NMI>, <TASK>, ...).
struct StackSection {
  StackKind stack = StackKind::Unknown;
  std::optional<std::string> exception;
  std::uint32_t first_frame = 0;
  std::uint32_t frame_count = 0;
  std::uint32_t line = 0;
  std::uint32_t trace = 0;
};

struct InputSpan {
  std::string path;
  std::uint32_t first_line = 0;
  std::uint32_t last_line = 0;
};

enum class Arch { Unknown, X86_64, I386, Arm64, Arm, PowerPC, S390, RiscV, Mips, Sparc64, Parisc, M68k };

// One block of register rows as the kernel printed them ("RSP: 0018:... EFLAGS: ...",
// "RAX: ... RBX: ... RCX: ...", arch/x86/kernel/process_64.c __show_regs()).
struct RegisterSet {
  std::uint32_t line = 0;  // the input line of its first row
  std::vector<std::pair<std::string, std::uint64_t>> values;
  bool operator==(const RegisterSet&) const = default;
};

struct Report {
  ReportKind kind = ReportKind::Other;
  std::string header;  // the line that started the report, prefixes stripped
  std::string title;   // syzkaller-style title
  Arch arch = Arch::Unknown;
  std::optional<int> cpu;
  std::optional<int> pid;
  std::optional<std::string> comm;
  std::optional<std::string> tainted;  // taint letters, "" when "Not tainted"
  std::optional<std::string> kernel;   // release string
  // vmlinux's build id, printed at the end of the CPU: line by 5.14+ kernels built
  // with CONFIG_STACKTRACE_BUILD_ID (lib/dump_stack.c, BUILD_ID_FMT " %20phN").
  std::optional<std::string> kernel_build_id;
  std::optional<std::string> hardware;
  std::optional<CodeLocation> rip;         // crash site (RIP:/pc/NIP/EIP line)
  std::optional<CodeLocation> warn_site;   // "WARNING: ... at file:line func+off/size"
  std::optional<CodeLocation> last_break;  // s390 "Last Breaking-Event-Address:" (not a call trace frame)
  // Every block of register rows, in the order printed: the first is the crash's (what
  // "registers" means to a reader), later ones the user-mode registers saved at syscall
  // entry or an interrupted context's (show_regs() again inside a trace). Names within a
  // block are distinct; across blocks they repeat.
  std::vector<RegisterSet> registers;
  std::string code_bytes;
  std::vector<std::string> modules;
  // The report's own console lines as printed (prefixes stripped, other contexts'
  // lines left out), from its start line on, bounded: what title rules read. They view
  // the log the report was parsed from (a log of hundreds of MB is not copied line by
  // line a second time), or text_storage when the report outlives that log.
  std::vector<std::string_view> text;
  std::shared_ptr<const std::string> text_storage;  // shared and immutable: the views survive copies and moves
  std::vector<Trace> traces;
  std::vector<StackSection> sections;
  std::vector<Frame> frames;
  bool corrupted = false;
  std::string corrupted_reason;
  std::vector<Truncation> truncated;  // limits reached, in the order met
  bool old_address_format = false;    // "[<ffffffff...>]" era (<= 4.9)
  bool panicked = false;
  std::optional<std::int64_t> kaslr_offset;  // from "Kernel Offset:" or inferred from frames with debuginfo
  std::string kaslr_source;  // "kernel_offset_line", "frames", or "dump" (a dump log's report: VMCOREINFO's)
  int kaslr_agreeing_frames = 0;
  std::optional<FrameDebugInfo> rip_debug;  // the crash site, symbolized
  std::vector<std::string> debug_warnings;  // missing or mismatched debuginfo
  std::optional<std::size_t> guilty;        // index into frames
  std::optional<std::string> guilty_file;   // the source file the report blames (analysis/guilty_file.h)
  std::uint64_t signature = 0;
  InputSpan input;
};

std::string_view to_string(Arch a);
// A signature as every output prints it: 16 hex digits.
std::string signature_hex(std::uint64_t signature);

}  // namespace btaudit
