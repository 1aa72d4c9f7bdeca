#include "text/report_builder.h"

#include <algorithm>
#include <array>
#include <bit>
#include <tuple>
#include <utility>

#include "text/scan.h"
#include "text/trace_line.h"

namespace btaudit {

namespace {

using namespace scan;

// Labels of traces that describe an object's history rather than the
// crashing context (KASAN/KMSAN/KFENCE alloc/free stacks, lockdep chains).
constexpr std::string_view kAuxiliaryLabels[] = {
    "Allocated by",
    "Freed by",
    "Last potentially related",
    "Second to last potentially related",
    "Last call_rcu",
    "Second to last call_rcu",
    "-> #",
    "Uninit was",
    "Local variable",
    "Memory access of",
    "allocated by task",
    "freed by task",
    "Bytes b4",
    "stored to memory",
    "created at",
    "other info",
    "Task ",
    "Workqueue:",
    "the shortest dependencies",
    "which lock already depends",
    "kmemleak:",  // kmemleak's object dump: the allocation stack of the object it complains about
};

}  // namespace

// One pass over the label: at each byte that starts one of the phrases, those that start with
// it are compared there (a search per phrase, each a memchr and compares, cost several times
// more). tests/unit/builder_detail_test.cpp checks it against a search per phrase.
bool builder_detail::is_auxiliary_label(std::string_view label) {
  static_assert(std::size(kAuxiliaryLabels) <= 32);
  // Per byte, the phrases that start with it (bit k: kAuxiliaryLabels[k]).
  static constexpr std::array<std::uint32_t, 256> kStartsWith = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::size_t k = 0; k < std::size(kAuxiliaryLabels); ++k)
      t[static_cast<unsigned char>(kAuxiliaryLabels[k][0])] |= std::uint32_t{1} << k;
    return t;
  }();
  for (std::size_t i = 0; i < label.size(); ++i) {
    for (std::uint32_t m = kStartsWith[static_cast<unsigned char>(label[i])]; m != 0; m &= m - 1)
      if (label.substr(i).starts_with(kAuxiliaryLabels[std::countr_zero(m)])) return true;
  }
  return false;
}

namespace {

bool requires_trace(ReportKind k) {
  switch (k) {
    case ReportKind::Warning:
    case ReportKind::Oops:
    case ReportKind::GeneralProtectionFault:
    case ReportKind::PageFault:
    case ReportKind::NullPointerDereference:
    case ReportKind::KernelBug:
    case ReportKind::InvalidOpcode:
    case ReportKind::Kasan:
    case ReportKind::Kmsan:
    case ReportKind::Kfence:
    case ReportKind::AtomicSleep:
    case ReportKind::SoftLockup:
    case ReportKind::DoubleFault:
    case ReportKind::DivideError: return true;
    default: return false;
  }
}

// A line that opens a trace: "Call Trace:" (x86, with the first frame after it on some
// kernels), "Call trace:" (arm64), "Backtrace:" and "backtrace:". Tried by first byte: a
// line starting with any other byte starts none of them. `s` is trimmed and not empty.
// Always inline: add_line asks it of every line, and a call (GCC kept it out of line) cost
// more than the test of the first byte that answers nearly all of them.
[[gnu::always_inline]] inline bool opens_trace(std::string_view s) {
  switch (s[0]) {
    case 'C': return has_prefix(s, "Call Trace:") || has_prefix(s, "Call trace:");
    case 'B': return s == "Backtrace:";
    case 'b': return has_prefix(s, "backtrace:");
    default: return false;
  }
}

}  // namespace

// The register lines of a register dump; kept inside a trace because 4.x+ prints the
// interrupted context's registers in the middle of the trace. By first byte, each prefix a
// literal: most lines that reach this are not register lines, and a literal's comparison is
// a few compares in place where a table's prefixes took a memcmp call each
// (tests/unit/builder_detail_test.cpp checks it against the table it replaces).
bool builder_detail::is_register_line(std::string_view s) {
  if (s.empty()) return false;
  switch (s[0]) {
    case 'R':
      return has_prefix(s, "RIP: ") || has_prefix(s, "RSP: ") || has_prefix(s, "RAX: ") || has_prefix(s, "RDX: ") ||
             has_prefix(s, "RBP: ") || has_prefix(s, "R10: ") || has_prefix(s, "R13: ") || has_prefix(s, "RIP  [<") ||
             has_prefix(s, "REGS:");
    case 'F': return has_prefix(s, "FS: ");
    case 'C':
      return has_prefix(s, "CS: ") || has_prefix(s, "CR2: ") || has_prefix(s, "CR0: ") || has_prefix(s, "Code: ") ||
             has_prefix(s, "CFAR:");
    case 'D':
      return has_prefix(s, "DR0: ") || has_prefix(s, "DR3: ") || has_prefix(s, "DR6: ") || has_prefix(s, "DS: ");
    case 'P':
      return has_prefix(s, "PKRU: ") || has_prefix(s, "PGD ") || has_prefix(s, "P4D ") || has_prefix(s, "Process ");
    case 'E':
      return has_prefix(s, "EIP: ") || has_prefix(s, "EAX: ") || has_prefix(s, "ESI: ") || has_prefix(s, "EIP: [<");
    case ' ': return has_prefix(s, " RSP <");
    case 'O': return has_prefix(s, "ORIG_RAX: ");
    case 'p': return has_prefix(s, "pc : ") || has_prefix(s, "pstate: ");
    case 'l': return has_prefix(s, "lr : ");
    case 's': return has_prefix(s, "sp : ") || has_prefix(s, "status: ");
    case 'x':  // arm64's odd registers, the first of each pair on a line
      return has_prefix(s, "x29: ") || has_prefix(s, "x27: ") || has_prefix(s, "x25: ") || has_prefix(s, "x23: ") ||
             has_prefix(s, "x21: ") || has_prefix(s, "x19: ") || has_prefix(s, "x17: ") || has_prefix(s, "x15: ") ||
             has_prefix(s, "x13: ") || has_prefix(s, "x11: ") || has_prefix(s, "x9 : ") || has_prefix(s, "x7 : ") ||
             has_prefix(s, "x5 : ") || has_prefix(s, "x3 : ") || has_prefix(s, "x1 : ");
    case 'N': return has_prefix(s, "NIP");
    case 'L': return has_prefix(s, "LR ");
    case 'M': return has_prefix(s, "MSR:");
    case 'G': return has_prefix(s, "GPR");
    case 'I': return has_prefix(s, "IRQMASK:") || has_prefix(s, "IP: ");
    case 'K': return has_prefix(s, "Krnl PSW") || has_prefix(s, "Krnl GPRS") || has_prefix(s, "Krnl Code");
    case 'e': return has_prefix(s, "epc : ");
    case 'r': return has_prefix(s, "ra : ");
    case 'b': return has_prefix(s, "badaddr: ");
    case 'c': return has_prefix(s, "cause: ");
    case 'S': return has_prefix(s, "Stack:");
    case '#': return has_prefix(s, "#PF: ");
    case 'T': return has_prefix(s, "Thread overran");
    default: return false;
  }
}

