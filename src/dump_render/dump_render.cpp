#include "dump_render/dump_render.h"

#include <cstdio>

#include "btaudit_version.h"
#include "dump_render/irqstate_text.h"
#include "render/hex_text.h"
#include "render/json_writer.h"
#include "render/report_json.h"

namespace btaudit {

namespace {

bool shown(const StackWalk& w, int only_cpu) {
  return only_cpu != kNoCpus && (only_cpu < 0 || w.state.cpu == only_cpu);
}

std::string banner_label(const StackFrame& f) {
  if (f.exception) return *f.exception;
  std::string s(to_string(f.stack));
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return s;
}

// JSON frames are the walk's trace entries: a RIP of registers is the crash site or a RIP line.
std::vector<std::optional<std::size_t>> json_frame_index(const StackWalk& w) {
  std::vector<std::optional<std::size_t>> index(w.frames.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < w.frames.size(); ++i)
    if (!w.frames[i].from_regs) index[i] = k++;
  return index;
}

void write_stack_frame_json(JsonWriter& w, const StackFrame& f) {
  w.begin_object();
  w.field("function", f.function);
  w.field("offset", f.function ? std::optional<std::uint64_t>(f.offset) : std::nullopt);
  w.field("size", f.function ? std::optional<std::uint64_t>(f.size) : std::nullopt);
  w.field("module", f.module);
  w.field("build_id", std::optional<std::string>());
  w.field("address", f.pc);
  w.field("printed_unreliable", !f.reliable());
  w.field("stack", to_string(f.stack));
  w.field("exception", f.exception);
  w.field("verdict", to_string(f.verdict));
  w.field("reason", reason_code(f.reason));
  w.field("line", std::uint32_t{0});
  w.field("trace", std::uint32_t{0});
  if (f.debug) write_debug_fields(w, *f.debug);
  if (f.slot) w.field("slot", *f.slot);
  w.field("trust", to_string(f.trust));
  w.end_object();
}

void write_words_json(JsonWriter& w, const StackWalk& cw) {
  const auto index = json_frame_index(cw);
  w.key("words");
  w.begin_array();
  for (const StackWord& word : cw.words) {
    const StackFrame* f = word.frame ? &cw.frames[*word.frame] : nullptr;
    w.begin_object();
    w.field("slot", word.slot);
    w.field("value", word.value);
    w.field("stack", cw.segments[word.segment].range.label());
    w.field("role", to_string(word.role));
    w.field("function", f ? f->function : std::nullopt);
    w.field("offset", f && f->function ? std::optional<std::uint64_t>(f->offset) : std::nullopt);
    w.field("size", f && f->function ? std::optional<std::uint64_t>(f->size) : std::nullopt);
    w.field("module", f ? f->module : std::nullopt);
    w.field("frame", word.frame ? index[*word.frame] : std::nullopt);
    w.key("verdict");
    if (f)
      w.value(to_string(f->verdict));
    else
      w.null();
    w.key("reason");
    if (f)
      w.value(reason_code(f->reason));
    else
      w.null();
    w.field("trust", f ? std::optional<std::string_view>(to_string(f->trust)) : std::nullopt);
    w.end_object();
  }
  w.end_array();
}

// One walk (a CPU's, or a switched-out task's) as a JSON object.
void write_walk_json(JsonWriter& w, const StackWalk& cw) {
  const CpuState& c = cw.state;
  w.begin_object();
  w.field("cpu", c.cpu >= 0 ? std::optional<int>(c.cpu) : std::nullopt);  // null: a switched-out task
  w.key("task");
  w.begin_object();
  w.field("address", c.task);
  w.field("pid", c.pid);
  w.field("comm", c.comm);
  w.end_object();
  w.field("registers_from", c.registers_from);
  w.field("sp", c.sp);
  w.key("irq_state");
  w.begin_object();
  w.field("irq_stack_top", c.irq_stack ? std::optional<std::uint64_t>(c.irq_stack->end) : std::nullopt);
  w.field("irq_stack_base", c.irq_stack ? std::optional<std::uint64_t>(c.irq_stack->begin) : std::nullopt);
  w.field("backlink", c.backlink);
  w.field("in_use", c.in_use);
  w.key("irq_count");
  if (c.irq_count)
    w.value(static_cast<std::int64_t>(*c.irq_count));
  else
    w.null();
  w.field("sp_stack", c.sp_stack);
  w.end_object();
  w.key("crash_site");
  const StackFrame* rip = nullptr;
  for (const StackFrame& f : cw.frames)
    if (f.from_regs && f.function) {
      rip = &f;
      break;
    }
  if (rip) {
    w.begin_object();
    w.field("function", rip->function);
    w.field("offset", rip->offset);
    w.field("module", rip->module);
    w.field("address", rip->pc);
    w.end_object();
  } else {
    w.null();
  }
  w.key("frames");
  w.begin_array();
  for (const StackFrame& f : cw.frames)
    if (!f.from_regs) write_stack_frame_json(w, f);
  w.end_array();
  w.key("transitions");
  w.begin_array();
  for (const Transition& t : cw.transitions) {
    w.begin_object();
    w.field("from", t.from);
    w.field("to", t.to);
    w.field("slot", t.slot);
    w.field("value", t.value);
    w.end_object();
  }
  w.end_array();
  w.key("problems");
  w.begin_array();
  for (const auto& p : c.problems) w.value(p);
  for (const auto& p : cw.problems) w.value(p);
  w.end_array();
  write_truncations_json(w, cw.truncated);
  if (!cw.words.empty()) write_words_json(w, cw);
  w.end_object();
}

// A walk's lines: RIP lines of registers, a banner at every stack switch, one line per frame.
std::string walk_lines(const StackWalk& cw) {
  std::string out;
  std::string banner;
  std::size_t transition = 0;
  for (const StackFrame& f : cw.frames) {
    if (f.from_regs) {
      // A RIP from registers: the CPU's own or a pt_regs on a stack, as the kernel's RIP: lines.
      const std::string where = f.regs ? "pt_regs at " + hex16(*f.regs) : std::string("CPU registers");
      out += "  RIP: " + describe_frame(f) + "  (" + where + ")\n";
      continue;
    }
    const std::string label = banner_label(f);
    if (label != banner) {
      if (!banner.empty() && transition < cw.transitions.size()) {
        const Transition& t = cw.transitions[transition++];
        out += "  --- " + t.from + " -> " + t.to + ": followed the backlink " + hex16(t.value) + " read at " +
               hex16(t.slot) + " ---\n";
      }
      out += "  <" + label + ">\n";
      banner = label;
    }
    char line[256];
    std::snprintf(line, sizeof line, "  %s  %-9s %s%-52s %s\n", f.slot ? hex16(*f.slot).c_str() : "                ",
                  std::string(to_string(f.verdict)).c_str(), f.reliable() ? "  " : "? ", describe_frame(f).c_str(),
                  std::string(reason_code(f.reason)).c_str());
    out += line;
  }
  for (const auto& p : cw.state.problems) out += "  problem: " + p + "\n";
  for (const auto& p : cw.problems) out += "  problem: " + p + "\n";
  for (const Truncation& t : cw.truncated) out += "  truncated: " + describe(t) + "\n";
  return out;
}

std::string cpu_header(const CpuState& c) {
  return "\nCPU " + std::to_string(c.cpu) + ": " + c.comm.value_or("?") + " (pid " +
         (c.pid ? std::to_string(*c.pid) : std::string("?")) + "), SP " + (c.sp ? hex16(*c.sp) : std::string("?")) +
         " on the " + c.sp_stack + " stack; IRQ stack " +
         (c.irq_stack ? hex16(c.irq_stack->begin) + "-" + hex16(c.irq_stack->end) : std::string("?")) + ", in use " +
         irq_in_use_text(c, "?") + "; registers from " + c.registers_from + "\n";
}

std::string task_header(const CpuState& t) {
  return "\nPID " + (t.pid ? std::to_string(*t.pid) : std::string("?")) + ": " + t.comm.value_or("?") + ", task " +
         (t.task ? hex16(*t.task) : std::string("?")) + ", switched out; thread.sp " +
         (t.sp ? hex16(*t.sp) : std::string("?")) + " on the " + t.sp_stack + " stack\n";
}

std::string dump_header(const DumpModel& d) {
  std::string out;
  out += "dump:    " + d.path + " (" + d.format + "), release " + d.release + "\n";
  out += "vmlinux: " + d.vmlinux + "\n";
  std::string unwinder;
  switch (d.unwinder) {
    case KernelUnwinder::Orc:
      unwinder = "ORC v" + std::to_string(d.orc_version) + ", " + std::to_string(d.orc_entries) + " entries";
      break;
    case KernelUnwinder::FramePointer: unwinder = "frame pointers (no ORC)"; break;
    case KernelUnwinder::Guess: unwinder = "the guess unwinder (no ORC, no frame pointers)"; break;
  }
  out += "layout:  " + d.layout + "; " + unwinder + "; " + std::to_string(d.modules) + " modules\n";
  for (const auto& n : d.layout_notes) out += "note:    " + n + "\n";
  for (const auto& n : d.walk_notes) out += "note:    " + n + "\n";
  for (const auto& n : d.notes) out += "note:    " + n + "\n";
  return out;
}

// One line of the words view.
std::string word_line(const StackWalk& cw, const StackWord& word,
                      const std::vector<std::optional<std::size_t>>& index) {
  std::string what;
  if (word.frame) {
    const StackFrame& f = cw.frames[*word.frame];
    if (f.from_regs) {
      what = "RIP " + describe_frame(f) + "  (pt_regs at " + (f.regs ? hex16(*f.regs) : std::string("?")) + ")";
    } else {
      char buf[320];
      std::snprintf(buf, sizeof buf, "#%-3zu %-9s %s%-52s %s", index[*word.frame].value_or(0),
                    std::string(to_string(f.verdict)).c_str(), f.reliable() ? "  " : "? ", describe_frame(f).c_str(),
                    std::string(reason_code(f.reason)).c_str());
      what = buf;
    }
  } else if (word.role == WordRole::Backlink) {
    for (const Transition& t : cw.transitions)
      if (t.slot == word.slot) what = "backlink: " + t.from + " -> " + t.to;
  } else if (word.role == WordRole::StackPointer) {
    for (const StackRange& r : cw.state.stacks)
      if (r.contains(word.value)) what = "-> " + r.label() + " stack";
  }
  std::string line = "  " + hex16(word.slot) + ": " + hex16(word.value);
  if (!what.empty()) line += "  " + what;
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

std::string words_lines(const StackWalk& cw) {
  std::string out;
  const auto index = json_frame_index(cw);
  std::optional<std::uint32_t> segment;
  for (const StackWord& word : cw.words) {
    if (segment != word.segment) {
      segment = word.segment;
      const StackSegment& s = cw.segments[word.segment];
      out += "  <" + s.range.label() + "> " + hex16(s.range.begin) + "-" + hex16(s.range.end) + ", from " +
             hex16(s.scan_from) + "\n";
    }
    out += word_line(cw, word, index);
  }
  for (const auto& p : cw.state.problems) out += "  problem: " + p + "\n";
  for (const auto& p : cw.problems) out += "  problem: " + p + "\n";
  return out;
}

}  // namespace

std::string describe_frame(const StackFrame& f) {
  char buf[64];
  std::string s;
  if (f.function) {
    std::snprintf(buf, sizeof buf, "+0x%llx/0x%llx", static_cast<unsigned long long>(f.offset),
                  static_cast<unsigned long long>(f.size));
    s = *f.function + buf;
  } else {
    s = "0x" + hex16(f.pc);
  }
  if (f.module) s += " [" + *f.module + "]";
  return s;
}

std::string render_dump_json(const DumpModel& d, int only_cpu) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("btaudit", std::string_view(kBtauditVersion));
  w.key("dump");
  w.begin_object();
  w.field("path", d.path);
  w.field("format", d.format);
  w.field("release", d.release);
  w.field("vmlinux", d.vmlinux);
  w.field("kaslr_offset", d.kaslr);
  w.field("layout", d.layout);
  w.field("irq_stack_size", d.irq_stack_size);
  w.field("thread_size", d.thread_size);
  w.field("orc_version", d.orc_version);
  w.field("orc_entries", static_cast<std::uint64_t>(d.orc_entries));
  w.field("unwinder", to_string(d.unwinder));
  w.key("notes");
  w.begin_array();
  for (const auto& n : d.layout_notes) w.value(n);
  for (const auto& n : d.walk_notes) w.value(n);
  for (const auto& n : d.notes) w.value(n);
  w.end_array();
  w.end_object();
  w.key("cpus");
  w.begin_array();
  for (const StackWalk& cw : d.cpus)
    if (shown(cw, only_cpu)) write_walk_json(w, cw);
  w.end_array();
  w.key("tasks");
  w.begin_array();
  for (const StackWalk& tw : d.tasks) write_walk_json(w, tw);
  w.end_array();
  w.key("reports");
  w.begin_array();
  for (const Report& r : d.reports) write_report_json(w, r);
  w.end_array();
  w.key("crosscheck");
  w.begin_array();
  for (const Crosscheck& c : d.checks) {
    w.begin_object();
    w.field("report", static_cast<std::uint64_t>(c.report));
    w.field("cpu", c.cpu);
    w.field("scope", c.scope);
    w.field("printed_frames", static_cast<std::uint64_t>(c.printed_frames));
    w.field("matched_frames", static_cast<std::uint64_t>(c.matched_frames));
    w.field("convention", c.convention);
    w.key("mismatches");
    w.begin_array();
    for (const CrosscheckMismatch& m : c.mismatches) {
      w.begin_object();
      w.field("frame", m.frame);
      w.field("index", static_cast<std::uint64_t>(m.printed_index));
      w.field("problem", m.problem);
      w.end_object();
    }
    w.end_array();
    w.key("explained");
    w.begin_array();
    for (const CrosscheckMismatch& m : c.explained) {
      w.begin_object();
      w.field("frame", m.frame);
      w.field("index", static_cast<std::uint64_t>(m.printed_index));
      w.field("why", m.problem);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out.push_back('\n');
  return out;
}

std::string render_dump_text(const DumpModel& d, const TextStyle& style, int only_cpu, bool with_reports) {
  std::string out = dump_header(d);
  for (const StackWalk& cw : d.cpus) {
    if (!shown(cw, only_cpu)) continue;
    out += cpu_header(cw.state);
    out += walk_lines(cw);
  }
  for (const StackWalk& tw : d.tasks) {
    out += task_header(tw.state);
    out += walk_lines(tw);
  }
  if (!with_reports) return out;
  out += "\n";
  out += render_dump_reports_text(d, style);
  return out;
}

std::string render_dump_reports_text(const DumpModel& d, const TextStyle& style) {
  std::string out;
  if (d.reports.empty()) out += "no kernel report in the dump's log\n";
  for (const Report& r : d.reports) append_text(out, r, style);
  for (const Crosscheck& c : d.checks) {
    out += "cross-check of report " + std::to_string(c.report + 1) + " with CPU " + std::to_string(c.cpu) +
           "'s stacks at dump time: " + std::to_string(c.matched_frames) + "/" + std::to_string(c.printed_frames) +
           " printed frames found in order with the same '?' mark and stack (" + c.scope + ")\n";
    for (const CrosscheckMismatch& m : c.mismatches) out += "  " + m.frame + ": " + m.problem + "\n";
    if (!c.explained.empty()) out += "  as the trace was printed (" + c.convention + "):\n";
    for (const CrosscheckMismatch& m : c.explained) out += "    " + m.frame + ": " + m.problem + "\n";
  }
  return out;
}

std::string render_words_text(const DumpModel& d, int only_cpu) {
  std::string out = dump_header(d);
  for (const StackWalk& cw : d.cpus) {
    if (!shown(cw, only_cpu)) continue;
    out += cpu_header(cw.state);
    out += words_lines(cw);
  }
  for (const StackWalk& tw : d.tasks) {
    out += task_header(tw.state);
    out += words_lines(tw);
  }
  return out;
}

}  // namespace btaudit
