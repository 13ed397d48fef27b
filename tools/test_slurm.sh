#!/usr/bin/env bash
# make test-slurm: a single-node SLURM cluster on this machine (Debian's slurm-wlm and munge,
# set up here, as root), the quick grid run through it with `cffair reproduce --backend dask
# --cluster slurm`, and its records compared with a local run of the same grid: every record's
# metrics must be equal. The daemons are stopped at the end. Nothing leaves this machine: the
# node and the Dask scheduler listen on the loopback address.
#
#   tools/test_slurm.sh            (PY=.venv/bin/python, JOBS=2, WORK=a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
CFFAIR=${CFFAIR:-.venv/bin/cffair}
JOBS=${JOBS:-2}
WORK=${WORK:-$(mktemp -d -t cffair-slurm-XXXX)}
mkdir -p "$WORK"
say() { echo "test-slurm: $*"; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  say "installing slurm-wlm and munge (Debian packages)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

# --- munge: the key and the daemon
if [ ! -s /etc/munge/munge.key ]; then
  if command -v mungekey >/dev/null; then mungekey --create --force >/dev/null; else /usr/sbin/create-munge-key -f >/dev/null; fi
fi
chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge && chown munge:munge /run/munge /var/log/munge /var/lib/munge
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
munge -n | unmunge >/dev/null || { say "munge does not work"; exit 1; }

# --- slurm: one node, one partition, on 127.0.0.1
HOST=$(hostname -s)
CPUS=$(nproc)
MEM=$(free -m | awk '/^Mem:/{print int($2 * 0.8)}')
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
# written by cffair's tools/test_slurm.sh: a single-node cluster for the test
ClusterName=cffair-test
SlurmctldHost=${HOST}(127.0.0.1)
AuthType=auth/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=${HOST} NodeAddr=127.0.0.1 CPUs=${CPUS} RealMemory=${MEM} State=UNKNOWN
PartitionName=cpu Nodes=${HOST} Default=YES MaxTime=INFINITE State=UP
CONF
stop() {
  scancel --user=root >/dev/null 2>&1 || true
  pkill -x slurmd || true; pkill -x slurmctld || true
}
trap stop EXIT
stop; sleep 1
slurmctld && slurmd
for _ in $(seq 30); do sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break; sleep 1; done
sinfo -h -o "%P %t %c" | sed 's/^/test-slurm: sinfo: /'
sinfo -h -o %t | grep -qE '^(idle|mix|alloc)' || { say "the node did not come up (see /var/log/slurm/)"; exit 1; }

# --- the quick grid, through SLURM and locally
printf 'queue: cpu\nwalltime: "00:30:00"\nmemory: 4GB\nscheduler_host: 127.0.0.1\njob_extra_directives: ["--output=%s/slurm-%%j.out"]\n' "$WORK" > "$WORK/slurm.yaml"
start=$(date +%s)
CFFAIR_RESULTS="$WORK/slurm" "$CFFAIR" reproduce --mode quick --jobs "$JOBS" --no-notebooks --backend dask --cluster slurm \
  --cluster-config "$WORK/slurm.yaml" > "$WORK/slurm.log" 2>&1 \
  || { tail -20 "$WORK/slurm.log"; exit 1; }
mid=$(date +%s)
CFFAIR_RESULTS="$WORK/local" "$CFFAIR" reproduce --mode quick --jobs "$JOBS" --no-notebooks > "$WORK/local.log" 2>&1 \
  || { tail -20 "$WORK/local.log"; exit 1; }
end=$(date +%s)
say "quick grid through SLURM: $((mid - start)) s; locally: $((end - mid)) s ($JOBS workers each)"
"$PY" - "$WORK/slurm/quick" "$WORK/local/quick" "$((mid - start))" "$((end - mid))" "$JOBS" <<'PYCODE'
import json
import subprocess
import sys
import time
from cffair.experiments import ResultsStore

a, b = (ResultsStore(p) for p in sys.argv[1:3])
ra = {r["hash"]: r for r in a.records()}
rb = {r["hash"]: r for r in b.records()}
assert ra and set(ra) == set(rb), f"different records: {len(ra)} through SLURM, {len(rb)} locally"
differ = [h for h in ra if ra[h]["metrics"] != rb[h]["metrics"]]
print(f"test-slurm: {len(ra)} records, {len(ra) - len(differ)} with equal metrics, {len(differ)} different")
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
result = {"command": "make test-slurm", "date": time.strftime("%Y-%m-%d"), "commit": commit, "workers": int(sys.argv[5]),
          "slurm_seconds": int(sys.argv[3]), "local_seconds": int(sys.argv[4]), "records": len(ra),
          "equal_metrics": len(ra) - len(differ), "note": "the SLURM run comes first (it may fit the flows into a cold cache)"}
with open("benchmarks/results/test_slurm.json", "w") as f:  # shown on the book's Reproducing page
    f.write(json.dumps(result, indent=2) + "\n")
sys.exit(1 if differ else 0)
PYCODE
