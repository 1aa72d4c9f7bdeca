#include "analysis/title_engine.h"

#include <algorithm>
#include <bit>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <forward_list>
#include <span>
#include <string_view>

#include "analysis/demangle.h"
#include "analysis/frame_roles.h"
#include "analysis/line_pattern.h"
#include "analysis/text_find.h"
#include "analysis/title_rules.h"

namespace btaudit {

namespace {

using namespace title_rules;
using Lines = std::vector<std::string_view>;
using Caps = std::vector<std::string_view>;

bool contains(std::string_view s, std::string_view n) { return holds_text(s, n); }

// "Call Trace" or "Call trace", with one search.
bool has_call_trace(std::string_view s) {
  for (std::size_t at = find_text(s, "Call "); at != std::string_view::npos; at = find_text(s, "Call ", at + 1)) {
    const std::string_view rest = s.substr(at + 5);
    if (rest.starts_with("Trace") || rest.starts_with("trace")) return true;
  }
  return false;
}

// Lines that start another stack: a stack being read ends there. Runs on every line of
// every stack; the phrases are grouped by a word they share ("Allocated", "Freed",
// "acktrace"), so a line that holds none costs one search per group.
bool starts_stack(std::string_view s) {
  // Every stack start has a ':' but "Call Trace" cut short; frame lines mostly have none.
  if (s.find(':') == std::string_view::npos) return has_call_trace(s);
  // Every phrase holds one of these pairs ("Call", "Allocated", "Freed", "[Bb]acktrace",
  // "Uninit"): a line with a ':' but none of them (a frame with its source line) is told at once.
  static constexpr std::array<std::array<char, 2>, 5> kPairs = {
      {{'C', 'a'}, {'A', 'l'}, {'F', 'r'}, {'a', 'c'}, {'U', 'n'}}};
  if (!may_hold_pair(s, kPairs)) return false;
  if (has_call_trace(s)) return true;
  const bool allocated = contains(s, "Allocated");
  const bool freed = contains(s, "Freed");
  const bool acktrace = contains(s, "acktrace");
  if ((allocated && contains(s, "Allocated:")) || (freed && contains(s, "Freed:")) ||
      (acktrace && contains(s, "Backtrace:")) || contains(s, "Uninit was stored to memory at"))
    return true;
  if ((allocated && contains(s, "Allocated by task ")) || (freed && contains(s, "Freed by task ")))
    return find_pattern("{A:Allocated|Freed} by task {D}:", s, nullptr);
  if (!acktrace) return false;
  // " backtrace:" (kmemleak, maybe with a crc) but not lockdep's "stack backtrace:".
  for (std::size_t at = find_text(s, " backtrace"); at != std::string_view::npos;
       at = find_text(s, " backtrace", at + 1)) {
    if (at == 0 || s[at - 1] == 'k') continue;
    std::string_view rest = s.substr(at + 10);
    if (rest.starts_with(":") || (rest.starts_with(" (crc ") && contains(rest, "):"))) return true;
  }
  return false;
}

// The forms is_fault_injection_line accepts, read from the line's first bytes on.
[[gnu::noinline]] bool fault_injection_form(std::string_view s) {
  std::size_t i = 0;
  if (s.starts_with(" [")) {
    const std::size_t close = s.find(']');
    if (close == std::string_view::npos) return false;
    i = close + 1;
  }
  std::string_view rest = s.substr(i);
  // A console that drops the separator after its prefix also drops the frame's indentation.
  if (i == 0 && rest.starts_with("should_fail"))
    rest = s.substr(0);
  else if (rest.starts_with(" should_fail"))
    rest.remove_prefix(1);
  else
    return false;
  rest.remove_prefix(11);
  if (rest.starts_with("slab")) rest.remove_prefix(4);
  while (!rest.empty() && rest[0] == '.') {
    rest.remove_prefix(1);
    while (!rest.empty() &&
           ((rest[0] >= 'a' && rest[0] <= 'z') || (rest[0] >= '0' && rest[0] <= '9') || rest[0] == '.'))
      rest.remove_prefix(1);
  }
  return rest.starts_with("+0x");
}

// Fault injection stacks get mixed into reports; seeing one makes the pick unreliable.
// Every form starts with " [", "should_fail" or " should_fail" and holds "should_fail" and
// "+0x" after it: a line of fewer bytes, or starting otherwise (most lines), is none, which
// is told here without a call (this runs on every line a stack rule reads).
bool is_fault_injection_line(std::string_view s) {
  if (s.size() < 14 || !(s[0] == 's' || (s[0] == ' ' && (s[1] == '[' || s[1] == 's')))) return false;
  return fault_injection_form(s);
}

// find_pattern("^{F}", s, &out) as a direct scan: it is tried on every frame line.
bool leading_function(std::string_view s, Caps& out) {
  const std::size_t n = function_name_length(s);
  if (n == 0) return false;
  out.push_back(s.substr(0, n));
  return true;
}

// A frame line: optional spaces, up to two "[<pc>] ", then "func+" or "func.";
// or arm's "[<pc>] (callee) from [<pc>] (caller+0x1/0x2)", which names two.
bool frame_names(std::string_view s, Caps& out) {
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  const std::string_view rest = s.substr(i);
  if (rest.empty()) return false;
  // Every form but the bare "{F}" starts with a "[<pc>]" and "{F}" cannot start with '[':
  // the first character picks the patterns worth trying (this runs on every stack line).
  if (rest[0] != '[') return leading_function(rest, out);
  // "[foo+125/304] foo+0x7d/0x130": the frame printed by symbol in the brackets (format_table.h),
  // then as %pS; a '?' after the bracket leaves the frame out, as it does after "[<pc>]".
  // (powerpc's "[c000000049a87710] [c0000000000286fc] foo+0x4/0x8" starts with letters too.)
  const std::size_t close = rest.find(']');
  if (rest.size() > 1 && rest[1] != '<' && close != std::string_view::npos &&
      find_pattern("^[{f}+{D}/{D}]", rest, nullptr)) {
    std::string_view after = rest.substr(close + 1);
    while (!after.empty() && after[0] == ' ') after.remove_prefix(1);
    if (after.empty()) return find_pattern("^[{F}", rest, &out);
    return leading_function(after, out);
  }
  // A "[<pc>]" holds no ']' but its last: arm's form has a '(' after the first ']' and spaces,
  // the others an identifier or a '['. Only the form that can match is tried.
  if (close != std::string_view::npos) {
    std::size_t next = close + 1;
    while (next < rest.size() && rest[next] == ' ') ++next;
    if (next < rest.size() && rest[next] != '(')
      return pcs_then_function(rest, 1, &out) || pcs_then_function(rest, 2, &out);
  }
  return find_pattern("^{P} ({I}) from {P} ({F}", rest, &out) || pcs_then_function(rest, 1, &out) ||
         pcs_then_function(rest, 2, &out);
}

// The crash-site line: "RIP: 0010:foo+0x1/0x2", "IP: [<..>] foo+..", "NIP [..] foo+..",
// "pc : foo+..", "PC is at foo+..". A user-space or "(null)" site matches without naming a function.
bool rip_frame(std::string_view s, Caps& out) {
  static constexpr std::string_view kHeads[] = {"IP", "pc ", "PC is at"};
  // Rules look for the crash site on every line up to it: most lines hold no head's first two bytes.
  static constexpr std::array<std::array<char, 2>, 3> kHeadPairs = {{{'I', 'P'}, {'p', 'c'}, {'P', 'C'}}};
  if (!may_hold_pair(s, kHeadPairs)) return false;
  for (auto head : kHeads) {
    for (std::size_t at = find_text(s, head); at != std::string_view::npos; at = find_text(s, head, at + 1)) {
      std::string_view t = s.substr(at + head.size());
      if (t.starts_with(":")) t.remove_prefix(1);
      if (!t.starts_with(" ")) continue;
      t.remove_prefix(1);
      std::size_t d = 0;
      while (d < t.size() && t[d] >= '0' && t[d] <= '9') ++d;
      std::string_view u = t;
      if (d > 0 && d < t.size() && t[d] == ':') u = t.substr(d + 1);
      if (leading_function(u, out) || pcs_then_function(u, 1, &out) || pcs_then_function(u, 2, &out)) return true;
      if (u.starts_with("0x") || find_pattern("^{P} [< (null)>] (null)", u, nullptr) ||
          find_pattern("^{P} [<(null)>] (null)", u, nullptr) || (d > 0 && find_pattern("^{D}: (null)", t, nullptr)))
        return true;
    }
  }
  return false;
}

// Holds "Call Trace:", "Call trace:" or "Backtrace:". Lines have few ':' (frame lines
// mostly none): the words are looked for before each, found by memchr.
bool call_trace_line(std::string_view s) {
  // The rules look for it on every line up to it (register dumps have many ':'): a line
  // without an "e:" is told in one pass.
  static constexpr std::array<std::array<char, 2>, 1> kEnd = {{{'e', ':'}}};
  if (!may_hold_pair(s, kEnd)) return false;
  for (std::size_t at = s.find(':'); at != std::string_view::npos; at = s.find(':', at + 1)) {
    if (at == 0 || s[at - 1] != 'e') continue;  // all three words end in 'e'
    const std::string_view head = s.substr(0, at);
    if (head.ends_with("Call Trace") || head.ends_with("Call trace") || head.ends_with("Backtrace")) return true;
  }
  return false;
}

// contains(s, "interrupt:"), searched from the line's ':' (frame lines have none, others a few)
// rather than from its 'i' (every line has several): the word ends at one of them.
[[gnu::always_inline]] inline bool holds_interrupt_colon(std::string_view s) {
  constexpr std::string_view kWord = "interrupt";
  const char* const base = s.data();
  const char* const end = base + s.size();
  for (const char* p = s.empty() ? nullptr : static_cast<const char*>(std::memchr(base, ':', s.size())); p != nullptr;
       p = static_cast<const char*>(std::memchr(p + 1, ':', static_cast<std::size_t>(end - p - 1)))) {
    const auto at = static_cast<std::size_t>(p - base);
    if (at >= kWord.size() && s.substr(at - kWord.size(), kWord.size()) == kWord) return true;
  }
  return false;
}

// The first two bytes of every AnyOf alternative of the rule table (a handful, repeated to fill
// the array: a pair twice changes no answer), for may_hold_pair: the alternatives are looked
// for on every line up to the one holding them, most of the report, and their first bytes
// ('a', 'p', 'e') are in every line. Not usable when an alternative is shorter than two bytes
// or there are more distinct pairs than the array holds. Immutable after construction.
struct AnyOfHeads {
  std::array<std::array<char, 2>, 4> pairs{};
  bool usable = false;
};
const AnyOfHeads& any_of_heads() {
  static const AnyOfHeads heads = [] {
    AnyOfHeads h;
    std::size_t n = 0;
    bool fits = true;
    for (const Family& fam : families())
      for (const Format& f : fam.formats)
        for (const auto* parts : {&f.stack.parts, &f.stack.parts2})
          for (const Part& p : *parts) {
            if (p.kind != PartKind::AnyOf) continue;
            std::string_view alts = p.pattern;
            for (;;) {
              const std::size_t bar = alts.find('|');
              const std::string_view alt = alts.substr(0, bar);
              if (alt.size() < 2) {
                fits = false;
              } else {
                const std::array<char, 2> pair = {alt[0], alt[1]};
                if (std::find(h.pairs.begin(), h.pairs.begin() + static_cast<std::ptrdiff_t>(n), pair) ==
                    h.pairs.begin() + static_cast<std::ptrdiff_t>(n)) {
                  if (n == h.pairs.size())
                    fits = false;
                  else
                    h.pairs[n++] = pair;
                }
              }
              if (bar == std::string_view::npos) break;
              alts.remove_prefix(bar + 1);
            }
          }
    for (std::size_t k = n; k < h.pairs.size() && n > 0; ++k) h.pairs[k] = h.pairs[0];
    h.usable = fits && n > 0;
    return h;
  }();
  return heads;
}

[[gnu::always_inline]] inline bool may_hold_any_of(std::string_view s) {
  const AnyOfHeads& heads = any_of_heads();
  return !heads.usable || may_hold_pair(s, heads.pairs);
}

// `line`: the part's pattern as read once (title_from_rules' tables), for a Line part.
bool match_part(const Part& part, const LinePattern& line, std::string_view s, Caps& out) {
  switch (part.kind) {
    case PartKind::Rip: return rip_frame(s, out);
    // Every match holds "interrupt:" (a literal word of the pattern): most lines are told by one search.
    case PartKind::RipOrInterrupt:
      return rip_frame(s, out) || (holds_interrupt_colon(s) && find_pattern("--- interrupt: {D} at {F}", s, &out));
    case PartKind::CallTrace: return call_trace_line(s);
    case PartKind::Line: return line.find(s, &out);
    case PartKind::AnyOf: {
      // A line holding none of the alternatives' first two bytes (any_of_heads) holds none of them.
      if (!may_hold_any_of(s)) return false;
      std::string_view alts = part.pattern;
      for (int guard = 0; guard < 16; ++guard) {
        const std::size_t bar = alts.find('|');
        if (contains(s, alts.substr(0, bar))) return true;
        if (bar == std::string_view::npos) break;
        alts.remove_prefix(bar + 1);
      }
      return false;
    }
    case PartKind::Stack: return false;
  }
  return false;
}

}  // namespace

// Syscall wrappers differ by architecture and era; the shortest name wins.
std::string_view title_engine_detail::strip_syscall_prefix(std::string_view f) {
  static constexpr std::string_view kPrefixes[] = {"SYSC_",     "SyS_",      "sys_",         "__x64_",      "__ia32_",
                                                   "__arm64_",  "____sys_",  "___sys_",      "__sys_",      "__se_",
                                                   "__se_sys_", "__do_sys_", "compat_SYSC_", "compat_SyS_", "ksys_"};
  // Every prefix has four bytes or more: a name's first four are compared with each prefix's as
  // one word, and only a prefix that agrees there is compared whole (most kernel functions
  // start with "__", which half the prefixes share).
  // The words as a load of the bytes makes them (the machine's byte order).
  static constexpr auto kHeads = [] {
    std::array<std::uint32_t, std::size(kPrefixes)> word{};
    for (std::size_t k = 0; k < std::size(kPrefixes); ++k)
      for (std::size_t b = 0; b < 4; ++b) {
        const std::size_t shift = std::endian::native == std::endian::little ? 8 * b : 8 * (3 - b);
        word[k] |= std::uint32_t{static_cast<unsigned char>(kPrefixes[k][b])} << shift;
      }
    return word;
  }();
  // Most names start with a byte no prefix starts with: those are told by one bit.
  static constexpr auto kFirstBytes = [] {
    std::array<std::uint64_t, 4> bits{};
    for (const std::string_view p : kPrefixes)
      bits[static_cast<unsigned char>(p[0]) / 64] |= std::uint64_t{1} << (static_cast<unsigned char>(p[0]) % 64);
    return bits;
  }();
  if (f.size() < 4) return f;
  const auto first = static_cast<unsigned char>(f[0]);
  if (((kFirstBytes[first / 64] >> (first % 64)) & 1) == 0) return f;
  std::uint32_t head = 0;
  std::memcpy(&head, f.data(), 4);
  std::string_view best = f;
  for (std::size_t k = 0; k < std::size(kPrefixes); ++k) {
    const std::string_view p = kPrefixes[k];
    if (kHeads[k] == head && f.starts_with(p) && f.size() - p.size() < best.size()) best = f.substr(p.size());
  }
  return best;
}

namespace {

using title_engine_detail::strip_syscall_prefix;

// Frames of stalls that dispatch work: the frame above the first of them names the stall.
bool is_stall_anchor(std::string_view f) {
  static constexpr std::string_view kAnchors[] = {"process_one_work",
                                                  "do_syscall_",
                                                  "do_fast_syscall_",
                                                  "sysenter_dispatch",
                                                  "tracesys_phase2",
                                                  "el0_svc_handler",
                                                  "invoke_syscall",
                                                  "ret_fast_syscall",
                                                  "netif_receive_skb",
                                                  "do_softirq",
                                                  "call_timer_fn",
                                                  "_run_timers",
                                                  "run_timer_softirq",
                                                  "hrtimer_run",
                                                  "run_ksoftirqd",
                                                  "smpboot_thread_fn",
                                                  "^kthread$",
                                                  "start_secondary",
                                                  "cpu_startup_entry",
                                                  "ret_from_fork",
                                                  "vfs_write",
                                                  "vfs_read",
                                                  "vfs_iter_read",
                                                  "vfs_iter_write",
                                                  "do_iter_read",
                                                  "do_iter_write",
                                                  "call_read_iter",
                                                  "call_write_iter",
                                                  "new_sync_read",
                                                  "new_sync_write",
                                                  "vfs_ioctl",
                                                  "ksys_ioctl",
                                                  "compat_ioctl",
                                                  "compat_sys_ioctl",
                                                  "blkdev_driver_ioctl",
                                                  "blkdev_ioctl",
                                                  "do_iter_readv_writev",
                                                  "^call_mmap",
                                                  "mmap_region",
                                                  "do_mmap",
                                                  "do_dentry_open",
                                                  "vfs_open",
                                                  "^sock_sendmsg",
                                                  "^sock_recvmsg",
                                                  "^sock_release",
                                                  "^__sock_release",
                                                  "^setsockopt$",
                                                  "kernel_setsockopt",
                                                  "sock_common_setsockopt",
                                                  "^listen$",
                                                  "kernel_listen",
                                                  "sk_common_release",
                                                  "^sock_mmap",
                                                  "^accept$",
                                                  "kernel_accept",
                                                  "^sock_do_ioctl",
                                                  "^sock_ioctl",
                                                  "^compat_sock_ioctl",
                                                  "^nfnetlink_rcv_msg",
                                                  "^rtnetlink_rcv_msg",
                                                  "^netlink_dump",
                                                  "^socketpair",
                                                  "^connect",
                                                  "^ioctl",
                                                  "^sys_socketpair",
                                                  "^sys_connect",
                                                  "^sys_ioctl",
                                                  "__do_fault",
                                                  "do_page_fault",
                                                  "^page_fault$",
                                                  "__fput",
                                                  "task_work_run",
                                                  "exit_to_usermode",
                                                  "smp_call_function",
                                                  "tasklet_action",
                                                  "tasklet_hi_action"};
  static const FramePatternSet anchors(kAnchors);  // immutable after construction
  return anchors.matches(f);
}

// The stall extractor's pick, from what StackFrames knows: frames are added until the first
// dispatcher frame (enough_frames), so the first of them is the last frame when `anchored`,
// and there is none otherwise. The name is the frame above it, or smp_call_function.
int stall_frame(const std::vector<std::string_view>& raw, bool anchored, std::string& name) {
  if (!anchored || raw.empty()) return -1;
  const std::size_t i = raw.size() - 1;
  if (contains(strip_syscall_prefix(raw[i]), "smp_call_function")) {
    name = "smp_call_function";
    return static_cast<int>(i);
  }
  const std::size_t prev = i == 0 ? 0 : i - 1;
  name = strip_syscall_prefix(raw[prev]);
  return static_cast<int>(prev);
}

int hang_frame(const std::vector<std::string_view>& frames, std::string& name) {
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const std::string_view f = frames[i];
    if (f.find("rtnl_lock") != std::string_view::npos) {
      name = f;
      return static_cast<int>(i);
    }
    // Hangs on RCU grace periods share one root whatever the flavour.
    for (std::string_view a : {"synchronize_rcu", "synchronize_srcu", "synchronize_net", "synchronize_sched"}) {
      if (f.find(a) != std::string_view::npos) {
        name = "synchronize_rcu";
        return static_cast<int>(i);
      }
    }
  }
  static constexpr std::string_view kWaiting[] = {"sched",       "_lock",          "_slowlock",   "down",
                                                  "rwsem",       "completion",     "kthread",     "wait",
                                                  "synchronize", "context_switch", "__switch_to", "cancel_delayed_work",
                                                  "rcu_barrier"};
  for (std::size_t i = 0; i < frames.size(); ++i) {
    bool waiting = false;
    for (auto w : kWaiting) waiting = waiting || frames[i].find(w) != std::string_view::npos;
    if (!waiting) {
      name = frames[i];
      return static_cast<int>(i);
    }
  }
  return -1;
}

struct Pick {
  std::string canonical;
  std::string raw;
};

// `anchored`: StackFrames::enough() (for the stall extractor, whether a dispatcher frame was added).
Pick extract(const std::vector<std::string_view>& raw, Extractor e, bool anchored) {
  if (raw.empty()) return {};
  // The plain extractor looks at the first frame only: the others need no copy.
  if (e == Extractor::First) return {std::string(strip_syscall_prefix(raw[0])), std::string(raw[0])};
  std::string name;
  if (e == Extractor::Stall) {
    const int at = stall_frame(raw, anchored, name);
    if (at < 0) return {};
    return {name, std::string(raw[static_cast<std::size_t>(at)])};
  }
  // Views of the names, not copies: the names outlive the pick (they view the report's lines or
  // StackFrames' demangled names).
  std::vector<std::string_view> stripped;
  stripped.reserve(raw.size());
  for (auto r : raw) stripped.push_back(strip_syscall_prefix(r));
  const int at = hang_frame(stripped, name);
  if (at < 0) return {};
  return {name, std::string(raw[static_cast<std::size_t>(at)])};
}

struct StackResult {
  std::vector<Pick> picks;
  bool ok = true;
};

bool skipped(std::string_view name, const StackRecipe& r) {
  if (is_generic_title_frame(name)) return true;
  for (auto p : r.skip)
    if (matches_frame_pattern(name, p)) return true;
  return false;
}

// Frames past the point the extractor will look at need no skip check: the
// plain extractor takes the first frame, the stall one stops at the first dispatcher.
bool enough_frames(const std::vector<std::string_view>& frames, const StackRecipe& r) {
  if (frames.empty()) return false;
  if (r.extractor == Extractor::First) return true;
  return r.extractor == Extractor::Stall && is_stall_anchor(strip_syscall_prefix(frames.back()));
}

// The frames of the stack being read. Whether the extractor has what it will look at
// (enough_frames) changes only when a frame is added: it is worked out then, not on
// every line the stack loop reads.
class StackFrames {
 public:
  // Room for the frames a stall or hang pick reads (the plain pick keeps one) without regrowth.
  explicit StackFrames(const StackRecipe& r) : r_(r) { frames_.reserve(r.extractor == Extractor::First ? 1 : 16); }
  const std::vector<std::string_view>& frames() const { return frames_; }
  bool enough() const { return enough_; }
  void clear() {
    frames_.clear();
    enough_ = false;
  }
  // Mangled names (Rust, C++) are read as syzkaller's titles show them, before the skip
  // patterns (written for demangled names) see them.
  void append(const Caps& caps) {
    for (auto c : caps) {
      if (enough_) return;
      if (c.size() > 3 && c[0] == '_' && (c[1] == 'R' || c[1] == 'Z')) {
        if (auto d = demangle_symbol(c)) c = names_.emplace_front(std::move(*d));
      }
      if (skipped(c, r_)) continue;
      frames_.push_back(c);
      enough_ = enough_frames(frames_, r_);
    }
  }

