// One test per backtrace line format (kernel era, architecture, symbolizer).
#include "text/trace_line.h"

#include <boost/test/unit_test.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model_printers.h"

using btaudit::parse_symbol_ref;
using btaudit::parse_trace_line;
using btaudit::StackKind;

namespace {

// The frame of a line that must parse as one.
btaudit::Frame frame_of(std::string_view line) {
  auto tl = parse_trace_line(line);
  BOOST_REQUIRE(tl.has_value());
  BOOST_REQUIRE(tl->frame.has_value());
  return *tl->frame;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(trace_line)

BOOST_AUTO_TEST_CASE(modern_x86_frame_with_question_mark_and_module) {  // 4.10 - 5.13
  auto f = frame_of(" ? foo_bar.isra.0+0x63/0x90 [nf_tables]");
  BOOST_TEST(f.printed_unreliable);
  BOOST_TEST(*f.function == "foo_bar.isra.0");
  BOOST_TEST(*f.offset == 0x63u);
  BOOST_TEST(*f.size == 0x90u);
  BOOST_TEST(*f.module == "nf_tables");
  BOOST_TEST(!f.address.has_value());
  auto r = frame_of(" dump_stack+0x194/0x257");
  BOOST_TEST(!r.printed_unreliable);
  BOOST_TEST(!r.module.has_value());
}

BOOST_AUTO_TEST_CASE(build_id_after_module_name) {  // 5.14+ CONFIG_STACKTRACE_BUILD_ID
  auto f = frame_of(" foo+0x1/0x2 [kvm 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567]");
  BOOST_TEST(*f.module == "kvm");
  BOOST_TEST(*f.build_id == "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567");
}

BOOST_AUTO_TEST_CASE(old_format_with_bracketed_address) {  // 2.6 - 4.9
  auto f = frame_of(" [<ffffffff8134d2f3>] ? foo+0x63/0x90 [mod]");
  BOOST_TEST(*f.address == 0xffffffff8134d2f3ULL);
  BOOST_TEST(f.printed_unreliable);
  BOOST_TEST(*f.function == "foo");
  BOOST_TEST(*f.module == "mod");
  auto i386 = frame_of(" [<c0476e49>] ? set_fail+0x49/0x50");
  BOOST_TEST(*i386.address == 0xc0476e49u);
  BOOST_TEST(*i386.function == "set_fail");
}

BOOST_AUTO_TEST_CASE(inline_markers_before_a_frame) {  // <= 4.9 printed "<IRQ> " with no newline
  auto tl = parse_trace_line(" <IRQ>  [<ffffffff813eb3e6>] _sched_show_task+0x2d0/0x2dc");
  BOOST_REQUIRE(tl.has_value());
  BOOST_REQUIRE_EQUAL(tl->markers.size(), 1u);
  BOOST_TEST(tl->markers[0].open);
  BOOST_TEST(tl->markers[0].stack == StackKind::Irq);
  BOOST_TEST(*tl->frame->function == "_sched_show_task");

  auto eoi = parse_trace_line(" <EOI>  [<ffffffff8111a2a9>] ? do_softirq+0x59/0x60");
  BOOST_REQUIRE(eoi.has_value());
  BOOST_TEST(!eoi->markers[0].open);
  BOOST_TEST(eoi->markers[0].stack == StackKind::Irq);
  BOOST_TEST(eoi->frame->printed_unreliable);

  auto eoe = parse_trace_line(" <<EOE>>  [<ffffffff81012345>] foo+0x1/0x2");
  BOOST_REQUIRE(eoe.has_value());
  BOOST_TEST(!eoe->markers[0].open);
  BOOST_TEST(eoe->markers[0].stack == StackKind::Exception);

  auto two = parse_trace_line(" <NMI>  <#DF>  [<ffffffff81012345>] foo+0x1/0x2");
  BOOST_REQUIRE(two.has_value());
  BOOST_TEST(two->markers.size() == 2u);
}

BOOST_AUTO_TEST_CASE(own_line_markers) {  // 4.1x+ and 5.16+ <TASK>
  struct Case {
    const char* line;
    bool open;
    StackKind stack;
    const char* exception;
  };
  const Case cases[] = {
      {" <IRQ>", true, StackKind::Irq, nullptr},
      {" </IRQ>", false, StackKind::Irq, nullptr},
      {" <NMI>", true, StackKind::Nmi, "NMI"},
      {" </NMI>", false, StackKind::Nmi, "NMI"},
      {" <#DF>", true, StackKind::Exception, "#DF"},
      {" <#MC>", true, StackKind::Exception, "#MC"},
      {" <#VC2>", true, StackKind::Exception, "#VC2"},
      {" <TASK>", true, StackKind::Task, nullptr},
      {" </TASK>", false, StackKind::Task, nullptr},
      {" <SOFTIRQ>", true, StackKind::Softirq, nullptr},
      {" <ENTRY_TRAMPOLINE>", true, StackKind::Entry, nullptr},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.line) {
      auto tl = parse_trace_line(c.line);
      BOOST_REQUIRE(tl.has_value());
      BOOST_REQUIRE_EQUAL(tl->markers.size(), 1u);
      BOOST_TEST(!tl->frame.has_value());
      BOOST_TEST(tl->markers[0].open == c.open);
      BOOST_TEST(tl->markers[0].stack == c.stack);
      if (c.exception) BOOST_TEST(tl->markers[0].exception.value_or("") == c.exception);
    }
  }
  BOOST_TEST(!parse_trace_line(" <foo>").has_value());
  BOOST_TEST(!parse_trace_line(" <#df>").has_value());
}

BOOST_AUTO_TEST_CASE(arm64_source_tags_are_not_part_of_the_frame) {  // 6.13+ (P) (C) (T) ...
  auto c = frame_of(" show_stack+0x20/0x38 (C)");
  BOOST_TEST(*c.function == "show_stack");
  BOOST_TEST(!c.printed_unreliable);
  BOOST_TEST(!c.module.has_value());
  auto p = frame_of(" el1_interrupt+0x38/0x68 [mod] (P)");
  BOOST_TEST(*p.function == "el1_interrupt");
  BOOST_TEST(*p.module == "mod");
  auto old = frame_of("[<ffff000008088e18>] dump_backtrace+0x0/0x1f0");  // before a25ffd3a6302
  BOOST_TEST(*old.function == "dump_backtrace");
}

BOOST_AUTO_TEST_CASE(arm32_from_lines_name_the_callee) {
  auto f = frame_of("[<c0014bd0>] (unwind_backtrace+0x0/0xf4) from [<c005f9c0>] (__lock_acquire+0x1948/0x1d48)");
  BOOST_TEST(*f.function == "unwind_backtrace");
  BOOST_TEST(*f.address == 0xc0014bd0u);
  BOOST_TEST(*f.size == 0xf4u);
  // Kernels built without offsets in the callee's name.
  auto n = frame_of("[<c0014318>] (dump_backtrace_log_lvl) from [<c001457c>] (show_stack+0x24/0x2c)");
  BOOST_TEST(*n.function == "dump_backtrace_log_lvl");
  BOOST_TEST(!n.offset.has_value());
  BOOST_TEST(!parse_trace_line(" (foo) bar").has_value());
}

BOOST_AUTO_TEST_CASE(arm32_modern_from_lines_without_addresses) {  // 5.x+
  auto f = frame_of(" unwind_backtrace from show_stack+0x18/0x1c");
  BOOST_TEST(*f.function == "unwind_backtrace");
  BOOST_TEST(!f.offset.has_value());
  BOOST_TEST(!f.address.has_value());
  auto m = frame_of(" vm_interrupt from __handle_irq_event_percpu+0xa0/0x1fc [virtio_mmio]");
  BOOST_TEST(*m.function == "vm_interrupt");
  BOOST_TEST(!parse_trace_line(" data from the device").has_value());
  BOOST_TEST(!parse_trace_line(" foo from ").has_value());
}

BOOST_AUTO_TEST_CASE(powerpc_stack_pointer_then_address_and_unreliable_word) {
  auto f = frame_of("[c000000010f930b0] [c000000008068df8] .eeh_dev_check_failure+0x278/0x390 (unreliable)");
  BOOST_TEST(*f.function == "eeh_dev_check_failure");  // ELFv1 dot symbol: the C name
  BOOST_TEST(*f.address == 0xc000000008068df8ULL);
  BOOST_TEST(f.printed_unreliable);
  auto m = frame_of("[c000000010f93340] [d0000000008c991c] .ipr_probe_ioa+0x6c/0x1390 [ipr]");
  BOOST_TEST(!m.printed_unreliable);
  BOOST_TEST(*m.module == "ipr");
  auto v2 = frame_of("[c000000010f93e30] [c000000008009ed4] syscall_exit+0x0/0x98");
  BOOST_TEST(*v2.function == "syscall_exit");
}

BOOST_AUTO_TEST_CASE(s390_parenthesised_frames_are_unreliable) {
  auto f = frame_of(" ([<0000000000112233>] foo+0x12/0x34)");
  BOOST_TEST(f.printed_unreliable);
  BOOST_TEST(*f.function == "foo");
  auto raw = frame_of("([<00000000027f8000>] 0x27f8000)");
  BOOST_TEST(raw.printed_unreliable);
  BOOST_TEST(!raw.function.has_value());
  BOOST_TEST(*raw.address == 0x27f8000u);
  auto plain = frame_of(" [<0000004e15e926dc>] 0x4e15e926dc");
  BOOST_TEST(!plain.printed_unreliable);
  BOOST_TEST(*plain.address == 0x4e15e926dcULL);
}

BOOST_AUTO_TEST_CASE(raw_addresses_without_symbols) {
  auto f = frame_of(" 0xffffffffc0123456");
  BOOST_TEST(!f.function.has_value());
  BOOST_TEST(*f.address == 0xffffffffc0123456ULL);
  auto q = frame_of(" ? 0xffffffffc0123456");
  BOOST_TEST(q.printed_unreliable);
  auto slub = frame_of("  0xfdc88c28");
  BOOST_TEST(*slub.address == 0xfdc88c28u);
  BOOST_TEST(!parse_trace_line(" 0xzz").has_value());
  BOOST_TEST(!parse_trace_line(" 0x1234abc: not a frame").has_value());
}

BOOST_AUTO_TEST_CASE(symbolized_syzkaller_frames) {
  auto f = frame_of(" dump_stack+0x12/0x34 lib/dump_stack.c:113");
  BOOST_TEST(*f.function == "dump_stack");
  BOOST_TEST(*f.source == "lib/dump_stack.c:113");
  BOOST_TEST(!f.inlined);
  auto i = frame_of(" __dump_stack lib/dump_stack.c:17 [inline]");
  BOOST_TEST(*i.function == "__dump_stack");
  BOOST_TEST(!i.offset.has_value());
  BOOST_TEST(i.inlined);
  BOOST_TEST(!i.module.has_value());
  auto col = frame_of(" kasan_report+0xc0/0xf0 mm/kasan/report.c:588:5");
  BOOST_TEST(*col.source == "mm/kasan/report.c:588:5");
  BOOST_TEST(!parse_trace_line(" lock(&(&host->lock)->rlock#2);").has_value());
  BOOST_TEST(!parse_trace_line(" foo bar baz").has_value());
}

BOOST_AUTO_TEST_CASE(decode_stacktrace_frames_name_the_function_and_its_location) {
  // scripts/decode_stacktrace.sh: "$name ($code)", addr2line -i's locations innermost first,
  // "(discriminator N)" after a location, "??:?" when addr2line knew none, then [mod] and (info).
  const std::vector<std::pair<std::string, std::string>> locations = {
      {"(kernel/sched/core.c:3978)", "kernel/sched/core.c:3978"},
      {"(kernel/sched/core.c:7244 (discriminator 13))", "kernel/sched/core.c:7244"},
      {"(include/linux/spinlock_api_smp.h:160 kernel/locking/spinlock.c:191)", "kernel/locking/spinlock.c:191"},
      {"(arch/x86/include/asm/jump_label.h:25 include/linux/jump_label.h:200 (discriminator 1) "
       "kernel/printk/printk.c:2499)",
       "kernel/printk/printk.c:2499"},
      {"(??:?)", ""}};
  for (const std::string lead : {" ", "", "  ", " ? ", "? "}) {
    for (const auto& [loc, source] : locations) {
      for (const std::string tail : {"", " ", " [btrfs]", " [btrfs] (C)"}) {
        const std::string line = lead + "rt_mutex_setprio.cold " + loc + tail;
        BOOST_TEST_CONTEXT("'" << line << "'") {
          auto f = frame_of(line);
          BOOST_TEST(*f.function == "rt_mutex_setprio.cold");
          BOOST_TEST(!f.offset.has_value());
          BOOST_TEST(f.printed_unreliable == (lead.find('?') != std::string::npos));
          if (source.empty())
            BOOST_TEST(!f.source.has_value());
          else
            BOOST_TEST(*f.source == source);
          BOOST_TEST(f.module.has_value() == (tail.find("btrfs") != std::string::npos));
        }
      }
    }
  }
  // Parentheses that hold no location are no frame ("foo (bar)", lockdep's "lock(&rq->lock);").
  for (const std::string line :
       {" foo (bar)", " foo (bar baz)", " irq event stamp (201)", " foo (((a.c:1)))", " foo (a.c:1"})
    BOOST_TEST_CONTEXT("'" << line << "'") { BOOST_TEST(!parse_trace_line(line).has_value()); }
}

BOOST_AUTO_TEST_CASE(lines_that_are_not_frames) {
  const char* lines[] = {
      "",
      "   ",
      "RIP: 0010:foo+0x1/0x2",
      "Call Trace:",
      " #0:  (&tty->ldisc_sem){++++}, at: [<00>] f+0x1/0x2",
      "[drm] Num pipes: 1",
      "[",
      "[<",
      "[<ffff",
      "(",
      "([",
      "<",
      "<<",
      "<#",
      "</",
      "? ",
      " ? foo+0x/0x2",
      " foo+0xzz/0x2",
      " foo+0x1/",
      "+0x1/0x2",
      "0x",
  };
  for (const char* l : lines) {
    BOOST_TEST_CONTEXT(l) {
      auto tl = parse_trace_line(l);
      BOOST_TEST((!tl || !tl->frame));
    }
  }
  // Hostile: a very long line of one character must neither crash nor take long.
  const std::string junk(1 << 16, '[');
  BOOST_TEST(!parse_trace_line(junk).has_value());
  const std::string many(1 << 16, '<');
  BOOST_TEST(!parse_trace_line(many).has_value());
}

BOOST_AUTO_TEST_CASE(symbol_ref_of_crash_site_lines) {
  std::string_view s = "foo+0x1b/0x40 [mod abcdef] rest";
  auto r = parse_symbol_ref(s);
  BOOST_REQUIRE(r.has_value());
  BOOST_TEST(r->function == "foo");
  BOOST_TEST(r->offset == 0x1bu);
  BOOST_TEST(r->size == 0x40u);
  BOOST_TEST(r->module == "mod");
  BOOST_TEST(r->build_id == "abcdef");
  BOOST_TEST(s == " rest");
  std::string_view nip = ".eeh_dev_check_failure+0x27c/0x390";
  BOOST_TEST(parse_symbol_ref(nip)->function == "eeh_dev_check_failure");
  std::string_view bad = "foo";
  BOOST_TEST(!parse_symbol_ref(bad).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
