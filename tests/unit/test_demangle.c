/*
 * demangle unit tests: C++ names as perf 6.1 prints them. Each expected name is what
 * `perf probe -F -x LIB` (perf 6.1, the same demangling as report and script) listed for the
 * mangled symbol of Debian's libstdc++ 12, cc1 12 and libLLVM 15.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "symtab/demangle.h"

static void check(const char *mangled, const char *expected)
{
	char *name = symbol_demangle(mangled);

	cr_assert_not_null(name, "%s", mangled);
	cr_expect_str_eq(name, expected, "%s", mangled);
	free(name);
}

Test(demangle, function_loses_parameters_and_qualifiers)
{
	check("_ZNK4llvm2cl10SubCommandcvbEv", "llvm::cl::SubCommand::operator bool");
	check("_ZN4llvm10sampleproflsERNS_11raw_ostreamERKNS0_12LineLocationE",
	      "llvm::sampleprof::operator<<");
	check("_ZNK4llvm6Module28debug_compile_units_iteratorptEv",
	      "llvm::Module::debug_compile_units_iterator::operator->");
	check("_ZN4llvm4UsernwEm", "llvm::User::operator new");
	check("_ZN4llvm4UserdlEPv", "llvm::User::operator delete");
}

Test(demangle, template_function_loses_its_return_type)
{
	check("_Z10multiple_pILj1E16generic_wide_intI22fixed_wide_int_storageILi128EEES0_IN2wi13"
	      "extended_treeILi128EEEEEN10if_nonpolyIT1_bXsr15poly_int_traitsIS9_E7is_polyEE4type"
	      "ERK12poly_int_podIXT_ET0_ES9_",
	      "multiple_p<1u, generic_wide_int<fixed_wide_int_storage<128> >, "
	      "generic_wide_int<wi::extended_tree<128> > >");
	check("_ZNSt15__exception_ptr12__dest_thunkISt12future_errorEEvPv",
	      "std::__exception_ptr::__dest_thunk<std::future_error>");
}

/* an operator's own brackets and spaces are not the return type's */
Test(demangle, template_operator)
{
	check("_ZmlILj1EtiE8poly_intIXT_EN11poly_resultIT0_N10if_nonpolyIT1_S4_Xsr15poly_int_"
	      "traitsIS4_E7is_polyEE4typeEXsr22poly_coeff_pair_traitsIS2_S8_E11result_kindEE4type"
	      "EERK12poly_int_podIXT_ES2_ERKS4_",
	      "operator*<1u, unsigned short, int>");
	check("_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKa",
	      "std::operator<< <std::char_traits<char> >");
	check("_ZN4llvm4PBQPlsINS_11raw_ostreamEEERT_S4_RKNS0_6MatrixE",
	      "llvm::PBQP::operator<< <llvm::raw_ostream>");
}

/* a thunk's target keeps its parameters; a type's text keeps its brackets */
Test(demangle, special_names)
{
	check("_ZTv0_n24_NSoD0Ev",
	      "virtual thunk to std::basic_ostream<char, std::char_traits<char> >::~basic_ostream()");
	check("_ZTIDn", "typeinfo for decltype(nullptr)");
	check("_ZGVNSt10moneypunctIcLb0EE2idE", "guard variable for std::moneypunct<char, false>::id");
	check("_ZTVSt10bad_typeid", "vtable for std::bad_typeid");
}

Test(demangle, not_mangled)
{
	cr_expect_null(symbol_demangle("main"));
	cr_expect_null(symbol_demangle("_Zgarbage"));
}
