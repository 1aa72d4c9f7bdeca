#include "dump_render/dump_svg.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include "render/markup_escape.h"

namespace btaudit {

namespace {

constexpr int kColumnWidth = 380, kGap = 160, kRow = 20, kHeader = 56, kMargin = 20, kWordsWidth = 330;

std::string escape(const std::string& s) { return escape_markup(s); }

const char* fill(Verdict v) {
  switch (v) {
    case Verdict::Reliable: return "#b7e4c7";
    case Verdict::Stale: return "#e5e5e5";
    case Verdict::Plausible: return "#ffe8a3";
    case Verdict::Unknown: return "#ffffff";
  }
  return "#ffffff";
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string label(const StackFrame& f) {
  std::string s = f.reliable() ? "" : "? ";
  if (f.function) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(f.offset));
    s += *f.function + buf;
  } else {
    s += "0x" + hex(f.pc);
  }
  if (f.module) s += " [" + *f.module + "]";
  return s;
}

std::string stack_name(const StackFrame& f) {
  if (f.exception) return *f.exception;
  std::string s(to_string(f.stack));
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return s;
}

struct Column {
  std::string name;
  std::vector<const StackFrame*> frames;
  std::optional<std::uint32_t> segment;  // the walk segment the frames are on
  std::vector<const StackWord*> words;
};

const char* word_fill(const StackWalk& w, const StackWord& word) {
  if (word.frame && word.role == WordRole::Frame) return fill(w.frames[*word.frame].verdict);
  switch (word.role) {
    case WordRole::RegsIp: return "#cfe2ff";
    case WordRole::Backlink: return "#bfdbfe";
    case WordRole::StackPointer: return "#eef2f7";
    default: return "#ffffff";
  }
}

// The words of one column, beside its frames.
std::string words_column(const StackWalk& cw, const Column& col, int x, int top) {
  std::string body = "<rect x='" + std::to_string(x) + "' y='" + std::to_string(top) + "' width='" +
                     std::to_string(kWordsWidth) + "' height='" +
                     std::to_string(24 + static_cast<int>(col.words.size()) * kRow) + "' class='stack'/>\n<text x='" +
                     std::to_string(x + 8) + "' y='" + std::to_string(top + 16) + "' class='stackname'>" +
                     escape(col.name) + " words</text>\n";
  for (std::size_t k = 0; k < col.words.size(); ++k) {
    const StackWord& word = *col.words[k];
    const int wy = top + 22 + static_cast<int>(k) * kRow;
    std::string text = hex(word.slot) + ": " + hex(word.value);
    if (word.frame) text += "  " + label(cw.frames[*word.frame]);
    body += "<g><title>" + escape(text) + " | " + std::string(to_string(word.role)) + "</title><rect x='" +
            std::to_string(x + 4) + "' y='" + std::to_string(wy) + "' width='" + std::to_string(kWordsWidth - 8) +
            "' height='" + std::to_string(kRow - 2) + "' fill='" + word_fill(cw, word) + "' class='frame'/><text x='" +
            std::to_string(x + 10) + "' y='" + std::to_string(wy + 13) + "'>" + escape(text) + "</text></g>\n";
  }
  return body;
}

}  // namespace

