/* crash's side of the btaudit extension: the command table and help that
 * register_extension() takes, and the bridge functions (crash_bridge.h) over
 * crash's readmem(), VMCOREINFO reader, NT_PRSTATUS table, symbol and type
 * tables and task contexts. Everything else is btaudit's C++ core.
 *
 * Built like crash's own extensions (extensions/Makefile): -DX86_64 and the
 * GDB version crash 8 embeds. Every crash call here is one that returns on
 * failure (RETURN_ON_ERROR|QUIET, symbol_exists before symbol_value,
 * MEMBER_OFFSET's -1): none may longjmp through the C++ frames above. */
#include "defs.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "crash_bridge.h"

/* A note larger than this is not an NT_PRSTATUS (336 bytes on x86-64). */
#define MAX_NOTE_SIZE (1UL << 20)

static void cmd_btaudit(void);

static char *help_btaudit[] = {
	"btaudit",
	"audited stack walks across IRQ and exception stacks, and audited oopses",
	"irqstate [-j] | bt|words [-a | -c cpu | pid | taskp] [-j] | log [-j] | analyze [-j]",
	"  btaudit's stack walker, frame verifier and oops analyzer, run on the memory",
	"  crash reads. The output is that of \"btaudit vmcore DUMP ...\" on the same",
	"  dump file: every frame with its stack slot and a verdict (reliable, stale,",
	"  ...), and at every switch from an IRQ or exception stack to the interrupted",
	"  stack the backlink slot and value that was followed.",
	"",
	"    irqstate  each CPU's task, stack pointer and the stack holding it, IRQ",
	"              stack range, the backlink word at its top and its in-use flag.",
	"          bt  the audited walk of each CPU's stacks at dump time, as the kernel",
	"              would print it, with '?' marks for what its unwinder would skip.",
	"          -a  every CPU.",
	"      -c cpu  that CPU only.",
	"   pid|taskp  the CPU this task was running on; a task that was not running",
	"              is walked from the frame the scheduler left at its thread.sp.",
	"              A PID crash cannot find (its PID hash unreadable) is looked up",
	"              on the kernel's own task list.",
	"              Without an argument: the CPU of crash's current context.",
	"       words  every word of each stack in use, from where the walk scanned",
	"              it to its top (bt -T, judged): its symbol, the frame it belongs",
	"              to and that frame's verdict. Takes bt's arguments.",
	"         log  the kernel reports (oops, WARN, panic, ...) in the dump's log,",
	"              each frame audited, and the cross-check of the report that ended",
	"              a CPU against that CPU's walk.",
	"     analyze  bt -a and log together, as \"btaudit vmcore DUMP analyze\".",
	"          -j  JSON instead of text (the document of btaudit vmcore --format",
	"              json; see btaudit(1), OUTPUT).",
	"",
	"  The kernel's DWARF is read from crash's namelist (or its separate debuginfo",
	"  file), so crash must have been started with the debug vmlinux. The modules",
	"  whose debuginfo crash loaded (mod -s, mod -S) give their frames file:line.",
	"\nEXAMPLES",
	"  The hard-IRQ panic: CPU 1 panicked on its IRQ stack, and the walk crosses",
	"  to the idle task's stack through the backlink at the IRQ stack's top:\n",
	"    %s> btaudit bt -c 1",
	"    ...",
	"    CPU 1: swapper/1 (pid 0), SP ffffd0df400d0e10 on the irq stack; ...",
	"      <IRQ>",
	"      ffffd0df400d0e10  reliable    panic+0x2e9/0x2f4              orc",
	"      ...",
	"      --- irq -> task: followed the backlink ffffd0df4009be08 read at ffffd0df400d0ff8 ---",
	"      <TASK>",
	"      ffffd0df4009be20  reliable    asm_common_interrupt+0x22/0x40  orc",
	"\n  Every CPU's walk as JSON, for a script:\n",
	"    %s> btaudit bt -a -j > /tmp/walk.json",
	NULL
};

static struct command_table_entry command_table[] = {
	{ "btaudit", cmd_btaudit, help_btaudit, 0 },
	{ NULL, NULL, NULL, 0 }
};

/* Only registration at load time: a dlopen'ed extension must not slow crash's
 * start-up, so vmlinux's DWARF is opened when a command runs. */
void __attribute__((constructor))
btaudit_crash_init(void)
{
	register_extension(command_table);
}

static void
cmd_btaudit(void)
{
	if (btaudit_crash_command(argcnt, args) == BTAUDIT_CRASH_USAGE)
		cmd_usage(pc->curcmd, SYNOPSIS);
}

size_t
btaudit_crash_readmem(uint64_t kvaddr, void *buf, size_t len)
{
	if (len == 0 || len > (size_t)LONG_MAX)
		return 0;
	return readmem((ulonglong)kvaddr, KVADDR, buf, (long)len, "btaudit",
		       RETURN_ON_ERROR | QUIET) ? len : 0;
}

static char *
format_number(const char *fmt, unsigned long value)
{
	char buf[32];

	snprintf(buf, sizeof buf, fmt, value);
	return strdup(buf);
}

