// The forms log viewers give the kernel's lines, each read back to the kernel's own text:
// util-linux dmesg's time formats and -x (sys-utils/dmesg.c, print_record), crash's `log -m`,
// mail quotes, terminal colours (dmesg --color, journalctl), dmesg --json and journalctl's short
// forms (systemd src/shared/logs-show.c).
// Every form is tried on every message below, so a form is covered for all of them at once;
// the real programs' output is compared whole in tests/corpus/metamorphic.py.
#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "text/line_cleaner.h"
#include "text/log_parser.h"
#include "text/log_transport.h"
#include "text/terminal_escapes.h"

using namespace btaudit;

namespace {

struct Form {
  std::string_view name;
  std::string_view prefix;  // put before the message
  bool kernel_time;         // the cleaner reads it as a kernel record's time
  // Where a caller id goes: after the prefix (a console's "[T1] " at the message's start), or
  // at this offset inside it (crash prints it between the time and the level).
  std::size_t caller_at = std::string_view::npos;
};

// One row per form, as the program prints it (the format named in a comment).
const std::vector<Form> kDmesgForms = {
    {"time (default)", "[   54.508689] ", true},                       // "[%5ld.%06ld] "
    {"time and delta (-d)", "[   54.508689 <    0.000000>] ", true},   // "[%5ld.%06ld <%12.06f>] "
    {"delta alone (--time-format=delta)", "[<    0.002307>] ", true},  // "[<%12.06f>] "
    {"wide delta", "[<123456.000001>] ", true},                        // a gap of over a day
    {"reltime delta (-e)", "[  +0.008206] ", true},                    // "[  %+8.06f] "
    {"reltime wide delta (-e)", "[ +12.008206] ", true},               // "[ %+9.06f] "
    {"reltime minute (-e)", "[Dec 3 16:37] ", true},                   // "[%b%e %H:%M] "
    {"reltime minute, two-digit day", "[Dec13 09:05] ", true},         //
    {"ctime (-T)", "[Thu Dec  3 16:37:40 2026] ", true},               // "[%s] "
    {"ctime and delta (-T -d)", "[Thu Dec  3 16:37:40 2026 <    0.002307>] ", true},
    {"iso (--time-format=iso)", "2026-12-03T16:37:40,508689+00:00 ", true},  // iso_8601_time
    {"decode (-x)", "kern  :warn  : [   54.508689] ", true},                 // "%-6s:%-6s: "
    {"decode, no time (-x -t)", "kern  :warn  : ", false},
    {"decode, iso (-x --time-format=iso)", "kern  :err   : 2026-12-03T16:37:40,508689+00:00 ", true},
    {"decode, authpriv", "authpriv:notice: [   54.508689] ", true},
    // crash's `log -m` (crash printk.c, dump_record: "<%x>" of the level, behind the time).
    // Its -c puts the caller id between the two: "[   54.508689] [ T4991] <4>".
    {"crash log -m, -c -m", "[   54.508689] <4>", true, 15},
    // A mail reply's quote (RFC 3676 section 4.5), one level and two, before any of the above.
    {"quoted", "> ", false},
    {"quoted console", "> [   54.508689] ", true},
    {"quoted twice", "> > [   54.508689] ", true},
    {"quoted twice, no space", ">> [   54.508689 <    0.000000>] ", true},
    {"quoted syslog", "> Jan  1 00:00:00 host kernel: [   54.508689] ", true},
};

const std::vector<std::string> kMessages = {
    "BUG: KASAN: use-after-free in crc_itu_t+0x1d5/0x2a0",
    "WARNING: CPU: 0 PID: 4991 at kernel/smp.c:912 f+0x3c4/0x3c8",
    " dump_stack_lvl+0x44/0x5c",
    " ? __schedule+0x2f4/0x8a0",
    "Call Trace:",
    " <TASK>",
    "usb 1-1: new high-speed USB device number 2 using ehci-pci",
    "",
};

}  // namespace

BOOST_AUTO_TEST_SUITE(log_forms)

