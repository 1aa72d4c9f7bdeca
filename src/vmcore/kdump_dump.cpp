#include "vmcore/kdump_dump.h"

#include <fcntl.h>
#include <libkdumpfile/kdumpfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "vmcore/diskdump_notes.h"
#include "vmcore/dump_extent.h"
#include "vmcore/flattened_dump.h"

namespace btaudit {

std::unique_ptr<KdumpDump> KdumpDump::open(const std::string& path) {
  std::unique_ptr<KdumpDump> d(new KdumpDump());
  d->path_ = path;
  d->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (d->fd_ < 0) throw DumpError(path + ": cannot open: " + std::strerror(errno));
  if (is_flattened_dump(d->fd_)) d->replace_with_reassembled();
  // Checked before libkdumpfile sees the file: it would open a cut dump and
  // then read every missing page as absent, a walk of nothing instead of an error.
  struct stat st {};
  if (auto x = dump_extent(d->fd_); x && ::fstat(d->fd_, &st) == 0 && static_cast<std::uint64_t>(st.st_size) < x->end)
    throw DumpError(path + ": truncated: the file has " + std::to_string(st.st_size) + " bytes; by its " +
                    x->described_by + ", it needs at least " + std::to_string(x->end));
  d->ctx_ = kdump_new();
  if (!d->ctx_) throw DumpError(path + ": cannot allocate a libkdumpfile context");
  // Without an OS type libaddrxlat cannot translate kernel virtual addresses
  // ("Cannot determine 5-level paging"); kdump-compressed files from QEMU name
  // no architecture, so x86_64 is set when the file leaves it open.
  kdump_set_string_attr(d->ctx_, KDUMP_ATTR_OSTYPE, "linux");
  if (kdump_open_fd(d->ctx_, d->fd_) != KDUMP_OK)
    throw DumpError(path + ": not a crash dump libkdumpfile can read: " + kdump_get_err(d->ctx_));
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
  if (ctx_) kdump_free(ctx_);
  if (fd_ >= 0) ::close(fd_);
}

std::size_t KdumpDump::read(std::uint64_t kvaddr, std::span<std::uint8_t> out) {
  std::size_t len = out.size();
  const kdump_status st = kdump_read(ctx_, KDUMP_KVADDR, kvaddr, out.data(), &len);
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
  if (kdump_vmcoreinfo_line(ctx_, key.c_str(), &val) != KDUMP_OK || !val) {
    kdump_clear_err(ctx_);
    return std::nullopt;
  }
  std::unique_ptr<char, decltype(&std::free)> owned(val, &std::free);  // libkdumpfile allocates it
  return std::string(val);
}

std::optional<std::uint64_t> KdumpDump::vmcoreinfo_symbol(const std::string& name) {
  kdump_addr_t addr = 0;
  if (kdump_vmcoreinfo_symbol(ctx_, name.c_str(), &addr) != KDUMP_OK) {
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
