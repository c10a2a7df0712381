#!/bin/sh
# Record zpool status in the forms the zpool collector reads, for a new test fixture.
# Usage: zmon/collectors/zpool/capture.sh OUTDIR   (run on a ZFS host; no root needed on OpenZFS 2.x)
# Each command's stdout goes to its own file, stderr to FILE.stderr; COMMANDS.tsv lists
# file, exit status and command line. Nothing is changed on the host.
set -u
. "$(dirname "$0")/../../host/capture_commands.sh"  # OUTDIR, run FILE COMMAND...
run zpool-status.json           zpool status -j --json-int -p -s -t -i -v
run zpool-status-plain.json     zpool status -j
run zpool-status-p-v-s.txt      zpool status -p -v -s
run zpool-status-p-s.txt        zpool status -p -s
run zpool-status-v.txt          zpool status -v
run zpool-status-P-L.txt        zpool status -P -L
run zpool-status-t-D.txt        zpool status -t -D -p
run zpool-status-i.txt          zpool status -i -p
run zpool-get-Hp-guid.txt       zpool get -Hp guid
run zpool-version.txt           zpool version
ls -l /dev/disk/by-id > "$out/dev-disk-by-id.txt" 2>/dev/null || true
echo "captured into $out; check the files for names you do not want to publish"
