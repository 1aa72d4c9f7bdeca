// `btaudit analyze`: oops text in, reports with verdicts out.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "analysis/analyze_report.h"
#include "analysis/debug_analysis.h"
#include "analysis/debuginfo_cache.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/debuginfod_options.h"
#include "cli/profile_cache_options.h"
#include "debuginfo/kernel_debuginfo.h"
#include "input/input_error.h"
#include "input/piece_reader.h"
#include "input/read_input.h"
#include "provider/debuginfo_error.h"
#include "render/report_json.h"
#include "render/report_text.h"
#include "text/log_parser.h"

namespace btaudit {

namespace po = boost::program_options;

namespace {

void write_stdout(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

}  // namespace

int run_analyze(const std::vector<std::string>& args) {
  std::string format = "text";
  std::string colour = "auto";
  std::vector<std::string> inputs;
  std::string vmlinux;
  DebugInfoOptions debug_options;
  std::size_t max_input_mb = kDefaultMaxInputMiB;
  std::size_t max_frames = ParserLimits{}.max_frames;
  long check_budget_ms = kDefaultCheckBudgetMs;
  po::options_description opts(
      "btaudit analyze [options] FILE... ('-' reads standard input)\n"
      "Logs: console and dmesg in all its forms (-T, -d, -e, -x, --time-format, --color, --json), /dev/kmsg\n"
      "and netconsole records, syslog (RFC 3164, 5424), every journalctl -o form, crash's log -m, pstore,\n"
      "mail-reply quotes, terminal captures; LF, CRLF or CR line ends; several boots per log. Where the\n"
      "kernel's lines carry its prefix (time, caller id), start words on lines without it are another\n"
      "program's (a boot loader's, user space's) and open no report unless a stack trace follows; where\n"
      "they do not, a boot loader's lines between its banner (U-Boot, coreboot, depthcharge, TF-A) and its\n"
      "hand-over to the kernel open none; nor do the kernel build's and its tools' (kconfig, modpost,\n"
      "depmod, a checker's file:line:, checkpatch)");
  opts.add_options()("help,h", "show this help")("format,f", po::value(&format)->default_value("text"),
                                                 "output format: text or json")(
      "color", po::value(&colour)->default_value("auto"), "colour in text output: auto, always or never")(
      "vmlinux", po::value(&vmlinux),
      "kernel image with DWARF; 'auto' finds it under --debug-dir by the report's release")(
      "modules", po::value(&debug_options.module_paths),
      "module debuginfo: a lib/modules/<release> tree, a folder of .ko/.ko.debug files, or a file (repeatable)")(
      "debug-dir", po::value(&debug_options.debug_dir)->default_value("/usr/lib/debug"),
      "root of build-id and release-named debuginfo")("max-input-mb",
                                                      po::value(&max_input_mb)->default_value(kDefaultMaxInputMiB),
                                                      "refuse an input larger than this once decompressed (MiB)")(
      "max-frames", po::value(&max_frames)->default_value(max_frames),
      "frames (and traces) kept per report; the rest are counted in 'truncated'")(
      "check-budget-ms", po::value(&check_budget_ms)->default_value(kDefaultCheckBudgetMs),
      "time for one report's call-site checks with --vmlinux; frames left say unchecked_budget");
  DebuginfodOptions debuginfod;
  debuginfod.add_to(opts, true);
  ProfileCacheFlags cache;
  cache.add_to(opts);
  po::variables_map vm;
  if (!parse_command_line("analyze", args, opts, inputs, vm)) return kExitUsage;
  if (vm.count("help")) {
    std::cout << opts << "\nSee btaudit(1) for the verdict rules and the JSON contract.\n";
    return kExitOk;
  }
  if (format != "text" && format != "json") {
    std::cerr << "btaudit analyze: unknown --format '" << format << "' (use text or json)\n";
    return kExitUsage;
  }
  if (colour != "auto" && colour != "always" && colour != "never") {
    std::cerr << "btaudit analyze: unknown --color '" << colour << "' (use auto, always or never)\n";
    return kExitUsage;
  }
  if (inputs.empty()) {
    std::cerr << "btaudit analyze: no input given (name a log file, or '-' for standard input)\n";
    return kExitUsage;
  }
  if (max_input_mb == 0 || max_input_mb > (std::size_t{1} << 20) || max_frames == 0 || check_budget_ms < 0) {
    std::cerr << "btaudit analyze: --max-input-mb must be 1 to 1048576, --max-frames at least 1, "
                 "--check-budget-ms not negative\n";
    return kExitUsage;
  }
  InputLimits input_limits;
  input_limits.max_bytes = max_input_mb << 20;
  ParserLimits parser_limits;
  parser_limits.max_frames = max_frames;
  CheckBudget budget;
  budget.per_report = std::chrono::milliseconds(check_budget_ms);

  int status = kExitOk;
  std::unique_ptr<DebuginfodClient> server;
  if (!debuginfod.apply(vmlinux, debug_options, server, "analyze")) return kExitUsage;
  debug_options.cache = cache.options();
  DebugInfoCache debuginfo(vmlinux, debug_options);
  // Reports are analyzed and rendered as the parser completes them, then dropped: a log of
  // hundreds of MB holds tens of thousands of reports, and keeping them all until the end
  // only costs memory. The output is the same as rendering the whole list at once.
  const bool json = format == "json";
  // JSON goes to stdout in blocks straight from the buffer the writer fills; text in
  // blocks of rendered reports.
  constexpr std::size_t kFlushBytes = std::size_t{1} << 20;
  std::optional<JsonDocument> doc;
  if (json)
    doc.emplace([](std::string_view block) { std::fwrite(block.data(), 1, block.size(), stdout); }, kFlushBytes);
  TextStyle style;
  style.colour = colour == "always" || (colour == "auto" && ::isatty(STDOUT_FILENO));
  std::string text_out;
  std::size_t report_count = 0;
  std::size_t inputs_read = 0;
  const auto sink = [&](Report&& r) {
    analyze_report(r);
    if (KernelDebugInfo* info = debuginfo.for_report(r)) apply_debuginfo(r, *info, budget);
    ++report_count;
    if (doc) {
      doc->add(r);
    } else {
      append_text(text_out, r, style);
      if (text_out.size() >= kFlushBytes) {
        write_stdout(text_out);
        text_out.clear();
      }
    }
  };
  const auto read_failed = [&](const std::string& path) {
    // The file could not be read to its end while it was parsed: what came out of it is incomplete.
    std::cerr << "btaudit: " << path
              << ": read failed while it was being analyzed (an I/O error, or the file was truncated): "
                 "its reports are incomplete\n";
    status = kExitInputError;
  };
  for (const std::string& path : inputs) {
    // A console log in a regular file streams through in pieces; anything else is read whole.
    if (const std::unique_ptr<PieceReader> reader = PieceReader::open(path, input_limits)) {
      const auto next = [&reader]() -> std::optional<LogPiece> {
        std::optional<PieceReader::Piece> p = reader->next();
        if (!p) return std::nullopt;
        return LogPiece{p->text, std::move(p->storage), p->last};
      };
      if (parse_log_pieces(path, sink, parser_limits, next)) {
        ++inputs_read;
        if (reader->failed()) read_failed(path);
        continue;
      }
    }
    InputBuffer input;
    try {
      input = load_input(path, input_limits);
    } catch (const InputError& e) {
      std::cerr << "btaudit: " << e.what() << "\n";
      status = kExitInputError;
      continue;
    }
    const std::string name = path == "-" ? std::string("<stdin>") : path;
    ++inputs_read;
    parse_log(input.view(), name, sink, parser_limits, [&input](const char* upto) { input.release_before(upto); });
    if (input.read_failed()) read_failed(path);
  }

  if (doc) {
    doc->finish();
  } else {
    write_stdout(text_out);
    if (report_count == 0 && inputs_read > 0) {
      std::cout << "no kernel report found\n";
      std::cout.flush();
    }
  }
  std::fflush(stdout);
  for (const std::string& w : debuginfo.warnings()) std::cerr << "btaudit: warning: " << w << "\n";
  for (KernelDebugInfo* info : debuginfo.opened()) finish_profile(*info, "analyze");
  if (debuginfo.failed()) status = kExitInputError;
  return status;
}

}  // namespace btaudit
