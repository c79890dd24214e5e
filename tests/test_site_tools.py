"""The site's build tools without a network: the asset lock, the verifier, the unpacker."""

from __future__ import annotations

import base64
import io
import json
import re
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import fetch_assets  # noqa: E402 - after the path insert

LOCK = json.loads((ROOT / "tools" / "assets.lock.json").read_text(encoding="utf-8"))
# FIPS 180-2, appendix C.1: SHA-512("abc").
SHA512_ABC = (
    "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
)


def test_integrity_is_npms_sha512_string(tmp_path):
    path = tmp_path / "abc"
    path.write_bytes(b"abc")
    expected = "sha512-" + base64.b64encode(bytes.fromhex(SHA512_ABC)).decode()
    assert fetch_assets.integrity(path) == expected


@pytest.mark.parametrize(
    ("name", "version", "expected"),
    [
        ("mathjax", "3.2.2", "mathjax-3.2.2.tgz"),
        ("@jupyter-widgets/html-manager", "1.0.15", "jupyter-widgets-html-manager-1.0.15.tgz"),
    ],
)
def test_tarball_name_matches_npm_pack(name, version, expected):
    assert fetch_assets.tarball_name(name, version) == expected


@pytest.mark.parametrize("entry", LOCK["npm"], ids=lambda e: e["name"])
def test_lock_pins_exact_versions_and_sha512(entry):
    assert re.fullmatch(r"\d+\.\d+\.\d+", entry["version"]), "pin an exact version"
    digest = base64.b64decode(entry["integrity"].removeprefix("sha512-"))
    assert entry["integrity"].startswith("sha512-") and len(digest) == 64
    assert entry["files"], "list the files the site needs"


def test_config_points_at_files_the_lock_provides():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["sphinx"]["config"]
    provided = {e["dest"]: e["files"] for e in LOCK["npm"]}
    provided.update({e["dest"].split("/")[0]: [e["dest"].split("/", 1)[1]] for e in LOCK["python"]})
    local = ROOT / "site" / "static"
    wanted = [config["mathjax_path"], *config["nb_ipywidgets_js"], *config["html_css_files"]]
    for rel in wanted:
        if (local / rel).is_file():
            continue
        dest, _, inner = rel.removeprefix("vendor/").partition("/")
        assert rel.startswith("vendor/") and fetch_assets.selected([inner], provided[dest]), rel


def _tarball(tmp_path, members):
    path = tmp_path / "pkg.tgz"
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_unpack_copies_only_the_listed_files(tmp_path):
    tgz = _tarball(tmp_path, {"package/dist/a.js": b"a", "package/dist/b.map": b"b"})
    entry = {"name": "demo", "dest": "demo", "files": ["dist/*.js"]}
    assert fetch_assets.unpack(tgz, entry, tmp_path / "out") == 1
    assert (tmp_path / "out" / "demo" / "dist" / "a.js").read_bytes() == b"a"
    assert not (tmp_path / "out" / "demo" / "dist" / "b.map").exists()


def test_unpack_refuses_a_path_outside_its_folder(tmp_path):
    tgz = _tarball(tmp_path, {"package/../../evil.js": b"x"})
    entry = {"name": "demo", "dest": "demo", "files": ["*"]}
    with pytest.raises(fetch_assets.AssetError, match="unsafe path"):
        fetch_assets.unpack(tgz, entry, tmp_path / "out")
    assert not (tmp_path / "evil.js").exists()


def test_unpack_names_a_pattern_that_matches_nothing(tmp_path):
    tgz = _tarball(tmp_path, {"package/dist/a.js": b"a"})
    entry = {"name": "demo", "dest": "demo", "files": ["dist/*.js", "fonts/*.woff2"]}
    with pytest.raises(fetch_assets.AssetError, match=r"demo: no file .*fonts/\*\.woff2"):
        fetch_assets.unpack(tgz, entry, tmp_path / "out")


def test_missing_npm_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(fetch_assets, "CACHE", tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    entry = {"name": "demo", "version": "1.0.0", "integrity": "sha512-x"}
    with pytest.raises(fetch_assets.AssetError, match="npm is needed"):
        fetch_assets.npm_pack(entry)
