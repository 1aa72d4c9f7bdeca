// The crash extension's command line (plugins/crash/crash_args.h): what each
// subcommand takes, and a one-line usage error for everything else.
#include "crash_args.h"

#include <boost/test/unit_test.hpp>

namespace {

using namespace btaudit;

std::optional<CrashRequest> parse(std::vector<std::string> args, std::string* error = nullptr) {
  std::string e;
  auto r = parse_crash_args(args, e);
  if (error) *error = e;
  return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(crash_args)

BOOST_AUTO_TEST_CASE(every_subcommand_takes_j) {
  for (const char* a : {"irqstate", "bt", "words", "log", "analyze"}) {
    auto r = parse({a, "-j"});
    BOOST_REQUIRE(r);
    BOOST_TEST(r->action == a);
    BOOST_TEST(r->json);
  }
}

BOOST_AUTO_TEST_CASE(bt_and_words_take_one_target) {
  for (const char* a : {"bt", "words"}) {
    BOOST_TEST(parse({a, "-a"})->all_cpus);
    BOOST_TEST(*parse({a, "-c", "3"})->cpu == 3);
    BOOST_TEST(*parse({a, "-c3"})->cpu == 3);  // as crash's getopt would take it
    BOOST_TEST(*parse({a, "1234"})->task == "1234");
    BOOST_TEST(*parse({a, "ffff888100000000", "-j"})->task == "ffff888100000000");
    BOOST_TEST(!parse({a})->cpu.has_value());
  }
}

BOOST_AUTO_TEST_CASE(usage_errors_say_what_is_wrong) {
  std::string e;
  BOOST_TEST(!parse({}, &e));
  BOOST_TEST(e == "give irqstate, bt, words, log or analyze");
  BOOST_TEST(!parse({"backtrace"}, &e));
  BOOST_TEST(e.find("unknown subcommand 'backtrace'") == 0);
  BOOST_TEST(!parse({"log", "-a"}, &e));
  BOOST_TEST(e.find("log takes no argument but -j") == 0);
  BOOST_TEST(!parse({"bt", "-c"}, &e));
  BOOST_TEST(e == "-c needs a CPU number");
  BOOST_TEST(!parse({"words", "-c", "x"}, &e));
  BOOST_TEST(!parse({"bt", "-c", "99999"}, &e));
  BOOST_TEST(!parse({"bt", "-q"}, &e));
  BOOST_TEST(e == "unknown option '-q'");
  BOOST_TEST(!parse({"bt", "1", "2"}, &e));
  BOOST_TEST(e == "give one task");
  BOOST_TEST(!parse({"words", "-a", "-c", "1"}, &e));
  BOOST_TEST(e == "give one of -a, -c CPU, a PID or a task address");
}

BOOST_AUTO_TEST_SUITE_END()
