# shellcheck shell=bash
# The body of flowgrad's job scripts (jobs/run.sbatch, adjoint.sbatch, optimize.sbatch,
# postproc.sbatch), sourced by each. One function, fg_job KIND ARGS..., that
#
#   1. reads the arguments: CASE.yaml (or, for postproc, a run or campaign directory), the job
#      options --name, --out and --points (below), and everything else for flowgrad
#      (--set key=value, --resume, PETSc options);
#   2. checks the case file before anything runs (missing or unreadable: exit 2 at once);
#   3. makes the run directory, <runs>/<case>/<kind>[-<name>] unless --out gives one, and appends
#      to its job.log;
#   4. starts flowgrad with srun inside a SLURM allocation, with mpiexec -n $FG_NP outside one;
#   5. forwards SIGUSR1/SIGTERM of the batch shell (#SBATCH --signal=B:USR1@T, preemption,
#      scancel, the time limit) to flowgrad as SIGUSR1: flowgrad saves its state and exits 75;
#   6. on exit 75 after SIGUSR1 inside SLURM requeues the job (scontrol requeue); the rerun sees
#      SLURM_RESTART_COUNT > 0 and flowgrad resumes where it stopped (after SIGTERM it does not:
#      the job was cancelled or is out of time);
#   7. writes the outcome to <run dir>/job.status and exits with flowgrad's exit code, as
#      flowgrad's rank 0 reports it (FLOWGRAD_EXIT_FILE).
#
# Job options (before or after the case file):
#   --name NAME    run directory <runs>/<case>/<kind>-NAME (default <runs>/<case>/<kind>)
#   --out DIR      the run directory itself
#   --points FILE  a campaign's points.tsv (jobs/campaign): this task's row is
#                  $SLURM_ARRAY_TASK_ID (or $FG_POINT outside SLURM); its run directory and
#                  --set overrides are taken from that row
#   --campaign DIR (postproc only) gather a campaign's results into DIR/summary.csv
# Environment:
#   FLOWGRAD       the flowgrad binary (default: flowgrad on PATH, else <repo>/build/flowgrad)
#   FG_RUNS        the runs root (default ./runs, i.e. under the submission directory)
#   FG_NP          ranks outside SLURM (default 1)
#   FG_SRUN        the launcher inside SLURM (default "srun"; e.g. "srun --mpi=pmix" or "mpirun")
#   FG_PYTHON      Python for postprocessing (default /usr/bin/python3 when present)
#   FG_MAX_REQUEUES  stop requeueing after this many restarts (default 50)
#   FG_MIN_RUN     a stop sooner than this many seconds after flowgrad's start, three times in a
#                  row, ends the requeueing (default 120; a time limit below the signal lead)
#   FG_SITE_HOOK   a bash file sourced by every job (and by jobs/submit) before it starts anything:
#                  the site's set-up, e.g. `module load` lines, FG_SRUN (default: jobs/site.sh
#                  where it exists; jobs/site.sh.example shows one). A hook that fails stops the
#                  job with exit 2.

fg_log() { echo "[flowgrad-job $(date '+%F %T')] $*"; }
fg_err() { echo "[flowgrad-job $(date '+%F %T')] error: $*" >&2; }

# The repository root (jobs/..), from FG_JOBS_DIR set by the sourcing script.
fg_repo() { (cd -P "$FG_JOBS_DIR/.." && pwd); }

fg_find_flowgrad() {
  if [ -n "${FLOWGRAD:-}" ]; then
    [ -x "$FLOWGRAD" ] || { fg_err "FLOWGRAD=$FLOWGRAD is not an executable"; return 1; }
    echo "$FLOWGRAD"
  elif command -v flowgrad >/dev/null 2>&1; then
    command -v flowgrad
  elif [ -x "$(fg_repo)/build/flowgrad" ]; then
    echo "$(fg_repo)/build/flowgrad"
  else
    fg_err "no flowgrad binary: put it on PATH, set FLOWGRAD=/path/to/flowgrad, or build it (bash .ci/build.sh)"
    return 1
  fi
}

fg_python() {
  if [ -n "${FG_PYTHON:-}" ]; then echo "$FG_PYTHON"
  elif [ -x /usr/bin/python3 ]; then echo /usr/bin/python3
  else echo python3
  fi
}

