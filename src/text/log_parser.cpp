#include "text/log_parser.h"

#include <cstring>
#include <utility>

namespace btaudit {

namespace {

bool collects_backtraces(ReportKind k) {
  switch (k) {
    case ReportKind::RcuStall:
    case ReportKind::HungTask:
    case ReportKind::SoftLockup:
    case ReportKind::HardLockup:
    case ReportKind::Panic:
      return true;
    default:
      return false;
  }
}

}  // namespace

LogParser::LogParser(std::string path, Sink sink, ParserLimits limits)
    : path_(std::move(path)), sink_(std::move(sink)), limits_(limits) {}

void LogParser::emit(ReportBuilder&& b) {
  Report r = b.finish();
  if (r.frames.size() > limits_.max_frames) {
    r.frames.resize(limits_.max_frames);
    if (!r.corrupted) {
      r.corrupted = true;
      r.corrupted_reason = "more than " + std::to_string(limits_.max_frames) + " frames: trace cut";
    }
  }
  sink_(std::move(r));
}

void LogParser::flush_closed() {
  if (closed_) {
    emit(std::move(*closed_));
    closed_.reset();
  }
}

void LogParser::close_open() {
  if (!open_) return;
  flush_closed();
  closed_ = std::move(open_);
  open_.reset();
}

void LogParser::start(const StartMarker& marker, const CleanLine& line) {
  close_open();
  flush_closed();
  std::uint32_t first = line.number;
  if (soft_ && line.number - soft_->line <= limits_.soft_window) first = soft_->line;
  soft_.reset();
  open_.emplace(path_, marker, line, first);
}

void LogParser::feed(std::string_view raw) {
  if (raw.size() > limits_.max_line_bytes) raw = raw.substr(0, limits_.max_line_bytes);
  const CleanLine line = clean_line(raw, ++line_no_);

  if (!line.foreign) {
    if (auto marker = match_start(line.text)) {
      switch (marker->join) {
        case JoinPolicy::Soft:
          soft_ = SoftBanner{line.number};
          if (open_) open_->add_line(line);
          return;
        case JoinPolicy::FollowUp:
          if (open_ && (!open_->has_frames() || open_->report().kind == ReportKind::Other)) {
            open_->add_follow_up(*marker, line);
            return;
          }
          break;
        case JoinPolicy::Consequence:
          if (!is_consequential_panic(marker->header)) break;
          if (open_) {
            open_->add_follow_up(*marker, line);
            return;
          }
          if (closed_ && line.number - closed_->last_line() <= limits_.consequence_window) {
            open_ = std::move(closed_);
            closed_.reset();
            open_->add_follow_up(*marker, line);
            return;
          }
          break;
        case JoinPolicy::Backtrace:
          if (open_ && collects_backtraces(open_->report().kind)) {
            open_->add_backtrace(*marker, line);
            return;
          }
          if (!open_ && closed_ && collects_backtraces(closed_->report().kind) &&
              line.number - closed_->last_line() <= limits_.consequence_window) {
            open_ = std::move(closed_);
            closed_.reset();
            open_->add_backtrace(*marker, line);
            return;
          }
          break;
        case JoinPolicy::Standalone:
          // A banner opened a report whose kind is still unknown: this line names it.
          if (open_ && open_->report().kind == ReportKind::Other && !open_->has_frames() &&
              line.number - open_->report().input.first_line <= limits_.soft_window) {
            open_->add_follow_up(*marker, line);
            return;
          }
          break;
      }
      if (open_ && open_->in_trace() && marker->join == JoinPolicy::Standalone) {
        // Another report starts in the middle of our trace: its lines and ours may now mix.
        open_->mark_corrupted("another report started at line " + std::to_string(line.number) +
                              " while this trace was being printed");
      }
      start(*marker, line);
      return;
    }
  }

  const EndMarker end = match_end(line.text);
  if (open_) {
    open_->add_line(line);
    if (end == EndMarker::EndTrace) {
      close_open();
    } else if (end == EndMarker::EndKernelPanic) {
      close_open();
      flush_closed();
    } else {
      const std::uint32_t limit = open_->has_frames() && !open_->in_trace() ? limits_.idle_after_trace
                                                                            : limits_.idle_before_trace;
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

void LogParser::finish() {
  close_open();
  flush_closed();
}

std::vector<Report> parse_log(std::string_view text, const std::string& path, ParserLimits limits) {
  std::vector<Report> out;
  LogParser parser(path, [&out](Report&& r) { out.push_back(std::move(r)); }, limits);
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    const char* e = nl ? static_cast<const char*>(nl) : end;
    parser.feed(std::string_view(p, static_cast<std::size_t>(e - p)));
    p = e + 1;
  }
  parser.finish();
  return out;
}

}  // namespace btaudit
