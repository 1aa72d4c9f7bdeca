#include "text/log_transport.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <vector>

#include "text/scan.h"

namespace btaudit {

namespace {

using namespace scan;

// Lines looked at to judge the transport: enough to pass a banner or a shell prompt.
constexpr int kSniffLines = 32;

std::string_view next_line(std::string_view log, std::size_t& at) {
  const std::size_t start = at;
  std::size_t end = start;
  while (end < log.size() && log[end] != '\n' && log[end] != '\r') ++end;
  at = end;
  if (at < log.size() && log[at] == '\r') ++at;
  if (at < log.size() && log[at] == '\n') ++at;
  return log.substr(start, end - start);
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

std::optional<std::uint32_t> hex4(std::string_view s) {
  if (s.size() < 4) return std::nullopt;
  std::uint32_t v = 0;
  for (char c : s.substr(0, 4)) {
    if (!is_hex(c)) return std::nullopt;
    v = v * 16 + detail::kHexValue[static_cast<unsigned char>(c)];
  }
  return v;
}

// A JSON string starting at s[0] == '"': its decoded value appended to `out` (when not null),
// `s` left after the closing quote. False on a malformed string.
bool json_string(std::string_view& s, std::string* out) {
  if (s.empty() || s[0] != '"') return false;
  std::size_t i = 1;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '"') {
      s.remove_prefix(i + 1);
      return true;
    }
    if (c != '\\') {
      if (out) out->push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= s.size()) return false;
    const char e = s[i + 1];
    i += 2;
    char plain = 0;
    switch (e) {
      case 'n': plain = '\n'; break;
      case 't': plain = '\t'; break;
      case 'r': plain = '\r'; break;
      case 'b': plain = '\b'; break;
      case 'f': plain = '\f'; break;
      case 'u': {
        auto cp = hex4(s.substr(i));
        if (!cp) return false;
        i += 4;
        if (*cp >= 0xd800 && *cp < 0xdc00 && s.substr(i, 2) == "\\u") {
          if (auto lo = hex4(s.substr(i + 2)); lo && *lo >= 0xdc00 && *lo < 0xe000) {
            cp = 0x10000 + ((*cp - 0xd800) << 10) + (*lo - 0xdc00);
            i += 6;
          }
        }
        if (out) append_utf8(*out, *cp);
        continue;
      }
      default: plain = e; break;  // '"', '\\', '/'
    }
    if (out) out->push_back(plain);
  }
  return false;
}

// Skips one JSON value (string, number, literal, array or object) at the start of `s`.
bool skip_json_value(std::string_view& s) {
  s = trim_left(s);
  if (s.empty()) return false;
  if (s[0] == '"') return json_string(s, nullptr);
  if (s[0] == '[' || s[0] == '{') {
    int depth = 0;
    while (!s.empty()) {
      if (s[0] == '"') {
        if (!json_string(s, nullptr)) return false;
        continue;
      }
      if (s[0] == '[' || s[0] == '{') ++depth;
      if (s[0] == ']' || s[0] == '}') --depth;
      s.remove_prefix(1);
      if (depth == 0) return true;
    }
    return false;
  }
  while (!s.empty() && s[0] != ',' && s[0] != '}' && s[0] != ']') s.remove_prefix(1);
  return true;
}

// "MESSAGE":[104,105]: journald's form for a message that is not valid UTF-8.
bool json_byte_array(std::string_view& s, std::string& out) {
  if (!consume(s, "[")) return false;
  for (;;) {
    s = trim_left(s);
    if (consume(s, "]")) return true;
    auto v = dec(s);
    if (!v || *v < 0 || *v > 255) return false;
    out.push_back(static_cast<char>(*v));
    s = trim_left(s);
    consume(s, ",");
  }
}

// printk's time prefix, "[%5lu.%06lu] ", of a time given as its text ("54.508689", as dmesg
// and journalctl print it): right-aligned in the bracket's twelve places.
void append_bracketed_time(std::string_view time, std::string& out) {
  out.push_back('[');
  if (time.size() < 12) out.append(12 - time.size(), ' ');
  out.append(time);
  out.append("] ");
}

// The same of a time in microseconds (the journal's _SOURCE_MONOTONIC_TIMESTAMP).
void append_printk_stamp(std::uint64_t usec, std::string& out) {
  char text[32];
  std::snprintf(text, sizeof text, "%llu.%06llu", static_cast<unsigned long long>(usec / 1000000),
                static_cast<unsigned long long>(usec % 1000000));
  append_bracketed_time(text, out);
}

// A record's message as console lines: each of its lines behind `head` (the record's time and
// caller id), as a console prints a record of several lines. A last '\n' ends the last line.
void append_record_lines(std::string_view head, std::string_view message, std::string& out) {
  for (;;) {
    const std::size_t nl = message.find('\n');
    out.append(head);
    out.append(message.substr(0, nl));
    out.push_back('\n');
    if (nl == std::string_view::npos || nl + 1 == message.size()) break;
    message.remove_prefix(nl + 1);
  }
}

// A journal JSON record's line without what -o json-seq (RFC 7464's RS before each record) and
// -o json-sse ("data: " before each, server-sent events) put around it.
std::string_view json_record_line(std::string_view line) {
  if (!line.empty() && line[0] == '\x1e') line.remove_prefix(1);
  if (line.starts_with("data: ")) line.remove_prefix(6);
  return line;
}

// One journal record: its message appended to `out` with a '\n' when it is the kernel's.
void decode_journal_record(std::string_view line, std::string& out) {
  std::string_view s = trim(line);
  if (!consume(s, "{")) {
    if (!s.empty()) {  // not a record: kept as a console line
      out.append(line);
      out.push_back('\n');
    }
    return;
  }
  std::string message;
  bool has_message = false;
  bool kernel = true;
  std::optional<std::uint64_t> monotonic;
  for (int guard = 0; guard < 4096; ++guard) {
    s = trim_left(s);
    consume(s, ",");
    s = trim_left(s);
    if (s.empty() || s[0] == '}') break;
    std::string key;
    if (!json_string(s, &key)) break;
    s = trim_left(s);
    if (!consume(s, ":")) break;
    s = trim_left(s);
    if (key == "MESSAGE") {
      if (!s.empty() && s[0] == '"') {
        has_message = json_string(s, &message);
      } else if (!s.empty() && s[0] == '[') {
        has_message = json_byte_array(s, message);
      } else {
        skip_json_value(s);
      }
      if (!has_message) break;
    } else if (key == "_SOURCE_MONOTONIC_TIMESTAMP") {
      // The kernel's own timestamp of the record (microseconds), printed as dmesg does.
      std::string usec;
      if (!json_string(s, &usec)) break;
      std::string_view u = usec;
      if (auto v = dec(u); v && *v >= 0 && u.empty()) monotonic = static_cast<std::uint64_t>(*v);
    } else if (key == "_TRANSPORT") {
      std::string transport;
      if (!json_string(s, &transport)) break;
      kernel = transport == "kernel";
    } else if (!skip_json_value(s)) {
      break;
    }
  }
  if (!has_message || !kernel) return;
  std::string stamp;
  if (monotonic) append_printk_stamp(*monotonic, stamp);
  append_record_lines(stamp, message, out);
}

// A kmsg record's text with its "\xNN" escapes undone.
void unescape_kmsg(std::string_view text, std::string& out) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() && text[i + 1] == 'x' && is_hex(text[i + 2]) && is_hex(text[i + 3])) {
      out.push_back(static_cast<char>(detail::kHexValue[static_cast<unsigned char>(text[i + 2])] * 16 +
                                      detail::kHexValue[static_cast<unsigned char>(text[i + 3])]));
      i += 3;
      continue;
    }
    out.push_back(text[i]);
  }
}

