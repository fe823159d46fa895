#!/usr/bin/env python3
"""apiprobe beside blackbox_exporter, on the same loopback targets in one run (issue 38's side-by-side table).

    swift build -c release --product apiprobe
    python3 Benchmarks/BlackboxComparison/compare.py .build/release/apiprobe [--blackbox PATH]

Needs Debian's prometheus-blackbox-exporter, dnsmasq and openssl. The script makes its own certificates (a root, an
intermediate that expires in 3 days and a leaf that expires in 60; an expired leaf; a self-signed one; one for
another name), serves HTTP and HTTPS on 127.0.0.1 from this process, DNS from dnsmasq, then probes each target
with blackbox_exporter's /probe and with one `apiprobe run`, and prints per target: blackbox's probe_success,
apiprobe's apiprobe_up (an answer) and whether every check passed, the earliest certificate expiry each reports,
and the phases of a fresh connection. A verdict that differs is marked, with the reason when it differs by design
(apiprobe has checks blackbox has not: latency budgets, body conditions in JSON). Exit 1 when a verdict differs
without a reason given here, or two expiries differ.
"""

import http.server
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def openssl(*arguments, cwd):
    subprocess.run(["openssl", *arguments], cwd=cwd, check=True, capture_output=True)


def make_certificates(folder):
    """root → intermediate (3 days) → leaf (60 days); root → good leaf (90 days), expired leaf, wrong-name leaf;
    a self-signed leaf. Each leaf for 127.0.0.1 (IP SAN) unless said."""
    def key(name):
        openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", name + ".key", cwd=folder)

    def extension(name, text):
        with open(os.path.join(folder, name + ".ext"), "w") as f:
            f.write(text)

    key("root")
    openssl("req", "-x509", "-new", "-key", "root.key", "-subj", "/CN=compare root", "-days", "365",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            "-out", "root.pem", cwd=folder)

    def sign(name, subject, issuer, days=None, ca=False, san="IP:127.0.0.1", start=None, end=None):
        key(name)
        openssl("req", "-new", "-key", name + ".key", "-subj", subject, "-out", name + ".csr", cwd=folder)
        extension(name, ("basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n" if ca else
                         "basicConstraints=CA:FALSE\nsubjectAltName=%s\nextendedKeyUsage=serverAuth\n" % san))
        if start is not None:
            # `openssl x509 -req` has no start date; `openssl ca` would need a database. A past validity is made by
            # signing with -not_before/-not_after (OpenSSL 3's x509 -req takes them from 3.4; Debian 12 has 3.0):
            # fall back to `openssl ca` with a throwaway database.
            with open(os.path.join(folder, "ca.cnf"), "w") as f:
                f.write("[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\n"
                        "default_md=sha256\npolicy=p\ncopy_extensions=none\n[p]\ncommonName=supplied\n")
            open(os.path.join(folder, "index.txt"), "w").close()
            with open(os.path.join(folder, "serial"), "w") as f:
                f.write("1000\n")
            openssl("ca", "-batch", "-config", "ca.cnf", "-cert", issuer + ".pem", "-keyfile", issuer + ".key",
                    "-in", name + ".csr", "-out", name + ".pem", "-startdate", start, "-enddate", end,
                    "-extfile", name + ".ext", "-notext", cwd=folder)
            return
        openssl("x509", "-req", "-in", name + ".csr", "-CA", issuer + ".pem", "-CAkey", issuer + ".key",
                "-CAcreateserial", "-days", str(days), "-extfile", name + ".ext", "-out", name + ".pem", cwd=folder)

    sign("intermediate", "/CN=compare intermediate", "root", days=3, ca=True)
    sign("chained", "/CN=chained leaf", "intermediate", days=60)
    sign("good", "/CN=good leaf", "root", days=90)
    sign("expired", "/CN=expired leaf", "root", start="20200101000000Z", end="20200201000000Z")
    sign("wrongname", "/CN=wrong name", "root", days=90, san="DNS:other.example")
    key("selfsigned")
    openssl("req", "-x509", "-new", "-key", "selfsigned.key", "-subj", "/CN=self signed", "-days", "90",
            "-addext", "subjectAltName=IP:127.0.0.1", "-out", "selfsigned.pem", cwd=folder)
    with open(os.path.join(folder, "chained-full.pem"), "w") as f:
        f.write(open(os.path.join(folder, "chained.pem")).read() + open(os.path.join(folder, "intermediate.pem")).read())


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *arguments):
        pass

    def setup(self):
        super().setup()
        # As nginx and Go's servers do. Without it the response's second TLS record waits for the client's delayed
        # ACK: 40 ms of "processing" for curl and apiprobe alike (blackbox's Go client does not wait for it).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self):
        routes = {
            "/ok": (200, b'{"status": "ok", "items": [1, 2]}', 0),
            "/down": (503, b'{"error": "maintenance"}', 0),
            "/notfound": (404, b'{"error": "no such thing"}', 0),
            "/slow": (200, b'{"status": "ok"}', 0.3),
            "/bad-body": (200, b'{"status": "degraded"}', 0),
        }
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/ok")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        status, body, delay = routes.get(self.path, (404, b"{}", 0))
        time.sleep(delay)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(port, certificate=None, key=None):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    if certificate:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def metrics(text):
    values = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, _, value = line.rpartition(" ")
        try:
            values[name] = float(value)
        except ValueError:
            pass
    return values


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    apiprobe = os.path.abspath(sys.argv[1])
    blackbox = (sys.argv[sys.argv.index("--blackbox") + 1] if "--blackbox" in sys.argv
                else shutil.which("prometheus-blackbox-exporter") or shutil.which("blackbox_exporter"))
    dnsmasq = shutil.which("dnsmasq") or "/usr/sbin/dnsmasq"
    if not blackbox or not os.path.exists(dnsmasq):
        sys.exit("needs prometheus-blackbox-exporter and dnsmasq (apt-get install prometheus-blackbox-exporter "
                 "dnsmasq-base)")
    folder = tempfile.mkdtemp(prefix="apiprobe-blackbox-")
    children = []
    try:
        make_certificates(folder)
        path = lambda name: os.path.join(folder, name)
        http_port = free_port()
        serve(http_port)
        https = {}
        for name, certificate in [("good", "good.pem"), ("chained", "chained-full.pem"), ("expired", "expired.pem"),
                                  ("selfsigned", "selfsigned.pem"), ("wrongname", "wrongname.pem")]:
            https[name] = free_port()
            key = name if name != "chained" else "chained"
            serve(https[name], path(certificate), path(key + ".key"))
        closed = free_port()
        dns_port = free_port(socket.SOCK_DGRAM)
        children.append(subprocess.Popen(
            [dnsmasq, "--keep-in-foreground", "--no-resolv", "--no-hosts", "--listen-address=127.0.0.1",
             "--bind-interfaces", "--port=%d" % dns_port, "--address=/api.test/203.0.113.7", "--local=/test/",
             "--pid-file=" + path("dnsmasq.pid"), "--conf-file=/dev/null"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        base = "http://127.0.0.1:%d" % http_port
        # (name, blackbox module, blackbox target, apiprobe endpoint keys, why a difference is by design)
        targets = [
            ("http-200", "http_2xx", base + "/ok", {"url": base + "/ok"}, None),
            ("http-503", "http_2xx", base + "/down", {"url": base + "/down"}, None),
            ("http-404", "http_2xx", base + "/notfound", {"url": base + "/notfound"}, None),
            ("http-redirect", "http_2xx", base + "/redirect", {"url": base + "/redirect"}, None),
            ("http-body-ok", "http_body", base + "/ok",
             {"url": base + "/ok", "expect": {"body": ['/status == "ok"']}}, None),
            ("http-body-bad", "http_body", base + "/bad-body",
             {"url": base + "/bad-body", "expect": {"body": ['/status == "ok"']}}, None),
            ("http-slow-budget", "http_2xx", base + "/slow",
             {"url": base + "/slow", "expect": {"latency": ["p95 < 100ms"]}},
             "blackbox has no latency budget: apiprobe answers up, degraded"),
            ("http-closed", "http_2xx", "http://127.0.0.1:%d/" % closed, {"url": "http://127.0.0.1:%d/" % closed},
             None),
            ("https-good", "https_ca", "https://127.0.0.1:%d/ok" % https["good"],
             {"url": "https://127.0.0.1:%d/ok" % https["good"], "tls": {"caFile": path("root.pem")}}, None),
            ("https-chain-expiring", "https_ca", "https://127.0.0.1:%d/ok" % https["chained"],
             {"url": "https://127.0.0.1:%d/ok" % https["chained"],
              "tls": {"caFile": path("root.pem"), "expiresIn": "> 14d"}},
             "blackbox has no expiry threshold in the probe (an alert rule on probe_ssl_earliest_cert_expiry does it)"),
            ("https-expired", "https_ca", "https://127.0.0.1:%d/ok" % https["expired"],
             {"url": "https://127.0.0.1:%d/ok" % https["expired"], "tls": {"caFile": path("root.pem")}}, None),
            ("https-self-signed", "https_ca", "https://127.0.0.1:%d/ok" % https["selfsigned"],
             {"url": "https://127.0.0.1:%d/ok" % https["selfsigned"], "tls": {"caFile": path("root.pem")}}, None),
            ("https-wrong-name", "https_ca", "https://127.0.0.1:%d/ok" % https["wrongname"],
             {"url": "https://127.0.0.1:%d/ok" % https["wrongname"], "tls": {"caFile": path("root.pem")}}, None),
            ("https-insecure", "https_insecure", "https://127.0.0.1:%d/ok" % https["selfsigned"],
             {"url": "https://127.0.0.1:%d/ok" % https["selfsigned"], "tls": {"insecure": True}}, None),
            ("tcp-open", "tcp_connect", "127.0.0.1:%d" % http_port, {"url": "tcp://127.0.0.1:%d" % http_port}, None),
            ("tcp-closed", "tcp_connect", "127.0.0.1:%d" % closed, {"url": "tcp://127.0.0.1:%d" % closed}, None),
            ("tls-good", "tls_ca", "127.0.0.1:%d" % https["good"],
             {"url": "tls://127.0.0.1:%d" % https["good"], "tls": {"caFile": path("root.pem")}}, None),
            ("tls-expired", "tls_ca", "127.0.0.1:%d" % https["expired"],
             {"url": "tls://127.0.0.1:%d" % https["expired"], "tls": {"caFile": path("root.pem")}}, None),
            ("dns-a", "dns_a", "127.0.0.1:%d" % dns_port,
             {"url": "dns://127.0.0.1:%d" % dns_port, "dns": {"name": "api.test", "type": "A"},
              "expect": {"answers": ["203.0.113.7"]}}, None),
            ("dns-nxdomain", "dns_missing", "127.0.0.1:%d" % dns_port,
             {"url": "dns://127.0.0.1:%d" % dns_port, "dns": {"name": "missing.test", "type": "A"}}, None),
            ("dns-wrong-answer", "dns_a_other", "127.0.0.1:%d" % dns_port,
             {"url": "dns://127.0.0.1:%d" % dns_port, "dns": {"name": "api.test", "type": "A"},
              "expect": {"answers": ["198.51.100.1"]}}, None),
        ]
        ca = path("root.pem")
        modules = {
            "http_2xx": {"prober": "http", "timeout": "5s", "http": {"preferred_ip_protocol": "ip4"}},
            "http_body": {"prober": "http", "timeout": "5s", "http": {
                "preferred_ip_protocol": "ip4", "fail_if_body_not_matches_regexp": ['"status": *"ok"']}},
            "https_ca": {"prober": "http", "timeout": "5s", "http": {
                "preferred_ip_protocol": "ip4", "tls_config": {"ca_file": ca}}},
            "https_insecure": {"prober": "http", "timeout": "5s", "http": {
                "preferred_ip_protocol": "ip4", "tls_config": {"insecure_skip_verify": True}}},
            "tcp_connect": {"prober": "tcp", "timeout": "5s", "tcp": {"preferred_ip_protocol": "ip4"}},
            "tls_ca": {"prober": "tcp", "timeout": "5s", "tcp": {
                "preferred_ip_protocol": "ip4", "tls": True, "tls_config": {"ca_file": ca}}},
            "dns_a": {"prober": "dns", "timeout": "5s", "dns": {
                "preferred_ip_protocol": "ip4", "query_name": "api.test", "query_type": "A",
                "valid_rcodes": ["NOERROR"],
                "validate_answer_rrs": {"fail_if_none_matches_regexp": [".*203\\.0\\.113\\.7"]}}},
            "dns_a_other": {"prober": "dns", "timeout": "5s", "dns": {
                "preferred_ip_protocol": "ip4", "query_name": "api.test", "query_type": "A",
                "valid_rcodes": ["NOERROR"],
                "validate_answer_rrs": {"fail_if_none_matches_regexp": [".*198\\.51\\.100\\.1"]}}},
            "dns_missing": {"prober": "dns", "timeout": "5s", "dns": {
                "preferred_ip_protocol": "ip4", "query_name": "missing.test", "query_type": "A",
                "valid_rcodes": ["NOERROR"]}},
        }
        with open(path("blackbox.yml"), "w") as f:
            json.dump({"modules": modules}, f)   # JSON is YAML
        blackbox_port = free_port()
        children.append(subprocess.Popen(
            [blackbox, "--config.file=" + path("blackbox.yml"), "--web.listen-address=127.0.0.1:%d" % blackbox_port],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for _ in range(100):
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/metrics" % blackbox_port, timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        blackbox_results = {}
        for name, module, target, _, _ in targets:
            url = "http://127.0.0.1:%d/probe?module=%s&target=%s" % (
                blackbox_port, module, urllib.request.quote(target, safe=""))
            blackbox_results[name] = metrics(urllib.request.urlopen(url, timeout=10).read().decode())

        endpoints = []
        for name, _, _, keys, _ in targets:
            endpoint = {"name": name, "samples": 1, "timeout": "5s"}
            endpoint.update(keys)
            endpoints.append(endpoint)
        with open(path("apiprobe.yml"), "w") as f:
            json.dump({"api": "compare", "endpoints": endpoints}, f)   # JSON is YAML
        run = subprocess.run(
            [apiprobe, "run", "--config", path("apiprobe.yml"), "--report", "json=" + path("report.json"),
             "--report", "prometheus=" + path("report.prom")], capture_output=True, text=True)
        if run.returncode not in (0, 1):
            sys.exit("apiprobe run exited %d: %s" % (run.returncode, run.stderr))
        report = {e["name"]: e for e in json.load(open(path("report.json")))["endpoints"]}
        prometheus = metrics(open(path("report.prom")).read())

        def apiprobe_metric(metric, name):
            for key, value in prometheus.items():
                if key.startswith(metric + "{") and 'endpoint="%s"' % name in key:
                    return value
            return None

        print("%-22s %-9s %-7s %-8s %-6s %-34s %s" % (
            "target", "blackbox", "ap up", "ap pass", "same", "earliest expiry (blackbox / apiprobe)", "note"))
        unexplained, expiry_differs, same = 0, 0, 0
        for name, _, _, _, reason in targets:
            box = blackbox_results[name]
            success = box.get("probe_success") == 1
            up = apiprobe_metric("apiprobe_up", name) == 1
            passed = report[name]["passed"]
            agrees = success == passed
            same += agrees
            note = "" if agrees else (reason or "DIFFERS")
            if not agrees and not reason:
                unexplained += 1
            box_expiry = box.get("probe_ssl_earliest_cert_expiry")
            ours = apiprobe_metric("apiprobe_tls_cert_expiry_timestamp_seconds", name)
            expiry = ""
            if box_expiry or ours:
                equal = box_expiry is not None and ours is not None and abs(box_expiry - ours) < 1
                if box_expiry and ours and not equal:
                    expiry_differs += 1
                # apiprobe reads the certificate of a failed handshake too (it says when an expired one expired);
                # blackbox reports none for a failed handshake.
                expiry = "%s / %s %s" % (
                    time.strftime("%Y-%m-%d %H:%M", time.gmtime(box_expiry)) if box_expiry else "-",
                    time.strftime("%Y-%m-%d %H:%M", time.gmtime(ours)) if ours else "-",
                    "=" if equal else ("(apiprobe only)" if ours and not box_expiry else "≠"))
            print("%-22s %-9s %-7s %-8s %-6s %-34s %s" % (
                name, "success" if success else "failure", "1" if up else "0", "yes" if passed else "no",
                "yes" if agrees else "no", expiry, note))
        print("\n%d of %d verdicts equal (blackbox probe_success beside apiprobe's all checks passed); %d differ "
              "without a reason given; %d certificate expiries differ" % (
                  same, len(targets), unexplained, expiry_differs))
        # Phases of a fresh connection: each tool alone (one target, one sample, a new process for apiprobe as a
        # cron run has), alternating, 9 rounds; the median of each phase.
        print("\nphases of a fresh connection, median of 9 alternating rounds, ms (blackbox / apiprobe; blackbox's "
              "resolve is apiprobe's dns):")
        pairs = [("resolve", "dns"), ("connect", "connect"), ("tls", "tls"), ("processing", "processing"),
                 ("transfer", "transfer")]
        for name, module, target, keys, _ in targets:
            if name not in ("http-200", "https-good"):
                continue
            endpoint = {"name": name, "samples": 1, "timeout": "5s"}
            endpoint.update(keys)
            with open(path("phase.yml"), "w") as f:
                json.dump({"api": "compare", "concurrency": 1, "endpoints": [endpoint]}, f)
            theirs_rounds, ours_rounds = [], []
            for _ in range(9):
                url = "http://127.0.0.1:%d/probe?module=%s&target=%s" % (
                    blackbox_port, module, urllib.request.quote(target, safe=""))
                box = metrics(urllib.request.urlopen(url, timeout=10).read().decode())
                theirs_rounds.append({key.split('phase="')[1].split('"')[0]: value * 1000
                                      for key, value in box.items() if key.startswith("probe_http_duration_seconds{")})
                subprocess.run([apiprobe, "run", "--config", path("phase.yml"), "--report",
                                "json=" + path("phase.json")], capture_output=True, check=False)
                sample = json.load(open(path("phase.json")))["endpoints"][0]["sampleDetails"][0]
                ours_rounds.append(sample.get("phasesMs") or {})

            def median(values):
                values = sorted(values)
                return values[len(values) // 2]

            print("  %-12s %s" % (name, ", ".join(
                "%s %.2f / %.2f" % (ours, median([r.get(theirs, 0) for r in theirs_rounds]),
                                    median([r.get(ours, 0) for r in ours_rounds])) for theirs, ours in pairs)))
        return 1 if unexplained or expiry_differs else 0
    finally:
        for child in children:
            child.terminate()
            child.wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
