/* capstone: the library loaded once, on first use (see capstone.h). */
#include "lib/capstone.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

static struct capstone cs;
static pthread_once_t cs_once = PTHREAD_ONCE_INIT;

static void cs_load(void)
{
	void *h = dlopen("libcapstone.so.4", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		h = dlopen("libcapstone.so", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return;
	*(void **)&cs.open = dlsym(h, "cs_open");
	*(void **)&cs.option = dlsym(h, "cs_option");
	*(void **)&cs.disasm = dlsym(h, "cs_disasm");
	*(void **)&cs.free = dlsym(h, "cs_free");
	*(void **)&cs.close = dlsym(h, "cs_close");
	*(void **)&cs.reg_name = dlsym(h, "cs_reg_name");
	*(void **)&cs.insn_name = dlsym(h, "cs_insn_name");
	if (!cs.option || !cs.disasm || !cs.free || !cs.close || !cs.reg_name || !cs.insn_name)
		cs.open = NULL;
}

const struct capstone *capstone_get(void)
{
	pthread_once(&cs_once, cs_load);
	return cs.open ? &cs : NULL;
}
