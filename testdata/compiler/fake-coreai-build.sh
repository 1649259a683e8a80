#!/bin/sh
# STAND-IN for `xcrun coreai-build`, for anefix's tests only. It does not
# compile anything and nothing it writes is a measurement. It writes an
# .aimodelc tree in the layout real packages have, so that the way
# `anefix compile` and graph/aimodelc count regions can be tested off a Mac,
# and prints a typed log excerpt (testdata/compilerlogs) to stderr.
#
# The layout, and where each part comes from:
#   main-<arch>.mlirb, main.hash (32 raw bytes), metadata.json, stats.json,
#   main-<arch>-delegates/MPSGraph/mpsExecutable.mpsgraphpackage/
#     manifest.plist (XML; "Optimized Modules" keys are JSON strings),
#     specialized_model_1.mpsgraph (regions as region_call ops with
#     #placement.region_type<T>, symbols <fn>_0_<T>_region_<i>)
#       -- as in the real packages of ../shared/corpus/apple-compiled;
#   binary_0.llir.bundle/<fn>_0_ANE_region_<i>_0.bc/<arch>/<same>.mlir.bc and
#   <same>.bc.weights, one directory per ANE region
#       -- from public build scripts only: no public package shows a real ANE
#          region tree, so where the .llir.bundle sits (here: inside the
#          .mpsgraphpackage) and the <fn>_0 prefix are guesses.
# What the stand-in makes up: main-<arch>.mlirb is MLIR text naming itself a
# stand-in (real ones are aicode bytecode); the specialized graph is MLIR
# text unless FAKE_COREAI_BUILD_MLIR_OPT names an mlir-opt that turns it into
# bytecode; preferredDevice 2 for --preferred-compute neural-engine (the
# corpus shows only 1 = GPU); sourceHash = SHA-256 of IN/main.mlirb (what
# sourceHash hashes is not confirmed anywhere).
#
# Usage (as anefix calls it):
#   fake-coreai-build.sh compile IN.aimodel --platform P --preferred-compute C \
#       --architecture A --output DIR
# It writes DIR/<IN's name>.<A>.aimodelc: public build scripts pass --output a
# directory and take the one *.aimodelc in it; the <name>.<arch> naming is
# the corpus packages' (a guess for what coreai-build always does).
# Behaviour, chosen by the environment:
#   FAKE_COREAI_BUILD_ANE_IF=substr  IN containing substr -> "ane", else "fallback"
#   FAKE_COREAI_BUILD_SCENARIO=ane|fallback|crash|bf16  (default fallback)
#     ane       every entry function gets FAKE_COREAI_BUILD_ANE_REGIONS (default
#               1) ANE regions and no GPU region; exit 0
#     fallback  every entry function gets one GPU region and no ANE region,
#               seed-arm-a.log on stderr, exit 0 (the silent GPU fallback)
#     crash     "Segmentation fault" and SIGSEGV (a compiler crash as users report it)
#     bf16      zimage-bf16-input.log on stderr (the two-line element-type error
#               a bf16 module gets, as MaTriXy/coreai-model-zoo
#               knowledge/zimage-port.md quotes it), no package, exit 1 (the
#               exit status is a guess: the source shows only the message)
#   Entry functions: the names in FAKE_COREAI_BUILD_REGIONS (space-separated),
#   else fn0..fn<N-1> for N = FAKE_COREAI_BUILD_FUNCTIONS (default 1).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ "${1:-}" = compile ] || { echo "fake-coreai-build: stand-in supports only 'compile'" >&2; exit 64; }
shift
in=$1; shift
out=""
arch=h18p
compute=neural-engine
while [ $# -gt 0 ]; do
	case $1 in
	--output) out=$2; shift 2 ;;
	--architecture) arch=$2; shift 2 ;;
	--preferred-compute) compute=$2; shift 2 ;;
	--platform) shift 2 ;;
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
case $scenario in
ane|fallback) ;;
crash)
	echo "Segmentation fault: 11" >&2
	kill -SEGV $$
	;;
bf16)
	cat "$here/../compilerlogs/zimage-bf16-input.log" >&2
	exit 1
	;;
*)
	echo "fake-coreai-build: unknown scenario $scenario" >&2
	exit 64
	;;
esac

fns=${FAKE_COREAI_BUILD_REGIONS:-}
if [ -z "$fns" ]; then
	n=${FAKE_COREAI_BUILD_FUNCTIONS:-1}
	i=0
	while [ "$i" -lt "$n" ]; do
		fns="$fns fn$i"
		i=$((i + 1))
	done
fi
nane=${FAKE_COREAI_BUILD_ANE_REGIONS:-1}
case $compute in
gpu) pref=1 ;;
*) pref=2 ;;
esac

# sha256hex FILE: upper-case hex digest.
sha256hex() { sha256sum "$1" | cut -c1-64 | tr a-f A-F; }

name=$(basename "${in%/}")
out="$out/${name%.aimodel}.$arch.aimodelc"
mkdir -p "$out"
main="$out/main-$arch.mlirb"
printf '// STAND-IN written by testdata/compiler/fake-coreai-build.sh, not by coreai-build.\nmodule attributes {anefix.stand_in = "fake-coreai-build.sh"} {\n}\n' > "$main"
# main.hash: the 32 raw bytes of the digest (octal escapes for printf).
printf "$(sha256hex "$main" | awk '{ h = "0123456789ABCDEF"; for (i = 1; i < length($0); i += 2) printf "\\%03o", (index(h, substr($0, i, 1)) - 1) * 16 + index(h, substr($0, i + 1, 1)) - 1 }')" > "$out/main.hash"
src=""
[ -f "$in/main.mlirb" ] && src=$(sha256hex "$in/main.mlirb")
printf '{\n  "producer" : "fake-coreai-build.sh (stand-in)",\n  "sourceHash" : "%s",\n  "assetVersion" : "2.0"\n}\n' "$src" > "$out/metadata.json"
printf '{"operationDistribution":[],"storageTypes":[],"computeTypes":[]}\n' > "$out/stats.json"

