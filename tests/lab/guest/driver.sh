#!/bin/bash
# Runs INSIDE the lab VM (started by guest/init). Loads OpenZFS, starts
# `zmon serve`, creates the pools and walks them through the fault sequence.
# After each step it writes /ctl/steps/<step>.ready (key=value facts) and waits
# for the host to scrape zmon and write /ctl/steps/<step>.ack.
# With zmonlab_capture=1 it also saves the raw outputs of each step in
# /ctl/captures/<step>/ (see capture below) for `make lab-capture`.
#
# Disks (see tests/lab/labvm.py):
#   AHCI   /dev/disk/by-id/ata-QEMU_HARDDISK_ZLSATA0..3   (sd[a-d] in no fixed order, 1 GiB)
#   virtio /dev/vda..vdf (serial ZLVIRT0..5, 512 MiB)
#   NVMe   /dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_ZLNVME0..1 (1 GiB)
# Pools:
#   tank    mirror(SATA0,SATA1) + log vdd + cache vde + spare SATA2 (by-id names)
#   rz      raidz1(vda,vdb,vdc) (short names)
#   single  NVME1 (no redundancy)
#   fragile SATA3 (one disk, created at the end, its disk is hot-removed)
set -u
. "$(dirname "$0")/common.sh"
CAPTURE=${zmonlab_capture:-0}
S0=$ID/ata-QEMU_HARDDISK_ZLSATA0; S1=$ID/ata-QEMU_HARDDISK_ZLSATA1
S2=$ID/ata-QEMU_HARDDISK_ZLSATA2; S3=$ID/ata-QEMU_HARDDISK_ZLSATA3
N0=$ID/nvme-QEMU_NVMe_Ctrl_ZLNVME0; N1=$ID/nvme-QEMU_NVMe_Ctrl_ZLNVME1

# wait_for POOL REGEX TIMEOUT: poll zpool status until REGEX matches
wait_for() {
    local i=0
    while ! zpool status "$1" 2>/dev/null | grep -Eq "$2"; do
        sleep 1; i=$((i+1))
        [ $i -ge "$3" ] && { log "wait_for $1 '$2' timed out"; return 1; }
    done
    return 0
}
# corrupt DEV START_MIB STEP_MIB COUNT: 1 MiB of random data every STEP MiB
corrupt() {
    local dev=$1 off=$2 step=$3 n=$4 i
    for i in $(seq 1 "$n"); do
        dd if=/dev/urandom of="$dev" bs=1M seek="$off" count=1 conv=notrunc,fsync status=none
        off=$((off+step))
    done
}
# issued_bytes POOL: bytes issued by the running scan, from the "N issued" (2.1) or
# "N / M issued" (2.3) figure (zpool prints it rounded to 3 digits, with or without -p)
issued_bytes() {
    zpool status "$1" | grep -Eo '[0-9.]+[BKMGTP]? (/ [0-9.]+[BKMGTP]? )?issued' | head -1 |
        awk '{v=$1; u=substr(v, length(v)); n=v+0; m=1
              if (u=="K") m=2^10; else if (u=="M") m=2^20; else if (u=="G") m=2^30
              else if (u=="T") m=2^40
              printf "%d\n", n*m}'
}

# c FILE CMD...: run CMD into $D/FILE (30 s limit: a command stuck on a
# suspended pool is killed and recorded as "timeout") and note it in COMMANDS.tsv
c() {
    local f=$1 rc; shift
    timeout -s KILL 30 "$@" > "$D/$f" 2>&1 < /dev/null; rc=$?
    [ $rc = 137 ] && rc=timeout
    printf '%s\t%s\t%s\n' "$f" "$rc" "$*" >> "$D/COMMANDS.tsv"
}
# capture STEP: the raw outputs zmon's collectors read, for the hermetic tests
# (zpool status with the options zmon's zpool collector uses: -j ... on 2.3, -p -s text on 2.1)
capture() {
    D=$CTL/captures/$1; mkdir -p "$D"; : > "$D/COMMANDS.tsv"
    local p f
    c zpool-status-p-v-s.txt   zpool status -p -v -s
    c zpool-status-x.txt       zpool status -x
    c zpool-status-D-p.txt     zpool status -D -p
    if zpool status -j > /dev/null 2>&1; then
        c zpool-status.json    zpool status -j --json-int -p -s -t -i -v
    fi
    c zpool-list-Hp-o-cols.txt zpool list -Hp -o name,size,allocated,free,checkpoint,expandsize,fragmentation,capacity,dedupratio,health,altroot,guid
    c zpool-events-H.txt       zpool events -H
    c zfs-list-Hp.txt          zfs list -Hp -t all -o name,type,used,avail,refer,mountpoint,compressratio
    for p in $(zpool list -Ho name 2>/dev/null); do
        for f in state iostats; do
            [ -f "/proc/spl/kstat/zfs/$p/$f" ] && c "kstat-$p-$f.txt" cat "/proc/spl/kstat/zfs/$p/$f"
        done
    done
    case "$1" in 01-*|13-*|14-*)
        c dmesg.txt            dmesg
        c arcstats.txt         cat /proc/spl/kstat/zfs/arcstats
        c zpool-get-Hp-all.txt zpool get -Hp all ;;
    esac
    case "$1" in 01-*|02-*)  # stock tunables, then zio_slow_io_ms lowered (zfs_module)
        c zfs-module.txt       grep -H . /sys/module/zfs/version /sys/module/zfs/parameters/* \
                               /sys/module/zfs/features.pool/*/uname ;;
    esac
    if [ "$1" = 01-healthy ]; then
        c smartctl-a-j-sata0.json smartctl -a -j "$S0"
        c smartctl-a-j-nvme0.json smartctl -a -j /dev/nvme0
        c zfs-version.txt         zfs version
    fi
}