 private:
  const StackRecipe& r_;
  std::vector<std::string_view> frames_;
  // The demangled names `frames_` views: list nodes never move, and an empty list
  // allocates nothing (most stacks hold no mangled name).
  std::forward_list<std::string> names_;
  bool enough_ = false;
};

// Whether reading parts[pi..] makes a pick before the end: a Stack part met once a stack has
// been read (`stacks` so far, each Stack part adding one).
bool pick_before_end(const std::vector<Part>& parts, std::size_t pi, int stacks) {
  for (; pi < parts.size(); ++pi) {
    if (parts[pi].kind != PartKind::Stack) continue;
    if (stacks > 0) return true;
    ++stacks;
  }
  return false;
}

// `patterns`: the parts' patterns as read once, parallel to `parts`.
StackResult run_parts(const Lines& lines, std::size_t from, const std::vector<Part>& parts,
                      std::span<const LinePattern> patterns, const StackRecipe& r) {
  StackResult res;
  title_engine_detail::FaultsPassed faults_passed(lines);
  StackFrames frames(r);
  Caps caps;  // one buffer for every line's captures (cleared per line), not an allocation each
  std::size_t li = from;
  int stacks = 0;
  for (std::size_t pi = 0;; ++pi) {
    if (pi == parts.size() || (parts[pi].kind == PartKind::Stack && stacks > 0)) {
      Pick p = extract(frames.frames(), r.extractor, frames.enough());
      if (p.canonical.empty()) {
        p = {"corrupted", ""};
        res.ok = false;
      }
      res.picks.push_back(std::move(p));
      frames.clear();
    }
    if (pi == parts.size()) break;
    // With the extractor satisfied and no fault injection line left, the parts still to come
    // change nothing unless one of them ends a stack (a Stack part once a stack was read):
    // frames are no longer added, res.ok stays, and only the end makes the pick. They are
    // passed over as a report without further lines would pass them.
    if (frames.enough() && faults_passed(li) && !pick_before_end(parts, pi, stacks)) li = lines.size();
    const Part& part = parts[pi];
    if (part.kind == PartKind::Stack) {
      ++stacks;
      while (li < lines.size()) {
        // The last part, its extractor satisfied, and no fault injection line left: the lines
        // still to read can change nothing (no frame is added once enough(), no part follows
        // to be looked for, and only a fault injection line would clear res.ok), and the
        // position they leave li at is read by no later part.
        if (pi + 1 == parts.size() && frames.enough() && faults_passed(li)) break;
        const std::string_view ln = lines[li++];
        if (is_fault_injection_line(ln)) {
          res.ok = false;
          break;
        }
        if (starts_stack(ln)) break;
        caps.clear();
        if (pi + 1 < parts.size() && match_part(parts[pi + 1], patterns[pi + 1], ln, caps)) {
          frames.append(caps);
          ++pi;
          break;
        }
        // Once the extractor has what it will look at, later frames change nothing: the
        // lines are still read for the part that ends the stack and for fault injection.
        if (!frames.enough() && frame_names(ln, caps)) frames.append(caps);
      }
    } else {
      while (li < lines.size()) {
        const std::string_view ln = lines[li++];
        if (is_fault_injection_line(ln)) {
          res.ok = false;
          break;
        }
        caps.clear();
        if (match_part(part, patterns[pi], ln, caps)) {
          frames.append(caps);
          break;
        }
      }
    }
  }
  return res;
}

// Matches the line patterns on successive lines from `from`; returns the first line's index.
std::optional<std::size_t> match_lines(std::span<const LinePattern> pats, const Lines& lines, std::size_t from,
                                       Caps& caps) {
  std::optional<std::size_t> first;
  std::size_t li = from;
  for (const LinePattern& p : pats) {
    bool found = false;
    for (; li < lines.size(); ++li) {
      if (p.find(lines[li], &caps)) {
        if (!first) first = li;
        ++li;
        found = true;
        break;
      }
    }
    if (!found) return std::nullopt;
  }
  return first;
}

std::string format_title(std::string_view fmt, const Caps& caps, const std::vector<Pick>& picks) {
  std::string out;
  out.reserve(fmt.size() + 64);
  // The text between references is appended as one run, not byte by byte.
  std::size_t run = 0;  // where the run of literal text not yet appended starts
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] == '$' && i + 1 < fmt.size() && fmt[i + 1] >= '1' && fmt[i + 1] <= '9') {
      out.append(fmt.substr(run, i - run));
      const std::size_t n = static_cast<std::size_t>(fmt[i + 1] - '1');
      if (n < caps.size())
        out.append(caps[n]);
      else if (n - caps.size() < picks.size())
        out.append(picks[n - caps.size()].canonical);
      ++i;
      run = i + 1;
    }
  }
  out.append(fmt.substr(run));
  return out;
}

