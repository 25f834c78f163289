/*
 * disasm-text: every executable section of an ELF file disassembled by analyze annotate's
 * disassembler (analyzer/annotate/disasm.h), one `ADDR:TEXT` line an instruction, decoding
 * afresh at every symbol's start as objdump -d does. tests/annotate-spelling.sh holds it
 * against `objdump -d --no-show-raw-insn` and counts the lines that differ.
 *
 *   disasm-text FILE
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/annotate/disasm.h"
#include "analyzer/annotate/labels.h"

/* The first label after addr in section sec, or end. */
static u64 next_label(const struct labels *l, u64 addr, u64 end)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->v[i].addr > addr && l->v[i].addr < end)
			return l->v[i].addr;
	return end;
}

int main(int argc, char **argv)
{
	struct labels labels;
	struct disasm *d;
	Elf *elf;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: disasm-text FILE\n");
		return 2;
	}
	d = disasm__new();
	fd = open(argv[1], O_RDONLY);
	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (!d || !elf || labels__load(&labels, elf)) {
		fprintf(stderr, "disasm-text: cannot read %s (or no capstone)\n", argv[1]);
		return 1;
	}
	for (Elf_Scn *s = NULL; (s = elf_nextscn(elf, s));) {
		GElf_Shdr sh;
		Elf_Data *data;
		u64 addr, end, stop;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !(data = elf_getdata(s, NULL)))
			continue;
		addr = sh.sh_addr;
		end = sh.sh_addr + data->d_size;
		while (addr < end) {
			stop = next_label(&labels, addr, end);
			while (addr < stop) {
				char text[512];
				size_t n = disasm__insn(d, (const u8 *)data->d_buf + (addr - sh.sh_addr),
							end - addr, addr, &labels,
							(u32)elf_ndxscn(s), text, sizeof(text));

				printf("%llx:%s\n", (unsigned long long)addr, text);
				addr += n;
			}
		}
	}
	elf_end(elf);
	close(fd);
	labels__exit(&labels);
	disasm__delete(d);
	return 0;
}
