#!/bin/sh
# expect_exit.sh CODE REGEX -- COMMAND [ARGS...]
#
# Runs COMMAND and passes when it exits with exactly CODE, exactly one line of its output (stdout
# and stderr together) matches the extended regular expression REGEX (a message printed once, also
# at several ranks), and nothing in the output tells of a crash, a signal, an abort or a PETSc
# traceback. Prints the output when it fails.
set -u
if [ $# -lt 4 ] || [ "$3" != "--" ]; then
  echo "usage: expect_exit.sh CODE REGEX -- COMMAND [ARGS...]" >&2
  exit 2
fi
code=$1
regex=$2
shift 3
# One rank: mpiexec's wait before it SIGKILLs the ranks of a job that failed (Open MPI's
# odls_base_sigkill_timeout, 1 s, paid twice, for a process already gone: 2.1 s of the 2.2 s such a
# test took) only slows the test down. With several ranks it gives the others the time to finish
# their own exit (a message still to print), so it stays there.
case " $* " in *" -n 1 "*) export OMPI_MCA_odls_base_sigkill_timeout=0 ;; esac
out=$(mktemp "${TMPDIR:-/tmp}/expect_exit.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
rc=$?
fail=""
if [ "$rc" -gt 128 ]; then
  fail="killed by signal $((rc - 128))"
elif [ "$rc" -ne "$code" ]; then
  fail="exit code $rc, expected $code"
fi
n=$(grep -cE -- "$regex" "$out")
if [ -z "$fail" ] && [ "$n" -ne 1 ]; then
  fail="$n lines match /$regex/, expected exactly 1"
fi
if [ -z "$fail" ] && grep -qE 'exited on signal|Segmentation fault|core dumped|MPI_ABORT|AddressSanitizer|runtime error:|PETSC ERROR|\(internal error' "$out"; then
  fail="the output tells of a crash or an abort"
fi
if [ -n "$fail" ]; then
  echo "FAIL: $fail"
  echo "command: $*"
  echo "----- output -----"
  cat "$out"
  exit 1
fi
echo "ok: exit $rc, message matches /$regex/"
sed -n '1,5p' "$out"
exit 0
