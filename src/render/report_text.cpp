#include "render/report_text.h"

#include <cstdio>
#include <set>

namespace btaudit {

namespace {

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string describe(const Frame& f) {
  std::string s;
  if (f.function) {
    s = *f.function;
    // Appends rather than `"+" + hex(..)` (and push_back rather than `= "?"` below): no
    // temporaries, and g++ 12 at -O3 warns falsely on those (-Wrestrict, GCC PR105651).
    if (f.offset) s.append("+").append(hex(*f.offset));
    if (f.size) s.append("/").append(hex(*f.size));
  } else if (f.address) {
    s = hex(*f.address);
  } else {
    s.push_back('?');
  }
  if (f.module) s.append(" [").append(*f.module).append("]");
  if (f.source) s.append(" ").append(*f.source);
  if (f.inlined) s += " [inline]";
  return s;
}

std::string describe(const CodeLocation& l) {
  std::string s;
  if (l.function) {
    s = *l.function;
    if (l.offset) s.append("+").append(hex(*l.offset));
    if (l.size) s.append("/").append(hex(*l.size));
  } else if (l.address) {
    s = hex(*l.address);
  }
  if (l.module) s.append(" [").append(*l.module).append("]");
  return s;
}

std::string stack_name(StackKind k, const Boxed<std::string>& exception) {
  if (k == StackKind::Exception && exception) return *exception;
  std::string s(to_string(k));
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return s;
}

const char* colour_of(Verdict v) {
  switch (v) {
    case Verdict::Reliable: return "\x1b[32m";
    case Verdict::Stale: return "\x1b[2;31m";
    case Verdict::Plausible: return "\x1b[33m";
    case Verdict::Unknown: return "\x1b[0m";
  }
  return "\x1b[0m";
}

std::string describe(const SourceLocation& s) {
  std::string out = s.file;
  out.append(":").append(std::to_string(s.line));
  if (s.column) out.append(":").append(std::to_string(s.column));
  return out;
}

// The lines decode_stacktrace.sh would add under a frame, plus the call site.
std::string describe_debug(const FrameDebugInfo& d) {
  std::string out;
  const std::string indent = "                        ";
  if (d.source) {
    out += indent + describe(*d.source);
    if (!d.inlined.empty() && d.innermost_function) out += "  (" + *d.innermost_function + ", inlined)";
    out += "\n";
  }
  for (const InlinedCall& c : d.inlined)
    out += indent + "inlined into " + c.function + " at " + describe(c.call) + "\n";
  if (d.call_site) {
    out += indent + "call site: ";
    out += d.call_site->kind == CallKind::None ? std::string("none") : d.call_site->insn;
    out += "\n";
  }
  if (d.corruption_evidence || !d.note.empty()) out += indent + "note: " + d.note + "\n";
  return out;
}

void pad(std::string& out, std::size_t from, std::size_t width) {
  const std::size_t used = out.size() - from;
  out.append(used < width ? width - used : 1, ' ');
}

}  // namespace

std::string render_text(const Report& r, const TextStyle& style) {
  const char* bold = style.colour ? "\x1b[1m" : "";
  const char* reset = style.colour ? "\x1b[0m" : "";
  std::string out;
  out += bold;
  out += "== " + r.title;
  out += reset;
  out += "\n   kind: " + std::string(to_string(r.kind));
  out += "   input: " + r.input.path + ":" + std::to_string(r.input.first_line) + "-" +
         std::to_string(r.input.last_line) + "\n";
  std::string ctx;
  if (r.cpu) ctx += "CPU " + std::to_string(*r.cpu) + "  ";
  if (r.pid) ctx += "PID " + std::to_string(*r.pid) + "  ";
  if (r.comm) ctx += "comm " + *r.comm + "  ";
  if (r.kernel) ctx += "kernel " + *r.kernel + "  ";
  if (r.tainted) ctx += "tainted " + (r.tainted->empty() ? std::string("no") : *r.tainted) + "  ";
  if (!ctx.empty()) out += "   " + ctx + "\n";
  if (r.hardware) out += "   hardware: " + *r.hardware + "\n";
  if (r.rip) out += "   crash site: " + describe(*r.rip) + "\n";
  if (r.warn_site && !r.rip) out += "   warn site: " + describe(*r.warn_site) + "\n";
  out += "   guilty: ";
  out += r.guilty ? describe(r.frames[*r.guilty]) : std::string("(none)");
  if (r.guilty_file) out += "\n   guilty file: " + *r.guilty_file;
  out += "\n   signature: " + signature_hex(r.signature) + "\n";
  if (r.panicked) out += "   the kernel panicked\n";
  if (r.kaslr_offset && r.kaslr_source.empty())
    out += "   kernel offset (KASLR): " + hex(static_cast<std::uint64_t>(*r.kaslr_offset)) + "\n";
  if (r.corrupted) out += "   CORRUPTED: " + r.corrupted_reason + "\n";
  for (const Truncation& t : r.truncated) out += "   truncated: " + describe(t) + "\n";
  if (!r.kaslr_source.empty() && r.kaslr_offset)
    out += "   KASLR offset " + hex(static_cast<std::uint64_t>(*r.kaslr_offset)) + " (" + r.kaslr_source + ", " +
           std::to_string(r.kaslr_agreeing_frames) + " frames agree)\n";
  if (r.rip_debug && r.rip_debug->source) out += "   crash site source: " + describe(*r.rip_debug->source) + "\n";
  for (const auto& w : r.debug_warnings) out += "   debuginfo warning: " + w + "\n";

  std::set<Reason> used;
  for (const Trace& t : r.traces) {
    out += "\n   " + t.label + (t.primary ? "" : "  (auxiliary)") + " [line " + std::to_string(t.line) + "]\n";
    std::string banner;
    for (std::size_t i = t.first_frame; i < t.first_frame + t.frame_count; ++i) {
      const std::string name = stack_name(r.frames[i].stack, r.frames[i].exception);
      if (name != banner) {
        out += "   --- " + name + " stack ---\n";
        banner = name;
      }
      const Frame& f = r.frames[i];
      used.insert(f.reason);
      const std::size_t line_start = out.size();
      out += "   ";
      out += std::to_string(i);
      pad(out, line_start, 8);
      const std::size_t st = out.size();
      out += f.exception ? *f.exception : std::string(to_string(f.stack));
      pad(out, st, 8);
      if (style.colour) out += colour_of(f.verdict);
      const std::size_t v = out.size();
      out += to_string(f.verdict);
      pad(out, v, 10);
      out += f.printed_unreliable ? "? " : "  ";
      const std::size_t d = out.size();
      out += describe(f);
      pad(out, d, 48);
      out += reason_code(f.reason);
      if (style.colour) out += reset;
      out += "\n";
      if (f.debug) out += describe_debug(*f.debug);
    }
  }
  if (!used.empty()) {
    out += "\n   reasons:\n";
    for (Reason reason : used) {
      out += "     " + std::string(reason_code(reason)) + ": " + std::string(reason_description(reason)) + "\n";
    }
  }
  out += "\n";
  return out;
}

}  // namespace btaudit