pkg="$out/main-$arch-delegates/MPSGraph/mpsExecutable.mpsgraphpackage"
mkdir -p "$pkg"
spec="$pkg/specialized_model_1.mpsgraph"
{
	echo '// STAND-IN specialized graph written by testdata/compiler/fake-coreai-build.sh.'
	echo '"builtin.module"() ({'
	for f in $fns; do
		echo "  \"func.func\"() <{function_type = () -> (), sym_name = \"${f}_0\"}> ({"
		if [ "$scenario" = ane ]; then
			i=0
			while [ "$i" -lt "$nane" ]; do
				echo "    \"placement.region_call\"() {callee = @${f}_0_ANE_region_$i, region_type = #placement.region_type<ANE>} : () -> ()"
				i=$((i + 1))
			done
		else
			echo "    \"placement.region_call\"() {callee = @${f}_0_GPU_region_0, region_type = #placement.region_type<GPU>} : () -> ()"
		fi
		echo '    "func.return"() : () -> ()'
		echo '  }) : () -> ()'
		if [ "$scenario" = ane ]; then
			i=0
			while [ "$i" -lt "$nane" ]; do
				echo "  \"func.func\"() <{function_type = () -> (), sym_name = \"${f}_0_ANE_region_$i\", sym_visibility = \"private\"}> ({"
				echo '    "func.return"() : () -> ()'
				echo '  }) : () -> ()'
				i=$((i + 1))
			done
		else
			echo "  \"func.func\"() <{function_type = () -> (), sym_name = \"${f}_0_GPU_region_0\", sym_visibility = \"private\"}> ({"
			echo '    "func.return"() : () -> ()'
			echo '  }) : () -> ()'
		fi
	done
	echo "}) {mps.allowedComputeDevices = $pref : ui64, mps.preferredDevice = $pref : ui64} : () -> ()"
} > "$spec.mlir"
if [ -n "${FAKE_COREAI_BUILD_MLIR_OPT:-}" ]; then
	"$FAKE_COREAI_BUILD_MLIR_OPT" --allow-unregistered-dialect --emit-bytecode "$spec.mlir" -o "$spec"
	rm "$spec.mlir"
else
	mv "$spec.mlir" "$spec"
fi

# manifest.plist: one optimized module holding every entry function.
desc() { # desc NAME QUOTE: the descriptor JSON, with " written as QUOTE
	q=$2
	printf '{ %sentryFunctionName%s : %s%s%s, %sdeviceDescriptor%s : [0, 6, %s%s%s], %scompilationDescriptor%s : { %spreferredDevice%s : %s, %sallowedComputeDevices%s : %s, %suseANELLIR%s : true } }' \
		"$q" "$q" "$q" "$1" "$q" "$q" "$q" "$q" "$arch" "$q" "$q" "$q" "$q" "$q" "$pref" "$q" "$q" "$pref" "$q" "$q"
}
{
	echo '<?xml version="1.0" encoding="UTF-8"?>'
	echo '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">'
	echo '<plist version="1.0">'
	echo '<dict>'
	echo '	<key>Package Version</key>'
	echo '	<dict>'
	echo '		<key>7.0.56</key>'
	echo '		<dict>'
	echo '			<key>Optimized Modules</key>'
	echo '			<dict>'
	printf '				<key>['
	sep=""
	for f in $fns; do
		printf '%s"%s"' "$sep" "$(desc "$f" '\"')"
		sep=", "
	done
	echo ']</key>'
	echo '				<dict>'
	echo '					<key>Entry Function Attributes</key>'
	echo '					<dict>'
	for f in $fns; do
		echo "						<key>${f}_0</key>"
		echo '						<array>'
		echo '							<string>mps.aneAlignedIO</string>'
		[ "$scenario" = ane ] && echo '							<string>mps.fullyPlacedOnANE</string>' && echo '							<string>mps.noGPUActivity</string>'
		echo '						</array>'
	done
	echo '					</dict>'
	echo '					<key>File Name</key>'
	echo '					<string>specialized_model_1.mpsgraph</string>'
	echo '					<key>Key to Symbol Name</key>'
	echo '					<dict>'
	for f in $fns; do
		echo "						<key>$(desc "$f" '"')</key>"
		echo "						<string>${f}_0</string>"
	done
	echo '					</dict>'
	echo '				</dict>'
	echo '			</dict>'
	echo '		</dict>'
	echo '	</dict>'
	echo '</dict>'
	echo '</plist>'
} > "$pkg/manifest.plist"

if [ "$scenario" = ane ]; then
	for f in $fns; do
		i=0
		while [ "$i" -lt "$nane" ]; do
			r="${f}_0_ANE_region_${i}_0"
			mkdir -p "$pkg/binary_0.llir.bundle/$r.bc/$arch"
			echo "stand-in region binary" > "$pkg/binary_0.llir.bundle/$r.bc/$arch/$r.mlir.bc"
			echo "stand-in region weights" > "$pkg/binary_0.llir.bundle/$r.bc/$r.bc.weights"
			i=$((i + 1))
		done
	done
else
	cat "$here/../compilerlogs/seed-arm-a.log" >&2
fi
exit 0