namespace {

// An x86 register row: "RAX: 0000000000000000 RBX: ffff8801ac392080 RCX: ffffffff84db22a1"
bool is_register_row(std::string_view s) {
  return s.size() > 5 && (s[0] == 'R' || s[0] == 'E') && s[3] == ':' && s[4] == ' ';
}

// Where a register row's ": " is when it ends a name of at most 8 bytes (npos otherwise): the
// bytes up to 8 are looked at in place of a search of the whole row for the first ": ", which
// gives the same answer in both cases (found at <= 8, or not found there).
std::size_t name_colon(std::string_view t) {
  const std::size_t last = std::min<std::size_t>(8, t.size() < 2 ? 0 : t.size() - 2);
  for (std::size_t i = 0; i <= last && t.size() >= 2; ++i)
    if (t[i] == ':' && t[i + 1] == ' ') return i;
  return std::string_view::npos;
}

// The length of the run of hex digits that starts `s`, or 17 for any run longer than 16: a hex
// dump's words are 8 or 16 digits, and a row holds up to 8 of them (hundreds of rows on a stack
// overflow). Sixteen bytes at a time where the line holds them, as scan::hex_wide reads a value.
std::size_t hex_run(std::string_view s) {
#if defined(__SSE2__)
  if (s.size() >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data()));
    const auto in_range = [](__m128i x, int lo, int hi) {
      const __m128i shifted = _mm_add_epi8(x, _mm_set1_epi8(static_cast<char>(0x80 - lo)));
      return _mm_cmplt_epi8(shifted, _mm_set1_epi8(static_cast<char>(-128 + (hi - lo) + 1)));
    };
    const __m128i digit = in_range(v, '0', '9');
    const __m128i letter = in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 'f');
    const auto valid = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(digit, letter)));
    const auto n = static_cast<std::size_t>(std::countr_zero(~valid | 0x10000U));
    if (n < 16) return n;
    return s.size() > 16 && is_hex(s[16]) ? 17 : 16;
  }
#endif
  std::size_t n = 0;
  while (n < s.size() && n < 17 && is_hex(s[n])) ++n;
  return n;
}

std::string_view take_word(std::string_view& s) {
  s = trim_left(s);
  const std::size_t sp = s.find(' ');
  std::string_view w = s.substr(0, sp);
  s.remove_prefix(sp == std::string_view::npos ? s.size() : sp);
  return w;
}

CodeLocation to_location(const SymbolRef& r) {
  CodeLocation loc;
  loc.function = std::string(r.function);
  loc.offset = r.offset;
  loc.size = r.size;
  if (!r.module.empty()) loc.module = std::string(r.module);
  return loc;
}

}  // namespace

// A line of a raw hex stack dump ("Stack:" block of <= 4.10 kernels, arm's
// "Exception stack(0x... to 0x...)" block with its "5bc0: 00000000 ..." rows).
bool builder_detail::is_hex_dump_line(std::string_view s) {
  if (has_prefix(s, "Exception stack(")) return true;
  if (s.size() > 5 && s[4] == ':' && is_hex(s[0]) && is_hex(s[1]) && is_hex(s[2]) && is_hex(s[3]))
    s.remove_prefix(5);  // arm row offset
  int words = 0;
  while (!s.empty()) {
    s = trim_left(s);
    if (s.empty()) break;
    if (s[0] == '<') {  // inline "<EOI>" markers inside the dump
      const std::size_t e = s.find('>');
      if (e == std::string_view::npos) return false;
      s.remove_prefix(e + 1);
      continue;
    }
    const std::size_t n = hex_run(s);
    if (n != 8 && n != 16) return false;
    s.remove_prefix(n);
    ++words;
  }
  return words > 0;
}

ReportBuilder::ReportBuilder(std::string path, const StartMarker& start, const CleanLine& line,
                             std::uint32_t first_line, ReportLimits limits)
    : limits_(limits) {
  report_.kind = start.kind;
  report_.header = std::string(trim_right(start.header));
  report_.input.path = std::move(path);
  report_.input.first_line = first_line;
  report_.input.last_line = line.number;
  caller_kind_ = line.caller_kind;
  caller_id_ = line.caller_id;
  timestamped_ = line.had_timestamp;
  // A CFI failure names its call site as a WARNING does ("CFI failure at %pS (target: ...").
  if (start.kind == ReportKind::Warning || start.kind == ReportKind::CfiFailure) parse_warning_header(start.header);
  parse_task_line(start.header);
  parse_hung_task_header(start.header);
}

// "INFO: task syz-executor1:12659 blocked for more than 120 seconds.": the
// hung task is the report's task (a later "CPU:" line belongs to khungtaskd).
void ReportBuilder::parse_hung_task_header(std::string_view s) {
  std::string_view t = s;
  if (!take_prefix(t, "INFO: task ")) return;
  const std::size_t end = t.find(" blocked for more than ");
  if (end == std::string_view::npos) return;
  std::string_view who = t.substr(0, end);
  const std::size_t colon = who.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return;
  std::string_view digits = who.substr(colon + 1);
  auto pid = dec(digits);
  if (!pid || !digits.empty()) return;
  report_.comm = std::string(who.substr(0, colon));
  report_.pid = static_cast<int>(*pid);
}

void ReportBuilder::mark_corrupted(std::string reason) {
  if (report_.corrupted) return;
  report_.corrupted = true;
  report_.corrupted_reason = std::move(reason);
}

void ReportBuilder::add_follow_up(const StartMarker& marker, const CleanLine& line) {
  // The first specific line decides the kind: a banner ("cut here") has none.
  if (report_.kind == ReportKind::Other) {
    report_.kind = marker.kind;
    report_.header = std::string(trim_right(marker.header));
    if (marker.kind == ReportKind::Warning) parse_warning_header(marker.header);
    caller_kind_ = line.caller_kind;
    caller_id_ = line.caller_id;
  }
  if (marker.kind == ReportKind::Panic) report_.panicked = true;
  parse_task_line(marker.header);
  if (in_trace_ && marker.join != JoinPolicy::Consequence) end_trace();
  touch(line.number);
}