BOOST_AUTO_TEST_CASE(every_viewer_form_reads_as_the_kernels_message) {
  for (const Form& f : kDmesgForms) {
    for (const std::string& m : kMessages) {
      const std::string line = std::string(f.prefix) + m;
      const CleanLine c = clean_line(line, 1);
      BOOST_TEST_CONTEXT(f.name << ": " << line) {
        BOOST_TEST(c.text == m);
        BOOST_TEST(!c.foreign);
        if (f.kernel_time) BOOST_TEST(c.had_timestamp);
        // The general loop agrees with the fast paths.
        BOOST_TEST(clean_line_general(line, 1).text == c.text);
      }
      // A caller id after the time, as dmesg prints one (util-linux 2.39+) or a console shows it.
      std::string with_caller = std::string(f.prefix) + "[ T4991] " + m;
      if (f.caller_at != std::string_view::npos)
        with_caller = std::string(f.prefix).insert(f.caller_at, "[ T4991] ") + m;
      const CleanLine cc = clean_line(with_caller, 1);
      BOOST_TEST_CONTEXT(f.name << ": " << with_caller) {
        BOOST_TEST(cc.text == m);
        BOOST_TEST(cc.caller_kind == 'T');
        BOOST_TEST(cc.caller_id == 4991U);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(near_misses_of_the_dmesg_forms_are_left_as_text) {
  // Old x86 and ARM frames open with "[<": an address, not a delta.
  for (const std::string_view line :
       {"[<ffffffff8020b395>] system_call+0x7e/0x83", "[<80de0078>] (f) from [<80de0100>]",
        "[<    0.002307] missing bracket", "[Dec 3 16:37 no bracket", "[Dec 33 16:3x] x", "[  +0.008206 unclosed",
        "kern  :warn   no colon", "2026-12-03T16:37:40.508689+00:00 x"}) {
    BOOST_TEST_CONTEXT(line) {
      const CleanLine c = clean_line(line, 1);
      BOOST_TEST(!c.had_timestamp);
      BOOST_TEST(clean_line_general(line, 1).text == c.text);
    }
  }
  // RFC 3339 syslog keeps its host and program (a '.' before the fraction, not dmesg's ',').
  const CleanLine s = clean_line("2024-01-01T00:00:00.123456+00:00 host systemd[1]: Started x.", 1);
  BOOST_TEST(s.foreign);
}

BOOST_AUTO_TEST_CASE(terminal_escapes_are_removed_as_a_terminal_shows_the_line) {
  // dmesg --color: the time green, a subsystem head brown, the message in its level's colour.
  BOOST_TEST(strip_terminal_escapes("\x1b[32m[   54.5] \x1b[0m\x1b[33mBUG: \x1b[0m\x1b[1mKASAN: x\x1b[0m\n") ==
             "[   54.5] BUG: KASAN: x\n");
  // journalctl: the message of a warning in bold colour behind the plain head.
  BOOST_TEST(strip_terminal_escapes("Jan 01 00:00:00 host kernel: \x1b[0;1;38;5;185mWARNING: x\x1b[0m") ==
             "Jan 01 00:00:00 host kernel: WARNING: x");
  // A prompt's window title (OSC, ended by BEL or ST), charset and cursor sequences.
  BOOST_TEST(strip_terminal_escapes("\x1b]0;root@host: ~\x07\x1b[01;32mroot@host\x1b[00m:~# dmesg") ==
             "root@host:~# dmesg");
  BOOST_TEST(strip_terminal_escapes("\x1b]2;title\x1b\\a\x1b(Bb\x1b"
                                    "7c\x1b[?25hd\x1b[2Ke") == "abcde");
  // A sequence the line cuts short ends there: the next line is whole, line ends are kept.
  BOOST_TEST(strip_terminal_escapes("a\x1b[31\nb\r\nc\x1b]0;t\rd\x1b") == "a\nb\r\nc\rd");
  // systemd's status on a shared console stays whole: the cleaner reads it as user space's.
  const std::string status = "[\x1b[0;32m  OK  \x1b[0m] Started foo.service.";
  BOOST_TEST(strip_terminal_escapes(status) == status);
  BOOST_TEST(clean_line(status, 1).foreign);
  BOOST_TEST(!has_terminal_escape("plain text [  1.0] x"));
  BOOST_TEST(has_terminal_escape("x\x1b"));
}

BOOST_AUTO_TEST_CASE(a_coloured_dmesg_reads_as_the_plain_one) {
  const std::string plain =
      "[   54.508689] BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
      "[   54.508700] Call Trace:\n"
      "[   54.508701]  <TASK>\n"
      "[   54.508702]  dump_stack_lvl+0x44/0x5c\n"
      "[   54.508703]  ? __schedule+0x2f4/0x8a0\n"
      "[   54.508704]  </TASK>\n";
  std::string coloured;
  for (std::string_view rest = plain; !rest.empty();) {
    const std::size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    coloured +=
        "\x1b[32m" + std::string(line.substr(0, 15)) + "\x1b[0m\x1b[31m" + std::string(line.substr(15)) + "\x1b[0m\n";
    rest.remove_prefix(nl + 1);
  }
  const auto a = parse_log(plain, "plain");
  const auto b = parse_log(coloured, "coloured");
  BOOST_TEST_REQUIRE(a.size() == 1U);
  BOOST_TEST_REQUIRE(b.size() == 1U);
  BOOST_TEST((b[0].header == a[0].header));
  BOOST_TEST_REQUIRE(b[0].frames.size() == a[0].frames.size());
  for (std::size_t i = 0; i < a[0].frames.size(); ++i) BOOST_TEST((b[0].frames[i].function == a[0].frames[i].function));
}

BOOST_AUTO_TEST_CASE(journalctl_short_forms_are_decoded_to_console_lines) {
  struct Row {
    std::string_view name;
    std::string_view head;   // before "host kernel: "
    std::string_view stamp;  // what the decoded line opens with
  };
  const Row rows[] = {
      {"short-monotonic", "[   54.508689]", "[   54.508689] "},
      {"short-monotonic, wide", "[123456.508689]", "[123456.508689] "},
      {"short-delta", "[   54.508689 <    0.000012>]", "[   54.508689] "},
      {"short-full", "Thu 2026-12-03 16:37:40 UTC", ""},
      {"short-unix", "1764779860.508689", ""},
  };
  for (const Row& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      std::string log = "-- Boot 0123456789abcdef0123456789abcdef --\n";
      for (const std::string& m : kMessages) log += std::string(r.head) + " myhost kernel: " + m + "\n";
      log += std::string(r.head) + " myhost systemd[1]: Started foo.service.\n";
      BOOST_TEST((detect_transport(log) == Transport::JournalShort));
      std::string storage;
      const std::string_view decoded = decode_transport(log, storage);
      std::string want = "-- Boot 0123456789abcdef0123456789abcdef --\n";
      for (const std::string& m : kMessages) want += std::string(r.stamp) + m + "\n";
      BOOST_TEST(decoded == want);  // the other program's record is dropped
    }
  }
}

BOOST_AUTO_TEST_CASE(dmesg_json_records_become_console_lines) {
  // util-linux's layout (lib/jsonwrt.c): pretty-printed, the time raw as "%5ld.%06ld".
  const std::string pretty =
      "{\n   \"dmesg\": [\n      {\n         \"pri\": 4,\n         \"time\":    54.508689,\n"
      "         \"caller\": \"T4991\",\n         \"msg\": \"BUG: KASAN: x\"\n      },{\n"
      "         \"fac\": \"kern\",\n         \"pri\": \"warn\",\n         \"time\": 123456.000001,\n"
      "         \"msg\": \" dump_stack_lvl+0x44/0x5c\\n ? f+0x1/0x2\"\n      }\n   ]\n}\n";
  BOOST_TEST((detect_transport(pretty) == Transport::DmesgJson));
  std::string storage;
  BOOST_TEST(decode_transport(pretty, storage) ==
             "[   54.508689] [ T4991] BUG: KASAN: x\n"
             "[123456.000001]  dump_stack_lvl+0x44/0x5c\n"
             "[123456.000001]  ? f+0x1/0x2\n");
  // Compact, as other tools write it; a record without a time; a damaged record ends the log.
  const std::string compact =
      R"({"dmesg":[{"pri":4,"msg":"Call Trace:"},{"pri":4,"time":1.5,"msg":" <TASK>"},{"msg":"x)";
  storage.clear();
  BOOST_TEST(decode_transport(compact, storage) == "Call Trace:\n[         1.5]  <TASK>\n");
  // Not a dmesg document: another JSON object, or a console line that opens with a brace.
  BOOST_TEST((detect_transport("{\"other\": 1}\n") == Transport::Console));
  BOOST_TEST((detect_transport("{ dmesg }\n") == Transport::Console));
}

BOOST_AUTO_TEST_CASE(journalctl_export_and_verbose_records_become_console_lines) {
  // -o export: fields, a blank line between records; a message with a line end is a binary field
  // (its name, a 64-bit little-endian size, the bytes). Another program's record is dropped.
  std::string message = "BUG: x\n second line";
  std::string size(8, '\0');
  size[0] = static_cast<char>(message.size());
  const std::string exported =
      "__CURSOR=s=1;i=1\n_TRANSPORT=kernel\n_SOURCE_MONOTONIC_TIMESTAMP=54508689\nMESSAGE\n" + size + message +
      "\n\n__CURSOR=s=1;i=2\n_TRANSPORT=syslog\nMESSAGE=not the kernel's\n\n"
      "__CURSOR=s=1;i=3\n_TRANSPORT=kernel\n_SOURCE_MONOTONIC_TIMESTAMP=7\nMESSAGE=Call Trace:\n";
  BOOST_TEST((detect_transport(exported) == Transport::JournalFields));
  std::string storage;
  BOOST_TEST(decode_transport(exported, storage) ==
             "[   54.508689] BUG: x\n[   54.508689]  second line\n[    0.000007] Call Trace:\n");
  // A binary field whose size runs past the end: what precedes it is kept, nothing after is read.
  std::string cut =
      "__CURSOR=s=1\n_TRANSPORT=kernel\nMESSAGE=first\n\n__CURSOR=s=2\nMESSAGE\n" + std::string(8, '\xff');
  storage.clear();
  BOOST_TEST(decode_transport(cut, storage) == "first\n");
  // -o verbose: each record under its head, its fields indented by four spaces.
  const std::string verbose =
      "Wed 2025-12-03 16:38:34.508689 UTC [s=b859;i=1;b=0123;m=33fbc91;t=6450e;x=d23a]\n"
      "    _TRANSPORT=kernel\n    _SOURCE_MONOTONIC_TIMESTAMP=54508689\n    MESSAGE=BUG: KASAN: x\n"
      "Wed 2025-12-03 16:38:34.516895 UTC [s=b859;i=2;b=0123;m=33fdc9f;t=6450e;x=d23b]\n"
      "    _TRANSPORT=kernel\n    _SOURCE_MONOTONIC_TIMESTAMP=54516895\n    MESSAGE= dump_stack_lvl+0x44/0x5c\n";
  BOOST_TEST((detect_transport(verbose) == Transport::JournalFields));
  storage.clear();
  BOOST_TEST(decode_transport(verbose, storage) ==
             "[   54.508689] BUG: KASAN: x\n[   54.516895]  dump_stack_lvl+0x44/0x5c\n");
}

BOOST_AUTO_TEST_CASE(journalctl_json_in_each_framing_becomes_console_lines) {
  const std::string want = "[   54.508689] BUG: KASAN: x\n";
  const std::string record =
      R"({"_TRANSPORT":"kernel","_SOURCE_MONOTONIC_TIMESTAMP":"54508689","MESSAGE":"BUG: KASAN: x"})";
  const std::string forms[] = {
      record + "\n",               // -o json
      "\x1e" + record + "\n",      // -o json-seq (RFC 7464)
      "data: " + record + "\n\n",  // -o json-sse
      "{\n\t\"_TRANSPORT\" : \"kernel\",\n\t\"_SOURCE_MONOTONIC_TIMESTAMP\" : \"54508689\",\n"
      "\t\"MESSAGE\" : \"BUG: KASAN: x\"\n}\n",  // -o json-pretty
  };
  for (const std::string& form : forms) {
    BOOST_TEST_CONTEXT(form) {
      BOOST_TEST((detect_transport(form) == Transport::JournalJson));
      std::string storage;
      BOOST_TEST(decode_transport(form, storage) == want);
    }
  }
}

BOOST_AUTO_TEST_CASE(netconsole_records_with_the_release_and_sysdata_read_as_kmsg_records) {
  const std::string log =
      "6.1.0-57-cloud-amd64,4,1234,54508689,-,caller=T4991;BUG: KASAN: x\n"
      " cpu=0\n"
      " taskname=syz-executor\n"
      "6.1.0-57-cloud-amd64,4,1235,54508690,c;Call Trace:\n"
      " SUBSYSTEM=pci\n";
  BOOST_TEST((detect_transport(log) == Transport::Kmsg));
  std::string storage;
  BOOST_TEST(decode_transport(log, storage) ==
             "4,1234,54508689,-,caller=T4991;BUG: KASAN: x\n4,1235,54508690,c;Call Trace:\n");
  BOOST_TEST(netconsole_release_length("6.1.0-57-cloud-amd64,4,1,2,-;x") == 21U);
  BOOST_TEST(netconsole_release_length("4,1,2,-;x") == 0U);      // a record's priority: digits alone
  BOOST_TEST(netconsole_release_length("1a80,00000000") == 0U);  // a hex dump: no '.'
}

BOOST_AUTO_TEST_CASE(a_console_whose_lines_name_devices_is_not_taken_for_a_journal) {
  // "usb 1-1: ..." reads as host "usb", program "1-1": a console's lines share no host word and
  // name no kernel program.
  const std::string console =
      "[    1.000000] usb 1-1: new high-speed USB device number 2 using ehci-pci\n"
      "[    1.000001] usb 1-1: New USB device found, idVendor=46f4\n"
      "[    1.000002] pci 0000:00:01.0: [8086:7000] type 00 class 0x060100\n"
      "[    1.000003] ata1: SATA link down\n"
      "[    1.000004] Command line: console=ttyS0\n";
  BOOST_TEST((detect_transport(console) == Transport::Console));
  // Nor is a syslog file (RFC 3164 heads are the cleaner's, with their foreign programs).
  BOOST_TEST(
      (detect_transport("Jan  1 00:00:00 host kernel: a\nJan  1 00:00:01 host kernel: b\n") == Transport::Console));
}

BOOST_AUTO_TEST_SUITE_END()
