#include <boost/test/unit_test.hpp>
#include <random>
#include <string>

#include "analysis/analyze_report.h"
#include "analysis/frame_roles.h"
#include "analysis/guilty.h"
#include "analysis/line_pattern.h"
#include "analysis/title_engine.h"
#include "analysis/title_normalize.h"
#include "analysis/title_rules.h"
#include "text/log_parser.h"

using namespace btaudit;

namespace {

// The title of the first report of a console log, as `btaudit analyze` prints it.
std::string first_title(const std::string& log) {
  auto reports = parse_log(log, "t");
  if (reports.empty()) return "<no report>";
  analyze_report(reports[0]);
  return reports[0].title;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(title)

BOOST_AUTO_TEST_CASE(warning_is_named_by_the_first_frame_from_rip) {
  BOOST_TEST(first_title("[  1.0] WARNING: CPU: 0 PID: 1 at net/core/dev.c:12 dev_watchdog+0x1/0x2\n"
                         "[  1.1] Modules linked in:\n"
                         "[  1.2] RIP: 0010:dev_watchdog+0x1/0x2\n"
                         "[  1.3] Call Trace:\n"
                         "[  1.4]  call_timer_fn+0x1/0x2\n") == "WARNING in dev_watchdog");
}

BOOST_AUTO_TEST_CASE(old_warning_without_rip_falls_back_to_the_call_trace) {
  BOOST_TEST(first_title("[  1.0] WARNING: CPU: 0 PID: 1 at drivers/usb/core/urb.c:1 foo_probe+0x1/0x2\n"
                         "[  1.1] Call Trace:\n"
                         "[  1.2]  [<ffffffff81234567>] dump_stack+0x1/0x2\n"
                         "[  1.3]  [<ffffffff81234567>] warn_slowpath_null+0x1/0x2\n"
                         "[  1.4]  [<ffffffff81234567>] ion_ioctl+0x1/0x2\n") == "WARNING in ion_ioctl");
}

BOOST_AUTO_TEST_CASE(pre_3_12_warning_is_worded_like_later_ones) {
  BOOST_TEST(first_title("WARNING: at net/sched/sch_generic.c:255 dev_watchdog+0x238/0x250()\n"
                         "Call Trace:\n"
                         " [<ffffffff8106933f>] warn_slowpath_common+0x7f/0xc0\n"
                         " [<ffffffff81069436>] warn_slowpath_fmt+0x46/0x50\n"
                         " [<ffffffff814a5e78>] dev_watchdog+0x238/0x250\n") == "WARNING in dev_watchdog");
}

BOOST_AUTO_TEST_CASE(generic_frames_are_skipped) {
  // mutex_lock and memcpy never name a bug.
  BOOST_TEST(first_title("[  1.0] general protection fault: 0000 [#1] SMP KASAN\n"
                         "[  1.1] RIP: 0010:memcpy+0x1/0x2\n"
                         "[  1.2] Call Trace:\n"
                         "[  1.3]  mutex_lock_nested+0x1/0x2\n"
                         "[  1.4]  tipc_subscrb_subscrp_delete+0x1/0x2\n") ==
             "general protection fault in tipc_subscrb_subscrp_delete");
}

BOOST_AUTO_TEST_CASE(kasan_title_has_access_kind_and_function) {
  BOOST_TEST(first_title("[  1.0] BUG: KASAN: use-after-free in consume_skb+0x3b/0x2f0\n"
                         "[  1.1] Read of size 4 at addr ffff8801c8b2f9c4 by task syz/123\n"
                         "[  1.2] Call Trace:\n"
                         "[  1.3]  dump_stack+0x1/0x2\n") == "KASAN: use-after-free Read in consume_skb");
}

BOOST_AUTO_TEST_CASE(kasan_without_access_line_is_the_corrupted_form) {
  BOOST_TEST(first_title("[  1.0] BUG: KASAN: slab-out-of-bounds in ip6_fragment at addr ffff8801c8b2f9c4\n") ==
             "KASAN: slab-out-of-bounds in ip6_fragment at addr ADDR");
}

BOOST_AUTO_TEST_CASE(hung_task_on_an_rcu_grace_period_is_one_bucket) {
  BOOST_TEST(first_title("[  1.0] INFO: task syz:123 blocked for more than 143 seconds.\n"
                         "[  1.1] Call Trace:\n"
                         "[  1.2]  __schedule+0x1/0x2\n"
                         "[  1.3]  schedule+0x1/0x2\n"
                         "[  1.4]  synchronize_rcu_expedited+0x1/0x2\n"
                         "[  1.5]  fib6_net_exit+0x1/0x2\n") == "INFO: task hung in synchronize_rcu");
}

BOOST_AUTO_TEST_CASE(stall_is_named_above_the_syscall_dispatcher) {
  // The loop's top frame is random; the frame just above vfs_write names the stall.
  BOOST_TEST(first_title("[  1.0] INFO: rcu_sched self-detected stall on CPU\n"
                         "[  1.1]  <IRQ>\n"
                         "[  1.2]  apic_timer_interrupt+0x1/0x2\n"
                         "[  1.3]  </IRQ>\n"
                         "[  1.4] RIP: 0010:seq_poll_loop+0x1/0x2\n"
                         "[  1.5]  seq_poll_loop+0x1/0x2\n"
                         "[  1.6]  snd_seq_oss_write+0x1/0x2\n"
                         "[  1.7]  vfs_write+0x1/0x2\n"
                         "[  1.8]  ksys_write+0x1/0x2\n") == "INFO: rcu detected stall in snd_seq_oss_write");
}

BOOST_AUTO_TEST_CASE(syscall_wrappers_lose_their_prefix) {
  BOOST_TEST(first_title("[  1.0] BUG: soft lockup - CPU#0 stuck for 22s! [syz:1]\n"
                         "[  1.1] RIP: 0010:_raw_spin_unlock_irqrestore+0x1/0x2\n"
                         "[  1.2] Call Trace:\n"
                         "[  1.3]  __x64_sys_rmdir+0x1/0x2\n"
                         "[  1.4]  do_syscall_64+0x1/0x2\n") == "BUG: soft lockup in sys_rmdir");
}

BOOST_AUTO_TEST_CASE(lockdep_deadlock_is_named_by_the_lock_being_taken) {
  BOOST_TEST(first_title("[  1.0] WARNING: possible circular locking dependency detected\n"
                         "[  1.1] syz/123 is trying to acquire lock:\n"
                         "[  1.2]  (&tty->termios_rwsem){++++}, at: [<ffffffff81234567>] tty_buffer_flush+0x1/0x2\n"
                         "[  1.3] but task is already holding lock:\n") == "possible deadlock in tty_buffer_flush");
}

BOOST_AUTO_TEST_CASE(no_frame_gives_a_corrupted_title) {
  BOOST_TEST(first_title("[  1.0] WARNING: CPU: 0 PID: 1 at kernel/foo.c:12 foo+0x1/0x2\n") == "WARNING in corrupted");
}

BOOST_AUTO_TEST_CASE(panic_reason_is_the_title) {
  BOOST_TEST(first_title("[  1.0] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000009\n") ==
             "kernel panic: Attempted to kill init!");
}

BOOST_AUTO_TEST_CASE(lines_no_rule_claims_get_no_rule_title) {
  BOOST_TEST(!title_from_rules("Oops: 0000 [#1] SMP\nCall Trace:\n foo+0x1/0x2"));
  BOOST_TEST(!title_from_rules(""));
}

BOOST_AUTO_TEST_CASE(normalization_replaces_numbers_addresses_and_ids) {
  BOOST_TEST(normalize_title("INFO: Freed in fasync_free_rcu age=624 cpu=0 pid=3") ==
             "INFO: Freed in fasync_free_rcu age=NUM cpu=NUM pid=NUM");
  BOOST_TEST(normalize_title("KASAN: slab-out-of-bounds in ip6_fragment at addr ffff8801c8b2f9c4") ==
             "KASAN: slab-out-of-bounds in ip6_fragment at addr ADDR");
  BOOST_TEST(normalize_title("WARNING: at kernel/watchdog.c:245 watchdog_overflow_callback+0x9c/0xd0()") ==
             "WARNING: at kernel/watchdog.c:LINE watchdog_overflow_callback()");
  BOOST_TEST(normalize_title("task syz-executor.3/1234 in nl802154_add_llsec_key") ==
             "task syz-executor in nl802154_add_llsec_key");
}

// normalize_title returns a title no pass would change as it is: generated titles, most of
// them with no trigger at all, against every pass run in turn.
BOOST_AUTO_TEST_CASE(normalization_fast_path_matches_every_pass) {
  std::mt19937 rng(1457);
  const std::vector<std::string> pieces = {"KASAN: ",
                                           "use-after-free ",
                                           "Read in ",
                                           "foo_bar",
                                           "deadbe",
                                           "cafe",
                                           "abcdef",
                                           "face",
                                           " ",
                                           " ",
                                           "  ",
                                           "\t",
                                           "\x7f",
                                           "\xc3\xa9",
                                           "\x01",
                                           ".",
                                           "+",
                                           "#",
                                           "7",
                                           "syz",
                                           "syz-executor",
                                           "syzkaller",
                                           "CPU#",
                                           "0x",
                                           "in ",
                                           "x",
                                           "_",
                                           "/",
                                           ":",
                                           "a",
                                           "f",
                                           "g"};
  for (int i = 0; i < 200000; ++i) {
    std::string t;
    const std::size_t n = rng() % 14;
    for (std::size_t k = 0; k < n; ++k) t += pieces[rng() % pieces.size()];
    // Titles at and around the 120-byte cut, and with no trigger (the common case).
    if (i % 7 == 0) t.insert(0, 115 + rng() % 10, 'b');
    if (i % 3 == 0) std::erase_if(t, [](char c) { return c == '.' || c == '+' || c == '#' || (c >= '0' && c <= '9'); });
    BOOST_TEST_CONTEXT("'" << t << "'") {
      BOOST_TEST(normalize_title(t) == title_normalize_detail::normalize_title_general(t));
    }
  }
}

// is_reporting_machinery, is_chain_terminal and is_entry_code look names up without cutting the
// base name first: generated names (the lists' entries, cut, extended, with '.' suffixes and
// changed bytes) against the lists read plainly from the base name.
BOOST_AUTO_TEST_CASE(frame_roles_match_the_lists_read_by_base_name) {
  using frame_roles_detail::RoleLists;
  const auto reference = [](std::string_view f, const RoleLists& l) {
    const std::string_view base = base_function_name(f);
    for (const std::string_view n : l.names)
      if (base == n) return true;
    for (const std::string_view p : l.prefixes)
      if (base.starts_with(p)) return true;
    return false;
  };
  const std::vector<std::pair<bool (*)(std::string_view), RoleLists>> roles = {
      {is_reporting_machinery, frame_roles_detail::reporting_lists()},
      {is_chain_terminal, frame_roles_detail::terminal_lists()},
      {is_entry_code, frame_roles_detail::entry_lists()}};
  std::vector<std::string> seeds = {"", ".", "..", "a", "foo.isra.0", "_"};
  for (const auto& [role, lists] : roles) {
    for (const auto list : {lists.names, lists.prefixes})
      for (const std::string_view e : list) {
        BOOST_TEST(!e.empty());
        BOOST_TEST(e.find('.') == std::string_view::npos);  // what the lookup relies on
        BOOST_TEST(e.size() >= 2);                          // is_chain_terminal's first-two-bytes test relies on it
        seeds.emplace_back(e);
      }
  }
  std::mt19937 rng(2211);
  const std::string bytes = "._aex0";
  for (const std::string& seed : seeds) {
    for (int v = 0; v < 40; ++v) {
      std::string f = seed;
      if (v > 0 && !f.empty()) {
        switch (rng() % 6) {
          case 0: f.resize(rng() % f.size()); break;
          case 1: f[rng() % f.size()] = bytes[rng() % bytes.size()]; break;
          case 2: f.insert(rng() % (f.size() + 1), 1, '.'); break;
          default: break;
        }
      }
      if (v % 3 == 1) f += ".isra.0";
      if (v % 3 == 2) f += bytes[rng() % bytes.size()];
      if (v % 11 == 5) f.insert(0, 1, '.');
      for (const auto& [role, lists] : roles) BOOST_TEST_CONTEXT("'" << f << "'") {
          BOOST_TEST(role(f) == reference(f, lists));
        }
    }
  }
}

// The guilty frame's name is compared with each frame's base name without cutting the base
// first (guilty_detail::base_is): generated functions and names from shared pieces (dots
// first, inside and last, names that are prefixes of functions and the reverse).
BOOST_AUTO_TEST_CASE(a_base_name_is_compared_without_cutting_it) {
  const std::string pieces[] = {"a", "b", ".", "isra", "0", "_", "foo", "fo", ".cold", "x"};
  std::mt19937 rng(1547);
  int equal = 0;
  for (int n = 0; n < 200000; ++n) {
    std::string function;
    for (std::size_t k = rng() % 6; k > 0; --k) function += pieces[rng() % std::size(pieces)];
    std::string name;
    if (rng() % 2 == 0) {
      name = function.substr(0, rng() % (function.size() + 1));  // often the base itself
    } else {
      for (std::size_t k = rng() % 4; k > 0; --k) name += pieces[rng() % std::size(pieces)];
    }
    if (name.empty()) continue;  // the caller asks only about a name
    const bool want = base_function_name(function) == name;
    equal += want ? 1 : 0;
    const bool has_dot = name.find('.', 1) != std::string::npos;
    BOOST_TEST_REQUIRE(guilty_detail::base_is(function, name, has_dot) == want,
                       "'" << function << "' / '" << name << "'");
  }
  BOOST_TEST(equal > 10000);
}

// Two pre-tests of the title rules' line searches, on generated lines built from pieces of the
// words they look for: "interrupt:" found from the line's ':' is what a search finds, and a line
// holding an AnyOf alternative of the rule table is never ruled out.
BOOST_AUTO_TEST_CASE(interrupt_and_any_of_searches_find_what_a_plain_search_finds) {
  std::vector<std::string> alternatives;
  for (const title_rules::Family& fam : title_rules::families())
    for (const title_rules::Format& f : fam.formats)
      for (const auto* parts : {&f.stack.parts, &f.stack.parts2})
        for (const title_rules::Part& p : *parts) {
          if (p.kind != title_rules::PartKind::AnyOf) continue;
          std::string_view alts = p.pattern;
          for (std::size_t bar = alts.find('|');; bar = alts.find('|')) {
            alternatives.emplace_back(alts.substr(0, bar));
            if (bar == std::string_view::npos) break;
            alts.remove_prefix(bar + 1);
          }
        }
  BOOST_TEST_REQUIRE(!alternatives.empty());
  std::vector<std::string> pieces = {
      "interrupt",   "interrupt:", "interrup", ":",         "t:",     " ", "a", "p", "e", "x", "--- interrupt: 700 at ",
      "foo+0x1/0x2", "apic",       "_timer",   "Exception", "el1h_64"};
  for (const std::string& a : alternatives) {
    pieces.push_back(a);
    pieces.push_back(a.substr(0, a.size() / 2));
    pieces.push_back(a.substr(a.size() / 2));
  }
  std::mt19937 rng(1606);
  int interrupts = 0;
  int held = 0;
  for (int n = 0; n < 200000; ++n) {
    std::string line;
    for (std::size_t k = rng() % 12; k > 0; --k) line += pieces[rng() % pieces.size()];
    const bool interrupt = line.find("interrupt:") != std::string::npos;
    interrupts += interrupt ? 1 : 0;
    BOOST_TEST_REQUIRE(title_engine_detail::holds_interrupt_colon_for_test(line) == interrupt, "'" << line << "'");
    bool holds = false;
    for (const std::string& a : alternatives) holds = holds || line.find(a) != std::string::npos;
    held += holds ? 1 : 0;
    if (holds) BOOST_TEST_REQUIRE(title_engine_detail::may_hold_any_of_for_test(line), "'" << line << "'");
  }
  BOOST_TEST(interrupts > 10000);
  BOOST_TEST(held > 10000);
}

// strip_syscall_prefix compares a name's first four bytes as a word before a prefix whole:
// generated names (prefixes, cut, joined, with names after them) against the plain search.
BOOST_AUTO_TEST_CASE(syscall_prefixes_are_stripped_as_the_plain_search_strips_them) {
  const std::vector<std::string> prefixes = {"SYSC_",     "SyS_",      "sys_",         "__x64_",      "__ia32_",
                                             "__arm64_",  "____sys_",  "___sys_",      "__sys_",      "__se_",
                                             "__se_sys_", "__do_sys_", "compat_SYSC_", "compat_SyS_", "ksys_"};
  const auto reference = [&prefixes](std::string_view f) {
    std::string_view best = f;
    for (const std::string& p : prefixes)
      if (f.starts_with(p) && f.size() - p.size() < best.size()) best = f.substr(p.size());
    return best;
  };
  std::mt19937 rng(919);
  const std::vector<std::string> tails = {"", "read", "_", "sys_", "x", "se_sys_open", "ioctl"};
  for (int i = 0; i < 50000; ++i) {
    std::string f;
    for (std::size_t parts = rng() % 3; parts > 0; --parts) {
      const std::string& p = prefixes[rng() % prefixes.size()];
      f += rng() % 4 == 0 ? p.substr(0, rng() % (p.size() + 1)) : p;
    }
    f += tails[rng() % tails.size()];
    BOOST_TEST_CONTEXT("'" << f << "'") { BOOST_TEST(title_engine_detail::strip_syscall_prefix(f) == reference(f)); }
  }
}

BOOST_AUTO_TEST_CASE(line_patterns_capture_and_anchor) {
  std::vector<std::string_view> caps;
  BOOST_TEST(find_pattern("at: {p}{F}", " (&mm->mmap_sem), at: [<ffffffff8123>] __might_fault+0xed/0x1d0", &caps));
  BOOST_REQUIRE_EQUAL(caps.size(), 1u);
  BOOST_TEST(caps[0] == "__might_fault");
  BOOST_TEST(!find_pattern("^{F}", " ? foo+0x1/0x2", nullptr));
  caps.clear();
  BOOST_TEST(find_pattern("WARNING: * at {S} {F}", "WARNING: CPU: 0 PID: 1 at fs/a.c:12 foo+0x1/0x2", &caps));
  BOOST_REQUIRE_EQUAL(caps.size(), 2u);
  BOOST_TEST(caps[0] == "fs/a.c:12");
}

BOOST_AUTO_TEST_CASE(skip_patterns_anchor_at_either_end) {
  BOOST_TEST(matches_frame_pattern("mutex_lock_nested", "^mutex_"));
  BOOST_TEST(!matches_frame_pattern("tty_mutex_lock", "^mutex_"));
  BOOST_TEST(matches_frame_pattern("do_int3_trap", "_trap$"));
  BOOST_TEST(matches_frame_pattern("down", "^down$"));
  BOOST_TEST(!matches_frame_pattern("shutdown", "^down$"));
  BOOST_TEST(is_generic_title_frame("__kmalloc"));
  BOOST_TEST(is_generic_title_frame("crc32_le"));
  BOOST_TEST(!is_generic_title_frame("tipc_nametbl_unsubscribe"));
}

BOOST_AUTO_TEST_CASE(hostile_lines_stay_bounded) {
  const std::string line(1024, '*');
  BOOST_TEST(!find_pattern("a*b*c*d{Z}e", line, nullptr));
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "WARNING: " + std::string(200, 'x') + "\n";
  BOOST_TEST(title_from_rules(text).has_value());
}

// The call trace's three spellings, behind the console prefixes a log may carry (the front
// end strips them): each starts the stack a WARNING without a crash-site line falls back to.
BOOST_AUTO_TEST_CASE(every_spelling_of_the_call_trace_line_starts_the_fallback_stack) {
  for (const std::string trace : {"Call Trace:", "Call trace:", "Backtrace:"}) {
    for (const std::string prefix : {"", "[  1.2] ", "<4>[  1.2] ", "[T1] "}) {
      const std::string text = prefix + "WARNING: CPU: 0 PID: 1 at drivers/usb/core/urb.c:1 foo_probe+0x1/0x2\n" +
                               prefix + "Modules linked in:\n" + prefix + trace + "\n" + prefix +
                               " [<ffffffff81234567>] dump_stack+0x1/0x2\n" + prefix +
                               " [<ffffffff81234567>] ion_ioctl+0x1/0x2\n";
      BOOST_TEST_CONTEXT(text) { BOOST_TEST(first_title(text) == "WARNING in ion_ioctl"); }
    }
  }
}

// A frame line in each architecture's form, with one to three spaces between its fields:
// x86's "[<pc>] f+off", arm's "[<pc>] (callee) from [<pc>] (caller+off)", powerpc's two
// addresses, a bare "f+off". The first frame no skip pattern names is the title's.
BOOST_AUTO_TEST_CASE(frame_lines_of_every_form_name_the_function) {
  for (int spaces = 1; spaces <= 3; ++spaces) {
    const std::string sp(static_cast<std::size_t>(spaces), ' ');
    const std::string forms[] = {
        "[<ffffffff81234567>]" + sp + "victim_fn+0x1/0x2",
        "[<c0123456>]" + sp + "(dump_stack)" + sp + "from" + sp + "[<c0654321>]" + sp + "(victim_fn+0x1/0x2)",
        "[c000000049a87710]" + sp + "[c0000000000286fc]" + sp + "victim_fn+0x4/0x8",
        "victim_fn+0x1/0x2",
        "[<ffffffff81234567>]" + sp + "victim_fn.cold+0x1/0x2",
    };
    for (const std::string& frame : forms) {
      const std::string text = "BUG: sleeping function called from invalid context at kernel/foo.c:1\nCall Trace:\n" +
                               sp + "[<ffffffff81000000>] __might_sleep+0x1/0x2\n" + sp + frame + "\n" + sp +
                               "other_fn+0x1/0x2\n";
      const auto t = title_from_rules(text);
      BOOST_TEST_CONTEXT(text) {
        BOOST_REQUIRE(t.has_value());
        BOOST_TEST(t->title == "BUG: sleeping function called from invalid context in victim_fn");
      }
    }
  }
}

// A header line no format words is the title itself, however many lines follow it, unless
// a later line holds a format's words; lines without the family's words are passed over.
BOOST_AUTO_TEST_CASE(a_header_no_format_words_is_the_title_unless_a_later_line_is_worded) {
  for (int filler = 0; filler <= 40; filler += 8) {
    for (const bool worded_later : {false, true}) {
      std::string text = "INFO: something unusual happened here\n";
      for (int i = 0; i < filler; ++i) text += " line " + std::to_string(i) + " with no family word: x+0x1/0x2\n";
      if (worded_later)
        text += "INFO: task syz:123 blocked for more than 143 seconds.\nCall Trace:\n hung_fn+0x1/0x2\n";
      const auto t = title_from_rules(text);
      BOOST_TEST_CONTEXT(text) {
        BOOST_REQUIRE(t.has_value());
        BOOST_TEST(t->title == (worded_later ? "INFO: task hung in hung_fn" : "INFO: something unusual happened here"));
        BOOST_TEST(t->corrupted == !worded_later);
      }
    }
  }
}

// title_from_rules passes over a line in which no family header's first four bytes stand
// together (as may_hold_header hashes them): such a line must hold no header. Generated: the headers whole, cut short,
// with a byte changed, behind and before other text, and random bytes.
BOOST_AUTO_TEST_CASE(lines_without_a_header_start_hold_no_header) {
  const auto& fams = title_rules::families();
  std::vector<std::string> pieces = {"------------[ cut here ]------------", " ", "x", "CPU: 0 PID: 1", ":", "\xff"};
  for (const auto& f : fams) pieces.emplace_back(f.header);
  std::mt19937 rng(1415);
  int skipped = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string line;
    for (int k = 1 + static_cast<int>(rng() % 3); k > 0; --k) {
      std::string piece = pieces[rng() % pieces.size()];
      if (rng() % 3 == 0) piece = piece.substr(rng() % (piece.size() + 1));  // its tail
      if (rng() % 3 == 0) piece.resize(rng() % (piece.size() + 1));          // cut short
      if (!piece.empty() && rng() % 4 == 0) piece[rng() % piece.size()] = static_cast<char>(rng());
      line += piece;
    }
    if (title_engine_detail::may_hold_header(line)) continue;
    ++skipped;
    for (const auto& f : fams) BOOST_TEST_REQUIRE(line.find(f.header) == std::string::npos, line << " / " << f.header);
  }
  BOOST_TEST(skipped > 10000);
}

// FaultsPassed answers from the first position asked on, searching no line before it: it must
// give the whole report's answer (li >= one past its last fault injection line) at every
// position asked, in rising order. Generated: reports of fault injection frames in each form,
// with bytes changed or cut, among other lines; queries from random first positions.
BOOST_AUTO_TEST_CASE(faults_passed_matches_the_whole_report_bound) {
  const std::vector<std::string> pieces = {" should_fail+0x1a/0x30",
                                           "should_fail.part.0+0x12/0x20",
                                           " should_failslab+0x5/0x10",
                                           " [<ffffffff81234567>] should_fail_ex+0x1/0x2",
                                           " [  12.345] should_failslab.cold+0x9/0x9",
                                           " [",
                                           "s",
                                           " kmem_cache_alloc+0x1/0x2",
                                           "Call Trace:",
                                           ""};
  std::mt19937 rng(2718);
  int with_fault = 0;
  for (int i = 0; i < 100000; ++i) {
    std::vector<std::string> text(rng() % 12);
    for (std::string& l : text) {
      l = pieces[rng() % pieces.size()];
      if (!l.empty() && rng() % 4 == 0) l[rng() % l.size()] = static_cast<char>(rng());
      if (rng() % 5 == 0) l.resize(rng() % (l.size() + 1));
    }
    const std::vector<std::string_view> lines(text.begin(), text.end());
    const std::size_t whole = title_engine_detail::FaultsPassed::last_fault_end(lines, 0);
    if (whole > 0) ++with_fault;
    title_engine_detail::FaultsPassed passed(lines);
    for (std::size_t li = rng() % (lines.size() + 1); li <= lines.size(); li += 1 + rng() % 3)
      BOOST_TEST_REQUIRE(passed(li) == (li >= whole), "line " << li << " of " << lines.size());
  }
  BOOST_TEST(with_fault > 10000);
}

BOOST_AUTO_TEST_CASE(a_task_name_holding_line_breaks_still_titles_the_hang) {
  // comm is printed with %s: a name set through prctl(PR_SET_NAME) may hold '\n', and the
  // console prints each piece as a line of its own (syzkaller report 1001).
  std::mt19937 rng(1001);
  const std::string bytes = "\xff\xfe\x80 !:a0_-";
  for (int round = 0; round < 300; ++round) {
    const int breaks = 1 + static_cast<int>(rng() % 15);  // TASK_COMM_LEN - 1 bytes at most
    std::string name;
    for (int b = 0; b < breaks; ++b) name += std::string(1, bytes[rng() % bytes.size()]) + "\n";
    name += bytes[rng() % bytes.size()];
    const bool io_wait = rng() % 2 == 0;
    // Each piece of the message gets the console prefix of its own line.
    std::string message =
        "INFO: task " + name + ":18088 blocked " + (io_wait ? "in I/O wait " : "") + "for more than 143 seconds.";
    std::string log;
    std::size_t at = 0;
    for (std::size_t nl = message.find('\n'); nl != std::string::npos; at = nl + 1, nl = message.find('\n', at))
      log += "[ 1052.080846][   T41] " + message.substr(at, nl - at) + "\n";
    log += "[ 1052.080846][   T41] " + message.substr(at) + "\n";
    log +=
        "[ 1052.189780][   T41] Call Trace:\n"
        "[ 1052.199981][   T41]  <TASK>\n"
        "[ 1052.211420][   T41]  __schedule+0x10e9/0x6820\n"
        "[ 1052.227703][   T41]  schedule+0xdd/0x390\n"
        "[ 1052.258119][   T41]  schedule_timeout+0x1b2/0x280\n"
        "[ 1052.456896][   T41]  p9_fd_close+0x299/0x5a0\n"
        "[ 1052.458482][   T41]  p9_client_create+0x678/0xd40\n";
    BOOST_TEST_CONTEXT("breaks " << breaks << ", log:\n" << log) {
      BOOST_TEST(first_title(log) == "INFO: task hung in p9_fd_close");
    }
  }
  // A name is at most 100 bytes of the joined lines: a "blocked" line far below is no part of it.
  std::string far = "[ 1.0] INFO: task x\n";
  for (int i = 0; i < 8; ++i) far += "[ 1.0] " + std::string(20, 'y') + "\n";
  far += "[ 1.0] :1 blocked for more than 1 seconds.\n[ 1.0] Call Trace:\n[ 1.0]  p9_fd_close+0x299/0x5a0\n";
  BOOST_TEST(first_title(far) != "INFO: task hung in p9_fd_close");
}

// The stall extractor picks the frame above the first dispatcher frame (or smp_call_function)
// from what the stack reader already knows (frames are added up to the first dispatcher),
// not by looking for it again. Generated: soft lockups whose RIP and trace frames are drawn
// from dispatchers, syscall wrappers, skipped and plain frames; the expected pick is worked
// out here the long way, over every frame the generic skip list keeps.
BOOST_AUTO_TEST_CASE(stall_picks_are_the_frame_above_the_first_dispatcher) {
  struct Pool {
    const char* raw;
    const char* stripped;  // the name without its syscall wrapper prefix
    bool dispatcher;       // a stall anchor (title_engine.cpp), by its stripped name
  };
  static constexpr Pool kPool[] = {{"process_one_work", "process_one_work", true},
                                   {"do_syscall_64", "do_syscall_64", true},
                                   {"smp_call_function_many_cond", "smp_call_function_many_cond", true},
                                   {"__x64_sys_ioctl", "sys_ioctl", true},
                                   {"call_timer_fn", "call_timer_fn", true},
                                   {"vfs_write", "vfs_write", true},
                                   {"__se_sys_foo_bar", "foo_bar", false},
                                   {"SyS_read_foo", "read_foo", false},
                                   {"ext4_file_write_iter", "ext4_file_write_iter", false},
                                   {"seq_poll_loop", "seq_poll_loop", false},
                                   {"_raw_spin_lock", "_raw_spin_lock", false},
                                   {"kasan_report", "kasan_report", false},
                                   {"__x64_sys_rmdir", "sys_rmdir", false}};
  std::mt19937 rng(3141);
  int named = 0;
  for (int n = 0; n < 20000; ++n) {
    std::vector<const Pool*> frames(1 + rng() % 6);
    for (auto& f : frames) f = &kPool[rng() % std::size(kPool)];
    std::string text = "BUG: soft lockup - CPU#0 stuck for 22s! [syz:1]\nRIP: 0010:" + std::string(frames[0]->raw) +
                       "+0x1/0x2\nCall Trace:\n";
    for (std::size_t i = 1; i < frames.size(); ++i) text += " " + std::string(frames[i]->raw) + "+0x1/0x2\n";
    // The long way: the frames the skip list keeps, up to the first dispatcher among them.
    std::vector<const Pool*> kept;
    for (const Pool* f : frames)
      if (!is_generic_title_frame(f->raw)) kept.push_back(f);
    std::string want_title = "BUG: soft lockup in corrupted";
    std::string want_frame;
    for (std::size_t i = 0; i < kept.size(); ++i) {
      if (!kept[i]->dispatcher) continue;
      const bool smp = std::string_view(kept[i]->stripped).find("smp_call_function") != std::string_view::npos;
      const Pool* pick = smp ? kept[i] : kept[i == 0 ? 0 : i - 1];
      want_title = "BUG: soft lockup in " + std::string(smp ? "smp_call_function" : pick->stripped);
      want_frame = pick->raw;
      break;
    }
    const auto t = title_from_rules(text);
    BOOST_TEST_CONTEXT(text) {
      BOOST_REQUIRE(t.has_value());
      BOOST_TEST_REQUIRE(t->title == want_title);
      BOOST_TEST_REQUIRE(t->frame == want_frame);
      BOOST_TEST_REQUIRE(t->corrupted == want_frame.empty());
    }
    named += want_frame.empty() ? 0 : 1;
  }
  BOOST_TEST(named > 5000);
}

BOOST_AUTO_TEST_SUITE_END()
