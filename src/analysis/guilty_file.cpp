#include "analysis/guilty_file.h"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "analysis/text_find.h"
#include "text/scan.h"

namespace btaudit {

namespace {

using scan::is_digit;
using scan::is_space;  // the \s of syzkaller's guiltyLineIgnore
// The bytes of a file name in syzkaller's filenameRe: [a-zA-Z0-9_\-\./].
bool is_path_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '-' || c == '.' ||
         c == '/';
}
bool is_name_byte(char c) { return is_path_byte(c) && c != '.' && c != '/'; }

// Files no report is routed to: the sanitizers, allocators, locking, printk and other code
// every trace passes through, whose maintainers did not cause the bug. The rows of syzkaller's
// guiltyFileIgnores (pkg/report/linux.go, google/syzkaller@1e72964) as globs: matched from the
// path's first byte on, '*' any run of bytes, '?' any one byte (the regexps' unescaped '.'),
// and the path may go on past the pattern (the regexps are not anchored at the end).
constexpr std::array<std::string_view, 41> kIgnoredFiles = {
    "*.h",  // headers: the inline helper, not its caller
    "lib/",
    "virt/lib/",
    "mm/kasan/",
    "mm/kmsan/",
    "kernel/kcov?c",
    "mm/sl?b?c",
    "mm/filemap?c",
    "mm/folio-compat?c",
    "mm/truncate?c",
    "mm/memory?c",
    "mm/percpu",
    "mm/vmalloc?c",
    "mm/page_alloc?c",
    "mm/mempool?c",
    "mm/util?c",
    "kernel/rcu/",
    "arch/*/kernel/traps?c",
    "arch/*/kernel/unwind*?c",
    "arch/*/mm/fault?c",
    "arch/*/mm/physaddr?c",
    "arch/*/kernel/stacktrace?c",
    "arch/*/kernel/apic/apic?c",
    "arch/arm64/kernel/entry*?c",
    "arch/arm64/kernel/process?c",
    "kernel/locking/",
    "kernel/panic?c",
    "kernel/printk/printk*?c",
    "kernel/softirq?c",
    "kernel/kthread?c",
    "kernel/sched/*?c",
    "kernel/stacktrace?c",
    "kernel/time/timer?c",
    "kernel/workqueue?c",
    "net/core/dev?c",
    "net/core/sock?c",
    "net/core/skbuff?c",
    "fs/proc/generic?c",
    "trusty/",                 // not in the kernel tree
    "drivers/usb/core/urb?c",  // a WARNING in urb.c is nearly always the driver's bug
    "arch/*/lib/crc",          // crashes there are the caller's
};

// Glob `p` against the start of `s` (see kIgnoredFiles). Paths are short; '*' is rare.
bool glob_prefix(std::string_view p, std::string_view s) {
  std::size_t pi = 0;
  std::size_t si = 0;
  std::size_t star_p = std::string_view::npos;
  std::size_t star_s = 0;
  while (pi < p.size()) {
    if (p[pi] == '*') {
      star_p = pi++;
      star_s = si;
      continue;
    }
    if (si < s.size() && (p[pi] == '?' || p[pi] == s[si])) {
      ++pi;
      ++si;
      continue;
    }
    if (star_p == std::string_view::npos || star_s >= s.size()) return false;
    pi = star_p + 1;  // the star takes one more byte
    si = ++star_s;
  }
  return true;
}

// Lines whose file names are not where the bug is (syzkaller's guiltyLineIgnore): lockdep's
// "hardirqs last enabled at (201): f (file.c:12)", held-lock lists ("#0: ... , at: f+0x1/0x2
// file.c:3"), and s390's "Register r2 information".
bool ignored_line(std::string_view line) {
  for (const std::string_view irqs : {"hardirqs", "softirqs"}) {
    for (std::size_t at = line.find(irqs); at != std::string_view::npos; at = line.find(irqs, at + 1)) {
      std::string_view rest = line.substr(at + irqs.size());
      const auto skip_spaces = [&rest]() {
        const std::size_t n = rest.find_first_not_of(" \t");
        const bool some = n != 0;
        rest.remove_prefix(n == std::string_view::npos ? rest.size() : n);
        return some;
      };
      if (!skip_spaces() || !rest.starts_with("last")) continue;
      rest.remove_prefix(4);
      if (skip_spaces() && (rest.starts_with("enabled") || rest.starts_with("disabled"))) return true;
    }
  }
  for (std::size_t at = line.find(','); at != std::string_view::npos; at = line.find(',', at + 1)) {
    std::size_t i = at + 1;
    if (i >= line.size() || !is_space(line[i])) continue;
    while (i < line.size() && is_space(line[i])) ++i;
    if (line.substr(i).starts_with("at:") && i + 3 < line.size() && is_space(line[i + 3])) return true;
  }
  std::size_t i = 0;
  while (i < line.size() && is_space(line[i])) ++i;
  if (i < line.size() && line[i] == '#') {
    std::size_t d = i + 1;
    while (d < line.size() && is_digit(line[d])) ++d;
    if (d > i + 1 && d < line.size() && line[d] == ':') return true;
  }
  if (line.starts_with("Register r")) {
    std::size_t d = 10;
    while (d < line.size() && is_digit(line[d])) ++d;
    if (d > 10 && line.substr(d).starts_with(" information")) return true;
  }
  return false;
}

// The directory of a clean path: filepath.Dir ("." for a bare name).
std::string_view dir_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  return slash == 0 ? path.substr(0, 1) : path.substr(0, slash);
}

