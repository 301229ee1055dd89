#!/usr/bin/env bash
# The pictures in README.md and docs/postprocessing.md, made by postproc/postproc from shipped cases (on
# coarser grids or shorter runs, as noted), into postproc/gallery/. About 3 minutes on 2 cores.
#   bash postproc/gallery.sh          (from the repository root; FLOWGRAD, NP=2, WORK=out/gallery)
set -euo pipefail
cd "$(dirname "$0")/.."
FLOWGRAD=${FLOWGRAD:-build/flowgrad}
NP=${NP:-2}
WORK=${WORK:-out/gallery}
PY=/usr/bin/python3
POST="$PY postproc/postproc"
IMG=postproc/gallery
RUN=(mpiexec -n "$NP")
[ "$(id -u)" -eq 0 ] && RUN+=(--allow-run-as-root)
[ "$(nproc)" -lt "$NP" ] && RUN+=(--oversubscribe)
FIG=(--out "$IMG" --width 6.4 --height 4 --dpi 80)
mkdir -p "$WORK" "$IMG"
set -x
# 1. fields and history: cases/cylinder_re100 at h = D/12 (the body tests' grid), t = 150
[ -f "$WORK/cyl100/history.csv" ] ||
  "${RUN[@]}" "$FLOWGRAD" run cases/cylinder_re100/cylinder_re100.yaml --set grid.cells=[384,480] \
    --set time.dt=0.025 --set time.steps=6000 --set output.monitor_every=1000 --set output.dir="$WORK/cyl100"
$POST fields "$WORK/cyl100" --quantities vorticity --xlim 7,27 --ylim 16,24 "${FIG[@]}"
$POST history "$WORK/cyl100" --from 100 "${FIG[@]}"
# 2. sensitivity: the steady adjoint of cases/shape_drag/shape_drag.yaml (the circle) at h = D/14
[ -f "$WORK/sens/gradient.h5" ] ||
  "${RUN[@]}" "$FLOWGRAD" adjoint cases/shape_drag/shape_drag.yaml --set grid.cells=[288,192] --set output.dir="$WORK/sens"
$POST sensitivity "$WORK/sens" "${FIG[@]}"
# 3. optimization: cases/shape_drag/quick.yaml (the quick start), and its report page
[ -f "$WORK/quick/optimization/result.csv" ] ||
  "${RUN[@]}" "$FLOWGRAD" optimize cases/shape_drag/quick.yaml --set output.dir="$WORK/quick"
$POST optimization "$WORK/quick" "${FIG[@]}"
$POST report "$WORK/quick"
if command -v chromium >/dev/null; then
  chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,1400 \
    --screenshot="$IMG/report.png" "file://$(cd "$WORK/quick/report" && pwd)/index.html" 2>/dev/null
fi
# 4. control: the gradient in time of cases/cylinder_control (Omega(t) through 8 values) at its
#    initial design, on the tests' coarse grid, from a developed wake
CTL_GRID=(--set grid.cells=[96,48] --set grid.lengths=[12,6] --set body.cyl.position=[3,3.05]
          --set probe.wake.at=[5,3.05] --set time.dt=0.05)
[ -f "$WORK/develop/fields/fields_000800.h5" ] ||
  "${RUN[@]}" "$FLOWGRAD" run cases/cylinder_control/develop.yaml "${CTL_GRID[@]}" --set time.steps=800 \
    --set output.dir="$WORK/develop" -fg_fftw_planner estimate
[ -f "$WORK/control/gradient_time.csv" ] ||
  "${RUN[@]}" "$FLOWGRAD" adjoint cases/cylinder_control/cylinder_control.yaml "${CTL_GRID[@]}" \
    --set time.steps=120 --set objective.lift.window=[1.5,6] --set design.time_basis=8 \
    --set initial.file="$WORK/develop/fields/fields_000800.h5" --set output.dir="$WORK/control"
$POST control "$WORK/control" "${FIG[@]}"
# 5. campaign: the drag of cases/cylinder_re40 at Re 20..50, coarse (h = D/6), run locally
[ -f "$WORK/runs/cylinder_re40/gallery/summary.csv" ] ||
  FLOWGRAD=$FLOWGRAD FG_PYTHON=$PY $PY jobs/campaign cases/cylinder_re40/cylinder_re40.yaml --local -n "$NP" \
    --sweep flow.re=20,30,40,50 --set grid.cells=[192,240] --set time.dt=0.05 --set time.steps=1200 \
    --name gallery --runs "$WORK/runs" || true
$POST campaign "$WORK/runs/cylinder_re40/gallery" "${FIG[@]}"
ls -la "$IMG"