// The literal words of a line pattern: runs of characters outside its tokens, spaces and
// '*'. Literal characters match themselves one after the other, so a line holds every
// word of a pattern it matches.
std::vector<std::string_view> literal_words(std::string_view pattern) {
  if (!pattern.empty() && pattern[0] == '^') pattern.remove_prefix(1);
  std::vector<std::string_view> words;
  for (std::size_t i = 0; i < pattern.size();) {
    const char c = pattern[i];
    if (c == '{') {
      const std::size_t close = pattern.find('}', i);
      if (close == std::string_view::npos) break;
      i = close + 1;
    } else if (c == ' ' || c == '*') {
      ++i;
    } else {
      std::size_t j = i;
      while (j < pattern.size() && pattern[j] != ' ' && pattern[j] != '*' && pattern[j] != '{') ++j;
      words.push_back(pattern.substr(i, j - i));
      i = j;
    }
  }
  return words;
}

// What a line must hold for a family's formats to be worth matching, worked out once
// from the rule table: the leading literals of the formats' first title patterns (a
// handful, shared: "BUG:", "WARNING:"), searched once per line, and each format's other
// literal words ("KASAN:", "soft", "lockup"), checked before the pattern is run.
// Words a line must hold, with their pair keys (PairSet): a line whose pairs lack a key is
// told at once that it does not hold them all.
struct Words {
  std::vector<std::string_view> text;
  std::vector<PairSet::WordKeys> keys;  // parallel to text
};
Words with_keys(std::vector<std::string_view> text) {
  Words w;
  for (const std::string_view t : text) w.keys.push_back(PairSet::word_keys(t));
  w.text = std::move(text);
  return w;
}
// A format's patterns, each read once (LinePattern) rather than on every line it is tried on.
struct FormatPatterns {
  std::vector<LinePattern> title;   // parallel to Format::title
  std::vector<LinePattern> report;  // parallel to Format::report
  std::vector<LinePattern> parts;   // parallel to Format::stack.parts (those of Line parts used)
  std::vector<LinePattern> parts2;  // parallel to Format::stack.parts2
};
std::vector<LinePattern> read_patterns(const std::vector<std::string_view>& patterns) {
  std::vector<LinePattern> read;
  read.reserve(patterns.size());
  for (const std::string_view p : patterns) read.emplace_back(p);
  return read;
}
std::vector<LinePattern> read_patterns(const std::vector<Part>& parts) {
  std::vector<LinePattern> read;
  read.reserve(parts.size());
  for (const Part& p : parts) read.emplace_back(p.pattern);
  return read;
}
struct FormatFilter {
  std::size_t literal = 0;  // index into FamilyFilter::literals
  Words others;             // the first title pattern's other literal words
  FormatPatterns patterns;
};
struct FamilyFilter {
  std::vector<std::string_view> literals;
  std::vector<FormatFilter> formats;  // parallel to Family::formats
  std::vector<Words> suppress_words;  // parallel to Family::suppress: literal_words
  std::vector<LinePattern> suppress;  // parallel to Family::suppress, read once
};

