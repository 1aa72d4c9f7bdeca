// `btaudit analyze`: oops text in, reports with verdicts out.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "analysis/analyze_report.h"
#include "cli/commands.h"
#include "input/input_error.h"
#include "input/read_input.h"
#include "render/report_json.h"
#include "render/report_text.h"
#include "text/log_parser.h"

namespace btaudit {

namespace po = boost::program_options;

namespace {

void write_stdout(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
}

}  // namespace

int run_analyze(const std::vector<std::string>& args) {
  std::string format = "text";
  std::string colour = "auto";
  std::vector<std::string> inputs;
  po::options_description opts("btaudit analyze [options] FILE... ('-' reads standard input)");
  opts.add_options()("help,h", "show this help")(
      "format,f", po::value(&format)->default_value("text"), "output format: text or json")(
      "color", po::value(&colour)->default_value("auto"), "colour in text output: auto, always or never");
  po::options_description hidden;
  hidden.add_options()("input", po::value(&inputs));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "btaudit analyze: " << e.what() << "\n";
    return kExitUsage;
  }
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

  int status = kExitOk;
  std::vector<Report> reports;
  for (const std::string& path : inputs) {
    std::string text;
    try {
      text = read_input(path);
    } catch (const InputError& e) {
      std::cerr << "btaudit: " << e.what() << "\n";
      status = kExitInputError;
      continue;
    }
    const std::string name = path == "-" ? std::string("<stdin>") : path;
    for (Report& r : parse_log(text, name)) {
      analyze_report(r);
      reports.push_back(std::move(r));
    }
  }

  if (format == "json") {
    write_stdout(render_json(reports));
  } else {
    TextStyle style;
    style.colour = colour == "always" || (colour == "auto" && ::isatty(STDOUT_FILENO));
    if (reports.empty()) std::cout << "no kernel report found\n";
    std::cout.flush();
    for (const Report& r : reports) write_stdout(render_text(r, style));
  }
  std::fflush(stdout);
  return status;
}

}  // namespace btaudit
