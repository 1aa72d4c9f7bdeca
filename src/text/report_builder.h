// Fills one Report from the cleaned lines that belong to it: the header
// fields (CPU/PID/comm, taint, release, hardware), the crash site, registers,
// code bytes, modules, and the traces with their stack sections.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/report.h"
#include "text/line_cleaner.h"
#include "text/report_markers.h"
#include "text/trace_line.h"

namespace btaudit {

// What one report may hold; past these its frames, traces, modules and registers
// are counted, not kept, and finish() says so in Report::truncated.
struct ReportLimits {
  std::size_t max_frames = 4096;  // frames, and traces (--max-frames)
  std::size_t max_modules = 4096;
  std::size_t max_registers = 64;
};

namespace builder_detail {
// A line of a register dump other than an x86 register row ("RIP: ", "CR2: ", "pc : ", ...).
bool is_register_line(std::string_view s);
// A trace label that names an object's history (an allocation or free stack, a lockdep chain),
// not the crashing context: it holds one of a list of phrases.
bool is_auxiliary_label(std::string_view label);
// True when ReportBuilder::trace_shaped must answer false for `text` whatever its bytes after the
// first: it is empty, or its first byte opens no trace and starts no frame (out of a trace: none
// of the bytes a frame line starts with; in a trace: none that may_start_trace_text() allows).
inline bool not_trace_shaped(std::string_view text, bool in_trace) {
  if (text.empty()) return true;
  switch (text[0]) {
    case ' ':
    case '\t':
    case '\r':
    case '\f':
    case '\v':  // scan::is_space: the trimmed line may open a trace
    case 'C':
    case 'B':
    case 'b': return false;
    case '[':
    case '(':
    case '<': return false;
    // In a trace every line is parsed, and parse_trace_text rejects these bytes at once.
    default: return !in_trace || !may_start_trace_text(text[0]);
  }
}
// A line of a raw hex stack dump ("Stack:" block of <= 4.10 kernels, arm's
// "Exception stack(0x... to 0x...)" block with its "5bc0: 00000000 ..." rows).
bool is_hex_dump_line(std::string_view s);
// False when no trimmed line that starts with `c` is a hex dump line: one starts with a hex digit (a
// word, arm's row offset), '<' (a marker before its words) or 'E' ("Exception stack(").
// Inline: most lines that add_line asks about start otherwise.
inline bool may_start_hex_dump_line(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '<' || c == 'E';
}
// Whether the first word of `s` (up to its first ' ') holds a '.': a release ("6.1.0-rc1") does,
// and a hex dump's row ("0000000000000000 ffff8801...") that starts with a digit does not.
bool first_word_has_dot(std::string_view s);
// One register of a row, as parse_register_row reads it: the name points into the row.
struct RegisterValue {
  std::string_view name;
  std::uint64_t value = 0;
};
using RegisterValues = std::array<RegisterValue, 4>;
// The registers of an x86 register row ("RAX: 0000000000000000 RBX: ... RCX: ..."), up to
// four, read word by word: their count.
std::size_t read_register_row(std::string_view s, RegisterValues& out);
// read_register_row for the shape of x86-64's rows of general registers only (three names of
// three bytes, each with sixteen digits, one space apart): 3, or 0 for any other row, which
// read_register_row must read.
std::size_t read_fixed_register_row(std::string_view s, RegisterValues& out);
}  // namespace builder_detail

class ReportBuilder {
 public:
  ReportBuilder(std::string path, const StartMarker& start, const CleanLine& line, std::uint32_t first_line,
                ReportLimits limits = {});

  // What a line did to the report.
  enum class Effect { Ignored, Consumed, TraceFrame };
  Effect add_line(const CleanLine& line);

  // Marks a start line of the same report ("Oops:" after "BUG: unable to handle").
  void add_follow_up(const StartMarker& marker, const CleanLine& line);
  // Attaches another CPU's backtrace ("NMI backtrace for cpu 1") as a secondary trace.
  void add_backtrace(const StartMarker& marker, const CleanLine& line);
  void mark_corrupted(std::string reason);
  // A line of the report was cut to `limit` bytes before it was read.
  void note_cut_line(std::size_t limit);

