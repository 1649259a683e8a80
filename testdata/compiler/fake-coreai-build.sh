#!/bin/sh
# STAND-IN for `xcrun coreai-build`, for anefix's tests only. It does not
# compile anything: it writes an .aimodelc tree shaped like the real one and
# prints a typed log excerpt (testdata/compilerlogs) to stderr, so the
# orchestration of `anefix compile` can be tested off a Mac. Never present
# its output as a measurement.
#
# Usage (as anefix calls it):
#   fake-coreai-build.sh compile IN.aimodel --platform P --preferred-compute C \
#       --architecture A --output OUT.aimodelc
# Behaviour, chosen by the environment:
#   FAKE_COREAI_BUILD_ANE_IF=substr  IN containing substr -> "ane", else "fallback"
#   FAKE_COREAI_BUILD_SCENARIO=ane|fallback|crash  (default fallback)
#     ane       one <f>_ANE_region_0_0.bc entry for each name f in
#               FAKE_COREAI_BUILD_REGIONS (space-separated), or fn0..fn<N-1> for
#               N = FAKE_COREAI_BUILD_FUNCTIONS (default 1); exit 0
#     fallback  no ANE region, seed-arm-a.log on stderr, exit 0 (the silent GPU fallback)
#     crash     "Segmentation fault" and SIGSEGV (like apple/coreai-models #55)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ "${1:-}" = compile ] || { echo "fake-coreai-build: stand-in supports only 'compile'" >&2; exit 64; }
shift
in=$1; shift
out=""
while [ $# -gt 0 ]; do
	case $1 in
	--output) out=$2; shift 2 ;;
	--platform|--preferred-compute|--architecture) shift 2 ;;
	*) echo "fake-coreai-build: unknown flag $1" >&2; exit 64 ;;
	esac
done
[ -n "$out" ] || { echo "fake-coreai-build: --output missing" >&2; exit 64; }
[ -d "$in" ] || { echo "fake-coreai-build: $in is not an .aimodel directory" >&2; exit 65; }

scenario=${FAKE_COREAI_BUILD_SCENARIO:-fallback}
if [ -n "${FAKE_COREAI_BUILD_ANE_IF:-}" ]; then
	case $in in
	*"$FAKE_COREAI_BUILD_ANE_IF"*) scenario=ane ;;
	*) scenario=fallback ;;
	esac
fi

mkdir -p "$out"
echo "stand-in compiled program" > "$out/main.bc"
case $scenario in
ane)
	if [ -n "${FAKE_COREAI_BUILD_REGIONS:-}" ]; then
		for f in $FAKE_COREAI_BUILD_REGIONS; do
			echo "stand-in region" > "$out/${f}_ANE_region_0_0.bc"
		done
	else
		n=${FAKE_COREAI_BUILD_FUNCTIONS:-1}
		i=0
		while [ "$i" -lt "$n" ]; do
			echo "stand-in region" > "$out/fn${i}_ANE_region_0_0.bc"
			i=$((i + 1))
		done
	fi
	;;
fallback)
	cat "$here/../compilerlogs/seed-arm-a.log" >&2
	;;
crash)
	echo "Segmentation fault: 11" >&2
	kill -SEGV $$
	;;
*)
	echo "fake-coreai-build: unknown scenario $scenario" >&2
	exit 64
	;;
esac
exit 0
