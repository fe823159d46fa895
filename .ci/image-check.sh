#!/usr/bin/env bash
# Builds the FROM-scratch image (deploy/build-image.sh, with buildah) from the static build, exports it as an
# OCI archive, then checks what is in it: its dpkg database and SBOM (with dpkg and PyPI's spdx-tools), then
# unpacks its layer and runs the binary there, under chroot as the image's user, against a server on loopback. (podman's runtime may not start containers in a CI container:
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

# The package database a CVE scanner reads (issue 38, item 10), checked by dpkg itself: every package registered
# with its file list and checksums (--audit prints nothing), every file of every package as its .deb had it
# (--verify prints nothing), and no file in the image that no package owns but the binary, the CA bundle made from
# ca-certificates' files, the user tables, the database and the SBOM.
audit=$(dpkg --root="$rootfs" --audit 2>&1)
[ -z "$audit" ] || { echo "dpkg --audit of the image's database:"; echo "$audit"; exit 1; }
verify=$(dpkg --root="$rootfs" --verify 2>&1)
[ -z "$verify" ] || { echo "dpkg --verify of the image's files:"; echo "$verify"; exit 1; }
sbom="$archive.spdx.json"
"$repo/.build/venv-openapi/bin/pyspdxtools" -i "$sbom" || { echo "$sbom is not valid SPDX"; exit 1; }
cmp -s "$sbom" "$rootfs/usr/share/doc/apiprobe/sbom.spdx.json" || { echo "the image's SBOM differs from $sbom"; exit 1; }
python3 - "$rootfs" "$sbom" <<'PY'
import glob, json, os, subprocess, sys
rootfs, sbom = sys.argv[1], sys.argv[2]
owned = set()
for listing in glob.glob(os.path.join(rootfs, "var/lib/dpkg/info/*.list")):
    owned.update(line.rstrip("\n") for line in open(listing, encoding="utf-8"))
expected = {"/usr/local/bin/apiprobe", "/etc/ssl/certs/ca-certificates.crt", "/etc/passwd", "/etc/group",
            "/etc/nsswitch.conf", "/usr/share/doc/apiprobe/sbom.spdx.json"}
stray = []
for folder, _, files in os.walk(rootfs):
    for name in files:
        path = "/" + os.path.relpath(os.path.join(folder, name), rootfs)
        if path not in owned and path not in expected and not path.startswith("/var/lib/dpkg/"):
            stray.append(path)
assert not stray, "files no package owns: %s" % stray[:20]
# The installed packages as dpkg reads them from the image's database.
installed = sorted(subprocess.run(["dpkg-query", "--root", rootfs, "-W", "-f", "${Package}\\n"], check=True,
                                  capture_output=True, text=True).stdout.split())
# An image without a database passes dpkg's checks with nothing to say: the libraries' packages must be there.
assert "libc6" in installed and "libcurl4" in installed, "the database lacks the libraries' packages: %s" % installed
document = json.load(open(sbom, encoding="utf-8"))
listed = sorted(p["name"] for p in document["packages"] if p["SPDXID"].startswith("SPDXRef-deb-"))
assert listed == installed, "the SBOM's Debian packages %s differ from the database's %s" % (listed, installed)
purls = [r["referenceLocator"] for p in document["packages"] for r in p.get("externalRefs", [])]
assert any(purl.startswith("pkg:deb/debian/libc6@") for purl in purls), purls
assert any(purl.startswith("pkg:swift/github.com/apple/swift-nio@") for purl in purls), purls
libraries = [p for p in owned if "/lib/" in p and ".so" in os.path.basename(p)]
print("image: %d Debian packages in its dpkg database (%d shared libraries), all files verified; SBOM: %d packages"
      % (len(installed), len(libraries), len(document["packages"])))
PY
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
