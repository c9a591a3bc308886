#!/bin/sh
# Every constant Sluice's mpi.h defines has MPICH's value, and the scalar
# types and MPI_Status have MPICH's sizes and layout (the MPICH ABI,
# docs/TOOLS.md "MPICH binaries").  The names come from Sluice's header, so
# a constant added later is compared too.  MPI_VERSION/MPI_SUBVERSION are
# left out: Sluice says 3.1, MPICH 4.0 (compile time only, never passed to
# the library), and so are the *_DUP_FN, the address of MPIR_Dup_fn, which
# differs between two programs (the name is checked by the link instead).
# usage: mpich_abi_constants.sh <sluice include dir> <cc> <mpicc.mpich> <work dir>
set -eu
inc=$1 cc=$2 mpicc=$3 dir=$4
mkdir -p "$dir"
names=$(sed -n -e 's/^#define \(MPI_[A-Z0-9_]*\)[ (].*/\1/p' \
               -e 's/^ *\(MPI_COMBINER_[A-Z0-9_]*\) =.*/\1/p' "$inc/mpi.h" |
        grep -v -x -e MPI_VERSION -e MPI_SUBVERSION -e MPI_DUP_FN -e MPI_COMM_DUP_FN \
             -e MPI_TYPE_DUP_FN -e MPI_WIN_DUP_FN | sort -u)
[ -n "$names" ] || { echo "no constants found in $inc/mpi.h"; exit 1; }
# printf, not echo: dash's echo would turn the \n of the C strings into newlines
{
  printf '%s\n' '#include <mpi.h>' '#include <stddef.h>' '#include <stdint.h>' \
    '#include <stdio.h>' \
    '#define T(x) _Generic((x), int: "int", long: "long", long long: "long long", default: "?")' \
    'int main(void) {'
  for n in $names; do
    printf '    printf("%%-32s %%lld\\n", "%s", (long long)(intptr_t)(%s));\n' "$n" "$n"
  done
  for t in MPI_Aint MPI_Offset MPI_Count MPI_Fint MPI_Comm MPI_Group MPI_Datatype \
           MPI_Errhandler MPI_Op MPI_Info MPI_Request MPI_Message MPI_Win; do
    printf '    { %s x = 0; printf("type %%-27s %%s %%zu\\n", "%s", T(x), sizeof x); }\n' "$t" "$t"
  done
  for f in count_lo count_hi_and_cancelled MPI_SOURCE MPI_TAG MPI_ERROR; do
    printf '    printf("MPI_Status.%%-21s %%zu\\n", "%s", offsetof(MPI_Status, %s));\n' "$f" "$f"
  done
  printf '%s\n' '    printf("sizeof(MPI_Status) %zu\n", sizeof(MPI_Status));' '    return 0;' '}'
} > "$dir/abi_constants.c"
"$cc" -std=gnu11 -I"$inc" -o "$dir/abi_sluice" "$dir/abi_constants.c"
"$mpicc" -std=gnu11 -o "$dir/abi_mpich" "$dir/abi_constants.c"
"$dir/abi_sluice" > "$dir/abi_sluice.txt"
"$dir/abi_mpich" > "$dir/abi_mpich.txt"
if ! diff "$dir/abi_mpich.txt" "$dir/abi_sluice.txt"; then
  echo "mpich_abi_constants: Sluice's mpi.h differs from MPICH's (< MPICH, > Sluice)"
  exit 1
fi
echo "mpich_abi_constants: $(wc -l < "$dir/abi_sluice.txt") values as MPICH's"
