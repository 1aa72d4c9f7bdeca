#include "vmcore/kdump_dump.h"

#include <fcntl.h>
#include <libkdumpfile/kdumpfile.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fault/fault_guard.h"
#include "vmcore/diskdump_notes.h"
#include "vmcore/dump_header_check.h"
#include "vmcore/flattened_dump.h"
#include "vmcore/vmcoreinfo_scan.h"

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
  if (!d->vmcoreinfo("OSRELEASE")) d->recover_vmcoreinfo();
  return d;
}

// The dump holds no VMCOREINFO: the kernel's own copy is looked for in its memory
// (vmcoreinfo_scan.h), every page the file holds read once. A copy is used only when the release
// it names stands in init_uts_ns where its own SYMBOL(init_uts_ns) says (a stale or forged text
// fails), and only then handed to libkdumpfile, which translates addresses as with the note.
// (The check reads physical memory, so that libkdumpfile is given one text at most: 0.5.1
// leaks when a VMCOREINFO it was given is taken back.)
void KdumpDump::recover_vmcoreinfo() {
  std::vector<VmcoreinfoCandidate> found;
  constexpr std::size_t kMaxCandidates = 16;
  scan_physical_memory([&](std::span<const std::uint8_t> bytes, std::uint64_t phys) {
    find_vmcoreinfo_texts(bytes, phys, found, kMaxCandidates);
    return found.size() < kMaxCandidates;
  });
  // The longest first: the data page holds CRASHTIME once kdump ran; the note made at boot does not.
  std::stable_sort(found.begin(), found.end(), [](const VmcoreinfoCandidate& a, const VmcoreinfoCandidate& b) {
    return a.text.size() > b.text.size();
  });
  for (const VmcoreinfoCandidate& c : found) {
    if (!names_its_kernel(c.text) || !hand_over_vmcoreinfo(c.text)) continue;
    char where[32];
    std::snprintf(where, sizeof where, "%#llx", static_cast<unsigned long long>(c.phys));
    vmcoreinfo_from_memory_ = "the kernel's copy in memory at physical address " + std::string(where);
    notes_.push_back(
        "the dump carries no VMCOREINFO note (QEMU's dump-guest-memory writes none without a "
        "vmcoreinfo device): the kernel's own copy was read from its memory at physical address " +
        std::string(where) + " (release " + std::string(vmcoreinfo_value(c.text, "OSRELEASE")) + ")");
    return;
  }
  notes_.push_back(
      "the dump carries no VMCOREINFO note and no copy of the kernel's was found in its memory "
      "(a kernel without kdump support keeps none): kernel addresses cannot be translated");
}

// x86_64's __pa_symbol: a kernel image address less __START_KERNEL_map, plus phys_base (both
// in VMCOREINFO: SYMBOL(init_uts_ns), NUMBER(phys_base) from arch_crash_save_vmcoreinfo).
bool KdumpDump::names_its_kernel(const std::string& text) {
  constexpr std::uint64_t kStartKernelMap = 0xffffffff80000000ULL;
  const std::string symbol(vmcoreinfo_value(text, "SYMBOL(init_uts_ns)"));
  const std::string base(vmcoreinfo_value(text, "NUMBER(phys_base)"));
  char* end = nullptr;
  const std::uint64_t uts = std::strtoull(symbol.c_str(), &end, 16);
  if (symbol.empty() || *end != '\0' || uts < kStartKernelMap) return false;
  const auto phys_base = static_cast<std::uint64_t>(base.empty() ? 0 : std::strtoll(base.c_str(), &end, 10));
  // struct uts_namespace holds a struct new_utsname (sysname, nodename, release: 65 bytes each)
  // near its start; its release, NUL-terminated, lies in the first few hundred bytes.
  std::vector<std::uint8_t> bytes(512);
  std::size_t len = bytes.size();
  kdump_status st = KDUMP_OK;
  in_library("while reading memory",
             [&] { st = kdump_read(ctx_, KDUMP_MACHPHYSADDR, uts - kStartKernelMap + phys_base, bytes.data(), &len); });
  if (st != KDUMP_OK) kdump_clear_err(ctx_);
  if (len > bytes.size()) return false;
  const std::string release(vmcoreinfo_value(text, "OSRELEASE"));
  const std::string_view seen(reinterpret_cast<const char*>(bytes.data()), len);
  return seen.find(std::string_view(release.c_str(), release.size() + 1)) != std::string_view::npos;
}

