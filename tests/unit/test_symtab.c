/*
 * symtab unit tests: small ELF files built with cc in a temp dir at test time, hand-written
 * kallsyms and perf map text. Expected results were checked against perf 6.1 (perf script
 * on recordings of the same constructs).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symtab/symtab.h"
#include "symtab/symtab_internal.h"

static char tmpdir[256];

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/symtab-test-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	(void)!system(cmd);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

/* Builds sources (space separated names in tmpdir) into tmpdir/out with extra flags. */
static void build(const char *out, const char *srcs, const char *flags)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "cd '%s' && cc -O1 %s -o %s %s 2>&1", tmpdir, flags, out, srcs);
	cr_assert_eq(system(cmd), 0, "build failed: %s", cmd);
}

static const struct symsrc_config no_cache = { .buildid_dir = "/nonexistent", .symfs = "" };

static const struct symbol *by_name(const struct symtab *st, const char *name)
{
	for (size_t i = 0; i < st->nr; i++)
		if (!strcmp(symbol__name(st, &st->syms[i]), name))
			return &st->syms[i];
	return NULL;
}

static const char *name_at(const struct symtab *st, u64 addr)
{
	const struct symbol *s = symtab__find(st, addr);

	return s ? symbol__name(st, s) : "[unknown]";
}

#define SPIN "mov $1, %ecx; 8: loop 8b\n"

static const char sem_s[] =
	"	.text\n"
	"	.p2align 4\n"
	"	.globl t1_sized\n	.type t1_sized,@function\n"
	"t1_sized:\n	mov $1, %ecx\n	.size t1_sized, .-t1_sized\n"
	".Lgap:	loop .Lgap\n	ret\n"
	"	.p2align 4\n"
	"	.globl t2_zero\n	.type t2_zero,@function\n"
	"t2_zero:\n" SPIN "	ret\n"
	"	.p2align 4\n"
	"	.globl t3_label\n"
	"t3_label:\n" SPIN "	ret\n"
	"	.p2align 4\n"
	"	.globl t5_object\n	.type t5_object,@object\n"
	"t5_object:\n" SPIN "	ret\n	.size t5_object, .-t5_object\n"
	"	.p2align 4\n"
	"	.globl t7_outer\n	.type t7_outer,@function\n"
	"t7_outer:\n	nop; nop; nop; nop\n"
	"	.globl t7_inner\n	.type t7_inner,@function\n"
	"t7_inner:\n" SPIN "	ret\n	.size t7_inner, .-t7_inner\n"
	"	nop; nop\n	.size t7_outer, .-t7_outer\n"
	"	.p2align 4\n"
	"	.weak t8_weak_very_long_name\n	.type t8_weak_very_long_name,@function\n"
	"	.globl t8_g\n	.type t8_g,@function\n"
	"	.globl __t8_under\n	.type __t8_under,@function\n"
	"t8_weak_very_long_name:\nt8_g:\n__t8_under:\n" SPIN "	ret\n"
	"	.size t8_weak_very_long_name, .-t8_weak_very_long_name\n"
	"	.size t8_g, .-t8_g\n	.size __t8_under, .-__t8_under\n"
	"	.p2align 4\n"
	"	.globl t10_zzzzzzzzzzzz\n	.type t10_zzzzzzzzzzzz,@function\n"
	"	.globl t10_a\n	.type t10_a,@function\n"
	"t10_zzzzzzzzzzzz:\nt10_a:\n" SPIN "	ret\n"
	"	.p2align 4\n"
	"	.globl t11_after\n	.type t11_after,@function\n"
	"t11_after:\n	nop\n	.size t11_after, .-t11_after\n"
	"	.section .note.GNU-stack,\"\",@progbits\n";

static const char sem_main_c[] =
	"void t1_sized(void), t2_zero(void), t8_g(void);\n"
	"int main(void) { t1_sized(); t2_zero(); t8_g(); return 0; }\n";

static void build_sem(char *bin, size_t size)
{
	char p[512];

	path_of(p, sizeof(p), "sem.S");
	write_file(p, sem_s);
	path_of(p, sizeof(p), "main.c");
	write_file(p, sem_main_c);
	build("sem", "main.c sem.S", "-Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567");
	path_of(bin, size, "sem");
}

TestSuite(symtab, .init = setup, .fini = teardown);

