#include "analysis/guilty_file.h"

#include <boost/test/unit_test.hpp>
#include <random>
#include <string>
#include <vector>

using namespace btaudit;
using namespace btaudit::guilty_file_detail;

namespace {

bool path_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.' || c == '/';
}

// syzkaller's filenameRe, ([a-zA-Z0-9_\-\./]*[a-zA-Z0-9_\-]+\.(c|h)):[0-9]+, tried at every start
// in turn (the leftmost match wins): from a start, the path bytes run to a byte that is none,
// which must be the ':' after ".c"/".h" and a name byte, with a digit after it.
std::string reference_file(const std::string& line) {
  for (std::size_t p = 0; p < line.size(); ++p) {
    std::size_t q = p;
    while (q < line.size() && path_byte(line[q])) ++q;
    if (q >= p + 3 && q + 1 < line.size() && line[q] == ':' && line[q + 1] >= '0' && line[q + 1] <= '9' &&
        (line[q - 1] == 'c' || line[q - 1] == 'h') && line[q - 2] == '.' && path_byte(line[q - 3]) &&
        line[q - 3] != '.' && line[q - 3] != '/')
      return line.substr(p, q - p);
  }
  return {};
}

std::vector<std::string_view> views(const std::vector<std::string>& lines) { return {lines.begin(), lines.end()}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(guilty_file)

BOOST_AUTO_TEST_CASE(the_first_file_of_a_line_is_the_leftmost_regex_match) {
  std::mt19937 rng(68);
  const std::string alphabet = "ab/._-:ch0123 ([+x";
  for (int i = 0; i < 200000; ++i) {
    std::string line;
    const std::size_t n = rng() % 40;
    for (std::size_t k = 0; k < n; ++k) line += alphabet[rng() % alphabet.size()];
    BOOST_TEST_CONTEXT("'" << line << "'") { BOOST_TEST(std::string(first_source_file(line)) == reference_file(line)); }
  }
  BOOST_TEST(first_source_file(" dump_stack+0x292/0x395 lib/dump_stack.c:52") == "lib/dump_stack.c");
  BOOST_TEST(first_source_file("WARNING: CPU: 0 PID: 1 at net/core/dev.c:12 f+0x1/0x2") == "net/core/dev.c");
  BOOST_TEST(first_source_file(" ? dump_stack (lib/dump_stack.c:122)") == "lib/dump_stack.c");
  BOOST_TEST(first_source_file(" __dump_stack lib/dump_stack.c [inline]").empty());
}

// Lines of every length up to a few hundred bytes, built from pieces that make and break
// ".c:<digit>" matches (many dots, few matches), find what the reference finds.
BOOST_AUTO_TEST_CASE(the_dot_by_dot_search_finds_the_leftmost_file_in_long_lines) {
  std::mt19937 rng(1468);
  const std::vector<std::string> pieces = {"a",    "b/",    ".", "c", "h", ":", "1",    " ",  ".c:",     ".h:", ".c:7",
                                           "x.c:", "x.h:9", "/", "_", "-", "(", "+0x1", "..", ".isra.0", "ffff"};
  for (int i = 0; i < 100000; ++i) {
    std::string line;
    const std::size_t len = rng() % 300;
    while (line.size() < len) line += pieces[rng() % pieces.size()];
    line.resize(len);
    BOOST_TEST_CONTEXT("'" << line << "'") { BOOST_TEST(std::string(first_source_file(line)) == reference_file(line)); }
  }
  for (std::size_t n = 0; n < 70; ++n) {  // a match at the end of lines of every length
    const std::string line = std::string(n, '.') + " a.c:1";
    BOOST_TEST_CONTEXT(n) { BOOST_TEST(std::string(first_source_file(line)) == "a.c"); }
  }
}

BOOST_AUTO_TEST_CASE(paths_are_cleaned_as_filepath_clean_does) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"arch/x86/kvm/../../../virt/kvm/eventfd.c", "virt/kvm/eventfd.c"},
      {"a/./b/../c.c", "a/c.c"},
      {"./a.c", "a.c"},
      {"a//b.c", "a/b.c"},
      {"../x.c", "../x.c"},
      {"a/../../x.c", "../x.c"},
      {"/abs/../x.c", "/x.c"},
      {"net/ipv4/tcp.c", "net/ipv4/tcp.c"}};
  for (const auto& [in, out] : cases) BOOST_TEST_CONTEXT(in) {
      BOOST_TEST(clean_path(in) == out);
    }
}

