#include "analysis/stack_words.h"

#include <cstring>
#include <map>

namespace btaudit {

void read_stack_words(StackWalk& walk, MemorySource& memory) {
  walk.words.clear();
  std::map<std::uint64_t, std::size_t> frame_at;
  for (std::size_t i = 0; i < walk.frames.size(); ++i)
    if (walk.frames[i].slot) frame_at.emplace(*walk.frames[i].slot, i);
  std::map<std::uint64_t, bool> backlinks;
  for (const Transition& t : walk.transitions) backlinks[t.slot] = true;
  const auto in_a_stack = [&](std::uint64_t v) {
    for (const StackRange& r : walk.state.stacks)
      if (r.contains(v)) return true;
    return false;
  };
  for (std::size_t s = 0; s < walk.segments.size(); ++s) {
    const StackSegment& seg = walk.segments[s];
    const std::uint64_t from = seg.scan_from & ~7ULL;
    if (from >= seg.range.end) continue;
    std::vector<std::uint8_t> buf(seg.range.end - from);
    const std::size_t got = memory.read(from, buf);
    for (std::size_t k = 0; k + 8 <= got; k += 8) {
      StackWord w;
      w.slot = from + k;
      std::memcpy(&w.value, buf.data() + k, 8);
      w.segment = static_cast<std::uint32_t>(s);
      if (auto f = frame_at.find(w.slot); f != frame_at.end()) {
        w.frame = f->second;
        w.role = walk.frames[f->second].from_regs ? WordRole::RegsIp : WordRole::Frame;
      } else if (backlinks.count(w.slot)) {
        w.role = WordRole::Backlink;
      } else if (in_a_stack(w.value)) {
        w.role = WordRole::StackPointer;
      }
      walk.words.push_back(w);
    }
  }
}

}  // namespace btaudit