// " SUBSYSTEM=pci", " DEVICE=+pci:0000:00:01.0": a record's dictionary, not the kernel's text;
// netconsole's user data and sysdata after a record are lines of the same shape with keys of
// any case (" cpu=1", " taskname=kworker/0:1", drivers/net/netconsole.c).
bool is_kmsg_dictionary(std::string_view line) {
  if (line.size() < 3 || line[0] != ' ') return false;
  std::size_t i = 1;
  while (i < line.size() && i <= 64 && (is_ident(line[i]) || line[i] == '-')) ++i;
  return i > 1 && i < line.size() && line[i] == '=';
}

// JSON's white space (RFC 8259 section 2), line ends included: dmesg --json is pretty-printed.
std::string_view json_space(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  return s.substr(i);
}

// One record of dmesg --json at the start of `s` ('{' ... '}'): appended to `out` as console lines,
// each line of its message behind the record's "[time] " and "[caller] ". False when `s` holds
// no whole record (the array's end, or damage: what follows is not read).
bool decode_dmesg_json_record(std::string_view& s, std::string& out) {
  s = json_space(s);
  if (!consume(s, "{")) return false;
  std::string message;
  std::string caller;
  std::string_view time;
  bool has_message = false;
  for (int guard = 0; guard < 64; ++guard) {
    s = json_space(s);
    consume(s, ",");
    s = json_space(s);
    if (consume(s, "}")) break;
    std::string key;
    if (!json_string(s, &key)) return false;
    s = json_space(s);
    if (!consume(s, ":")) return false;
    s = json_space(s);
    if (key == "msg") {
      if (!json_string(s, &message)) return false;
      has_message = true;
    } else if (key == "caller") {
      if (!json_string(s, &caller)) return false;
    } else if (key == "time") {
      const std::string_view value = s;
      if (!skip_json_value(s)) return false;
      time = json_space(value.substr(0, static_cast<std::size_t>(s.data() - value.data())));
      while (!time.empty() && json_space(time.substr(time.size() - 1)).empty()) time.remove_suffix(1);
      if (time.size() > 24 || time.find_first_not_of("0123456789.") != std::string_view::npos) time = {};
    } else if (!skip_json_value(s)) {
      return false;
    }
  }
  if (!has_message) return true;
  std::string head;
  // dmesg writes printk's "%5ld.%06ld" (its "time" is the bracket's inside): printed as printk does.
  if (!time.empty()) append_bracketed_time(time, head);
  if (!caller.empty() && caller.size() <= 16) {
    head += '[';
    if (caller.size() < 6) head.append(6 - caller.size(), ' ');
    head += caller;
    head += "] ";
  }
  append_record_lines(head, message, out);
  return true;
}