// The pairs of the line last asked about, worked out when a line is first asked: lines are
// immutable, so a line of the same bytes at the same place has the same pairs.
class LinePairs {
 public:
  const PairSet& of(std::string_view line) {
    if (line.data() != data_ || line.size() != size_ || !built_) {
      set_.assign(line);
      data_ = line.data();
      size_ = line.size();
      built_ = true;
    }
    return set_;
  }

 private:
  PairSet set_;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  bool built_ = false;
};

// `words` without those a line holding `known` (a string the line is known to hold) and the
// other words necessarily holds: a word inside `known` or inside another kept word. A line
// holds all of `words` exactly when it holds `known` and the rest (containment is transitive),
// so the checks left out were ones that could not fail.
std::vector<std::string_view> needed_words(std::vector<std::string_view> words, std::string_view known) {
  std::vector<std::string_view> kept;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string_view w = words[i];
    bool implied = contains(known, w);
    for (std::size_t j = 0; j < words.size() && !implied; ++j) {
      // A word inside a longer one, or the later of two equal ones, is left to the other.
      const std::string_view o = words[j];
      implied = j != i && contains(o, w) && (o.size() > w.size() || j < i);
    }
    if (!implied) kept.push_back(w);
  }
  return kept;
}

const FamilyFilter& family_filter(const Family& fam) {
  static const std::vector<FamilyFilter> filters = [] {  // immutable after construction
    std::vector<FamilyFilter> all;
    for (const Family& f : families()) {
      FamilyFilter ff;
      for (const Format& fmt : f.formats) {
        FormatFilter one;
        const std::string_view lit = pattern_literal(fmt.title.front());
        while (one.literal < ff.literals.size() && ff.literals[one.literal] != lit) ++one.literal;
        if (one.literal == ff.literals.size()) ff.literals.push_back(lit);
        // Tried only on a line holding `lit`.
        one.others = with_keys(needed_words(literal_words(fmt.title.front()), lit));
        one.patterns = {read_patterns(fmt.title), read_patterns(fmt.report), read_patterns(fmt.stack.parts),
                        read_patterns(fmt.stack.parts2)};
        ff.formats.push_back(std::move(one));
      }
      // Tried only on a line holding the family's header (title_from_rules).
      for (const std::string_view p : f.suppress)
        ff.suppress_words.push_back(with_keys(needed_words(literal_words(p), f.header)));
      ff.suppress = read_patterns(f.suppress);
      all.push_back(std::move(ff));
    }
    return all;
  }();
  return filters[static_cast<std::size_t>(&fam - families().data())];
}