bool KdumpDump::hand_over_vmcoreinfo(const std::string& text) {
  kdump_blob_t* blob = kdump_blob_new_dup(text.data(), text.size());
  if (blob == nullptr) return false;
  kdump_attr_t attr;
  attr.type = KDUMP_BLOB;
  attr.val.blob = blob;  // the attribute takes this reference over, set or not
  kdump_status st = KDUMP_OK;
  in_library("while setting VMCOREINFO", [&] { st = kdump_set_attr(ctx_, "linux.vmcoreinfo.raw", &attr); });
  if (st != KDUMP_OK) kdump_clear_err(ctx_);
  return st == KDUMP_OK;
}

// Every page the file holds, read a chunk at a time with the last bytes of the chunk before it
// in front (a text that straddles two chunks is read whole).
void KdumpDump::scan_physical_memory(const std::function<bool(std::span<const std::uint8_t>, std::uint64_t)>& visit) {
  kdump_attr_t map;
  if (kdump_get_attr(ctx_, KDUMP_ATTR_FILE_PAGEMAP, &map) != KDUMP_OK || map.type != KDUMP_BITMAP) {
    kdump_clear_err(ctx_);
    return;
  }
  kdump_attr_t ps;
  std::uint64_t page = 4096;
  if (kdump_get_attr(ctx_, KDUMP_ATTR_PAGE_SIZE, &ps) == KDUMP_OK && ps.type == KDUMP_NUMBER && ps.val.number >= 512 &&
      ps.val.number <= (1U << 20))
    page = ps.val.number;
  kdump_clear_err(ctx_);
  // read(2), not mmap(2), for the scan: pages mapped once and kept mapped by libkdumpfile's cache
  // would count in the process's RSS, the size of the dump (532 MB for a 512 MiB ELF dump).
  kdump_attr_t policy;
  const bool had_policy =
      kdump_get_attr(ctx_, KDUMP_ATTR_FILE_MMAP_POLICY, &policy) == KDUMP_OK && policy.type == KDUMP_NUMBER;
  kdump_clear_err(ctx_);
  kdump_set_number_attr(ctx_, KDUMP_ATTR_FILE_MMAP_POLICY, KDUMP_MMAP_NEVER);
  struct RestorePolicy {
    _kdump_ctx* ctx;
    bool had;
    kdump_num_t value;
    ~RestorePolicy() {
      if (had) kdump_set_number_attr(ctx, KDUMP_ATTR_FILE_MMAP_POLICY, value);
      kdump_clear_err(ctx);
    }
  } restore{ctx_, had_policy, had_policy ? policy.val.number : 0};
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  constexpr std::size_t kOverlap = 4097;  // a whole text and its NUL
  std::vector<std::uint8_t> buf(kOverlap + kChunk);
  kdump_bmp_t* bmp = map.val.bitmap;
  // Forward from one present page to the next: the page map is asked only where the next present
  // page is (libkdumpfile 0.5.1's answer to where a run of them ends is wrong for ELF cores whose
  // PT_LOADs overlap, as QEMU's paging dumps' do: it jumped back and ended the scan), and a read
  // stops at the first page it cannot give. Every step moves on by a page at least.
  std::size_t carried = 0;
  std::uint64_t at = 0;
  for (std::uint64_t steps = 0; steps < (std::uint64_t{1} << 28); ++steps) {
    kdump_addr_t next = at / page;
    if (kdump_bmp_find_set(bmp, &next) != KDUMP_OK) break;
    if (next > at / page) {  // a hole: nothing carried across it
      at = next * page;
      carried = 0;
    }
    std::size_t len = kChunk;
    kdump_status st = KDUMP_OK;
    in_library("while reading memory",
               [&] { st = kdump_read(ctx_, KDUMP_MACHPHYSADDR, at, buf.data() + carried, &len); });
    if (st != KDUMP_OK) kdump_clear_err(ctx_);
    if (len == 0 || len > kChunk) {  // this page cannot be read: the next one
      at = (at / page + 1) * page;
      carried = 0;
      continue;
    }
    if (!visit(std::span<const std::uint8_t>(buf.data(), carried + len), at - carried)) return;
    const std::size_t keep = std::min(kOverlap, carried + len);
    std::memmove(buf.data(), buf.data() + carried + len - keep, keep);
    carried = keep;
    at += len;
  }
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