void ReportBuilder::add_backtrace(const StartMarker& marker, const CleanLine& line) {
  end_trace();
  pending_label_ = std::string(trim_right(marker.header));
  caller_kind_ = line.caller_kind;
  caller_id_ = line.caller_id;
  touch(line.number);
}

void ReportBuilder::note_cut_line(std::size_t limit) {
  ++cut_lines_;
  cut_limit_ = limit;
}

void ReportBuilder::start_trace(std::string label, std::uint32_t line, bool primary) {
  end_trace();
  ++traces_seen_;
  // Past the limit a trace is read (its lines must not pass for something else) but not kept.
  keeping_trace_ = report_.traces.size() < limits_.max_frames;
  in_trace_ = true;
  non_frame_in_trace_ = 0;
  saw_marker_in_trace_ = false;
  stack_ = StackKind::Unknown;
  exception_.reset();
  if (first_trace_line_ == 0) first_trace_line_ = line;
  pending_label_.clear();
  if (!keeping_trace_) return;
  Trace t;
  t.label = std::move(label);
  t.primary = primary;
  t.first_frame = static_cast<std::uint32_t>(report_.frames.size());
  t.line = line;
  report_.traces.push_back(std::move(t));
  open_trace_ = static_cast<std::uint32_t>(report_.traces.size() - 1);
}

void ReportBuilder::end_trace() {
  in_caller_trace_ = false;
  if (!in_trace_) return;
  in_trace_ = false;
  if (!keeping_trace_) return;
  Trace& t = report_.traces.back();
  t.frame_count = static_cast<std::uint32_t>(report_.frames.size()) - t.first_frame;
}

void ReportBuilder::set_stack(StackKind stack, std::optional<std::string> exception, std::uint32_t line) {
  stack_ = stack;
  exception_ = std::move(exception);
  saw_marker_in_trace_ = true;
  if (!keeping_trace_ || report_.traces.empty()) return;
  // A section that has no frame yet is renamed rather than followed by another: finish()
  // drops empty sections anyway, and a run of markers must not cost memory per marker.
  if (!report_.sections.empty() && report_.sections.back().frame_count == 0 &&
      report_.sections.back().trace == report_.traces.size() - 1) {
    StackSection& last = report_.sections.back();
    last.stack = stack;
    last.exception = exception_;
    last.line = line;
    return;
  }
  StackSection sec;
  sec.stack = stack;
  sec.exception = exception_;
  sec.first_frame = static_cast<std::uint32_t>(report_.frames.size());
  sec.line = line;
  sec.trace = static_cast<std::uint32_t>(report_.traces.size() - 1);
  report_.sections.push_back(std::move(sec));
}

// An opening marker names the stack of the frames below it. A closing one
// returns to the task stack: x86 marks every other stack it walks into with an
// opening marker of its own, and before 5.16 printed none for the task stack.
void ReportBuilder::apply_markers(const std::vector<StackMarker>& markers, std::uint32_t line) {
  for (const StackMarker& m : markers) {
    if (m.open)
      set_stack(m.stack, m.exception, line);
    else
      set_stack(m.stack == StackKind::Task ? StackKind::Unknown : StackKind::Task, std::nullopt, line);
  }
}

void ReportBuilder::add_frame(const FrameText& text, std::uint32_t line) {
  ++frames_seen_;
  if (!keeping_trace_ || report_.frames.size() >= limits_.max_frames) return;  // counted in finish()
  if (report_.sections.empty() || report_.sections.back().trace != open_trace_) {
    set_stack(stack_, exception_, line);  // implicit first section of this trace
    saw_marker_in_trace_ = false;
  }
  // Room for most reports' frames at once (64 frames of 168 bytes: fewer bytes than the 32
  // reserved when a frame held its debuginfo slots in place), then growth by 4, not 2: every
  // regrowth moves all the frames, and a report of hundreds of frames would otherwise move
  // each several times. Never past the limit: the check above leaves capacity() < max_frames
  // here whenever the vector is full.
  if (report_.frames.size() == report_.frames.capacity()) {
    const std::size_t want = report_.frames.empty() ? 64 : report_.frames.capacity() * 4;
    report_.frames.reserve(std::min(want, limits_.max_frames));
  }
  // Made in place, once: constructing and moving a Frame costs more than filling it.
  Frame& f = report_.frames.emplace_back();
  text.fill(f);
  f.stack = stack_;
  if (exception_) f.exception = *exception_;  // a new frame holds none: nothing to reset
  f.line = line;
  f.trace = open_trace_;
  report_.sections.back().frame_count++;
}

void ReportBuilder::note_cpu(int cpu, std::uint32_t line) {
  if (!first_cpu_) {
    first_cpu_ = cpu;
    if (!report_.cpu) report_.cpu = cpu;
    return;
  }
  // A second task line for another CPU before the first trace: two reports are interleaved.
  if (*first_cpu_ != cpu && (first_trace_line_ == 0 || line < first_trace_line_) && report_.traces.empty())
    mark_corrupted("interleaved output: task lines for CPU " + std::to_string(*first_cpu_) + " and CPU " +
                   std::to_string(cpu));
}

