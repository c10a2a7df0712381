#!/bin/bash
# Runs INSIDE the lab VM when the kernel command line says zmonlab_driver=leadtime.sh
# (tests/lab/leadtime.py): how long before ZFS faults a failing disk does zmon page, and
# when does ZED mail?
#   01-ramp-baseline   raidz1 pool rz on vda, vdb, vdc; zmon, zed (mail to a file) running
#   02-vdev-faulted    zinject fails a rising share of vdb's writes under a steady write load
#                      until ZED's diagnosis faults vdb; the facts carry the guest-clock times
#                      of the ramp, the FAULTED state, zmon's first page (read from the host's
#                      Prometheus through qemu's 10.0.2.2) and ZED's first mail
set -u
. "$(dirname "$0")/common.sh"
CAPTURE=0

log "lead-time driver start"
load_zfs
start_zmon
start_zed
log "create pool rz"
mkpool rz raidz1 /dev/vda /dev/vdb /dev/vdc
zfs create rz/data
dd if=/dev/urandom of=/rz/data/random.bin bs=1M count=32 status=none
zpool sync rz
require_zmon
zmon_processes
ready 01-ramp-baseline "zfs_version=$ZVER" "dev.vdb=vdb" "${ZMON_PROCS[@]}"

PROM=""
[ -s "$CTL/prometheus.port" ] && PROM="10.0.2.2:$(cat "$CTL/prometheus.port")"
log "ramp zinject -e io on rz vdb (alerts from ${PROM:-no Prometheus})"
python3 "$(dirname "$0")/ramp.py" --pool rz --vdev vdb --prometheus "$PROM" \
    --mail-log "$CTL/zed-mail.log" --write-dir /rz/data > "$CTL/ramp.facts" 2> "$CTL/ramp.log"
rc=$?
zinject -c all > /dev/null 2>&1
[ $rc = 0 ] || { log "ramp failed ($rc)"; tail -20 "$CTL/ramp.log"; }
mapfile -t FACTS < "$CTL/ramp.facts"
ready 02-vdev-faulted "${FACTS[@]}"

finish