########################################################################
log "driver start, capture=$CAPTURE"
load_zfs
DEVMAP=()
for l in "$ID"/ata-QEMU_HARDDISK_ZLSATA? "$ID"/nvme-QEMU_NVMe_Ctrl_ZLNVME? "$ID"/virtio-ZLVIRT?; do
    [ -e "$l" ] && DEVMAP+=("dev.$(basename "$l")=$(kname "$l")")
done
start_zmon

log "create pools"
mkpool tank mirror "$S0" "$S1" log /dev/vdd cache /dev/vde spare "$S2"
mkpool rz raidz1 /dev/vda /dev/vdb /dev/vdc
mkpool single "$N1"
zfs create -o compression=lz4 tank/data
zfs create -o compression=off -o recordsize=128k tank/big
zfs create -V 64M tank/vol
zfs create -o compression=zstd rz/data
zfs create single/docs
# far from full: the datasets collector's quota series, not its alerts
zfs set quota=1G tank/data
zfs set refquota=512M single/docs
log "write data"
# about 250 MB: big enough for scans that last, small enough for TCG
cp -a /usr/share/perl5 /usr/share/zoneinfo /usr/lib/python3.11 /tank/data/ 2>/dev/null
dd if=/dev/urandom of=/tank/big/random.bin bs=1M count=96 status=none
dd if=/dev/urandom of=/rz/data/random.bin bs=1M count=64 status=none
cp -a /usr/bin /rz/data/
dd if=/dev/urandom of=/single/important.bin bs=1M count=64 status=none
cp -a /usr/share/zoneinfo /single/docs/ 2>/dev/null
dd if=/dev/urandom of=/dev/zvol/tank/vol bs=1M count=8 status=none
zfs snapshot -r tank@snap1
zpool sync
require_zmon
zmon_processes
ready 01-healthy "zfs_version=$ZVER" "${DEVMAP[@]}" "${ZMON_PROCS[@]}"

########################################################################
log "scrub tank, slowed down; I/Os over 100 ms count as slow (delay events, zpool status -s)"
SLOW_IO=/sys/module/zfs/parameters/zio_slow_io_ms
slow_default=$(cat $SLOW_IO)
echo 100 > $SLOW_IO
zinject -d "$S0" -D 500:1 tank
zinject -d "$S1" -D 500:1 tank
zpool scrub tank
wait_for tank 'scrub in progress' 60
sleep 3
ready 02-scrub-in-progress
zinject -c all
echo "$slow_default" > $SLOW_IO
timeout 900 zpool wait -t scrub tank
ready 03-scrub-finished

########################################################################
log "corrupt one side of the tank mirror on disk, then scrub"
corrupt "$S1-part1" 8 16 60
zpool scrub tank
timeout 900 zpool wait -t scrub tank
ready 04-checksum-errors-repaired
zpool clear tank

########################################################################
log "read errors during a scrub, write errors during writes (rz vdc)"
zinject -d /dev/vdc -e io -T read -f 50 rz
zpool scrub rz
timeout 900 zpool wait -t scrub rz
zinject -c all
zinject -d /dev/vdc -e io -T write -f 50 rz
dd if=/dev/urandom of=/rz/data/more.bin bs=1M count=32 status=none
zpool sync rz
ready 05-io-errors
zinject -c all
zpool clear rz

