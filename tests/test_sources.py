"""The archived sources (sources/): each file is what sources/README.md says it is, byte for
byte, and the references page links each one, in both languages, with {download}."""

import hashlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "sources"
ROW = re.compile(r"^\| `([^`]+)` \|.*\| (\d+) \| `([0-9a-f]{64})` \|$", re.MULTILINE)


def listed():
    """``{file name: (bytes, sha256)}`` from the README's table."""
    readme = (SOURCES / "README.md").read_text(encoding="utf-8")
    return {name: (int(size), digest) for name, size, digest in ROW.findall(readme)}


def test_the_readme_lists_every_archived_file_and_no_other():
    files = sorted(p.name for p in SOURCES.iterdir() if p.name != "README.md")
    assert files and sorted(listed()) == files


@pytest.mark.parametrize("name", sorted(listed()))
def test_an_archived_file_has_the_size_and_sha256_the_readme_gives(name):
    data = (SOURCES / name).read_bytes()
    assert (len(data), hashlib.sha256(data).hexdigest()) == listed()[name]


@pytest.mark.parametrize("page", ["book/references.md", "book/ko/references.md"])
def test_the_references_page_links_every_archived_file_and_the_readme(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    linked = set(re.findall(r"\{download\}`[^`<]*</sources/([^>`]+)>`", text))
    assert linked == {*listed(), "README.md"}
    assert all((SOURCES / name).is_file() for name in linked)
