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

Then the Korean edition (book/ko/, written by tools/i18n.py), when it has pages: a second
jupyter-book build of a source folder ``_build/ko-src`` whose ``book/`` is a link to
``book/ko`` (so each Korean page has its English twin's path), with the English
configuration in Korean (``language: ko``, the extension ``site/attn_ko.py``, the labels'
catalog ``site/locale/ko/LC_MESSAGES/sphinx.po`` copied into ``_build/ko-src/locale``) and a
table of contents of the translated pages in the English order, run with ``ATTN_BOOK_LANG=ko``
(the answer boxes' words) and ``ATTN_ENGLISH_DOCTREES`` (the English pages' doctrees, whose
headings' ids the Korean headings take: ``site/attn_anchors.py``), into ``_build/html/ko/``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import site_assets
import yaml

from attn_book.i18n import keyed_section

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
        refresh_own_static(stamp.parent / "html")
    print(f"build_book: exit {code} after {time.perf_counter() - start:.1f} s", flush=True)
    if code == 0 and korean_pages():
        code = build_korean(bin_dir, _output_dir(argv) / "_build" / "html" / "ko")
    return code


def refresh_own_static(html):
    """Copy ``site/static/`` into ``html/_static`` again: an incremental Sphinx 7.4 build with
    no page to write left a stale ``attn-answers.js`` there (measured: the built copy differed
    from the source, and a removed copy was not put back)."""
    static, target = ROOT / "site" / "static", html / "_static"
    if not (static.is_dir() and target.is_dir()):
        return
    for source in static.iterdir():
        if source.is_file():
            shutil.copy2(source, target / source.name)


def korean_pages():
    """The translated pages (book/ko/NN_name.ipynb, intro.md, ...), in the English toc's order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    parts = toc.get("parts", [toc])
    files = [toc["root"]] + [c["file"] for part in parts for c in part.get("chapters", [])]
    ko = ROOT / "book" / "ko"
    return [
        f
        for f in files
        if any((ko / Path(f).name).with_suffix(s).is_file() for s in (".md", ".ipynb"))
    ]


def korean_source():
    """``_build/ko-src``: the Korean pages at the English paths, the config and toc in Korean."""
    src = ROOT / "_build" / "ko-src"
    src.mkdir(parents=True, exist_ok=True)
    for name, target in {
        "book": ROOT / "book" / "ko",
        "site": ROOT / "site",
        ".cache": ROOT / ".cache",
        "references.bib": ROOT / "references.bib",
        "sources": ROOT / "sources",  # the archived sources, {download} from references.md
    }.items():
        if not (src / name).is_symlink():
            (src / name).symlink_to(target)
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["title"] = "손으로 푸는 어텐션"
    config["exclude_patterns"] += ["book/[0-9][0-9]_*.md", "book/README.md"]
    sphinx = config["sphinx"]
    sphinx["local_extensions"]["attn_ko"] = "site/"
    sphinx["config"]["language"] = "ko"
    # \text{가중치}: MathJax's own fonts have no Hangul, and its fallback for characters they
    # lack (serif) draws nothing where no Korean font is installed; the served Noto Sans KR has
    # them. Only those characters take it: with mtextInheritFont every \text did, and MathJax
    # left a script-size word (d_\text{head}) its full-size width, a visible gap after it.
    sphinx["config"]["mathjax3_config"] = {"chtml": {"unknownFamily": "'Noto Sans KR', sans-serif"}}
    # the labels in Korean (site/attn_ko.py): a copy, so that Sphinx's compiled .mo lands here
    catalog = src / "locale" / "ko" / "LC_MESSAGES"
    catalog.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(
        ROOT / "site" / "locale" / "ko" / "LC_MESSAGES" / "sphinx.po", catalog / "sphinx.po"
    )
    sphinx["config"]["locale_dirs"] = ["locale"]
    # a link to an English page the Korean edition has no twin of (site/attn_ko.py)
    english = {"url": "../../book/{{path}}#{{fragment}}"}
    sphinx["config"]["myst_url_schemes"] = {"http": None, "https": None, "en": english}
    dump = {"allow_unicode": True, "sort_keys": False}  # the English order: require.js first
    (src / "_config.yml").write_text(yaml.safe_dump(config, **dump), "utf-8")
    (src / "_toc.yml").write_text(yaml.safe_dump(korean_toc(), **dump), "utf-8")
    return src


#: The Korean captions of the English table of contents' parts.
PART_CAPTIONS = keyed_section("toc", "ko")  # from the catalogs: toc/<English caption>


def korean_toc(toc=None, translated=None):
    """The English table of contents with the pages that have no Korean twin left out, its
    parts' captions in Korean. A numbered part stays numbered only when every one of its
    chapters is translated, so that 5장 is chapter 5 in both editions.

    >>> english = {"format": "jb-book", "root": "book/intro", "parts": [
    ...     {"caption": "Foundations", "numbered": True,
    ...      "chapters": [{"file": "book/01_a"}, {"file": "book/02_b"}]},
    ...     {"caption": "Appendix", "chapters": [{"file": "book/99_c"}]}]}
    >>> korean_toc(english, {"book/intro", "book/02_b"})["parts"]
    [{'caption': '본문', 'numbered': False, 'chapters': [{'file': 'book/02_b'}]}]
    >>> korean_toc(english, {"book/intro", "book/01_a", "book/02_b"})["parts"][0]["numbered"]
    True
    """
    if toc is None:
        toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    if translated is None:
        translated = set(korean_pages())
    parts = []
    for part in toc.get("parts", [{"chapters": toc.get("chapters", [])}]):
        chapters = [c for c in part["chapters"] if c["file"] in translated]
        if not chapters:
            continue
        korean = {"caption": PART_CAPTIONS.get(part.get("caption"), part.get("caption"))}
        if part.get("numbered"):
            korean["numbered"] = len(chapters) == len(part["chapters"])
        parts.append({**korean, "chapters": chapters})
    if "parts" not in toc:
        return {"format": "jb-book", "root": toc["root"], "chapters": parts[0]["chapters"]}
    return {"format": "jb-book", "root": toc["root"], "parts": parts}


def share_vendor_assets(target):
    """The Korean pages load the pinned assets of tools/site_assets.py (MathJax, the widget
    manager, Noto Sans KR: about 18 MB) from the English site's ``_static/vendor/``, one folder
    up, instead of a copy; ``attn-require-config.js`` too, which finds them beside itself. The
    theme's own vendor/fontawesome stays (its style sheets name it relative to themselves)."""
    folders = (site_assets.STATIC / "vendor").iterdir()
    shared = [f"_static/vendor/{p.name}/" for p in folders if p.is_dir()]
    shared.append("_static/attn-require-config.js")
    for path in shared[:-1]:
        shutil.rmtree(target / path)
    for page in target.rglob("*.html"):
        if "_static" not in page.relative_to(target).parts:
            text = page.read_text(encoding="utf-8")
            for path in shared:
                text = text.replace(path, f"../{path}")
            page.write_text(text, encoding="utf-8")


def build_korean(bin_dir, target):
    """Build the Korean edition and move it to ``target`` (``_build/html/ko``)."""
    start = time.perf_counter()
    src = korean_source()
    out = ROOT / "_build" / "ko-out"
    cmd = [str(bin_dir / "jupyter-book"), "build", str(src), "--builder", "html"]
    cmd += ["--path-output", str(out), "-nW", "--keep-going", "--all"]
    print("+", " ".join(cmd), flush=True)
    # the English doctrees: a Korean heading gets its English twin's id (site/attn_anchors.py)
    doctrees = str(target.parent.parent / ".doctrees")
    env = {**os.environ, "ATTN_BOOK_LANG": "ko", "ATTN_ENGLISH_DOCTREES": doctrees}
    code = subprocess.call(cmd, cwd=ROOT, env=env)
    if code == 0:
        refresh_own_static(out / "_build" / "html")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(out / "_build" / "html", target)
        share_vendor_assets(target)
    took = time.perf_counter() - start
    print(f"build_book: the Korean edition, exit {code} after {took:.1f} s", flush=True)
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
