#!/bin/sh
# A CI gate on anefix's JSON: the rewritten model must be legal for the
# Neural Engine and keep the numbers. Usage: sh ci-gate.sh MODEL [rewrite flags]
# check and verify exit 3 when their gate is not met and 1 on bad input:
# `|| [ $? -eq 3 ]` lets only a gate verdict through to jq.
set -e
model=$1; shift
anefix rewrite "$model" -o fixed.aimodel --force "$@"
anefix check fixed.aimodel --json > check.json || [ $? -eq 3 ]
jq -r '.groups[] | select(.severity == "blocker") | "blocker \(.rule) x\(.count) at \(.source): fix with \(.fixPass)"' check.json
jq -e '.legal' check.json > /dev/null
anefix verify "$model" fixed.aimodel --json > verify.json || [ $? -eq 3 ]
jq -r '"mean KLD \(.meanKld) nats (max \(.maxKld)), same top-1 \(.sameTop1) (min \(.minSameTop1))"' verify.json
jq -e '.passed' verify.json > /dev/null
