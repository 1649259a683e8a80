#!/bin/sh
# STAND-IN test for `anefix reduce`, not a compiler bug: it "still
# reproduces" (exit 0) while the candidate holds at least one op named OP, as
# `anefix inspect --json` counts them, and is a model anefix can read.
#
#   standin-needs-op.sh CANDIDATE OP        e.g. OP = coreai.softmax
#
# ANEFIX names the anefix binary (default: anefix on PATH).
set -eu
cand=$1 op=$2
"${ANEFIX:-anefix}" inspect --json "$cand" | /usr/bin/python3 -c '
import json, sys
rep = json.load(sys.stdin)
sys.exit(0 if any(o["opName"] == sys.argv[1] and o["count"] > 0 for o in rep.get("moduleOpCounts", [])) else 1)
' "$op"
