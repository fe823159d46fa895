#!/usr/bin/env bash
# Builds the FROM-scratch image (deploy/build-image.sh, with buildah) from the static build, exports it as an
# OCI archive, then checks what is in it: unpacks its layer and runs the binary there, under chroot as the
# image's user, against a server on loopback. (podman's runtime may not start containers in a CI container:
# `crun: setrlimit RLIMIT_NOFILE: Operation not permitted`; the layer is what the engine would run.)
#
#   bash .ci/image-check.sh [BINARY]   (default: the static build, .build-static/release/apiprobe)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-"$repo/.build-static/release/apiprobe"}
[ -x "$binary" ] || { echo "build the static binary first (.ci/run does)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/apiprobe-image-check-XXXXXX")
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    umount "$work/rootfs/proc" 2>/dev/null || true
    umount "$work/rootfs/dev" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

archive="$work/apiprobe.oci.tar"
bash "$repo/deploy/build-image.sh" "$binary" apiprobe:ci "$archive"

# Unpack the OCI archive: index → manifest → config and the one layer.
mkdir -p "$work/oci" "$work/rootfs"
tar -xf "$archive" -C "$work/oci"
python3 - "$work/oci" "$work/rootfs" <<'PY'
import json, os, sys, tarfile
oci, rootfs = sys.argv[1], sys.argv[2]
def blob(digest):
    return os.path.join(oci, "blobs", *digest.split(":", 1))
index = json.load(open(os.path.join(oci, "index.json")))
manifest = json.load(open(blob(index["manifests"][0]["digest"])))
config = json.load(open(blob(manifest["config"]["digest"])))["config"]
assert config.get("Entrypoint") == ["/usr/local/bin/apiprobe"], config
assert config.get("User") == "65532:65532", config
assert len(manifest["layers"]) == 1, manifest["layers"]
with tarfile.open(blob(manifest["layers"][0]["digest"])) as layer:
    layer.extractall(rootfs)
print("image: entrypoint %s, user %s, %d layer" % (config["Entrypoint"], config["User"], len(manifest["layers"])))
PY
rootfs="$work/rootfs"
# Nothing but what the image holds: no shell, no package manager.
[ ! -e "$rootfs/bin/sh" ] || { echo "the image has a shell"; exit 1; }
[ -f "$rootfs/etc/ssl/certs/ca-certificates.crt" ] || { echo "the image has no CA bundle"; exit 1; }
# What a container engine gives every container: /proc (Swift reads its arguments there) and /dev.
mkdir -p "$rootfs/proc" "$rootfs/dev"
mount -t proc proc "$rootfs/proc"
mount --bind /dev "$rootfs/dev"
chroot --userspec=65532:65532 "$rootfs" /usr/local/bin/apiprobe --version

# A loopback API, probed from inside the image's files.
mkdir -p "$work/api"
printf '{"status": "ok", "items": [1, 2]}' > "$work/api/health.json"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$work/api" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
server=$!
for _ in $(seq 50); do
    curl -fs "http://127.0.0.1:$port/health.json" >/dev/null && break
    sleep 0.1
done
cat > "$rootfs/config/apiprobe.yml" <<YAML
api: image
baseURL: http://127.0.0.1:$port
endpoints:
  - name: health
    path: /health.json
    samples: 2
    expect:
      status: 200
      body: [/status == "ok", /items length == 2]
YAML
chroot --userspec=65532:65532 "$rootfs" /usr/local/bin/apiprobe run --config /config/apiprobe.yml \
    --history /state/history.jsonl --report json=/state/report.json --report console
python3 - "$rootfs/state/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["passed"] is True, report
assert [e["name"] for e in report["endpoints"]] == ["health"], report
print("the image's binary probed the loopback API: passed, %d samples" % report["endpoints"][0]["samples"])
PY
[ -s "$rootfs/state/history.jsonl" ] || { echo "no history written"; exit 1; }
echo "image check: OK"
