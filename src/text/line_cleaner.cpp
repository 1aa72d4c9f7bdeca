#include "text/line_cleaner.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <span>

#include "text/byte_masks.h"
#include "text/log_transport.h"
#include "text/scan.h"

namespace btaudit {

namespace {

using namespace scan;

// "<4>", "<30>", "<4> " (pstore): the syslog priority printk adds for /dev/kmsg readers.
bool strip_level(std::string_view& s) {
  if (s.size() < 3 || s[0] != '<' || !is_digit(s[1])) return false;
  std::size_t i = 1;
  while (i < s.size() && i < 5 && is_digit(s[i])) ++i;
  if (i >= s.size() || s[i] != '>') return false;
  s.remove_prefix(i + 1);
  return true;
}

// Whether p[0..5] are six ASCII digits, in one 8-byte word: a byte b is a digit when b - '0'
// does not borrow and b + 0x46 does not carry into bit 7 ('0'..'9' and nothing else).
bool six_digits(const char* p) {
  std::uint64_t w = 0;
  std::memcpy(&w, p, 6);
  constexpr std::uint64_t kLow6 = 0x0000'ffff'ffff'ffffULL;
  constexpr std::uint64_t kHigh = 0x0000'8080'8080'8080ULL;
  const std::uint64_t below = (w | kHigh) - 0x0000'3030'3030'3030ULL;           // high bit clear: b < '0'
  const std::uint64_t above = (w & ~kHigh & kLow6) + 0x0000'4646'4646'4646ULL;  // high bit set: b > '9' (b < 0x80)
  return ((~below | above | w) & kHigh) == 0;
}

// "[  123.456789]", "[123.456789]", "[\t68764.975944]" (printk pads with spaces; some
// consoles and log shippers turn the padding into a tab). Returns false when s holds no timestamp.
// printk's own "[%5lu.%06lu]" (kernel/printk/printk.c, print_time()) while the uptime has
// five digits or fewer: ".dddddd]" at 6..13 behind "[", spaces, digits. Accepted exactly when
// strip_timestamp's loop would accept it, with the same length (14 bytes); anything else
// (wider seconds, other fractions, tabs) goes to the loop. `s` holds 14 bytes or more.
bool printk_stamp(std::string_view s) {
  if (s[0] != '[' || s[6] != '.' || s[13] != ']' || !is_digit(s[5]) || !six_digits(s.data() + 7)) return false;
  std::size_t j = 1;
  while (s[j] == ' ') ++j;  // stops at s[5] at the latest
  while (j < 5 && is_digit(s[j])) ++j;
  return j == 5;
}

bool strip_timestamp(std::string_view& s) {
  if (s.size() < 4 || s[0] != '[') return false;
  if (s.size() >= 14 && printk_stamp(s)) {
    s.remove_prefix(14);
    return true;
  }
  std::size_t i = 1;
  while (i < s.size() && s[i] == ' ') ++i;
  if (i < s.size() && s[i] == '\t') {  // rare: one compare more on the common path
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  }
  const std::size_t digits = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == digits || i >= s.size() || s[i] != '.') return false;
  ++i;
  const std::size_t frac = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == frac || i >= s.size() || s[i] != ']') return false;
  s.remove_prefix(i + 1);
  return true;
}

constexpr std::array<std::string_view, 7> kWeekdays = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};

bool is_month(std::string_view s);

// util-linux dmesg's "<%12.06f>" (sys-utils/dmesg.c, print_record: the time since the record
// before, -d/--show-delta) at the start of `t`: its length, or 0. journalctl -o short-delta's
// "<%5llu.%06llu>" (systemd src/shared/logs-show.c) has the same shape.
std::size_t delta_length(std::string_view t) {
  if (t.size() < 4 || t[0] != '<') return 0;
  std::size_t i = 1;
  while (i < t.size() && t[i] == ' ') ++i;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
  const std::size_t digits = i;
  while (i < t.size() && is_digit(t[i])) ++i;
  if (i == digits || i >= t.size() || t[i] != '.') return 0;
  const std::size_t frac = ++i;
  while (i < t.size() && is_digit(t[i])) ++i;
  if (i == frac || i >= t.size() || t[i] != '>') return 0;
  return i + 1;
}

