#!/bin/bash
# The zmon layer of the guest: zmon and its dependencies installed (from wheels
# built on the host) into a plain directory the VM reads over 9p and puts on
# PYTHONPATH. It changes with every commit, so it is cheap: the dependency
# wheels are cached by pyproject.toml, zmon's own wheel by its sources.
# The guest runs Debian's python3.11, so wheels are chosen for cp311/manylinux
# whatever the host python is (zmon's dependencies are pure Python).
# The VM reads one tar (OUTDIR/share/zmon-site.tar): thousands of small files over 9p
# are slow under TCG, one sequential file is not.
# Usage: build-zmon.sh OUTDIR   (OUTDIR/site is the install; ZMON_LAB_PYTHON picks pip's python)
. "$(dirname "$0")/lib.sh"
OUT=$1
PY=${ZMON_LAB_PYTHON:-python3}
[ -f "$OUT.ok" ] && { echo "cached: $OUT"; exit 0; }
TARGET=(--only-binary=:all: --python-version 3.11 --implementation cp --abi cp311
        --platform manylinux2014_x86_64)
DEPS=$CACHE/wheels/deps-$(key "$REPO_DIR/pyproject.toml")
rm -rf "$OUT"; mkdir -p "$OUT/wheels"
"$PY" -m pip wheel -q --no-deps -w "$OUT/wheels" "$REPO_DIR"
whl=$(ls "$OUT"/wheels/zmon-*.whl)
if [ ! -f "$DEPS.ok" ]; then
    rm -rf "$DEPS"
    "$PY" -m pip download -q -d "$DEPS" "${TARGET[@]}" "$whl"
    touch "$DEPS.ok"
fi
"$PY" -m pip install -q --no-index --find-links "$DEPS" --target "$OUT/site" "${TARGET[@]}" "$whl"
rm -rf "$OUT/site/bin"     # console scripts carry the host's interpreter path
if "$PY" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    "$PY" -m compileall -q "$OUT/site" || true   # cpython-311 .pyc: the guest need not compile
fi
mkdir -p "$OUT/share"
tar -C "$OUT/site" -cf "$OUT/share/zmon-site.tar.tmp" .
mv "$OUT/share/zmon-site.tar.tmp" "$OUT/share/zmon-site.tar"
ls "$OUT/site"; ls -la "$OUT/share"
touch "$OUT.ok"
