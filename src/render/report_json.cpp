#include "render/report_json.h"

#include <array>
#include <cstring>

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
    if (d.call_site->patched_by) w.field("patched_by", *d.call_site->patched_by);
    if (d.call_site->read_in_dump) w.field("code_from", std::string_view("dump"));
    w.end_object();
  }
  if (d.kallsyms) w.field("kallsyms", *d.kallsyms);
  if (d.corruption_evidence) w.field("corruption_evidence", true);
  if (!d.note.empty()) w.field("debug_note", d.note);
}

namespace {

// The constant stretches of a frame's text between its strings and numbers, one per value of
// the enums they hold, rendered once: `,"printed_unreliable":false,"stack":"task","exception":`
// and `reliable","reason":"unwinder","line":`. Each is one fixed-size copy instead of keys,
// flags and names written piece by piece (a frame is the bulk of a report's JSON). Enum names
// are snake_case words from constant tables: no escaping to check.
template <std::size_t Capacity>
struct Fragment {
  std::array<char, Capacity> text{};
  std::size_t size = 0;
  // Copies all Capacity bytes (a fixed-size copy, inlined), keeps size of them.
  void put(char*& p) const {
    std::memcpy(p, text.data(), Capacity);
    p += size;
  }
};

template <std::size_t Capacity>
constexpr Fragment<Capacity> fragment(std::initializer_list<std::string_view> parts) {
  Fragment<Capacity> f;
  for (const std::string_view part : parts)
    for (const char c : part) f.text.at(f.size++) = c;  // at(): a text too long fails to compile or throws
  return f;
}

constexpr std::size_t kStackKinds = static_cast<std::size_t>(StackKind::Unknown) + 1;
constexpr std::size_t kVerdicts = static_cast<std::size_t>(Verdict::Unknown) + 1;
constexpr std::size_t kReasons = kReasonCount;

// By printed_unreliable * kStackKinds + stack: the flags of a frame that has a module, build id,
// address or exception.
constexpr std::array<Fragment<64>, 2 * kStackKinds> kFlagStackFragments = [] {
  std::array<Fragment<64>, 2 * kStackKinds> t{};
  for (std::size_t i = 0; i < t.size(); ++i)
    t[i] = fragment<64>({R"(,"printed_unreliable":)", i >= kStackKinds ? "true" : "false", R"(,"stack":")",
                         to_string(static_cast<StackKind>(i % kStackKinds)), R"(","exception":)"});
  return t;
}();

// The same for a frame with none of them, nearly every frame of a text log: everything from its
// size to its verdict in one copy.
constexpr std::array<Fragment<128>, 2 * kStackKinds> kPlainFlagStackFragments = [] {
  std::array<Fragment<128>, 2 * kStackKinds> t{};
  for (std::size_t i = 0; i < t.size(); ++i)
    t[i] = fragment<128>({R"(,"module":null,"build_id":null,"address":null,"printed_unreliable":)",
                          i >= kStackKinds ? "true" : "false", R"(,"stack":")",
                          to_string(static_cast<StackKind>(i % kStackKinds)), R"(","exception":null,"verdict":")"});
  return t;
}();

// The same from the flags on, for a frame with an address but no module, build id or exception
// (the "[<ffffffff...>]" traces of older kernels), after `,"module":null,"build_id":null,"address":N`.
constexpr std::array<Fragment<128>, 2 * kStackKinds> kAddressFlagStackFragments = [] {
  std::array<Fragment<128>, 2 * kStackKinds> t{};
  for (std::size_t i = 0; i < t.size(); ++i)
    t[i] = fragment<128>({R"(,"printed_unreliable":)", i >= kStackKinds ? "true" : "false", R"(,"stack":")",
                          to_string(static_cast<StackKind>(i % kStackKinds)), R"(","exception":null,"verdict":")"});
  return t;
}();

using VerdictReasonFragments = std::array<Fragment<64>, kVerdicts * kReasons>;

