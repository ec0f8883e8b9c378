#!/usr/bin/env python3
"""A stand-in for the DCL's REST gateway and a vendor's image host, over HTTPS, for the lab's
firmware tests.

    dcl-standin.py DIR

Makes a throwaway CA and a certificate for localhost and 127.0.0.1 with the openssl CLI (DIR/ca.pem
is what the hub is told to trust: `hub serve --ota-dcl-ca DIR/ca.pem`), then serves DIR/www on
127.0.0.1 (an ephemeral port, printed as 'port N'): GET /a/b answers www/a/b.json when it
exists (the ledger's documents: /dcl/model/versions/65521/32768 and .../32768/2 are both
documents), else www/a/b (images); anything else is 404. Every request is printed.
"""
import http.server
import os
import ssl
import subprocess
import sys


def make_pki(directory):
    """CA and localhost certificate (P-256), as the trust store's TLS tests make them."""
    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", "-new", *ec, "-keyout", f"{directory}/ca.key", "-out", f"{directory}/ca.pem", "-days", "2",
            "-subj", "/CN=MatterHub lab DCL CA", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    with open(f"{directory}/localhost.ext", "w") as ext:
        ext.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
    openssl("req", "-new", *ec, "-keyout", f"{directory}/localhost.key", "-out", f"{directory}/localhost.csr", "-subj", "/CN=localhost")
    openssl("x509", "-req", "-in", f"{directory}/localhost.csr", "-CA", f"{directory}/ca.pem", "-CAkey", f"{directory}/ca.key",
            "-set_serial", "2", "-days", "2", "-out", f"{directory}/localhost.pem", "-extfile", f"{directory}/localhost.ext")


def main(directory):
    root = os.path.realpath(os.path.join(directory, "www"))
    os.makedirs(root, exist_ok=True)
    make_pki(directory)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            path = os.path.realpath(os.path.join(root, self.path.split("?")[0].lstrip("/")))
            print("GET", self.path, flush=True)
            for candidate in (path + ".json", path):
                if candidate.startswith(root + os.sep) and os.path.isfile(candidate):
                    with open(candidate, "rb") as f:
                        body = f.read()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json" if candidate.endswith(".json") else "application/octet-stream")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
            self.send_error(404)

        def log_message(self, *args):
            pass

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(f"{directory}/localhost.pem", f"{directory}/localhost.key")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print("port", server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1])