// `dmesg -T`: "[Mon Jan  1 00:00:00 2024]" (ctime's "%a %b %e %H:%M:%S %Y"); with -d,
// "[Mon Jan  1 00:00:00 2024 <    0.000012>]" (dmesg.c's "[%s <%12.06f>] ").
[[gnu::noinline]] bool strip_human_timestamp(std::string_view& s) {
  if (s.size() < 26 || s[0] != '[' || s[4] != ' ' || s[8] != ' ') return false;
  bool day = false;
  for (auto d : kWeekdays) day = day || s.substr(1, 3) == d;
  if (!day || !is_month(s.substr(5, 3))) return false;
  std::size_t close = s.find(']');
  if (close == std::string_view::npos) return false;
  std::size_t end = close;  // of the date
  if (s[close - 1] == '>') {
    end = s.rfind(" <", close);
    if (end == std::string_view::npos || end + 1 + delta_length(s.substr(end + 1)) != close) return false;
  }
  if (end < 24 || end > 32) return false;
  std::string_view t = s.substr(9, end - 9);  // " 1 00:00:00 2024"
  t = trim_left(t);
  if (!dec(t) || !consume(t, " ") || t.size() < 13 || t[2] != ':' || t[5] != ':') return false;
  s.remove_prefix(close + 1);
  return true;
}

// The other stamps util-linux dmesg prints in brackets (sys-utils/dmesg.c, print_record), and
// journalctl's -o short-delta (logs-show.c):
//   "[%5ld.%06ld <%12.06f>] "   the time and the delta (-d), journalctl's "[%5llu.%06llu <%5llu.%06llu>]"
//   "[<%12.06f>] "              the delta alone (--time-format=delta)
//   "[  %+8.06f] ", "[ %+9.06f] "  reltime's delta since the record before (-e)
//   "[%b%e %H:%M] "             reltime's minute, when it changes (-e): "[Dec 3 16:37]", "[Dec13 09:05]"
[[gnu::noinline]] bool strip_dmesg_stamp(std::string_view& s) {
  if (s.size() < 4 || s[0] != '[') return false;
  std::size_t i = 1;
  if (s[1] == '<') {
    const std::size_t n = delta_length(s.substr(1));
    if (n == 0 || n + 1 >= s.size() || s[n + 1] != ']') return false;
    s.remove_prefix(n + 2);
    return true;
  }
  if (s.size() >= 12 && s[1] >= 'A' && s[1] <= 'Z' && is_month(s.substr(1, 3))) {
    i = 4;
    if (s[i] == ' ') ++i;
    const std::size_t day = i;
    while (i < s.size() && is_digit(s[i]) && i - day < 2) ++i;
    if (i == day || s.size() - i < 7 || s[i] != ' ' || !is_digit(s[i + 1]) || !is_digit(s[i + 2]) || s[i + 3] != ':' ||
        !is_digit(s[i + 4]) || !is_digit(s[i + 5]) || s[i + 6] != ']')
      return false;
    s.remove_prefix(i + 7);
    return true;
  }
  while (i < s.size() && s[i] == ' ') ++i;
  const bool signed_delta = i < s.size() && (s[i] == '+' || s[i] == '-');
  if (signed_delta) ++i;
  const std::size_t digits = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == digits || i >= s.size() || s[i] != '.') return false;
  const std::size_t frac = ++i;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == frac || i >= s.size()) return false;
  // "[time <delta>]"; a bare "[time]" is strip_timestamp's.
  if (!signed_delta && s[i] == ' ') i += 1 + delta_length(s.substr(i + 1));
  if (i >= s.size() || s[i] != ']' || (!signed_delta && s[i - 1] != '>')) return false;
  s.remove_prefix(i + 1);
  return true;
}

