// A picture of a dump: for each CPU, its stacks as columns in the order the
// walk visited them, frames coloured by verdict, and each backlink followed
// drawn as an arrow labelled with its slot and value. Walks that carry words
// (btaudit vmcore --format svg DUMP words) get every word of each stack drawn
// beside its frames.
#pragma once
#include <string>

#include "model/dump.h"

namespace btaudit {

std::string render_dump_svg(const DumpModel& d, int only_cpu = kAllCpus);

}  // namespace btaudit
