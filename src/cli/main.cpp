// btaudit's command line: dispatches to a subcommand and is the one place
// where exceptions turn into a one-line message and an exit status.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "btaudit_version.h"
#include "cli/allocator_pages.h"
#include "cli/commands.h"

namespace {

void usage(std::ostream& os) {
  os << "usage: btaudit <command> [options]\n"
        "\n"
        "commands:\n"
        "  analyze FILE...   find kernel reports in console logs and audit every backtrace frame\n"
        "  vmcore DUMP       a crash dump's registers, kernel log and the reports in it\n"
        "  batch PATH...     a corpus of logs over all cores: NDJSON reports, dedup buckets, SQLite\n"
        "  buckets           the top buckets of a batch database or of NDJSON outputs\n"
        "  merge FILE...     NDJSON outputs of many batch runs into one bucket summary\n"
        "  report            a triage page (one HTML file) of a batch database or of NDJSON outputs\n"
        "  version           print the version\n"
        "\n"
        "'btaudit <command> --help' describes a command; man btaudit describes them all.\n";
}

}  // namespace

int main(int argc, char** argv) {
  btaudit::use_huge_allocator_pages();
  if (argc < 2) {
    usage(std::cerr);
    return btaudit::kExitUsage;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "analyze") return btaudit::run_analyze(args);
    if (command == "vmcore") return btaudit::run_vmcore(args);
    if (command == "batch") return btaudit::run_batch_command(args);
    if (command == "buckets") return btaudit::run_buckets(args);
    if (command == "merge") return btaudit::run_merge(args);
    if (command == "report") return btaudit::run_report(args);
    if (command == "version" || command == "--version") {
      std::cout << "btaudit " << btaudit::kBtauditVersion << "\n";
      return btaudit::kExitOk;
    }
    if (command == "help" || command == "--help" || command == "-h") {
      usage(std::cout);
      return btaudit::kExitOk;
    }
    std::cerr << "btaudit: unknown command '" << command << "'\n";
    usage(std::cerr);
    return btaudit::kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << "btaudit: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "btaudit: " << e.what() << "\n";
    return 1;
  }
}
