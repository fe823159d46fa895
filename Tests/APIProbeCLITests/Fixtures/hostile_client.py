"""A hostile HTTP client for `apiprobe serve` on loopback: what each attack gets back, as JSON.

    python3 hostile_client.py PORT PATH

- `hugeHeader`: one header of 200 KB; `manyHeaders`: 3,000 header fields (Hummingbird's decoder bounds both);
- `endlessBody`: a chunked body sent for as long as the server reads it (up to 40 MiB), and what it answers;
- `connections`: 2,000 connections (or as many as the process may open) left idle, then an ordinary request;
- `after`: an ordinary request once they are closed.
Each is the first line of the answer (`HTTP/1.1 400 Bad Request`), or the error the socket met.
"""
import json
import resource
import socket
import sys
import time

PORT, PATH = int(sys.argv[1]), sys.argv[2].encode()


def first_line(data):
    return data.split(b"\r\n", 1)[0].decode("latin-1")


def ask(data, timeout=10):
    with socket.create_connection(("127.0.0.1", PORT), timeout=timeout) as connection:
        connection.sendall(data)
        received = b""
        try:
            while b"\r\n" not in received:
                chunk = connection.recv(4096)
                if not chunk:
                    break
                received += chunk
        except OSError as error:
            return "error: %s" % type(error).__name__
        return first_line(received) or "closed"


ordinary = b"GET " + PATH + b" HTTP/1.1\r\nHost: x\r\n\r\n"
results = {
    "hugeHeader": ask(b"GET " + PATH + b" HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n"),
    "manyHeaders": ask(
        b"GET " + PATH + b" HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: a\r\n" % i for i in range(3000)) + b"\r\n"),
}

connection = socket.create_connection(("127.0.0.1", PORT), timeout=30)
connection.sendall(b"POST " + PATH + b" HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
sent = 0
chunk = b"%x\r\n" % 65536 + b"a" * 65536 + b"\r\n"
try:
    while sent < 40 << 20:
        connection.sendall(chunk)
        sent += 65536
except OSError:
    pass
try:
    results["endlessBody"] = first_line(connection.recv(4096)) or "closed"
except OSError as error:
    results["endlessBody"] = "error: %s" % type(error).__name__
results["endlessBodySentMiB"] = sent >> 20
connection.close()

idle = []
# As many as this process may open, up to 2,000 (a soft limit of 1,024 allows some 970).
limit = min(2000, resource.getrlimit(resource.RLIMIT_NOFILE)[0] - 50)
for _ in range(limit):
    idle.append(socket.create_connection(("127.0.0.1", PORT), timeout=10))
results["opened"] = len(idle)
results["connections"] = ask(ordinary)
for each in idle:
    each.close()
time.sleep(0.5)
results["after"] = ask(ordinary)
json.dump(results, sys.stdout)
