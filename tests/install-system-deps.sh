#!/bin/sh
# Installs the Debian packages that the real-tier tests run. Idempotent; needs root to install.
set -eu
PACKAGES="prometheus prometheus-alertmanager nut-server nut-client smartmontools libudev1 chromium openssl"
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "missing system packages:$missing" >&2
    echo "run as root: apt-get install$missing (the real-tier tests need them)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