// syzkaller's deeperPathRe on what follows the guilty file's directory: "/sub/dir/file.c", a
// file at least one directory further down.
bool deeper_path(std::string_view suffix) {
  if (suffix.size() < 4 || suffix[0] != '/') return false;
  const std::size_t last = suffix.rfind('/');
  if (last == 0) return false;  // "/file.c": the same directory
  for (const char c : suffix.substr(1, last - 1))
    if (!is_path_byte(c)) return false;
  const std::string_view name = suffix.substr(last + 1);
  if (name.size() < 3 || name[name.size() - 2] != '.' || (name.back() != 'c' && name.back() != 'h')) return false;
  const std::string_view stem = name.substr(0, name.size() - 2);
  for (const char c : stem)
    if (!is_name_byte(c)) return false;
  return !stem.empty();
}

// guilty_file_detail::first_source_file, inlined where every line of a report is asked.
[[gnu::always_inline]] inline std::string_view source_file_in(std::string_view line) {
  // filenameRe: ([a-zA-Z0-9_\-\./]*[a-zA-Z0-9_\-]+\.(c|h)):[0-9]+. The leftmost match ends at the
  // first ".c:<digit>" / ".h:<digit>" whose name has a byte before the dot, and starts where
  // the run of path bytes before it starts (':' ends a run, so no later end can be reached).
  // Searched by its '.', rarer in report lines than ':' (register rows hold several), with memchr
  // called directly: string_view::find's bounds and position arithmetic around it cost about as
  // much as the call on the short lines of a trace, and every line of every report is asked.
  const char* const base = line.data();
  const char* const end = base + line.size();
  for (const char* p = line.size() > 1 ? static_cast<const char*>(std::memchr(base + 1, '.', line.size() - 1))
                                       : nullptr;
       p != nullptr; p = static_cast<const char*>(std::memchr(p + 1, '.', static_cast<std::size_t>(end - p - 1)))) {
    const std::size_t dot = static_cast<std::size_t>(p - base);
    const std::size_t at = dot + 2;  // the ':'
    if (at + 1 >= line.size() || line[at] != ':' || (line[dot + 1] != 'c' && line[dot + 1] != 'h') ||
        !is_digit(line[at + 1]) || !is_name_byte(line[dot - 1]))
      continue;
    std::size_t start = dot - 1;
    while (start > 0 && is_path_byte(line[start - 1])) --start;
    return line.substr(start, at - start);
  }
  return {};
}

std::optional<std::string> guilty_from(const std::vector<std::string_view>& lines, std::size_t from,
                                       std::string_view first_line_tail) {
  using namespace guilty_file_detail;
  std::string guilty;
  bool settled = false;
  std::size_t li = from;
  // The first line may start mid-line (the rcu stall's interrupt entry): its tail is read first.
  std::string_view first = li < lines.size() && !first_line_tail.empty() ? first_line_tail : std::string_view();
  for (; li < lines.size() && !settled; ++li) {
    std::string_view line = lines[li];
    if (first.data() != nullptr) {
      line = first;
      first = {};
    }
    const std::string_view file = source_file_in(line);
    if (file.empty()) continue;
    if (guilty.empty()) guilty = std::string(file);  // rather a machinery file than none at all
    if (ignored_file(file) || ignored_line(line)) continue;
    guilty = clean_path(file);
    settled = true;
  }
  if (guilty.empty()) return std::nullopt;
  if (!settled) return guilty;
  // A file deeper in the guilty file's directory, further down the trace, is more specific.
  std::string deepest(dir_of(guilty));
  for (; li < lines.size(); ++li) {
    const std::string_view line = lines[li];
    const std::string_view file = source_file_in(line);
    if (file.empty()) continue;
    // Most files of a trace lie outside the guilty file's directory: a path with no "." or
    // empty segment to clean is its own clean form, and is dropped by a prefix test.
    const bool plain = file.find("/.") == std::string_view::npos && file.find("//") == std::string_view::npos &&
                       !file.starts_with('.');
    if (plain && !file.starts_with(deepest)) continue;
    if (ignored_file(file) || ignored_line(line)) continue;
    std::string clean = clean_path(file);
    if (std::string_view(clean).starts_with(deepest) && deeper_path(std::string_view(clean).substr(deepest.size()))) {
      guilty = std::move(clean);
      deepest = std::string(dir_of(guilty));
    }
  }
  return guilty;
}

}  // namespace

