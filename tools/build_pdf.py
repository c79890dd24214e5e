"""Print the built site into one PDF of the whole book, offline: ``make pdf``.

Usage: python tools/build_pdf.py [--site DIR]   (default: _build/html, built by ``make book``)

Why Chromium and not LaTeX: the site is what the book looks like (typeset maths, the live
figures, the Hangul web font), and Debian's Chromium, which the browser tests drive already,
prints it with no download; jupyter-book's ``pdfhtml`` builder fetches its own browser
(fails offline), and its LaTeX route needs a TeX Live with Korean fonts and cannot draw the
interactive figures at all.

How: every page of ``_toc.yml``, in order (introduction, chapters, glossary, references,
appendix), is opened from a local server, waits for MathJax and for every figure to render
(the interactive ones drawn live by their own JavaScript, as on the site), and is printed by
Playwright's ``page.pdf`` (A4, the site's print CSS: no sidebars, code wrapped at the margin;
a footer with the page's title and its page number, numbered on across the book). poppler's
``pdfunite`` joins the pages into ``DIR/attention-by-hand.pdf``; it drops the parts' own
outlines and tags (Chromium's ``outline``/``tagged`` options are lost in the join), so one
bookmark per chapter, at the chapter's first page, is added afterwards (:func:`add_outline`),
and the introduction's contents list is the printed table of contents. The fonts Chromium
used (Noto Sans KR for Hangul) are embedded as subsets.

The site's header offers the PDF (site/attn_site.py); until ``make pdf`` has run, the site
build leaves a one-page PDF there that says how to make it, so the link never 404s.
"""

from __future__ import annotations

import argparse
import http.server
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
PDF_NAME = "attention-by-hand.pdf"
CHROMIUM = "/usr/bin/chromium"
# Page numbers run on across the book: each page's counter starts after the pages before it
# (CSS paged media margin boxes, Chromium >= 131), in the site's fonts (Hangul too).
PAGE_CSS = """@page {{ margin: 16mm 14mm;
  @bottom-left {{ content: "Attention by Hand · {title}"; font: 8pt "Noto Sans KR", sans-serif;
                 color: #555 }}
  @bottom-right {{ content: counter(page); font: 8pt "Noto Sans KR", sans-serif; color: #555 }} }}
html {{ counter-reset: page {before} }}"""
WIDGETS_DRAWN = """() => [...document.querySelectorAll(
        'script[type="application/vnd.jupyter.widget-view+json"]')]
    .every(t => t.previousElementSibling
                && t.previousElementSibling.classList.contains("widget-subarea")
                && t.previousElementSibling.children.length > 0)"""


def toc_pages():
    """Document names in ``_toc.yml``, root first."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"]]
    for part in toc.get("parts", [toc]):
        names += [entry["file"] for entry in part.get("chapters", [])]
    return names


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 - the base class defines it as a plain dict too
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "application/javascript",
        ".woff2": "font/woff2",
    }

    def log_message(self, format, *args):
        pass


def serve(site):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def css_string(text):
    """``text`` as a CSS string's content."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def print_page(page, url, path, before):
    """Print one page of the site to ``path`` once its maths and figures are drawn; its
    page numbers start after ``before``. Returns the page's title."""
    page.goto(url, wait_until="load")
    page.wait_for_function("() => !window.MathJax || window.MathJax.startup?.promise")
    page.evaluate("() => window.MathJax ? MathJax.startup.promise.then(() => true) : true")
    page.wait_for_function(WIDGETS_DRAWN, timeout=60_000)
    page.wait_for_load_state("networkidle")
    page.evaluate("() => document.fonts.ready.then(() => true)")
    title = page.evaluate("() => document.querySelector('main h1')?.innerText || document.title")
    title = title.replace("#", "").strip()
    page.add_style_tag(content=PAGE_CSS.format(title=css_string(title), before=before))
    page.pdf(path=str(path), format="A4", print_background=True, prefer_css_page_size=True)
    return title


def page_count(path):
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True)
    return int(re.search(r"^Pages:\s+(\d+)", info.stdout, re.MULTILINE).group(1))