  bool in_trace() const { return in_trace_; }
  bool timestamped() const { return timestamped_; }  // the report's start line had a console timestamp
  bool has_frames() const { return !report_.frames.empty(); }
  std::uint32_t last_line() const { return report_.input.last_line; }
  std::uint32_t idle_lines() const { return idle_; }
  const Report& report() const { return report_; }
  char caller_kind() const { return caller_kind_; }
  std::uint32_t caller_id() const { return caller_id_; }

  Report finish();

 private:
  // Inline: every kept line calls it, and a call costs more than its two stores.
  void touch(std::uint32_t line) {
    if (line > report_.input.last_line) report_.input.last_line = line;
    idle_ = 0;
  }
  void start_trace(std::string label, std::uint32_t line, bool primary);
  void end_trace();
  void set_stack(StackKind stack, std::optional<std::string> exception, std::uint32_t line);
  void add_frame(const FrameText& text, std::uint32_t line);
  void apply_markers(const std::vector<StackMarker>& markers, std::uint32_t line);
  bool parse_header_field(std::string_view s, std::uint32_t line);
  // A "Call Trace:" line, a frame or a stack marker (add_line asks builder_detail::not_trace_shaped first).
  // `parsed` is set when the answer came from parse_trace_text (trace_ then holds the line's reading).
  bool trace_shaped(std::string_view text, bool& parsed);
  bool parse_psw_line(std::string_view s);
  bool parse_code_site(std::string_view s);
  bool parse_sparc_site(std::string_view s);
  bool parse_parisc_site(std::string_view s);
  bool parse_register_row(std::string_view s, std::uint32_t line);
  // Always inline (defined in report_builder.cpp, its only user): made in parse_register_row, per
  // register, where a call cost more than its filter test.
  [[gnu::always_inline]] inline void add_register(std::string_view name, std::uint64_t value, std::uint32_t line);
  bool parse_task_line(std::string_view s);
  void parse_warning_header(std::string_view s);
  void parse_hung_task_header(std::string_view s);
  void note_cpu(int cpu, std::uint32_t line);
  bool parse_release_taint_line(std::string_view s);
  bool add_module_words(std::string_view s, bool continuation);
  std::string_view parse_taint(std::string_view t);
  void note_kernel_build_id(std::string_view rest);

  Report report_;
  bool in_trace_ = false;
  bool in_caller_trace_ = false;  // the open trace is sparc's "Caller[...]" walk (add_line)
  std::uint32_t non_frame_in_trace_ = 0;
  std::uint32_t idle_ = 0;
  std::string pending_label_;  // last line ending in ':' (labels an implicit trace)
  StackKind stack_ = StackKind::Unknown;
  std::optional<std::string> exception_;
  bool saw_marker_in_trace_ = false;
  char caller_kind_ = 0;
  std::uint32_t caller_id_ = 0;
  std::optional<int> first_cpu_;
  std::uint32_t first_trace_line_ = 0;
  bool modules_may_continue_ = false;  // the last line was a "Modules linked in:" list that may wrap
  bool line_had_timestamp_ = false;    // of the line being added
  bool timestamped_ = false;           // the report's start line had a console timestamp
  bool modules_timestamped_ = false;   // the "Modules linked in:" line had a timestamp
  bool last_break_next_ = false;       // s390: the next frame-shaped line is the last breaking event
  TraceText trace_;                    // the trace line being read, reused from line to line
  ReportLimits limits_;
  bool keeping_trace_ = true;       // the open trace is kept (false past limits_.max_frames traces)
  std::uint32_t open_trace_ = 0;    // while keeping_trace_: the index of the open trace, report_.traces.back()
  std::uint64_t frames_seen_ = 0;   // frame lines read, kept or not
  std::uint64_t traces_seen_ = 0;   // traces started, kept or not
  std::uint64_t modules_seen_ = 0;  // module names read, kept or not
  std::uint64_t registers_seen_ = 0;
  std::uint64_t registers_kept_ = 0;  // values in every block of report_.registers
  bool register_block_open_ = false;  // no RIP/EIP/pc line since the last register row
  std::uint64_t register_names_ = 0;  // a filter of the open block's names (add_register)
  // x86-64's __show_regs() prints 18 (RSP, EFLAGS, ORIG_RAX and 15 more): one allocation a block.
  static constexpr std::size_t kRegistersPerBlock = 18;
  std::uint64_t cut_lines_ = 0;
  std::size_t cut_limit_ = 0;
};

}  // namespace btaudit
