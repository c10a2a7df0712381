# Sourced by the lab's guest drivers (driver.sh, leadtime.sh): the step handshake, logging,
# loading OpenZFS, starting zmon and zed, and the end of a run. See driver.sh for the handshake.
CTL=/ctl
STEPS=$CTL/steps
ACK_TIMEOUT=${zmonlab_ack_timeout:-900}
ID=/dev/disk/by-id
mkdir -p "$STEPS"

up() { cut -d' ' -f1 /proc/uptime; }
log() { echo "ZMONLAB[$(up)] $*"; echo "ZMONLAB[$(up)] $*" > /dev/console; }
kname() { basename "$(readlink -f "$1")"; }   # by-id path -> sda, nvme0n1 ...

# ready STEP [KEY=VALUE...]: publish the step, wait for the host's ack
# (with CAPTURE=1 the driver's capture function saves the raw outputs first)
ready() {
    local step=$1; shift
    [ "${CAPTURE:-0}" = 1 ] && capture "$step"
    {
        echo "step=$step"
        echo "guest_time=$(date +%s.%N)"
        echo "uptime=$(up)"
        local kv; for kv in "$@"; do echo "$kv"; done
    } > "$STEPS/$step.tmp"
    mv "$STEPS/$step.tmp" "$STEPS/$step.ready"
    log "step $step ready, waiting for the host"
    local i=0
    while [ ! -e "$STEPS/$step.ack" ]; do
        [ -e "$STEPS/abort" ] && { log "host aborted the run"; exit 3; }
        sleep 0.5; i=$((i+1))
        [ $i -ge $((ACK_TIMEOUT*2)) ] && { log "no ack for $step after $ACK_TIMEOUT s"; exit 4; }
    done
    log "step $step acknowledged"
}

# load_zfs: the module with a fixed host id; sets ZVER
load_zfs() {
    zgenhostid -f 0x00bab10c
    modprobe zfs || { log "modprobe zfs failed"; exit 1; }
    ZVER=$(cat /sys/module/zfs/version)
    log "zfs $ZVER loaded"
}

# start_zmon: zmon from the "zmon" share (host-built wheels installed to a directory, as one
# tar) with the flags the host wrote to /ctl/zmon.args (--web.user zmon among them), started as
# packaging/zmon.service starts it: as root through setpriv with the flags the host wrote to
# /ctl/zmon.setpriv (the unit's bounding set, the same set inheritable and ambient, the noroot
# securebits, no_new_privs). The `zmon` system user is created as the .deb's postinst does.
# Sets ZMONPID (zmon's main process: setpriv execs it). Waits WAIT seconds (default 5) to say
# at once that zmon ended on a bad flag or import error (0: a later require_zmon says it).
start_zmon() {
    local wait=${1:-5}
    mkdir -p /opt/zmon /var/lib/zmon
    tar -C /opt/zmon -xf /zmon/zmon-site.tar
    getent passwd zmon > /dev/null ||
        useradd --system --user-group --no-create-home --home-dir /nonexistent \
            --shell /usr/sbin/nologin zmon || { log "cannot create the zmon user"; exit 1; }
    local args=() priv=()
    [ -f "$CTL/zmon.args" ] && mapfile -t args < "$CTL/zmon.args"
    [ -f "$CTL/zmon.setpriv" ] && mapfile -t priv < "$CTL/zmon.setpriv"
    log "setpriv ${priv[*]} zmon serve ${args[*]}"
    PYTHONPATH=/opt/zmon setpriv "${priv[@]}" -- python3 -X faulthandler -m zmon.cli serve \
        "${args[@]}" > "$CTL/zmon.log" 2>&1 &
    ZMONPID=$!
    [ "$wait" = 0 ] && return 0
    sleep "$wait"   # a bad flag or import error ends it at once: say so now, not after the setup
    kill -0 "$ZMONPID" 2>/dev/null || { log "zmon did not start"; tail -20 "$CTL/zmon.log"; exit 1; }
}