bool holds_all(std::string_view line, const Words& words) {
  for (const std::string_view w : words.text)
    if (!contains(line, w)) return false;
  return true;
}

// holds_all, `pairs` being the line's: the words' keys are tested before any word is searched.
bool holds_all(std::string_view line, const Words& words, const PairSet& pairs) {
  for (const PairSet::WordKeys& k : words.keys)
    if (!pairs.may_hold(k)) return false;
  return holds_all(line, words);
}

// The longest text a title's task name may add to its line when it holds line breaks
// (syzkaller's {{TASK}}: `[\s\S]{0,100}?`).
constexpr std::size_t kMaxJoinedName = 100;

// Whether f's first title pattern matches lines[li] joined by '\n' with the next lines (up to
// f.spans_lines of them, adding at most kMaxJoinedName bytes): a task name holding line
// breaks ("INFO: task \xff\n\xfe:18088 blocked for more than 143 seconds."). The joined text
// is kept in `joined`, which the captures view.
bool match_joined(const Format& f, const FormatFilter& filter, const Lines& lines, std::size_t li, std::string& joined,
                  Caps& caps) {
  joined.assign(lines[li]);
  for (int k = 1; k <= f.spans_lines && li + static_cast<std::size_t>(k) < lines.size(); ++k) {
    if (joined.size() - lines[li].size() >= kMaxJoinedName) break;  // the lines joined so far are all name
    joined.push_back('\n');
    joined.append(lines[li + static_cast<std::size_t>(k)]);
    if (holds_all(joined, filter.others) && filter.patterns.title.front().find(joined, &caps)) return true;
    caps.clear();
  }
  return false;
}

