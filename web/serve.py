#!/usr/bin/env python3
"""Serves the pt2onnx page on 127.0.0.1 for local use and browser tests (standard library only).

    bazel run //web:serve                     # the assembled site (page + WebAssembly module)
    bazel run //web:serve -- --port 8080
    python3 web/serve.py --root DIR --port 0  # any folder; port 0 picks a free one

Prints "pt2onnx page: http://127.0.0.1:PORT/" once it is listening (tests read that line).
"""

import argparse
import functools
import http.server
import os
import sys

WORKSPACE = "pt2onnx"  # workspace(name = ...) in WORKSPACE: the top folder of the runfiles tree

# http.server guesses from the system's mime.types, which may lack these or disagree; browsers refuse a
# module script or streaming wasm compilation served with the wrong type.
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".onnx": "application/octet-stream",
    ".data": "application/octet-stream",
    ".pt2": "application/octet-stream",
    ".ts": "text/plain; charset=utf-8",  # pt2onnx.d.ts: shown as text, not guessed as MPEG video
    ".svg": "image/svg+xml",
    ".png": "image/png",
}


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the page and module are several small files
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def end_headers(self):
        # Rebuilt files must be picked up at once when the page is reloaded.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, fmt, *args):
        if not self.server.quiet:
            super().log_message(fmt, *args)


def default_root():
    """The `site` folder of //web:site in the runfiles tree, or None outside Bazel."""
    here = os.path.dirname(os.path.abspath(__file__))  # abspath, not realpath: stay inside the runfiles tree
    candidates = []
    if os.environ.get("RUNFILES_DIR"):
        candidates.append(os.path.join(os.environ["RUNFILES_DIR"], WORKSPACE, "web", "site"))
    candidates.append(os.path.join(here, "site"))
    candidates.append(os.path.join(os.path.abspath(sys.argv[0]) + ".runfiles", WORKSPACE, "web", "site"))
    for path in candidates:
        if os.path.isfile(os.path.join(path, "index.html")):
            return path
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description="Serve the pt2onnx page on 127.0.0.1.")
    parser.add_argument("--root", help="folder to serve (default: the site built by Bazel, under bazel run)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--quiet", action="store_true", help="do not log requests")
    args = parser.parse_args(argv)

    root = args.root or default_root()
    if root is None:
        parser.error("no site found next to this script: run it with `bazel run //web:serve`, or give --root DIR")
    if not os.path.isdir(root):
        parser.error(f"--root {root}: not a directory")
    root = os.path.abspath(root)

    handler = functools.partial(Handler, directory=root)
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    except OSError as e:
        print(f"serve.py: cannot listen on 127.0.0.1:{args.port}: {e.strerror}", file=sys.stderr)
        return 1
    server.daemon_threads = True
    server.quiet = args.quiet
    print(f"pt2onnx page: http://127.0.0.1:{server.server_address[1]}/", flush=True)
    print(f"serving {root} (Ctrl-C stops)", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
