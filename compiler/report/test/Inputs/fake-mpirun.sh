#!/bin/sh
# A stand-in for mpirun in the study's tests: appends its arguments and the
# Open MPI root variables to $FAKE_MPIRUN_RECORD, and writes the metrics log
# a run on N ranks would write, without training: a fixed dataset of 8,192
# samples, 8 per rank and step (1,024 / N steps), epoch time 8 / N s.
# With FAKE_MPIRUN_EXIT=K it prints a complaint and exits with K instead.
echo "args: $*" >> "$FAKE_MPIRUN_RECORD"
echo "env: ${OMPI_ALLOW_RUN_AS_ROOT:-unset} ${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-unset}" >> "$FAKE_MPIRUN_RECORD"
if [ -n "$FAKE_MPIRUN_EXIT" ]; then
  echo "exe: error: The following argument was not expected: --sync"
  exit "$FAKE_MPIRUN_EXIT"
fi
np=1 log= sync='"sync":"allreduce"' scaling=none
while [ $# -gt 0 ]; do
  case "$1" in
    -np) np=$2; shift ;;
    --log) log=$2; shift ;;
    --lr-scaling) scaling=$2; shift ;;
    --sync) case "$2" in average:*) sync="\"sync\":\"average\",\"average_every\":${2#average:}" ;; esac; shift ;;
  esac
  shift
done
t=$(awk "BEGIN { print 8 / $np }")
steps=$((1024 / np)); [ "$steps" -ge 1 ] || steps=1
echo "training on $np ranks"
cat > "$log" <<LOG
{"event":"start","model":"tiny","target":"cpu","ranks":$np,"per_rank_batch":8,"global_batch":$((8 * np)),"params":10,"train_samples":8192,"steps_per_epoch":$steps,"epochs":1,$sync,"lr_scaling":"$scaling","goal":{"metric":"accuracy","op":">=","value":0.5},"schedule":"constant","source":"tiny.dx"}
{"event":"epoch","epoch":1,"steps":$steps,"train_time_s":$t,"elapsed_s":$t,"epoch_time_s":$t,"comm_time_s":0,"samples_per_s":0,"train_loss":0.5,"val_loss":0.5,"val_accuracy":0.6,"lr":0.1}
{"event":"target","metric":"accuracy","value":0.6,"epoch":1,"train_time_s":$t}
{"event":"end","train_time_s":$t,"elapsed_s":$t}
LOG