Test(symtab, find_semantics_and_fixups)
{
	struct symtab st;
	const struct symbol *s, *t1, *t2, *t3, *t7o, *t7i;
	char bin[512];

	build_sem(bin, sizeof(bin));
	symtab__init(&st);
	cr_assert_eq(symtab__load_dso(&st, &no_cache, DSO_KIND_USER, bin, NULL, 0), 0);
	cr_assert_gt(st.nr, 5);
	for (size_t i = 1; i < st.nr; i++)
		cr_assert_leq(st.syms[i - 1].start, st.syms[i].start);

	/* end is exclusive: the byte after a sized symbol belongs to nobody */
	t1 = by_name(&st, "t1_sized");
	cr_assert_not_null(t1);
	cr_assert_eq(t1->size, 5);
	cr_assert_eq(symtab__find(&st, t1->start + 4), t1);
	cr_assert_str_eq(name_at(&st, t1->start + 5), "[unknown]");

	/* size 0: runs to the next symbol (symbols__fixup_end) */
	t2 = by_name(&st, "t2_zero");
	t3 = by_name(&st, "t3_label");
	cr_assert_not_null(t2);
	cr_assert_not_null(t3);	/* NOTYPE labels in text sections are kept */
	cr_assert_eq(t2->start + t2->size, t3->start);
	cr_assert_str_eq(name_at(&st, t2->start + 5), "t2_zero");
	/* objects are kept too */
	cr_assert_not_null(by_name(&st, "t5_object"));
	/* perf prints a data symbol's entries as NAME+0xOFFSET: the type is kept */
	cr_assert(by_name(&st, "t5_object")->object);
	cr_assert_not(by_name(&st, "t1_sized")->object);

	/* overlap: perf's rb-tree walk answers the inner symbol here */
	t7o = by_name(&st, "t7_outer");
	t7i = by_name(&st, "t7_inner");
	cr_assert_not_null(t7o);
	cr_assert_not_null(t7i);
	cr_assert_str_eq(name_at(&st, t7i->start + 5), "t7_inner");
	cr_assert_str_eq(name_at(&st, t7o->start + 1), "t7_outer");

	/* duplicates: global beats weak, fewer leading underscores win */
	cr_assert_null(by_name(&st, "t8_weak_very_long_name"));
	cr_assert_null(by_name(&st, "__t8_under"));
	s = by_name(&st, "t8_g");
	cr_assert_not_null(s);
	cr_assert_str_eq(name_at(&st, s->start + 3), "t8_g");
	/* fixup_end runs before fixup_duplicate: the sized survivor wins over the longer name */
	cr_assert_null(by_name(&st, "t10_zzzzzzzzzzzz"));
	cr_assert_not_null(by_name(&st, "t10_a"));
	symtab__exit(&st);
}

Test(symtab, plt_entries_named_like_perf)
{
	struct symtab st;
	const struct symbol *plt;
	char p[512];

	path_of(p, sizeof(p), "plt.c");
	write_file(p, "#include <stdlib.h>\nvolatile long v;\n"
		      "int main(int c, char **a) { v = labs(c - 5); return 0; }\n");
	build("plt", "plt.c", "-fno-builtin -Wl,-z,lazy");
	path_of(p, sizeof(p), "plt");
	symtab__init(&st);
	cr_assert_eq(symtab__load_dso(&st, &no_cache, DSO_KIND_USER, p, NULL, 0), 0);
	plt = by_name(&st, "labs@plt");
	cr_assert_not_null(plt);
	cr_assert_eq(plt->size, 16);
	/* no lookup check: _init (size 0) was stretched over .plt before the PLT entries were
	 * added, so which of the two a PLT address gives depends on perf's tree shape */
	symtab__exit(&st);
}

Test(symtab, stripped_uses_dynsym)
{
	struct symtab st;
	char p[512], cmd[600];

	path_of(p, sizeof(p), "dyn.c");
	write_file(p, "__attribute__((noinline)) int exported_fn(int x) { return x * 3; }\n"
		      "int main(int c, char **a) { return exported_fn(c); }\n");
	build("dyn", "dyn.c", "-rdynamic");
	path_of(p, sizeof(p), "dyn");
	snprintf(cmd, sizeof(cmd), "strip --strip-all '%s'", p);
	cr_assert_eq(system(cmd), 0);
	symtab__init(&st);
	cr_assert_eq(symtab__load_dso(&st, &no_cache, DSO_KIND_USER, p, NULL, 0), 0);
	cr_assert_not_null(by_name(&st, "exported_fn"));
	cr_assert_not_null(by_name(&st, "main"));
	symtab__exit(&st);
}

