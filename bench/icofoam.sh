#!/usr/bin/env bash
# flowgrad side by side with OpenFOAM's icoFoam on the same lid-driven cavity: the unit square,
# lid speed 1, Re = 100 (nu = 0.01), N x N cells (default 256^2), the same dt and number of steps,
# 1 core each. icoFoam: PISO (2 correctors), GAMG for the pressure, symmetric Gauss-Seidel for the
# velocity, Euler in time, linear (second-order central) fluxes; flowgrad: its RK3 projection with
# the FFT pressure solve (cases/cavity/cavity.yaml).
#
#   bash bench/icofoam.sh [build-dir]       (default build; installs the Debian package openfoam when
#                                            missing and run as root; about 2 minutes at 256^2)
#
# Environment: N=256, DT=4e-4 (below flowgrad's explicit viscous limit 4.8e-4 at 256^2 and Re 100;
# icoFoam's implicit diffusion would allow more), STEPS=200, REPS=3 (median of REPS runs of each code), WORK
# (default <build-dir>/bench/icofoam), CSV (default <build-dir>/bench/icofoam_bench.csv).
# Prints, per code, the median wall time of the time loop and of the whole command, the
# throughput in cell-steps/s of the loop, and the ratio flowgrad/icoFoam; and, as a check that both
# solved the same flow, the largest difference of u along the vertical centre line at the end.
# Exit 0 when the throughput ratio is at least 20 (the target of issue 10), 1 when not, 2 when a
# tool is missing. TTS=1: time to solution instead (issue 20, bench (a)): icoFoam at Courant 0.9
# (143 steps of 0.5/143) and flowgrad at its own step (FG_DT=5e-3, FG_STEPS=100: the implicit
# viscous term, which auto selects there) to t = 0.5; the ratio of the loop times must be >= 20.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
flowgrad=$build/flowgrad
N=${N:-256}
TTS=${TTS:-0}
if [ "$TTS" = 1 ]; then # time to solution: each code at its own step to t = 0.5 (issue 20, bench (a))
  DT=${DT:-3.4965034965034965e-3} # 0.5/143: icoFoam at Courant 0.895 (|U| dt / h with the lid speed)
  STEPS=${STEPS:-143}
  FG_DT=${FG_DT:-5e-3}            # flowgrad: the implicit viscous term (auto), CFL ~1.3 (6.25e-3 exceeds 1.5)
  FG_STEPS=${FG_STEPS:-100}
fi
DT=${DT:-4e-4}
STEPS=${STEPS:-200}
FG_DT=${FG_DT:-$DT}
FG_STEPS=${FG_STEPS:-$STEPS}
REPS=${REPS:-3}
WORK=${WORK:-$build/bench/icofoam}
CSV=${CSV:-$build/bench/icofoam_bench.csv}
PY=/usr/bin/python3
[ -x "$flowgrad" ] || { echo "icofoam.sh: $flowgrad not found; build first" >&2; exit 2; }
if ! command -v icoFoam >/dev/null || ! command -v blockMesh >/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "icofoam.sh: installing the Debian package openfoam"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends openfoam >/dev/null
  else
    echo "icofoam.sh: icoFoam not found: install the Debian package openfoam (as root)" >&2
    exit 2
  fi
fi
# OpenFOAM's environment (its etc/ dictionaries); its bashrc is not written for set -u
foam_bashrc=${FOAM_BASHRC:-/usr/share/openfoam/etc/bashrc}
if [ -z "${WM_PROJECT_DIR:-}" ] && [ -f "$foam_bashrc" ]; then
  set +u
  # shellcheck disable=SC1090
  source "$foam_bashrc" > /dev/null 2>&1 || true
  set -u
fi
END=$($PY -c "print(repr($DT * $STEPS))")
rm -rf "$WORK"
mkdir -p "$WORK"

