#!/usr/bin/env bash
# A one-node Slurm cluster of its own, for test/slurm: munged (own key and
# socket), slurmctld and slurmd on localhost, every file under DIR.
#   cluster.sh start DIR     generate the configuration, start the daemons,
#                            wait until the node is idle (prints the
#                            environment to source: SLURM_CONF, ports)
#   cluster.sh stop DIR      stop every daemon started for DIR and check
#                            that none is left (exit 1 when one is)
#   cluster.sh wait DIR JOB STATE... [--timeout S]
#                            wait until JOB is in one of STATEs (COMPLETED,
#                            FAILED, TIMEOUT, ...; as scontrol says them),
#                            print the state, exit 1 on timeout
# Root only (SlurmUser=root). Nothing is left running after stop.
set -u
cmd=$1 dir=$(realpath -m "$2")
shift 2
sbin=/usr/sbin
log() { echo "cluster.sh: $*" >&2; }

# Ports: two free TCP ports, picked by the kernel (not Slurm's 6817/6818).
free_ports() {
  python3 - <<'EOF'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

# The slurmstepd processes of this cluster (not another's): those with a
# file open under DIR (their spool directory's sockets and logs).
ours_stepd() {
  for p in $(pgrep -x slurmstepd); do
    for f in /proc/$p/fd/*; do
      case $(readlink "$f" 2>/dev/null) in "$dir"/*) echo "$p"; break ;; esac
    done
  done
}

stop() {
  [ -f "$dir/env" ] || return 0
  . "$dir/env"
  # Jobs first: cancel what is still queued or running, and give slurmd a
  # moment to end their processes.
  if [ -f "$dir/run/slurmctld.pid" ] && kill -0 "$(cat "$dir/run/slurmctld.pid")" 2>/dev/null; then
    scancel --quiet --user=root 2>/dev/null
    for _ in $(seq 1 50); do [ -z "$(squeue -h -o %i -t R,PD,CG 2>/dev/null)" ] && break; sleep 0.2; done
  fi
  # slurmd first (it ends the jobs' processes), then the controller, then munged.
  for d in slurmd slurmctld munged; do
    p=$(cat "$dir/run/$d.pid" 2>/dev/null) || continue
    kill -TERM "$p" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$p" 2>/dev/null; then log "$d (pid $p) ignored SIGTERM; killing it"; kill -KILL "$p" 2>/dev/null; fi
  done
  # Job processes slurmd may have left: slurmstepd, and the jobs' ranks
  # (cluster.sh cannot tell those from others: the test checks them by name).
  left=$( (pgrep -f -- "$dir/"; ours_stepd) | sort -u)
  if [ -n "$left" ]; then
    log "processes left after the daemons stopped:"; ps -o pid,args -p $left >&2
    kill -KILL $left 2>/dev/null
    rm -f "$dir/env"
    return 1
  fi
  rm -f "$dir/env" # stopped: a second stop (the test's trap) does nothing
  return 0
}

case $cmd in
start)
  rm -rf "$dir" && mkdir -p "$dir"/{run,state,spool,log,munge}
  chmod 700 "$dir/munge"
  read -r ctld_port slurmd_port < <(free_ports)
  host=$(hostname -s)
  # munged: its own key, socket, pid, log and seed, all under DIR.
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/munge.key"
  sock="$dir/munge/munge.socket"
  $sbin/munged --force --key-file="$dir/munge/munge.key" --socket="$sock" --pid-file="$dir/run/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" || { log "munged did not start"; exit 1; }
  cpus=2
  cat > "$dir/slurm.conf" <<EOF
ClusterName=dxtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock,cred_expire=5
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.txt
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
KillWait=2
MinJobAge=600
InactiveLimit=0
Waittime=0
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  cat > "$dir/env" <<EOF
export SLURM_CONF=$dir/slurm.conf
EOF
  . "$dir/env"
  $sbin/slurmctld -f "$dir/slurm.conf" -i || { log "slurmctld did not start"; tail "$dir/log/slurmctld.log" >&2; stop; exit 1; }
  $sbin/slurmd -f "$dir/slurm.conf" || { log "slurmd did not start"; tail "$dir/log/slurmd.log" >&2; stop; exit 1; }
  for _ in $(seq 1 300); do
    state=$(sinfo -h -N -o %T 2>/dev/null | head -1)
    [ "$state" = idle ] && break
    sleep 0.1
  done
  if [ "$state" != idle ]; then
    log "the node did not become idle (state '$state')"; tail -5 "$dir"/log/slurm*.log >&2; stop; exit 1
  fi
  log "node $host idle: slurmctld port $ctld_port, slurmd port $slurmd_port"
  ;;
stop)
  stop
  exit $?
  ;;
wait)
  . "$dir/env"
  job=$1; shift
  timeout=60 states=()
  while [ $# -gt 0 ]; do
    case $1 in --timeout) timeout=$2; shift 2 ;; *) states+=("$1"); shift ;; esac
  done
  end=$((SECONDS + timeout))
  while [ $SECONDS -lt $end ]; do
    st=$(scontrol show job "$job" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    for s in "${states[@]}"; do [ "$st" = "$s" ] && { echo "$st"; exit 0; }; done
    sleep 0.2
  done
  log "job $job still '$st' after ${timeout} s (waiting for ${states[*]})"
  scontrol show job "$job" >&2
  exit 1
  ;;
*) log "unknown command $cmd"; exit 2 ;;
esac
