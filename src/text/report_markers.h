// The lines that start (and end) a kernel report, and how a start line
// relates to a report that is already open.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "model/report_kind.h"
#include "text/line_scan.h"
#include "text/scan.h"

namespace btaudit {

enum class JoinPolicy {
  Standalone,    // always starts its own report
  FollowUp,      // second line of a report that has just started ("Oops:" after "BUG: unable to handle ...")
  Consequence,   // what a report led to ("Kernel panic - not syncing: Fatal exception")
  Backtrace,     // another CPU's stack printed on behalf of an open report ("NMI backtrace for cpu 1")
  Soft,          // a banner that may precede a start line ("[ cut here ]", "=====")
  Continuation,  // a detail line of an open report of any age ("INFO: Freed in ..."); starts one only when none is open
};

struct StartMarker {
  ReportKind kind = ReportKind::Other;
  JoinPolicy join = JoinPolicy::Standalone;
  std::string_view header;  // the line from the marker on, e.g. "WARNING: CPU: 0 PID: 1 at ..."
  // Printed without printk by its nature: by another program (syzkaller's executor, a Go
  // runtime, Trusty) or by the boot decompressor, which runs before printk does. Its line has
  // none of the kernel's prefix, and is a report all the same.
  bool other_program = false;
};

// Whether a "Kernel panic - not syncing: REASON" line is the consequence of
// an earlier report (Fatal exception, panic_on_warn, hung_task, ...) rather
// than a failure of its own (sysrq, stack-protector, VFS: Unable to mount root).
bool is_consequential_panic(std::string_view header);

// Recognises a start line. `text` is a cleaned line (prefixes stripped).
std::optional<StartMarker> match_start(std::string_view text);

namespace markers_detail {
// Bit pair_index(a, b) (a << 8 | b) is set when a rule's prefix opens with the bytes a, b.
extern const std::array<std::uint64_t, 1024> kRulePairBits;
// start_words of a trimmed line that opens with 'N', 'k', 'r' or 'w': its subsystem prefixes taken.
std::string_view strip_subsystem_prefixes(std::string_view s);
// The line without indentation and subsystem prefixes ("watchdog: "), where start words stand,
// from the line without its indentation (scan::trim_left).
inline std::string_view start_words_trimmed(std::string_view s) {
  // Every prefix starts with one of these bytes; most lines start with another.
  // ('N', 'k', 'r' and 'w' are bits of one word: one test, not four.)
  constexpr std::uint64_t kFirstBytes = std::uint64_t{1} << ('N' - 0x40) | std::uint64_t{1} << ('k' - 0x40) |
                                        std::uint64_t{1} << ('r' - 0x40) | std::uint64_t{1} << ('w' - 0x40);
  if (s.empty()) return s;
  const unsigned first = static_cast<unsigned char>(s[0]) - 0x40U;  // wraps above 63 for bytes below '@'
  if (first > 63 || ((kFirstBytes >> first) & 1) == 0) return s;
  return strip_subsystem_prefixes(s);
}
// The same from the line.
inline std::string_view start_words_inline(std::string_view text) { return start_words_trimmed(scan::trim_left(text)); }
// match_start(text, found_words) for s = start_words(text), not empty.
std::optional<StartMarker> match_start_from(std::string_view text, std::string_view s, const LineScan& found_words);

// The digits that end s.substr(0, n) (at most 10 are counted), and where they start.
inline std::size_t digits_before(std::string_view s, std::size_t& n) {
  std::size_t digits = 0;
  for (; n != 0 && digits < 10 && scan::is_digit(s[n - 1]); --n) ++digits;
  return digits;
}
// Whether `s` ends with die()'s counter, "[#N]" or "[#N]:" (N of 1 to 9 digits): the header that
// mips, loongarch, riscv, csky and sparc print with no start word before the counter.
inline bool ends_with_die_counter(std::string_view s) {
  std::size_t n = s.size();
  if (n != 0 && s[n - 1] == ':') --n;
  if (n < 5 || s[n - 1] != ']') return false;
  --n;
  const std::size_t digits = digits_before(s, n);
  return digits != 0 && digits < 10 && n >= 2 && s[n - 1] == '#' && s[n - 2] == '[';
}
// Whether `s` ends with parisc's " (code N)" (arch/parisc/kernel/traps.c die_if_kernel:
// "%s (pid %d): %s (code %ld)", N of 1 to 9 digits, maybe negative).
inline bool ends_with_die_code(std::string_view s) {
  std::size_t n = s.size();
  if (n < 9 || s[n - 1] != ')') return false;
  --n;
  const std::size_t digits = digits_before(s, n);
  if (digits == 0 || digits >= 10) return false;
  if (n != 0 && s[n - 1] == '-') --n;
  return s.substr(0, n).ends_with(" (code ");
}
// Whether `s` may be a die header that no start word opens (die_header tells): a few byte compares
// from the end, asked of lines whose first byte opens no rule.
inline bool ends_like_die_header(std::string_view s) { return ends_with_die_counter(s) || ends_with_die_code(s); }
// The die header that no start word opens, from the start words on: "Oops [#1]", "Kernel BUG [#1]"
// (riscv, csky: "%s [#%d]"), "Kernel bug detected[#1]:" (mips, loongarch: "%s[#%d]:"),
// "insmod(2345): Kernel illegal instruction [#1]" (sparc32 and sparc64 die_if_kernel:
// "%s(%d): %s [#%d]", the task's comm and pid first), "modprobe (pid 1234): Kernel Fault (code 15)"
// (parisc). None when the message is no die string (one opening with a letter), or for parisc's
// without its task and pid (the form it prints for a user-space fault ends " at <address>").
std::optional<StartMarker> die_header(std::string_view s);
}  // namespace markers_detail

namespace markers_detail {
// What a line may be by its first byte after the indentation: kMayStart, a rule's or a subsystem
// prefix's first byte; kMayEnd, an end line's ('-', 'K', 'k'); kMayBootLine, one of the lines of
// a boot the parser learns from (kBootLoaderLines, "Linux version ", "Kernel Offset: "). One
// lookup for every question.
enum : std::uint8_t { kMayStart = 1, kMayEnd = 2, kMayBootLine = 4 };
extern const std::array<std::uint8_t, 256> kFirstByteRoles;
}  // namespace markers_detail

// The roles (markers_detail::kMayStart, kMayEnd) of the first byte of `trimmed` (scan::trim_left of
// a line), none for an empty one. Without kMayStart, match_start_trimmed finds nothing in a line
// whose scan found no word start and that does not end as a die header does
// (ends_like_die_header); without kMayEnd, match_end_trimmed is EndMarker::None: the parser asks
// neither then.
inline std::uint8_t first_byte_roles(std::string_view trimmed) {
  return trimmed.empty() ? 0 : markers_detail::kFirstByteRoles[static_cast<unsigned char>(trimmed[0])];
}

// The same, the word starts inside the line taken from `found_words`: a LineScanner's scan of `text`
// with embeddable_words() among its words, so that the line is not searched again. The parser asks
// this of every line, and nearly every line opens no rule (its first two bytes tell) and holds no
// word start: those are told here, in line.
// `trimmed`: scan::trim_left(text), which the parser also hands to match_end_trimmed.
inline std::optional<StartMarker> match_start_trimmed(std::string_view text, std::string_view trimmed,
                                                      const LineScan& found_words) {
  const std::string_view s = markers_detail::start_words_trimmed(trimmed);
  if (s.empty()) return std::nullopt;
  if (found_words.word_count == 0 && !found_words.more_words) {
    if (s.size() < 2) return std::nullopt;
    const std::size_t i = std::size_t{static_cast<unsigned char>(s[0])} << 8 | static_cast<unsigned char>(s[1]);
    if (((markers_detail::kRulePairBits[i / 64] >> (i % 64)) & 1) == 0)
      return markers_detail::ends_like_die_header(s) ? markers_detail::die_header(s) : std::nullopt;
  }
  return markers_detail::match_start_from(text, s, found_words);
}
inline std::optional<StartMarker> match_start(std::string_view text, const LineScan& found_words) {
  return match_start_trimmed(text, scan::trim_left(text), found_words);
}

// The start words that match_start looks for inside a line as well as at its start
// (another CPU's text may stand before them): a LineScanner's words.
std::span<const std::string_view> embeddable_words();

// The pieces of match_start, for the tests that check its shortcuts against the general path.
namespace markers_detail {
// The line without indentation and subsystem prefixes ("watchdog: "), where start words stand.
std::string_view start_words(std::string_view text);
// False when no rule's prefix starts with s's first two bytes (then match_rules(s) is empty).
bool may_open_rule(std::string_view s);
// The first rule whose prefix starts s, unless the line is benign. s is not empty.
std::optional<StartMarker> match_rules(std::string_view s);
// Whether a line that matched a rule is an informational message borrowing report words.
bool is_benign_start(std::string_view s);

// The kernel's build tools print their warnings in the kernel's words, at a line's start, into
// the build logs that CI systems keep beside the boot's console (KernelCI's kbuild logs): none
// of them opens a report. One row per form, with the code that prints it and a line it prints.
struct BuildToolForm {
  enum class Shape : std::uint8_t {
    Prefix,        // the text after "WARNING: " starts with `text`
    Holds,         // ... holds `text`
    QuotedSymbol,  // ... is "\"symbol\" [module] undefined!" (`text`: its end)
    MissingFile,   // ... is "<file> is missing." (`text`: its end; one word for the file)
  };
  Shape shape;
  std::string_view text;
  std::string_view source;
  std::string_view example;  // the whole line
};
inline constexpr BuildToolForm kBuildToolForms[] = {
    {BuildToolForm::Shape::Prefix, "unmet direct dependencies detected for ",
     "scripts/kconfig/symbol.c sym_warn_unmet_dep (4.16+)",
     "WARNING: unmet direct dependencies detected for INTEL_MEI_ME"},
    {BuildToolForm::Shape::Prefix, "modpost: ", "scripts/mod/modpost.c modpost_log (5.x+)",
     "WARNING: modpost: vmlinux: section mismatch in reference: foo+0x1c (section: .text) -> bar (section: "
     ".init.text)"},
    {BuildToolForm::Shape::Holds, "): Section mismatch in reference from the ",
     "scripts/mod/modpost.c warn() in report_sec_mismatch (2.6.25-6.3)",
     "WARNING: vmlinux.o(__ex_table+0x174c): Section mismatch in reference from the (unknown reference) (unknown) "
     "to the (unknown reference) .irqentry.text:(unknown)"},
    {BuildToolForm::Shape::QuotedSymbol, "] undefined!", "scripts/mod/modpost.c warn() in check_exports (before 5.x)",
     "WARNING: \"__x86_return_thunk\" [drivers/net/foo.ko] undefined!"},
    {BuildToolForm::Shape::Prefix, "Symbol version dump ", "scripts/Makefile.modpost (2.6-5.x)",
     "WARNING: Symbol version dump ./Module.symvers is missing; modules will have no dependencies and modversions."},
    {BuildToolForm::Shape::MissingFile, " is missing.",
     "scripts/Makefile.modpost, \"WARNING: $(missing-input) is missing.\"", "WARNING: vmlinux.o is missing."},
};

// kmod's tools print "<program>: <PRIORITY>: <message>" (kmod tools/log.c, log_printf and
// log_kmod, with program_invocation_short_name): "depmod: WARNING: ... needs unknown symbol ...".
inline constexpr std::string_view kKmodTools[] = {"depmod", "modprobe", "insmod", "rmmod", "modinfo", "lsmod", "kmod"};

// A board's serial console holds its firmware and boot loader before the kernel, and they
// print in the kernel's words ("WARNING: RO_VPD is uninitialized or empty.", coreboot;
// TF-A's "WARNING: ..."). Between a boot loader's banner and the line that hands over to the
// kernel the kernel is not running: no report there is its. One row per line, at the start of
// a line without the kernel's prefix, with the code that prints it and a line it prints.
struct BootLoaderLine {
  enum class Role : std::uint8_t {
    Banner,   // a boot loader or firmware stage starts printing
    Handoff,  // the kernel starts: the boot loader's last line, or the kernel's first
  };
  Role role;
  std::string_view prefix;
  std::string_view source;
  std::string_view example;
};
inline constexpr BootLoaderLine kBootLoaderLines[] = {
    {BootLoaderLine::Role::Banner, "U-Boot ", "U-Boot include/version.h U_BOOT_VERSION_STRING, display_banner",
     "U-Boot 2016.03-rc1-00131-g39af3d8-dirty (Feb 09 2016 - 16:39:49 +0000)"},
    {BootLoaderLine::Role::Banner, "coreboot-", "coreboot src/console/init.c console_init, each stage",
     "coreboot-v1.9308_26_0.0.22-11197-gc9b4b7136b Thu Mar 18 05:35:38 UTC 2021 ramstage starting (log level: 8)..."},
    {BootLoaderLine::Role::Banner, "Starting depthcharge on ", "depthcharge (Chrome OS) src/vboot/main.c",
     "Starting depthcharge on Helios..."},
    {BootLoaderLine::Role::Banner, "NOTICE:  BL", "TF-A bl1/bl2/bl31_main.c NOTICE(\"BLn: %s\"), common/tf_log.c",
     "NOTICE:  BL31: v2.7(debug):v2.7.0-625-g5c5ee8798"},
    {BootLoaderLine::Role::Banner, "NOTICE:  Booting Trusted Firmware", "TF-A bl1/bl1_main.c",
     "NOTICE:  Booting Trusted Firmware"},
    {BootLoaderLine::Role::Handoff, "Starting kernel ...",
     "U-Boot boot/bootm.c announce_and_cleanup (bootm_final); depthcharge prints the same words",
     "Starting kernel ..."},
    {BootLoaderLine::Role::Handoff, "Linux version ", "init/main.c linux_banner",
     "Linux version 6.1.0-18-arm64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0) #1 SMP"},
    {BootLoaderLine::Role::Handoff, "Booting Linux on physical CPU ",
     "arch/arm/kernel/setup.c, arch/arm64/kernel/setup.c smp_setup_processor_id",
     "Booting Linux on physical CPU 0x0000000000 [0x410fd034]"},
    {BootLoaderLine::Role::Handoff, "EFI stub: ", "drivers/firmware/efi/libstub efi_info()",
     "EFI stub: Booting Linux Kernel..."},
    {BootLoaderLine::Role::Handoff, "Decompressing Linux", "arch/x86/boot/compressed/misc.c",
     "Decompressing Linux... Parsing ELF... done."},
    {BootLoaderLine::Role::Handoff, "Uncompressing Linux", "arch/arm/boot/compressed/misc.c decompress_kernel",
     "Uncompressing Linux... done, booting the kernel."},
};
// The row of kBootLoaderLines that `text` (a line without the kernel's prefix) opens with, if any.
const BootLoaderLine* boot_loader_line(std::string_view text);
}  // namespace markers_detail

enum class EndMarker { None, EndTrace, KernelOffset, EndKernelPanic };

namespace markers_detail {
// match_end on the line without its indentation, which opens with '-', 'K' or 'k'.
EndMarker match_end_lines(std::string_view s);
}  // namespace markers_detail

// Every end line opens (after its indentation) with '-', 'K' or 'k': the parser asks this of
// every line of a report, and nearly all open with another byte, which is told here, in line.
// `s`: the line without its indentation (scan::trim_left).
inline EndMarker match_end_trimmed(std::string_view s) {
  if (s.empty() || (s[0] != '-' && s[0] != 'K' && s[0] != 'k')) return EndMarker::None;
  return markers_detail::match_end_lines(s);
}
inline EndMarker match_end(std::string_view text) { return match_end_trimmed(scan::trim_left(text)); }

}  // namespace btaudit