// The whole of a dmesg --json document: its records as console lines, in order.
void decode_dmesg_json(std::string_view log, std::string& out) {
  std::string_view s = json_space(log);
  if (!consume(s, "{")) return;
  s = json_space(s);
  if (!json_string(s, nullptr)) return;  // "dmesg"
  s = json_space(s);
  if (!consume(s, ":")) return;
  s = json_space(s);
  if (!consume(s, "[")) return;
  for (;;) {
    s = json_space(s);
    consume(s, ",");
    if (!decode_dmesg_json_record(s, out)) return;
  }
}

// Whether the log opens as dmesg --json does: '{', then the "dmesg" key (on the same line or the next).
bool opens_dmesg_json(std::string_view head) {
  std::string_view s = json_space(head);
  if (!consume(s, "{")) return false;
  s = json_space(s);
  return s.starts_with("\"dmesg\"");
}

// journalctl -o export / -o verbose (log_transport.h): the fields of one record so far.
struct FieldRecord {
  std::string message;
  bool has_message = false;
  bool kernel = true;  // no _TRANSPORT field: taken for the kernel's, as the JSON export's
  std::optional<std::uint64_t> monotonic;

  void field(std::string_view key, std::string_view value) {
    if (key == "MESSAGE") {
      message.assign(value);
      has_message = true;
    } else if (key == "_TRANSPORT") {
      kernel = value == "kernel";
    } else if (key == "_SOURCE_MONOTONIC_TIMESTAMP") {
      if (auto v = dec(value); v && *v >= 0 && value.empty()) monotonic = static_cast<std::uint64_t>(*v);
    }
  }
  // The record as console lines (its message's lines behind printk's "[%5lu.%06lu] "), then reset.
  void flush(std::string& out) {
    if (has_message && kernel) {
      std::string stamp;
      if (monotonic) append_printk_stamp(*monotonic, stamp);
      append_record_lines(stamp, message, out);
    }
    *this = FieldRecord{};
  }
};

// A field name of the export format: upper-case letters, digits and '_' (journal-fields(7)).
bool is_field_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (const char c : s)
    if (!((c >= 'A' && c <= 'Z') || is_digit(c) || c == '_')) return false;
  return true;
}

