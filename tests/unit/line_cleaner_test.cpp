#include "text/line_cleaner.h"

#include <boost/test/unit_test.hpp>

using btaudit::clean_line;

BOOST_AUTO_TEST_SUITE(line_cleaner)

BOOST_AUTO_TEST_CASE(strips_dmesg_timestamp_and_keeps_trace_indent) {
  auto l = clean_line("[   73.475768]  dump_stack+0x194/0x257", 7);
  BOOST_TEST(l.text == " dump_stack+0x194/0x257");
  BOOST_TEST(l.number == 7u);
  BOOST_TEST(l.had_timestamp);
}

BOOST_AUTO_TEST_CASE(strips_caller_id_after_timestamp) {
  auto l = clean_line("[  512.079810][ T8305] BUG: KASAN: use-after-free in foo", 1);
  BOOST_TEST(l.text == "BUG: KASAN: use-after-free in foo");
  BOOST_TEST(l.caller_kind == 'T');
  BOOST_TEST(l.caller_id == 8305u);
  auto c = clean_line("[    1.000000][    C1] NMI backtrace for cpu 1", 2);
  BOOST_TEST(c.caller_kind == 'C');
  BOOST_TEST(c.caller_id == 1u);
  BOOST_TEST(c.text == "NMI backtrace for cpu 1");
}

BOOST_AUTO_TEST_CASE(strips_log_level_before_timestamp) {
  BOOST_TEST(clean_line("<4>[    0.000000] WARNING: at foo", 1).text == "WARNING: at foo");
  BOOST_TEST(clean_line("<30>[    0.000000] Call Trace:", 1).text == "Call Trace:");
  BOOST_TEST(clean_line("<4> Call Trace:", 1).text == " Call Trace:");
}

BOOST_AUTO_TEST_CASE(strips_syslog_prefix_and_flags_foreign_programs) {
  auto k = clean_line("Jan 11 22:31:37 myhost kernel: [  123.456] Oops: 0000 [#1] SMP", 1);
  BOOST_TEST(k.text == "Oops: 0000 [#1] SMP");
  BOOST_TEST(!k.foreign);
  auto f = clean_line("Jan  1 02:03:04 host systemd[1]: Started foo.", 1);
  BOOST_TEST(f.foreign);
  auto iso = clean_line("2024-01-01T00:00:00.123456+00:00 host kernel: BUG: soft lockup", 1);
  BOOST_TEST(iso.text == "BUG: soft lockup");
}

BOOST_AUTO_TEST_CASE(strips_lava_residue_and_carriage_return) {
  BOOST_TEST(clean_line("[    1.146063] WARNING: CPU: 0 PID: 1 at kernel/smp.c:912 f+0x3c4/0x3c8\"}", 1).text ==
             "WARNING: CPU: 0 PID: 1 at kernel/smp.c:912 f+0x3c4/0x3c8");
  BOOST_TEST(clean_line("Call Trace:\r", 1).text == "Call Trace:");
}

BOOST_AUTO_TEST_CASE(leaves_plain_text_alone) {
  BOOST_TEST(clean_line("[drm] Num pipes: 1", 1).text == "[drm] Num pipes: 1");
  BOOST_TEST(clean_line("", 1).text.empty());
  BOOST_TEST(clean_line("[", 1).text == "[");
  BOOST_TEST(clean_line("<", 1).text == "<");
}

BOOST_AUTO_TEST_CASE(finds_the_kernel_record_behind_user_space_text) {
  // A serial console shares lines with user space and paste residue.
  auto l = clean_line("/init: 384: .: [  271.403835] Kernel panic - not syncing: Attempted to kill init!", 1);
  BOOST_TEST(l.text == "Kernel panic - not syncing: Attempted to kill init!");
  BOOST_TEST(l.had_timestamp);
  auto f = clean_line("--2012-06-28 06:[  120.833075]  [<ffffffff8166bbe9>] system_call_fastpath+0x16/0x1b", 1);
  BOOST_TEST(f.text == " [<ffffffff8166bbe9>] system_call_fastpath+0x16/0x1b");
  auto c = clean_line("login: [   12.000001][ T42] BUG: foo", 1);
  BOOST_TEST(c.text == "BUG: foo");
  BOOST_TEST(c.caller_id == 42u);
  // Brackets that are not timestamps leave the line alone.
  BOOST_TEST(clean_line("foo [bar] [1.x] [ 2.]", 1).text == "foo [bar] [1.x] [ 2.]");
}

BOOST_AUTO_TEST_SUITE_END()
