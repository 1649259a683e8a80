#!/bin/sh
# HOSTILE STAND-IN test command for the probe runner of `anefix bisect` and
# `anefix reduce`; it looks at no model. It starts a child that keeps the
# test's stdout and stderr open, so that timeouts, the bounded drain and
# signals are tested against a process tree, not a single process.
#
#   standin-hostile-child.sh CANDIDATE MODE PIDFILE [EXIT]
#
#   ignore-term  the child ignores SIGTERM (it stays in the test's process
#                group); the test exits EXIT (default 0) at once
#   setsid       the child leaves the group with setsid(1); the test exits
#                EXIT at once
#   setsid-hang  as setsid, then the test sleeps: only a timeout ends it
#
# The child's pid is in PIDFILE before the test goes on; it sleeps 30 s.
cand=$1 mode=$2 pidfile=$3 code=${4:-0}
[ -e "$cand" ] || exit 2
case $mode in
ignore-term) sh -c 'trap "" TERM; echo $$ > "$1"; exec sleep 30' sh "$pidfile" & ;;
setsid | setsid-hang) setsid sh -c 'echo $$ > "$1"; exec sleep 30' sh "$pidfile" & ;;
*) exit 2 ;;
esac
while [ ! -s "$pidfile" ]; do sleep 0.01; done
echo "hostile stand-in: child $(cat "$pidfile") holds this output"
[ "$mode" = setsid-hang ] && sleep 60
exit "$code"