/* "OFFSET(struct.member)" -> "struct" and "member"; FALSE when malformed. */
static int
split_member(const char *inner, char *type, char *member, size_t size)
{
	const char *dot = strchr(inner, '.');

	if (!dot || (size_t)(dot - inner) >= size || strlen(dot + 1) >= size)
		return FALSE;
	memcpy(type, inner, dot - inner);
	type[dot - inner] = '\0';
	strcpy(member, dot + 1);
	return TRUE;
}

/* The VMCOREINFO line crash read, else what the kernel would have written
 * there, from crash's own tables (a dump without VMCOREINFO). */
char *
btaudit_crash_vmcoreinfo(const char *key)
{
	char inner[BUFSIZE], type[BUFSIZE], member[BUFSIZE];
	size_t n = strlen(key);
	long v;
	char *line;

	if (pc->read_vmcoreinfo && (line = pc->read_vmcoreinfo(key)))
		return line;
	if (strcmp(key, "OSRELEASE") == 0)
		return kt->utsname.release[0] ? strdup(kt->utsname.release) : NULL;
	if (strcmp(key, "KERNELOFFSET") == 0)  /* symbols are link address - relocate */
		return format_number("%lx", (unsigned long)(-(long)kt->relocate));
	if (n < 3 || key[n - 1] != ')' || n >= sizeof inner)
		return NULL;
	if (strncmp(key, "SYMBOL(", 7) == 0) {
		snprintf(inner, sizeof inner, "%.*s", (int)(n - 8), key + 7);
		return symbol_exists(inner) ? format_number("%lx", symbol_value(inner)) : NULL;
	}
	if (strncmp(key, "OFFSET(", 7) == 0) {
		snprintf(inner, sizeof inner, "%.*s", (int)(n - 8), key + 7);
		if (!split_member(inner, type, member, sizeof type) || (v = MEMBER_OFFSET(type, member)) < 0)
			return NULL;
		return format_number("%lu", (unsigned long)v);
	}
	if (strncmp(key, "SIZE(", 5) == 0) {
		snprintf(inner, sizeof inner, "%.*s", (int)(n - 6), key + 5);
		return (v = STRUCT_SIZE(inner)) > 0 ? format_number("%lu", (unsigned long)v) : NULL;
	}
	return NULL;
}

const char *
btaudit_crash_dumpfile(void)
{
	return pc->dumpfile ? pc->dumpfile : "";
}

const char *
btaudit_crash_vmlinux(void)
{
	if (pc->namelist_debug && pc->namelist_debug[0])
		return pc->namelist_debug;
	return pc->namelist ? pc->namelist : "";
}

const char *
btaudit_crash_module_debuginfo(int i, const char **name)
{
	int m, seen = 0;

	if (i < 0 || !st->load_modules)
		return NULL;
	for (m = 0; m < st->mods_installed; m++) {
		struct load_module *lm = &st->load_modules[m];

		if (!(lm->mod_flags & MOD_LOAD_SYMS) || !lm->mod_namelist[0])
			continue;
		if (seen++ == i) {
			*name = lm->mod_name;
			return lm->mod_namelist;
		}
	}
	return NULL;
}

const char *
btaudit_crash_format(void)
{
	if (DISKDUMP_DUMPFILE())
		return "diskdump";
	if (KDUMP_DUMPFILE() || NETDUMP_DUMPFILE())
		return "elf";
	if (ACTIVE())
		return "live";
	return "crash";
}

int
btaudit_crash_cpu_count(void)
{
	return kt->cpus;
}

const void *
btaudit_crash_prstatus_note(int cpu, size_t *len)
{
	const Elf64_Nhdr *note = NULL;

	*len = 0;
	if (cpu < 0 || cpu >= kt->cpus)
		return NULL;
	if (DISKDUMP_DUMPFILE())
		note = diskdump_get_prstatus_percpu(cpu);
	else if (KDUMP_DUMPFILE() || NETDUMP_DUMPFILE())
		note = netdump_get_prstatus_percpu(cpu);
	if (!note || note->n_namesz > MAX_NOTE_SIZE || note->n_descsz > MAX_NOTE_SIZE)
		return NULL;
	*len = sizeof(Elf64_Nhdr) + roundup(note->n_namesz, 4) + roundup(note->n_descsz, 4);
	return note;
}

int
btaudit_crash_find_task(const char *arg, uint64_t *task, uint64_t *pid, int *cpu, char *comm, size_t comm_size)
{
	struct task_context *tc = NULL;
	char copy[BUFSIZE];
	ulong value;

	if (!arg || !arg[0]) {
		tc = CURRENT_CONTEXT();
	} else {
		snprintf(copy, sizeof copy, "%s", arg);  /* str_to_context takes a char * */
		if (str_to_context(copy, &value, &tc) == STR_INVALID)
			tc = NULL;
	}
	if (!tc)
		return FALSE;
	*task = tc->task;
	*pid = tc->pid;
	*cpu = is_task_active(tc->task) ? tc->processor : -1;
	snprintf(comm, comm_size, "%s", tc->comm);
	return TRUE;
}

void
btaudit_crash_write(const char *text, size_t len)
{
	fwrite(text, 1, len, fp);
}
