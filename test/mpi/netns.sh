#!/usr/bin/env bash
# Two "nodes" on one machine: two network namespaces joined by a veth pair on
# a private /24 that exists only while this script runs. Runs a command in
# namespace A (where mpirun goes) and tears everything down at the end, also
# on failure or a signal: no namespace, veth or process is left behind.
#   netns.sh run DIR -- command args...
# The command sees (and the files under DIR hold):
#   DX_NS_A, DX_NS_B    the namespaces (node A: rank 0 and mpirun; node B)
#   DX_IP_A, DX_IP_B    their addresses; DX_SUBNET the /24
#   DX_HOSTFILE         DIR/hostfile: the two addresses, DX_SLOTS slots each
#                       (the environment's DX_SLOTS, default 1: ranks 0 ..
#                       DX_SLOTS-1 on node A, the next DX_SLOTS on node B)
#   DX_AGENT            the remote "shell" for --mca plm_rsh_agent: this
#                       script's `agent`, which runs the remote command in
#                       the namespace that owns the address (instead of ssh)
#   DX_WRAP             put before the executable: records the namespace
#                       each rank runs in (DIR/rank-R.netns), then execs it
# After the command: DIR/names (the namespaces and veth ends), DIR/veth.txt
# (bytes node A's veth end sent and received during the command), DIR/rc,
# DIR/leftover (processes still in the namespaces 3 s after the command).
# Exits with the command's status.
#
#   netns.sh agent [-x] HOST COMMAND...   (what mpirun calls instead of ssh)
#   netns.sh wrap EXE ARGS...             (DX_WRAP)
#   netns.sh fail-after DIR LOG CKDIR R SIG|linkdown -- command...
#       runs the command (mpirun ... --log LOG --log-steps --checkpoint-dir
#       CKDIR); after 30 steps has it write a checkpoint (SIGUSR1), then
#       sends SIG to rank R's process (in its namespace) or takes node B's
#       veth end down; prints what it did, the command's exit status and how
#       long after the failure the command ended; exits with that status
#   netns.sh check DIR LOG   after `run`: each rank ran in its node's namespace,
#       node A's veth carried at least the gradients' bytes (the log's
#       grad_bytes times its steps but one) both ways, and nothing is left
#       behind
set -u
self=$(readlink -f "$0")

case "${1:-}" in
agent)
  shift
  while [ "${1#-}" != "$1" ]; do shift; done # ssh options such as -x
  host=$1; shift
  case "$host" in
    "$DX_IP_A") ns=$DX_NS_A ;;
    "$DX_IP_B") ns=$DX_NS_B ;;
    *) echo "netns.sh agent: unknown host '$host'" >&2; exit 255 ;;
  esac
  # ssh hands its words to the remote shell as one command line. Each node
  # has a host name of its own (a UTS namespace named like its network
  # namespace), as real nodes do: Open MPI tells nodes apart by host name,
  # and with one name for both it takes ranks 0-1 and 2-3 of a 2 x 2 job for
  # one node's (and MPI_Comm_split_type never completes).
  exec ip netns exec "$ns" unshare --uts /bin/sh -c 'hostname "$0" && exec /bin/sh -c "$1"' "$ns" "$*"
  ;;
wrap)
  shift
  r=${OMPI_COMM_WORLD_RANK:-0}
  echo "$(ip netns identify $$) $$" > "$DX_DIR/rank-$r.netns"
  exec "$@"
  ;;
fail-after)
  dir=$2 log=$3 ckdir=$4 r=$5 sig=$6; shift 6
  [ "${1:-}" = "--" ] && shift
  "$@" &
  pid=$!
  # After 30 training steps (the log's step events), SIGUSR1 to mpirun, which
  # forwards it to the ranks on both nodes: a checkpoint after the current
  # step. Once it is complete (DONE), the failure.
  stage=steps
  for _ in $(seq 1200); do
    kill -0 $pid 2>/dev/null || break
    if [ $stage = steps ]; then
      n=$(grep -c '"event":"step"' "$log" 2>/dev/null)
      [ "${n:-0}" -ge 30 ] && { kill -USR1 $pid; stage=ck; }
    else
      compgen -G "$ckdir/step-*/DONE" > /dev/null && { stage=fail; break; }
    fi
    sleep 0.02
  done
  if [ $stage != fail ] || ! kill -0 $pid 2>/dev/null; then
    echo "netns.sh: the job ended (or made no checkpoint) before the failure" >&2
    wait $pid; exit 99
  fi
  t0=$(date +%s%N)
  if [ "$sig" = linkdown ]; then
    ip -n "$DX_NS_B" link set "${DX_NS_B/dxB/dxvb}" down && echo "failure: node B's veth end is down"
  else
    read -r ns rpid < "$dir/rank-$r.netns"
    # The pid is the rank's own (wrap execs it); it must still be in $ns.
    ip netns pids "$ns" | grep -qx "$rpid" || { echo "netns.sh: rank $r ($rpid) is not in $ns" >&2; exit 98; }
    kill -"$sig" "$rpid" && echo "failure: rank $r (pid $rpid in $ns) killed with SIG$sig"
  fi
  wait $pid
  rc=$?
  echo "failure: the job ended with exit status $rc $(( ($(date +%s%N) - t0) / 1000000 )) ms after the failure"
  exit $rc
  ;;
