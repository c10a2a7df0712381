#!/bin/bash
# `make lab`: build (or find cached) everything the live lab needs and write
# the manifest $CACHE/lab.env that tests/lab/labvm.py reads.
#   kernel  Debian linux-image-$KVER, unpacked           key: KVER
#   kmod    zfs-dkms built by dkms, per OpenZFS version   key: version, KVER, build-kmod.sh
#   image   mmdebstrap rootfs as initramfs, per version   key: kmod key, build-rootfs.sh
#   zmon    zmon + dependency wheels installed to a dir   key: zmon's sources (rebuilt per change)
# Usage: build.sh [UPVER...]   (default: every version in ZMON_LAB_VERSIONS)
. "$(dirname "$0")/lib.sh"
VERS=("$@"); [ ${#VERS[@]} -gt 0 ] || mapfile -t VERS < <(upversions)
mkdir -p "$CACHE/logs"
T0=$(date +%s)
"$LAB_DIR/host-deps.sh" run
KVER=$(kver); echo "$KVER" > "$CACHE/KVER"
KDIR=$CACHE/kernel/$KVER
declare -A KMOD IMAGE
need_build=0
[ -f "$KDIR.ok" ] || need_build=1
for v in "${VERS[@]}"; do
    d=$(debver "$v")
    KMOD[$v]=$CACHE/kmod/$KVER/$v-$(key "$d" "$KVER" "$LAB_DIR/build-kmod.sh")
    IMAGE[$v]=$CACHE/images/initrd-$v-$(key "${KMOD[$v]}" "$d" "$LAB_DIR/build-rootfs.sh").cpio.zst
    [ -f "${KMOD[$v]}.ok" ] && [ -f "${IMAGE[$v]}.ok" ] || need_build=1
done
if [ $need_build = 1 ]; then
    step "host packages for building (apt)" "$CACHE/logs/host-deps-build.log" \
        "$LAB_DIR/host-deps.sh" build
    step "guest kernel linux-image-$KVER" "$CACHE/logs/kernel.log" \
        "$LAB_DIR/build-kernel.sh" "$KVER"
    for v in "${VERS[@]}"; do
        [ -f "${KMOD[$v]}.ok" ] || step "OpenZFS $v kernel modules (dkms, ~6 min on 2 cores)" \
            "$CACHE/logs/kmod-$v.log" "$LAB_DIR/build-kmod.sh" "$v" "$KVER" "${KMOD[$v]}"
        [ -f "${IMAGE[$v]}.ok" ] || step "OpenZFS $v guest image (mmdebstrap, ~1 min)" \
            "$CACHE/logs/rootfs-$v.log" "$LAB_DIR/build-rootfs.sh" "$v" "$KVER" "${KMOD[$v]}" \
            "${IMAGE[$v]}"
    done
else
    log "kernel, modules and images for ${VERS[*]} are cached (KVER $KVER)"
fi
# only the current modules and image of each version stay in the cache
for v in "${VERS[@]}"; do
    for old in "$CACHE/kmod/$KVER/$v"-* "$CACHE/images/initrd-$v"-*; do
        case "$old" in "${KMOD[$v]}"|"${KMOD[$v]}.ok"|"${IMAGE[$v]}"|"${IMAGE[$v]}.ok") ;;
                       *) if [ -e "$old" ]; then rm -rf "$old"; fi ;; esac
    done
done
# zmon: keyed by its sources, so every change rebuilds only this layer
ZKEY=$(cd "$REPO_DIR" && find zmon pyproject.toml -type f ! -path '*/__pycache__/*' ! -name '*.pyc' \
       -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)
ZDIR=$CACHE/zmon/$ZKEY
if [ ! -f "$ZDIR.ok" ]; then
    step "zmon wheels for the guest" "$CACHE/logs/zmon.log" "$LAB_DIR/build-zmon.sh" "$ZDIR"
    # keep the three newest zmon layers
    ls -dt "$CACHE"/zmon/*/ 2>/dev/null | tail -n +4 | while read -r old; do
        rm -rf "$old" "${old%/}.ok"; done
fi
{
    echo "KVER=$KVER"
    echo "KERNEL=$KDIR/boot/vmlinuz-$KVER"
    echo "ZMON_SITE=$ZDIR/share"
    for v in "${VERS[@]}"; do echo "INITRD_${v//./_}=${IMAGE[$v]}"; echo "DEBVER_${v//./_}=$(debver "$v")"; done
} > "$CACHE/lab.env.tmp"
# versions built earlier and not named now stay in the manifest
if [ -f "$CACHE/lab.env" ]; then
    while IFS= read -r l; do
        grep -q "^${l%%=*}=" "$CACHE/lab.env.tmp" || echo "$l"
    done < <(grep -E '^(INITRD|DEBVER)_' "$CACHE/lab.env" || true) >> "$CACHE/lab.env.tmp"
fi
mv "$CACHE/lab.env.tmp" "$CACHE/lab.env"
log "lab ready in $(( $(date +%s) - T0 )) s: $CACHE/lab.env"
cat "$CACHE/lab.env"