std::string render_dump_svg(const DumpModel& d, int only_cpu) {
  std::string body;
  int y0 = kMargin + 30;
  int width = 600;
  for (const StackWalk& cw : d.cpus) {
    if (only_cpu == kNoCpus || (only_cpu >= 0 && cw.state.cpu != only_cpu)) continue;
    const bool words = !cw.words.empty();
    const int column_step = kColumnWidth + kGap + (words ? kWordsWidth + 8 : 0);
    std::vector<Column> columns;
    const StackFrame* rip = nullptr;
    for (const StackFrame& f : cw.frames) {
      if (f.from_regs) {
        if (!rip && f.function) rip = &f;
        continue;
      }
      const std::string name = stack_name(f);
      if (columns.empty() || columns.back().name != name) columns.push_back({name, {}, f.segment, {}});
      columns.back().frames.push_back(&f);
    }
    for (const StackWord& word : cw.words)
      for (Column& c : columns)
        if (c.segment == word.segment) c.words.push_back(&word);
    std::size_t tallest = 1;
    for (const Column& c : columns) tallest = std::max({tallest, c.frames.size(), c.words.size()});
    const int height = kHeader + static_cast<int>(tallest) * kRow + 40;
    body += "<text x='" + std::to_string(kMargin) + "' y='" + std::to_string(y0) + "' class='cpu'>CPU " +
            std::to_string(cw.state.cpu) + ": " + escape(cw.state.comm.value_or("?")) + " (pid " +
            (cw.state.pid ? std::to_string(*cw.state.pid) : std::string("?")) + "), SP on the " +
            escape(cw.state.sp_stack) + " stack" + (rip ? ", RIP " + escape(rip->function.value_or("?")) : "") +
            "</text>\n";
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const int x = kMargin + static_cast<int>(c) * column_step;
      const int top = y0 + 16;
      width = std::max(width, x + kColumnWidth + kMargin + (words ? kWordsWidth + 8 : 0));
      if (words) body += words_column(cw, columns[c], x + kColumnWidth + 8, top);
      body += "<rect x='" + std::to_string(x) + "' y='" + std::to_string(top) + "' width='" +
              std::to_string(kColumnWidth) + "' height='" +
              std::to_string(24 + static_cast<int>(columns[c].frames.size()) * kRow) + "' class='stack'/>\n<text x='" +
              std::to_string(x + 8) + "' y='" + std::to_string(top + 16) + "' class='stackname'>" +
              escape(columns[c].name) + " stack</text>\n";
      for (std::size_t k = 0; k < columns[c].frames.size(); ++k) {
        const StackFrame& f = *columns[c].frames[k];
        const int fy = top + 22 + static_cast<int>(k) * kRow;
        body += "<g><title>" + escape(label(f)) + " | " + std::string(to_string(f.verdict)) + ": " +
                escape(std::string(reason_description(f.reason))) + (f.slot ? " | slot " + hex(*f.slot) : "") +
                "</title><rect x='" + std::to_string(x + 4) + "' y='" + std::to_string(fy) + "' width='" +
                std::to_string(kColumnWidth - 8) + "' height='" + std::to_string(kRow - 2) + "' fill='" +
                fill(f.verdict) + "' class='frame'/><text x='" + std::to_string(x + 10) + "' y='" +
                std::to_string(fy + 13) + "'>" + escape(label(f)) + "</text></g>\n";
      }
      if (c + 1 < columns.size() && c < cw.transitions.size()) {
        const Transition& t = cw.transitions[c];
        const int ay = top + 22 + static_cast<int>(columns[c].frames.size()) * kRow - kRow / 2;
        const int bx = x + column_step;
        const int ax = x + column_step - kGap;
        body += "<path d='M" + std::to_string(ax) + "," + std::to_string(ay) + " C" + std::to_string(ax + kGap / 2) +
                "," + std::to_string(ay) + " " + std::to_string(bx - kGap / 2) + "," + std::to_string(top + 30) + " " +
                std::to_string(bx) + "," + std::to_string(top + 30) +
                "' class='arrow' marker-end='url(#head)'/>\n<text x='" + std::to_string(ax + 4) + "' y='" +
                std::to_string(ay + 16) + "' class='link'>backlink @" + hex(t.slot) + "</text>\n<text x='" +
                std::to_string(ax + 4) + "' y='" + std::to_string(ay + 28) + "' class='link'>= " + hex(t.value) +
                "</text>\n";
      }
    }
    y0 += height;
  }
  std::string out = "<svg xmlns='http://www.w3.org/2000/svg' width='" + std::to_string(width) + "' height='" +
                    std::to_string(y0 + kMargin) + "' font-family='monospace' font-size='11'>\n";
  out +=
      "<style>.cpu{font-size:14px;font-weight:bold}.stack{fill:#f7f9fc;stroke:#8899aa}.stackname{font-weight:bold}"
      ".frame{stroke:#99a}.arrow{fill:none;stroke:#2b6cb0;stroke-width:2}.link{fill:#2b6cb0;font-size:10px}</style>\n";
  out +=
      "<defs><marker id='head' markerWidth='10' markerHeight='8' refX='9' refY='4' orient='auto'>"
      "<path d='M0,0 L10,4 L0,8 z' fill='#2b6cb0'/></marker></defs>\n";
  out += "<text x='" + std::to_string(kMargin) + "' y='" + std::to_string(kMargin + 6) + "' class='cpu'>" +
         escape(d.path) + " (" + escape(d.release) + "): green reliable, grey stale, amber plausible</text>\n";
  out += body + "</svg>\n";
  return out;
}

}  // namespace btaudit
