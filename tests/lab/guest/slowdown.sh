#!/bin/bash
# Runs INSIDE the lab VM when the kernel command line says zmonlab_driver=slowdown.sh
# (tests/lab/slowdown.py): a memory-bound slowdown and one slow disk, on a stripe pool `slow`
# (vdd, vde, vdf), prefetch off (every 128 KiB block read is one ARC access).
# The working set is a hot file of 40 MiB (each 8 MiB stretch read twice: the ARC's MFU list)
# and a scan file of 40 MiB (read once: its MRU list), read in turn (guest/reader.py).
# They are written after the export and import that empties the ARC (written blocks enter its
# MRU list), so the first round, with the ARC at its default size, reads them from memory; then
# zfs_arc_min goes to 32 MiB and zfs_arc_max to 64 MiB (OpenZFS 2.3 lets the ARC run up to
# 16 MiB over it while it evicts). The phases are as short as the host's rate window allows
# (PHASE_S, slowdown.PHASE_S), the files as small as the ARC's 64 MiB floor allows: the run
# stays under 3 minutes per version (tests/lab/README.md).
#   01-arc-phases  three phases read back to back, PHASE_S seconds each:
#                  arc-large   hot and scan read in turn: the misses are nearly all ghost hits
#                  arc-small   a 4 MiB file read round and round (hits: quiet)
#                  arc-raised  zfs_arc_max 512 MiB, after one round hot and scan again (hits)
#   02-slow-disk   `zinject -D 1000:16` on vde, a 24 MiB file written before an export and
#                  import of the pool and not read since (unknown to the ARC) read once in
#                  8 MiB reads (many blocks in flight): cold misses, one slow top-level vdev
# Every phase saves arcstats and `zpool iostat -p -w -v slow` at its start and end in
# /ctl/slowdown/<phase>/ (the hermetic tests replay them); the facts give each phase's window
# on the guest clock.
set -u
. "$(dirname "$0")/common.sh"
CAPTURE=0
ZEDPID=""   # no zed in this run (finish stops it)
PARAMS=/sys/module/zfs/parameters
OUT=$CTL/slowdown
ARC_MIN=$((32 << 20))
ARC_SMALL=$((64 << 20))
ARC_LARGE=$((512 << 20))
HOT_MIB=40
SCAN_MIB=40
SMALL_MIB=4
COLD_MIB=24
PHASE_S=${zmonlab_phase_seconds:-12}
DATA=/slow/data
READER=$(dirname "$0")/reader.py

now() { date +%s.%N; }
arc() { awk -v k="$1" '$1 == k {print $3}' /proc/spl/kstat/zfs/arcstats; }
# arc_line: the ARC's limit, size, hits, misses and ghosts in one read (one process: each
# costs seconds on a loaded TCG guest)
arc_line() {
    awk '{v[$1] = $3} END {printf "c_max %s size %s hits %s misses %s ghost hits %s+%s " \
        "ghost sizes %s+%s", v["c_max"], v["size"], v["hits"], v["misses"], v["mru_ghost_hits"],
        v["mfu_ghost_hits"], v["mru_ghost_size"], v["mfu_ghost_size"]}' /proc/spl/kstat/zfs/arcstats
}
# the reads yield the CPU to zmon and its zpool commands (-S -E: no site, a quicker start)
reader() { nice -n 10 python3 -S -E "$READER" "$@" || { log "reader $* failed"; exit 1; }; }

# snap PHASE start|end: the raw outputs the hermetic tests replay (COMMANDS.tsv as driver.sh)
snap() {
    local d=$OUT/$1; mkdir -p "$d"
    cat /proc/spl/kstat/zfs/arcstats > "$d/arcstats-$2.txt"
    zpool iostat -p -w -v slow > "$d/zpool-iostat-p-w-v-$2.txt" 2>&1
    [ "$2" = start ] && printf '%s\t0\t%s\n%s\t0\t%s\n' \
        "arcstats-{start,end}.txt" "cat /proc/spl/kstat/zfs/arcstats" \
        "zpool-iostat-p-w-v-{start,end}.txt" "zpool iostat -p -w -v slow" > "$d/COMMANDS.tsv"
    echo "$1.$2=$(now)" >> "$OUT/windows.txt"
}

# phase NAME READER-ARGS...: PHASE_S seconds of reading between two snapshots
phase() {
    local name=$1; shift
    snap "$name" start
    reader --seconds "$PHASE_S" "$@"
    snap "$name" end
    log "phase $name: $(arc_line)"
}

log "slowdown driver start"
load_zfs
echo 1 > $PARAMS/zfs_prefetch_disable
start_zmon 0   # it starts while the pool is made (require_zmon below)
log "create pool slow"
mkpool slow /dev/vdd /dev/vde /dev/vdf
zfs create -o recordsize=128k -o compression=off -o checksum=off -o atime=off slow/data
# compression and checksums off: zeros are written as blocks
write() { dd if=/dev/zero of="$DATA/$1" bs=1M count="$2" status=none; }
write cold $COLD_MIB
zpool sync slow
# out of the ARC with every ghost: the cold file stays unknown to it until slow-disk reads it
zpool export slow && zpool import -d /dev slow || { log "cannot export and import slow"; exit 1; }
# the working set, in the ARC as written: the first round reads it from memory
write hot $HOT_MIB; write scan $SCAN_MIB; write small $SMALL_MIB
zpool sync slow
reader $DATA/hot --passes 1 --twice --scan $DATA/scan
log "first round read: $(arc_line)"
echo $ARC_MIN > $PARAMS/zfs_arc_min
echo $ARC_SMALL > $PARAMS/zfs_arc_max
sleep 2   # the ARC shrinks to its new maximum
require_zmon
log "arc c_max $(arc c_max) (asked $ARC_SMALL), size $(arc size)"

phase arc-large $DATA/hot --twice --scan $DATA/scan
reader $DATA/small --passes 1
phase arc-small $DATA/small
echo $ARC_LARGE > $PARAMS/zfs_arc_max
reader $DATA/hot --passes 1 --twice --scan $DATA/scan
phase arc-raised $DATA/hot --twice --scan $DATA/scan
require_zmon
mapfile -t W < "$OUT/windows.txt"
zmon_processes
ready 01-arc-phases "zfs_version=$ZVER" "c_max_raised=$(arc c_max)" "${W[@]}" "${ZMON_PROCS[@]}"

zinject -d /dev/vde -D 1000:16 slow > "$CTL/zinject.log" 2>&1 ||
    { log "zinject -D failed: $(cat "$CTL/zinject.log")"; exit 1; }
phase slow-disk $DATA/cold --passes 1 --read-mib 8
zinject -c all > /dev/null 2>&1
require_zmon
grep '^slow-disk\.' "$OUT/windows.txt" > /tmp/slow-disk.facts   # the guest has no /dev/fd
mapfile -t W < /tmp/slow-disk.facts
ready 02-slow-disk "slow_vdev=vde" "${W[@]}"

finish
