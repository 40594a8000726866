#!/usr/bin/env python3
"""A server on 127.0.0.1 that answers as the Hugging Face Hub does, for the download tests.

  fake_hub.py --repo ORG/NAME=FOLDER [--repo ...] [--branch ORG/NAME@REV=FOLDER] [--gated ORG/NAME]
              [--renamed OLD/NAME=ORG/NAME] [--huge ORG/NAME] [--cut-first BYTES] [--corrupt [ORG/NAME:]FILE] [--rate BYTES]
              [--log FILE] --port-file FILE

What it answers, as huggingface_hub expects of huggingface.co:
  HEAD/GET /ORG/NAME/resolve/REV/PATH
    a *.safetensors file (stored with Git LFS on the Hub): 302 to /cdn/SHA256 with
      X-Linked-Etag "SHA256", X-Linked-Size and X-Repo-Commit;
    another file: 200 with ETag "GIT-BLOB-SHA1", Content-Length and X-Repo-Commit;
    401 X-Error-Code RepoNotFound for an unknown repository (the Hub hides private ones so),
    401 GatedRepo for --gated without "Authorization: Bearer hf_test_token",
    404 RevisionNotFound, 404 EntryNotFound; a --renamed repository: 307 to the new name's path.
  GET /cdn/SHA256: the bytes, with Range requests answered 206.
REV is main, the commit itself (40 hex digits) or a --branch's name. --huge reports 1 PB as
the weights' size. --cut-first closes the first transfer of each large file after BYTES;
--corrupt flips one byte of FILE's served bytes (of ORG/NAME's only, when named; its headers keep
the true digest); --rate
serves large files at BYTES a second.
  GET /api/models/ORG/NAME/revision/REV, .../tree/REV, POST .../paths-info/REV: the API that
    huggingface_hub's snapshot download calls (tests/cli_hub_interop.test.sh uses it).
Every answer carries CORS headers (any origin; the headers above exposed): the browser page's test.
Every request goes to --log as "METHOD PATH range=RANGE auth=yes|no".
"""
import argparse
import hashlib
import json
import http.server
import os
import sys
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument("--repo", action="append", default=[])
ap.add_argument("--branch", action="append", default=[])
ap.add_argument("--gated", action="append", default=[])
ap.add_argument("--renamed", action="append", default=[])
ap.add_argument("--huge", action="append", default=[])
ap.add_argument("--cut-first", type=int, default=0)
ap.add_argument("--corrupt", default="")
ap.add_argument("--rate", type=int, default=0)
ap.add_argument("--log", default=os.devnull)
ap.add_argument("--port-file", required=True)
args = ap.parse_args()

TOKEN = "hf_test_token"
lock = threading.Lock()
blobs = {}        # sha256 -> (bytes served, file name)
cut_done = set()  # sha256s whose first transfer was cut


def commit_of(repo, rev):
    return hashlib.sha1(f"{repo}@{rev}".encode()).hexdigest()


def load(folder):
    files = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            files[name] = open(path, "rb").read()
    return files


repos = {}  # repo -> {rev or commit: (commit, files)}
for spec in args.repo:
    repo, folder = spec.split("=", 1)
    entry = (commit_of(repo, "main"), load(folder))
    repos.setdefault(repo, {})["main"] = entry
    repos[repo][entry[0]] = entry
for spec in args.branch:
    at, folder = spec.split("=", 1)
    repo, rev = at.split("@", 1)
    entry = (commit_of(repo, rev), load(folder))
    repos.setdefault(repo, {})[rev] = entry
    repos[repo][entry[0]] = entry
renamed = dict(spec.split("=", 1) for spec in args.renamed)


