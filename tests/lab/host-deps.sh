#!/bin/bash
# Host packages for the lab. Idempotent: installs only what is missing.
#   host-deps.sh run     qemu (enough to boot cached images); fresh apt lists
#   host-deps.sh build   + dkms, the 6.1 kernel headers, mmdebstrap ... (to build them)
#   host-deps.sh fuse    + zfs-fuse (the zfs-fuse 0.7 test; installs /sbin/zpool, /sbin/zfs)
# The build set needs `contrib` (zfs-dkms) and `bookworm-backports` (OpenZFS 2.3):
# when apt does not know them yet, they go into /etc/apt/sources.list.d/zmon-lab.sources.
. "$(dirname "$0")/lib.sh"
what=${1:-run}
[ "$(id -u)" = 0 ] || die "host-deps.sh needs root (apt-get install)"

have_component() {  # SUITE COMPONENT: does apt already read it?
    apt-get indextargets --format '$(RELEASE) $(COMPONENT)' 2>/dev/null | grep -qx "$1 $2"
}

ensure_sources() {
    local f=/etc/apt/sources.list.d/zmon-lab.sources entries="" updated=0
    if ! have_component bookworm contrib; then
        entries+="Types: deb\nURIs: $MIRROR\nSuites: bookworm bookworm-updates\nComponents: contrib\n"
        entries+="Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n"
    fi
    if ! have_component bookworm-backports main || ! have_component bookworm-backports contrib; then
        entries+="Types: deb\nURIs: $MIRROR\nSuites: bookworm-backports\nComponents: main contrib\n"
        entries+="Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
    fi
    if [ -n "$entries" ] && [ ! -f "$f" ]; then
        log "adding contrib and bookworm-backports to apt ($f)"
        printf "# added by zmon tests/lab/host-deps.sh (OpenZFS lab builds)\n$entries" > "$f"
        updated=1
    fi
    # refresh the lists when they are missing or older than a day
    if [ $updated = 1 ] || ! have_component bookworm-backports contrib \
       || [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*backports*Packages*' -mmin -1440)" ]; then
        log "apt-get update"
        apt-get update -qq
    fi
}

refresh_lists() {  # apt-get update when the package lists are missing or a day old
    if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null)" ]
    then
        log "apt-get update"
        apt-get update -qq || log "apt-get update failed: going on with the lists there are"
    fi
}

missing() {  # PKG...: the ones not installed
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
    done
}

install() {
    local m
    m=$(missing "$@" | tr '\n' ' ')
    [ -z "${m// }" ] && return 0
    refresh_lists
    log "apt-get install $m"
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $m
}

PKGS_RUN="qemu-system-x86 zstd python3-venv"
case "$what" in
    run)   install $PKGS_RUN
           refresh_lists ;;   # build.sh reads the current kernel ABI from them
    build) ensure_sources
           KVER=$(kver)
           install $PKGS_RUN "linux-headers-$KVER" dkms gcc make libc6-dev file lsb-release perl \
                   mmdebstrap cpio kmod bc ca-certificates debian-archive-keyring ;;
    fuse)  install zfs-fuse ;;
    *)     die "usage: host-deps.sh run|build|fuse" ;;
esac