// util-linux dmesg -x's "%-6s:%-6s: " (facility and level names, sys-utils/dmesg.c facility_names
// and level_names): "kern  :warn  : ", "user  :notice: ", "daemon:info  : ".
bool strip_dmesg_decode(std::string_view& s) {
  static constexpr std::array<std::string_view, 20> kFacilities = {
      "kern",     "user", "mail",   "daemon", "auth",   "syslog", "lpr",    "news",   "uucp",   "cron",
      "authpriv", "ftp",  "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"};
  static constexpr std::array<std::string_view, 8> kLevels = {"emerg", "alert",  "crit", "err",
                                                              "warn",  "notice", "info", "debug"};
  const auto field = [&s](std::size_t at, std::span<const std::string_view> names) -> std::size_t {
    for (const std::string_view name : names) {
      if (s.substr(at, name.size()) != name) continue;
      std::size_t end = at + name.size();
      while (end < at + 6 && end < s.size() && s[end] == ' ') ++end;
      if (end < s.size() && s[end] == ':') return end + 1;
    }
    return 0;
  };
  if (s.size() < 15 || s[0] < 'a' || s[0] > 'z') return false;
  const std::size_t level = field(0, kFacilities);
  const std::size_t end = level ? field(level, kLevels) : 0;
  if (end == 0 || end >= s.size() || s[end] != ' ') return false;
  s.remove_prefix(end + 1);
  return true;
}

// util-linux dmesg --time-format=iso: "2013-06-13T22:11:00,123456+01:00 " (iso_8601_time, a comma
// before the microseconds: unlike RFC 3339 syslog and journalctl, no host or program follows).
bool strip_dmesg_iso(std::string_view& s) {
  if (s.size() < 27 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != ',')
    return false;
  std::size_t i = 20;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == 20 || i + 6 > s.size() || (s[i] != '+' && s[i] != '-')) return false;
  const std::size_t sp = s.find(' ', i);
  if (sp == std::string_view::npos || sp > i + 6) return false;
  s.remove_prefix(sp);  // the separator is the loop's, as after any time
  return true;
}

// "[ T1234]", "[T1234]", "[    C1]": CONFIG_PRINTK_CALLER.
bool strip_caller(std::string_view& s, char& kind, std::uint32_t& id) {
  if (s.size() < 4 || s[0] != '[') return false;
  std::size_t i = 1;
  while (i < s.size() && s[i] == ' ') ++i;
  if (i >= s.size() || (s[i] != 'T' && s[i] != 'C')) return false;
  const char k = s[i++];
  std::uint32_t v = 0;
  const std::size_t start = i;
  while (i < s.size() && is_digit(s[i]) && i - start < 9) v = v * 10 + std::uint32_t(s[i++] - '0');
  if (i == start || i >= s.size() || s[i] != ']') return false;
  kind = k;
  id = v;
  s.remove_prefix(i + 1);
  return true;
}

constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// The "host program[pid]: " part shared by both syslog forms. Sets foreign
// when the program is not the kernel.
bool strip_host_and_program(std::string_view& s, bool& foreign) {
  // host
  std::size_t sp = s.find(' ');
  if (sp == std::string_view::npos || sp == 0 || sp > 64) return false;
  std::string_view rest = s.substr(sp + 1);
  // program, up to ": "
  const std::size_t colon = rest.find(": ");
  const std::size_t space = rest.find(' ');
  if (colon == std::string_view::npos || colon > 64 || (space != std::string_view::npos && space < colon)) {
    // "host kernel:" at end of line (empty message)
    if (rest == "kernel:") {
      s = {};
      return true;
    }
    return false;
  }
  const std::string_view program = rest.substr(0, colon);
  foreign = !(program == "kernel" || program.starts_with("kernel[") || program == "vmunix");
  s = rest.substr(colon + 2);
  return true;
}