// A header line is tested against every suppress pattern of its family (a dozen for
// WARNING:): the pattern runs only on a line holding all of its literal words.
bool suppressed(const Family& fam, std::string_view line, LinePairs& pairs) {
  const FamilyFilter& filter = family_filter(fam);
  for (std::size_t i = 0; i < fam.suppress.size(); ++i)
    if (holds_all(line, filter.suppress_words[i], pairs.of(line)) && filter.suppress[i].find(line, nullptr))
      return true;
  return false;
}

}  // namespace

namespace title_engine_detail {

namespace {
// A hash of four bytes into 16 bits (the bytes as one word in the machine's order, the same
// for headers and lines: one load; Fibonacci hashing).
std::size_t quad_key(const char* p) {
  std::uint32_t w = 0;
  std::memcpy(&w, p, 4);
  return (w * 0x9E3779B1u) >> 16;
}
}  // namespace

bool holds_interrupt_colon_for_test(std::string_view line) { return holds_interrupt_colon(line); }
bool may_hold_any_of_for_test(std::string_view line) { return may_hold_any_of(line); }

bool may_hold_header(std::string_view line) {
  // The first four bytes of every family's header, hashed, one bit each; all of them when a
  // header is shorter than four bytes (it would be in every line). Four bytes, not two: the
  // lines before a header (frames, driver messages) are full of two-byte starts like "in" and
  // "st", and each line let through costs a search per family. Immutable after construction.
  static const std::bitset<65536> starts = [] {
    std::bitset<65536> set;
    for (const Family& f : families()) {
      if (f.header.size() < 4) return std::bitset<65536>().set();
      set.set(quad_key(f.header.data()));
    }
    return set;
  }();
  for (std::size_t i = 0; i + 3 < line.size(); ++i)
    if (starts[quad_key(line.data() + i)]) return true;
  return false;
}

// Searched from the end down to `from` and no further: a fault injection line before the
// first position asked about cannot change the answer there or later.
std::size_t FaultsPassed::last_fault_end(const std::vector<std::string_view>& lines, std::size_t from) {
  for (std::size_t li = lines.size(); li > from; --li)
    if (is_fault_injection_line(lines[li - 1])) return li;
  return from;
}

}  // namespace title_engine_detail