class Hub(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def end_headers(self):
        # Every answer may be read cross-origin, as huggingface.co's: the browser page fetches
        # from here (app/web/hub.js, tests/web/hub.test.mjs).
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Expose-Headers", "X-Repo-Commit, X-Linked-Etag, X-Linked-Size, ETag, "
                         "Content-Length, Content-Range, Accept-Ranges, X-Error-Code")
        super().end_headers()

    def do_OPTIONS(self):  # a preflight: the page sends plain GETs and HEADs, which need none
        self.send_response(204)
        self.send_header("Access-Control-Allow-Methods", "GET, HEAD, POST")
        self.send_header("Access-Control-Allow-Headers", "Range, Authorization, Content-Type")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def answer(self, status, headers=(), body=b""):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, status, code, message):
        self.answer(status, [("X-Error-Code", code), ("Content-Type", "application/json")],
                    ('{"error": "%s"}' % message).encode())

    def do_HEAD(self):
        self.handle_any()

    def do_GET(self):
        self.handle_any()

    def do_POST(self):  # the API's paths-info
        self.asked = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        self.handle_any()

    def handle_any(self):
        with open(args.log, "a") as log:
            print(self.command, self.path, "range=" + self.headers.get("Range", "-"),
                  "auth=" + ("yes" if self.headers.get("Authorization") else "no"), file=log)
        path = self.path.split("?")[0]
        if path.startswith("/cdn/"):
            return self.serve_blob(path[5:])
        if path.startswith("/api/models/"):
            return self.serve_api(path[len("/api/models/"):].split("/"))
        parts = path.lstrip("/").split("/")
        if len(parts) < 5 or parts[2] != "resolve":
            return self.error(404, "EntryNotFound", "not a resolve URL")
        repo, rev, name = parts[0] + "/" + parts[1], parts[3].replace("%2F", "/"), "/".join(parts[4:])
        if repo in renamed:
            return self.answer(307, [("Location", "/" + renamed[repo] + "/" + "/".join(parts[2:]))])
        if repo not in repos:
            return self.error(401, "RepoNotFound", "Repository not found")
        if repo in args.gated and self.headers.get("Authorization") != "Bearer " + TOKEN:
            return self.error(401, "GatedRepo", "Access to model %s is restricted and you are not in the authorized list" % repo)
        if rev not in repos[repo]:
            return self.error(404, "RevisionNotFound", "Invalid rev id: " + rev)
        commit, files = repos[repo][rev]
        if name not in files:
            return self.error(404, "EntryNotFound", "Entry not found")
        data = files[name]
        if name.endswith(".safetensors"):
            sha = hashlib.sha256(data).hexdigest()
            served = bytearray(data)
            if args.corrupt in (name, repo + ":" + name):
                served[len(served) // 2] ^= 1
            with lock:
                blobs[sha] = (bytes(served), name)
            size = 10**15 if repo in args.huge else len(data)
            # On another host name, as the Hub's file server is: the token must not go there.
            return self.answer(302, [("Location", "http://localhost:%d/cdn/%s" % (self.server.server_address[1], sha)),
                                     ("X-Repo-Commit", commit), ("X-Linked-Etag", '"%s"' % sha),
                                     ("X-Linked-Size", str(size)), ("ETag", '"pointer"')])
        git_sha = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        body = self.send_bytes(data, [("X-Repo-Commit", commit), ("ETag", '"%s"' % git_sha)])
        if body is not None and self.command != "HEAD":
            self.wfile.write(body)

    def send_bytes(self, data, headers=()):
        """`data`, or the part a Range header asks for (bytes=A- or bytes=A-B): 206 then."""
        rng = self.headers.get("Range", "")
        start, end = 0, len(data) - 1
        if rng.startswith("bytes="):
            a, b = rng[6:].split("-", 1)
            start, end = int(a), min(int(b) if b else len(data) - 1, len(data) - 1)
            if start >= len(data):
                return self.answer(416, [("Content-Range", "bytes */%d" % len(data))])
        body = data[start:end + 1]
        self.send_response(206 if rng else 200)
        for k, v in headers:
            self.send_header(k, v)
        if rng:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, len(data)))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        return body

    def serve_api(self, parts):
        """The API calls huggingface_hub's snapshot download makes (the JS library's too): a
        revision's info (its commit), the file tree, paths-info (sizes, git and LFS ids)."""
        if len(parts) < 4 or parts[3] is None:
            return self.error(404, "EntryNotFound", "not an API call")
        repo, call, rev = parts[0] + "/" + parts[1], parts[2], parts[3].replace("%2F", "/")
        if repo not in repos or (repo in args.gated and self.headers.get("Authorization") != "Bearer " + TOKEN):
            return self.error(401, "RepoNotFound", "Repository not found")
        if rev not in repos[repo]:
            return self.error(404, "RevisionNotFound", "Invalid rev id: " + rev)
        commit, files = repos[repo][rev]

        def info(name):
            data = files[name]
            item = {"type": "file", "path": name, "size": len(data),
                    "oid": hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest(),
                    "lastCommit": {"id": commit, "title": "fake", "date": "2026-01-01T00:00:00.000Z"}}
            if name.endswith(".safetensors"):
                item["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 134}
                if repo in args.huge:  # as the resolve URL's X-Linked-Size says
                    item["size"] = item["lfs"]["size"] = 10**15
            return item
        if call == "revision":
            body = {"_id": commit[:24], "id": repo, "sha": commit, "private": False,
                    "siblings": [{"rfilename": n} for n in files]}
        elif call == "tree":
            body = [info(n) for n in files]
        elif call == "paths-info":
            body = [info(n) for n in getattr(self, "asked", {}).get("paths", []) if n in files]
        else:
            return self.error(404, "EntryNotFound", "not an API call")
        self.answer(200, [("Content-Type", "application/json")], json.dumps(body).encode())

    def serve_blob(self, sha):
        with lock:
            if sha not in blobs:
                return self.answer(404)
            data, name = blobs[sha]
            cut = args.cut_first and sha not in cut_done and self.command == "GET"
            if cut:
                cut_done.add(sha)
        body = self.send_bytes(data, [("ETag", '"%s"' % sha)])  # the file server's: its SHA-256
        if body is None:  # a range past the end: answered 416
            return
        if self.command == "HEAD":
            return
        if cut:  # the connection drops part-way, as a network does
            self.wfile.write(body[:args.cut_first])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if not args.rate:
            return self.wfile.write(body)
        chunk = max(1, args.rate // 20)  # slowly, a twentieth of a second's bytes at a time
        try:
            for at in range(0, len(body), chunk):
                self.wfile.write(body[at:at + chunk])
                time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a Cancel)


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that hung up (a Cancel, a cut): not news
            super().handle_error(request, client_address)


server = Server(("127.0.0.1", 0), Hub)
with open(args.port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.replace(args.port_file + ".tmp", args.port_file)
server.serve_forever()