# --- the OpenFOAM case ---------------------------------------------------------------------------
of=$WORK/foam
mkdir -p "$of/system" "$of/constant" "$of/0"
header() { # class object
  printf 'FoamFile\n{\n    version 2.0;\n    format ascii;\n    class %s;\n    object %s;\n}\n' "$1" "$2"
}
{ header dictionary blockMeshDict; cat <<EOF
convertToMeters 1;
vertices ((0 0 0) (1 0 0) (1 1 0) (0 1 0) (0 0 0.1) (1 0 0.1) (1 1 0.1) (0 1 0.1));
blocks (hex (0 1 2 3 4 5 6 7) ($N $N 1) simpleGrading (1 1 1));
boundary
(
    lid { type wall; faces ((3 7 6 2)); }
    walls { type wall; faces ((0 4 7 3) (2 6 5 1) (1 5 4 0)); }
    frontAndBack { type empty; faces ((0 3 2 1) (4 5 6 7)); }
);
EOF
} > "$of/system/blockMeshDict"
{ header dictionary controlDict; cat <<EOF
application icoFoam;
startFrom startTime;
startTime 0;
stopAt endTime;
endTime $END;
deltaT $DT;
writeControl timeStep;
writeInterval $STEPS;
purgeWrite 0;
writeFormat ascii;
writePrecision 12;
writeCompression off;
timeFormat general;
timePrecision 8;
runTimeModifiable false;
EOF
} > "$of/system/controlDict"
{ header dictionary fvSchemes; cat <<'EOF'
ddtSchemes { default Euler; }
gradSchemes { default Gauss linear; grad(p) Gauss linear; }
divSchemes { default none; div(phi,U) Gauss linear; }
laplacianSchemes { default Gauss linear orthogonal; }
interpolationSchemes { default linear; }
snGradSchemes { default orthogonal; }
EOF
} > "$of/system/fvSchemes"
{ header dictionary fvSolution; cat <<'EOF'
solvers
{
    p { solver GAMG; smoother GaussSeidel; tolerance 1e-06; relTol 0.05; }
    pFinal { $p; relTol 0; }
    U { solver smoothSolver; smoother symGaussSeidel; tolerance 1e-05; relTol 0; }
}
PISO { nCorrectors 2; nNonOrthogonalCorrectors 0; pRefCell 0; pRefValue 0; }
EOF
} > "$of/system/fvSolution"
{ header dictionary transportProperties; echo "nu 0.01;"; } > "$of/constant/transportProperties"
{ header volVectorField U; cat <<'EOF'
dimensions [0 1 -1 0 0 0 0];
internalField uniform (0 0 0);
boundaryField
{
    lid { type fixedValue; value uniform (1 0 0); }
    walls { type noSlip; }
    frontAndBack { type empty; }
}
EOF
} > "$of/0/U"
{ header volScalarField p; cat <<'EOF'
dimensions [0 2 -2 0 0 0 0];
internalField uniform 0;
boundaryField
{
    lid { type zeroGradient; }
    walls { type zeroGradient; }
    frontAndBack { type empty; }
}
EOF
} > "$of/0/p"
(cd "$of" && blockMesh > log.blockMesh 2>&1) || { echo "icofoam.sh: blockMesh failed (see $of/log.blockMesh)" >&2; exit 1; }

# --- the runs: REPS of each, alternating --------------------------------------------------------
echo "code,rep,cells,steps,dt,loop_s,total_s,cell_steps_per_s" > "$CSV"
cells=$((N * N))
for rep in $(seq "$REPS"); do
  # icoFoam: the loop is its ClockTime at the last step minus at the first (s, 1 s resolution in
  # the log: use ExecutionTime, CPU seconds to 0.01 s, which equals the wall time on an idle core)
  rm -rf "$of"/[1-9]* "$of"/0.[0-9]*
  t0=$($PY -c 'import time; print(time.time())')
  (cd "$of" && icoFoam > log.icoFoam 2>&1) || { echo "icofoam.sh: icoFoam failed (see $of/log.icoFoam)" >&2; exit 1; }
  t1=$($PY -c 'import time; print(time.time())')
  loop=$($PY - "$of/log.icoFoam" <<'EOF'
import re, sys
t = [float(x) for x in re.findall(r"ExecutionTime = ([0-9.eE+-]+) s", open(sys.argv[1]).read())]
print(t[-1] - t[0] if len(t) > 1 else float("nan"))
EOF
)
  total=$($PY -c "print($t1 - $t0)")
  echo "icoFoam,$rep,$cells,$STEPS,$DT,$loop,$total,$($PY -c "print($cells * ($STEPS - 1) / $loop)")" >> "$CSV"
  # flowgrad: its own loop time ("N steps in T s")
  fgo=$WORK/flowgrad
  t0=$($PY -c 'import time; print(time.time())')
  "$flowgrad" run "$root/cases/cavity/cavity.yaml" --set "grid.cells=[$N,$N]" --set "time.dt=$FG_DT" \
    --set "time.steps=$FG_STEPS" --set output.fields_every=0 --set output.monitor_every=100000 \
    --set "output.dir=$fgo" > "$WORK/log.flowgrad" 2>&1 || { echo "icofoam.sh: flowgrad failed (see $WORK/log.flowgrad)" >&2; exit 1; }
  t1=$($PY -c 'import time; print(time.time())')
  loop=$(sed -n 's/^flowgrad run: [0-9]* steps in \([0-9.eE+-]*\) s.*/\1/p' "$WORK/log.flowgrad")
  total=$($PY -c "print($t1 - $t0)")
  echo "flowgrad,$rep,$cells,$FG_STEPS,$FG_DT,$loop,$total,$($PY -c "print($cells * $FG_STEPS / $loop)")" >> "$CSV"