// "CPU: 1 PID: 42 Comm: foo Tainted: G W 6.1.0 #1", "CPU: 1 UID: 0 PID: ...",
// "Pid: 42, comm: foo Not tainted 2.6.32 #1", "WARNING: CPU: 0 PID: 1 at ...".
bool ReportBuilder::parse_task_line(std::string_view s) {
  std::size_t at = s.find("CPU: ");
  if (at != std::string_view::npos && (at == 0 || s[at - 1] == ' ')) {
    std::string_view t = s.substr(at + 5);
    auto cpu = dec(t);
    if (!cpu) return false;
    const std::uint32_t line = report_.input.last_line;
    note_cpu(static_cast<int>(*cpu), line);
    t = trim_left(t);
    if (take_prefix(t, "UID: ")) {
      dec(t);
      t = trim_left(t);
    }
    if (take_prefix(t, "PID: ")) {
      if (auto pid = dec(t); pid && !report_.pid) report_.pid = static_cast<int>(*pid);
      t = trim_left(t);
      if (take_prefix(t, "Comm: ")) {
        // comm is %.20s and may hold spaces; the taint words follow it.
        std::size_t end = t.find(" Not tainted");
        if (end == std::string_view::npos) end = t.find(" Tainted: ");
        if (end == std::string_view::npos) end = t.find(' ');
        std::string_view comm = t.substr(0, end);
        if (comm.ends_with(" Kdump: loaded")) comm.remove_suffix(14);  // dump_stack_print_info's kexec note
        if (!report_.comm) report_.comm = std::string(comm);
        t = end == std::string_view::npos ? std::string_view{} : t.substr(end);
      }
    }
    note_kernel_build_id(parse_taint(t));
    return true;
  }
  if (take_prefix(s, "Pid: ")) {  // <= 3.9
    auto pid = dec(s);
    if (!pid) return false;
    if (!report_.pid) report_.pid = static_cast<int>(*pid);
    if (take_prefix(s, ", comm: ")) {
      std::size_t end = s.find(" Not tainted");
      if (end == std::string_view::npos) end = s.find(" Tainted: ");
      if (!report_.comm) report_.comm = std::string(trim(s.substr(0, end)));
      if (end != std::string_view::npos) {
        // 2.6-3.9 print the DMI name after the version: "... 3.6.1-1.fc17.x86_64 #1 HP Compaq/30FE".
        std::string_view rest = trim_left(parse_taint(s.substr(end)));
        if (take_prefix(rest, "#") && dec(rest)) {
          rest = trim(rest);
          if (!rest.empty() && !report_.hardware) report_.hardware = std::string(rest);
        }
      }
    }
    return true;
  }
  return false;
}

// "Not tainted 6.1.0 #1", "Tainted: G        W  OE  6.1.0 #1" and RHEL's
// "Tainted: P           ----------------   2.6.32-..." (a separator column, letters may follow it):
// the taint letters, then the release. Sets nothing when `t` holds neither form.
// Returns what follows the release ("#1 <hardware>" on <= 3.9 kernels).
std::string_view ReportBuilder::parse_taint(std::string_view t) {
  t = trim_left(t);
  if (take_prefix(t, "Not tainted")) {
    if (!report_.tainted) report_.tainted = "";
  } else if (take_prefix(t, "Tainted: ")) {
    if (!t.empty() && t[0] == '[') return {};  // 6.x verbose "Tainted: [W]=WARN, ..." line
    std::string letters;
    std::size_t i = 0;
    for (; i < t.size() && ((t[i] >= 'A' && t[i] <= 'Z') || t[i] == ' ' || t[i] == '-'); ++i)
      if (t[i] >= 'A' && t[i] <= 'Z') letters.push_back(t[i]);
    t.remove_prefix(i);
    if (!report_.tainted) report_.tainted = std::move(letters);
  } else {
    return {};
  }
  std::string_view release = take_word(t);
  if (take_prefix(release, "(")) release = release.substr(0, release.find(')'));  // ppc REGS: "(3.10.0)"
  if (release.empty() || !is_digit(release[0])) return {};
  if (!report_.kernel) report_.kernel = std::string(release);
  return t;
}

// What follows the release on a CPU: line: "#1", a preempt model (6.16+), and with
// CONFIG_STACKTRACE_BUILD_ID (5.14+) vmlinux's build id as its 20 bytes in hex, last.
void ReportBuilder::note_kernel_build_id(std::string_view rest) {
  rest = trim(rest);
  const std::size_t sp = rest.rfind(' ');
  const std::string_view last = sp == std::string_view::npos ? rest : rest.substr(sp + 1);
  if (last.size() != 40 || sp == std::string_view::npos || report_.kernel_build_id) return;
  for (char c : last)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return;
  report_.kernel_build_id = std::string(last);
}

// Sixteen bytes at a time where the line holds them: most lines asked start with a hex dump's
// word of 8 or 16 digits (parse_header_field asks every line that starts with a digit), where
// take_word's search for the space and a search of the word for '.' cost two memchr calls.
bool builder_detail::first_word_has_dot(std::string_view s) {
  std::size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    const auto hits = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('.')))));
    if (hits != 0) return s[i + static_cast<std::size_t>(std::countr_zero(hits))] == '.';
  }
#endif
  for (; i < s.size(); ++i) {
    if (s[i] == '.') return true;
    if (s[i] == ' ') return false;
  }
  return false;
}

// Lines that carry the release and taint without a task: lockdep/RCU headers
// ("3.6.0-rc1-wl+ #296 Tainted: G        W", "4.4.0 #11 Not tainted") and the
// hung-task line ("      Not tainted 5.10.0 #1").
bool ReportBuilder::parse_release_taint_line(std::string_view s) {
  if (has_prefix(s, "Not tainted") || has_prefix(s, "Tainted: ")) {
    parse_taint(s);
    return true;
  }
  if (s.empty() || !is_digit(s[0]) || !builder_detail::first_word_has_dot(s)) return false;
  std::string_view t = s;
  const std::string_view release = take_word(t);  // s[0] is a digit: the word first_word_has_dot read
  t = trim_left(t);
  if (!take_prefix(t, "#")) return false;
  if (!dec(t)) return false;
  t = trim_left(t);
  if (!t.starts_with("Not tainted") && !t.starts_with("Tainted: ")) return false;
  if (!report_.kernel) report_.kernel = std::string(release);
  parse_taint(t);
  return true;
}

// "Modules linked in: a(OE) b c [last unloaded: x]". Some logs wrap the list
// onto following lines; a continuation is taken only when every word looks
// like a module name, so prose cannot be swallowed.
bool ReportBuilder::add_module_words(std::string_view s, bool continuation) {
  const auto module_shaped = [](std::string_view w) {
    std::size_t i = 0;
    while (i < w.size() && (is_ident(w[i]) || w[i] == '-') && w[i] != '.' && w[i] != '$') ++i;
    if (i == 0) return false;
    // Not a module: a number, or a capitalised word of prose ("Sending", "Hardware").
    bool digits = true;
    for (std::size_t k = 0; k < i; ++k) digits = digits && is_digit(w[k]);
    if (digits || (i > 1 && w[0] >= 'A' && w[0] <= 'Z' && w[1] >= 'a' && w[1] <= 'z')) return false;
    if (i == w.size()) return true;
    if (w[i] != '(' || w.back() != ')') return false;
    for (char c : w.substr(i + 1, w.size() - i - 2))
      if (!((c >= 'A' && c <= 'Z') || c == '+' || c == '-' || c == '(' || c == ')')) return false;  // "radeon(+)(U)"
    return true;
  };
  if (continuation) {
    // The lines that follow a module list on old kernels are not module names.
    if (s.starts_with("CPU ") || s.starts_with("Pid: ")) return false;
    std::string_view t = s;
    int words = 0;
    for (int guard = 0; guard < 512; ++guard) {
      std::string_view w = take_word(t);
      if (w.empty() || w == "[last") break;
      if (!module_shaped(w)) return false;
      ++words;
    }
    if (words == 0) return false;
  }
  modules_may_continue_ = false;
  bool ended = false;
  for (;;) {  // a line is at most ParserLimits::max_line_bytes long
    std::string_view w = take_word(s);
    if (w.empty()) break;
    if (w == "[last") {
      ended = true;
      break;
    }
    ++modules_seen_;
    const std::size_t paren = w.find('(');
    if (report_.modules.size() < limits_.max_modules) report_.modules.emplace_back(w.substr(0, paren));
  }
  // A list that a tool wrapped has not reached "[last unloaded: ...]" and is
  // either long or followed by a line that lost the timestamp (checked in add_line).
  modules_may_continue_ = !ended && s.empty() && !report_.modules.empty();
  if (!continuation) modules_timestamped_ = line_had_timestamp_;
  return true;
}

