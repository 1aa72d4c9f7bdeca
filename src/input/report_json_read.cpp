#include "input/report_json_read.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

namespace btaudit {

namespace {

// Ordered: the registers object keeps the order the report printed them in.
using json = nlohmann::ordered_json;

template <typename T>
std::optional<T> opt(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return std::nullopt;
  } else {
    if (!it->is_number()) return std::nullopt;
  }
  return it->get<T>();
}

std::string str(const json& j, const char* key) { return opt<std::string>(j, key).value_or(""); }

// The enums by their JSON words: every value's to_string is tried, so a word added
// to a table is read back without a second list here.
template <typename E, typename Name>
E enum_of(const std::string& word, E last, E fallback, Name name) {
  for (int i = 0; i <= static_cast<int>(last); ++i)
    if (name(static_cast<E>(i)) == word) return static_cast<E>(i);
  return fallback;
}

SourceLocation source_of(const json& s) {
  return SourceLocation{str(s, "file"), opt<int>(s, "line").value_or(0), opt<int>(s, "column").value_or(0)};
}

FrameDebugInfo debug_of(const json& f) {
  FrameDebugInfo d;
  d.address = opt<std::uint64_t>(f, "debug_address").value_or(0);
  if (const auto s = f.find("source"); s != f.end() && s->is_object()) d.source = source_of(*s);
  d.innermost_function = opt<std::string>(f, "source_function");
  if (const auto in = f.find("inlined"); in != f.end() && in->is_array())
    for (const json& c : *in) d.inlined.push_back(InlinedCall{str(c, "function"), source_of(c)});
  if (const auto cs = f.find("call_site"); cs != f.end() && cs->is_object()) {
    CallSite site;
    const std::string kind = str(*cs, "kind");
    site.kind = kind == "direct" ? CallKind::Direct : kind == "indirect" ? CallKind::Indirect : CallKind::None;
    site.target = opt<std::string>(*cs, "target");
    site.insn = str(*cs, "insn");
    site.address = opt<std::uint64_t>(*cs, "address");
    site.patched_by = opt<std::string>(*cs, "patched_by");
    site.read_in_dump = str(*cs, "code_from") == "dump";
    d.call_site = site;
  }
  d.corruption_evidence = f.value("corruption_evidence", false);
  d.note = str(f, "debug_note");
  return d;
}

Frame frame_of(const json& f) {
  Frame out;
  out.function = opt<std::string>(f, "function");
  out.offset = opt<std::uint64_t>(f, "offset");
  out.size = opt<std::uint64_t>(f, "size");
  out.module = opt<std::string>(f, "module");
  out.build_id = opt<std::string>(f, "build_id");
  out.address = opt<std::uint64_t>(f, "address");
  out.source = opt<std::string>(f, "source_text");
  out.inlined = f.value("inlined_marker", false);
  out.printed_unreliable = f.value("printed_unreliable", false);
  out.stack =
      enum_of(str(f, "stack"), StackKind::Unknown, StackKind::Unknown, [](StackKind k) { return to_string(k); });
  out.exception = opt<std::string>(f, "exception");
  out.verdict = enum_of(str(f, "verdict"), Verdict::Unknown, Verdict::Unknown, [](Verdict v) { return to_string(v); });
  out.reason = enum_of(str(f, "reason"), Reason::NoAddress, Reason::NoAddress, [](Reason r) { return reason_code(r); });
  out.line = opt<std::uint32_t>(f, "line").value_or(0);
  out.trace = opt<std::uint32_t>(f, "trace").value_or(0);
  if (f.contains("debug_address")) out.debug = debug_of(f);
  out.slot = opt<std::uint64_t>(f, "slot");
  return out;
}

std::optional<CodeLocation> location_of(const json& r, const char* key) {
  const auto it = r.find(key);
  if (it == r.end() || !it->is_object()) return std::nullopt;
  CodeLocation l;
  l.function = opt<std::string>(*it, "function");
  l.offset = opt<std::uint64_t>(*it, "offset");
  l.size = opt<std::uint64_t>(*it, "size");
  l.module = opt<std::string>(*it, "module");
  l.address = opt<std::uint64_t>(*it, "address");
  return l;
}

RegisterSet register_set_of(const json& object, std::uint32_t line) {
  RegisterSet set{line, {}};
  for (const auto& [name, value] : object.items())
    if (value.is_number_unsigned()) set.values.emplace_back(name, value.get<std::uint64_t>());
  return set;
}

// "registers" (the first block; its line is not written) and "more_registers".
void read_registers(const json& r, std::vector<RegisterSet>& out) {
  const auto first = r.find("registers");
  if (first == r.end() || !first->is_object() || first->empty()) return;
  out.push_back(register_set_of(*first, 0));
  const auto more = r.find("more_registers");
  if (more == r.end() || !more->is_array()) return;
  for (const json& block : *more) {
    if (!block.is_object()) continue;
    const auto values = block.find("registers");
    if (values == block.end() || !values->is_object()) continue;
    out.push_back(register_set_of(*values, opt<std::uint32_t>(block, "line").value_or(0)));
  }
}

}  // namespace

