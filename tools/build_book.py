"""Build the static site: jupyter-book 1.x, warnings as errors, from the committed notebooks.

Usage: python tools/build_book.py [--path-output DIR] [--all]

First makes sure the pinned offline assets (MathJax, require.js, the widget manager, Noto
Sans KR, anywidget's front end) are installed and copied (``tools/site_assets.py``: ``npm ci
--ignore-scripts`` from package-lock.json when node_modules/ is out of date, a no-op when
nothing changed), then runs ``jupyter-book build`` with ``-nW
--keep-going``. Nothing is executed: every page shows the outputs stored in its notebook by
``tools/sync_chapters.py``. Extra arguments go to ``jupyter-book build``. The site lands in
DIR/_build/html (default: ./_build/html).

Sphinx rebuilds only the pages whose source changed, so a page built before a chapter was
added keeps a sidebar without it: when ``_toc.yml``, ``_config.yml`` or the list of pages
changed since the last build, every page is written again (``--all``).
"""

from __future__ import annotations

import hashlib
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
    stamp = _output_dir(argv) / "_build" / ".book-layout"
    layout = _layout()
    built = (stamp.parent / "html").is_dir()  # else Sphinx writes every page anyway
    if built and (not stamp.is_file() or stamp.read_text() != layout) and "--all" not in argv:
        cmd.append("--all")  # the table of contents changed: every sidebar with it
    print("+", " ".join(cmd), flush=True)
    code = subprocess.call(cmd, cwd=ROOT)
    if code == 0:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(layout)
    print(f"build_book: exit {code} after {time.perf_counter() - start:.1f} s", flush=True)
    return code


def _layout():
    """A digest of what every page's sidebar shows: the toc, the config, the pages."""
    digest = hashlib.sha256()
    for name in ("_toc.yml", "_config.yml"):
        digest.update((ROOT / name).read_bytes())
    for page in sorted((ROOT / "book").glob("*.[im][pd]*")):  # .ipynb and .md
        digest.update(page.name.encode())
    return digest.hexdigest()


def _output_dir(argv):
    """The folder ``--path-output`` names (its _build/ holds the site), else the root."""
    if "--path-output" in argv[:-1]:
        return Path(argv[argv.index("--path-output") + 1]).resolve()
    return ROOT


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
