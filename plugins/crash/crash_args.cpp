#include "crash_args.h"

#include <cerrno>
#include <cstdlib>

namespace btaudit {

namespace {

constexpr long kMaxCpu = 8191;  // as read_irq_state

std::optional<int> parse_cpu(const std::string& s) {
  if (s.empty() || s.size() > 5) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (errno || *end || v < 0 || v > kMaxCpu) return std::nullopt;
  return static_cast<int>(v);
}

}  // namespace

std::optional<CrashRequest> parse_crash_args(const std::vector<std::string>& args, std::string& error) {
  if (args.empty()) {
    error = "give irqstate, bt, words, log or analyze";
    return std::nullopt;
  }
  CrashRequest r;
  r.action = args[0];
  if (r.action != "irqstate" && r.action != "bt" && r.action != "words" && r.action != "log" && r.action != "analyze") {
    error = "unknown subcommand '" + r.action + "' (irqstate, bt, words, log or analyze)";
    return std::nullopt;
  }
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-j") {
      r.json = true;
    } else if (r.action != "bt" && r.action != "words") {
      error = r.action + " takes no argument but -j ('" + a + "')";
      return std::nullopt;
    } else if (a == "-a") {
      r.all_cpus = true;
    } else if (a == "-c") {
      if (i + 1 == args.size() || !(r.cpu = parse_cpu(args[i + 1]))) {
        error = "-c needs a CPU number";
        return std::nullopt;
      }
      ++i;
    } else if (a.rfind("-c", 0) == 0 && a.size() > 2) {  // -c1, as crash's getopt would take it
      if (!(r.cpu = parse_cpu(a.substr(2)))) {
        error = "-c needs a CPU number";
        return std::nullopt;
      }
    } else if (!a.empty() && a[0] == '-') {
      error = "unknown option '" + a + "'";
      return std::nullopt;
    } else if (r.task) {
      error = "give one task";
      return std::nullopt;
    } else {
      r.task = a;
    }
  }
  if (int(r.all_cpus) + int(r.cpu.has_value()) + int(r.task.has_value()) > 1) {
    error = "give one of -a, -c CPU, a PID or a task address";
    return std::nullopt;
  }
  return r;
}

}  // namespace btaudit