Report report_from_json_text(std::string_view text) {
  const json r = json::parse(text);
  Report out;
  out.kind = enum_of(str(r, "kind"), ReportKind::Other, ReportKind::Other, [](ReportKind k) { return to_string(k); });
  out.title = str(r, "title");
  out.header = str(r, "header");
  out.cpu = opt<int>(r, "cpu");
  out.pid = opt<int>(r, "pid");
  out.comm = opt<std::string>(r, "comm");
  out.kernel = opt<std::string>(r, "kernel");
  out.kernel_build_id = opt<std::string>(r, "kernel_build_id");
  out.tainted = opt<std::string>(r, "tainted");
  out.hardware = opt<std::string>(r, "hardware");
  out.panicked = r.value("panicked", false);
  out.corrupted = r.value("corrupted", false);
  out.corrupted_reason = str(r, "corrupted_reason");
  out.signature = std::strtoull(str(r, "signature").c_str(), nullptr, 16);
  out.rip = location_of(r, "crash_site");
  out.warn_site = location_of(r, "warn_site");
  out.guilty_file = opt<std::string>(r, "guilty_file");
  out.kaslr_offset = opt<std::int64_t>(r, "kaslr_offset");
  out.kaslr_source = str(r, "kaslr_source");
  out.kaslr_agreeing_frames = opt<int>(r, "kaslr_agreeing_frames").value_or(0);
  out.arch = enum_of(str(r, "arch"), Arch::M68k, Arch::Unknown, [](Arch a) { return to_string(a); });
  out.code_bytes = str(r, "code");
  read_registers(r, out.registers);
  if (const auto d = r.find("crash_site_debug"); d != r.end() && d->is_object()) out.rip_debug = debug_of(*d);
  if (const auto w = r.find("debug_warnings"); w != r.end() && w->is_array())
    for (const json& s : *w)
      if (s.is_string()) out.debug_warnings.push_back(s.get<std::string>());
  if (const auto in = r.find("input"); in != r.end() && in->is_object()) {
    out.input.path = str(*in, "path");
    out.input.first_line = opt<std::uint32_t>(*in, "first_line").value_or(0);
    out.input.last_line = opt<std::uint32_t>(*in, "last_line").value_or(0);
  }
  if (const auto m = r.find("modules"); m != r.end() && m->is_array())
    for (const json& s : *m)
      if (s.is_string()) out.modules.push_back(s.get<std::string>());
  if (const auto t = r.find("traces"); t != r.end() && t->is_array())
    for (const json& j : *t)
      out.traces.push_back(
          Trace{str(j, "label"), j.value("primary", true), opt<std::uint32_t>(j, "first_frame").value_or(0),
                opt<std::uint32_t>(j, "frame_count").value_or(0), opt<std::uint32_t>(j, "line").value_or(0)});
  if (const auto s = r.find("sections"); s != r.end() && s->is_array())
    for (const json& j : *s) {
      StackSection sec;
      sec.stack =
          enum_of(str(j, "stack"), StackKind::Unknown, StackKind::Unknown, [](StackKind k) { return to_string(k); });
      sec.exception = opt<std::string>(j, "exception");
      sec.trace = opt<std::uint32_t>(j, "trace").value_or(0);
      sec.first_frame = opt<std::uint32_t>(j, "first_frame").value_or(0);
      sec.frame_count = opt<std::uint32_t>(j, "frame_count").value_or(0);
      sec.line = opt<std::uint32_t>(j, "line").value_or(0);
      out.sections.push_back(std::move(sec));
    }
  if (const auto f = r.find("frames"); f != r.end() && f->is_array())
    for (const json& j : *f) out.frames.push_back(frame_of(j));
  // The guilty frame is written out whole: it is the frame printed on the same line with the same text.
  if (const auto g = r.find("guilty"); g != r.end() && g->is_object()) {
    const Frame guilty = frame_of(*g);
    for (std::size_t i = 0; i < out.frames.size(); ++i)
      if (out.frames[i].line == guilty.line && out.frames[i].function == guilty.function &&
          out.frames[i].offset == guilty.offset) {
        out.guilty = i;
        break;
      }
  }
  return out;
}

}  // namespace btaudit
