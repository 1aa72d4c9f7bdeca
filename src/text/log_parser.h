// Splits a console log into reports. Lines go in one at a time (so a log of
// any size streams through), reports come out through a callback in the order
// they started. Join rules (see report_markers.h) keep a report's follow-up
// lines ("Oops:", "Kernel panic - not syncing: Fatal exception", other CPUs'
// NMI backtraces) in the report that caused them. Each report also keeps its
// own console lines (Report::text) for the title rules, the way syzkaller reads
// them: same printk context only, unvouched '?' frames left out, cut at the next
// report on a plain console but not at lines that only follow one.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/report.h"
#include "text/line_scan.h"
#include "text/report_builder.h"

namespace btaudit {

struct ParserLimits {
  std::uint32_t soft_window = 4;           // lines between a "[ cut here ]" banner and its start line
  std::uint32_t consequence_window = 60;   // lines after a report in which a panic still belongs to it
  std::uint32_t idle_after_trace = 25;     // unrelated lines that close a report whose trace has ended
  std::uint32_t idle_before_trace = 120;   // unrelated lines that close a report still waiting for its trace
  std::size_t max_line_bytes = 64 * 1024;  // longer lines are truncated before parsing
  std::size_t max_frames = 4096;           // frames (and traces) kept per report; more are counted (Report::truncated)
  std::size_t max_text_lines = 1500;       // console lines kept per report for title rules
  std::size_t max_text_line_bytes = 1024;  // longer kept lines are cut (title rules read line starts)
};

// The console lines of one report, as title rules want them: the report's own
// context only, from its start line until the report is handed on.
struct ReportText {
  std::vector<std::string_view> lines;  // views of the fed lines, not copies
  // The pieces of a streamed log (LogPiece) that `lines` view, kept alive for them.
  std::vector<std::shared_ptr<const std::string>> pins;
  bool other_cpus = false;  // "Sending NMI from CPU": other CPUs' backtraces belong to the report
  bool stopped = false;     // a panic or lockdep banner after enough lines: the rest is a consequence
};

class LogParser {
 public:
  using Sink = std::function<void(Report&&)>;
  LogParser(std::string path, Sink sink, ParserLimits limits = {});

  // One line, without its '\n'. The reports' text (Report::text) views the lines
  // fed: they must outlive the sink's use of each report, unless they come from the
  // storage named by set_storage.
  void feed(std::string_view raw_line) { feed(raw_line, raw_line.data() + raw_line.size()); }
  // The same, the bytes from raw_line up to readable_end readable (the buffer the line is in goes
  // on): the line scanner may read whole blocks past a short line's end.
  void feed(std::string_view raw_line, const char* readable_end);
  // The lines fed from now on live in `storage`: a report viewing them keeps it alive
  // (Report::text_storage), so the caller may let go of it.
  void set_storage(std::shared_ptr<const std::string> storage) { storage_ = std::move(storage); }
  void finish();  // flushes the open report

 private:
  struct SoftBanner {
    std::uint32_t line = 0;
    bool cut_here = false;  // WARN's "------------[ cut here ]------------", not a sanitizer's "=====" rule
  };
  // A line clean_line_deferred left whole whose scan saw a '[' that may open a timestamp: the
  // line as clean_line reads it, and its scan. (Out of line: the common path keeps one copy of each.)
  [[gnu::noinline]] void reclean(std::string_view raw, const char* readable_end, CleanLine& line, LineScan& seen) const;
  // `trimmed`: line.text without its indentation; `roles`: first_byte_roles(trimmed).
  [[gnu::always_inline]] inline void route(const CleanLine& line, const LineScan& seen, std::string_view trimmed,
                                           std::uint8_t roles);
  // A start line (few): kept out of route(), whose common path then needs fewer registers saved.
  [[gnu::noinline]] void route_start(const StartMarker& marker, const CleanLine& line);
  void reopen_closed();
  void flush_trailing();
  static bool cuts_text(const ReportBuilder& earlier, const StartMarker& marker);
  void start(const StartMarker& marker, const CleanLine& line);
  void close_open();
  // A "WARNING:" of checkpatch.pl: the open report, its header alone, and the line after it.
  static bool checkpatch_reference(const ReportBuilder& b, std::string_view text);
  // Forgets the open report when it is checkpatch's: true then. (Out of line: route() stays small.)
  [[gnu::noinline]] bool dropped_checkpatch_warning(std::string_view text);
  void emit(ReportBuilder&& b, ReportText&& text);
  void flush_closed();
  // `seen`: line_scanner()'s scan of line.text (log_parser.cpp).
  void keep_text(const ReportBuilder& b, ReportText& text, const CleanLine& line, const LineScan& seen) const;
  // keep_text's body, inlined where the open report keeps its lines (nearly every line).
  [[gnu::always_inline]] inline void keep_text_inline(const ReportBuilder& b, ReportText& text, const CleanLine& line,
                                                      const LineScan& seen) const;
  void pin_storage(ReportText& text) const;