# zmon_processes: sets ZMON_PROCS to one fact per zmon process, from /proc (the host checks
# them, tests/lab/privilege_checks.py): zmon.main (ZMONPID), zmon.http (its forked child) and
# zmon.worker (the collection worker), told apart by their names (/proc/PID/comm: zmon-http,
# zmon-worker), each "pid=P uid=R,E,S,F CapEff=.. CapPrm=..
# CapBnd=..". Waits up to 60 s for both children (the worker starts after the HTTP process).
zmon_processes() {
    local pid i line role
    for i in $(seq 60); do
        : > /tmp/zmon-procs.facts
        for pid in "$ZMONPID" $(cat /proc/"$ZMONPID"/task/*/children 2>/dev/null); do
            if [ "$pid" = "$ZMONPID" ]; then
                role=main
            else
                case "$(cat /proc/"$pid"/comm 2>/dev/null)" in
                    zmon-worker) role=worker ;;
                    zmon-http) role=http ;;
                    *) continue ;;   # a command the privileged side runs
                esac
            fi
            awk -v role="$role" -v pid="$pid" '
                $1 == "Uid:" { uid = $2 "," $3 "," $4 "," $5 }
                $1 ~ /^Cap(Eff|Prm|Bnd):$/ { cap[substr($1, 1, 6)] = $2 }
                END { printf "zmon.%s=pid=%s uid=%s CapEff=%s CapPrm=%s CapBnd=%s\n",
                      role, pid, uid, cap["CapEff"], cap["CapPrm"], cap["CapBnd"] }
            ' /proc/"$pid"/status >> /tmp/zmon-procs.facts 2>/dev/null
        done
        [ "$(grep -c . /tmp/zmon-procs.facts)" -ge 3 ] && break
        sleep 1
    done
    mapfile -t ZMON_PROCS < /tmp/zmon-procs.facts   # (the guest has no /dev/fd)
}

# require_zmon: end the run (exit 1) with the end of zmon's log if zmon has stopped; ZMONPID
require_zmon() {
    kill -0 "$ZMONPID" 2>/dev/null || { log "zmon is not running"; tail -20 "$CTL/zmon.log"; exit 1; }
}

# mkpool NAME VDEVS...: zpool create, once more after udev settles if it failed (zpool
# waits for udev's partition links, which can lag on a loaded TCG guest)
mkpool() {
    local name=$1; shift
    udevadm settle --timeout=60
    zpool create -f -o ashift=12 "$name" "$@" && return 0
    log "zpool create $name failed, retrying"
    zpool destroy -f "$name" > /dev/null 2>&1
    sleep 5; udevadm settle --timeout=60
    zpool create -f -o ashift=12 "$name" "$@" || { log "cannot create pool $name"; exit 1; }
}

# start_zed: zed with the zedlets a stock install enables (the package's DEFAULT-ENABLED list)
# and mail on: its "mail" program appends each message, stamped with the guest clock, to
# /ctl/zed-mail.log instead of sending it. Old events are cleared first, or zed replays them
# all. Sets ZEDPID.
start_zed() {
    local lib=/usr/lib/zfs-linux/zed.d dir=/run/zmonlab/zed.d z
    [ -d "$lib" ] || lib=/usr/libexec/zfs/zed.d
    mkdir -p "$dir" /run/zed /var/log /run/lock
    cp /etc/zfs/zed.d/zed-functions.sh "$dir/"
    if [ -f "$lib/DEFAULT-ENABLED" ]; then
        while read -r z; do [ -f "$lib/$z" ] && ln -sf "$lib/$z" "$dir/$z"; done < "$lib/DEFAULT-ENABLED"
    else
        for z in all-syslog.sh data-notify.sh statechange-notify.sh scrub_finish-notify.sh \
                 resilver_finish-notify.sh; do ln -sf "$lib/$z" "$dir/$z"; done
    fi
    cat > /run/zmonlab/mail <<'MAIL'
#!/bin/sh
# zed's ZED_EMAIL_PROG: $1 subject, $2 address, the body on stdin
{ echo "ZEDMAIL $(date +%s.%N) $1"; sed 's/^/  /'; } >> /ctl/zed-mail.log
MAIL
    chmod 755 /run/zmonlab/mail
    { cat /etc/zfs/zed.d/zed.rc
      echo 'ZED_EMAIL_ADDR="root"'
      echo 'ZED_EMAIL_PROG="/run/zmonlab/mail"'
      echo "ZED_EMAIL_OPTS=\"'@SUBJECT@' @ADDRESS@\""
    } > "$dir/zed.rc"
    zpool events -c > /dev/null
    zed -F -v -d "$dir" -p /run/zed/zed.pid -s /run/zed/zed.state > "$CTL/zed.log" 2>&1 &
    ZEDPID=$!
    sleep 3
}

# finish: stop zed and zmon, tell the host the run is over and exit 0; ZEDPID, ZMONPID
finish() {
    kill "$ZEDPID" 2>/dev/null
    if [ -e "$STEPS/dump-threads" ]; then   # the host saw failures: zmon's thread stacks to its log
        kill -ABRT "$ZMONPID" 2>/dev/null; sleep 3
    fi
    kill "$ZMONPID" 2>/dev/null
    log "driver end"
    echo done > "$STEPS/done"
    exit 0
}
