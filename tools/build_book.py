"""Build the static site: jupyter-book 1.x, warnings as errors, from the committed notebooks.

Usage: python tools/build_book.py [--path-output DIR] [--all]

First makes sure the pinned offline assets (MathJax, require.js, the widget manager, Noto
Sans KR, anywidget's front end) are installed and copied (``tools/site_assets.py``: ``npm ci
--ignore-scripts`` from package-lock.json when node_modules/ is out of date, a no-op when
nothing changed), then runs ``jupyter-book build`` with ``-nW
--keep-going``. Nothing is executed: every page shows the outputs stored in its notebook by
``tools/sync_chapters.py``. Extra arguments go to ``jupyter-book build``. The site lands in
DIR/_build/html (default: ./_build/html).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import site_assets

ROOT = Path(__file__).resolve().parent.parent


def main(argv):
    start = time.perf_counter()
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
