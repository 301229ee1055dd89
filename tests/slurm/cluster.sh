#!/usr/bin/env bash
# A private single-node SLURM for flowgrad's job tests: munged (shared, started if none answers),
# slurmctld and slurmd with their own configuration, ports, state, logs and PID files under DIR,
# so a machine's real SLURM (if any) is neither read nor touched.
#
#   tests/slurm/cluster.sh up     DIR   start (or restart) it; wait until the node is idle
#   tests/slurm/cluster.sh down   DIR   cancel its jobs, stop the daemons it started, by PID
#   tests/slurm/cluster.sh env    DIR   print the environment a client needs (SLURM_CONF=...)
#   tests/slurm/cluster.sh probe        why it cannot run here (exit 0: it can)
#
# `up` writes DIR/state: "up" when the cluster answers, or "skip: REASON" when this machine
# cannot run it (not root, no cgroup file system, SLURM or munge not installed). Tests that need
# the cluster read that file (tests/slurm/lib.sh) and skip with the reason, so the rest of the
# suite runs anywhere. A machine that should be able to run it but fails to start it is an error.
# Ports: FG_SLURM_PORT (default 16817) for slurmctld and the next one for slurmd.
set -uo pipefail

cmd=${1:-}
dir=${2:-}

probe() {
  [ "$(id -u)" -eq 0 ] || { echo "not root (slurmd must run as root)"; return 1; }
  local b
  for b in slurmctld slurmd munged sbatch srun squeue scontrol; do
    command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] ||
      { echo "$b is not installed (bash .ci/install-deps.sh installs SLURM and munge)"; return 1; }
  done
  mountpoint -q /sys/fs/cgroup || { echo "/sys/fs/cgroup is not mounted (slurmd 22.05 refuses to start)"; return 1; }
  [ -r /etc/munge/munge.key ] || { echo "no munge key in /etc/munge/munge.key"; return 1; }
  return 0
}

if [ "$cmd" = probe ]; then
  why=$(probe) && { echo "SLURM tests can run here"; exit 0; }
  echo "SLURM tests cannot run here: $why"; exit 1
fi
[ -n "$dir" ] || { echo "usage: $0 up|down|env DIR | probe" >&2; exit 2; }
mkdir -p "$dir" || exit 4
dir=$(cd "$dir" && pwd)
export SLURM_CONF=$dir/etc/slurm.conf
PATH=$PATH:/usr/sbin

log() { echo "[slurm-cluster] $*"; }

alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_pid() { # pidfile name
  local pf=$1 name=$2 pid
  [ -s "$pf" ] || return 0
  pid=$(cat "$pf")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    if kill -0 "$pid" 2>/dev/null; then log "$name ($pid) still alive: SIGKILL"; kill -KILL "$pid"; fi
    log "stopped $name ($pid)"
  fi
  rm -f "$pf"
}

munge_ok() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

case "$cmd" in
env)
  echo "SLURM_CONF=$SLURM_CONF"
  ;;

down)
  if alive "$dir/run/slurmctld.pid"; then
    scancel --quiet --user="$(id -un)" 2>/dev/null || true
    sleep 1
  fi
  stop_pid "$dir/run/slurmd.pid" slurmd
  stop_pid "$dir/run/slurmctld.pid" slurmctld
  # munged only if this harness started it (another user of munge may rely on it)
  [ -f "$dir/run/munged.ours" ] && stop_pid "$(cat "$dir/run/munged.ours")" munged
  rm -f "$dir/run/munged.ours"
  echo "down" > "$dir/state"
  ;;

up)
  rm -f "$dir/state"
  if ! why=$(probe); then
    log "skipping the SLURM tests: $why"
    echo "skip: $why" > "$dir/state"
    exit 0
  fi
  fail() { log "error: $*"; echo "error: $*" > "$dir/state"; exit 1; }

  # stale daemons of an earlier run of this harness (same DIR) go first
  stop_pid "$dir/run/slurmd.pid" slurmd
  stop_pid "$dir/run/slurmctld.pid" slurmctld
  rm -rf "$dir/spool" "$dir/log" "$dir/tmp"
  rm -rf "$dir/tmp"
  mkdir -p "$dir/etc" "$dir/spool/ctld" "$dir/spool/d" "$dir/log" "$dir/run" "$dir/tmp" || fail "cannot create $dir"

  getent hosts localhost >/dev/null || echo "127.0.0.1 localhost" >> /etc/hosts

  if ! munge_ok; then
    install -d -o munge -g munge -m 0755 /run/munge
    install -d -o munge -g munge -m 0700 /var/log/munge /var/lib/munge
    runuser -u munge -- /usr/sbin/munged || fail "munged did not start"
    for _ in $(seq 40); do munge_ok && break; sleep 0.25; done
    munge_ok || fail "munged started but does not answer"
    echo /run/munge/munged.pid > "$dir/run/munged.ours"
  fi

  port=${FG_SLURM_PORT:-16817}
  ncpu=$(nproc)
  cat > "$SLURM_CONF" <<EOF
# Private single-node SLURM of flowgrad's tests (tests/slurm/cluster.sh); not a site config.
ClusterName=flowgradtest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
# a requeued job waits cred_expire seconds before it can start again (default 120; 5 is the
# shortest slurmctld accepts without complaint here);
# the main scheduler runs every sched_interval seconds (default 60)
AuthInfo=cred_expire=5
SchedulerParameters=sched_interval=2,bf_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$dir/spool/ctld
SlurmdSpoolDir=$dir/spool/d
# private temporary files: the PMIx plugin names its directories after the job id
# (spmix_appdir_<uid>_<job>.<step>), which would collide with another SLURM's jobs on this host
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
KillWait=5
MinJobAge=600
NodeName=localhost CPUs=$ncpu State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF

  slurmctld -c -f "$SLURM_CONF" || fail "slurmctld did not start (see $dir/log/slurmctld.log)"
  for _ in $(seq 60); do scontrol ping 2>/dev/null | grep -q 'is UP' && break; sleep 0.25; done
  scontrol ping 2>/dev/null | grep -q 'is UP' || fail "slurmctld does not answer (see $dir/log/slurmctld.log)"
  slurmd -f "$SLURM_CONF" -N localhost || fail "slurmd did not start (see $dir/log/slurmd.log)"
  st=
  for _ in $(seq 80); do
    st=$(sinfo -h -n localhost -o %t 2>/dev/null || true)
    case "$st" in
      idle|mix|alloc) break ;;
      down*|drain*|drng*) scontrol update NodeName=localhost State=RESUME 2>/dev/null || true ;;
    esac
    sleep 0.25
  done
  case "$st" in
    idle|mix|alloc) ;;
    *) tail -n 20 "$dir/log/slurmd.log" "$dir/log/slurmctld.log"; fail "node state '$st'" ;;
  esac
  log "up: SLURM_CONF=$SLURM_CONF, node localhost ($ncpu CPUs) is $st"
  echo "up" > "$dir/state"
  ;;

*)
  echo "usage: $0 up|down|env DIR | probe" >&2
  exit 2
  ;;
esac