// -o verbose's head of a record: "Wed 2025-12-03 16:38:34.508689 UTC [s=...;i=...]".
bool is_verbose_head(std::string_view line) {
  return line.size() > 30 && line[3] == ' ' && line[8] == '-' && line[11] == '-' &&
         line.find(" [s=") != std::string_view::npos;
}

void decode_journal_fields(std::string_view log, std::string& out) {
  FieldRecord record;
  std::size_t at = 0;
  while (at < log.size()) {
    const std::size_t nl = log.find('\n', at);
    const std::size_t end = nl == std::string_view::npos ? log.size() : nl;
    std::string_view line = log.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    at = end + 1;
    if (line.empty() || is_verbose_head(line)) {  // a record ends (export) or begins (verbose)
      record.flush(out);
      continue;
    }
    if (line.starts_with("    ")) line.remove_prefix(4);  // -o verbose's indentation
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos && is_field_name(line)) {
      // A binary field: its size (64-bit little-endian), its bytes, then '\n'.
      if (at + 8 > log.size()) return;
      std::uint64_t size = 0;
      for (int b = 7; b >= 0; --b) size = size << 8 | static_cast<unsigned char>(log[at + static_cast<std::size_t>(b)]);
      if (size > log.size() - at - 8) return;  // cut short: what follows is not read
      record.field(line, log.substr(at + 8, static_cast<std::size_t>(size)));
      at += 8 + static_cast<std::size_t>(size);
      if (at < log.size() && log[at] == '\n') ++at;
      continue;
    }
    if (eq != std::string_view::npos && eq > 0) record.field(line.substr(0, eq), line.substr(eq + 1));
  }
  record.flush(out);
}

// A journalctl short line's head (log_transport.h): where its message starts, the host, the
// identifier (without "[pid]") and, for the monotonic forms, the time as printed.
struct JournalHead {
  std::size_t length = 0;  // 0: not such a line
  std::string_view host;
  std::string_view ident;
  std::string_view monotonic;  // "12345.678901", or empty
};

// "%llu.%06llu" at the start of `s` (seconds, then six digits): its length, or 0.
std::size_t seconds_length(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && i < 20 && is_digit(s[i])) ++i;
  if (i == 0 || s.size() - i < 7 || s[i] != '.') return 0;
  for (std::size_t k = i + 1; k < i + 7; ++k)
    if (!is_digit(s[k])) return 0;
  return i + 7;
}

// The time of the four forms, `s` left after it and its space; false for any other line.
bool journal_time(std::string_view& s, std::string_view& monotonic) {
  if (!s.empty() && s[0] == '[') {  // short-monotonic, short-delta
    std::size_t i = 1;
    while (i < s.size() && s[i] == ' ') ++i;
    const std::size_t n = seconds_length(s.substr(i));
    if (n == 0) return false;
    monotonic = s.substr(i, n);
    i += n;
    // short-delta (systemd 252): " <%5llu.%06llu >" after the time, or as many spaces on a
    // boot's first record; a bare '>' tolerated.
    const std::size_t pad = i;
    while (i < s.size() && s[i] == ' ' && i - pad < 32) ++i;
    if (i < s.size() && s[i] == '<') {
      ++i;
      while (i < s.size() && s[i] == ' ') ++i;
      const std::size_t d = seconds_length(s.substr(i));
      if (d == 0) return false;
      i += d;
      while (i < s.size() && s[i] == ' ') ++i;
      if (s.substr(i, 1) != ">") return false;
      ++i;
    }
    if (s.substr(i, 2) != "] ") return false;
    s.remove_prefix(i + 2);
    return true;
  }
  if (s.size() > 24 && s[3] == ' ' && s[8] == '-' && s[11] == '-' && s[14] == ' ' && s[17] == ':' &&
      s[20] == ':') {  // short-full: "Mon 2024-01-01 00:00:00 UTC "
    const std::size_t zone_end = s.find(' ', 24);
    if (zone_end == std::string_view::npos || zone_end > 24 + 32) return false;
    s.remove_prefix(zone_end + 1);
    return true;
  }
  const std::size_t n = seconds_length(s);  // short-unix
  if (n < 8 || s.substr(n, 1) != " ") return false;
  s.remove_prefix(n + 1);
  return true;
}