bool is_month(std::string_view s) {
  for (auto m : kMonths)
    if (s == m) return true;
  return false;
}

// "Mon DD HH:MM:SS host kernel: msg" (syslog RFC 3164, journalctl -k).
[[gnu::noinline]] bool strip_syslog(std::string_view& s, bool& foreign) {
  if (s.size() < 20 || s[3] != ' ') return false;
  if (!is_month(s.substr(0, 3))) return false;
  std::string_view t = s.substr(4);
  t = trim_left(t);  // day is space padded
  if (!dec(t) || !consume(t, " ")) return false;
  if (t.size() < 9 || t[2] != ':' || t[5] != ':') return false;
  t.remove_prefix(8);
  while (!t.empty() && (is_digit(t[0]) || t[0] == '.')) t.remove_prefix(1);  // fractional seconds
  if (!consume(t, " ")) return false;
  if (!strip_host_and_program(t, foreign)) return false;
  s = t;
  return true;
}

// "2024-01-01T00:00:00.123456+00:00 host kernel: msg" (RFC 3339 syslog, journalctl -o short-iso).
[[gnu::noinline]] bool strip_iso_syslog(std::string_view& s, bool& foreign) {
  if (s.size() < 20 || !is_digit(s[0]) || s[4] != '-' || s[7] != '-' || s[10] != 'T') return false;
  const std::size_t sp = s.find(' ');
  if (sp == std::string_view::npos || sp > 40) return false;
  std::string_view t = s.substr(sp + 1);
  if (!strip_host_and_program(t, foreign)) return false;
  s = t;
  return true;
}

// RFC 5424 after its "<PRI>": "1 2024-01-01T00:00:00.123456+00:00 host kernel - - - msg"
// (VERSION TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA MSG; "-" for a nil field).
[[gnu::noinline]] bool strip_rfc5424(std::string_view& s, bool& foreign) {
  if (s.size() < 16 || s[0] != '1' || s[1] != ' ') return false;
  std::string_view t = s.substr(2);
  std::string_view fields[5];  // timestamp, host, app, procid, msgid
  for (auto& f : fields) {
    const std::size_t sp = t.find(' ');
    if (sp == std::string_view::npos || sp == 0 || sp > 64) return false;
    f = t.substr(0, sp);
    t.remove_prefix(sp + 1);
  }
  if (fields[0] != "-" && (fields[0].size() < 10 || fields[0][4] != '-')) return false;
  // structured data: "-" or one or more "[id k="v" ...]" elements
  if (consume(t, "-")) {
  } else if (!t.empty() && t[0] == '[') {
    while (!t.empty() && t[0] == '[') {
      bool quoted = false;
      std::size_t i = 1;
      for (; i < t.size(); ++i) {
        if (t[i] == '\\') {
          ++i;
        } else if (t[i] == '"') {
          quoted = !quoted;
        } else if (t[i] == ']' && !quoted) {
          break;
        }
      }
      if (i >= t.size()) return false;
      t.remove_prefix(i + 1);
    }
  } else {
    return false;
  }
  consume(t, " ");
  consume(t, "\xef\xbb\xbf");  // the BOM that marks an UTF-8 MSG
  const std::string_view app = fields[2];
  foreign = !(app == "kernel" || app == "-" || app == "vmunix");
  s = t;
  return true;
}

// Line endings and LAVA's JSON residue ("}" closing each serial record).
std::string_view strip_line_end(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  if (s.size() >= 2 && s.substr(s.size() - 2) == "\"}") s.remove_suffix(2);
  return s;
}

CleanLine clean_stripped(std::string_view s, std::uint32_t number, bool separator_free);