BOOST_AUTO_TEST_CASE(machinery_files_are_ignored_and_subsystems_are_not) {
  for (const std::string f : {"include/linux/spinlock.h", "lib/dump_stack.c", "mm/kasan/report.c", "mm/slub.c",
                              "mm/slab.c", "kernel/locking/lockdep.c", "kernel/sched/core.c", "arch/x86/kernel/traps.c",
                              "arch/arm64/kernel/entry-common.c", "arch/x86/kernel/unwind_orc.c", "kernel/rcu/tree.c",
                              "net/core/dev.c", "mm/percpu-vm.c", "trusty/kernel/lib/trusty/ipc.c",
                              "arch/arm/lib/crc32.c", "kernel/printk/printk_safe.c", "drivers/usb/core/urb.c"})
    BOOST_TEST_CONTEXT(f) { BOOST_TEST(ignored_file(f)); }
  for (const std::string f :
       {"net/ipv6/tcp_ipv6.c", "fs/ntfs/super.c", "mm/mmap.c", "kernel/fork.c", "net/core/filter.c",
        "drivers/usb/core/hub.c", "arch/x86/kvm/x86.c", "virt/kvm/eventfd.c", "libfoo/a.c"})
    BOOST_TEST_CONTEXT(f) { BOOST_TEST(!ignored_file(f)); }
}

// ignored_file tries only the rows that open with the path's first byte: generated paths (the
// rows' own text with '*' and '?' filled in, cut, extended, a byte changed) against every row
// globbed in turn.
BOOST_AUTO_TEST_CASE(machinery_rows_are_tried_by_the_paths_first_byte) {
  // The table's rows but its "*.h" (which `reference` reads as a search for ".h").
  std::vector<std::string> rows;
  for (const std::string_view row : ignored_file_rows())
    if (row != "*.h") rows.emplace_back(row);
  // Glob from the path's first byte: '*' any run, '?' any byte, the path may go on.
  const auto glob = [](auto&& self, std::string_view p, std::string_view s) -> bool {
    if (p.empty()) return true;
    if (p[0] == '*') {
      for (std::size_t k = 0; k <= s.size(); ++k)
        if (self(self, p.substr(1), s.substr(k))) return true;
      return false;
    }
    return !s.empty() && (p[0] == '?' || p[0] == s[0]) && self(self, p.substr(1), s.substr(1));
  };
  const auto reference = [&](const std::string& path) {
    if (path.find(".h") != std::string::npos) return true;
    for (const std::string& r : rows)
      if (glob(glob, r, path)) return true;
    return false;
  };
  std::mt19937 rng(1512);
  const std::string bytes = "ak/._xc";
  int ignored = 0;
  for (int n = 0; n < 100000; ++n) {
    std::string path = rows[rng() % rows.size()];
    for (char& c : path)
      if (c == '*' || c == '?') c = rng() % 2 ? '.' : 'x';
    switch (rng() % 5) {
      case 0: path.resize(rng() % (path.size() + 1)); break;
      case 1: path += "foo.c"; break;
      case 2:
        if (!path.empty()) path[rng() % path.size()] = bytes[rng() % bytes.size()];
        break;
      case 3: path.insert(0, 1, bytes[rng() % bytes.size()]); break;
      default: break;
    }
    const bool want = reference(path);
    ignored += want ? 1 : 0;
    BOOST_TEST_REQUIRE(ignored_file(path) == want, "'" << path << "'");
  }
  BOOST_TEST(ignored > 10000);
}

