// Logs that reach btaudit through a transport that re-encodes the kernel's lines:
//   journalctl -o json / export-json: one JSON object per record, the text in "MESSAGE"
//     (a JSON string, or an array of bytes when it is not UTF-8), the source in "_TRANSPORT";
//   journalctl -o export and -o verbose (systemd's Journal Export Format, and its indented form
//     under a "Www YYYY-MM-DD HH:MM:SS.uuuuuu TZ [s=...]" head): one record a block of KEY=value
//     fields (export's binary fields as KEY, a 64-bit little-endian size, the bytes);
//   util-linux dmesg --json (sys-utils/dmesg.c, 2.38+): {"dmesg": [{"pri": 4, "time": 54.508689,
//     "caller": "T1", "msg": "..."}, ...]}, pretty-printed or not ("fac" and a named "pri" with -x);
//   /dev/kmsg (and netconsole's extended format): "6,1234,5678901,-[,caller=T1];text" records,
//     control and non-ASCII bytes escaped as "\xNN", followed by " KEY=value" dictionary lines;
//   journalctl's short forms whose time the line cleaner cannot tell from printk's own or which
//     it does not read (systemd src/shared/logs-show.c, output_short): every record is
//     "TIME HOST IDENT[PID]: message", TIME one of
//       -o short-monotonic  "[%5llu.%06llu]"                  the record's monotonic time
//       -o short-delta      "[%5llu.%06llu <%5llu.%06llu>]"   the same and the time since the last
//       -o short-full       "Www YYYY-MM-DD HH:MM:SS TZ"      wall clock (also -o with-unit)
//       -o short-unix       "%10llu.%06llu"                   wall clock, seconds since the epoch
//     (-o short, short-precise, short-iso and short-iso-precise are RFC 3164 and RFC 3339 heads,
//     which the line cleaner reads where it meets them). The kernel's records become console lines
//     (with a printk stamp of the monotonic time), the other programs' are dropped.
// Both are turned back into console lines (one record, one line) before a log is split into
// reports; anything else is read in place, unchanged and uncopied.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace btaudit {

enum class Transport { Console, JournalJson, Kmsg, JournalShort, DmesgJson, JournalFields };

// What carries `log`, judged from its first lines.
Transport detect_transport(std::string_view log);
// The same judged from `head`, the log's first whole lines (it ends at a line end), or the
// whole log when `whole`: nullopt when the lines that decide lie beyond `head`.
std::optional<Transport> detect_transport_from(std::string_view head, bool whole);

// The console lines of `log`: `log` itself for a console log, else its decoded text, held in
// `storage` (the returned view points there).
std::string_view decode_transport(std::string_view log, std::string& storage);

// netconsole's extended records may open with the kernel release ("6.1.0-57-cloud-amd64,6,1234,...",
// the target's `release` option, drivers/net/netconsole.c): the length of "release,", or 0.
std::size_t netconsole_release_length(std::string_view line);

// A /dev/kmsg record prefix ("6,1234,5678901,-;" or "4,17,99,c,caller=T12;", maybe behind a
// netconsole release): its length, or 0 when `line` does not start with one. Sets
// caller_kind/caller_id from a "caller=" field.
std::size_t kmsg_prefix_length(std::string_view line, char& caller_kind, unsigned& caller_id);

}  // namespace btaudit