# fg_time_seconds SLURM_TIME: seconds of an sbatch --time value (minutes, minutes:seconds,
# hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds); empty when
# it is not one (UNLIMITED, a typo: sbatch will say).
fg_time_seconds() {
  local t=$1 d=0 h=0 m=0 sec=0
  if [[ "$t" =~ ^([0-9]+)-([0-9]+)(:([0-9]+)(:([0-9]+))?)?$ ]]; then
    d=${BASH_REMATCH[1]} h=${BASH_REMATCH[2]} m=${BASH_REMATCH[4]:-0} sec=${BASH_REMATCH[6]:-0}
  elif [[ "$t" =~ ^([0-9]+):([0-9]+):([0-9]+)$ ]]; then
    h=${BASH_REMATCH[1]} m=${BASH_REMATCH[2]} sec=${BASH_REMATCH[3]}
  elif [[ "$t" =~ ^([0-9]+):([0-9]+)$ ]]; then
    m=${BASH_REMATCH[1]} sec=${BASH_REMATCH[2]}
  elif [[ "$t" =~ ^([0-9]+)$ ]]; then
    m=${BASH_REMATCH[1]}
  else
    return 0
  fi
  echo $(( ((10#$d * 24 + 10#$h) * 60 + 10#$m) * 60 + 10#$sec ))
}

# fg_signal_lead KIND: the --signal lead time (s) in jobs/KIND.sbatch's header (empty if none).
fg_signal_lead() {
  sed -n 's/^#SBATCH --signal=B:USR1@\([0-9][0-9]*\).*/\1/p' "$FG_JOBS_DIR/$1.sbatch" | head -n 1
}

# The case's short name: the file name without .yaml/.yml.
fg_case_stem() { local b; b=$(basename "$1"); b=${b%.yaml}; echo "${b%.yml}"; }

# fg_check_case CASE: a readable regular file, or a clear message and status 2.
fg_check_case() {
  if [ -z "$1" ]; then fg_err "no case file given"; return 2; fi
  if [ ! -e "$1" ]; then fg_err "case file '$1' does not exist (working directory $(pwd))"; return 2; fi
  if [ ! -f "$1" ] || [ ! -r "$1" ]; then fg_err "case file '$1' is not a readable file"; return 2; fi
  return 0
}

# Launch "$@" (flowgrad and its arguments) on the job's ranks, in the background, and wait for
# it while forwarding USR1/TERM. Sets FG_RC.
fg_launch() {
  local launcher
  if [ -n "${SLURM_JOB_ID:-}" ]; then
    read -r -a launcher <<< "${FG_SRUN:-srun}"
  else
    launcher=(mpiexec -n "${FG_NP:-1}")
    [ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
    [ "$(nproc)" -lt "${FG_NP:-1}" ] && launcher+=(--oversubscribe)
  fi
  if [ "${FG_STOP_ASKED:-0}" -eq 1 ]; then
    # stopped before flowgrad started: nothing to save, come back later
    fg_log "stop requested before flowgrad started: not starting it"
    FG_RC=75
    return
  fi
  fg_log "command: ${launcher[*]} $*"
  # flowgrad's rank 0 writes its exit code here (srun itself exits 0 when no task could start)
  export FLOWGRAD_EXIT_FILE=${FG_EXIT_FILE:?}
  rm -f "$FLOWGRAD_EXIT_FILE"
  FG_LAUNCH_TIME=$SECONDS
  "${launcher[@]}" "$@" &
  FG_CHILD=$!
  # `wait` returns early (status > 128) when a trapped signal arrives: wait again until the
  # launcher really ends, then take its status (bash keeps it for a second wait).
  local rc
  while :; do
    wait "$FG_CHILD"; rc=$?
    [ "$rc" -le 128 ] && break
    if ! kill -0 "$FG_CHILD" 2>/dev/null; then wait "$FG_CHILD"; rc=$?; break; fi
  done
  FG_CHILD=
  if [ -s "$FLOWGRAD_EXIT_FILE" ]; then
    FG_RC=$(cat "$FLOWGRAD_EXIT_FILE")
    # flowgrad finished, but the launcher failed after it (a rank lost): keep the failure
    [ "$FG_RC" -eq 0 ] && [ "$rc" -ne 0 ] && FG_RC=$rc
  elif [ "$FG_STOP_ASKED" -eq 1 ]; then
    fg_log "flowgrad was stopped before it could save anything (the signal came while it started, exit $rc): counted as stopped (75)"
    FG_RC=75
  elif [ "$rc" -eq 0 ]; then
    fg_err "${launcher[0]} exited 0 but flowgrad never finished (no exit status from rank 0): the tasks did not start or were lost; see the messages above"
    FG_RC=1
  else
    FG_RC=$rc
  fi
  rm -f "$FLOWGRAD_EXIT_FILE"
}

# The batch shell's handler of SIGUSR1/SIGTERM (the wrappers install it as their first command,
# so an early signal is neither lost nor fatal to the shell). A SIGTERM is remembered: it means
# the job is being cancelled, preempted or stopped at its limit, and is not requeued by us.
fg_forward() {
  FG_STOP_ASKED=1
  [ "${FG_STOP_SIG:-}" = TERM ] || FG_STOP_SIG=$1
  if [ -n "${FG_CHILD:-}" ]; then
    fg_log "SIG$1 received: asking flowgrad to save its state and stop (it exits 75)"
    kill -USR1 "$FG_CHILD" 2>/dev/null || true
  else
    fg_log "SIG$1 received"
  fi
}

# fg_status DIR RC: job.status (one line, rewritten) and job.log (appended).
fg_status() {
  local dir=$1 rc=$2 state
  case "$rc" in
    0) state=done ;;
    75) state=stopped ;;
    *) state=failed ;;
  esac
  [ -n "${3:-}" ] && state=$3
  local line
  line="$(date '+%F %T') state=$state rc=$rc job=${SLURM_JOB_ID:-local} restart=${SLURM_RESTART_COUNT:-0}"
  echo "$line" > "$dir/job.status.tmp" && mv -f "$dir/job.status.tmp" "$dir/job.status"
  echo "$line" >> "$dir/job.log"
}

# fg_quick_stops DIR: whether this stop came within FG_MIN_RUN seconds (default 120) of flowgrad's
# start for the third time in a row (counted in DIR/.fg-quick-stops; reset by a longer run): a
# job whose time limit is shorter than its signal lead time would otherwise requeue forever.
fg_quick_stops() {
  local f=$1/.fg-quick-stops n=0
  if [ $((SECONDS - ${FG_LAUNCH_TIME:-0})) -ge "${FG_MIN_RUN:-120}" ]; then
    rm -f "$f"
    return 1
  fi
  [ -s "$f" ] && n=$(cat "$f")
  n=$((n + 1))
  echo "$n" > "$f"
  [ "$n" -ge 3 ]
}

# fg_point_row FILE INDEX: sets FG_POINT_NAME, FG_POINT_DIR and FG_POINT_SETS (array) from the
# row of a campaign's points.tsv (tab separated: name, dir, key=value...; # comments).
fg_point_row() {
  local file=$1 idx=$2 n=0 line fields
  [ -r "$file" ] || { fg_err "--points: cannot read '$file'"; return 2; }
  [[ "$idx" =~ ^[0-9]+$ ]] || { fg_err "--points: point index '$idx' is not a number (SLURM_ARRAY_TASK_ID or FG_POINT)"; return 2; }
  while IFS= read -r line || [ -n "$line" ]; do
    [ -z "$line" ] || [ "${line:0:1}" = "#" ] && continue
    if [ "$n" -eq "$idx" ]; then
      IFS=$'\t' read -r -a fields <<< "$line"
      FG_POINT_NAME=${fields[0]}
      FG_POINT_DIR=${fields[1]}
      FG_POINT_SETS=()
      local kv
      for kv in "${fields[@]:2}"; do FG_POINT_SETS+=(--set "$kv"); done
      return 0
    fi
    n=$((n + 1))
  done < "$file"
  fg_err "--points: '$file' has $n points, no point $idx"
  return 2
}

# fg_usage KIND: the header of jobs/KIND.sbatch up to its first blank line, #SBATCH lines left out.
fg_usage() {
  awk 'NR > 1 && /^$/ { exit } NR > 1 && !/^#SBATCH/ { sub(/^# ?/, ""); print }' "$FG_JOBS_DIR/$1.sbatch"
}

# fg_site_hook: source the site's hook, FG_SITE_HOOK or else jobs/site.sh where it exists (in the
# calling shell: what it exports and loads reaches flowgrad). Status 2, with the reason, when the
# file cannot be read or its last command fails.
fg_site_hook() {
  local hook=${FG_SITE_HOOK:-} rc
  if [ -z "$hook" ]; then
    [ -e "$FG_JOBS_DIR/site.sh" ] || return 0
    hook=$FG_JOBS_DIR/site.sh
  fi
  if [ ! -f "$hook" ] || [ ! -r "$hook" ]; then
    fg_err "site hook '$hook' (FG_SITE_HOOK or jobs/site.sh) is not a readable file"
    return 2
  fi
  fg_log "site hook $hook"
  # shellcheck disable=SC1090
  case $- in *u*) set +u; source "$hook"; rc=$?; set -u ;; *) source "$hook"; rc=$? ;; esac
  if [ "$rc" -ne 0 ]; then fg_err "site hook $hook failed (status $rc)"; return 2; fi
  return 0
}

