// One bucket's detail on the triage page: its facts, its reports per day, the
// example trace with verdicts and reasons, and a dump-backed report's stacks.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "render/markup_escape.h"
#include "render/triage_html.h"

namespace btaudit {

namespace {

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

// "func+0x1b/0x40 [mod]" or "0xffff..." as the kernel printed it.
std::string frame_text(const Frame& f) {
  std::string s;
  if (f.function) {
    s = *f.function;
    if (f.offset) s += "+0x" + hex(*f.offset);
    if (f.size) s += "/0x" + hex(*f.size);
  } else if (f.address) {
    s = "0x" + hex(*f.address);
  } else {
    s = "?";
  }
  if (f.module) s += " [" + *f.module + "]";
  return s;
}

std::string source_text(const SourceLocation& s) {
  std::string out = s.file + ":" + std::to_string(s.line);
  if (s.column > 0) out += ":" + std::to_string(s.column);
  return out;
}

void fact(std::string& out, std::string_view name, std::string_view value, bool code = false) {
  out += "<dt>";
  out += name;
  out += "</dt><dd>";
  if (code) out += "<code>";
  append_escaped(out, value);
  if (code) out += "</code>";
  out += "</dd>";
}

// Debuginfo's lines under a frame: its source, the callers that inlined it, its call site.
void frame_sources(std::string& out, const FrameDebugInfo& d) {
  if (!d.source && d.inlined.empty() && !d.call_site) return;
  out += "<div class=\"src\">";
  if (d.source) {
    out += "<code>";
    append_escaped(out, source_text(*d.source));
    out += "</code>";
    if (d.innermost_function) {
      out += " (";
      append_escaped(out, *d.innermost_function);
      out += ")";
    }
  }
  for (const InlinedCall& c : d.inlined) {
    out += "<br>inlined into ";
    append_escaped(out, c.function);
    out += " at <code>";
    append_escaped(out, source_text(c.call));
    out += "</code>";
  }
  if (d.call_site) {
    out += "<br>call site: ";
    append_escaped(out, d.call_site->insn.empty() ? std::string("none") : d.call_site->insn);
    if (d.call_site->patched_by) {
      out += " (written at boot by ";
      append_escaped(out, *d.call_site->patched_by);
      out += ")";
    }
  }
  if (!d.note.empty()) {
    out += "<br>note: ";
    append_escaped(out, d.note);
  }
  out += "</div>";
}

void trace_table(std::string& out, const Report& r) {
  out +=
      "<table class=\"trace\"><thead><tr><th scope=\"col\">#</th><th scope=\"col\">stack</th>"
      "<th scope=\"col\">verdict</th><th scope=\"col\">frame</th><th scope=\"col\">reason</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < r.frames.size(); ++i) {
    const Frame& f = r.frames[i];
    const std::string verdict(to_string(f.verdict));
    // The reason's description is each row's hover text: the page's script sets it from one table.
    out += "<tr class=\"v-" + verdict + (r.guilty == i ? " guilty" : "") + "\"><td>" + std::to_string(i) + "</td><td>" +
           std::string(to_string(f.stack));
    if (f.exception) out += " " + escape_markup(*f.exception);
    out += "</td><td>" + verdict + "</td><td><code>";
    out += f.printed_unreliable ? "? " : "";
    append_escaped(out, frame_text(f));
    out += "</code>";
    if (r.guilty == i) out += " <strong class=\"mark\">guilty</strong>";
    if (f.debug) frame_sources(out, *f.debug);
    out += "</td><td>" + std::string(reason_code(f.reason)) + "</td></tr>";
  }
  out += "</tbody></table>";
}

}  // namespace

std::string format_day(std::int64_t day) {
  using namespace std::chrono;
  const year_month_day ymd{sys_days{days{day}}};
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()));
  return buf;
}

