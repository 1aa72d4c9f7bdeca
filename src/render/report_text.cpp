#include "render/report_text.h"

#include <array>
#include <cstddef>
#include <cstdint>

#include "render/decimal.h"

namespace btaudit {

namespace {

// "0x" and the digits of v without leading zeros, as printf's "%#llx" but "0x0" for 0.
// Written in place: snprintf's format parsing cost more than the rest of a frame's line.
void put_hex(std::string& out, std::uint64_t v) {
  std::array<char, 18> buf{};
  std::size_t at = buf.size();
  do {
    buf[--at] = "0123456789abcdef"[v & 0xf];
    v >>= 4;
  } while (v != 0);
  buf[--at] = 'x';
  buf[--at] = '0';
  out.append(buf.data() + at, buf.size() - at);
}

std::string hex(std::uint64_t v) {
  std::string s;
  put_hex(s, v);
  return s;
}

void put_decimal(std::string& out, std::uint64_t v) {
  std::array<char, 24> buf{};
  out.append(buf.data(), static_cast<std::size_t>(decimal::put(buf.data(), v) - buf.data()));
}

// A frame as its trace line names it: "function+0xoff/0xsize [module] file.c:12 [inline]".
void put_frame(std::string& out, const Frame& f) {
  if (f.function) {
    out += *f.function;
    if (f.offset) {
      out += '+';
      put_hex(out, *f.offset);
    }
    if (f.size) {
      out += '/';
      put_hex(out, *f.size);
    }
  } else if (f.address) {
    put_hex(out, *f.address);
  } else {
    out += '?';
  }
  if (f.module) out.append(" [").append(*f.module).append("]");
  if (f.source) out.append(" ").append(*f.source);
  if (f.inlined) out += " [inline]";
}

std::string describe(const Frame& f) {
  std::string s;
  put_frame(s, f);
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

// The banner's name of a frame's stack ("TASK", "IRQ", "#DF"), into `name` (reused: no allocation
// per frame once it has grown).
void stack_name(std::string& name, StackKind k, const Boxed<std::string>& exception) {
  name.clear();
  if (k == StackKind::Exception && exception) {
    name += *exception;
    return;
  }
  for (const char c : to_string(k)) name += static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
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
    if (d.call_site->patched_by) out += " (written at boot by " + *d.call_site->patched_by + ")";
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

void append_text(std::string& out, const Report& r, const TextStyle& style) {
  const char* bold = style.colour ? "\x1b[1m" : "";
  const char* reset = style.colour ? "\x1b[0m" : "";
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

  // The reasons the frames use, listed after the traces in the enum's order.
  std::array<bool, kReasonCount> used{};
  bool any_used = false;
  std::string banner;
  std::string name;
  for (const Trace& t : r.traces) {
    out.append("\n   ").append(t.label).append(t.primary ? "" : "  (auxiliary)").append(" [line ");
    put_decimal(out, t.line);
    out += "]\n";
    banner.clear();
    for (std::size_t i = t.first_frame; i < t.first_frame + t.frame_count; ++i) {
      const Frame& f = r.frames[i];
      stack_name(name, f.stack, f.exception);
      if (name != banner) {
        out.append("   --- ").append(name).append(" stack ---\n");
        banner = name;
      }
      used[static_cast<std::size_t>(f.reason)] = true;
      any_used = true;
      const std::size_t line_start = out.size();
      out += "   ";
      put_decimal(out, i);
      pad(out, line_start, 8);
      const std::size_t st = out.size();
      if (f.exception)
        out += *f.exception;
      else
        out += to_string(f.stack);
      pad(out, st, 8);
      if (style.colour) out += colour_of(f.verdict);
      const std::size_t v = out.size();
      out += to_string(f.verdict);
      pad(out, v, 10);
      out += f.printed_unreliable ? "? " : "  ";
      const std::size_t d = out.size();
      put_frame(out, f);
      pad(out, d, 48);
      out += reason_code(f.reason);
      if (style.colour) out += reset;
      out += '\n';
      if (f.debug) out += describe_debug(*f.debug);
    }
  }
  if (any_used) {
    out += "\n   reasons:\n";
    for (std::size_t k = 0; k < used.size(); ++k) {
      if (!used[k]) continue;
      const auto reason = static_cast<Reason>(k);
      out.append("     ").append(reason_code(reason)).append(": ").append(reason_description(reason)).append("\n");
    }
  }
  out += "\n";
}

std::string render_text(const Report& r, const TextStyle& style) {
  std::string out;
  append_text(out, r, style);
  return out;
}

}  // namespace btaudit