# fg_parse_args ARGS...: the job options into FG_CASE (the first plain argument: a case file, or a
# run directory for postproc), FG_NAME, FG_OUT, FG_POINTS, FG_CAMPAIGN; the rest, in order, into
# FG_REST (for flowgrad). PETSc options with a value go after the case file.
fg_parse_args() {
  FG_CASE="" FG_NAME="" FG_OUT="" FG_POINTS="" FG_CAMPAIGN="" FG_HELP=0
  FG_REST=()
  while [ $# -gt 0 ]; do
    case "$1" in
      -h|--help) FG_HELP=1; shift ;;
      --name) [ $# -ge 2 ] || { fg_err "--name needs a value"; return 2; }; FG_NAME=$2; shift 2 ;;
      --out) [ $# -ge 2 ] || { fg_err "--out needs a directory"; return 2; }; FG_OUT=$2; shift 2 ;;
      --points) [ $# -ge 2 ] || { fg_err "--points needs a file"; return 2; }; FG_POINTS=$2; shift 2 ;;
      --campaign) [ $# -ge 2 ] || { fg_err "--campaign needs a directory"; return 2; }; FG_CAMPAIGN=$2; shift 2 ;;
      --set) [ $# -ge 2 ] || { fg_err "--set needs key=value"; return 2; }; FG_REST+=("$1" "$2"); shift 2 ;;
      -*) FG_REST+=("$1"); shift ;;
      *)
        if [ -z "$FG_CASE" ]; then FG_CASE=$1; else FG_REST+=("$1"); fi
        shift ;;
    esac
  done
  if [ -n "$FG_NAME" ] && ! [[ "$FG_NAME" =~ ^[A-Za-z0-9._+=-]+$ ]]; then
    fg_err "--name '$FG_NAME': use letters, digits and . _ + = - only (it names a directory)"
    return 2
  fi
  return 0
}

