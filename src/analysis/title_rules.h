// syzkaller's report conventions as data: which console line starts a report
// of which family, how each family's title is worded, and where its function
// comes from. The table follows pkg/report/linux.go of google/syzkaller (the
// dedup keys of syzbot); the matching engine is title_engine.cpp.
#pragma once
#include <string_view>
#include <vector>

namespace btaudit::title_rules {

// One step of finding a title's function in the report's lines.
enum class PartKind {
  Rip,             // the crash-site line ("RIP: 0010:foo+0x1/0x2", "pc : foo+...", "PC is at foo+...")
  RipOrInterrupt,  // Rip, or powerpc's "--- interrupt: 700 at foo+0x1/0x2"
  CallTrace,       // a "Call Trace:" / "Call trace:" / "Backtrace:" line
  Stack,           // the frames from here on, until a line that starts another stack
  Line,            // the first line matching `pattern` (line_pattern.h); its captures are frames
  AnyOf,           // the first line containing one of the '|'-separated literals in `pattern`
};

struct Part {
  PartKind kind;
  std::string_view pattern = {};
};

enum class Extractor {
  First,  // the first frame that no skip pattern names
  Stall,  // stalls and lockups: the frame just above the first dispatcher frame (syscall, work, timer)
  Hang,   // hung tasks: rtnl_lock / synchronize_rcu buckets, else the first non-waiting frame
};

struct StackRecipe {
  std::vector<Part> parts;
  std::vector<Part> parts2;            // tried when `parts` finds no frame
  std::vector<std::string_view> skip;  // family-specific skip patterns (frame_roles.h syntax)
  Extractor extractor = Extractor::First;
};

struct Format {
  std::vector<std::string_view> title;   // line patterns on successive lines; the first places the title
  std::vector<std::string_view> report;  // optional stricter patterns whose captures replace the title's
  std::string_view fmt;                  // "$1".."$9": the captures, then the stack's frames
  bool has_stack = false;
  StackRecipe stack;
  bool corrupted = false;  // the title says the report is cut or mixed
  // The first title pattern may also match the line joined with up to this many following
  // lines by '\n': a task name (comm, printed with %s) can hold line breaks, which the console
  // prints as lines of their own (syzkaller's {{TASK}} is `[\s\S]{0,100}?`, pkg/report/report.go).
  int spans_lines = 0;
};

struct Family {
  std::string_view header;                 // found anywhere in a line
  std::vector<std::string_view> suppress;  // line patterns that make a header line not a report
  std::vector<Format> formats;             // first earliest match wins
};

const std::vector<Family>& families();

}  // namespace btaudit::title_rules
