#!/bin/bash
# The guest kernel: Debian's linux-image-$KVER, downloaded and unpacked into
# $CACHE/kernel/$KVER (boot/vmlinuz-*, lib/modules/*). Nothing is installed.
# Usage: build-kernel.sh KVER
. "$(dirname "$0")/lib.sh"
KVER=$1
OUT=$CACHE/kernel/$KVER
[ -f "$OUT.ok" ] && { echo "cached: $OUT"; exit 0; }
deb=$(apt_download "linux-image-$KVER")
rm -rf "$OUT"; mkdir -p "$OUT"
dpkg-deb -x "$deb" "$OUT"
depmod -b "$OUT" "$KVER"
ls -la "$OUT/boot/vmlinuz-$KVER"
touch "$OUT.ok"