# fg_run_dir KIND: the run directory of the parsed arguments (not created).
fg_run_dir() {
  if [ -n "$FG_OUT" ]; then echo "$FG_OUT"
  else echo "${FG_RUNS:-runs}/$(fg_case_stem "$FG_CASE")/$1${FG_NAME:+-$FG_NAME}"
  fi
}

fg_job() {
  local kind=$1; shift
  FG_STOP_ASKED=${FG_STOP_ASKED:-0} FG_STOP_SIG=${FG_STOP_SIG:-} FG_CHILD=
  if [ "$kind" != postproc ]; then
    trap 'fg_forward USR1' USR1
    trap 'fg_forward TERM' TERM
  fi
  fg_parse_args "$@" || return 2
  if [ "$FG_HELP" -eq 1 ]; then fg_usage "$kind"; return 0; fi
  fg_site_hook || return 2
  local case_file=$FG_CASE out=$FG_OUT points=$FG_POINTS campaign=$FG_CAMPAIGN
  local -a rest=("${FG_REST[@]}")

  fg_log "flowgrad $kind job ${SLURM_JOB_ID:+$SLURM_JOB_ID }on $(hostname)${SLURM_ARRAY_TASK_ID:+, array task $SLURM_ARRAY_TASK_ID}, restart ${SLURM_RESTART_COUNT:-0}${SLURM_NTASKS:+, $SLURM_NTASKS tasks}"

  if [ "$kind" = postproc ]; then
    fg_postproc "$case_file" "$campaign"
    return $?
  fi

  fg_check_case "$case_file" || return 2
  local flowgrad; flowgrad=$(fg_find_flowgrad) || return 2

  local -a sets=()
  if [ -n "$points" ]; then
    fg_point_row "$points" "${FG_POINT:-${SLURM_ARRAY_TASK_ID:-}}" || return 2
    sets=("${FG_POINT_SETS[@]}")
    [ -n "$out" ] || out=$FG_POINT_DIR
    fg_log "campaign point $FG_POINT_NAME: ${FG_POINT_SETS[*]}"
  fi
  [ -n "$out" ] || out=$(fg_run_dir "$kind")
  mkdir -p "$out" || { fg_err "cannot create the run directory '$out'"; return 4; }
  out=$(cd "$out" && pwd)
  fg_log "case $case_file, run directory $out"

  local restarts=${SLURM_RESTART_COUNT:-0} max=${FG_MAX_REQUEUES:-50}
  if [ "$restarts" -gt "$max" ]; then
    fg_err "requeued $restarts times (FG_MAX_REQUEUES=$max): giving up; rerun with --resume by hand"
    fg_status "$out" 75 gave-up
    return 75
  fi
  [ "$restarts" -eq 0 ] && rm -f "$out/.fg-quick-stops"
  fg_status "$out" - running
  FG_EXIT_FILE=$out/.flowgrad-exit

  fg_launch "$flowgrad" "$kind" "$case_file" "${sets[@]}" "${rest[@]}" --set "output.dir=$out"
  local rc=$FG_RC
  fg_log "flowgrad exited with $rc"

  if [ "$rc" -eq 75 ] && [ -n "${SLURM_JOB_ID:-}" ] && [ "$FG_STOP_SIG" = TERM ]; then
    # cancelled, preempted or at the time limit: SLURM decides (a preemption in REQUEUE mode
    # requeues the job itself); a requeue from here would undo an scancel
    fg_log "stopped on SIGTERM with its state saved; not requeued by this script (resubmit with --resume to continue)"
    fg_status "$out" 75
  elif [ "$rc" -eq 75 ] && [ -n "${SLURM_JOB_ID:-}" ]; then
    if fg_quick_stops "$out"; then
      fg_err "stopped within ${FG_MIN_RUN:-120} s of its start 3 times in a row: not requeued again (is the time limit shorter than the --signal lead time?); resubmit with --resume"
      fg_status "$out" 75 gave-up
    else
      # the status first: the requeue ends this batch shell within moments
      fg_status "$out" 75 requeued
      fg_log "requeueing job $SLURM_JOB_ID: it resumes from $out when it starts again"
      if ! scontrol requeue "$SLURM_JOB_ID"; then
        fg_err "scontrol requeue $SLURM_JOB_ID failed: resubmit the same job with --resume to continue"
        fg_status "$out" 75
      fi
    fi
  elif [ "$rc" -eq 75 ]; then
    fg_log "stopped with its state saved: run the same command with --resume to continue"
    fg_status "$out" 75
  else
    fg_status "$out" "$rc"
  fi
  return "$rc"
}

# postproc job: a campaign directory (its summary table and plot) or a run directory (its key
# numbers, its plots and HTML report page, and the optimization plots when it holds one).
fg_postproc() {
  local dir=$1 campaign=$2 py rc=0
  py=$(fg_python)
  local tools; tools="$(fg_repo)/postproc"
  if [ -n "$campaign" ]; then
    [ -d "$campaign" ] || { fg_err "--campaign: no directory '$campaign'"; return 2; }
    fg_log "gathering campaign $campaign"
    "$py" "$tools/campaign.py" gather "$campaign"
    return $?
  fi
  [ -n "$dir" ] || { fg_err "postproc: give a run directory (or --campaign DIR)"; return 2; }
  [ -d "$dir" ] || { fg_err "postproc: no run directory '$dir'"; return 2; }
  fg_log "postprocessing $dir"
  "$py" "$tools/campaign.py" summary "$dir" || rc=$?
  "$py" "$tools/postproc" report "$dir" || rc=$?
  if [ -f "$dir/optimization.csv" ]; then
    "$py" "$tools/plot_optimization.py" "$dir" || rc=$?
    "$py" "$tools/optimization_summary.py" "$dir" || rc=$?
  fi
  return "$rc"
}