// "WARNING: CPU: 0 PID: 1 at kernel/smp.c:912 smp_call_function_many_cond+0x3c4/0x3c8 [mod]"
// "WARNING: at net/sched/sch_generic.c:255 dev_watchdog+0x238/0x250()"
void ReportBuilder::parse_warning_header(std::string_view s) {
  const std::size_t at = s.find(" at ");
  if (at == std::string_view::npos) return;
  std::string_view t = s.substr(at + 4);
  take_word(t);  // file:line (or the symbol itself on kernels that print no file)
  t = trim_left(t);
  if (auto r = parse_symbol_ref(t)) {
    report_.warn_site = to_location(*r);
    return;
  }
  std::string_view u = s.substr(at + 4);
  if (auto r = parse_symbol_ref(u)) report_.warn_site = to_location(*r);
}

// The header fields by the first byte of the line: each prefix is tried only on lines that
// start with its first byte, which a line starting with another byte cannot match, and prefixes
// that share a first byte are tried in the order they always were (the first that matches
// decides). A line that matches none is tried as a register line, as before.
bool ReportBuilder::parse_header_field(std::string_view s, std::uint32_t line) {
  if (s.empty()) return false;
  switch (s[0]) {
    case 'C':
      if (has_prefix(s, "CPU: ")) return parse_task_line(s);
      if (has_prefix(s, "CPU ") && s.size() <= 9) {  // 2.6-3.x "CPU 1 " on a line of its own
        std::string_view t = s.substr(4);
        if (auto cpu = dec(t); cpu && trim(t).empty()) {
          note_cpu(static_cast<int>(*cpu), line);
          return true;
        }
      }
      if (take_prefix(s, "Code: ")) {
        if (report_.code_bytes.empty()) report_.code_bytes = std::string(trim(s));
        return true;
      }
      break;
    case 'P':
      if (has_prefix(s, "Pid: ")) return parse_task_line(s);
      if (has_prefix(s, "PC is at ")) return parse_code_site(s);
      if (has_prefix(s, "PC: [<")) {  // m68k's show_registers(): "PC: [<%08lx>] %pS"
        if (report_.arch == Arch::Unknown) report_.arch = Arch::M68k;
        return parse_code_site(s);
      }
      break;
    case 'H':
      if (take_prefix(s, "Hardware name: ")) {
        if (!report_.hardware) report_.hardware = std::string(trim(s));
        return true;
      }
      break;
    case 'M':
      if (take_prefix(s, "Modules linked in:")) {
        if (report_.modules.empty()) add_module_words(s, false);
        return true;
      }
      break;
    case 'N':
      if (parse_release_taint_line(s)) return true;  // "Not tainted"
      if (has_prefix(s, "NIP ")) return parse_code_site(s);
      break;
    case 'T':
      if (has_prefix(s, "TPC: <") || has_prefix(s, "TSTATE: ")) return parse_sparc_site(s);
      if (parse_release_taint_line(s)) return true;  // "Tainted: "
      break;
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
      if (parse_release_taint_line(s)) return true;  // "6.1.0-1 #1 Tainted: ..."
      break;
    case 'K':
      if (has_prefix(s, "Krnl PSW")) return parse_psw_line(s);
      if (take_prefix(s, "Kernel Offset: ")) {
        std::string_view t = s;
        if (auto v = hex0x(t)) report_.kaslr_offset = static_cast<std::int64_t>(*v);
        return true;
      }
      break;
    case 'R':
      if (has_prefix(s, "RIP: ")) return parse_code_site(s);
      if (is_register_row(s)) return parse_register_row(s, line);
      break;
    case 'E':
      if (has_prefix(s, "EIP: ") || has_prefix(s, "EIP is at ")) return parse_code_site(s);
      if (is_register_row(s)) return parse_register_row(s, line);
      break;
    case 'p':
      if (has_prefix(s, "pc : ")) return parse_code_site(s);
      break;
    case 'e':
      if (has_prefix(s, "epc : ")) return parse_code_site(s);
      break;
    case 'I':
      if (has_prefix(s, "IP: ")) return parse_code_site(s);
      if (has_prefix(s, "IAOQ[0]: ")) return parse_parisc_site(s);
      break;
    case 'x':
    case 'l':
      if (has_prefix(s, "x29: ") || has_prefix(s, "lr : ")) {
        if (report_.arch == Arch::Unknown) report_.arch = Arch::Arm64;
        return true;
      }
      break;
    default: break;
  }
  return builder_detail::is_register_line(s);
}

// sparc64's show_regs() (arch/sparc/kernel/process_64.c): "TSTATE: %016lx TPC: %016lx TNPC: ..."
// (the trap's state and pc, then the taint), then "TPC: <%pS>": the crash site's address, then its
// symbol. The first such pair is the report's crash site, as the first "RIP:" is on x86.
bool ReportBuilder::parse_sparc_site(std::string_view s) {
  if (report_.arch == Arch::Unknown) report_.arch = Arch::Sparc64;
  register_block_open_ = false;
  if (s[1] == 'S') {
    const std::size_t at = s.find(" TPC: ");
    if (at == std::string_view::npos) return true;
    std::string_view t = s.substr(at + 6);
    const auto pc = hex(t);
    if (pc && !report_.rip) {
      CodeLocation loc;
      loc.address = pc;
      report_.rip = std::move(loc);
    }
    return true;
  }
  std::string_view t = s.substr(6);
  if (!t.empty() && t.back() == '>') t.remove_suffix(1);
  auto r = parse_symbol_ref(t);
  if (!r) return true;
  CodeLocation named = to_location(*r);
  if (!report_.rip) {
    report_.rip = std::move(named);
  } else if (!report_.rip->function) {
    named.address = report_.rip->address;
    report_.rip = std::move(named);
  }
  return true;
}

