// Where debuginfo missing from this machine comes from: a source that hands
// out files by build id (a debuginfod server, through debuginfod_client.h).
// Kernel debuginfo is looked up by the build id a dump's VMCOREINFO, a log's
// CPU: line or trace, or the release's installed image and modules name.
#pragma once
#include <string>
#include <string_view>

namespace btaudit {

class BuildIdSource {
 public:
  virtual ~BuildIdSource() = default;
  // A local path to the debuginfo (DWARF and symbols) of the ELF file with this
  // build id (lowercase hex). `what` names it in messages ("vmlinux 6.1.0-57",
  // "module labcrash"). Throws DebugInfoError with one line on any failure.
  virtual std::string debuginfo(std::string_view build_id, std::string_view what) = 0;
  // Where files come from, for messages ("debuginfod at http://...").
  virtual std::string describe() const = 0;
};

}  // namespace btaudit
