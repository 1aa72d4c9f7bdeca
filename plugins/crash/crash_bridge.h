/* The narrow C interface between crash and btaudit's C++ code.
 *
 * crash's defs.h is C written for crash's own sources: it defines macros
 * such as MIN, TRUE and OFFSET and types such as ulong that collide with the
 * C++ standard library. Only crash_glue.c includes it; the C++ side sees
 * crash through these functions alone, each of which returns instead of
 * calling crash's error(), whose longjmp would skip C++ destructors. */
#ifndef BTAUDIT_CRASH_BRIDGE_H
#define BTAUDIT_CRASH_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel virtual memory through crash's readmem(): len bytes, or 0. */
size_t btaudit_crash_readmem(uint64_t kvaddr, void* buf, size_t len);

/* A VMCOREINFO value (crash's pc->read_vmcoreinfo), else the same fact from
 * crash's symbol and type tables (SYMBOL(), OFFSET(), SIZE(), OSRELEASE,
 * KERNELOFFSET). NULL when unknown; free() the result. */
char* btaudit_crash_vmcoreinfo(const char* key);

const char* btaudit_crash_dumpfile(void); /* as given to crash */
const char* btaudit_crash_vmlinux(void);  /* the namelist holding DWARF */
const char* btaudit_crash_format(void);   /* "elf", "diskdump", ... */
int btaudit_crash_cpu_count(void);

/* The debuginfo file of the i-th module whose symbols crash loaded ("mod -s",
 * "mod -S"), counting from 0, and the module's name in *name: NULL past the
 * last such module. */
const char* btaudit_crash_module_debuginfo(int i, const char** name);

/* CPU cpu's NT_PRSTATUS note as crash mapped it (header, name, descriptor),
 * its length in *len; NULL when crash has none. */
const void* btaudit_crash_prstatus_note(int cpu, size_t* len);

/* A task named by a PID or task_struct address ("" or NULL: crash's current
 * context). Returns 0 if crash knows no such task; else fills the outputs and
 * sets *cpu to the CPU it ran on at dump time, or -1 if it was not running. */
int btaudit_crash_find_task(const char* arg, uint64_t* task, uint64_t* pid, int* cpu, char* comm, size_t comm_size);

/* Output to crash's fp (the terminal, a pipe or a redirection). */
void btaudit_crash_write(const char* text, size_t len);

/* The command's body, in C++: returns 0, or BTAUDIT_CRASH_USAGE after which
 * the glue prints crash's usage synopsis. */
#define BTAUDIT_CRASH_USAGE 64
int btaudit_crash_command(int argc, char** argv);

#ifdef __cplusplus
}
#endif

#endif