// parisc's show_regs() (arch/parisc/kernel/traps.c) for a kernel-mode trap: " IAOQ[0]: %pS", the
// front of the instruction address queue, is the crash site (" IAOQ[1]: ", the next instruction,
// and " RP(r2): ", the return pointer, are register lines). The first is the report's, as on x86.
bool ReportBuilder::parse_parisc_site(std::string_view s) {
  if (report_.arch == Arch::Unknown) report_.arch = Arch::Parisc;
  register_block_open_ = false;
  if (report_.rip) return true;
  std::string_view t = trim_left(s.substr(9));
  std::string_view u = t;
  if (auto r = parse_symbol_ref(u)) {
    report_.rip = to_location(*r);
  } else if (auto v = hex(t)) {  // a user-mode trap prints the address alone
    CodeLocation loc;
    loc.address = v;
    report_.rip = std::move(loc);
  }
  return true;
}

// s390 "Krnl PSW : 0404c00180000000 0000000000431f8e (scsi_alloc_sgtable+0x62/0x7c)"
bool ReportBuilder::parse_psw_line(std::string_view s) {
  if (report_.arch == Arch::Unknown) report_.arch = Arch::S390;
  if (!report_.rip) {
    std::string_view t = s.substr(s.find(':') == std::string_view::npos ? s.size() : s.find(':') + 1);
    take_word(t);  // PSW mask
    std::string_view a = trim_left(t);
    CodeLocation loc;
    if (auto v = hex(a)) loc.address = v;
    const std::size_t open = t.find('(');
    if (open != std::string_view::npos) {
      std::string_view sym = t.substr(open + 1);
      if (auto r = parse_symbol_ref(sym)) {
        CodeLocation named = to_location(*r);
        named.address = loc.address;
        loc = std::move(named);
      }
    }
    if (loc.function || loc.address) report_.rip = std::move(loc);
  }
  return true;
}

// The crash site: "RIP: 0010:foo+0x1/0x2", "EIP: 0060:[<c1234567>]", "pc : foo+0x1/0x2",
// "NIP [c0000000001234] foo+0x1/0x2", "PC is at foo+0x1/0x2", "EIP is at ...", "epc : ", "IP: ".
bool ReportBuilder::parse_code_site(std::string_view s) {
  register_block_open_ = false;  // the register rows after it are a block of their own
  if (report_.arch == Arch::Unknown) {
    if (s[0] == 'R')
      report_.arch = Arch::X86_64;
    else if (s[0] == 'E' && s[1] == 'I')
      report_.arch = Arch::I386;
    else if (s[0] == 'p')
      report_.arch = Arch::Arm64;
    else if (s[0] == 'N')
      report_.arch = Arch::PowerPC;
    else if (s[0] == 'P')
      report_.arch = Arch::Arm;
    else if (s[0] == 'e')
      report_.arch = Arch::RiscV;
    else if (s[0] == 'I')
      report_.arch = Arch::X86_64;
  }
  // Old i386/arm print the address first ("EIP: 0060:[<c1234567>] EFLAGS: ...")
  // and the symbol on a later "EIP is at foo+0x1/0x2" line: the later line completes the site.
  if (!report_.rip || !report_.rip->function) {
    std::string_view t = s.substr(s.find(' ') + 1);
    t = trim_left(t);
    if (take_prefix(t, ":")) t = trim_left(t);                            // arm64/riscv "pc : ", "epc : "
    take_prefix(t, "is at ");                                             // "PC is at ", "EIP is at "
    if (t.size() > 5 && t[4] == ':' && is_hex(t[0])) t.remove_prefix(5);  // "0010:"
    CodeLocation loc;
    bool have = false;
    for (int i = 0; i < 3 && !have; ++i) {
      t = trim_left(t);
      std::string_view a = t;
      if (take_prefix(a, "[<")) {
        if (auto v = hex(a); v && take_prefix(a, ">]")) {
          loc.address = v;
          t = a;
          continue;
        }
      } else if (take_prefix(a, "[")) {  // powerpc "NIP [c0000000001234] foo+0x1/0x2"
        if (auto v = hex(a); v && take_prefix(a, "]")) {
          loc.address = v;
          t = a;
          continue;
        }
      }
      std::string_view b = t;
      if (auto r = parse_symbol_ref(b)) {
        CodeLocation named = to_location(*r);
        named.address = loc.address;
        loc = std::move(named);
        have = true;
      } else {
        std::string_view c = t;
        if (auto v = hex0x(c)) {
          loc.address = v;
          have = true;
        }
        break;
      }
    }
    // Page-fault "IP:" lines exist on both x86 flavours; a 32-bit code address means i386.
    if (s[0] == 'I' && report_.arch == Arch::X86_64 && loc.address && *loc.address <= 0xffffffffULL)
      report_.arch = Arch::I386;
    if (!report_.rip) {
      if (have || loc.address) report_.rip = std::move(loc);
    } else if (loc.function && (!loc.address || !report_.rip->address || *loc.address == *report_.rip->address)) {
      if (!loc.address) loc.address = report_.rip->address;
      report_.rip = std::move(loc);
    }
  }
  return true;
}

std::size_t builder_detail::read_register_row(std::string_view s, RegisterValues& out) {
  std::string_view t = s;
  std::size_t n = 0;
  for (; n < out.size() && !t.empty(); ++n) {
    t = trim_left(t);
    const std::size_t colon = name_colon(t);
    if (colon == std::string_view::npos) break;
    const std::string_view name = t.substr(0, colon);
    t.remove_prefix(colon + 2);
    t = trim_left(t);
    if (t.size() > 5 && t[4] == ':') t.remove_prefix(5);  // "RSP: 0018:ffff..."
    auto v = hex_wide(t);
    if (!v) break;
    out[n] = {name, *v};
  }
  return n;
}