  const LineScanner* scanner_;        // line_scanner() (log_parser.cpp), looked up once rather than per line
  const LineScanner* stamp_scanner_;  // stamp_scanner() (log_parser.cpp), for lines clean_line_deferred leaves whole
  std::string path_;
  Sink sink_;
  ParserLimits limits_;
  std::uint32_t line_no_ = 0;
  // The line right after a WARNING header, where checkpatch.pl would name its place (0: none):
  // one compare per line, where reading the open report's first line cost more.
  std::uint32_t checkpatch_line_ = 0;
  std::optional<ReportBuilder> open_;
  std::optional<ReportBuilder> closed_;  // waits a few lines for a panic that belongs to it
  ReportText open_text_;
  ReportText closed_text_;
  // The report before the open one, still reading lines for its title rules: a
  // start line syzkaller would not let interrupt a report ("PANIC: double fault",
  // a panic, another context's report) must not cut its text short.
  std::optional<ReportBuilder> trailing_;
  ReportText trailing_text_;
  std::optional<StartMarker> marker_;  // the start marker of the line being fed, if any
  std::optional<SoftBanner> soft_;
  // Facts of the boot being read, which hold for every report of that boot: a WARN printed
  // before the panic whose "Kernel Offset:" line names the KASLR offset has the same offset.
  // A boot's reports wait here until the next boot banner or the end of the log.
  struct BootFacts {
    std::optional<std::int64_t> kaslr_offset;
    std::optional<std::string> release;
    std::vector<std::string> modules;
  };
  // A line whose first byte may open one of the lines of a boot (markers_detail::kMayBootLine):
  // the kernel's banner, its KASLR offset, a boot loader's banner or hand-over (read on a line
  // without the kernel's prefix only: `prefixed` false).
  void learn_boot_line(std::string_view text, std::uint32_t number, bool prefixed);
  // The reports a boot loader's stretch opened (since boot_loader_line_) go: at its hand-over to
  // the kernel, or at the log's end when the kernel never printed.
  void settle_boot_loader();
  // Whether the reports opened by lines without the kernel's prefix (unprefixed_) are another
  // program's: at the next kernel line, or at the log's end (0). Drops them if so.
  void settle_unprefixed(std::uint32_t next_kernel_line);
  // The reports held that start at or after `first_line` go, unless one of them has frames (or,
  // FramesOrTask, the kernel's "CPU: N PID: N" line), and unprefixed_ with them if it starts
  // there too: true if they went.
  enum class DropUnless : std::uint8_t { Frames, FramesOrTask };
  bool drop_reports_from(std::uint32_t first_line, DropUnless unless = DropUnless::Frames);
  void flush_boot();
  void flush_boot_reports();
  // Reports of other contexts (printk caller ids) interrupted by a report of this one: each
  // keeps reading its own context's lines until it ends, so two CPUs' reports printed at once
  // keep their own identity, frames and text.
  struct Parallel {
    ReportBuilder builder;
    ReportText text;
  };
  bool route_parallel(const CleanLine& line, const LineScan& seen);
  void finish_parallel(std::size_t i);
  void finish_all_parallel();
  std::vector<Parallel> parallel_;
  BootFacts boot_;
  bool bare_prefixes_ = false;  // the log's prefixes come without a separator (line_cleaner.h)
  // The last line with a console timestamp or caller id (0: none yet): once one has been read a
  // kernel has been running, so the boot decompressor's "Booting the kernel" is a reboot, not
  // the log's own first boot; and a boot loader's stretch (boot_loader_line_) ends there.
  std::uint32_t last_kernel_line_ = 0;
  std::vector<Report> boot_reports_;
  // The reports opened, since the last kernel line, by lines without the kernel's prefix (no
  // printk time, no caller id): another program's on the same console, if the log's kernel
  // lines have it (settle_unprefixed). Until the next kernel line those reports are held.
  struct Unprefixed {
    std::uint32_t first = 0;       // the first line of the first of them
    std::uint32_t last_start = 0;  // the start line of the latest
    bool held_no_more = false;     // as many as the parser holds: the stretch is kept undecided
  };
  std::optional<Unprefixed> unprefixed_;
  // The line of the banner of the boot loader printing now (markers_detail::kBootLoaderLines):
  // none when 0 or not after last_kernel_line_, or after a hand-over.
  std::uint32_t boot_loader_line_ = 0;
  std::shared_ptr<const std::string> storage_;  // of the lines being fed (set_storage), if any
};

// Parses a whole in-memory log. The reports own their text (Report::text_storage):
// they may outlive `text`.
std::vector<Report> parse_log(std::string_view text, const std::string& path, ParserLimits limits = {});
// The same, handing each report to `sink` as soon as it is complete (in the order
// reports started), so that a large log's reports need not all be held at once.
// Each report's text views `text`, which must outlive the sink's use of the report.
void parse_log(std::string_view text, const std::string& path, const LogParser::Sink& sink, ParserLimits limits = {});
// The same, saying as it goes that every byte of `text` before `upto` has been read
// (calls come every few MiB, at line ends): the caller may let those pages go
// (InputBuffer::release_before), which keeps memory bounded on logs of any size.
// Reports still view `text` there; the pages must stay readable, as a file mapping's do.
using ParseProgress = std::function<void(const char* upto)>;
void parse_log(std::string_view text, const std::string& path, const LogParser::Sink& sink, ParserLimits limits,
               const ParseProgress& consumed);

// A piece of a console log read a piece at a time: whole lines (`text` ends just after a
// '\n', or where the log ends), in `storage`, which the reports viewing it keep alive.
struct LogPiece {
  std::string_view text;
  std::shared_ptr<const std::string> storage;
  bool last = false;  // the log ends with this piece
};
// The next piece of a log, nullopt past its end.
using NextPiece = std::function<std::optional<LogPiece>()>;
// parse_log over a log read a piece at a time, so that no more of it than the pieces its
// open reports view is held: the same reports as parse_log on the whole log. Returns false,
// having read only the first piece and handed on nothing, when the log is not a plain console
// log (a journal export, a /dev/kmsg dump: those are decoded whole), or its first piece
// cannot tell: the caller then parses the whole log.
bool parse_log_pieces(const std::string& path, const LogParser::Sink& sink, ParserLimits limits, const NextPiece& next);

}  // namespace btaudit