BOOST_AUTO_TEST_CASE(the_first_file_past_the_machinery_is_guilty) {
  const std::vector<std::string> lines = {
      "BUG: KASAN: use-after-free in tcp_v6_connect+0x1dfd/0x20f0 net/ipv6/tcp_ipv6.c:271",
      "Call Trace:",
      " dump_stack+0x292/0x395 lib/dump_stack.c:52",
      " kasan_report+0x22b/0x340 mm/kasan/report.c:408",
      " ip6_dst_store include/net/ip6_fib.h:176 [inline]",
      " tcp_v6_connect+0x1dfd/0x20f0 net/ipv6/tcp_ipv6.c:271"};
  BOOST_TEST(*find_guilty_file("KASAN: use-after-free Read in ip6_dst_store", views(lines)) == "net/ipv6/tcp_ipv6.c");
}

BOOST_AUTO_TEST_CASE(a_deeper_file_of_the_same_directory_further_down_wins) {
  const std::vector<std::string> lines = {
      " a+0x1/0x2 drivers/net/core.c:1", " b+0x1/0x2 drivers/net/wireless/ath/main.c:2", " c+0x1/0x2 drivers/usb/x.c:3",
      " d+0x1/0x2 drivers/net/wireless/ath/ath9k/hw.c:4", " e+0x1/0x2 drivers/netfoo/y/z.c:5"};
  BOOST_TEST(*find_guilty_file("", views(lines)) == "drivers/net/wireless/ath/ath9k/hw.c");
}

BOOST_AUTO_TEST_CASE(lockdep_and_register_lines_name_no_guilty_file) {
  const std::vector<std::string> lines = {
      "hardirqs last  enabled at (201): [<ffffffff81234567>] _raw_spin_unlock_irqrestore+0x1/0x2 kernel/foo.c:1",
      "softirqs last disabled at (175): do_softirq_own_stack+0x1/0x2 arch/x86/kernel/irq_32.c:59",
      " #0: 4ad27bd0 (rcu_state){+.+.}-{0:0}, at: rcu_boost_kthread+0x1/0x2 kernel/bar.c:1033",
      "ffff0000c495a9d8 (&s->s_inode_list_lock){+.+.}-{2:2}, at: evict+0x90/0x334 fs/inode.c:654",
      "Register r4 information: 2-page vmalloc region allocated at kernel_clone+0x9c/0x3d4 kernel/fork.c:1",
      " ntfs_fill_super+0x1254/0x14a4 fs/ntfs/super.c:188"};
  BOOST_TEST(*find_guilty_file("", views(lines)) == "fs/ntfs/super.c");
}

BOOST_AUTO_TEST_CASE(an_rcu_stall_is_read_from_the_timer_interrupt_on) {
  const std::vector<std::string> lines = {"rcu: INFO: rcu_sched self-detected stall on CPU",
                                          " rcu_dump_cpu_stacks+0x1/0x2 kernel/rcu/tree.c:1",
                                          " update_process_times+0x1/0x2 kernel/time/timer.c:2",
                                          " tick_sched_timer+0x1/0x2 kernel/time/tick-sched.c:3",
                                          " apic_timer_interrupt+0x8f/0xa0 arch/x86/entry/entry_64.S:1",
                                          " tcp_poll+0x1/0x2 net/ipv4/tcp.c:9"};
  BOOST_TEST(*find_guilty_file("INFO: rcu detected stall in tcp_poll", views(lines)) == "net/ipv4/tcp.c");
  BOOST_TEST(*find_guilty_file("INFO: task hung in tcp_poll", views(lines)) == "kernel/time/tick-sched.c");
}

BOOST_AUTO_TEST_CASE(machinery_alone_names_its_first_file_and_no_file_names_none) {
  const std::vector<std::string> machinery = {" kasan_report+0x1/0x2 mm/kasan/report.c:408", " f+0x1/0x2 lib/x.c:1"};
  BOOST_TEST(*find_guilty_file("", views(machinery)) == "mm/kasan/report.c");
  const std::vector<std::string> none = {"BUG: unable to handle kernel paging request", " f+0x1/0x2"};
  BOOST_TEST(!find_guilty_file("", views(none)).has_value());
  BOOST_TEST(!find_guilty_file("", {}).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
