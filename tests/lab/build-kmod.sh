#!/bin/bash
# OpenZFS kernel modules (spl.ko, zfs.ko, ...) for the guest kernel, built on
# the host with dkms from Debian's zfs-dkms package against linux-headers-$KVER.
# The modules are copied out and NOT installed into the host's /lib/modules;
# the dkms registration and /usr/src tree are removed afterwards.
# Usage: build-kmod.sh UPVER KVER OUTDIR
. "$(dirname "$0")/lib.sh"
UPVER=$1 KVER=$2 OUT=$3
DEBVER=$(debver "$UPVER")
[ -f "$OUT.ok" ] && { echo "cached: $OUT"; exit 0; }
[ -d "/usr/src/linux-headers-$KVER" ] || die "linux-headers-$KVER missing (host-deps.sh build)"
deb=$(apt_download zfs-dkms "$DEBVER")
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
dpkg-deb -x "$deb" "$src"
# what the zfs-dkms postinst does, minus installing into the running kernel
dkms remove -m zfs -v "$UPVER" --all >/dev/null 2>&1 || true
rm -rf "/usr/src/zfs-$UPVER"
cp -a "$src/usr/src/zfs-$UPVER" "/usr/src/zfs-$UPVER"
dkms add -m zfs -v "$UPVER"
t0=$(date +%s)
dkms build -m zfs -v "$UPVER" -k "$KVER"
echo "dkms build zfs $UPVER for $KVER took $(( $(date +%s) - t0 )) s"
rm -rf "$OUT"; mkdir -p "$OUT"
find "/var/lib/dkms/zfs/$UPVER/$KVER" -name '*.ko*' -exec cp -v {} "$OUT/" \;
modinfo "$OUT/zfs.ko" | grep -E '^(version|vermagic|depends)'
dkms remove -m zfs -v "$UPVER" --all >/dev/null
rm -rf "/usr/src/zfs-$UPVER"
touch "$OUT.ok"