DaySparkline day_sparkline(const TriageBucket& b, std::int64_t first_day, std::int64_t last_day, int width,
                           int height) {
  // At most one bar per two pixels: a long range folds days into bins.
  const std::int64_t span = std::max<std::int64_t>(1, last_day - first_day + 1);
  const std::int64_t bins = std::min<std::int64_t>(span, std::max(1, width / 2));
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(bins));
  std::uint64_t total = 0;
  for (const auto& [day, n] : b.days) {
    const std::int64_t bin = std::clamp<std::int64_t>((day - first_day) * bins / span, 0, bins - 1);
    counts[static_cast<std::size_t>(bin)] += n;
    total += n;
  }
  const std::uint64_t peak = std::max<std::uint64_t>(1, *std::max_element(counts.begin(), counts.end()));
  // Bars at most 8 px wide, the last day at the right edge: a few days do not fill the box.
  const double bar = std::min(8.0, static_cast<double>(width) / static_cast<double>(bins));
  const double left = static_cast<double>(width) - bar * static_cast<double>(bins);
  DaySparkline out;
  out.width = width;
  out.height = height;
  char buf[96];
  for (std::int64_t i = 0; i < bins; ++i) {
    const std::uint64_t c = counts[static_cast<std::size_t>(i)];
    if (c == 0) continue;
    const double h = std::max(1.0, static_cast<double>(height) * static_cast<double>(c) / static_cast<double>(peak));
    std::snprintf(buf, sizeof buf, "M%.1f,%dv-%.1fh%.1fv%.1fz", left + static_cast<double>(i) * bar, height, h,
                  std::max(0.8, bar - 0.4), h);
    out.path += buf;
  }
  out.label = std::to_string(total) + " reports";
  if (!b.days.empty()) out.label += ", " + format_day(b.days.front().first) + " to " + format_day(b.days.back().first);
  return out;
}

std::string render_day_sparkline(const TriageBucket& b, std::int64_t first_day, std::int64_t last_day, int width,
                                 int height) {
  const DaySparkline s = day_sparkline(b, first_day, last_day, width, height);
  return "<svg class='spark' width='" + std::to_string(width) + "' height='" + std::to_string(height) +
         "' viewBox='0 0 " + std::to_string(width) + " " + std::to_string(height) + "' role='img' aria-label='" +
         escape_markup(s.label) + "'><path d='" + s.path + "'/></svg>";
}

std::string render_stack_picture(const Report& walk) {
  // Columns: the walk's stacks in the order it visited them; rows: frames by stack slot.
  struct Column {
    std::string name;
    std::vector<const Frame*> frames;
  };
  std::vector<Column> columns;
  for (const Frame& f : walk.frames) {
    std::string name(to_string(f.stack));
    if (f.exception) name += " " + *f.exception;
    if (columns.empty() || columns.back().name != name) columns.push_back({name, {}});
    columns.back().frames.push_back(&f);
  }
  constexpr int kWidth = 300, kGap = 40, kRow = 18, kTop = 24;
  std::size_t rows = 0;
  for (const Column& c : columns) rows = std::max(rows, c.frames.size());
  const int width = static_cast<int>(columns.size()) * (kWidth + kGap);
  const int height = kTop + static_cast<int>(rows) * kRow + 8;
  std::string out = "<svg class='stacks' width='" + std::to_string(width) + "' height='" + std::to_string(height) +
                    "' viewBox='0 0 " + std::to_string(width) + " " + std::to_string(height) +
                    "' role='img' aria-label='the dump's stacks of this CPU, frames by stack slot'>";
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const int x = static_cast<int>(c) * (kWidth + kGap);
    out += "<text x='" + std::to_string(x) + "' y='14' class='col'>" + escape_markup(columns[c].name) + " stack</text>";
    for (std::size_t i = 0; i < columns[c].frames.size(); ++i) {
      const Frame& f = *columns[c].frames[i];
      const int y = kTop + static_cast<int>(i) * kRow;
      std::string label = f.slot ? hex(*f.slot) + "  " : std::string();
      label += (f.printed_unreliable ? "? " : "") + frame_text(f);
      out += "<g class='v-" + std::string(to_string(f.verdict)) + "'><title>" +
             escape_markup(std::string(to_string(f.verdict)) + ": " + std::string(reason_description(f.reason))) +
             "</title><rect x='" + std::to_string(x) + "' y='" + std::to_string(y) + "' width='" +
             std::to_string(kWidth) + "' height='" + std::to_string(kRow - 2) + "'/><text x='" + std::to_string(x + 4) +
             "' y='" + std::to_string(y + 12) + "'>" + escape_markup(label) + "</text></g>";
    }
    if (c + 1 < columns.size()) {
      const int ax = x + kWidth + 4;
      out += "<path class='link' d='M" + std::to_string(ax) + " " + std::to_string(kTop + 8) + "h" +
             std::to_string(kGap - 10) + "m-6 -4l6 4l-6 4'/>";
    }
  }
  out += "</svg>";
  return out;
}

