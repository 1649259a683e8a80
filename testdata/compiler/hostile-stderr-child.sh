#!/bin/sh
# HOSTILE STAND-IN for `xcrun coreai-build`, for anefix's tests only: it
# compiles nothing. It starts a child that keeps stderr open (as a compiler
# that spawns helper processes may) and then waits, so that --timeout and
# signals can be tested against a process tree, not a single process.
#   HOSTILE_PIDS=FILE   append the shell's and the child's pids to FILE
#   HOSTILE_MODE=hang   (default) the shell sleeps too: only a timeout or a
#                       signal ends the run
#   HOSTILE_MODE=exit   the shell exits 0 at once, leaving the child behind
#                       holding stderr
sleep 600 &
child=$!
[ -n "${HOSTILE_PIDS:-}" ] && echo "$$ $child" >> "$HOSTILE_PIDS"
echo "hostile stand-in: child $child holds stderr" >&2
case ${HOSTILE_MODE:-hang} in
exit) exit 0 ;;
esac
wait
