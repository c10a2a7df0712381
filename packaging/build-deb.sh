#!/bin/sh
# Build the zmon .deb from this source tree: packaging/build-deb.sh [OUTDIR] (default dist/).
# Needs dpkg-dev, debhelper, python3.11-venv and pip access to zmon's dependencies
# (PIP_ARGS="--no-index --find-links DIR" builds offline from a wheel directory).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$src/dist}" && cd "${1:-$src/dist}" && pwd)
version=$(dpkg-parsechangelog -l "$src/packaging/debian/changelog" -S Version)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree=$work/zmon-$version
mkdir -p "$tree"
# the source without tests, caches and virtualenvs
tar -C "$src" --exclude=./.git --exclude=./.venv --exclude=./tests --exclude=./dist \
    --exclude=./build --exclude='*.egg-info' --exclude=__pycache__ --exclude=.pytest_cache \
    --exclude=.ruff_cache -cf - . | tar -C "$tree" -xf -
cp -r "$src/packaging/debian" "$tree/debian"
(cd "$tree" && dpkg-buildpackage -us -uc -b ${DPKG_BUILDPACKAGE_ARGS:-})
cp "$work"/zmon_"$version"_*.deb "$out"/
ls "$out"/zmon_"$version"_*.deb
