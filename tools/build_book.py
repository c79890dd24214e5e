"""Build the static site: jupyter-book 1.x, warnings as errors, executed chapters cached.

Usage: python tools/build_book.py [--path-output DIR] [--all]

First makes sure the pinned offline assets (MathJax, require.js, the widget manager, Noto
Sans KR, anywidget's front end) are installed and copied (``tools/site_assets.py``: ``npm ci
--ignore-scripts`` from package-lock.json when node_modules/ is out of date, a no-op when
nothing changed), then runs ``jupyter-book build`` with ``-nW
--keep-going``. Extra arguments go to ``jupyter-book build``. The site lands in
DIR/_build/html (default: ./_build/html).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import time
from pathlib import Path

import site_assets

ROOT = Path(__file__).resolve().parent.parent


def package_digest():
    """A hash of attn_core's sources (maths, widgets' JS and CSS, exercises)."""
    digest = hashlib.sha256()
    for path in sorted(p for pkg in ("attn_core", "attn_book") for p in (ROOT / pkg).rglob("*")):
        if path.suffix in {".py", ".js", ".css"}:
            digest.update(path.relative_to(ROOT).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def invalidate_stale_cache(build_dir):
    """Drop the execution cache when attn_core changed since the last build; True if so.

    jupyter-cache keys a notebook on its own code cells only, and Sphinx re-reads
    only changed pages; a chapter whose figures or numbers come from a changed
    attn_core would otherwise keep stale outputs and stale widget JavaScript.
    """
    stamp, cache = build_dir / ".attn_core.sha256", build_dir / ".jupyter_cache"
    current = package_digest()
    if cache.exists() and (not stamp.exists() or stamp.read_text() != current):
        print("attn_core changed since the last build: re-executing every chapter", flush=True)
        shutil.rmtree(cache)
        stale = True
    else:
        stale = False
    build_dir.mkdir(parents=True, exist_ok=True)
    stamp.write_text(current)
    return stale


def build_dir_of(argv):
    """The _build folder jupyter-book will use (``--path-output DIR`` or the root)."""
    for flag in ("--path-output",):
        if flag in argv and argv.index(flag) + 1 < len(argv):
            return Path(argv[argv.index(flag) + 1]).resolve() / "_build"
    return ROOT / "_build"


def main(argv):
    start = time.perf_counter()
    if invalidate_stale_cache(build_dir_of(argv)) and "--all" not in argv:
        argv = [*argv, "--all"]  # re-read every page, not only the changed ones
    try:
        site_assets.ensure()
    except site_assets.AssetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    bin_dir = Path(sys.executable).parent
    cmd = [str(bin_dir / "jupyter-book"), "build", str(ROOT), "--builder", "html"]
    cmd += ["-nW", "--keep-going", *argv]
    print("+", " ".join(cmd), flush=True)
    code = subprocess.call(cmd, cwd=ROOT)
    print(f"build_book: exit {code} after {time.perf_counter() - start:.1f} s", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
