// A picture of a dump: for each CPU, its stacks as columns in the order the
// walk visited them, frames coloured by verdict, and each backlink followed
// drawn as an arrow labelled with its slot and value.
#pragma once
#include <string>

#include "analysis/dump_analysis.h"

namespace btaudit {

std::string render_dump_svg(const DumpAnalysis& a);

}  // namespace btaudit
