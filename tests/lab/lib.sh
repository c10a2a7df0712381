#!/bin/bash
# Shared settings and helpers of the lab build scripts (sourced, not run).
#
# Everything built lands in $ZMON_LAB_CACHE (outside the clone), one directory
# per artifact, named by a key that hashes the versions and the script that
# built it. A finished artifact has a ".ok" stamp; a half-built one is redone.
set -euo pipefail

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$LAB_DIR/../.." && pwd)
CACHE=${ZMON_LAB_CACHE:-/var/cache/zmon-lab}
MIRROR=${ZMON_LAB_MIRROR:-http://deb.debian.org/debian}
# Debian packages of OpenZFS under test: upstream=debian version.
# 2.1.11 is bookworm's zfs-dkms, 2.3.2 comes from bookworm-backports.
ZMON_LAB_VERSIONS=${ZMON_LAB_VERSIONS:-"2.1.11=2.1.11-1+deb12u1 2.3.2=2.3.2-2~bpo12+2"}
export DEBIAN_FRONTEND=noninteractive

log() { printf '==> [lab %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'lab: %s\n' "$*" >&2; exit 1; }

# debver UPVER: the Debian version of one upstream version.
debver() {
    local pair
    for pair in $ZMON_LAB_VERSIONS; do
        [ "${pair%%=*}" = "$1" ] && { echo "${pair#*=}"; return 0; }
    done
    die "unknown OpenZFS version $1 (known: $ZMON_LAB_VERSIONS)"
}
upversions() { local pair; for pair in $ZMON_LAB_VERSIONS; do echo "${pair%%=*}"; done; }

# key WORD... : short hash of the words and, for words naming files, their contents
# (contents only: the same scripts in another clone give the same key).
key() {
    local w
    for w in "$@"; do
        if [ -f "$w" ]; then sha256sum < "$w"; else printf '%s\n' "$w"; fi
    done | sha256sum | cut -c1-12
}

# kver: the Debian 6.1 kernel ABI the lab builds for (e.g. 6.1.0-57-amd64).
# ZMON_LAB_KVER pins it; otherwise the newest one apt knows, remembered in
# $CACHE/KVER so that a run without network keeps using the cached kernel.
kver() {
    if [ -n "${ZMON_LAB_KVER:-}" ]; then echo "$ZMON_LAB_KVER"; return; fi
    local abi
    abi=$(apt-cache depends linux-headers-amd64 2>/dev/null \
          | awk '/Depends: linux-headers-6\.1\./{print $2; exit}' | sed 's/^linux-headers-//')
    if [ -z "$abi" ] && [ -f "$CACHE/KVER" ]; then abi=$(cat "$CACHE/KVER"); fi
    [ -n "$abi" ] || die "cannot resolve the Debian 6.1 kernel ABI (apt-get update? set ZMON_LAB_KVER)"
    echo "$abi"
}

# apt_download NAME [VERSION] : the .deb, downloaded once into $CACHE/debs; prints its path.
apt_download() {
    local name=$1 ver=${2:-} pat f
    pat="${name}_${ver:+${ver//:/%3a}_}"
    mkdir -p "$CACHE/debs"
    f=$(ls "$CACHE/debs/$pat"*.deb 2>/dev/null | head -1 || true)
    if [ -z "$f" ]; then
        (cd "$CACHE/debs" && apt-get download -q -o APT::Sandbox::User=root "$name${ver:+=$ver}" >&2) \
            || die "apt-get download $name${ver:+=$ver} failed"
        f=$(ls "$CACHE/debs/$pat"*.deb | head -1)
    fi
    echo "$f"
}

# step DESCRIPTION LOGFILE CMD... : run CMD with its output in LOGFILE, printing
# a heartbeat (elapsed time and the log's last line) every 20 s. On failure the
# log's tail is shown and the script stops.
step() {
    local desc=$1 logf=$2; shift 2
    local t0 pid rc=0 last
    mkdir -p "$(dirname "$logf")"
    t0=$(date +%s)
    log "$desc (log: $logf)"
    "$@" > "$logf" 2>&1 < /dev/null &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
        kill -0 "$pid" 2>/dev/null || break
        last=$(tail -n1 "$logf" 2>/dev/null | tr -d '\r' | cut -c1-90)
        printf '    ... %4ds  %s\n' "$(( $(date +%s) - t0 ))" "$last" >&2
    done
    wait "$pid" || rc=$?
    if [ "$rc" != 0 ]; then
        tail -n 30 "$logf" >&2
        die "$desc failed (exit $rc) after $(( $(date +%s) - t0 )) s; full log: $logf"
    fi
    log "$desc: done in $(( $(date +%s) - t0 )) s"
    printf '%s\t%s\n' "$desc" "$(( $(date +%s) - t0 ))" >> "$CACHE/logs/timings.tsv"
}
