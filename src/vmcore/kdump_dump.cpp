#include "vmcore/kdump_dump.h"

#include <fcntl.h>
#include <libkdumpfile/kdumpfile.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "fault/fault_guard.h"
#include "vmcore/diskdump_notes.h"
#include "vmcore/dump_header_check.h"
#include "vmcore/flattened_dump.h"

namespace btaudit {

// Runs a libkdumpfile call that reads the file under the fault guard
// (fault_guard.h): a fault the header checks did not foresee becomes a
// one-line error, and the context, in an unknown state, is never used again.
template <typename F>
void KdumpDump::in_library(const char* what, F&& call) const {
  if (faulted_) throw DumpError(path_ + ": cannot read the dump further after libkdumpfile faulted");
  if (const int signal = guarded_call(call); signal != 0) {
    faulted_ = true;
    throw DumpError(path_ + ": libkdumpfile died of " + fault_name(signal) + " " + what +
                    ": the file is corrupt in a way btaudit's header checks did not catch");
  }
}

std::unique_ptr<KdumpDump> KdumpDump::open(const std::string& path) {
  std::unique_ptr<KdumpDump> d(new KdumpDump());
  d->path_ = path;
  d->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (d->fd_ < 0) throw DumpError(path + ": cannot open: " + std::strerror(errno));
  if (is_flattened_dump(d->fd_)) d->replace_with_reassembled();
  // Checked before libkdumpfile sees the file (dump_header_check.h): it trusts
  // every header field, and it would open a cut dump and then read every
  // missing page as absent, a walk of nothing instead of an error.
  check_dump_file(d->fd_, path);
  d->ctx_ = kdump_new();
  if (!d->ctx_) throw DumpError(path + ": cannot allocate a libkdumpfile context");
  // Without an OS type libaddrxlat cannot translate kernel virtual addresses
  // ("Cannot determine 5-level paging"); kdump-compressed files from QEMU name
  // no architecture, so x86_64 is set when the file leaves it open.
  kdump_set_string_attr(d->ctx_, KDUMP_ATTR_OSTYPE, "linux");
  kdump_status opened = KDUMP_OK;
  d->in_library("while opening the file", [&] { opened = kdump_open_fd(d->ctx_, d->fd_); });
  if (opened != KDUMP_OK) throw DumpError(path + ": not a crash dump libkdumpfile can read: " + kdump_get_err(d->ctx_));
  kdump_attr_t arch;
  if (kdump_get_attr(d->ctx_, KDUMP_ATTR_ARCH_NAME, &arch) != KDUMP_OK) {
    kdump_clear_err(d->ctx_);
    if (kdump_set_string_attr(d->ctx_, KDUMP_ATTR_ARCH_NAME, KDUMP_ARCH_X86_64) != KDUMP_OK)
      throw DumpError(path + ": cannot set the architecture: " + kdump_get_err(d->ctx_));
  } else if (arch.type == KDUMP_STRING && std::strcmp(arch.val.string, KDUMP_ARCH_X86_64) != 0) {
    throw DumpError(path + ": a " + arch.val.string + " dump; btaudit reads x86_64 dumps");
  }
  return d;
}

void KdumpDump::replace_with_reassembled() {
  ReassembledDump flat = reassemble_flattened_dump(fd_, path_);
  ::close(fd_);
  fd_ = flat.fd.release();
  data_path_ = "/proc/self/fd/" + std::to_string(fd_);
  notes_.push_back("makedumpfile flattened format: reassembled " + std::to_string(flat.records) +
                   " records into an unlinked temporary file in " + flat.where + " (" + std::to_string(flat.bytes) +
                   " bytes, gone when btaudit exits)");
}

KdumpDump::~KdumpDump() {
  if (ctx_ && !faulted_) kdump_free(ctx_);  // after a fault the context is left as it is
  if (fd_ >= 0) ::close(fd_);
}

std::size_t KdumpDump::read(std::uint64_t kvaddr, std::span<std::uint8_t> out) {
  std::size_t len = out.size();
  kdump_status st = KDUMP_OK;
  in_library("while reading memory", [&] { st = kdump_read(ctx_, KDUMP_KVADDR, kvaddr, out.data(), &len); });
  if (st != KDUMP_OK) kdump_clear_err(ctx_);
  return len > out.size() ? 0 : len;
}

std::string KdumpDump::format() const {
  kdump_attr_t a;
  if (kdump_get_attr(ctx_, KDUMP_ATTR_FILE_FORMAT, &a) != KDUMP_OK || a.type != KDUMP_STRING) {
    kdump_clear_err(ctx_);
    return "unknown";
  }
  return a.val.string;
}

std::optional<std::string> KdumpDump::vmcoreinfo(const std::string& key) {
  char* val = nullptr;
  kdump_status st = KDUMP_OK;
  const char* name = key.c_str();
  in_library("while reading VMCOREINFO", [&] { st = kdump_vmcoreinfo_line(ctx_, name, &val); });
  if (st != KDUMP_OK || !val) {
    kdump_clear_err(ctx_);
    return std::nullopt;
  }
  std::unique_ptr<char, decltype(&std::free)> owned(val, &std::free);  // libkdumpfile allocates it
  return std::string(val);
}

std::optional<std::uint64_t> KdumpDump::vmcoreinfo_symbol(const std::string& name) {
  kdump_addr_t addr = 0;
  kdump_status st = KDUMP_OK;
  const char* symbol = name.c_str();
  in_library("while reading VMCOREINFO", [&] { st = kdump_vmcoreinfo_symbol(ctx_, symbol, &addr); });
  if (st != KDUMP_OK) {
    kdump_clear_err(ctx_);
    return std::nullopt;
  }
  return addr;
}

int KdumpDump::cpu_count() const {
  kdump_attr_t a;
  if (kdump_get_attr(ctx_, KDUMP_ATTR_NUM_CPUS, &a) != KDUMP_OK || a.type != KDUMP_NUMBER) {
    kdump_clear_err(ctx_);
    return 0;
  }
  return a.val.number > 4096 ? 4096 : static_cast<int>(a.val.number);
}

std::vector<CpuRegisters> KdumpDump::cpu_registers() const {
  std::vector<CpuRegisters> out;
  const int n = cpu_count();
  if (n == 0 && format() == "diskdump") {
    // QEMU's kdump-compressed files: the notes are in the sub-header, in vCPU order.
    int cpu = 0;
    for (auto& note : read_diskdump_prstatus(data_path_.empty() ? path_ : data_path_))
      out.push_back(CpuRegisters{cpu++, std::move(note.regs)});
    return out;
  }
  for (int cpu = 0; cpu < n; ++cpu) {
    CpuRegisters r;
    r.cpu = cpu;
    const std::string base = "cpu." + std::to_string(cpu) + ".reg";
    kdump_attr_iter_t it;
    if (kdump_attr_iter_start(ctx_, base.c_str(), &it) != KDUMP_OK) {
      kdump_clear_err(ctx_);
      continue;
    }
    for (int guard = 0; it.key && guard < 256; ++guard) {
      kdump_attr_t v;
      if (kdump_attr_ref_get(ctx_, &it.pos, &v) == KDUMP_OK && v.type == KDUMP_NUMBER) r.regs[it.key] = v.val.number;
      if (kdump_attr_iter_next(ctx_, &it) != KDUMP_OK) break;
    }
    kdump_attr_iter_end(ctx_, &it);
    out.push_back(std::move(r));
  }
  return out;
}

DumpFacts KdumpDump::facts() {
  DumpFacts f;
  f.path = path_;
  f.format = format();
  f.release = vmcoreinfo("OSRELEASE").value_or("");
  f.build_id = vmcoreinfo("BUILD-ID").value_or("");
  f.kaslr = static_cast<std::int64_t>(vmcoreinfo_number("KERNELOFFSET", 16).value_or(0));
  f.cpu_registers = cpu_registers();
  return f;
}

}  // namespace btaudit