Test(symtab, build_id_cache_and_mismatch)
{
	struct symtab st;
	struct symsrc_config cfg = { .symfs = "" };
	char bin[512], dir[512], cmd[4096];
	static const u8 bid[20] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23,
				    0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67 };
	u8 other[20];

	build_sem(bin, sizeof(bin));
	path_of(dir, sizeof(dir), "cache");
	cfg.buildid_dir = dir;
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/.build-id/01' '%s/gone/sem/0123456789abcdef0123456789abcdef01234567'"
		 " && cp '%s' '%s/gone/sem/0123456789abcdef0123456789abcdef01234567/elf'"
		 " && ln -s ../../gone/sem/0123456789abcdef0123456789abcdef01234567"
		 " '%s/.build-id/01/23456789abcdef0123456789abcdef01234567'",
		 dir, dir, bin, dir, dir);
	cr_assert_eq(system(cmd), 0);
	symtab__init(&st);
	/* the recorded path is gone: the cache supplies the symbols */
	cr_assert_eq(symtab__load_dso(&st, &cfg, DSO_KIND_USER, "/nonexistent/sem", bid, 20), 0);
	cr_assert_not_null(by_name(&st, "t8_g"));
	/* a different build-id rejects both the cache and the recorded file */
	memcpy(other, bid, 20);
	other[0] ^= 0xff;
	cr_assert_eq(symtab__load_dso(&st, &cfg, DSO_KIND_USER, bin, other, 20), -1);
	cr_assert_eq(st.nr, 0);
	symtab__exit(&st);
}

Test(symtab, broken_files_do_not_crash)
{
	struct symtab st;
	char bin[512], p[512], cmd[2048];
	static const size_t cuts[] = { 0, 3, 16, 64, 100, 1000, 4096, 9000 };

	build_sem(bin, sizeof(bin));
	symtab__init(&st);
	path_of(p, sizeof(p), "garbage");
	write_file(p, "this is not an ELF file at all\n");
	cr_assert_eq(symtab__load_dso(&st, &no_cache, DSO_KIND_USER, p, NULL, 0), -1);
	cr_assert_eq(st.nr, 0);
	cr_assert_eq(symtab__load_dso(&st, &no_cache, DSO_KIND_USER, "/nonexistent/x", NULL, 0),
		     -1);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		path_of(p, sizeof(p), "cut");
		snprintf(cmd, sizeof(cmd), "head -c %zu '%s' > '%s'", cuts[i], bin, p);
		cr_assert_eq(system(cmd), 0);
		(void)symtab__load_dso(&st, &no_cache, DSO_KIND_USER, p, NULL, 0);
		(void)symtab__find(&st, 0x1000);
	}
	/* corrupt bytes in the middle of a valid file */
	path_of(p, sizeof(p), "corrupt");
	snprintf(cmd, sizeof(cmd),
		 "cp '%s' '%s' && printf '\\377\\377\\377\\377\\377\\377\\377\\377' | "
		 "dd of='%s' bs=1 seek=40 conv=notrunc status=none",
		 bin, p, p);
	cr_assert_eq(system(cmd), 0);
	(void)symtab__load_dso(&st, &no_cache, DSO_KIND_USER, p, NULL, 0);
	symtab__exit(&st);
}

/* the byte offset in path's section headers of section name's field at field_off */
static long shdr_field(const char *path, const char *name, size_t field_off)
{
	char cmd[1024];
	FILE *f;
	long idx = -1, shoff = 0;

	/* readelf -S numbers the sections; the ELF header says where their headers are */
	snprintf(cmd, sizeof(cmd),
		 "readelf -SW '%s' | sed -n 's/^ *\\[ *\\([0-9]*\\)\\] %s .*/\\1/p'; "
		 "readelf -hW '%s' | sed -n 's/.*Start of section headers: *\\([0-9]*\\).*/\\1/p'",
		 path, name, path);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%ld %ld", &idx, &shoff), 2, "%s", cmd);
	pclose(f);
	return shoff + idx * 64 + (long)field_off;	/* Elf64_Shdr */
}

static void put_u64(const char *path, long off, u64 v)
{
	int fd = open(path, O_WRONLY);

	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, &v, sizeof(v), off), (ssize_t)sizeof(v));
	close(fd);
}