def build(site):
    """Print every page of ``site`` and join them into ``site/attention-by-hand.pdf``."""
    from playwright.sync_api import sync_playwright

    if not (site / "index.html").is_file():
        raise SystemExit(f"error: no built site in {site}: run `make book` first")
    if shutil.which("pdfunite") is None:
        raise SystemExit("error: pdfunite not found (Debian: apt-get install poppler-utils)")
    start = time.perf_counter()
    server, base = serve(site)
    parts = Path(tempfile.mkdtemp(prefix="attn-pdf-"))
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1100, "height": 1400})
            page.route(r"re:^(?!http://127\.0\.0\.1[:/])[a-z]+://", lambda r: r.abort())
            paths, chapters, before = [], [], 0
            for i, docname in enumerate(toc_pages()):
                path = parts / f"{i:02d}.pdf"
                title = print_page(page, f"{base}{docname}.html", path, before)
                chapters.append((title, before))
                before += page_count(path)
                print(f"  {docname}: {title} (to page {before})", flush=True)
                paths.append(path)
            browser.close()
        out = site / PDF_NAME
        subprocess.run(["pdfunite", *map(str, paths), str(out)], check=True)
        add_outline(out, chapters)
    finally:
        server.shutdown()
        shutil.rmtree(parts, ignore_errors=True)
    size = out.stat().st_size / 2**20
    print(f"build_pdf: {out} ({size:.1f} MiB) after {time.perf_counter() - start:.0f} s")
    return out


def _text(title):
    """A PDF text string (UTF-16BE with its byte-order mark, in hex) for any title."""
    return "<FEFF" + title.encode("utf-16-be").hex().upper() + ">"


def add_outline(path, chapters):
    """Give the PDF one bookmark per chapter, ``chapters`` = [(title, first page index)].

    pdfunite keeps no part's outline, so the bookmarks are written here as an incremental
    update: outline objects, the catalog again with ``/Outlines``, an xref section for them
    and a trailer pointing back at the old one. pdfunite writes a classic xref table and
    plain (uncompressed) catalog and page-tree objects, which this reads.
    """
    data = path.read_bytes()
    trailer = data[data.rindex(b"trailer") :]
    # pdfunite's /Size can be lower than its own object numbers: count them instead.
    starts = {int(m.group(1)): m.end() for m in re.finditer(rb"(?m)^(\d+) 0 obj", data)}
    size = max(int(re.search(rb"/Size (\d+)", trailer).group(1)), max(starts) + 1)
    root = int(re.search(rb"/Root (\d+) 0 R", trailer).group(1))
    info = re.search(rb"/Info (\d+) 0 R", trailer)
    prev = int(re.search(rb"startxref\s+(\d+)", data[data.rindex(b"startxref") :]).group(1))

    def obj(number):  # a dictionary object's text (catalog, page-tree nodes, pages)
        body = data[starts[number] : data.index(b"endobj", starts[number])]
        return body[body.index(b"<<") : body.rindex(b">>") + 2].decode("latin-1")

    catalog = obj(root)
    pages_root = int(re.search(r"/Pages (\d+) 0 R", catalog).group(1))

    def leaves(number):
        node = obj(number)
        if re.search(r"/Type\s*/Page\b(?!s)", node):
            return [number]
        kids = re.search(r"/Kids\s*\[([^\]]*)\]", node).group(1)
        return [p for k in re.findall(r"(\d+) 0 R", kids) for p in leaves(int(k))]

    pages = leaves(pages_root)
    top, first = size, size + 1
    items = list(range(first, first + len(chapters)))
    objects = {
        top: f"<< /Type /Outlines /First {items[0]} 0 R /Last {items[-1]} 0 R "
        f"/Count {len(items)} >>"
    }
    for k, (number, (title, start)) in enumerate(zip(items, chapters, strict=True)):
        links = f"/Parent {top} 0 R /Dest [{pages[start]} 0 R /Fit]"
        if k:
            links += f" /Prev {items[k - 1]} 0 R"
        if k + 1 < len(items):
            links += f" /Next {items[k + 1]} 0 R"
        objects[number] = f"<< /Title {_text(title)} {links} >>"
    objects[root] = catalog[:-2].rstrip() + f" /Outlines {top} 0 R /PageMode /UseOutlines >>"
    out = bytearray(data if data.endswith(b"\n") else data + b"\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += f"{number} 0 obj\n{objects[number]}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += b"xref\n"
    for number in sorted(offsets):
        out += f"{number} 1\n{offsets[number]:010d} 00000 n \n".encode()
    extra = f" /Info {int(info.group(1))} 0 R" if info else ""
    new_size = max(size, max(objects) + 1)
    out += (
        f"trailer\n<< /Size {new_size} /Root {root} 0 R{extra} /Prev {prev} >>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode()
    path.write_bytes(bytes(out))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    args = parser.parse_args(argv)
    build(args.site.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