namespace guilty_file_detail {

std::string_view first_source_file(std::string_view line) { return source_file_in(line); }

std::span<const std::string_view> ignored_file_rows() { return kIgnoredFiles; }

std::string clean_path(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t ups = 0;  // leading ".." a relative path cannot resolve
  const bool rooted = !path.empty() && path[0] == '/';
  for (std::size_t at = 0; at <= path.size();) {
    std::size_t slash = path.find('/', at);
    if (slash == std::string_view::npos) slash = path.size();
    const std::string_view part = path.substr(at, slash - at);
    if (part == "..") {
      if (!parts.empty())
        parts.pop_back();
      else if (!rooted)
        ++ups;
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    at = slash + 1;
  }
  std::string out = rooted ? "/" : "";
  for (std::size_t i = 0; i < ups; ++i) out += i == 0 ? ".." : "/..";
  for (const std::string_view p : parts) {
    if (!out.empty() && out.back() != '/') out += '/';
    out += p;
  }
  return out.empty() ? "." : out;
}

bool ignored_file(std::string_view path) {
  // Every row but the first opens with a literal byte: a path is tried against the rows that
  // open with its own first byte (a few, found as the bits of a word kept for each byte, not by
  // comparing every row's), and "*.h" is a search for ".h".
  static constexpr auto kRowsByFirst = [] {
    static_assert(kIgnoredFiles.size() - 1 <= 64);
    std::array<std::uint64_t, 256> rows{};
    for (std::size_t r = 1; r < kIgnoredFiles.size(); ++r)
      rows[static_cast<unsigned char>(kIgnoredFiles[r][0])] |= std::uint64_t{1} << (r - 1);
    return rows;
  }();
  if (find_text(path, ".h") != std::string_view::npos) return true;
  if (path.empty()) return false;
  for (std::uint64_t rows = kRowsByFirst[static_cast<unsigned char>(path[0])]; rows != 0; rows &= rows - 1)
    if (glob_prefix(kIgnoredFiles[1 + static_cast<std::size_t>(std::countr_zero(rows))], path)) return true;
  return false;
}

}  // namespace guilty_file_detail

std::optional<std::string> find_guilty_file(std::string_view title, const std::vector<std::string_view>& lines) {
  // An rcu stall's trace runs through the stall detector and the timer interrupt before the
  // code that looped: the search starts at the interrupt's entry when the report shows one.
  if (title.starts_with("INFO: rcu detected stall")) {
    // Each entry's first two bytes ("ap", "el", "Ex") are looked for sixteen places at a time
    // (may_hold_pair) before the entry is searched: a line without them, most lines, costs no
    // memchr call per occurrence of the entry's first byte.
    static constexpr std::array<std::array<std::array<char, 2>, 1>, 3> kHeads = {
        {{{{'a', 'p'}}}, {{{'e', 'l'}}}, {{{'E', 'x'}}}}};
    static constexpr std::array<std::string_view, 3> kEntries = {"apic_timer_interrupt+0x", "el1h_64_irq+0x",
                                                                 "Exception stack"};
    for (std::size_t e = 0; e < kEntries.size(); ++e) {
      const std::string_view entry = kEntries[e];
      for (std::size_t li = 0; li < lines.size(); ++li) {
        if (!may_hold_pair(lines[li], kHeads[e])) continue;
        const std::size_t at = find_text(lines[li], entry);
        if (at == std::string_view::npos) continue;
        if (auto file = guilty_from(lines, li, lines[li].substr(at))) return file;
        break;
      }
    }
  }
  return guilty_from(lines, 0, {});
}

}  // namespace btaudit