/* The symbol sections are read with bounded windows: whatever their headers claim. */
Test(symtab, symbol_sections_read_within_the_file)
{
	struct symtab st;
	char p[512], lib[512], cmd[1200];

	symtab__init(&st);
	/* no symbol perf keeps: nothing to name, sort or fix */
	path_of(p, sizeof(p), "empty.c");
	write_file(p, "\n");
	build("empty.so", "empty.c", "-shared -nostdlib -Wl,--build-id=none");
	path_of(lib, sizeof(lib), "empty.so");
	snprintf(cmd, sizeof(cmd), "strip --strip-all '%s'", lib);	/* .dynsym: the null entry */
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(symtab__load_dso(&st, &no_cache, DSO_KIND_USER, lib, NULL, 0), 0);
	cr_assert_eq(st.nr, 0);
	/* a library with symbols, then its .dynsym or .dynstr moved past the end of the file:
	   libelf refuses such a section, and perf's dso__load_sym gives up: no symbols */
	path_of(p, sizeof(p), "lib.c");
	write_file(p, "int f1(int x) { return x + 1; }\nint f2(int x) { return x * 2; }\n");
	build("lib.so", "lib.c", "-shared -fPIC");
	path_of(lib, sizeof(lib), "lib.so");
	cr_assert_eq(symtab__load_dso(&st, &no_cache, DSO_KIND_USER, lib, NULL, 0), 0);
	cr_assert_not_null(by_name(&st, "f1"));
	snprintf(cmd, sizeof(cmd), "strip --strip-all '%s'", lib);
	cr_assert_eq(system(cmd), 0);
	for (int i = 0; i < 2; i++) {
		const char *sec = i ? "\\.dynstr" : "\\.dynsym";

		path_of(p, sizeof(p), "moved.so");
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", lib, p);
		cr_assert_eq(system(cmd), 0);
		put_u64(p, shdr_field(p, sec, 24), 1ull << 40);	/* sh_offset */
		(void)symtab__load_dso(&st, &no_cache, DSO_KIND_USER, p, NULL, 0);
		cr_assert_eq(st.nr, 0, "%s", sec);
		/* a size past the end: refused the same way */
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", lib, p);
		cr_assert_eq(system(cmd), 0);
		put_u64(p, shdr_field(p, sec, 32), 1ull << 40);	/* sh_size */
		(void)symtab__load_dso(&st, &no_cache, DSO_KIND_USER, p, NULL, 0);
		cr_assert_eq(st.nr, 0, "%s", sec);
	}
	symtab__exit(&st);
}

/*
 * An ELF32 copy of a library (objcopy rewrites its headers and symbols) has the same symbols:
 * the same sizes and distances (objcopy moves the segments' file offsets, so the map__map_ip
 * addresses themselves move).
 */
Test(symtab, elf32_symbols_like_elf64)
{
	struct symtab st64, st32;
	char p[512], lib[512], cmd[1200];
	static const char *const names[] = { "f1", "f2" };

	path_of(p, sizeof(p), "lib.c");
	write_file(p, "int f1(int x) { return x + 1; }\nint f2(int x) { return x * 2; }\n");
	build("lib.so", "lib.c", "-shared -fPIC");
	path_of(lib, sizeof(lib), "lib.so");
	path_of(p, sizeof(p), "lib32.so");
	snprintf(cmd, sizeof(cmd), "objcopy -I elf64-x86-64 -O elf32-little '%s' '%s'", lib, p);
	cr_assert_eq(system(cmd), 0);
	symtab__init(&st64);
	symtab__init(&st32);
	cr_assert_eq(symtab__load_dso(&st64, &no_cache, DSO_KIND_USER, lib, NULL, 0), 0);
	cr_assert_eq(symtab__load_dso(&st32, &no_cache, DSO_KIND_USER, p, NULL, 0), 0);
	const struct symbol *a[2], *b[2];

	for (size_t i = 0; i < 2; i++) {
		a[i] = by_name(&st64, names[i]);
		b[i] = by_name(&st32, names[i]);
		cr_assert_not_null(a[i], "%s", names[i]);
		cr_assert_not_null(b[i], "%s", names[i]);
		cr_expect_eq(a[i]->size, b[i]->size, "%s", names[i]);
	}
	cr_expect_eq(a[1]->start - a[0]->start, b[1]->start - b[0]->start);
	cr_expect_eq(st64.nr, st32.nr);
	symtab__exit(&st64);
	symtab__exit(&st32);
}

