#include "render/dump_svg.h"

#include <cstdio>
#include <vector>

#include "render/markup_escape.h"

namespace btaudit {

namespace {

constexpr int kColumnWidth = 380, kGap = 160, kRow = 20, kHeader = 56, kMargin = 20;

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

std::string label(const Frame& f) {
  std::string s = f.printed_unreliable ? "? " : "";
  if (f.function) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(f.offset.value_or(0)));
    s += *f.function + buf;
  } else if (f.address) {
    s += "0x" + hex(*f.address);
  }
  if (f.module) s += " [" + *f.module + "]";
  return s;
}

std::string stack_name(const Frame& f) {
  if (f.exception) return *f.exception;
  std::string s(to_string(f.stack));
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return s;
}

struct Column {
  std::string name;
  std::vector<const Frame*> frames;
};

}  // namespace

std::string render_dump_svg(const DumpAnalysis& a) {
  std::string body;
  int y0 = kMargin + 30;
  int width = 600;
  for (std::size_t i = 0; i < a.walk.cpus.size() && i < a.cpu_reports.size(); ++i) {
    const CpuWalk& cw = a.walk.cpus[i];
    const Report& r = a.cpu_reports[i];
    std::vector<Column> columns;
    for (const Frame& f : r.frames) {
      const std::string name = stack_name(f);
      if (columns.empty() || columns.back().name != name) columns.push_back({name, {}});
      columns.back().frames.push_back(&f);
    }
    std::size_t tallest = 1;
    for (const Column& c : columns) tallest = std::max(tallest, c.frames.size());
    const int height = kHeader + static_cast<int>(tallest) * kRow + 40;
    body += "<text x='" + std::to_string(kMargin) + "' y='" + std::to_string(y0) + "' class='cpu'>CPU " +
            std::to_string(cw.state.cpu) + ": " + escape(cw.state.comm.value_or("?")) + " (pid " +
            (cw.state.pid ? std::to_string(*cw.state.pid) : std::string("?")) + "), SP on the " +
            escape(cw.state.sp_stack) + " stack" + (r.rip ? ", RIP " + escape(r.rip->function.value_or("?")) : "") +
            "</text>\n";
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const int x = kMargin + static_cast<int>(c) * (kColumnWidth + kGap);
      const int top = y0 + 16;
      width = std::max(width, x + kColumnWidth + kMargin);
      body += "<rect x='" + std::to_string(x) + "' y='" + std::to_string(top) + "' width='" +
              std::to_string(kColumnWidth) + "' height='" +
              std::to_string(24 + static_cast<int>(columns[c].frames.size()) * kRow) + "' class='stack'/>\n<text x='" +
              std::to_string(x + 8) + "' y='" + std::to_string(top + 16) + "' class='stackname'>" +
              escape(columns[c].name) + " stack</text>\n";
      for (std::size_t k = 0; k < columns[c].frames.size(); ++k) {
        const Frame& f = *columns[c].frames[k];
        const int fy = top + 22 + static_cast<int>(k) * kRow;
        body += "<g><title>" + escape(label(f)) + " | " + std::string(to_string(f.verdict)) + ": " +
                escape(std::string(reason_description(f.reason))) + (f.slot ? " | slot " + hex(*f.slot) : "") +
                "</title><rect x='" + std::to_string(x + 4) + "' y='" + std::to_string(fy) + "' width='" +
                std::to_string(kColumnWidth - 8) + "' height='" + std::to_string(kRow - 2) + "' fill='" +
                fill(f.verdict) + "' class='frame'/><text x='" + std::to_string(x + 10) + "' y='" +
                std::to_string(fy + 13) + "'>" + escape(label(f)) + "</text></g>\n";
      }
      if (c + 1 < columns.size() && c < cw.transitions.size()) {
        const WalkTransition& t = cw.transitions[c];
        const int ay = top + 22 + static_cast<int>(columns[c].frames.size()) * kRow - kRow / 2;
        const int bx = x + kColumnWidth + kGap;
        body += "<path d='M" + std::to_string(x + kColumnWidth) + "," + std::to_string(ay) + " C" +
                std::to_string(x + kColumnWidth + kGap / 2) + "," + std::to_string(ay) + " " +
                std::to_string(bx - kGap / 2) + "," + std::to_string(top + 30) + " " + std::to_string(bx) + "," +
                std::to_string(top + 30) + "' class='arrow' marker-end='url(#head)'/>\n<text x='" +
                std::to_string(x + kColumnWidth + 4) + "' y='" + std::to_string(ay + 16) + "' class='link'>backlink @" +
                hex(t.slot) + "</text>\n<text x='" + std::to_string(x + kColumnWidth + 4) + "' y='" +
                std::to_string(ay + 28) + "' class='link'>= " + hex(t.value) + "</text>\n";
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
         escape(a.path) + " (" + escape(a.release) + "): green reliable, grey stale, amber plausible</text>\n";
  out += body + "</svg>\n";
  return out;
}

}  // namespace btaudit
