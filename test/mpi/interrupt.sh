#!/usr/bin/env bash
# Starts a training command, waits until its metrics log holds N epoch
# events, sends SIGTERM (or --signal SIG) to the command, or with --ranks to
# its child processes (the ranks mpirun started, as a batch scheduler
# signals them), and exits with the command's exit status.
#   interrupt.sh --log F.jsonl --epochs N [--ranks] [--signal USR1] -- command args...
set -u
log= epochs=1 ranks=0 sig=TERM
while [ "$1" != "--" ]; do
  case "$1" in
    --log) log=$2; shift 2 ;;
    --epochs) epochs=$2; shift 2 ;;
    --ranks) ranks=1; shift ;;
    --signal) sig=$2; shift 2 ;;
    *) echo "interrupt.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
shift
"$@" &
pid=$!
for _ in $(seq 1 1200); do
  n=$(grep -c '"event":"epoch"' "$log" 2>/dev/null || true)
  [ "${n:-0}" -ge "$epochs" ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.02
done
# Into the next epoch (the checkpoint is a mid-epoch one), but not past it:
# an epoch of the Fashion MLP takes 0.4 s on a fast core, and a signal 0.3 s
# after the event (found by polling every 0.1 s) once arrived in epoch 3.
sleep 0.05
if [ $ranks = 1 ]; then pkill -$sig -P $pid; else kill -$sig $pid; fi
wait $pid