static const char kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 T zzzz_long_name_first\n"
	"ffffffff81000100 T short\n"
	"ffffffff81000200 t local_fn\n"
	"ffffffff81000300 r some_rodata\n"
	"ffffffff81000400 W weak_fn\n"
	"ffffffff81000500 T __entry_SYSCALL_64_trampoline\n"
	"garbage line\n"
	"ffffffff81000600 T after_garbage\n"
	"\n"
	"ffffffff81000680 T hidden_by_empty_line\n"
	"ffffffff81000700 D last_data\n"
	"ffffffffc0001000 t mod_fn\t[some_module]\n";

Test(symtab, kallsyms_rules)
{
	struct symtab st;
	struct kernel_map_bounds kb;
	const struct symbol *s;
	char p[512];

	path_of(p, sizeof(p), "kallsyms");
	write_file(p, kallsyms_text);
	symtab__init(&st);
	cr_assert_eq(symtab__load_kallsyms_file(&st, p, 0, &kb), 0);
	/* r/R dropped, module and trampoline symbols dropped */
	cr_assert_null(by_name(&st, "some_rodata"));
	cr_assert_null(by_name(&st, "mod_fn"));
	cr_assert_null(by_name(&st, "__entry_SYSCALL_64_trampoline"));
	cr_assert_not_null(by_name(&st, "weak_fn"));
	cr_assert_not_null(by_name(&st, "after_garbage"));
	/* perf's parser skips the line after an empty one */
	cr_assert_null(by_name(&st, "hidden_by_empty_line"));
	/* duplicates after fixup_end: the sized one (the later) wins */
	cr_assert_str_eq(name_at(&st, 0xffffffff81000180), "short");
	/* rodata is gone, so local_fn runs to weak_fn */
	cr_assert_str_eq(name_at(&st, 0xffffffff810003ff), "local_fn");
	/* the last kernel symbol before a module symbol ends at the next page boundary */
	s = by_name(&st, "last_data");
	cr_assert_not_null(s);
	cr_assert_eq(s->start + s->size, 0xffffffff81002000ULL);	/* roundup(end + 4096) */
	/* perf's kallsyms2elf_type: data and bss symbols are objects, text and weak ones not */
	cr_assert(s->object);
	cr_assert_not(by_name(&st, "weak_fn")->object);
	cr_assert_not(by_name(&st, "local_fn")->object);
	cr_assert(kb.valid);
	cr_assert_eq(kb.start, 0xffffffff81000000ULL);
	cr_assert_eq(kb.end, 0xffffffff81002000ULL);
	/* _stext and _text share an address: after fixup_end only the later one has a size */
	cr_assert_str_eq(name_at(&st, 0xffffffff81000000), "_text");

	/* relocation: the recording's _text was 0x200000 lower */
	cr_assert_eq(symtab__load_kallsyms_file(&st, p, 0xffffffff80e00000ULL, &kb), 0);
	cr_assert_str_eq(name_at(&st, 0xffffffff80e00180), "short");
	cr_assert_eq(kb.start, 0xffffffff80e00000ULL);
	symtab__exit(&st);
}

Test(symtab, kallsyms_failures)
{
	struct symtab st;
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	char p[512];

	symtab__init(&st);
	path_of(p, sizeof(p), "no_text");
	write_file(p, "ffffffff81000100 T foo\n");
	/* a relocation needs _text in the file */
	cr_assert_eq(symtab__load_kallsyms_file(&st, p, 0xffffffff81000000ULL, NULL), -1);
	cr_assert_eq(st.nr, 0);
	cr_assert_eq(symtab__load_kallsyms_file(&st, p, 0, NULL), 0);
	cr_assert_eq(st.nr, 1);
	/* last symbol: roundup(start, 4096) + 4096 */
	cr_assert_eq(st.syms[0].start + st.syms[0].size, 0xffffffff81002000ULL);
	cr_assert_eq(symtab__load_kallsyms_file(&st, "/nonexistent/kallsyms", 0, NULL), -1);
	path_of(p, sizeof(p), "binary");
	write_file(p, "\x01\x02 \xff\xfe\n\n\n zz\nffff\n1 T\n");
	cr_assert_eq(symtab__load_kallsyms_file(&st, p, 0, NULL), 0);
	/* --kallsyms wins; a symfs without one means no kernel symbols */
	cfg.kallsyms = p;
	cr_assert_eq(symtab__load_dso(&st, &cfg, DSO_KIND_KERNEL, "[kernel.kallsyms]", NULL, 0), 0);
	cfg.kallsyms = NULL;
	cfg.symfs = "/nonexistent";
	cr_assert_eq(symtab__load_dso(&st, &cfg, DSO_KIND_KERNEL, "[kernel.kallsyms]", NULL, 0), -1);
	symtab__exit(&st);
}