std::string render_triage_detail(const TriageBucket& tb, std::int64_t first_day, std::int64_t last_day) {
  const Bucket& b = tb.bucket;
  std::string out = "<div class=\"detail-body\"><h2>";
  append_escaped(out, b.title);
  out += "</h2><dl class=\"facts\">";
  fact(out, "signature", b.signature, true);
  fact(out, "kind", b.kind);
  fact(out, "reports", std::to_string(b.count));
  if (b.guilty_function) fact(out, "guilty function", *b.guilty_function, true);
  fact(out, "first input", b.first_input, true);
  fact(out, "last input", b.last_input, true);
  fact(out, "example", b.example_input + ":" + std::to_string(b.example_line), true);
  if (auto share = b.stale_share()) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%llu of %llu (%.0f%%)", static_cast<unsigned long long>(b.stale_frames),
                  static_cast<unsigned long long>(b.unreliable_frames), *share * 100);
    fact(out, "'?' frames proven stale", buf);
  }
  if (!tb.dump.empty()) fact(out, "crash dump", tb.dump, true);
  out += "</dl><figure class=\"timeline\">" + render_day_sparkline(tb, first_day, last_day, 480, 48);
  out += "<figcaption>reports per day, " + format_day(first_day) + " to " + format_day(last_day) +
         "</figcaption></figure>";
  if (!tb.example) {
    out += "<p class=\"none\">The example report was not kept (a bucket summary holds no trace).</p></div>";
    return out;
  }
  const Report& r = *tb.example;
  out += "<h3>Example trace</h3><p class=\"who\">";
  std::string who;
  if (r.kernel) who += "kernel " + *r.kernel;
  if (r.cpu) who += (who.empty() ? "" : ", ") + std::string("CPU ") + std::to_string(*r.cpu);
  if (r.pid) who += (who.empty() ? "" : ", ") + std::string("PID ") + std::to_string(*r.pid);
  if (r.comm) who += " (" + *r.comm + ")";
  if (r.rip && r.rip->function) who += (who.empty() ? "" : "; ") + std::string("crash site ") + *r.rip->function;
  append_escaped(out, who);
  out += "</p>";
  const bool symbolized = std::any_of(r.frames.begin(), r.frames.end(), [](const Frame& f) { return f.debug; });
  if (!symbolized) out += "<p class=\"note\">No debuginfo was used for this report: no source lines.</p>";
  for (const std::string& w : r.debug_warnings) {
    out += "<p class=\"note\">";
    append_escaped(out, w);
    out += "</p>";
  }
  trace_table(out, r);
  if (tb.dump_walk) {
    out += "<h3>Stacks in the dump</h3><div class=\"picture\">" + render_stack_picture(*tb.dump_walk) + "</div>";
  }
  out += "</div>";
  return out;
}

}  // namespace btaudit
