#!/bin/sh
# STAND-IN test for `anefix bisect`, not a compiler: it passes (exit 0) only
# when a candidate has both properties that two experiments give, as read by
# `anefix inspect --json`. Off a Mac it takes the place of
# `anefix compile {} --require-ane`.
#
#   standin-needs-two-experiments.sh CANDIDATE head TYPE
#       no f32 value left (strip-fp32-casts islands=all) and a graph input
#       of type TYPE, the table's (externalize-constant)
#   standin-needs-two-experiments.sh CANDIDATE softmax
#       no f32 value left and no coreai.softmax op (arm-d replace=sdpa)
#
# ANEFIX names the anefix binary (default: anefix on PATH).
set -eu
cand=$1 mode=$2 type=${3:-}
"${ANEFIX:-anefix}" inspect --json "$cand" | /usr/bin/python3 -c '
import json, sys
mode, want = sys.argv[1], sys.argv[2]
rep = json.load(sys.stdin)
f32 = sum(e.get("count", 0) for g in rep.get("graphs", []) for e in g.get("elementTypes", []) if e["type"] == "f32")
ok = f32 == 0
if mode == "head":
    ok = ok and any(p.get("type") == want for g in rep.get("graphs", []) for p in g.get("inputs", []))
elif mode == "softmax":
    ok = ok and not any(o["opName"] == "coreai.softmax" for o in rep.get("moduleOpCounts", []))
else:
    sys.exit(2)
sys.exit(0 if ok else 1)
' "$mode" "$type"