// The commonest console line, "[  123.456789] message" or "[  123.456789][ T42] message", read
// without the general loop: the result clean_line_general gives such a line (the loop strips
// the timestamp, then the caller id, and stops at the space after them), or nullopt for any
// other shape, which the general loop then reads.
bool clean_printk_line(std::string_view s, bool separator_free, CleanLine& out) {
  if (s.size() < 16 || !line_cleaner_detail::printk_stamp16(s.data())) return false;
  std::string_view t = s.substr(14);
  if (t[0] == '[') {  // "[ts][T1]": neither strip_timestamp nor dmesg -T's form reads a caller id
    if (!line_cleaner_detail::printk_caller(t, out.caller_kind, out.caller_id) &&
        !strip_caller(t, out.caller_kind, out.caller_id))
      return false;
    if (t.empty()) return false;
  } else if (t[1] == '[') {  // "[ts] [T1]", "[ts] [drm]": the loop looks behind the space
    return false;
  }
  // A bare prefix or another prefix (crash's "[ts] <4>" level among them): the loop decides.
  if (t[0] != ' ' || (t.size() > 1 && t[1] == '<')) return false;
  if (!separator_free) t.remove_prefix(1);
  out.had_timestamp = true;
  out.text = std::string_view(t.data(), t.size());
  return true;
}

// A line with no prefix at all, the other common shape ("PCI: ...", a serial console's user-space
// text, a frame's " f+0x1/0x2 lib/x.c:16 [inline]", an ARM frame's "[<80de0078>] (f) from ...", a
// hex dump's "1a80: 00000000 ..."): the general loop strips nothing from its start, and its search
// for a kernel record behind user-space text (a timestamp after a later '[') finds none. That
// search, as the loop makes it, is has_stamp_behind; true when the general loop would leave the
// line whole.
bool plain_line(std::string_view s) { return line_cleaner_detail::plain_head(s) && !has_stamp_behind(s); }

}  // namespace

bool has_stamp_behind(std::string_view s) {
  // A line that gets here holds such a '[' (its scan saw one) and often more '[' before it ("PCI:
  // [0x1000-0x1fff]", "rx[0][1]"): the '[' of sixteen bytes at a time as one mask, not a memchr
  // call for each. Of the first eight '[' from position 1 on, as the general loop tries them.
#if defined(__SSE2__)
  int tries = 0;
  for (std::size_t at = 1; at < s.size() && tries < 8;) {
    const byte_masks::Block b = byte_masks::load(s, at);
    unsigned opens = byte_masks::bits(_mm_cmpeq_epi8(b.v, _mm_set1_epi8('['))) >> b.shift;
    for (; opens != 0 && tries < 8; opens &= opens - 1, ++tries) {
      std::string_view t = s.substr(at + static_cast<unsigned>(__builtin_ctz(opens)));
      if (t.size() > 1 && (t[1] == ' ' || t[1] == '\t' || is_digit(t[1])) && strip_timestamp(t)) return true;
    }
    at += b.count;
  }
#else
  std::size_t from = 1;
  for (int tries = 0; tries < 8 && from < s.size(); ++tries) {
    const void* open = std::memchr(s.data() + from, '[', s.size() - from);
    if (open == nullptr) return false;
    const auto at = static_cast<std::size_t>(static_cast<const char*>(open) - s.data());
    std::string_view t = s.substr(at);
    if (t.size() > 1 && (t[1] == ' ' || t[1] == '\t' || is_digit(t[1])) && strip_timestamp(t)) return true;
    from = at + 1;
  }
#endif
  return false;
}

void line_cleaner_detail::clean_line_slow(std::string_view raw, bool separator_free, CleanLine& out) {
  const std::uint32_t number = out.number;
  std::string_view s = raw;
  if (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == '}')) s = strip_line_end(s);
  out = CleanLine{};
  out.number = number;
  if (clean_printk_line(s, separator_free, out)) return;
  if (plain_line(s)) {
    out = CleanLine{};
    out.number = number;
    out.text = s;
    return;
  }
  out = clean_stripped(s, number, separator_free);
}

