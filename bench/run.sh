#!/usr/bin/env bash
# Every benchmark from one command, and ONE summary table (markdown on stdout, summary.csv).
#
#   bash bench/run.sh [build-dir]       (default build-dir: <repo>/build; ~11 minutes on 2 cores)
#   QUICK=1 bash bench/run.sh build     (smoke run: small grids, 1-3 repetitions; ~1 minute)
#
# Parts, in this order (PARTS selects; a part left out shows as "skipped"):
#   stream   bench/stream.c: STREAM triad bandwidth on 1 rank and on each rank count of NPS
#            (<build-dir>/bench/stream when built, else compiled here with mpicc into OUT)
#   forward  bench/forward.sh: 2D 1024^2 Taylor-Green, 2D 512^2 cavity, 3D 128^3 cavity, on NPS
#   weak     bench/forward.sh once per rank count P: 2D cavity of WEAK_N^2 cells on 1 rank and of
#            n_P^2 on P ranks, n_P the even 7-smooth multiple of P closest to WEAK_N sqrt(P)
#            (forward_bench takes one n for every direction; 7-smooth keeps the FFTs fast)
#   poisson  bench/poisson.sh with KSP=0: FFT solve vs the bare FFTW round trip
#   adjoint  bench/adjoint.sh: (forward + adjoint) / forward and peak memory, RAM and disk
#            schedules; and its memory part (working memory of a long run) with MEM_STEPS steps
#   icofoam  bench/icofoam.sh: flowgrad / icoFoam on the 256^2 cavity
# Each part writes its CSV and its log into OUT; a part that fails does not stop the others. Then
# bench/summary.py OUT prints the table and writes OUT/summary.csv (and the table to summary.md).
#
# Exit status: 0 every target met; 1 a target missed or a part failed; 2 a tool or a build is
# missing (the build directory, python3, a benchmark program, mpicc for stream, icoFoam).
#
# Environment (defaults; QUICK=1 changes those marked *):
#   PARTS="stream forward weak poisson adjoint icofoam"   OUT=<build-dir>/bench/results-<date>
#   NPS  rank counts: 1 2, and 4 8 ... up to nproc when there are more cores
#   REPS=5*   forward and weak repetitions (median)     CASES* forward cases (forward.sh syntax)
#   STEPS2D=10* STEPS3D=3* WARMUP=3* (forward, weak)    WEAK_N=512*
#   STREAM_REPS=10*   POISSON_REPS=9*
#   ADJOINT_NPS=NPS   ADJOINT_REPS=3*   ADJOINT_CASES="test re100"*   ADJOINT_PARTS="time memory"
#   MEM_STEPS=5000*   MEM_CONST=24      ICO_N=256*   ICO_STEPS=200*   ICO_REPS=3*
#   MPIEXEC="mpiexec --allow-run-as-root --oversubscribe"
#   SNAPSHOT=1: the programs (flowgrad, bench/*_bench, bench/stream) are first copied into
#     OUT/build and run from there, so that a rebuild of build-dir during the run changes nothing
#     (SNAPSHOT=0 runs them in place)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "run.sh: $PY not found" >&2; exit 2; }
[ -d "${1:-$root/build}" ] || { echo "run.sh: build directory ${1:-$root/build} not found; build first" >&2; exit 2; }
build=$(cd "${1:-$root/build}" && pwd)
command -v mpiexec >/dev/null || { echo "run.sh: mpiexec not found" >&2; exit 2; }

QUICK=${QUICK:-0}
[ "$QUICK" = 0 ] && q= || q=1
ncores=$(nproc 2>/dev/null || echo 2)
if [ -z "${NPS:-}" ]; then
  NPS="1 2"
  p=4
  while [ "$p" -le "$ncores" ]; do NPS="$NPS $p"; p=$((p * 2)); done
