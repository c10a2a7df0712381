#!/bin/sh
# Record what the zfs_module collector reads, for a new test fixture.
# Usage: zmon/collectors/zfs_module/capture.sh OUTDIR   (run on a ZFS host; no root needed)
# Each command's stdout goes to its own file, stderr to FILE.stderr; COMMANDS.tsv lists
# file, exit status and command line. Nothing is changed on the host. Right after
# `modprobe zfs` (no options in /etc/modprobe.d) the parameters are the release's defaults:
# that capture is what tunables.py's columns are checked against.
set -u
. "$(dirname "$0")/../../host/capture_commands.sh"  # OUTDIR, run FILE COMMAND...
if [ "$(uname -s)" = FreeBSD ]; then
    run sysctl-vfs-zfs-version-module.txt sysctl vfs.zfs.version.module
else
    # one path:value line per file; the input of `zmon parse zfs-module`
    run zfs-module.txt grep -H . /sys/module/zfs/version /sys/module/zfs/parameters/* \
        /sys/module/zfs/features.pool/*/uname
fi
run zpool-get-Hp-all.txt zpool get -Hp all
run zfs-version.txt      zfs version
echo "captured into $out; check the files for names you do not want to publish"