void line_cleaner_detail::clean_unstamped(std::string_view s, bool separator_free, CleanLine& out) {
  // clean_line_slow's clean_printk_line gives up on such a line at its first test.
  if (plain_line(s)) {
    out.text = s;  // `out` is still as clean_line made it: empty but for its number
    return;
  }
  out = clean_stripped(s, out.number, separator_free);
}

CleanLine clean_line_general(std::string_view raw, std::uint32_t number, bool separator_free) {
  return clean_stripped(strip_line_end(raw), number, separator_free);
}

namespace {

// The general loop, on a line whose end strip_line_end has taken (it is not idempotent:
// "x\n\"}" loses its "\"}" and keeps its '\n').
CleanLine clean_stripped(std::string_view s, std::uint32_t number, bool separator_free) {
  CleanLine out;
  out.number = number;

  // Prefixes come in a few fixed orders; each pass strips at most one, and
  // the loop is capped so a hostile line cannot make it spin. A syslog header
  // (RFC 3164, RFC 5424, RFC 3339) opens a line or follows its "<PRI>".
  bool header_allowed = true;
  bool exact = false;        // the message starts right after the prefix, with no separator
  bool space_eaten = false;  // the separator before a "[T1]" caller id was taken with the timestamp
  for (int pass = 0; pass < 6 && !s.empty(); ++pass) {
    const char c = s[0];
    const bool syslog_here = header_allowed;
    header_allowed = false;
    // A report quoted in a mail reply (RFC 3676 section 4.5: "> " per level, some clients write
    // ">>"): the quoted line is the kernel's text. Only at the line's start.
    if (c == '>' && pass == 0) {
      for (int level = 0; level < 16 && !s.empty() && s[0] == '>'; ++level) {
        s.remove_prefix(1);
        if (!s.empty() && s[0] == ' ') s.remove_prefix(1);
      }
      header_allowed = true;
      continue;
    }
    if (c == '<') {
      if (strip_level(s)) {
        header_allowed = pass == 0;
        if (!s.empty() && s[0] == ' ' && s.size() > 1 && s[1] == '[') s.remove_prefix(1);
        continue;
      }
      break;
    }
    if (c == '[') {
      // (dmesg -T's "[Mon Jan  1 ...]" is tried only behind an upper-case letter: caller ids
      // "[ T12]" and frames "[<ffff...>]" reach this line far more often.)
      if (strip_timestamp(s) || (s.size() >= 26 && s[1] >= 'A' && s[1] <= 'Z' && strip_human_timestamp(s)) ||
          strip_dmesg_stamp(s)) {
        out.had_timestamp = true;
        if (s.size() > 1 && (s[0] == ' ' || s[0] == '\t') && s[1] == '[') {  // "[ts] [T1]"
          s.remove_prefix(1);
          space_eaten = true;
        }
        continue;
      }
      char kind = 0;
      std::uint32_t id = 0;
      if (strip_caller(s, kind, id)) {
        out.caller_kind = kind;
        out.caller_id = id;
        continue;
      }
      // systemd's status lines on a shared serial console: "[\x1b[0;32m  OK  \x1b[0m] Started ...".
      if (s.size() > 1 && s[1] == '\x1b') out.foreign = true;
      break;
    }
    if (c == '\x1b') {  // a terminal escape sequence: user space drawing on the console
      out.foreign = true;
      break;
    }
    if (c >= 'A' && c <= 'S' && syslog_here && s.size() >= 20 && s[3] == ' ') {
      bool foreign = false;
      if (strip_syslog(s, foreign)) {
        out.foreign = foreign;
        continue;
      }
      break;
    }
    if (is_digit(c) && syslog_here) {
      bool foreign = false;
      char kind = 0;
      unsigned id = 0;
      // A record's priority has one to three digits before its ','; hex dumps and the like do not.
      // (Or a netconsole release before it: "6.1.0-57-cloud-amd64,6,...".)
      const bool kmsg_shaped =
          s.size() > 4 && (s[1] == ',' || s[2] == ',' || s[3] == ',' || netconsole_release_length(s) != 0);
      if (const std::size_t n = kmsg_shaped ? kmsg_prefix_length(s, kind, id) : 0) {
        // /dev/kmsg and netconsole's extended records carry the time the console prints.
        s.remove_prefix(n);
        out.had_timestamp = true;
        exact = true;
        if (kind) {
          out.caller_kind = kind;
          out.caller_id = id;
        }
        break;  // the message follows, as the kernel wrote it
      }
      // dmesg's ISO time (a ',' before its microseconds) before RFC 3339's: no host follows it, and
      // "WARNING: CPU: 0 ..." is not host "WARNING:" and program "CPU".
      if (s.size() > 10 && s[4] == '-' && strip_dmesg_iso(s)) {
        out.had_timestamp = true;
        if (s.size() > 1 && s[0] == ' ' && s[1] == '[') {  // "time [T1]", as after a bracketed time
          s.remove_prefix(1);
          space_eaten = true;
        }
        continue;
      }
      if ((s[0] == '1' && s.size() > 1 && s[1] == ' ' && strip_rfc5424(s, foreign)) ||
          (s.size() > 10 && s[4] == '-' && strip_iso_syslog(s, foreign))) {
        out.foreign = foreign;
        continue;
      }
    }
    // dmesg -x opens the line, before the time.
    if (c >= 'a' && c <= 'z' && pass == 0 && strip_dmesg_decode(s)) {
      header_allowed = true;
      continue;
    }
    break;
  }
  if (!out.had_timestamp && !out.caller_kind) {
    // A serial console shares the line with user space: "/init: 384: .: [  271.40] Kernel panic - ...".
    // The kernel's record starts at its timestamp, wherever that is on the line.
    std::size_t from = 1;
    for (int tries = 0; tries < 8 && from < s.size(); ++tries) {
      const std::size_t open = s.find('[', from);
      if (open == std::string_view::npos) break;
      std::string_view t = s.substr(open);
      // A timestamp's '[' is followed by a space or a digit; most brackets on such lines
      // ("[<ffffffff81234567>]", "[mod]") are not, and need no closer look.
      if (t.size() > 1 && (t[1] == ' ' || t[1] == '\t' || is_digit(t[1])) && strip_timestamp(t)) {
        out.had_timestamp = true;
        if (t.size() > 1 && t[0] == ' ' && t[1] == '[') t.remove_prefix(1);
        char kind = 0;
        std::uint32_t id = 0;
        if (strip_caller(t, kind, id)) {
          out.caller_kind = kind;
          out.caller_id = id;
        }
        s = t;
        break;
      }
      from = open + 1;
    }
  }
  // crash's `log -m` puts the record's level, "<%x>", between the time (and caller id) and the
  // message, after their space (crash printk.c, dump_record: level >> 5 of printk_info).
  if ((out.had_timestamp || out.caller_kind) && !exact && s.size() >= 4 && s[0] == ' ' && s[1] == '<' && s[2] >= '0' &&
      s[2] <= '7' && s[3] == '>') {
    s.remove_prefix(4);
    exact = true;
  }
  // printk puts one space between the prefix and the message; a shipper may put a tab or none.
  if ((out.had_timestamp || out.caller_kind) && !exact && !separator_free) {
    if (!s.empty() && (s[0] == ' ' || s[0] == '\t'))
      s.remove_prefix(1);
    else if (!s.empty() && !space_eaten)
      out.bare_prefix = true;
  }
  // Pointer and length read one by one: `s` was written that way by the strippers, and a
  // 16-byte load of it could not be forwarded from those stores (a stall on every line).
  out.text = std::string_view(s.data(), s.size());
  return out;
}

}  // namespace

}  // namespace btaudit