fi
PARTS=${PARTS:-"stream forward weak poisson adjoint icofoam"}
REPS=${REPS:-${q:+3}}; REPS=${REPS:-5}
STEPS2D=${STEPS2D:-${q:+3}}; STEPS2D=${STEPS2D:-10}
STEPS3D=${STEPS3D:-${q:+1}}; STEPS3D=${STEPS3D:-3}
WARMUP=${WARMUP:-${q:+1}}; WARMUP=${WARMUP:-3}
CASES=${CASES:-${q:+"tg:2:256 cavity:2:128 cavity:3:32"}}; CASES=${CASES:-"tg:2:1024 cavity:2:512 cavity:3:128"}
WEAK_N=${WEAK_N:-${q:+128}}; WEAK_N=${WEAK_N:-512}
STREAM_REPS=${STREAM_REPS:-${q:+3}}; STREAM_REPS=${STREAM_REPS:-10}
POISSON_REPS=${POISSON_REPS:-${q:+3}}; POISSON_REPS=${POISSON_REPS:-9}
ADJOINT_NPS=${ADJOINT_NPS:-$NPS}
ADJOINT_REPS=${ADJOINT_REPS:-${q:+1}}; ADJOINT_REPS=${ADJOINT_REPS:-3}
ADJOINT_CASES=${ADJOINT_CASES:-${q:+test}}; ADJOINT_CASES=${ADJOINT_CASES:-"test re100"}
ADJOINT_PARTS=${ADJOINT_PARTS:-"time memory"}
MEM_STEPS=${MEM_STEPS:-${q:+400}}; MEM_STEPS=${MEM_STEPS:-5000}
MEM_CONST=${MEM_CONST:-24}
ICO_N=${ICO_N:-${q:+128}}; ICO_N=${ICO_N:-256}
ICO_STEPS=${ICO_STEPS:-${q:+100}}; ICO_STEPS=${ICO_STEPS:-200}
ICO_REPS=${ICO_REPS:-${q:+1}}; ICO_REPS=${ICO_REPS:-3}
MPIEXEC=${MPIEXEC:-"mpiexec --allow-run-as-root --oversubscribe"}
OUT=${OUT:-$build/bench/results-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT" || { echo "run.sh: cannot create $OUT" >&2; exit 2; }
OUT=$(cd "$OUT" && pwd)
SNAPSHOT=${SNAPSHOT:-1}
src_build=$build
if [ "$SNAPSHOT" != 0 ]; then
  mkdir -p "$OUT/build/bench"
  [ ! -x "$src_build/flowgrad" ] || cp -p "$src_build/flowgrad" "$OUT/build/"
  for f in "$src_build"/bench/*_bench "$src_build/bench/stream"; do
    [ ! -x "$f" ] || cp -p "$f" "$OUT/build/bench/"
  done
  build=$OUT/build
fi

# what the summary needs to know about this run
{
  echo "key,value"
  echo "date,$(date -Iseconds)"
  echo "build,$src_build"
  echo "build_time,$(date -Iseconds -r "$src_build/bench/forward_bench" 2>/dev/null || echo unknown)"
  echo "commit,$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "cpu,\"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)\""
  echo "nproc,$ncores"
  echo "nps,$NPS"
  echo "quick,$QUICK"
  echo "reps,$REPS"
  echo "poisson_reps,$POISSON_REPS"
  echo "adjoint_reps,$ADJOINT_REPS"
  echo "mem_const,$MEM_CONST"
  echo "weak_n,$WEAK_N"
} > "$OUT/settings.csv"
echo "part,status,rc,seconds" > "$OUT/status.csv"
echo "run.sh: build $src_build$([ "$SNAPSHOT" = 0 ] || echo " (copied to $build)"), results $OUT, ranks $NPS, parts: $PARTS${q:+ (QUICK)}"

# run_part NAME COMMAND...: the command's output to the screen and OUT/NAME.log, its exit status
# and wall time to OUT/status.csv. A part whose tools are missing says so with `missing MESSAGE`
# (status "missing"); any other exit status but 0 and 1 is "failed" (1: a target missed, or a
# failure; the summary tells which from the part's CSV).
run_part() {
  local name=$1 rc t0 t1 st
  shift
  if [[ " $PARTS " != *" $name "* ]]; then
    echo "$name,skipped,,0" >> "$OUT/status.csv"
    return
  fi
  echo
  echo "===== $name ====="
  rm -f "$OUT/$name.missing"
  t0=$(date +%s.%N)
  "$@" 2>&1 | tee "$OUT/$name.log"
  rc=${PIPESTATUS[0]}
  t1=$(date +%s.%N)
  case $rc in 0) st=ok ;; 1) st=exit1 ;; *) st=failed ;; esac
  [ ! -f "$OUT/$name.missing" ] || st=missing
  echo "$name,$st,$rc,$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" >> "$OUT/status.csv"
  echo "===== $name: exit $rc ====="
}

missing() { # PART MESSAGE: the part cannot run for want of a tool or a program
  echo "run.sh: $1: $2" >&2
  echo "$2" > "$OUT/$1.missing"
  return 2
}
need() { # PART PROGRAM...: each must be an executable file
  local part=$1 f
  shift
  for f in "$@"; do [ -x "$f" ] || { missing "$part" "${f#"$build"/} not found in $src_build; build first"; return 2; }; done
}

part_stream() {
  local exe=$build/bench/stream rc=0
  if [ ! -x "$exe" ]; then
    command -v mpicc >/dev/null || { missing stream "bench/stream not in $src_build and mpicc not found"; return 2; }
    exe=$OUT/stream
    echo "stream: $src_build/bench/stream not built; mpicc -O3 -o $exe bench/stream.c"
    mpicc -std=c11 -O3 -o "$exe" "$root/bench/stream.c" || return 3
  fi
  rm -f "$OUT/stream.csv"
  for np in $NPS; do
    $MPIEXEC -n "$np" "$exe" -reps "$STREAM_REPS" -csv "$OUT/stream.csv" || rc=1
  done
  return $rc
}

part_forward() {
  need forward "$build/bench/forward_bench" || return 2
  env CSV="$OUT/forward.csv" NPS="$NPS" REPS="$REPS" STEPS2D="$STEPS2D" STEPS3D="$STEPS3D" \
    WARMUP="$WARMUP" CASES="$CASES" POISSON=fftw MPIEXEC="$MPIEXEC" bash "$root/bench/forward.sh" "$build"
}

part_weak() {
  local np n rc=0
  need weak "$build/bench/forward_bench" || return 2
  rm -f "$OUT"/weak-np*.csv
  for np in $NPS; do
    n=$($PY -c '
import math, sys
n1, p = int(sys.argv[1]), int(sys.argv[2])
def smooth(m):
    for f in (2, 3, 5, 7):
        while m % f == 0: m //= f
    return m == 1
want = n1 * math.sqrt(p)
print(min((m for m in range(2, 4 * int(want) + 4) if m % 2 == 0 and m % p == 0 and smooth(m)), key=lambda m: (abs(m - want), m)))
' "$WEAK_N" "$np")
    echo "weak: $np rank(s): cavity 2D ${n}^2 (${WEAK_N}^2 x $np = $((WEAK_N * WEAK_N * np)) cells wanted, $((n * n)) taken)"
    env CSV="$OUT/weak-np$np.csv" NPS="$np" REPS="$REPS" STEPS2D="$STEPS2D" STEPS3D="$STEPS3D" \
      WARMUP="$WARMUP" CASES="cavity:2:$n" POISSON=fftw MPIEXEC="$MPIEXEC" bash "$root/bench/forward.sh" "$build" || rc=$?
  done
  return $rc
}

part_poisson() {
  need poisson "$build/bench/poisson_bench" || return 2
  env CSV="$OUT/poisson.csv" NPS="$NPS" REPS="$POISSON_REPS" KSP=0 MPIEXEC="$MPIEXEC" bash "$root/bench/poisson.sh" "$build"
}

part_adjoint() {
  need adjoint "$build/bench/adjoint_bench" || return 2
  env CSV="$OUT/adjoint.csv" NPS="$ADJOINT_NPS" REPS="$ADJOINT_REPS" CASES="$ADJOINT_CASES" PARTS="$ADJOINT_PARTS" \
    MEM_STEPS="$MEM_STEPS" MEM_CONST="$MEM_CONST" MPIEXEC="$MPIEXEC" bash "$root/bench/adjoint.sh" "$build"
}

part_icofoam() {
  need icofoam "$build/flowgrad" || return 2
  if ! command -v icoFoam >/dev/null && [ "$(id -u)" -ne 0 ]; then
    missing icofoam "icoFoam not found (install the Debian package openfoam, as root)"
    return 2
  fi
  env CSV="$OUT/icofoam.csv" WORK="$OUT/icofoam" N="$ICO_N" STEPS="$ICO_STEPS" REPS="$ICO_REPS" \
    bash "$root/bench/icofoam.sh" "$build"
}

t_start=$(date +%s)
run_part stream part_stream
run_part forward part_forward
run_part weak part_weak
run_part poisson part_poisson
run_part adjoint part_adjoint
run_part icofoam part_icofoam
echo
echo "run.sh: all parts done in $(( $(date +%s) - t_start )) s"
echo
$PY "$root/bench/summary.py" "$OUT"
