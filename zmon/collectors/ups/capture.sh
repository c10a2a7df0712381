#!/bin/sh
# Capture UPS fixtures from a real host, in the formats `zmon parse upsc|apcaccess` read.
# Usage: zmon/collectors/ups/capture.sh OUTDIR [NUT_HOST[:PORT]] [APCUPSD_HOST[:PORT]]
# Needs nut-client (upsc) and/or apcupsd (apcaccess); read-only, no privileges.
set -u
out=${1:?usage: $0 OUTDIR [NUT_HOST[:PORT]] [APCUPSD_HOST[:PORT]]}
nut=${2:-localhost}
apc=${3:-localhost:3551}
mkdir -p "$out"
stamp=$(date +%Y%m%d-%H%M%S)
if command -v upsc >/dev/null 2>&1; then
    for ups in $(upsc -l "$nut" 2>/dev/null); do
        upsc "$ups@$nut" >"$out/upsc_${ups}_$stamp.txt" 2>&1
        echo "wrote $out/upsc_${ups}_$stamp.txt"
    done
fi
if command -v apcaccess >/dev/null 2>&1; then
    apcaccess -h "$apc" >"$out/apcaccess_$stamp.txt" 2>&1 && echo "wrote $out/apcaccess_$stamp.txt"
fi
