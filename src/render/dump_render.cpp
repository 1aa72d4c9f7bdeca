#include "render/dump_render.h"

#include <cstdio>

#include "btaudit_version.h"
#include "render/hex_text.h"
#include "render/irqstate_text.h"
#include "render/json_writer.h"
#include "render/report_json.h"

namespace btaudit {

namespace {

std::string stack_label(const Frame& f) {
  if (f.exception) return *f.exception;
  std::string s(to_string(f.stack));
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return s;
}

std::string describe(const Frame& f) {
  char buf[64];
  std::string s;
  if (f.function) {
    std::snprintf(buf, sizeof buf, "+0x%llx/0x%llx", static_cast<unsigned long long>(f.offset.value_or(0)),
                  static_cast<unsigned long long>(f.size.value_or(0)));
    s = *f.function + buf;
  } else if (f.address) {
    s = "0x" + hex16(*f.address);
  }
  if (f.module) s += " [" + *f.module + "]";
  return s;
}

// One walk (a CPU's, or a switched-out task's) as a JSON object.
void write_walk_json(JsonWriter& w, const CpuWalk& cw, const Report& r) {
  const CpuIrqState& c = cw.state;
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
  if (r.rip) {
    w.begin_object();
    w.field("function", r.rip->function);
    w.field("offset", r.rip->offset);
    w.field("module", r.rip->module);
    w.field("address", r.rip->address);
    w.end_object();
  } else {
    w.null();
  }
  w.key("frames");
  w.begin_array();
  for (const Frame& f : r.frames) write_frame_json(w, f);
  w.end_array();
  w.key("transitions");
  w.begin_array();
  for (const WalkTransition& t : cw.transitions) {
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
  write_truncations_json(w, r.truncated);
  w.end_object();
}

// A walk's lines: RIP lines of registers, a banner at every stack switch, one line per frame.
std::string walk_lines(const CpuWalk& cw, const Report& r) {
  std::string out;
  std::string banner;
  std::size_t transition = 0;
  std::size_t k = 0;  // index into r.frames: the walk's entries that are not register RIPs
  for (const SymbolizedFrame& s : cw.frames) {
    if (s.frame.from_regs) {
      // A RIP from registers: the CPU's own (slot 0) or a pt_regs on a stack, as the kernel's RIP: lines.
      std::string where = s.frame.slot ? "pt_regs at " + hex16(s.frame.slot - 128) : std::string("CPU registers");
      char buf[64];
      std::snprintf(buf, sizeof buf, "+0x%llx/0x%llx", static_cast<unsigned long long>(s.offset),
                    static_cast<unsigned long long>(s.size));
      const std::string fn = s.function ? *s.function + buf : "0x" + hex16(s.frame.address);
      out += "  RIP: ";
      out += fn;
      if (s.module) out.append(" [").append(*s.module).append("]");
      out.append("  (").append(where).append(")\n");
      continue;
    }
    if (k >= r.frames.size()) break;
    const Frame& f = r.frames[k++];
    const std::string label = stack_label(f);
    if (label != banner) {
      if (!banner.empty() && transition < cw.transitions.size()) {
        const WalkTransition& t = cw.transitions[transition++];
        out += "  --- " + t.from + " -> " + t.to + ": followed the backlink " + hex16(t.value) + " read at " +
               hex16(t.slot) + " ---\n";
      }
      out += "  <" + label + ">\n";
      banner = label;
    }
    char line[256];
    std::snprintf(line, sizeof line, "  %s  %-9s %s%-52s %s\n", f.slot ? hex16(*f.slot).c_str() : "                ",
                  std::string(to_string(f.verdict)).c_str(), f.printed_unreliable ? "? " : "  ", describe(f).c_str(),
                  std::string(reason_code(f.reason)).c_str());
    out += line;
  }
  for (const auto& p : cw.state.problems) out += "  problem: " + p + "\n";
  for (const auto& p : cw.problems) out += "  problem: " + p + "\n";
  for (const Truncation& t : r.truncated) out += "  truncated: " + describe(t) + "\n";
  return out;
}

}  // namespace

std::string render_dump_json(const DumpAnalysis& a, int only_cpu) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("btaudit", std::string_view(kBtauditVersion));
  w.key("dump");
  w.begin_object();
  w.field("path", a.path);
  w.field("format", a.format);
  w.field("release", a.release);
  w.field("vmlinux", a.vmlinux);
  w.field("kaslr_offset", a.kaslr);
  w.field("layout", a.layout.era_name);
  w.field("irq_stack_size", a.layout.irq_stack_size);
  w.field("thread_size", a.layout.thread_size);
  w.field("orc_version", a.walk.orc_version);
  w.field("orc_entries", static_cast<std::uint64_t>(a.walk.orc_entries));
  w.key("notes");
  w.begin_array();
  for (const auto& n : a.layout.fallbacks) w.value(n);
  for (const auto& n : a.walk.problems) w.value(n);
  for (const auto& n : a.notes) w.value(n);
  w.end_array();
  w.end_object();
  w.key("cpus");
  w.begin_array();
  for (std::size_t i = 0; i < a.walk.cpus.size(); ++i) {
    if (only_cpu == kNoCpus || (only_cpu >= 0 && a.walk.cpus[i].state.cpu != only_cpu)) continue;
    write_walk_json(w, a.walk.cpus[i], a.cpu_reports[i]);
  }
  w.end_array();
  w.key("tasks");
  w.begin_array();
  for (std::size_t i = 0; i < a.walk.tasks.size(); ++i) write_walk_json(w, a.walk.tasks[i], a.task_reports[i]);
  w.end_array();
  w.key("reports");
  w.begin_array();
  for (const Report& r : a.reports) write_report_json(w, r);
  w.end_array();
  w.key("crosscheck");
  w.begin_array();
  for (const Crosscheck& c : a.checks) {
    w.begin_object();
    w.field("report", static_cast<std::uint64_t>(c.report));
    w.field("cpu", c.cpu);
    w.field("scope", c.scope);
    w.field("printed_frames", static_cast<std::uint64_t>(c.printed_frames));
    w.field("matched_frames", static_cast<std::uint64_t>(c.matched_frames));
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
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out.push_back('\n');
  return out;
}

std::string render_dump_text(const DumpAnalysis& a, const TextStyle& style, int only_cpu, bool with_reports) {
  std::string out;
  out += "dump:    " + a.path + " (" + a.format + "), release " + a.release + "\n";
  out += "vmlinux: " + a.vmlinux + "\n";
  out += "layout:  " + a.layout.era_name + "; ORC v" + std::to_string(a.walk.orc_version) + ", " +
         std::to_string(a.walk.orc_entries) + " entries; " + std::to_string(a.walk.modules.size()) + " modules\n";
  for (const auto& n : a.layout.fallbacks) out += "note:    " + n + "\n";
  for (const auto& n : a.walk.problems) out += "note:    " + n + "\n";
  for (const auto& n : a.notes) out += "note:    " + n + "\n";
  for (std::size_t i = 0; i < a.walk.cpus.size(); ++i) {
    const CpuWalk& cw = a.walk.cpus[i];
    if (only_cpu == kNoCpus || (only_cpu >= 0 && cw.state.cpu != only_cpu)) continue;
    const Report& r = a.cpu_reports[i];
    const CpuIrqState& c = cw.state;
    out += "\nCPU " + std::to_string(c.cpu) + ": " + c.comm.value_or("?") + " (pid " +
           (c.pid ? std::to_string(*c.pid) : std::string("?")) + "), SP " + (c.sp ? hex16(*c.sp) : std::string("?")) +
           " on the " + c.sp_stack + " stack; IRQ stack " +
           (c.irq_stack ? hex16(c.irq_stack->begin) + "-" + hex16(c.irq_stack->end) : std::string("?")) + ", in use " +
           irq_in_use_text(c, "?") + "; registers from " + c.registers_from + "\n";
    out += walk_lines(cw, r);
  }
  for (std::size_t i = 0; i < a.walk.tasks.size(); ++i) {
    const CpuIrqState& t = a.walk.tasks[i].state;
    out += "\nPID " + (t.pid ? std::to_string(*t.pid) : std::string("?")) + ": " + t.comm.value_or("?") + ", task " +
           (t.task ? hex16(*t.task) : std::string("?")) + ", switched out; thread.sp " +
           (t.sp ? hex16(*t.sp) : std::string("?")) + " on the " + t.sp_stack + " stack\n";
    out += walk_lines(a.walk.tasks[i], a.task_reports[i]);
  }
  if (!with_reports) return out;
  out += "\n";
  out += render_dump_reports_text(a, style);
  return out;
}

std::string render_dump_reports_text(const DumpAnalysis& a, const TextStyle& style) {
  std::string out;
  if (a.reports.empty()) out += "no kernel report in the dump's log\n";
  for (const Report& r : a.reports) out += render_text(r, style);
  for (const Crosscheck& c : a.checks) {
    out += "cross-check of report " + std::to_string(c.report + 1) + " with CPU " + std::to_string(c.cpu) +
           "'s stacks at dump time: " + std::to_string(c.matched_frames) + "/" + std::to_string(c.printed_frames) +
           " printed frames found in order with the same '?' mark and stack (" + c.scope + ")\n";
    for (const CrosscheckMismatch& m : c.mismatches) out += "  " + m.frame + ": " + m.problem + "\n";
  }
  return out;
}

}  // namespace btaudit
