"""Build the static site: jupyter-book 1.x, warnings as errors, executed chapters cached.

Usage: python tools/build_book.py [--path-output DIR] [--all]
Extra arguments go to ``jupyter-book build``. The site lands in DIR/_build/html
(default: ./_build/html).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv):
    bin_dir = Path(sys.executable).parent
    cmd = [str(bin_dir / "jupyter-book"), "build", str(ROOT), "--builder", "html"]
    cmd += ["-nW", "--keep-going", *argv]
    print("+", " ".join(cmd), flush=True)
    return subprocess.call(cmd, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