JournalHead journal_head(std::string_view line) {
  JournalHead h;
  std::string_view s = line;
  if (!journal_time(s, h.monotonic)) return {};
  const std::size_t sp = s.find(' ');
  if (sp == 0 || sp == std::string_view::npos || sp > 255) return {};
  h.host = s.substr(0, sp);
  s.remove_prefix(sp + 1);
  const std::size_t colon = s.find(": ");
  const std::size_t end_colon = !s.empty() && s.back() == ':' && colon == std::string_view::npos ? s.size() - 1 : colon;
  if (end_colon == std::string_view::npos || end_colon == 0 || end_colon > 255) return {};
  std::string_view ident = s.substr(0, end_colon);
  if (ident.find(' ') != std::string_view::npos) return {};
  if (const std::size_t pid = ident.find('['); pid != std::string_view::npos) {
    if (ident.back() != ']' || pid == 0) return {};
    ident = ident.substr(0, pid);
  }
  h.ident = ident;
  h.length = static_cast<std::size_t>(s.data() - line.data()) + std::min(end_colon + 2, s.size());
  return h;
}

// journalctl's own notes: "-- Boot 0123abcd... --", "-- Journal begins at ... --", "-- No entries --".
bool is_journal_note(std::string_view line) { return line.starts_with("-- ") && line.ends_with(" --"); }

// Whether the sniffed lines are journalctl's: a kernel record, and at least two in three of the
// lines (its notes aside) records of that record's host. (A console's "usb 1-1: new device" reads
// as host "usb", identifier "1-1"; its lines do not share a host word, nor name the kernel as a
// program.)
bool journal_short_lines(const std::vector<std::string_view>& lines) {
  std::string_view host;
  int kernel = 0;
  for (const std::string_view line : lines) {
    const JournalHead h = journal_head(line);
    if (h.length != 0 && h.ident == "kernel") {
      if (kernel == 0) host = h.host;
      ++kernel;
    }
  }
  if (kernel == 0) return false;
  int counted = 0;
  int same_host = 0;
  for (const std::string_view line : lines) {
    if (is_journal_note(line)) continue;
    ++counted;
    const JournalHead h = journal_head(line);
    if (h.length != 0 && h.host == host) ++same_host;
  }
  return 3 * same_host >= 2 * counted;
}

void decode_journal_short_line(std::string_view line, std::string& out) {
  const JournalHead h = journal_head(line);
  if (h.length == 0) {  // a note, or a line the records do not account for: kept as it is
    out.append(line);
    out.push_back('\n');
    return;
  }
  if (h.ident != "kernel") return;  // another program's record
  if (!h.monotonic.empty()) {
    append_bracketed_time(h.monotonic, out);
  }
  out.append(line.substr(h.length));
  out.push_back('\n');
}

}  // namespace

std::size_t netconsole_release_length(std::string_view line) {
  // A release opens with a digit and holds a '.' before its ',': "6.1.0-57-cloud-amd64," (a
  // record's priority, the other thing a line may open with, is digits alone).
  if (line.empty() || !is_digit(line[0])) return 0;
  bool dot = false;
  for (std::size_t i = 0; i < line.size() && i <= 64; ++i) {
    const char c = line[i];
    if (c == ',') return dot ? i + 1 : 0;
    if (c == '.') dot = true;
    if (!is_ident(c) && c != '.' && c != '-' && c != '+' && c != '~') return 0;
  }
  return 0;
}

std::size_t kmsg_prefix_length(std::string_view line, char& caller_kind, unsigned& caller_id) {
  std::string_view s = line.substr(netconsole_release_length(line));
  for (int field = 0; field < 3; ++field) {  // priority, sequence, microseconds
    if (!dec(s)) return 0;
    if (!consume(s, ",")) return 0;
  }
  // flags ("-", "c", "+") and optional fields up to ';'
  const std::size_t semi = s.find(';');
  if (semi == std::string_view::npos || semi == 0 || semi > 48) return 0;
  const std::string_view fields = s.substr(0, semi);
  if (fields[0] != '-' && fields[0] != 'c' && fields[0] != '+') return 0;
  const std::size_t caller = fields.find("caller=");
  if (caller != std::string_view::npos && caller + 8 < fields.size()) {
    std::string_view c = fields.substr(caller + 7);
    const char kind = c[0];
    c.remove_prefix(1);
    if ((kind == 'T' || kind == 'C') && !c.empty() && is_digit(c[0])) {
      caller_kind = kind;
      caller_id = static_cast<unsigned>(dec(c).value_or(0));
    }
  }
  return static_cast<std::size_t>(s.data() - line.data()) + semi + 1;
}