check)
  dir=$2 log=$3 ok=1
  read -r A B VA VB < "$dir/names"
  slots=$(cat "$dir/slots")
  for r in $(seq 0 $(( 2 * slots - 1 ))); do
    want=$A node=A; [ $r -ge "$slots" ] && want=$B node=B
    read -r ns rpid < "$dir/rank-$r.netns" || { echo "rank $r: no record"; ok=0; continue; }
    if [ "$ns" = "$want" ]; then echo "rank $r ran in node $node's namespace"
    else echo "rank $r ran in namespace '$ns', not $want"; ok=0; fi
    if kill -0 "$rpid" 2>/dev/null; then echo "rank $r (pid $rpid) is still running"; ok=0; fi
  done
  grad=$(grep -o '"grad_bytes":[0-9]*' "$log" | head -1 | cut -d: -f2)
  # Steps trained: the step events (--log-steps), or the epochs' steps.
  steps=$(grep -c '"event":"step"' "$log")
  [ "$steps" = 0 ] && steps=$(grep '"event":"epoch"' "$log" | grep -o '"steps":[0-9]*' | cut -d: -f2 | paste -sd+ | bc)
  read -r _ tx _ rx < "$dir/veth.txt"
  # Each node sends (and receives) at least the gradients' bytes per step
  # (2 ranks: a ring all-reduce sends half in its reduce-scatter, half in
  # its all-gather; 2 x 2: a ring's two edges between the nodes carry 3/2
  # of them each way, recursive doubling all of them); the last step's
  # bytes may still be in the socket buffers when the job fails, so one
  # step is not counted.
  need=$(( grad * (steps - 1) ))
  if [ "$steps" -ge 2 ] && [ "$tx" -ge "$need" ] && [ "$rx" -ge "$need" ]; then
    echo "veth carried the gradients both ways: $((steps - 1)) steps x $grad B <= sent $tx B, received $rx B"
  else echo "veth: sent $tx B, received $rx B, fewer than $((steps - 1)) steps x $grad B"; ok=0; fi
  if ip netns list | grep -qwE "$A|$B"; then echo "namespace left behind"; ok=0; fi
  if ip -o link | grep -qwE "$VA|$VB"; then echo "veth left behind"; ok=0; fi
  [ -s "$dir/leftover" ] && { echo "processes were left in the namespaces after the command:"; cat "$dir/leftover"; }
  [ $ok = 1 ] && echo "netns check: ok"
  [ $ok = 1 ]; exit
  ;;
run) ;;
*) echo "usage: netns.sh run DIR -- command... | agent HOST CMD | wrap EXE... | fail-after DIR LOG CKDIR R SIG -- command... | check DIR LOG" >&2; exit 2 ;;
esac

dir=$(readlink -f "$2"); shift 2
[ "${1:-}" = "--" ] && shift
mkdir -p "$dir"
[ "$(id -u)" = 0 ] || { echo "netns.sh: needs root (ip netns add)" >&2; exit 1; }

# Names and subnet unique to this run (parallel lit runs do not clash).
id=$$
A=dxA$id B=dxB$id VA=dxva$id VB=dxvb$id
net=10.213.$(( id % 254 + 1 ))
IPA=$net.1 IPB=$net.2

teardown() {
  local ns p
  for ns in $A $B; do
    # Every process still in the namespace (ranks, orted), then the namespace;
    # the veth goes with it.
    for p in $(ip netns pids $ns 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
  done
  for ns in $A $B; do
    for _ in $(seq 50); do [ -z "$(ip netns pids $ns 2>/dev/null)" ] && break; sleep 0.1; done
    ip netns del $ns 2>/dev/null
  done
  # The ranks' processes are gone, not only out of the namespaces (a rank
  # that is exiting, or a zombie left to init, is in no namespace).
  for f in "$dir"/rank-*.netns; do
    [ -e "$f" ] || continue
    read -r _ p < "$f"
    for _ in $(seq 50); do [ -e /proc/$p ] || break; sleep 0.1; done
  done
  true
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ip netns add $A && ip netns add $B &&
  ip link add name $VA netns $A type veth peer name $VB netns $B &&
  ip -n $A addr add $IPA/24 dev $VA && ip -n $B addr add $IPB/24 dev $VB &&
  ip -n $A link set lo up && ip -n $B link set lo up &&
  ip -n $A link set $VA up && ip -n $B link set $VB up ||
  { echo "netns.sh: could not set up the namespaces" >&2; exit 1; }
echo "$A $B $VA $VB" > "$dir/names"
slots=${DX_SLOTS:-1}
printf '%s slots=%s\n%s slots=%s\n' $IPA "$slots" $IPB "$slots" > "$dir/hostfile"
echo "$slots" > "$dir/slots"
rm -f "$dir"/rank-*.netns

counter() { ip netns exec $A cat /sys/class/net/$VA/statistics/$1; }
tx0=$(counter tx_bytes) rx0=$(counter rx_bytes)
env DX_NS_A=$A DX_NS_B=$B DX_IP_A=$IPA DX_IP_B=$IPB DX_SUBNET=$net.0/24 \
  DX_HOSTFILE="$dir/hostfile" DX_AGENT="$self agent" DX_WRAP="$self wrap" DX_DIR="$dir" \
  ip netns exec $A unshare --uts /bin/sh -c 'hostname "$0" && exec "$@"' $A "$@" &
pid=$!
wait $pid
rc=$?
# What the job left running in the namespaces 3 s after it ended (teardown
# kills it).
for _ in $(seq 30); do
  [ -z "$(ip netns pids $A)$(ip netns pids $B)" ] && break
  sleep 0.1
done
for ns in $A $B; do
  for p in $(ip netns pids $ns); do echo "$ns $p $(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null)"; done
done > "$dir/leftover"
echo "tx_bytes $(( $(counter tx_bytes) - tx0 )) rx_bytes $(( $(counter rx_bytes) - rx0 ))" > "$dir/veth.txt"
echo $rc > "$dir/rc"
exit $rc