std::optional<RuleTitle> title_from_rules(std::string_view text) {
  if (text.empty()) return std::nullopt;
  Lines lines;
  lines.reserve(64);
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t nl = text.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return title_from_rules(lines);
}

std::optional<RuleTitle> title_from_rules(const Lines& lines) {
  // No text at all, as the joined form has it: no line, or one empty line.
  if (lines.empty() || (lines.size() == 1 && lines[0].empty())) return std::nullopt;
  const auto& fams = families();
  // The first line any family claims starts the report.
  const Family* fam = nullptr;
  std::size_t start = 0;
  LinePairs pairs;  // of the header line, then of each line a format is tried on
  for (; start < lines.size() && !fam; ++start) {
    // A line where no header's first four bytes stand together (a "cut here" banner, the lines
    // before the header) holds no header: one pass over it, not a search per family.
    if (!title_engine_detail::may_hold_header(lines[start])) continue;
    for (const Family& f : fams) {
      if (contains(lines[start], f.header) && !suppressed(f, lines[start], pairs)) {
        fam = &f;
        break;
      }
    }
  }
  if (!fam) return std::nullopt;
  --start;

  // The format whose title matches earliest wins; on a tie, the first that yields a title.
  // Lines are walked once: the first line where some format's title matches decides.
  // A format is tried on a line only when the line holds its literal words (family_filter).
  const FamilyFilter& filter = family_filter(*fam);
  // A family's leading literals are a handful: their flags are kept in place unless there are
  // many (a vector would be allocated for every report).
  std::array<char, 16> line_has_inline{};
  std::vector<char> line_has_spill(filter.literals.size() > line_has_inline.size() ? filter.literals.size() : 0);
  char* const line_has = line_has_spill.empty() ? line_has_inline.data() : line_has_spill.data();
  std::string joined;  // a title line joined with the lines after it (match_joined); captures view it
  std::optional<RuleTitle> best;
  for (std::size_t li = start; li < lines.size() && !best; ++li) {
    bool matched_here = false;
    bool any = false;
    for (std::size_t k = 0; k < filter.literals.size(); ++k) {
      line_has[k] = contains(lines[li], filter.literals[k]);
      any = any || line_has[k];
    }
    // A line with none of the leading literals is one no format can match: a report whose
    // header line no format words is read to its end, and most lines hold no "BUG:".
    if (!any) continue;
    for (std::size_t fi = 0; fi < fam->formats.size(); ++fi) {
      const Format& f = fam->formats[fi];
      if (best) break;
      if (!line_has[filter.formats[fi].literal]) continue;
      // The first title pattern is matched here, once; the others follow on later lines.
      Caps tcaps;
      if (!holds_all(lines[li], filter.formats[fi].others, pairs.of(lines[li])) ||
          !filter.formats[fi].patterns.title.front().find(lines[li], &tcaps)) {
        tcaps.clear();
        if (f.spans_lines == 0 || !match_joined(f, filter.formats[fi], lines, li, joined, tcaps)) continue;
      }
      const FormatPatterns& patterns = filter.formats[fi].patterns;
      if (f.title.size() > 1 && !match_lines(std::span(patterns.title).subspan(1), lines, li + 1, tcaps)) continue;
      matched_here = true;
      Caps caps = std::move(tcaps);
      std::size_t stack_from = li;
      if (!f.report.empty()) {
        caps.clear();
        const auto rat = match_lines(patterns.report, lines, start, caps);
        if (!rat) continue;
        stack_from = *rat;
      }
      RuleTitle t;
      std::vector<Pick> picks;
      if (f.has_stack) {
        StackResult sr = run_parts(lines, stack_from, f.stack.parts, patterns.parts, f.stack);
        if (!sr.ok && !f.stack.parts2.empty())
          sr = run_parts(lines, stack_from, f.stack.parts2, patterns.parts2, f.stack);
        picks = std::move(sr.picks);
        t.corrupted = !sr.ok;
        if (!picks.empty()) t.frame = picks[0].raw;
      }
      t.title = format_title(f.fmt, caps, picks);
      t.corrupted = t.corrupted || f.corrupted;
      best = std::move(t);
    }
    if (matched_here) break;
  }
  if (!best) {
    // A family line that no format words: the line itself, from the family's word on.
    const std::string_view l = lines[start];
    RuleTitle t;
    t.title = std::string(l.substr(l.find(fam->header)));
    t.corrupted = true;
    best = std::move(t);
  }
  return best;
}

}  // namespace btaudit
