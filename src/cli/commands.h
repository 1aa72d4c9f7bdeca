// Entry points of the CLI's subcommands. Each takes the arguments after the
// subcommand name and returns the process exit status.
#pragma once
#include <string>
#include <vector>

namespace btaudit {

// Exit statuses shared by every subcommand (documented in man/btaudit.1).
inline constexpr int kExitOk = 0;
inline constexpr int kExitInputError = 2;  // an input could not be read; the others were still analyzed
inline constexpr int kExitUsage = 64;

int run_analyze(const std::vector<std::string>& args);
int run_vmcore(const std::vector<std::string>& args);
int run_batch_command(const std::vector<std::string>& args);
int run_buckets(const std::vector<std::string>& args);
int run_merge(const std::vector<std::string>& args);
int run_report(const std::vector<std::string>& args);

}  // namespace btaudit
