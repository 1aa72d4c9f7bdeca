#include "model/truncation.h"

namespace btaudit {

std::string describe(const Truncation& t) {
  const std::string option = t.option.empty() ? std::string(", a fixed bound") : ", " + t.option;
  if (t.unit == "bytes")
    return t.what + ": " + std::to_string(t.seen) + (t.seen == 1 ? " line" : " lines") + " cut to " +
           std::to_string(t.limit) + " bytes" + option;
  if (t.unit == "ms")
    return t.what + ": " + std::to_string(t.kept) + " of " + std::to_string(t.seen) + " done within " +
           std::to_string(t.limit) + " ms" + option;
  return t.what + ": " + std::to_string(t.kept) + " of " + std::to_string(t.seen) + " kept (limit " +
         std::to_string(t.limit) + option + ")";
}

}  // namespace btaudit
