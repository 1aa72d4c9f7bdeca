// Parses a subcommand's arguments, the same way for every subcommand: the named
// options, plus every other word collected into `positional`. A usage error is
// printed as one line, "btaudit COMMAND: what", and returns false.
#pragma once
#include <boost/program_options.hpp>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

namespace btaudit {

inline bool parse_command_line(std::string_view command, const std::vector<std::string>& args,
                               const boost::program_options::options_description& named,
                               std::vector<std::string>& positional, boost::program_options::variables_map& vm,
                               const boost::program_options::options_description* hidden_options = nullptr) {
  namespace po = boost::program_options;
  po::options_description hidden;
  hidden.add_options()("positional-words", po::value(&positional));
  po::options_description all;
  all.add(named).add(hidden);
  if (hidden_options) all.add(*hidden_options);
  po::positional_options_description pos;
  pos.add("positional-words", -1);
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "btaudit " << command << ": " << e.what() << "\n";
    return false;
  }
  return true;
}

}  // namespace btaudit