// By verdict * kReasons + reason: `reliable","reason":"unwinder","line":`.
const VerdictReasonFragments& verdict_reason_fragments() {
  // reason_code() is not constexpr (verdict.cpp): the table is built on first use, then only read.
  static const VerdictReasonFragments table = [] {
    VerdictReasonFragments t{};
    for (std::size_t i = 0; i < t.size(); ++i)
      t[i] = fragment<64>({to_string(static_cast<Verdict>(i / kReasons)), R"(","reason":")",
                           reason_code(static_cast<Reason>(i % kReasons)), R"(","line":)"});
    return t;
  }();
  return table;
}

}  // namespace

// A frame's members through the general calls: for what direct writing leaves out.
void report_json_detail::write_frame_fields(JsonWriter& w, const Frame& f) {
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

namespace {

// Frames whose strings are longer than this (never seen in a real trace) take the general path.
constexpr std::size_t kFrameString = 1024;
// Room for one frame written directly: keys and punctuation (about 220 bytes), five numbers and
// the fragments copied whole fit in 640 bytes; the five strings add their length and quotes.
constexpr std::size_t kFrameRoom = 640 + 5 * (kFrameString + 2);
static_assert(kFrameRoom <= JsonWriter::kStage, "a frame fits the writer's smallest buffer");

// A string of a frame, quoted, or null; false, having written part of it, when it needs
// escaping or is longer than kFrameString.
[[gnu::always_inline]] inline bool put_frame_string_or_null(char*& p, const Boxed<std::string>& s) {
  if (!s) return JsonWriter::put_scalar(p, std::nullopt);
  return s->size() <= kFrameString && JsonWriter::put_string(p, *s);
}

// The members of a frame that direct writing covers, from its '{' to its last member before
// the debuginfo ones (no '}'), straight at p: the same text as write_frame_fields. Returns
// false, p's bytes being scratch, when a string needs escaping or is too long. Needs
// kFrameRoom bytes at p.
[[gnu::always_inline]] inline bool put_frame_members(char*& out, const Frame& f, const VerdictReasonFragments& vr) {
  using J = JsonWriter;
  char* p = out;
  if (f.function) {
    // The quotes go out with the keys around the name.
    const std::string& function = *f.function;
    J::put_literal(p, R"({"function":")");
    if (function.size() > kFrameString || !json_detail::copy_plain_string(p, function)) return false;
    p += function.size();
    J::put_literal(p, R"(","offset":)");
  } else {
    J::put_literal(p, R"({"function":null,"offset":)");
  }
  J::put_scalar(p, f.offset);
  J::put_literal(p, ",\"size\":");
  J::put_scalar(p, f.size);
  const std::size_t flags = (f.printed_unreliable ? kStackKinds : 0) + static_cast<std::size_t>(f.stack);
  if (!f.module && !f.build_id && !f.exception) {
    // Nearly every frame: with no address (recent kernels) or only an address (older ones).
    if (!f.address) {
      kPlainFlagStackFragments[flags].put(p);
    } else {
      J::put_literal(p, R"(,"module":null,"build_id":null,"address":)");
      J::put_scalar(p, *f.address);
      kAddressFlagStackFragments[flags].put(p);
    }
  } else {
    J::put_literal(p, ",\"module\":");
    if (!put_frame_string_or_null(p, f.module)) return false;
    J::put_literal(p, ",\"build_id\":");
    if (!put_frame_string_or_null(p, f.build_id)) return false;
    J::put_literal(p, ",\"address\":");
    J::put_scalar(p, f.address);
    kFlagStackFragments[flags].put(p);
    if (!put_frame_string_or_null(p, f.exception)) return false;
    J::put_literal(p, R"(,"verdict":")");
  }
  vr[static_cast<std::size_t>(f.verdict) * kReasons + static_cast<std::size_t>(f.reason)].put(p);
  J::put_scalar(p, f.line);
  J::put_literal(p, ",\"trace\":");
  // Nearly every frame is in one of a report's first ten traces: that digit is written here,
  // without a table look-up.
  if (f.trace < 10)
    *p++ = static_cast<char>('0' + f.trace);
  else
    J::put_scalar(p, f.trace);
  if (f.source) {
    const std::string& source = *f.source;
    J::put_literal(p, R"(,"source_text":")");
    if (source.size() > kFrameString || !json_detail::copy_plain_string(p, source)) return false;
    p += source.size();
    *p++ = '"';
  }
  if (f.inlined) J::put_literal(p, ",\"inlined_marker\":true");
  out = p;
  return true;
}

}  // namespace

// The same members as write_frame_fields, written straight into the writer's buffer with
// constant key fragments. Returns false, having kept nothing, when a string needs escaping or
// is too long.
bool report_json_detail::write_frame_direct(JsonWriter& w, const Frame& f) {
  char* p = w.begin_direct(kFrameRoom);
  if (!put_frame_members(p, f, verdict_reason_fragments())) return false;
  if (!f.debug && !f.slot) {
    *p++ = '}';
    w.end_direct(p);
    return true;
  }
  // Debuginfo and dump walks add members of their own: the general calls write them.
  w.end_direct(p);
  w.continue_object();
  if (f.debug) write_debug_fields(w, *f.debug);
  if (f.slot) w.field("slot", *f.slot);
  w.end_object();
  return true;
}

void write_frame_json(JsonWriter& w, const Frame& f) {
  if (!report_json_detail::write_frame_direct(w, f)) report_json_detail::write_frame_fields(w, f);
}

// A report's frames, hundreds of them, as one run of direct writing (JsonWriter::run_begin):
// no room, comma and commit bookkeeping of the writer per frame. A frame the run does not
// cover (debuginfo or dump members, a string to escape) ends it and goes through
// write_frame_json; the next run starts after it.
void report_json_detail::write_frames_json(JsonWriter& w, const std::vector<Frame>& frames) {
  const VerdictReasonFragments& vr = verdict_reason_fragments();
  const Frame* f = frames.data();
  const Frame* const end = f + frames.size();
  while (f != end) {
    bool sep = false;
    char* p = w.run_begin(sep);
    const char* const limit = w.run_limit();
    bool wrote = false;
    for (; f != end; ++f) {
      if (static_cast<std::size_t>(limit - p) < kFrameRoom + 1) p = w.run_flush(p);
      char* q = p;
      *q = ',';
      q += sep ? 1 : 0;
      if (f->debug || f->slot || !put_frame_members(q, *f, vr)) break;
      *q++ = '}';
      p = q;
      sep = true;
      wrote = true;
    }
    w.run_end(p, wrote);
    if (f != end) write_frame_json(w, *f++);
  }
}

// The small objects of a report, written straight into the writer's buffer as frames are
// (write_frame_direct): a report holds a score of registers, a trace and a section or two per
// trace, and each member through the general calls costs a key's and a value's checks.
namespace report_json_detail {

namespace {
// Room for the punctuation and numbers of one member: quotes, ':', ',' and 20 digits.
constexpr std::size_t kMemberFixed = 32;
// Strings longer than this in total take the general calls (never seen in a real report).
constexpr std::size_t kDirectStrings = std::size_t{8} << 10;
}  // namespace

bool write_register_values_direct(JsonWriter& w, const RegisterSet& set) {
  using J = JsonWriter;
  std::size_t strings = 0;
  for (const auto& kv : set.values) strings += kv.first.size();
  if (strings > kDirectStrings || set.values.size() > 256) return false;
  char* p = w.begin_direct(2 + strings + kMemberFixed * set.values.size());
  *p++ = '{';
  bool first = true;
  for (const auto& [name, value] : set.values) {
    if (!first) *p++ = ',';
    first = false;
    if (!J::put_string(p, name)) return false;
    *p++ = ':';
    J::put_scalar(p, value);
  }
  *p++ = '}';
  w.end_direct(p);
  return true;
}

void write_register_values_fields(JsonWriter& w, const RegisterSet& set) {
  w.begin_object();
  for (const auto& [name, value] : set.values) w.field(name, value);
  w.end_object();
}

bool write_trace_direct(JsonWriter& w, const Trace& t) {
  using J = JsonWriter;
  if (t.label.size() > kDirectStrings) return false;
  char* p = w.begin_direct(t.label.size() + 128);
  J::put_literal(p, "{\"label\":");
  if (!J::put_string(p, t.label)) return false;
  J::put_literal(p, ",\"primary\":");
  J::put_scalar(p, t.primary);
  J::put_literal(p, ",\"first_frame\":");
  J::put_scalar(p, t.first_frame);
  J::put_literal(p, ",\"frame_count\":");
  J::put_scalar(p, t.frame_count);
  J::put_literal(p, ",\"line\":");
  J::put_scalar(p, t.line);
  *p++ = '}';
  w.end_direct(p);
  return true;
}

void write_trace_fields(JsonWriter& w, const Trace& t) {
  w.begin_object();
  w.field("label", t.label);
  w.field("primary", t.primary);
  w.field("first_frame", t.first_frame);
  w.field("frame_count", t.frame_count);
  w.field("line", t.line);
  w.end_object();
}

bool write_section_direct(JsonWriter& w, const StackSection& s) {
  using J = JsonWriter;
  const std::string_view stack = to_string(s.stack);
  const std::size_t strings = stack.size() + (s.exception ? s.exception->size() : 0);
  if (strings > kDirectStrings) return false;
  char* p = w.begin_direct(strings + 160);
  J::put_literal(p, "{\"stack\":");
  if (!J::put_string(p, stack)) return false;
  J::put_literal(p, ",\"exception\":");
  if (!J::put_string_or_null(p, s.exception)) return false;
  J::put_literal(p, ",\"trace\":");
  J::put_scalar(p, s.trace);
  J::put_literal(p, ",\"first_frame\":");
  J::put_scalar(p, s.first_frame);
  J::put_literal(p, ",\"frame_count\":");
  J::put_scalar(p, s.frame_count);
  J::put_literal(p, ",\"line\":");
  J::put_scalar(p, s.line);
  *p++ = '}';
  w.end_direct(p);
  return true;
}

void write_section_fields(JsonWriter& w, const StackSection& s) {
  w.begin_object();
  w.field("stack", to_string(s.stack));
  w.field("exception", s.exception);
  w.field("trace", s.trace);
  w.field("first_frame", s.first_frame);
  w.field("frame_count", s.frame_count);
  w.field("line", s.line);
  w.end_object();
}

}  // namespace report_json_detail

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

namespace report_json_detail {

namespace {

std::size_t length_of(const std::optional<std::string>& s) { return s ? s->size() : 0; }

// Keys, punctuation, the numbers (21 bytes each at most) and the signature's 16 digits of
// the head; the strings add their length and quotes.
constexpr std::size_t kHeadFixed = 512;
// Room for one code location's keys, punctuation and three numbers.
constexpr std::size_t kLocationFixed = 192;

// "%016llx" straight into the buffer, quoted.
void put_signature(char*& p, std::uint64_t signature) {
  *p++ = '"';
  for (std::size_t i = 16; i-- > 0; signature >>= 4) p[i] = "0123456789abcdef"[signature & 0xf];
  p += 16;
  *p++ = '"';
}

bool put_location_or_null(char*& p, const std::optional<CodeLocation>& l) {
  using J = JsonWriter;
  if (!l) return J::put_scalar(p, std::nullopt);
  J::put_literal(p, R"({"function":)");
  if (!J::put_string_or_null(p, l->function)) return false;
  J::put_literal(p, R"(,"offset":)");
  J::put_scalar(p, l->offset);
  J::put_literal(p, R"(,"size":)");
  J::put_scalar(p, l->size);
  J::put_literal(p, R"(,"module":)");
  if (!J::put_string_or_null(p, l->module)) return false;
  J::put_literal(p, R"(,"address":)");
  J::put_scalar(p, l->address);
  *p++ = '}';
  return true;
}

std::size_t location_strings(const std::optional<CodeLocation>& l) {
  return l ? length_of(l->function) + length_of(l->module) : 0;
}

}  // namespace

bool write_report_head_direct(JsonWriter& w, const Report& r) {
  using J = JsonWriter;
  if (!r.truncated.empty()) return false;  // only when a limit was reached
  const std::string_view kind = to_string(r.kind);
  const std::string_view arch = to_string(r.arch);
  const std::size_t strings = kind.size() + r.title.size() + (r.corrupted ? r.corrupted_reason.size() : 0) +
                              length_of(r.comm) + length_of(r.kernel) + length_of(r.kernel_build_id) +
                              length_of(r.tainted) + length_of(r.hardware) + arch.size() + r.header.size();
  if (strings > kDirectStrings) return false;
  char* p = w.begin_direct(kHeadFixed + strings);
  J::put_literal(p, R"({"kind":)");
  if (!J::put_string(p, kind)) return false;
  J::put_literal(p, R"(,"title":)");
  if (!J::put_string(p, r.title)) return false;
  if (r.corrupted) {
    J::put_literal(p, R"(,"corrupted":true,"corrupted_reason":)");
    if (!J::put_string(p, r.corrupted_reason)) return false;
  } else {
    J::put_literal(p, R"(,"corrupted":false,"corrupted_reason":null)");
  }
  J::put_literal(p, R"(,"cpu":)");
  J::put_scalar(p, r.cpu);
  J::put_literal(p, R"(,"pid":)");
  J::put_scalar(p, r.pid);
  J::put_literal(p, R"(,"comm":)");
  if (!J::put_string_or_null(p, r.comm)) return false;
  J::put_literal(p, R"(,"kernel":)");
  if (!J::put_string_or_null(p, r.kernel)) return false;
  if (r.kernel_build_id) {
    J::put_literal(p, R"(,"kernel_build_id":)");
    if (!J::put_string(p, *r.kernel_build_id)) return false;
  }
  J::put_literal(p, R"(,"tainted":)");
  if (!J::put_string_or_null(p, r.tainted)) return false;
  J::put_literal(p, R"(,"hardware":)");
  if (!J::put_string_or_null(p, r.hardware)) return false;
  J::put_literal(p, R"(,"arch":)");
  if (!J::put_string(p, arch)) return false;
  J::put_literal(p, R"(,"header":)");
  if (!J::put_string(p, r.header)) return false;
  J::put_literal(p, R"(,"panicked":)");
  J::put_scalar(p, r.panicked);
  J::put_literal(p, R"(,"signature":)");
  put_signature(p, r.signature);
  w.end_direct(p);
  w.continue_object();
  return true;
}

void write_report_head_fields(JsonWriter& w, const Report& r) {
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
}

bool write_report_sites_direct(JsonWriter& w, const Report& r) {
  using J = JsonWriter;
  const std::size_t strings =
      length_of(r.guilty_file) + location_strings(r.rip) + location_strings(r.warn_site) + r.kaslr_source.size();
  if (strings > kDirectStrings) return false;
  char* p = w.begin_direct(2 * kLocationFixed + kMemberFixed * 6 + strings);
  J::put_literal(p, R"("guilty_file":)");
  if (!J::put_string_or_null(p, r.guilty_file)) return false;
  J::put_literal(p, R"(,"crash_site":)");
  if (!put_location_or_null(p, r.rip)) return false;
  J::put_literal(p, R"(,"warn_site":)");
  if (!put_location_or_null(p, r.warn_site)) return false;
  J::put_literal(p, R"(,"kernel_offset":)");
  J::put_scalar(p, r.kaslr_offset);
  J::put_literal(p, R"(,"kaslr_offset":)");
  J::put_scalar(p, r.kaslr_offset);
  if (!r.kaslr_source.empty()) {
    J::put_literal(p, R"(,"kaslr_source":)");
    if (!J::put_string(p, r.kaslr_source)) return false;
    J::put_literal(p, R"(,"kaslr_agreeing_frames":)");
    J::put_scalar(p, r.kaslr_agreeing_frames);
  }
  w.end_direct(p);
  return true;
}

void write_report_sites_fields(JsonWriter& w, const Report& r) {
  w.field("guilty_file", r.guilty_file);
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
}

bool write_report_lists_direct(JsonWriter& w, const Report& r) {
  using J = JsonWriter;
  std::size_t strings = r.input.path.size();
  for (const std::string& s : r.debug_warnings) strings += s.size() + 3;
  for (const std::string& s : r.modules) strings += s.size() + 3;
  if (strings > kDirectStrings) return false;
  char* p = w.begin_direct(160 + strings);
  J::put_literal(p, R"("debug_warnings":[)");
  for (std::size_t i = 0; i < r.debug_warnings.size(); ++i) {
    if (i != 0) *p++ = ',';
    if (!J::put_string(p, r.debug_warnings[i])) return false;
  }
  J::put_literal(p, R"(],"input":{"path":)");
  if (!J::put_string(p, r.input.path)) return false;
  J::put_literal(p, R"(,"first_line":)");
  J::put_scalar(p, r.input.first_line);
  J::put_literal(p, R"(,"last_line":)");
  J::put_scalar(p, r.input.last_line);
  J::put_literal(p, R"(},"modules":[)");
  for (std::size_t i = 0; i < r.modules.size(); ++i) {
    if (i != 0) *p++ = ',';
    if (!J::put_string(p, r.modules[i])) return false;
  }
  *p++ = ']';
  w.end_direct(p);
  return true;
}

void write_report_lists_fields(JsonWriter& w, const Report& r) {
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
}

}  // namespace report_json_detail

namespace {

// The report through the direct writers (each falling back to the general calls when it
// declines) or through the general calls alone (report_json_detail::write_report_fields, for tests).
template <bool Direct>
void write_report(JsonWriter& w, const Report& r) {
  namespace d = report_json_detail;
  if (!Direct || !d::write_report_head_direct(w, r)) d::write_report_head_fields(w, r);
  w.key("guilty");
  if (r.guilty) {
    if (Direct)
      write_frame_json(w, r.frames[*r.guilty]);
    else
      d::write_frame_fields(w, r.frames[*r.guilty]);
  } else {
    w.null();
  }
  if (!Direct || !d::write_report_sites_direct(w, r)) d::write_report_sites_fields(w, r);
  if (r.rip_debug) {
    w.key("crash_site_debug");
    w.begin_object();
    write_debug_fields(w, *r.rip_debug);
    w.end_object();
  }
  if (!Direct || !d::write_report_lists_direct(w, r)) d::write_report_lists_fields(w, r);
  // "registers": the first block (the crash's), so that a name means one value;
  // "more_registers": every later block with the line it starts on.
  const auto write_registers = [&w](const RegisterSet& set) {
    w.key("registers");
    if (!Direct || !d::write_register_values_direct(w, set)) d::write_register_values_fields(w, set);
  };
  const RegisterSet none;
  write_registers(r.registers.empty() ? none : r.registers.front());
  w.key("more_registers");
  w.begin_array();
  for (std::size_t i = 1; i < r.registers.size(); ++i) {
    w.begin_object();
    w.field("line", r.registers[i].line);
    write_registers(r.registers[i]);
    w.end_object();
  }
  w.end_array();
  w.field("code", r.code_bytes);
  w.key("traces");
  w.begin_array();
  for (const Trace& t : r.traces)
    if (!Direct || !d::write_trace_direct(w, t)) d::write_trace_fields(w, t);
  w.end_array();
  w.key("sections");
  w.begin_array();
  for (const StackSection& s : r.sections)
    if (!Direct || !d::write_section_direct(w, s)) d::write_section_fields(w, s);
  w.end_array();
  w.key("frames");
  w.begin_array();
  if (Direct)
    d::write_frames_json(w, r.frames);
  else
    for (const Frame& f : r.frames) d::write_frame_fields(w, f);
  w.end_array();
  w.end_object();
}

}  // namespace

void write_report_json(JsonWriter& w, const Report& r) { write_report<true>(w, r); }

void report_json_detail::write_report_fields(JsonWriter& w, const Report& r) { write_report<false>(w, r); }

JsonDocument::JsonDocument() : w_(out_) { open(); }

JsonDocument::JsonDocument(JsonWriter::Sink sink, std::size_t block) : w_(std::move(sink), block) { open(); }

void JsonDocument::open() {
  w_.begin_object();
  w_.field("btaudit", std::string_view(kBtauditVersion));
  w_.key("reports");
  w_.begin_array();
}

void JsonDocument::add(const Report& r) { write_report_json(w_, r); }

void JsonDocument::finish() {
  w_.end_array();
  w_.end_object();
  w_.raw_text("\n");
  w_.flush();
}

std::string render_json(const std::vector<Report>& reports) {
  JsonDocument doc;
  for (const Report& r : reports) doc.add(r);
  doc.finish();
  return std::move(doc.buffer());
}

}  // namespace btaudit