done

# --- the table, and the check that both computed the same flow ----------------------------------
$PY - "$CSV" "$of" "$fgo" "$N" "$END" "$TTS" <<'EOF'
import csv, glob, os, re, statistics, sys
import h5py, numpy as np
path, of, fgo, n, end, tts = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), sys.argv[6] == "1"
rows = list(csv.DictReader(open(path)))
med = {}
for code in ("icoFoam", "flowgrad"):
    r = [x for x in rows if x["code"] == code]
    med[code] = {k: statistics.median(float(x[k]) for x in r) for k in ("loop_s", "total_s", "cell_steps_per_s")}
print(f"\nlid-driven cavity, Re 100, {n}x{n} cells, 1 core; median of {len(rows) // 2} runs each; "
      + ", ".join(f"{x['code']} {x['steps']} steps of dt {x['dt']}" for x in rows[:2]))
print(f"{'code':<10} {'loop s':>9} {'command s':>10} {'M cell-steps/s':>15}")
for code in ("icoFoam", "flowgrad"):
    m = med[code]
    print(f"{code:<10} {m['loop_s']:9.3f} {m['total_s']:10.3f} {m['cell_steps_per_s'] / 1e6:15.3f}")
ratio = med["flowgrad"]["cell_steps_per_s"] / med["icoFoam"]["cell_steps_per_s"]
print(f"throughput ratio flowgrad / icoFoam: {ratio:.1f} (whole commands: "
      f"{med['icoFoam']['total_s'] / med['flowgrad']['total_s']:.1f})")
if tts:  # the time to the same physical time, each at its own step
    ratio = med["icoFoam"]["loop_s"] / med["flowgrad"]["loop_s"]
    print(f"time to solution (t = {end:g}) icoFoam / flowgrad: {ratio:.1f} (target >= 20)")
# u on the vertical centre line x = 1/2 at the end: icoFoam's cells (x fastest) vs flowgrad's
# cell-centred velocity; n even, so both average the two columns beside x = 1/2
udir = sorted((d for d in glob.glob(os.path.join(of, "[0-9]*")) if os.path.basename(d) != "0"),
              key=lambda d: float(os.path.basename(d)))[-1]
txt = open(os.path.join(udir, "U")).read()
body = txt[txt.index("internalField"):]
vals = re.findall(r"\(([-0-9.eE+]+) ([-0-9.eE+]+) [-0-9.eE+]+\)", body)[: n * n]
u_of = np.array([float(a) for a, _ in vals]).reshape(n, n)
f = sorted(glob.glob(os.path.join(fgo, "fields", "fields_*.h5")))[-1]
with h5py.File(f) as h:
    u_fg = h["velocity"][..., 0] if "velocity" in h else h["velocity_x"][...]
    t_fg = float(h.attrs["time"])
c = n // 2
line_of = 0.5 * (u_of[:, c - 1] + u_of[:, c])
line_fg = 0.5 * (u_fg[:, c - 1] + u_fg[:, c])
diff = float(np.max(np.abs(line_of - line_fg)))
print(f"same flow: u on the vertical centre line at t = {t_fg:g} (icoFoam at t = {os.path.basename(udir)}): "
      f"largest difference {diff:.2e} (lid speed 1; min u: icoFoam {line_of.min():.4f}, flowgrad {line_fg.min():.4f})")
print(f"CSV: {path}")
sys.exit(0 if ratio >= 20 else 1)
EOF
