#!/usr/bin/env bash
# Run `numeric reproduce --quick` as a 4-task SLURM array on a single-node cluster on this machine,
# merge the shards, and compare the merged store with a one-machine run, record for record.
#
#   bash bench/slurm_local.sh [WORK_DIR]        (default: a new folder under /tmp)
#
# Installs Debian's slurm-wlm when sbatch is missing (needs root and apt), writes a minimal
# slurm.conf for localhost (auth/none: nothing leaves the machine; every path inside WORK_DIR),
# starts slurmctld and slurmd, submits docs/slurm/reproduce.sbatch as --array=0-3, waits, merges
# with `numeric merge`, compares with `numeric reproduce --quick` run directly, then stops the
# daemons (also on failure or Ctrl-C). Exit 0 only if the stores are equal record for record
# (timings excepted). Prints the measured times.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d /tmp/slurm_local.XXXXXX)}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
fail() { echo "slurm_local: $*" >&2; exit 2; }
# The Python that has the project: this script's own runs and the tasks' (NUMERIC_PYTHON, passed to
# sbatch), checked before anything is submitted — `python3` on a task's PATH may be another one.
python="${NUMERIC_PYTHON:-$(command -v python3)}"
(cd "$repo" && "$python" -c 'import numeric.cli.main, threadpoolctl') 2>/dev/null \
    || fail "$python cannot import numeric and threadpoolctl; set NUMERIC_PYTHON to the Python that has the project"
export NUMERIC_PYTHON="$python"

if ! command -v sbatch >/dev/null || ! command -v slurmctld >/dev/null; then
    [ "$(id -u)" -eq 0 ] || fail "slurm-wlm is not installed and installing it needs root"
    command -v apt-get >/dev/null || fail "slurm-wlm is not installed and there is no apt-get to install it"
    echo "installing slurm-wlm (Debian) ..."
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm >"$work/apt.log" 2>&1 \
        || fail "apt-get install slurm-wlm failed (see $work/apt.log)"
fi
[ "$(id -u)" -eq 0 ] || fail "slurmd must run as root to start jobs; run this as root (e.g. in a container)"
if pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null; then
    fail "a slurmctld or slurmd is already running here; this script starts its own and will not touch another"
fi

node="$(hostname -s)"
conf="$work/slurm.conf"
mkdir -p "$work/state" "$work/spool" "$work/log"
cat >"$conf" <<CONF
ClusterName=identcheck-local
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
MpiDefault=none
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$conf"

pids=()
stop() {
    scancel --quiet --user=root 2>/dev/null || true
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop EXIT INT TERM

slurmctld -D -f "$conf" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$conf" -N "$node" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
    if sinfo -h -o "%T" 2>/dev/null | grep -qE "^idle"; then break; fi
    sleep 1
done
sinfo -h -o "%T" 2>/dev/null | grep -qE "^idle" || fail "the daemons did not come up within 60 s (logs in $work/log)"
echo "cluster up: $(sinfo -h -o '%P %D %T %C')"

started=$(date +%s.%N)
job=$(cd "$work" && sbatch --parsable --array=0-3 --chdir="$repo" --output="$work/log/task-%a.out" --export=ALL,NUMERIC_PYTHON="$python" \
    "$repo/docs/slurm/reproduce.sbatch" "$work/run" 4 --quick)
echo "submitted array job $job (4 tasks)"
while squeue -h -j "$job" 2>/dev/null | grep -q .; do sleep 2; done
array_seconds=$(echo "$(date +%s.%N) - $started" | bc)
for i in 0 1 2 3; do
    [ -f "$work/run/shard$i/fits.sqlite" ] || fail "task $i wrote no store (see $work/log/task-$i.out)"
done
(cd "$repo" && "$python" -m numeric merge "$work/run/merged" "$work/run"/shard0 "$work/run"/shard1 "$work/run"/shard2 "$work/run"/shard3)
started=$(date +%s.%N)
(cd "$repo" && "$python" -m numeric reproduce --quick --out "$work/single" --jobs 2 >/dev/null)
single_seconds=$(echo "$(date +%s.%N) - $started" | bc)
(cd "$repo" && "$python" - "$work/run/merged" "$work/single" <<'PY'
import dataclasses, sys
from numeric.experiments.store import read_records
merged, single = (sorted((dataclasses.replace(r, seconds=0.0) for r in read_records(f)), key=lambda r: r.key) for f in sys.argv[1:])
if merged != single:
    differ = sum(a != b for a, b in zip(merged, single)) + abs(len(merged) - len(single))
    sys.exit(f"slurm_local: merged store differs from the one-machine run ({len(merged)} vs {len(single)} records, {differ} differ)")
print(f"merged store equals the one-machine run: {len(merged)} records, equal in every field but the timing")
PY
)
printf "array job (4 tasks, 1 CPU each): %.1f s wall; one machine (--jobs 2): %.1f s wall\n" "$array_seconds" "$single_seconds"
echo "work folder: $work"