// Where the general reading looks for the first ": " within each word, trims and counts the
// digits, a row of x86-64's fixed shape (two thirds of all register rows: RAX/RBX/RCX,
// RDX/RSI/RDI, RBP/R08/R09, R10/R11/R12, R13/R14/R15) has all of them at known places. A name
// byte that is neither a blank nor ':' leaves the first ": " at 3, as read_register_row finds it;
// its last value ends the row, the others a space; read_register_row would stop at four, not 3.
namespace {
// builder_detail::read_fixed_register_row, always inline into parse_register_row (a call and
// the array passed through memory cost a third of the row's reading).
[[gnu::always_inline]] inline std::size_t fixed_register_row(std::string_view s, builder_detail::RegisterValues& out) {
  constexpr std::size_t kWord = 21;  // "RAX: " and sixteen digits
  if (s.size() != 3 * kWord + 2) return 0;
  for (std::size_t w = 0; w < 3; ++w) {
    const std::size_t at = w * (kWord + 1);
    // is_ident: neither a blank nor ':' (one load each), which the names of x86-64 are.
    if (s[at + 3] != ':' || s[at + 4] != ' ' || !is_ident(s[at]) || !is_ident(s[at + 1]) || !is_ident(s[at + 2]))
      return 0;
    if (w < 2 && s[at + kWord] != ' ') return 0;
    std::string_view digits = s.substr(at + 5, 16);
    const auto v = hex_wide(digits);
    if (!v || !digits.empty()) return 0;
    out[w] = {s.substr(at, 3), *v};
  }
  return 3;
}
}  // namespace

std::size_t builder_detail::read_fixed_register_row(std::string_view s, RegisterValues& out) {
  return fixed_register_row(s, out);
}

// x86 register rows: "RAX: 0000000000000000 RBX: ffff8801ac392080 RCX: ffffffff84db22a1"
bool ReportBuilder::parse_register_row(std::string_view s, std::uint32_t line) {
  builder_detail::RegisterValues regs;
  std::size_t n = fixed_register_row(s, regs);
  if (n == 0) n = builder_detail::read_register_row(s, regs);
  for (std::size_t i = 0; i < n; ++i) {
    ++registers_seen_;
    if (registers_kept_ < limits_.max_registers) add_register(regs[i].name, regs[i].value, line);
  }
  return true;
}

// A row's register starts a block of its own after a RIP line, or when the open block
// already holds its name: a report may print __show_regs() more than once (the crash's
// registers, then the user-mode ones saved at syscall entry, or an interrupted context's
// inside a trace), and a reader asking for RSP means the first block's.
void ReportBuilder::add_register(std::string_view name, std::uint64_t value, std::uint32_t line) {
  // A 64-bit filter of the open block's names: a name whose bit is clear is new without a
  // search (most are: a block holds each name once); a set bit is checked exactly. The bit
  // comes from the first two bytes, the last and the length, multiplied by a constant picked
  // so that the names of an x86-64 block (RIP, RSP, EFLAGS, ORIG_RAX, RAX ... R15) and of an
  // i386 one take a bit each: RAX, RBX, RCX and RDX shared one under a sum of first and last.
  std::uint64_t key = name.size() << 24;
  if (!name.empty()) {
    key |= static_cast<unsigned char>(name.front()) | std::uint64_t{static_cast<unsigned char>(name.back())} << 16;
    if (name.size() > 1) key |= std::uint64_t{static_cast<unsigned char>(name[1])} << 8;
  }
  const std::uint64_t bit = std::uint64_t{1} << ((key * 0x7d8dd474c146a389ULL) >> 58);
  const bool repeated = (register_names_ & bit) != 0 &&
                        std::any_of(report_.registers.back().values.begin(), report_.registers.back().values.end(),
                                    [&](const auto& kv) { return kv.first == name; });
  if (report_.registers.empty() || !register_block_open_ || repeated) {
    report_.registers.push_back({line, {}});
    report_.registers.back().values.reserve(kRegistersPerBlock);
    register_names_ = 0;
  }
  register_block_open_ = true;
  register_names_ |= bit;
  // Made in place: a std::string made first and moved in costs a second copy of the name.
  report_.registers.back().values.emplace_back(std::piecewise_construct, std::forward_as_tuple(name),
                                               std::forward_as_tuple(value));
  ++registers_kept_;
}

bool ReportBuilder::trace_shaped(std::string_view text, bool& parsed) {
  const std::string_view s = trim(text);
  if (s.empty()) return false;
  if (opens_trace(s)) return true;
  // The shapes add_line reads as frames (see frame_shaped there); other lines need no parse.
  const char first = text[0];
  if (!in_trace_ && first != ' ' && first != '\t' && first != '[' && first != '(' && first != '<') return false;
  parsed = parse_trace_text(text, trace_);
  return parsed;
}

