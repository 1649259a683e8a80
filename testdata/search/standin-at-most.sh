#!/bin/sh
# STAND-IN test for `anefix bisect`'s narrowing, not a compiler: exit 0 when
# the candidate holds at most N ops named OP (as `anefix inspect --json`
# counts them), e.g. `coreai.log 2`: one of synth arm A's three recurrence
# layers neutralized.
#
#   standin-at-most.sh CANDIDATE OP N
#
# ANEFIX names the anefix binary (default: anefix on PATH).
set -eu
cand=$1 op=$2 n=$3
"${ANEFIX:-anefix}" inspect --json "$cand" | /usr/bin/python3 -c '
import json, sys
rep = json.load(sys.stdin)
have = sum(o["count"] for o in rep.get("moduleOpCounts", []) if o["opName"] == sys.argv[1])
sys.exit(0 if have <= int(sys.argv[2]) else 1)
' "$op" "$n"
