#include "render/report_json.h"

#include "btaudit_version.h"

namespace btaudit {

namespace {

void write_location(JsonWriter& w, const CodeLocation& l) {
  w.begin_object();
  w.field("function", l.function);
  w.field("offset", l.offset);
  w.field("size", l.size);
  w.field("module", l.module);
  w.field("address", l.address);
  w.end_object();
}

void write_source(JsonWriter& w, const SourceLocation& s) {
  w.begin_object();
  w.field("file", s.file);
  w.field("line", s.line);
  w.field("column", s.column);
  w.end_object();
}

std::string_view to_string(CallKind k) {
  switch (k) {
    case CallKind::Direct: return "direct";
    case CallKind::Indirect: return "indirect";
    case CallKind::None: return "none";
  }
  return "none";
}

}  // namespace

void write_debug_fields(JsonWriter& w, const FrameDebugInfo& d) {
  w.field("debug_address", d.address);
  w.key("source");
  if (d.source)
    write_source(w, *d.source);
  else
    w.null();
  w.field("source_function", d.innermost_function);
  w.key("inlined");
  w.begin_array();
  for (const InlinedCall& c : d.inlined) {
    w.begin_object();
    w.field("function", c.function);
    w.field("file", c.call.file);
    w.field("line", c.call.line);
    w.field("column", c.call.column);
    w.end_object();
  }
  w.end_array();
  if (d.call_site) {
    w.key("call_site");
    w.begin_object();
    w.field("kind", to_string(d.call_site->kind));
    w.field("target", d.call_site->target);
    w.field("insn", d.call_site->insn);
    w.field("address", d.call_site->address);
    w.end_object();
  }
  if (d.kallsyms) w.field("kallsyms", *d.kallsyms);
  if (d.corruption_evidence) w.field("corruption_evidence", true);
  if (!d.note.empty()) w.field("debug_note", d.note);
}

void write_frame_json(JsonWriter& w, const Frame& f) {
  w.begin_object();
  w.field("function", f.function);
  w.field("offset", f.offset);
  w.field("size", f.size);
  w.field("module", f.module);
  w.field("build_id", f.build_id);
  w.field("address", f.address);
  w.field("printed_unreliable", f.printed_unreliable);
  w.field("stack", to_string(f.stack));
  w.field("exception", f.exception);
  w.field("verdict", to_string(f.verdict));
  w.field("reason", reason_code(f.reason));
  w.field("line", f.line);
  w.field("trace", f.trace);
  if (f.source) w.field("source_text", *f.source);
  if (f.inlined) w.field("inlined_marker", true);
  if (f.debug) write_debug_fields(w, *f.debug);
  if (f.slot) w.field("slot", *f.slot);
  w.end_object();
}

void write_truncations_json(JsonWriter& w, const std::vector<Truncation>& truncated) {
  if (truncated.empty()) return;  // only when a limit was reached: documents without one stay as they were
  w.key("truncated");
  w.begin_array();
  for (const Truncation& t : truncated) {
    w.begin_object();
    w.field("what", t.what);
    w.field("seen", t.seen);
    w.field("kept", t.kept);
    w.field("limit", t.limit);
    w.field("unit", t.unit);
    w.field("option", t.option);
    w.end_object();
  }
  w.end_array();
}

void write_report_json(JsonWriter& w, const Report& r) {
  w.begin_object();
  w.field("kind", to_string(r.kind));
  w.field("title", r.title);
  w.field("corrupted", r.corrupted);
  w.key("corrupted_reason");
  if (r.corrupted)
    w.value(r.corrupted_reason);
  else
    w.null();
  write_truncations_json(w, r.truncated);
  w.field("cpu", r.cpu);
  w.field("pid", r.pid);
  w.field("comm", r.comm);
  w.field("kernel", r.kernel);
  if (r.kernel_build_id) w.field("kernel_build_id", *r.kernel_build_id);  // only when the log printed it
  w.field("tainted", r.tainted);
  w.field("hardware", r.hardware);
  w.field("arch", to_string(r.arch));
  w.field("header", r.header);
  w.field("panicked", r.panicked);
  w.field("signature", signature_hex(r.signature));
  w.key("guilty");
  if (r.guilty)
    write_frame_json(w, r.frames[*r.guilty]);
  else
    w.null();
  w.key("crash_site");
  if (r.rip)
    write_location(w, *r.rip);
  else
    w.null();
  w.key("warn_site");
  if (r.warn_site)
    write_location(w, *r.warn_site);
  else
    w.null();
  w.field("kernel_offset", r.kaslr_offset);
  w.field("kaslr_offset", r.kaslr_offset);
  if (!r.kaslr_source.empty()) {
    w.field("kaslr_source", r.kaslr_source);
    w.field("kaslr_agreeing_frames", r.kaslr_agreeing_frames);
  }
  if (r.rip_debug) {
    w.key("crash_site_debug");
    w.begin_object();
    write_debug_fields(w, *r.rip_debug);
    w.end_object();
  }
  w.key("debug_warnings");
  w.begin_array();
  for (const auto& dw : r.debug_warnings) w.value(dw);
  w.end_array();
  w.key("input");
  w.begin_object();
  w.field("path", r.input.path);
  w.field("first_line", r.input.first_line);
  w.field("last_line", r.input.last_line);
  w.end_object();
  w.key("modules");
  w.begin_array();
  for (const auto& m : r.modules) w.value(m);
  w.end_array();
  w.key("registers");
  w.begin_object();
  for (const auto& [name, value] : r.registers) w.field(name, value);
  w.end_object();
  w.field("code", r.code_bytes);
  w.key("traces");
  w.begin_array();
  for (const Trace& t : r.traces) {
    w.begin_object();
    w.field("label", t.label);
    w.field("primary", t.primary);
    w.field("first_frame", t.first_frame);
    w.field("frame_count", t.frame_count);
    w.field("line", t.line);
    w.end_object();
  }
  w.end_array();
  w.key("sections");
  w.begin_array();
  for (const StackSection& s : r.sections) {
    w.begin_object();
    w.field("stack", to_string(s.stack));
    w.field("exception", s.exception);
    w.field("trace", s.trace);
    w.field("first_frame", s.first_frame);
    w.field("frame_count", s.frame_count);
    w.field("line", s.line);
    w.end_object();
  }
  w.end_array();
  w.key("frames");
  w.begin_array();
  for (const Frame& f : r.frames) write_frame_json(w, f);
  w.end_array();
  w.end_object();
}

JsonDocument::JsonDocument() {
  w_.begin_object();
  w_.field("btaudit", std::string_view(kBtauditVersion));
  w_.key("reports");
  w_.begin_array();
}

void JsonDocument::add(const Report& r) { write_report_json(w_, r); }

void JsonDocument::finish() {
  w_.end_array();
  w_.end_object();
  out_.push_back('\n');
}

std::string render_json(const std::vector<Report>& reports) {
  JsonDocument doc;
  for (const Report& r : reports) doc.add(r);
  doc.finish();
  return std::move(doc.buffer());
}

}  // namespace btaudit