std::optional<Transport> detect_transport_from(std::string_view head, bool whole) {
  if (opens_dmesg_json(head)) return Transport::DmesgJson;
  // journalctl -o export opens with the first record's cursor, -o verbose with its head.
  if (std::string_view first = json_space(head); !first.empty()) {
    first = first.substr(0, first.find('\n'));
    if (first.starts_with("__CURSOR=") || is_verbose_head(first)) return Transport::JournalFields;
  }
  std::size_t at = 0;
  int n = 0;
  std::vector<std::string_view> lines;
  while (n < kSniffLines && at < head.size()) {
    const std::string_view line = next_line(head, at);
    const std::string_view t = trim(line);
    if (t.empty()) continue;
    ++n;
    if (const std::string_view j = json_record_line(t);
        (j.starts_with("{") && j.find("\"MESSAGE\"") != std::string_view::npos) || j.starts_with("\"MESSAGE\" :") ||
        j.starts_with("\"__CURSOR\" :"))
      return Transport::JournalJson;
    char kind = 0;
    unsigned id = 0;
    if (kmsg_prefix_length(line, kind, id) != 0) return Transport::Kmsg;
    lines.push_back(line);
  }
  if (n < kSniffLines && !whole) return std::nullopt;  // the lines that would decide are further on
  if (journal_short_lines(lines)) return Transport::JournalShort;
  return Transport::Console;
}

Transport detect_transport(std::string_view log) { return *detect_transport_from(log, true); }

std::string_view decode_transport(std::string_view log, std::string& storage) {
  // Most logs are consoles: their first byte rules out both transports without a scan.
  const Transport transport = detect_transport(log);
  if (transport == Transport::Console) return log;
  storage.clear();
  storage.reserve(log.size());
  if (transport == Transport::DmesgJson) {
    decode_dmesg_json(log, storage);
    return storage;
  }
  if (transport == Transport::JournalFields) {
    decode_journal_fields(log, storage);
    return storage;
  }
  std::size_t at = 0;
  bool after_record = false;
  std::string pretty;  // a -o json-pretty record's lines, from its "{" line to its "}" line
  bool in_pretty = false;
  while (at < log.size()) {
    const std::string_view line = next_line(log, at);
    if (transport == Transport::JournalJson) {
      const std::string_view j = json_record_line(trim(line));
      if (j == "{" || in_pretty) {
        if (!in_pretty) pretty.clear();
        in_pretty = j != "}" && pretty.size() < (std::size_t{16} << 20);
        pretty.append(j);
        if (!in_pretty) decode_journal_record(pretty, storage);
        continue;
      }
      decode_journal_record(j, storage);
      continue;
    }
    if (transport == Transport::JournalShort) {
      decode_journal_short_line(line, storage);
      continue;
    }
    char kind = 0;
    unsigned id = 0;
    const std::size_t prefix = kmsg_prefix_length(line, kind, id);
    if (prefix != 0) {
      // A record of several lines ("\x0a" inside) is printed by the console with the record's
      // prefix on each line; so is it here.
      std::string text;
      unescape_kmsg(line.substr(prefix), text);
      const std::size_t release = netconsole_release_length(line);  // the console's lines have none
      std::string_view rest = text;
      for (;;) {
        const std::size_t nl = rest.find('\n');
        storage.append(line.substr(release, prefix - release));
        storage.append(rest.substr(0, nl));
        storage.push_back('\n');
        if (nl == std::string_view::npos) break;
        rest.remove_prefix(nl + 1);
        if (rest.empty()) break;
      }
      after_record = true;
      continue;
    }
    if (after_record && is_kmsg_dictionary(line)) continue;
    after_record = false;
    storage.append(line);
    storage.push_back('\n');
  }
  return storage;
}

}  // namespace btaudit