ReportBuilder::Effect ReportBuilder::add_line(const CleanLine& line) {
  // Another program's line (syslog, a console shared with user space) says nothing of whether
  // the kernel has finished this report: it is not counted as an unrelated kernel line.
  if (line.foreign) return Effect::Ignored;
  // A timestamped report's lines all carry the console's timestamp: a line without one is not
  // the kernel's (decodecode's disassembly after "Code:", user space sharing the console) and
  // says nothing of the report, not even that it ended; unless it continues a "Modules linked
  // in:" list that a paste wrapped, or is a trace line a paste kept without its timestamp.
  // Most such lines (another program's output on the console) are answered by their first byte
  // (not_trace_shaped), in place: one that is no blank can only open a trace as 'C', 'B' or 'b'
  // (opens_trace), out of a trace a frame's first byte is one of frame_shaped's, and in a trace
  // one that parse_trace_text reads (may_start_trace_text).
  // trace_ holds this line's reading when trace_shaped() parsed it (and found a marker or a
  // frame): the frame-shaped branch below, which would read the same text again, uses it.
  bool parsed = false;
  if (timestamped_ && !line.had_timestamp && !modules_may_continue_ &&
      (builder_detail::not_trace_shaped(line.text, in_trace_) || !trace_shaped(line.text, parsed)))
    return Effect::Ignored;
  if (caller_kind_ && line.caller_kind && (line.caller_kind != caller_kind_ || line.caller_id != caller_id_)) {
    ++idle_;  // another context's output interleaved with ours: leave it out
    return Effect::Ignored;
  }
  const std::string_view text = line.text;
  const std::string_view s = trim(text);
  if (s.empty()) {
    ++idle_;
    return Effect::Ignored;
  }

  if (opens_trace(s)) {
    start_trace(pending_label_.empty() ? std::string("Call Trace") : pending_label_, line.number,
                !builder_detail::is_auxiliary_label(pending_label_));
    touch(line.number);
    std::string_view rest = trim(s.substr(s.find(':') + 1));
    if (!rest.empty()) {
      if (parse_trace_text(rest, trace_) && trace_.has_frame) {
        if (!trace_.markers.empty()) apply_markers(trace_.markers, line.number);  // most lines have none
        add_frame(trace_.frame, line.number);
        return Effect::TraceFrame;
      }
    }
    return Effect::Consumed;
  }

  line_had_timestamp_ = line.had_timestamp;
  if (modules_may_continue_) {
    modules_may_continue_ = false;
    // On a timestamped console a wrapped remainder has lost the timestamp.
    const bool wrapped = !modules_timestamped_ || !line.had_timestamp;
    if (wrapped && add_module_words(s, true)) {
      touch(line.number);
      return Effect::Consumed;
    }
  }
  if (s == "Last Breaking-Event-Address:") {
    // s390 prints the source of the last taken branch after the trace: it is a
    // code location, not a caller, so it must not extend the call trace.
    end_trace();
    last_break_next_ = true;
    touch(line.number);
    return Effect::Consumed;
  }
  if (last_break_next_) {
    last_break_next_ = false;
    if (parse_trace_text(text, trace_) && trace_.has_frame) {
      const FrameText& f = trace_.frame;
      CodeLocation loc;
      if (!f.function.empty()) loc.function = std::string(f.function);
      loc.offset = f.offset;
      loc.size = f.size;
      if (!f.module.empty()) loc.module = std::string(f.module);
      loc.address = f.address;
      report_.last_break = std::move(loc);
      touch(line.number);
      return Effect::Consumed;
    }
  }

  // sparc's die_if_kernel() prints its own walk of the register windows after show_regs()'s "Call
  // Trace:" ("Caller[%016lx]: %pS", trace_line.cpp): a trace of its own, though no label opens it.
  if (s[0] == 'C' && s.starts_with("Caller[") && parse_trace_text(s, trace_) && trace_.has_frame) {
    if (!in_caller_trace_) {
      start_trace("Caller", line.number, true);
      in_caller_trace_ = true;
    }
    non_frame_in_trace_ = 0;
    touch(line.number);
    add_frame(trace_.frame, line.number);
    return Effect::TraceFrame;
  }

  const char first = text.empty() ? '\0' : text[0];
  const bool frame_shaped = in_trace_ || first == ' ' || first == '\t' || first == '[' || first == '(' || first == '<';
  if (frame_shaped) {
    // parse_trace_text trims the line's left first: it is given the line from where trim() found its first byte.
    std::string_view from_first = text;
    from_first.remove_prefix(static_cast<std::size_t>(s.data() - text.data()));
    if (parsed || parse_trace_text(from_first, trace_)) {
      if (!in_trace_) {
        // Frames with no "Call Trace:" header: KASAN/KMSAN/KFENCE access stacks, lockdep chains.
        start_trace(pending_label_.empty() ? std::string("Call Trace") : pending_label_, line.number,
                    !builder_detail::is_auxiliary_label(pending_label_));
      }
      non_frame_in_trace_ = 0;
      if (!trace_.markers.empty()) apply_markers(trace_.markers, line.number);  // most lines have none
      touch(line.number);
      if (trace_.has_frame) {
        add_frame(trace_.frame, line.number);
        return Effect::TraceFrame;
      }
      return Effect::Consumed;
    }
  }

  if (parse_header_field(s, line.number)) {
    touch(line.number);
    if (in_trace_) non_frame_in_trace_ = 0;
    return Effect::Consumed;
  }
  // Inside a trace, or the "Stack: (0x... to 0x...)" dump arm prints before its backtrace
  // (hundreds of rows on a stack overflow): the report goes on.
  if (builder_detail::may_start_hex_dump_line(s[0]) && builder_detail::is_hex_dump_line(s)) {
    touch(line.number);
    return Effect::Consumed;
  }

  if (in_trace_) {
    // One stray line (another CPU's message) does not end a trace; a label or a few lines do.
    if (s.back() == ':' || ++non_frame_in_trace_ >= 3) end_trace();
  }
  if (s.back() == ':' && s.size() < 200) {
    pending_label_ = std::string(s.substr(0, s.size() - 1));
    touch(line.number);
    return Effect::Consumed;
  }
  ++idle_;
  return Effect::Ignored;
}

Report ReportBuilder::finish() {
  end_trace();
  // Pick a stack for frames printed before any marker. x86 kernels mark every
  // stack but the task stack (before 5.16 the task stack had no marker), so
  // unmarked x86 frames are on the task stack. Other architectures print no
  // markers at all: there the stack is not known from the text.
  bool x86 = report_.arch == Arch::X86_64 || report_.arch == Arch::I386;
  if (report_.arch == Arch::Unknown) {
    for (const Frame& f : report_.frames) {
      if (f.printed_unreliable || (f.address && *f.address >= 0xffffffff80000000ULL)) {
        x86 = true;
        break;
      }
    }
  }
  if (x86) {
    for (Frame& f : report_.frames)
      if (f.stack == StackKind::Unknown) f.stack = StackKind::Task;
    for (StackSection& s : report_.sections)
      if (s.stack == StackKind::Unknown) s.stack = StackKind::Task;
  }
  for (const Frame& f : report_.frames) {
    if (f.address && f.function) {
      report_.old_address_format = true;
      break;
    }
  }
  // Drop empty sections (a marker followed directly by another marker).
  std::erase_if(report_.sections, [](const StackSection& s) { return s.frame_count == 0; });
  if (report_.frames.empty() && requires_trace(report_.kind) && frames_seen_ == 0)
    mark_corrupted("no call trace: the report is truncated or its trace lines are missing");
  const auto limited = [&](const char* what, std::uint64_t seen, std::uint64_t kept, std::uint64_t limit,
                           const char* unit, const char* option) {
    if (seen > kept) report_.truncated.push_back(Truncation{what, seen, kept, limit, unit, option});
  };
  limited("long lines", cut_lines_ + 0, 0, cut_limit_, "bytes", "");
  limited("traces", traces_seen_, report_.traces.size(), limits_.max_frames, "", "--max-frames");
  limited("frames", frames_seen_, report_.frames.size(), limits_.max_frames, "", "--max-frames");
  limited("modules", modules_seen_, report_.modules.size(), limits_.max_modules, "", "");
  limited("registers", registers_seen_, registers_kept_, limits_.max_registers, "", "");
  return std::move(report_);
}

}  // namespace btaudit
