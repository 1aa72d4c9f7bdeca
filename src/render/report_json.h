// The JSON contract of `btaudit analyze --format json` (see man/btaudit.1,
// OUTPUT): names are fixed, fields may be added.
#pragma once
#include <string>
#include <vector>

#include "model/report.h"
#include "render/json_writer.h"

namespace btaudit {

void write_frame_json(JsonWriter& w, const Frame& f);
// "truncated": [{"what", "seen", "kept", "limit", "unit", "option"}], written only when a limit was reached.
void write_truncations_json(JsonWriter& w, const std::vector<Truncation>& truncated);
// What debuginfo adds to a frame: debug_address, source, inlined callers, call site, notes.
void write_debug_fields(JsonWriter& w, const FrameDebugInfo& d);
void write_report_json(JsonWriter& w, const Report& r);

// The objects a report holds many of, each written two ways: straight into the writer's buffer
// (direct: false, nothing written, when a string needs escaping or the object is too large)
// and through the general calls, which must give the same text
// (tests/unit/report_json_direct_test.cpp).
namespace report_json_detail {
bool write_frame_direct(JsonWriter& w, const Frame& f);
void write_frame_fields(JsonWriter& w, const Frame& f);
// The items of an array of frames (the array opened and closed by the caller): runs of direct
// writing, write_frame_json for a frame a run leaves out.
void write_frames_json(JsonWriter& w, const std::vector<Frame>& frames);
// A block's registers as one object, {"RAX": 0, ...}.
bool write_register_values_direct(JsonWriter& w, const RegisterSet& set);
void write_register_values_fields(JsonWriter& w, const RegisterSet& set);
bool write_trace_direct(JsonWriter& w, const Trace& t);
void write_trace_fields(JsonWriter& w, const Trace& t);
bool write_section_direct(JsonWriter& w, const StackSection& s);
void write_section_fields(JsonWriter& w, const StackSection& s);
// A report's members from "kind" to "signature", the object left open (direct: only when no
// limit was reached, "truncated" being written by the general calls).
bool write_report_head_direct(JsonWriter& w, const Report& r);
void write_report_head_fields(JsonWriter& w, const Report& r);
// "guilty_file", "crash_site", "warn_site", "kernel_offset", "kaslr_offset" and the kaslr source.
bool write_report_sites_direct(JsonWriter& w, const Report& r);
void write_report_sites_fields(JsonWriter& w, const Report& r);
// "debug_warnings", "input" and "modules".
bool write_report_lists_direct(JsonWriter& w, const Report& r);
void write_report_lists_fields(JsonWriter& w, const Report& r);
// The whole report through the general calls alone: what write_report_json must write.
void write_report_fields(JsonWriter& w, const Report& r);
}  // namespace report_json_detail
// The whole document: {"btaudit": version, "reports": [...]}.
std::string render_json(const std::vector<Report>& reports);

// The same document written one report at a time, so that a caller need not keep
// every report of a large log in memory.
class JsonDocument {
 public:
  // The text written so far is in buffer(), which the caller may drain (write out and
  // clear) between reports.
  JsonDocument();
  // The text goes to `sink` in blocks of about `block` bytes, straight from the buffer it
  // is written in (buffer() stays empty): for a document streamed to a file.
  JsonDocument(JsonWriter::Sink sink, std::size_t block);
  JsonDocument(const JsonDocument&) = delete;
  JsonDocument& operator=(const JsonDocument&) = delete;
  void add(const Report& r);
  void finish();  // closes the document and flushes it; add() must not follow
  std::string& buffer() {
    w_.flush();
    return out_;
  }

 private:
  void open();  // writes the document's opening
  std::string out_;
  JsonWriter w_;  // appends to out_ (declared, so constructed, after it) or hands blocks to a sink
};

}  // namespace btaudit