########################################################################
log "corrupt the one-disk pool: permanent errors"
corrupt "$N1-part1" 8 8 120
zpool scrub single
timeout 900 zpool wait -t scrub single
cat /single/important.bin > /dev/null 2>&1 || log "read of important.bin failed as expected"
ready 06-permanent-errors

########################################################################
log "offline tank SATA1: DEGRADED"
zpool offline tank "$S1"
dd if=/dev/urandom of=/tank/big/while-offline.bin bs=1M count=16 status=none
zpool sync tank
ready 07-degraded-offline
zpool online tank "$S1"
timeout 900 zpool wait -t resilver tank

########################################################################
log "fault rz vdc: FAULTED"
zinject -d /dev/vdc -A fault rz
sleep 2
ready 08-faulted
zinject -c all
zpool clear rz
timeout 900 zpool wait -t resilver rz

########################################################################
log "replace tank SATA1 by NVME0 with both old disks slowed down: resilver"
zinject -d "$S0" -D 500:1 tank
zinject -d "$S1" -D 500:1 tank
zpool replace tank "$S1" "$N0"
wait_for tank 'resilver in progress' 60
sleep 4
ready 09-resilver-in-progress

log "raise the delay until the resilver stops progressing"
# A dying disk: the old disks answer ever slower. A zinject -D lane serves one I/O at a time,
# so delayed I/Os queue up and still finish after `zinject -c` (the cost of a long delay is a
# long tail), and the issued figure moves in bursts as batches complete. To keep the stall
# steady while the host watches, the scan is then held with zfs_scan_suspend_progress (a test
# tunable of both versions); the facts say whether the delay alone had stopped it.
stalled_by=""
for delay in 2000 5000; do
    zinject -c all > /dev/null
    zinject -d "$S0" -D "$delay:1" tank
    zinject -d "$S1" -D "$delay:1" tank
    sleep 5; a=$(issued_bytes tank); sleep 20; b=$(issued_bytes tank)
    log "delay $delay ms: issued $a -> $b bytes in 20 s"
    [ -z "$b" ] && { log "no scan in progress any more"; break; }
    [ $((b - a)) -lt 524288 ] && { stalled_by="delay_${delay}ms"; break; }
done
echo 1 > /sys/module/zfs/parameters/zfs_scan_suspend_progress
sleep 5
ready 10-resilver-stalled "stalled_by=${stalled_by:-none}" "delay_ms=$delay"
echo 0 > /sys/module/zfs/parameters/zfs_scan_suspend_progress
zinject -c all
timeout 900 zpool wait -t resilver tank
ready 11-resilver-finished

########################################################################
log "hot spare SATA2 replaces NVME0: spare in use"
zpool replace tank "$N0" "$S2"
timeout 900 zpool wait -t resilver tank
ready 12-spare-in-use
zpool detach tank "$S2"
sleep 1

########################################################################
log "start zed (after clearing old events, or it replays them all)"
mkdir -p /run/zed /var/log /run/lock
zpool events -c > /dev/null
zed -F -v -p /run/zed/zed.pid -s /run/zed/zed.state > "$CTL/zed.log" 2>&1 &
ZEDPID=$!
sleep 3
removed=$(kname "$S0")
log "hot-remove SATA0 ($removed)"
echo 1 > "/sys/block/$removed/device/delete"
dd if=/dev/urandom of=/tank/big/after-remove.bin bs=1M count=8 status=none
zpool sync tank > /dev/null 2>&1 &
wait_for tank 'REMOVED|UNAVAIL|FAULTED' 60
wait_for tank 'INUSE' 60     # zed's retire agent pulls in the spare
timeout 900 zpool wait -t resilver tank
ready 13-device-removed "removed=$removed"

########################################################################
# One-disk pool loses its only disk. 2.3.2 suspends the pool; 2.1.11 keeps
# it ONLINE and retries the writes forever (a real difference, see RECIPE).
log "pool fragile on SATA3, then remove its disk"
zpool create -f -o ashift=12 fragile "$S3"
dd if=/dev/urandom of=/fragile/data.bin bs=1M count=32 status=none
zpool sync fragile
removed=$(kname "$S3")
echo 1 > "/sys/block/$removed/device/delete"
( dd if=/dev/urandom of=/fragile/more.bin bs=1M count=8 status=none; zpool sync fragile ) \
    > /dev/null 2>&1 < /dev/null &
wait_for fragile 'SUSPENDED|suspended|ONLINE +[0-9.]+[KM]? +[1-9]' 30 || true
sleep 5
ready 14-pool-suspended "removed=$removed"

finish
