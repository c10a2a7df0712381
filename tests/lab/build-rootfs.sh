#!/bin/bash
# The guest root file system for one OpenZFS version, packed as one zstd
# initramfs: Debian bookworm (mmdebstrap "essential") + zfsutils-linux, zed and
# zinject, udev, smartmontools, nvme-cli, python3, iproute2, the kernel modules
# the VM needs and the spl/zfs modules from build-kmod.sh.
# zmon itself is NOT in the image: it comes over 9p (build-zmon.sh), so a zmon
# change never rebuilds this. /init is a stub that hands over to
# tests/lab/guest/init (9p share "lab"), so guest scripts change without a rebuild.
# Usage: build-rootfs.sh UPVER KVER KMODDIR OUTFILE
. "$(dirname "$0")/lib.sh"
UPVER=$1 KVER=$2 KMOD=$3 OUTFILE=$4
DEBVER=$(debver "$UPVER")
KDIR=$CACHE/kernel/$KVER
[ -f "$OUTFILE.ok" ] && { echo "cached: $OUTFILE"; exit 0; }
[ -f "$KMOD/zfs.ko" ] || die "no $KMOD/zfs.ko (build-kmod.sh first)"
[ -f "$KDIR.ok" ] || die "no kernel in $KDIR (build-kernel.sh first)"
ROOT=$(mktemp -d "$CACHE/rootfs.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT

SOURCES=("deb $MIRROR bookworm main contrib")
HOOK=(--setup-hook='true')
case "$DEBVER" in
  *bpo12*) # every OpenZFS package from bookworm-backports, not a mix
    SOURCES+=("deb $MIRROR bookworm-backports main contrib")
    HOOK=(--setup-hook='mkdir -p "$1/etc/apt/preferences.d"; printf "Package: *zfs* libnvpair* libuutil* libzpool*\nPin: release n=bookworm-backports\nPin-Priority: 990\n" > "$1/etc/apt/preferences.d/zfs-backports"');;
esac
t0=$(date +%s)
mmdebstrap --mode=root --variant=essential \
  --aptopt='APT::Install-Recommends "false"' \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  "${HOOK[@]}" \
  --include="kmod,udev,mount,procps,iproute2,smartmontools,nvme-cli,bsdextrautils,python3,zfsutils-linux" \
  bookworm "$ROOT" "${SOURCES[@]}"
# zed: zfs-zed Depends on zfs-modules|zfs-dkms (the whole compiler): unpack instead.
# zinject is only in zfs-test (fio, ksh, mdadm, zfs-dkms ...): take the one binary.
# --keep-directory-symlink keeps the merged-/usr symlinks (/lib, /sbin).
zed_deb=$(apt_download zfs-zed "$DEBVER")
test_deb=$(apt_download zfs-test "$DEBVER")
dpkg-deb --fsys-tarfile "$zed_deb" | tar -C "$ROOT" -x --keep-directory-symlink
dpkg-deb --fsys-tarfile "$test_deb" | tar -C "$ROOT" -x --keep-directory-symlink ./sbin/zinject
if chroot "$ROOT" ldd /sbin/zinject /usr/sbin/zed | grep 'not found'; then die "missing libraries"; fi
chroot "$ROOT" python3 --version
rm -rf "$ROOT"/var/cache/apt/* "$ROOT"/var/lib/apt/lists/* "$ROOT"/usr/share/doc "$ROOT"/usr/share/man
t1=$(date +%s)

# kernel modules: the closure of what the VM needs, plus spl/zfs
MODS="virtio_pci virtio_blk virtio_scsi virtio_net sd_mod ahci nvme 9p 9pnet_virtio virtio_rng"
rm -rf "$ROOT/lib/modules/$KVER"; mkdir -p "$ROOT/lib/modules/$KVER/updates/dkms"
for f in $(modprobe -d "$KDIR" -S "$KVER" -a --show-depends $MODS | awk '$1=="insmod"{print $2}' | sort -u); do
  rel=${f#"$KDIR"/}; mkdir -p "$ROOT/$(dirname "$rel")"; cp "$f" "$ROOT/$rel"
done
cp "$KDIR/lib/modules/$KVER"/modules.{builtin,builtin.modinfo,order} "$ROOT/lib/modules/$KVER/"
cp "$KMOD"/*.ko "$ROOT/lib/modules/$KVER/updates/dkms/"
depmod -b "$ROOT" "$KVER"

# /init: mount the "lab" share and run its guest/init (kept out of the image)
cat > "$ROOT/init" <<'STUB'
#!/bin/bash
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
modprobe -a virtio_pci 9pnet_virtio 9p
mkdir -p /lab && mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro lab /lab
[ -x /lab/init ] && exec /lab/init
echo "ZMONLAB: no /lab/init on the lab share"; echo o > /proc/sysrq-trigger; sleep 30
STUB
chmod 0755 "$ROOT/init"
echo zmonlab > "$ROOT/etc/hostname"
mkdir -p "$(dirname "$OUTFILE")"
(cd "$ROOT" && find . -print0 | cpio --null -o -H newc --quiet | zstd -q -T0 -3 -f -o "$OUTFILE.tmp")
mv "$OUTFILE.tmp" "$OUTFILE"
t2=$(date +%s)
du -sh "$ROOT"; ls -la "$OUTFILE"
echo "mmdebstrap $((t1-t0)) s, modules+pack $((t2-t1)) s"
touch "$OUTFILE.ok"
