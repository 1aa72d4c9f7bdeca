#include "text/log_parser.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "text/line_scan.h"
#include "text/line_split.h"
#include "text/log_transport.h"
#include "text/scan.h"
#include "text/terminal_escapes.h"

namespace btaudit {

namespace {

// The phrases the report text filter (keep_text) looks for in a line; bit k of
// LineScan::phrases is kKeptPhrases[k].
constexpr std::string_view kKeptPhrases[] = {
    "Disabling lock debugging due to kernel taint",
    "Sending NMI from CPU",
    "vmalloc: allocation failure:",
    "FAULT_INJECTION: forcing a failure",
    "FAULT_FLAG_ALLOW_RETRY missing",
    "Kernel panic - not syncing",
    "WARNING: possible circular locking dependency detected",
};
enum : std::uint32_t {
  kLockDebugOff = 1U << 0,
  kSendingNmi = 1U << 1,
  kVmallocFailure = 1U << 2,
  kFaultInjection = 1U << 3,
  kFaultFlag = 1U << 4,
  kPanic = 1U << 5,
  kCircularLocking = 1U << 6,
};

// One pass over a line finds both what keep_text asks of it and where match_start's
// embedded words may start (line_scan.h). Immutable after construction.
const LineScanner& line_scanner() {
  static const LineScanner scanner(embeddable_words(), kKeptPhrases);
  return scanner;
}

// The same, and whether a timestamp may stand behind other text (LineScan::stamp_open), for the
// lines clean_line_deferred leaves that question to. (Apart: the pairs it adds to the scanner's
// buckets would make more candidates on every other line.)
const LineScanner& stamp_scanner() {
  static const LineScanner scanner(embeddable_words(), kKeptPhrases, /*stamp_opens=*/true);
  return scanner;
}

// Copies console lines into storage of their own, points them there and returns it.
std::shared_ptr<const std::string> own_lines(std::vector<std::string_view>& lines) {
  std::size_t bytes = 0;
  for (const std::string_view l : lines) bytes += l.size();
  auto storage = std::make_shared<std::string>();
  storage->reserve(bytes);
  for (const std::string_view l : lines) storage->append(l);
  const std::string_view all = *storage;
  std::size_t at = 0;
  for (std::string_view& l : lines) {
    l = all.substr(at, l.size());
    at += l.size();
  }
  return storage;
}

void own_text(Report& r) { r.text_storage = own_lines(r.text); }

// Pieces of a streamed log one report's text may keep alive; a report that spans more
// (one whose lines are far apart) has its text copied instead, so that memory stays
// bounded by the reports held, not by the distance their lines span.
constexpr std::size_t kMaxPins = 2;

// One owner for all the pieces a report's text views.
std::shared_ptr<const std::string> hold(std::vector<std::shared_ptr<const std::string>>&& pins) {
  if (pins.size() == 1) return std::move(pins.front());
  auto all = std::make_shared<std::vector<std::shared_ptr<const std::string>>>(std::move(pins));
  const std::string* first = all->front().get();
  return {std::move(all), first};  // aliasing: owns the pieces, points at one
}

// Reports of other contexts set aside at once; more are cut as before (hostile logs).
constexpr std::size_t kMaxParallel = 8;
// Reports of one boot held for the boot's facts (log_parser.h) before they leave.
constexpr std::size_t kMaxBootReports = 16;
// As many, while reports opened by lines without the kernel's prefix wait for the next kernel
// line (LogParser::unprefixed_): more than that leave undecided, as the kernel's.
constexpr std::size_t kMaxHeldReports = 256;

// Whether a line has a prefix only the kernel gives its lines, and every one of them when it
// gives it: printk's time or caller id (kernel/printk/printk.c, info_print_prefix). (Not the
// "<N>" level: logs hold it on some kernel lines only, the ones a reader took from /proc/kmsg.)
bool kernel_prefixed(const CleanLine& line) { return line.had_timestamp || line.caller_kind; }

bool collects_backtraces(ReportKind k) {
  switch (k) {
    case ReportKind::RcuStall:
    case ReportKind::HungTask:
    case ReportKind::SoftLockup:
    case ReportKind::HardLockup:
    case ReportKind::Panic: return true;
    default: return false;
  }
}

// Whether `next` repeats the header `prev` up to the function it names, `prev` naming an
// inlined function there ("... in f file.h:12 [inline]"): a symbolizer's expansion of one header.
// (Old KASAN headers go on after it: "... [inline] at addr ffff88004f0f1938".)
bool inline_expansion(std::string_view prev, std::string_view next) {
  std::size_t common = 0;
  while (common < prev.size() && common < next.size() && prev[common] == next[common]) ++common;
  while (common > 0 && prev[common - 1] != ' ') --common;  // back to the start of the differing word
  if (common < 8 || common >= next.size()) return false;
  // The differing part of `prev`: "<function> <file>:<line> [inline]", then what both go on with.
  const std::size_t mark = prev.find(" [inline]", common);
  return mark != std::string_view::npos && prev.substr(common, mark - common).find(':') != std::string_view::npos;
}

}  // namespace

LogParser::LogParser(std::string path, Sink sink, ParserLimits limits)
    : scanner_(&line_scanner()),
      stamp_scanner_(&stamp_scanner()),
      path_(std::move(path)),
      sink_(std::move(sink)),
      limits_(limits) {}

void LogParser::keep_text(const ReportBuilder& b, ReportText& text, const CleanLine& line, const LineScan& seen) const {
  keep_text_inline(b, text, line, seen);
}

void LogParser::keep_text_inline(const ReportBuilder& b, ReportText& text, const CleanLine& line,
                                 const LineScan& seen) const {
  if (text.stopped || line.foreign || text.lines.size() >= limits_.max_text_lines) return;
  // A timestamped report's text keeps timestamped lines only: the others (user space on a shared
  // console, a fuzzer's program listing) are not the kernel's, and syzkaller keeps only lines of
  // the report's console context (linux.go, findReport).
  if (b.timestamped() && !line.had_timestamp) return;
  const std::string_view s = line.text;
  if (b.caller_kind() && line.caller_kind && (line.caller_kind != b.caller_kind() || line.caller_id != b.caller_id())) {
    // Another context's line, unless the report asked all CPUs for their stacks.
    if (!(text.other_cpus && line.caller_kind == 'C')) return;
  }
  const std::uint32_t has = seen.phrases;
  if (has & kLockDebugOff) return;
  // Frames the unwinder did not vouch for ("? foo+0x1/0x2", powerpc's "(unreliable)") are
  // left out of timestamped consoles, as syzkaller does: text rules must not pick stale words.
  // (The last byte first: nearly every line ends otherwise, and the suffix is then not compared.)
  // (A '<' is looked for first: most such lines hold none, and one memchr tells.)
  if (line.had_timestamp && (seen.unreliable_mark || (!s.empty() && s.back() == ')' && s.ends_with(" (unreliable)"))) &&
      (std::memchr(s.data(), '<', s.size()) == nullptr || s.find(std::string_view("<EOI>")) == std::string_view::npos))
    return;
  if (has != 0) {  // most lines hold none of the phrases
    if (has & kSendingNmi) text.other_cpus = true;
    // Messages that print a stack of their own (an allocation failure, fault injection)
    // end a console report's text: their frames would pass for the report's.
    if (!b.caller_kind() && !text.lines.empty() && (has & (kVmallocFailure | kFaultInjection | kFaultFlag))) {
      text.stopped = true;
      return;
    }
    // panic_on_warn and oops-induced lockdep reports repeat what the report already
    // showed; after a report of some length they only add a misleading second stack.
    if (text.lines.size() > 22 && (has & (kPanic | kCircularLocking))) {
      text.stopped = true;
      return;
    }
  }
  if (storage_ && (text.pins.empty() || text.pins.back() != storage_)) pin_storage(text);
  // Reserved ahead and grown by 4: a report keeps tens to hundreds of lines, and each
  // doubling from one line up would copy them all again.
  if (text.lines.size() == text.lines.capacity()) {
    const std::size_t want = text.lines.empty() ? 128 : text.lines.capacity() * 4;
    text.lines.reserve(std::min(want, limits_.max_text_lines));
  }
  text.lines.emplace_back(s.data(), std::min(s.size(), limits_.max_text_line_bytes));  // substr() less its check
}

void LogParser::pin_storage(ReportText& text) const {
  if (text.pins.size() >= kMaxPins) {
    auto own = own_lines(text.lines);
    text.pins.clear();
    text.pins.push_back(std::move(own));
  }
  text.pins.push_back(storage_);
}

void LogParser::flush_trailing() {
  if (!trailing_) return;
  ReportBuilder b = std::move(*trailing_);
  trailing_.reset();
  ReportText text = std::move(trailing_text_);
  trailing_text_ = ReportText{};
  emit(std::move(b), std::move(text));
}

// syzkaller cuts a console-context report's text at the next report start,
// except at lines that follow a report rather than start one.
bool LogParser::cuts_text(const ReportBuilder& earlier, const StartMarker& marker) {
  if (earlier.caller_kind()) return false;  // task/CPU contexts are filtered, not cut
  constexpr std::string_view kFollowers[] = {"invalid opcode: 0000", "Kernel panic - not syncing",
                                             "unregister_netdevice: waiting for", "PANIC: double fault",
                                             "Internal error:"};
  for (auto f : kFollowers)
    if (marker.header.starts_with(f)) return false;
  return marker.join != JoinPolicy::Soft;
}

void LogParser::emit(ReportBuilder&& b, ReportText&& text) {
  flush_trailing();  // it started earlier: reports leave in the order they started
  // Made in place: a Report is some thirty members, and each move of one costs hundreds of
  // instructions (callgrind), a fair share of a short report's parsing.
  if (boot_reports_.capacity() < kMaxBootReports) boot_reports_.reserve(kMaxBootReports);
  Report& r = boot_reports_.emplace_back(b.finish());
  r.text = std::move(text.lines);
  if (!text.pins.empty()) r.text_storage = hold(std::move(text.pins));
  text = ReportText{};
  if (r.kaslr_offset && !boot_.kaslr_offset) boot_.kaslr_offset = r.kaslr_offset;
  if (r.kernel && !boot_.release) boot_.release = r.kernel;
  if (!r.modules.empty() && boot_.modules.empty()) boot_.modules = r.modules;
  // A boot of very many reports (a fuzzer's hours without a reboot) is not held whole: memory
  // stays bounded and is reused. The reports held leave with the boot's facts known so far.
  const bool holding = unprefixed_ && !unprefixed_->held_no_more;
  if (boot_reports_.size() >= (holding ? kMaxHeldReports : kMaxBootReports)) {
    // Past the bound the stretch stays undecided, all of it kept: none is dropped later.
    if (holding) unprefixed_->held_no_more = true;
    flush_boot_reports();
  }
}

// The kernel prefixes every line of a console with its time and caller id when it prints them
// (kernel/printk/printk.c, info_print_prefix): in a log whose kernel lines have one, a line
// without it is another program's on the same console. A boot loader or firmware prints there
// before every boot, some of it in the kernel's words (U-Boot's "WARNING: Caches not enabled",
// coreboot's and Trusted Firmware's "WARNING: ..."), and so does user space ("WARNING: Optional
// imports not found" from a test runner, dmesg re-printing a report without its time). Their
// reports are dropped when the next kernel line comes (`next_kernel_line`), or the log ends
// (0) after kernel lines; never when no line of the log has the kernel's prefix.
// Two things show the kernel printed such a line after all, and then the whole stretch stays:
// a stack trace in one of its reports (no other program prints the kernel's frames), or a
// kernel line right after a report's start line (a header whose prefix was cut off, as when a
// report is copied from its first word).
void LogParser::settle_unprefixed(std::uint32_t next_kernel_line) {
  const Unprefixed u = *unprefixed_;
  unprefixed_.reset();
  if (u.held_no_more || (next_kernel_line == 0 && last_kernel_line_ == 0)) return;
  if (next_kernel_line != 0 && next_kernel_line == u.last_start + 1) return;
  drop_reports_from(u.first);
}

void LogParser::settle_boot_loader() {
  const std::uint32_t banner = std::exchange(boot_loader_line_, 0);
  // A kernel line since the banner ended the stretch undecided: its reports were
  // settle_unprefixed's. Otherwise every report since the banner was opened by a line without
  // the kernel's prefix: they go, unless one of them printed a trace or the kernel's
  // "CPU: N PID: N" line, which no boot loader prints.
  if (banner > last_kernel_line_) drop_reports_from(banner + 1, DropUnless::FramesOrTask);
}

bool LogParser::drop_reports_from(std::uint32_t first_line, DropUnless unless) {
  const auto held = [first_line](const std::optional<ReportBuilder>& b) {
    return b && b->report().input.first_line >= first_line;
  };
  const auto held_report = [first_line](const Report& r) { return r.input.first_line >= first_line; };
  // The reports still being read, each with its text.
  const std::pair<std::optional<ReportBuilder>*, ReportText*> reading[] = {
      {&open_, &open_text_}, {&closed_, &closed_text_}, {&trailing_, &trailing_text_}};
  const auto kernels = [unless](const Report& r) {
    return !r.frames.empty() || (unless == DropUnless::FramesOrTask && (r.pid || r.cpu));
  };
  for (const auto& [b, text] : reading)
    if (held(*b) && kernels((*b)->report())) return false;
  for (const Report& r : boot_reports_)
    if (held_report(r) && kernels(r)) return false;
  for (const auto& [b, text] : reading) {
    if (!held(*b)) continue;
    b->reset();
    *text = ReportText{};
  }
  std::erase_if(boot_reports_, held_report);
  // The reports opened without the kernel's prefix from there on are gone: none waits.
  if (unprefixed_ && unprefixed_->first >= first_line) unprefixed_.reset();
  return true;
}

// "Linux version 6.1.0-57-cloud-amd64 (...)" opens a boot; "Kernel Offset: 0x..." (printed at
// panic, by dump_kernel_offset) may stand outside any report.
void LogParser::learn_boot_line(std::string_view text, std::uint32_t number, bool prefixed) {
  std::string_view s = text;  // these lines start their message (printk prints them unindented)
  if (!prefixed) {
    // A boot loader's banner opens the stretch its lines fill; the hand-over to the kernel (or
    // the log's end, finish()) settles it. ("Linux version " is a hand-over and read on below.)
    if (const markers_detail::BootLoaderLine* row = markers_detail::boot_loader_line(s)) {
      if (row->role == markers_detail::BootLoaderLine::Role::Handoff)
        settle_boot_loader();
      else if (boot_loader_line_ <= last_kernel_line_)  // none open, or one the kernel's lines ended
        boot_loader_line_ = number;
    }
  }
  if (scan::consume(s, "Linux version ")) {
    finish_all_parallel();
    close_open();
    flush_closed();
    flush_trailing();
    flush_boot();
    const std::size_t sp = s.find(' ');
    boot_.release = std::string(s.substr(0, sp));
    return;
  }
  if (scan::consume(s, "Kernel Offset: ")) {
    if (auto v = scan::hex0x(s)) boot_.kaslr_offset = static_cast<std::int64_t>(*v);
  }
}

void LogParser::flush_boot_reports() {
  // Reports leave in the order they started, reports set aside for another context's included.
  // The order is sorted as indices, by insertion (stable, and at most kMaxHeldReports of them:
  // emit hands a boot's reports on as soon as that many wait), and each report is handed on
  // where it lies: moving whole Reports around to sort them cost more than the sort.
  std::array<std::uint32_t, kMaxHeldReports> order{};
  const std::size_t n = std::min(boot_reports_.size(), order.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t line = boot_reports_[i].input.first_line;
    std::size_t at = i;
    for (; at > 0 && boot_reports_[order[at - 1]].input.first_line > line; --at) order[at] = order[at - 1];
    order[at] = static_cast<std::uint32_t>(i);
  }
  for (std::size_t k = 0; k < boot_reports_.size(); ++k) {
    Report& r = boot_reports_[k < n ? order[k] : k];  // (more than kMaxHeldReports: never, by emit)
    if (!r.kaslr_offset && boot_.kaslr_offset) r.kaslr_offset = boot_.kaslr_offset;
    if (!r.kernel && boot_.release) r.kernel = boot_.release;
    if (r.modules.empty()) r.modules = boot_.modules;
    sink_(std::move(r));
  }
  boot_reports_.clear();
}

void LogParser::flush_boot() {
  flush_boot_reports();
  boot_ = BootFacts{};
}

void LogParser::flush_closed() {
  if (closed_) {
    emit(std::move(*closed_), std::move(closed_text_));
    closed_.reset();
  }
}

void LogParser::close_open() {
  if (!open_) return;
  flush_closed();
  closed_ = std::move(open_);
  closed_text_ = std::move(open_text_);
  open_text_ = ReportText{};
  open_.reset();
}

void LogParser::start(const StartMarker& marker, const CleanLine& line) {
  flush_trailing();
  // A one-line report right before a "cut here" banner is the message of the warning that
  // follows: x86's WARN(cond, fmt) printed its text before the banner (__WARN_printf, 4.x), and
  // code that prints a line then calls WARN_ON() ("WARNING: strange, CPU MTRRs all blank?",
  // mtrr/cleanup.c) reads the same. syzkaller's report spans both lines too.
  std::optional<ReportText> message;
  std::uint32_t message_line = 0;
  if (open_ && soft_ && soft_->cut_here && !open_->has_frames() && open_->caller_kind() == line.caller_kind &&
      open_->caller_id() == line.caller_id && open_->report().input.first_line + 1 == soft_->line &&
      open_->last_line() == open_->report().input.first_line && line.number - soft_->line <= limits_.soft_window) {
    message_line = open_->report().input.first_line;
    message = std::move(open_text_);
    open_text_ = ReportText{};
    open_.reset();
  }
  close_open();
  if (closed_ && cuts_text(*closed_, marker)) flush_closed();
  if (closed_) {
    trailing_ = std::move(closed_);
    trailing_text_ = std::move(closed_text_);
    closed_text_ = ReportText{};
    closed_.reset();
  }
  std::uint32_t first = line.number;
  if (soft_ && line.number - soft_->line <= limits_.soft_window) first = soft_->line;
  soft_.reset();
  if (message) first = message_line;
  open_.emplace(path_, marker, line, first, ReportLimits{.max_frames = limits_.max_frames});
  checkpatch_line_ = marker.kind == ReportKind::Warning ? line.number + 1 : 0;
  // Opened by a line without the kernel's prefix: settle_unprefixed tells whose it is. (The
  // lines other programs print as reports stay: a reboot, syzkaller's executor failing.)
  if (!kernel_prefixed(line) && !marker.other_program) {
    if (!unprefixed_) unprefixed_ = Unprefixed{.first = first};
    unprefixed_->last_start = line.number;
  }
  open_text_ = message ? std::move(*message) : ReportText{};
}

void LogParser::feed(std::string_view raw, const char* readable_end) {
  const bool cut = raw.size() > limits_.max_line_bytes;
  if (cut) raw = raw.substr(0, limits_.max_line_bytes);
  // A line with no prefix is not searched for a timestamp behind other text by the cleaner: the
  // scan, which reads the line anyway, tells whether one may be there, and only then does the
  // cleaner look (and the line, if it had one, is scanned again from it).
  bool check_stamp = false;
  CleanLine line = clean_line_deferred(raw, ++line_no_, bare_prefixes_, check_stamp);
  // A foreign line is neither searched for start words nor kept as text: it needs no scan.
  LineScan seen = line.foreign ? LineScan{} : (check_stamp ? stamp_scanner_ : scanner_)->scan(line.text, readable_end);
  if (check_stamp && seen.stamp_open) reclean(raw, readable_end, line, seen);
  if (line.bare_prefix) bare_prefixes_ = true;
  if (unprefixed_ && !line.foreign && kernel_prefixed(line)) settle_unprefixed(line.number);
  // Start, end and boot lines are all read behind the indentation: it is taken once. (Most lines
  // have none: their first byte, above ' ', tells, without trim_left's loop.) Then one lookup of
  // its first byte tells which of them the line may be: nearly every line is none.
  const std::string_view trimmed =
      !line.text.empty() && static_cast<unsigned char>(line.text[0]) > ' ' ? line.text : scan::trim_left(line.text);
  const std::uint8_t roles = first_byte_roles(trimmed);
  // (The lines of a boot are printed unindented.)
  if ((roles & markers_detail::kMayBootLine) && trimmed.data() == line.text.data() && !line.foreign)
    learn_boot_line(line.text, line.number, kernel_prefixed(line));
  marker_.reset();
  if (!parallel_.empty() && route_parallel(line, seen)) return;
  const bool had_trailing = trailing_.has_value();
  route(line, seen, trimmed, roles);
  if (kernel_prefixed(line)) last_kernel_line_ = line.number;
  if (cut && open_) open_->note_cut_line(limits_.max_line_bytes);
  // Whatever the line did, the report it now belongs to keeps it for the title rules.
  if (open_)
    keep_text_inline(*open_, open_text_, line, seen);
  else if (closed_)
    keep_text(*closed_, closed_text_, line, seen);
  if (trailing_ && had_trailing) {
    if (marker_ && cuts_text(*trailing_, *marker_))
      flush_trailing();
    else
      keep_text(*trailing_, trailing_text_, line, seen);
  }
}

// checkpatch.pl prints "WARNING: <message>" then the place it is about, "#<line>: FILE: <file>:<n>:"
// or "#<line>: " (report(), $herecurr and $hereline): a one-line "report" followed by such a
// line is checkpatch's, not the kernel's, which starts no line with '#' and digits. (The FILE
// form is found behind a runner's prefix too; the short one only at the line's start.)
bool LogParser::checkpatch_reference(const ReportBuilder& b, std::string_view text) {
  if (b.has_frames() || b.last_line() != b.report().input.first_line || b.report().kind != ReportKind::Warning)
    return false;
  const auto place_at = [text](std::size_t hash) {
    std::size_t n = hash + 1;
    while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
    return n > hash + 1 && text.substr(n).starts_with(": ");
  };
  const std::size_t first = text.find_first_not_of(" \t");
  if (first != std::string_view::npos && text[first] == '#' && place_at(first)) return true;
  const std::size_t file = text.find(": FILE: ");
  if (file == std::string_view::npos) return false;
  std::size_t hash = file;
  while (hash > 0 && text[hash - 1] >= '0' && text[hash - 1] <= '9') --hash;
  return hash > 0 && hash < file && text[hash - 1] == '#' && (hash == 1 || text[hash - 2] == ' ');
}

bool LogParser::dropped_checkpatch_warning(std::string_view text) {
  if (!checkpatch_reference(*open_, text)) return false;
  // The open report alone starts there (those before it started earlier), and it has no frames.
  drop_reports_from(open_->report().input.first_line);
  return true;
}

void LogParser::reclean(std::string_view raw, const char* readable_end, CleanLine& line, LineScan& seen) const {
  // The scan saw a timestamp's shape; the cleaner's own search (the first eight '[' only) decides.
  if (!has_stamp_behind(raw)) return;
  line = clean_line(raw, line.number, bare_prefixes_);
  if (line.foreign || line.text.data() != raw.data() || line.text.size() != raw.size())
    seen = line.foreign ? LineScan{} : scanner_->scan(line.text, readable_end);
}

void LogParser::route(const CleanLine& line, const LineScan& seen, std::string_view trimmed, std::uint8_t roles) {
  // Most lines open neither a start nor an end line, and hold no start word: `roles` tells.
  if (!line.foreign && ((roles & markers_detail::kMayStart) || seen.word_count != 0 || seen.more_words ||
                        markers_detail::ends_like_die_header(trimmed))) {
    auto marker = match_start_trimmed(line.text, trimmed, seen);
    // A start word in a line that is not the kernel's (no timestamp, no caller id) while a
    // report with caller ids is open: user space echoing the kernel, not a new report.
    if (marker && open_ && open_->caller_kind() && !line.caller_kind && !line.had_timestamp) marker.reset();
    // The decompressor's last line (arch/x86/boot/compressed/misc.c): older kernels print
    // "Booting the kernel.", a reboot wherever it stands (syzkaller's header); later ones (6.14's
    // misc.c) "Booting the kernel (entry_offset: 0x...).", which syzkaller's header does not match
    // and which is taken for a reboot only once a kernel line was read: a log that opens with a
    // boot shows no reboot.
    if (marker && last_kernel_line_ == 0 && marker->header.starts_with("Booting the kernel (")) marker.reset();
    if (marker) {
      marker_ = *marker;
      route_start(*marker, line);
      return;
    }
  }

  const EndMarker end = (roles & markers_detail::kMayEnd) ? markers_detail::match_end_lines(trimmed) : EndMarker::None;
  if (open_) {
    if (line.number == checkpatch_line_ && dropped_checkpatch_warning(line.text)) return;
    open_->add_line(line);
    if (end == EndMarker::EndTrace) {
      close_open();
    } else if (end == EndMarker::EndKernelPanic) {
      close_open();
      flush_closed();
    } else {
      const std::uint32_t limit =
          open_->has_frames() && !open_->in_trace() ? limits_.idle_after_trace : limits_.idle_before_trace;
      if (open_->idle_lines() > limit) close_open();
    }
    return;
  }
  if (closed_) {
    const bool recent = line.number - closed_->last_line() <= limits_.consequence_window;
    if (recent && (end == EndMarker::KernelOffset || end == EndMarker::EndKernelPanic)) {
      closed_->add_line(line);
      if (end == EndMarker::EndKernelPanic) flush_closed();
    } else if (!recent) {
      flush_closed();
    }
  }
}

// A start line's place: in the open report, in one that has just been closed, or a report of its
// own. Apart from route() so that route's common path (a line that starts nothing) stays small.
// The report closed last becomes the open one again: a panic it caused, or the backtraces it
// asked for, arrived within the window after its end.
void LogParser::reopen_closed() {
  open_ = std::move(closed_);
  open_text_ = std::move(closed_text_);
  closed_text_ = ReportText{};
  closed_.reset();
}

void LogParser::route_start(const StartMarker& marker, const CleanLine& line) {
  switch (marker.join) {
    case JoinPolicy::Soft:
      soft_ = SoftBanner{line.number, marker.header.find("cut here") != std::string_view::npos};
      if (open_) open_->add_line(line);
      return;
    case JoinPolicy::FollowUp:
      // A follow-up comes between a header and its trace: once the open report has printed
      // its "Call Trace:", a follow-up header is another report (another CPU's oops).
      if (open_ && !open_->in_trace() && (!open_->has_frames() || open_->report().kind == ReportKind::Other)) {
        open_->add_follow_up(marker, line);
        return;
      }
      break;
    case JoinPolicy::Consequence:
      if (!is_consequential_panic(marker.header)) break;
      if (open_) {
        open_->add_follow_up(marker, line);
        return;
      }
      if (closed_ && line.number - closed_->last_line() <= limits_.consequence_window) {
        reopen_closed();
        open_->add_follow_up(marker, line);
        return;
      }
      break;
    case JoinPolicy::Backtrace:
      if (open_ && collects_backtraces(open_->report().kind)) {
        open_->add_backtrace(marker, line);
        return;
      }
      if (!open_ && closed_ && collects_backtraces(closed_->report().kind) &&
          line.number - closed_->last_line() <= limits_.consequence_window) {
        reopen_closed();
        open_->add_backtrace(marker, line);
        return;
      }
      break;
    case JoinPolicy::Continuation:
      if (open_) {
        open_->add_line(line);
        return;
      }
      break;
    case JoinPolicy::Standalone:
      // x86 BUG() prints "kernel BUG at" then "invalid opcode:"; a shared console can swap them.
      if (open_ && open_->report().kind == ReportKind::InvalidOpcode && marker.kind == ReportKind::KernelBug &&
          !open_->has_frames() && line.number - open_->report().input.first_line <= 2) {
        open_->add_follow_up(marker, line);
        return;
      }
      // CONFIG_CFI_PERMISSIVE: report_cfi_failure() prints its line, then __warn() the WARNING
      // of the same call site (kernel/cfi.c): one report.
      if (open_ && open_->report().kind == ReportKind::CfiFailure && marker.kind == ReportKind::Warning &&
          !open_->has_frames() && line.number - open_->report().input.first_line <= 2) {
        open_->add_follow_up(marker, line);
        return;
      }
      // Rust's panic handler BUG()s after printing its message: that BUG is the panic's.
      if (open_ && marker.kind == ReportKind::KernelBug && !open_->has_frames() &&
          open_->report().header.starts_with("rust_kernel: panicked")) {
        open_->add_follow_up(marker, line);
        return;
      }
      // A banner opened a report whose kind is still unknown: this line names it.
      if (open_ && open_->report().kind == ReportKind::Other && !open_->has_frames() &&
          line.number - open_->report().input.first_line <= limits_.soft_window) {
        open_->add_follow_up(marker, line);
        return;
      }
      break;
  }
  // A report of another context (caller ids tell them apart) interrupts the open one: the
  // open one is set aside, not cut, and goes on reading its own context's lines.
  if (open_ && marker.join == JoinPolicy::Standalone && open_->caller_kind() && line.caller_kind &&
      (line.caller_kind != open_->caller_kind() || line.caller_id != open_->caller_id()) &&
      parallel_.size() < kMaxParallel) {
    parallel_.push_back(Parallel{std::move(*open_), std::move(open_text_)});
    open_.reset();
    open_text_ = ReportText{};
    start(marker, line);
    return;
  }
  // A symbolizer (syzkaller's, decode_stacktrace.sh) expands the function a header names
  // into its inline chain: "BUG: KASAN: use-after-free in ip6_dst_store include/net/ip6_fib.h:176
  // [inline]" then "BUG: KASAN: use-after-free in tcp_v6_connect+0x1dfd/0x20f0 net/...". The
  // repeated header is the same report's.
  if (open_ && !open_->has_frames() && inline_expansion(open_->report().header, marker.header)) {
    open_->add_line(line);
    return;
  }
  if (open_ && open_->in_trace() && marker.join == JoinPolicy::Standalone) {
    // Another report starts in the middle of our trace: its lines and ours may now mix.
    open_->mark_corrupted("another report started at line " + std::to_string(line.number) +
                          " while this trace was being printed");
  }
  start(marker, line);
}

bool LogParser::route_parallel(const CleanLine& line, const LineScan& seen) {
  if (!line.caller_kind || line.foreign) return false;
  if (open_ && open_->caller_kind() == line.caller_kind && open_->caller_id() == line.caller_id) return false;
  for (std::size_t i = 0; i < parallel_.size(); ++i) {
    Parallel& p = parallel_[i];
    // A set-aside report whose context has been silent for a while has ended.
    if (line.number - p.builder.last_line() > limits_.consequence_window) {
      finish_parallel(i);
      return route_parallel(line, seen);
    }
    if (p.builder.caller_kind() != line.caller_kind || p.builder.caller_id() != line.caller_id) continue;
    const auto marker = match_start(line.text, seen);
    if (marker && marker->join == JoinPolicy::Standalone) {
      finish_parallel(i);  // this context starts a new report: its set-aside one has ended
      return false;
    }
    if (marker && (marker->join == JoinPolicy::FollowUp ||
                   (marker->join == JoinPolicy::Consequence && is_consequential_panic(marker->header))))
      p.builder.add_follow_up(*marker, line);
    else
      p.builder.add_line(line);
    keep_text(p.builder, p.text, line, seen);
    const EndMarker end = match_end(line.text);
    if (end == EndMarker::EndTrace || end == EndMarker::EndKernelPanic ||
        p.builder.idle_lines() > limits_.idle_before_trace)
      finish_parallel(i);
    return true;
  }
  return false;
}

void LogParser::finish_parallel(std::size_t i) {
  Parallel p = std::move(parallel_[i]);
  parallel_.erase(parallel_.begin() + static_cast<std::ptrdiff_t>(i));
  emit(std::move(p.builder), std::move(p.text));
}

void LogParser::finish_all_parallel() {
  while (!parallel_.empty()) finish_parallel(0);
}

void LogParser::finish() {
  settle_boot_loader();
  if (unprefixed_) settle_unprefixed(0);
  finish_all_parallel();
  close_open();
  flush_closed();
  flush_trailing();
  flush_boot();
}

// `text` as a terminal shows it (terminal_escapes.h), or null when it holds no escape.
static std::shared_ptr<const std::string> shown_as_terminal(std::string_view text) {
  if (!has_terminal_escape(text)) return nullptr;
  return std::make_shared<const std::string>(strip_terminal_escapes(text));
}

// Feeds the lines of `log` to `parser` (line_split.h).
template <bool kWithCr>
void split_lines(std::string_view log, LogParser& parser) {
  const char* const end = log.data() + log.size();
  for_each_line<kWithCr>(log, [&parser, end](std::string_view line) { parser.feed(line, end); });
}

std::vector<Report> parse_log(std::string_view text, const std::string& path, ParserLimits limits) {
  std::vector<Report> out;
  parse_log(
      text, path,
      [&out](Report&& r) {
        own_text(r);  // the reports may outlive `text`
        out.push_back(std::move(r));
      },
      limits);
  return out;
}

void parse_log(std::string_view text, const std::string& path, const LogParser::Sink& sink, ParserLimits limits) {
  parse_log(text, path, sink, limits, ParseProgress{});
}

void parse_log(std::string_view text, const std::string& path, const LogParser::Sink& sink, ParserLimits limits,
               const ParseProgress& consumed) {
  LogParser parser(path, sink, limits);
  // A journal export or /dev/kmsg dump is first turned back into console lines (log_transport.h);
  // a console log is read in place.
  std::string decoded;
  const std::string_view log = decode_transport(text, decoded);
  const bool in_place = log.data() == text.data();
  // The log goes through in windows that end at a '\n', so that each byte is touched
  // in one pass and the pages behind can be let go. Before the first '\r' the plain
  // splitter is exact; from the window holding it on, the one that knows "\r\n" and
  // a bare '\r' (a window never ends inside "\r\n": it ends just after a '\n').
  constexpr std::size_t kWindow = std::size_t{8} << 20;
  bool with_cr = false;
  for (std::size_t pos = 0; pos < log.size();) {
    std::size_t end = log.size();
    if (log.size() - pos > kWindow) {
      const std::size_t nl = log.rfind('\n', pos + kWindow - 1);
      if (nl != std::string_view::npos && nl >= pos) {
        end = nl + 1;
      } else if (const std::size_t next = log.find('\n', pos + kWindow); next != std::string_view::npos) {
        end = next + 1;
      }
    }
    std::string_view piece = log.substr(pos, end - pos);
    // A window holding terminal escapes (a coloured dmesg or journalctl, a capture of a
    // terminal) is read as a terminal shows it; the copy is pinned by the reports that view it.
    std::shared_ptr<const std::string> shown = shown_as_terminal(piece);
    if (shown) piece = *shown;
    parser.set_storage(std::move(shown));
    if (!with_cr && std::memchr(piece.data(), '\r', piece.size()) != nullptr) with_cr = true;
    if (with_cr)
      split_lines<true>(piece, parser);
    else
      split_lines<false>(piece, parser);
    pos = end;
    if (consumed && in_place) consumed(log.data() + pos);
  }
  parser.finish();
}

bool parse_log_pieces(const std::string& path, const LogParser::Sink& sink, ParserLimits limits,
                      const NextPiece& next) {
  std::optional<LogPiece> piece = next();
  if (piece && detect_transport_from(piece->text, piece->last) != Transport::Console) return false;
  LogParser parser(path, sink, limits);
  // As parse_log's windows: the plain splitter until the first piece that holds a '\r'.
  bool with_cr = false;
  for (; piece; piece = next()) {
    std::shared_ptr<const std::string> shown = shown_as_terminal(piece->text);
    const std::string_view text = shown ? std::string_view(*shown) : piece->text;
    parser.set_storage(shown ? std::move(shown) : piece->storage);
    if (!with_cr && std::memchr(text.data(), '\r', text.size()) != nullptr) with_cr = true;
    if (with_cr)
      split_lines<true>(text, parser);
    else
      split_lines<false>(text, parser);
  }
  parser.finish();
  return true;
}

}  // namespace btaudit