Test(symtab, perf_map_overlaps_follow_the_rb_tree)
{
	struct symtab st;
	char p[256];

	/* perf maps get no fixups, so overlaps and size-0 symbols stay */
	snprintf(p, sizeof(p), "/tmp/perf-%d-symtab-test.map", (int)getpid());
	write_file(p, "1000 100 outer\n"
		      "1010 10 inner\n"
		      "1020 0 zero\n"
		      "2000 10 b\n"
		      "2000 10 a_dup\n"
		      "3000 10 no_newline_at_end");
	symtab__init(&st);
	cr_assert_eq(symtab__load_dso(&st, &no_cache, DSO_KIND_USER, p, NULL, 0), 0);
	/* perf's parser skips names shorter than two bytes ("b") */
	cr_assert_eq(st.nr, 5);
	cr_assert_null(by_name(&st, "b"));
	cr_assert_str_eq(name_at(&st, 0x1001), "outer");
	/* past inner, perf's walk turns right at the root and never meets outer */
	cr_assert_str_eq(name_at(&st, 0x10ff), "[unknown]");
	cr_assert_str_eq(name_at(&st, 0x1100), "[unknown]");
	/* the last line loses its last byte, as in perf */
	cr_assert_not_null(by_name(&st, "no_newline_at_en"));
	/* every answer is one of the symbols covering the address */
	for (u64 a = 0x1000; a < 0x1100; a++) {
		const struct symbol *s = symtab__find(&st, a);

		if (s)
			cr_assert(a >= s->start && (a < s->start + s->size || a == s->start));
	}
	unlink(p);
	symtab__exit(&st);
}

/* The builder's in-order list against a plain sort: inserts in any order, ties, erases. */
Test(symtab, builder_keeps_its_inorder_list)
{
	enum { N = 3000 };
	struct symtab st;
	struct sym_builder b;
	u32 nodes[N];
	u64 starts[N];
	unsigned int seed = 12345;

	symtab__init(&st);
	builder_init(&b, &st);
	for (u32 i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		/* mostly rising, as kallsyms is, with jumps back and repeats */
		starts[i] = (i % 7 == 3) ? (seed >> 8) % (16 * N) : 16 * (u64)i;
		nodes[i] = builder_add(&b, starts[i], 0, SYM_BIND_GLOBAL, "s", 1);
	}
	for (u32 i = 0; i < N; i += 5)
		builder_erase(&b, nodes[i]);
	{
		u32 n = builder_first(&b), prev = SYM_NIL, count = 0;

		for (; n != SYM_NIL; prev = n, n = builder_next(&b, n), count++) {
			if (prev != SYM_NIL) {
				cr_assert_leq(b.v[prev].start, b.v[n].start, "in order of start");
				if (b.v[prev].start == b.v[n].start)
					cr_assert_lt(prev, n, "equal starts in insertion order");
			}
		}
		cr_assert_eq(count, N - (N + 4) / 5);
		cr_assert_eq(prev, b.last);
	}
	builder_exit(&b);
	symtab__exit(&st);
}

/*
 * Candidate files under a directory that is not there cost one stat for the directory, and
 * the answers stay right: files in existing directories are found, even next to misses.
 */
Test(symtab, regular_file_checks_remember_missing_directories, .init = setup, .fini = teardown)
{
	char path[512], dir[300];

	snprintf(path, sizeof(path), "%s/present.so", tmpdir);
	write_file(path, "x");
	cr_assert(symtab_is_regular_file(path));
	snprintf(path, sizeof(path), "%s/absent.so", tmpdir);
	cr_assert_not(symtab_is_regular_file(path));	/* its directory exists: learnt so */
	snprintf(path, sizeof(path), "%s/present.so", tmpdir);
	cr_assert(symtab_is_regular_file(path));
	cr_assert_not(symtab_is_regular_file(tmpdir));	/* a directory is not a regular file */
	for (int i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), "%s/nodir/lib%d.so", tmpdir, i);
		cr_assert_not(symtab_is_regular_file(path));
	}
	/* a file made in a directory after an answer about a sibling is still found */
	snprintf(dir, sizeof(dir), "%s/later", tmpdir);
	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/a.so", dir);
	cr_assert_not(symtab_is_regular_file(path));
	write_file(path, "x");
	cr_assert(symtab_is_regular_file(path));
}
