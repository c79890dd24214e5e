"""Print the built site into one PDF of the whole book, offline: ``make pdf``.

Usage: python tools/build_pdf.py [--site DIR]   (default: _build/html, built by ``make book``)

Both editions: the English book from DIR into DIR/attention-by-hand.pdf, and, when the site
has its Korean edition (DIR/ko, tools/build_book.py), the Korean book from it into
DIR/ko/attention-by-hand.pdf, each with its own title page, contents and labels (:data:`WORDS`).

Why Chromium and not LaTeX: the site is what the book looks like (typeset maths, the live
figures, the Hangul web font), and Debian's Chromium, which the browser tests drive already,
prints it with no download; jupyter-book's ``pdfhtml`` builder fetches its own browser
(fails offline), and its LaTeX route needs a TeX Live with Korean fonts and cannot draw the
interactive figures at all.

What a reader gets is a book, not a printed website:

- a title page (title, version, date, licences, where the source lives) and a table of
  contents with page numbers: every page of ``_toc.yml`` and its sections (:func:`front_matter`);
- each page of ``_toc.yml`` (introduction, chapters, glossary, references, appendix) starting on
  a new page, printed from a local server once MathJax and every figure have drawn (the
  interactive ones by their own JavaScript, as on the site), A4, with the site's print CSS
  (``site/static/attn-site.css``: no sidebars, buttons, answer boxes or code-folding prompts);
- each chapter's solutions gathered at its end under "Solutions", not under each exercise
  (:data:`BOOK_LAYOUT`): in print an exercise is its statement;
- a footer with the page's title and its page number, numbered on across the book, and
  bookmarks for every page and its sections.

How: each page is printed by Playwright's ``page.pdf`` with Chromium's own outline of its
headings; the front matter is printed last, once the page numbers are known (twice if its
length changed). pypdf (pure Python) joins the parts and writes the bookmarks, read from the
parts' outlines. The fonts Chromium used (Noto Sans KR for Hangul) are embedded as subsets.

The site's header offers the PDF (site/attn_downloads.py). A site built without ``make pdf``
serves a one-page PDF there that says how to make it; a published site is built with
``make publish`` (the site, then this PDF, then its test), so it never serves that page.
"""

from __future__ import annotations

import argparse
import datetime
import html
import http.server
import os
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

from attn_book.i18n import keyed_section

ROOT = Path(__file__).resolve().parent.parent
PDF_NAME = "attention-by-hand.pdf"
#: Each edition's words on the title page, in the contents, footers and bookmarks.
#: The front matter's and labels' words, from the book's catalogs (attn_book/locale: keyed
#: ``pdf/<id>`` in messages.pot, translated in each language's messages.po).
WORDS = {language: keyed_section("pdf", language) for language in ("en", "ko")}
CHROMIUM = "/usr/bin/chromium"
FRONT_URL = "attn-front-matter.html"  # served from memory (page.route), beside index.html
# Page numbers run on across the book: each page's counter starts after the pages before it
# (CSS paged media margin boxes, Chromium >= 131), in the site's fonts (Hangul too).
PAGE_CSS = """@page {{ margin: 16mm 14mm;
  @bottom-left {{ content: "{book} · {title}"; font: 8pt "Noto Sans KR", sans-serif;
                 color: #555 }}
  @bottom-right {{ content: counter(page); font: 8pt "Noto Sans KR", sans-serif; color: #555 }} }}
html {{ counter-reset: page {before} }}"""
WIDGETS_DRAWN = """() => [...document.querySelectorAll(
        'script[type="application/vnd.jupyter.widget-view+json"]')]
    .every(t => t.previousElementSibling
                && t.previousElementSibling.classList.contains("widget-subarea")
                && t.previousElementSibling.children.length > 0)"""
# The page as a book prints it (the site's print CSS hides the web controls):
# every solution moves, open, to a "Solutions" section at the end of its chapter; hints print
# open without their toggle; folded code (hide-input) is left out; the site's answer boxes and
# the checkers' verdicts on the blank answers go.
BOOK_LAYOUT = """(solutionsLabel) => {
    const open = (box) => {
        box.classList.remove("dropdown", "toggle-hidden");
        box.querySelectorAll(".toggle-hidden").forEach((e) => e.classList.remove("toggle-hidden"));
        box.querySelectorAll("button.toggle-button").forEach((b) => b.remove());
    };
    const top = document.querySelector("article.bd-article > section");
    const solutions = [...document.querySelectorAll("article.bd-article div.solution")];
    if (top && solutions.length) {
        const section = document.createElement("section");
        section.className = "attn-print-solutions";
        section.id = "attn-print-solutions";
        const heading = document.createElement("h2");
        heading.textContent = solutionsLabel;
        section.append(heading);
        for (const s of solutions) { open(s); section.append(s); }
        top.append(section);
    }
    document.querySelectorAll("article.bd-article .dropdown").forEach(open);
    document.querySelectorAll("details.hide.above-input").forEach((d) => d.remove());
    document.querySelectorAll("details.hide").forEach((d) => {
        d.open = true;
        d.querySelector(":scope > summary")?.remove();
    });
    for (const box of document.querySelectorAll("div.attn-answer")) {
        // the reader's answer cell (site/attn_answers.py) keeps its code and what it prints (the
        // exercise's data); the checker's verdict on the blank ("Not answered yet") goes
        const cell = box.previousElementSibling;
        if (cell?.matches("div.cell")) {
            cell.querySelectorAll(".cell_output > :not(.output.stream)").forEach((e) => e.remove());
        }
        box.remove();
    }
}"""
FRONT_CSS = """
@page { margin: 16mm 14mm;
  @bottom-right { content: counter(page); font: 8pt "Noto Sans KR", sans-serif; color: #555 } }
@page :first { @bottom-right { content: none } }
body { font-family: "Noto Sans KR", system-ui, sans-serif; color: #222; margin: 0; }
.title { height: 250mm; display: flex; flex-direction: column; break-after: page; }
.title h1 { font-size: 36pt; margin: 70mm 0 4mm; }
.title .sub { font-size: 14pt; color: #444; margin: 0 0 auto; }
.title dl { font-size: 10pt; display: grid; grid-template-columns: max-content 1fr; gap: 2mm 6mm; }
.title dt { font-weight: 600; } .title dd { margin: 0; overflow-wrap: anywhere; }
.contents h2 { font-size: 20pt; margin: 0 0 6mm; }
.contents h3 { font-size: 10pt; text-transform: uppercase; letter-spacing: .08em; color: #555;
               margin: 6mm 0 2mm; }
.contents ol { list-style: none; padding: 0; margin: 0; }
.contents li { display: flex; align-items: baseline; gap: 2mm; break-inside: avoid; }
.contents li .dots { flex: 1; border-bottom: 1px dotted #999; }
.contents li.chapter { font-weight: 600; font-size: 11pt; margin-top: 2.5mm; }
.contents li.section { font-size: 9.5pt; padding-left: 6mm; color: #333; }
"""


def toc_parts(language="en"):
    """``(part caption or None, document name)`` for every page of ``_toc.yml`` (of the Korean
    edition's table of contents, tools/build_book.py, for ``"ko"``), root first."""
    if language == "ko":
        import build_book

        toc = build_book.korean_toc()
    else:
        toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    names = [(None, toc["root"])]
    for part in toc.get("parts", [toc]):
        names += [(part.get("caption"), entry["file"]) for entry in part.get("chapters", [])]
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


def print_page(page, url, path, before, language="en"):
    """Print one page of the site to ``path``, laid out as a book's chapter, once its maths and
    figures are drawn; its page numbers start after ``before``. Returns the page's title."""
    page.goto(url, wait_until="load")
    page.wait_for_function("() => !window.MathJax || window.MathJax.startup?.promise")
    page.evaluate("() => window.MathJax ? MathJax.startup.promise.then(() => true) : true")
    page.wait_for_function(WIDGETS_DRAWN, timeout=60_000)
    page.wait_for_load_state("networkidle")
    page.evaluate("() => document.fonts.ready.then(() => true)")
    title = page.evaluate("() => document.querySelector('main h1')?.innerText || document.title")
    title = title.replace("#", "").strip()
    words = WORDS[language]
    page.evaluate(BOOK_LAYOUT, words["solutions"])
    page.add_style_tag(
        content=PAGE_CSS.format(book=words["title"], title=css_string(title), before=before)
    )
    page.pdf(path=str(path), format="A4", print_background=True, prefer_css_page_size=True,
             outline=True, tagged=True)  # fmt: skip
    return title


def section_pages(path, titles):
    """The page index, in the printed part ``path``, of each section of ``titles`` (in order)
    and the part's page count. Chromium's outline of the headings (a tagged PDF) gives the
    pages; its titles lose the maths and may repeat words, so each section is matched in order
    by the start of its title."""
    from pypdf import PdfReader

    reader = PdfReader(path)
    flat = [(squeeze(item.title), reader.get_destination_page_number(item))
            for item in _flatten(reader.outline)]  # fmt: skip
    pages, at, last = [], 0, 0
    for title in titles:
        key = squeeze(title)[:8]
        hit = next((i for i in range(at, len(flat)) if key in flat[i][0][: 2 * len(key)]), None)
        if hit is not None:
            at, last = hit + 1, flat[hit][1]
        pages.append(last)
    return pages, len(reader.pages)


def _flatten(outline):
    for item in outline:
        yield from _flatten(item) if isinstance(item, list) else [item]


def squeeze(text):
    return re.sub(r"\s+", "", text)


def plain_maths(text):
    """A heading's inline TeX as plain text for the contents: ``\\(\\sqrt{d_k}\\)`` -> √dₖ."""
    for tex, plain in ((r"\sqrt", "√"), (r"^\top", "ᵀ"), (r"\times", "×"), ("d_k", "dₖ")):
        text = text.replace(tex, plain)
    return re.sub(r"\\[()]|[{}]", "", text)


def outline(site, language="en"):
    """``[(part, title, [section titles])]`` read from the built HTML: the contents as it will
    be, before the page numbers are known (its length decides where chapter 1 starts)."""
    out = []
    for part, docname in toc_parts(language):
        text = (site / f"{docname}.html").read_text(encoding="utf-8")
        text = text[text.index('<article class="bd-article"') : text.index("</article>")]
        found = re.findall(r"<h([12])\b[^>]*>(.*?)</h\1>", text, re.DOTALL)
        heads = [plain_maths(html.unescape(re.sub(r"<[^>]+>", "", h))).replace("#", "").strip()
                 for _, h in found]  # fmt: skip
        solutions = [WORDS[language]["solutions"]] if 'class="solution' in text else []
        out.append((part, heads[0], heads[1:] + solutions))
    return out


def source_facts(language="en"):
    """(version, date, commit, where the source lives) for the title page."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    def git(*args):
        run = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
        return run.stdout.strip() if run.returncode == 0 else ""

    date = git("log", "-1", "--format=%cs") or datetime.date.today().isoformat()
    repository = os.environ.get("ATTN_REPOSITORY_URL", "").strip().rstrip("/")
    where = repository or WORDS[language]["source-text"]
    return project["version"], date, git("rev-parse", "--short", "HEAD"), where


def front_matter(entries, language="en"):
    """The title page and the contents as HTML. ``entries``: ``[(part, title, first page,
    [(section, page)])]``, pages numbered as printed (1 = the title page)."""
    version, date, commit, where = source_facts(language)
    w = WORDS[language]
    # the Korean edition loads the shared fonts from the English site's _static, one folder up
    fonts = ("../" if language != "en" else "") + "_static/vendor/noto-sans-kr/noto-sans-kr.css"
    e = html.escape
    rows, part_seen = [], None
    for part, title, first, subs in entries:
        if part != part_seen and part:
            rows.append(f"</ol><h3>{e(part)}</h3><ol>")
        part_seen = part
        rows.append(f'<li class="chapter"><span>{e(title)}</span><span class="dots"></span>'
                    f"<span>{first}</span></li>")  # fmt: skip
        rows += [f'<li class="section"><span>{e(s)}</span><span class="dots"></span>'
                 f"<span>{p}</span></li>" for s, p in subs]  # fmt: skip
    built = f"{date}" + (f", {w['commit']} {commit}" if commit else "")
    return f"""<!doctype html><html lang="{language}"><head><meta charset="utf-8">
<title>{e(w["title"])}</title>
<link rel="stylesheet" href="{fonts}">
<style>{FRONT_CSS}</style></head><body>
<section class="title"><h1>{e(w["title"])}</h1>
<p class="sub">{e(w["subtitle"])}</p>
<dl><dt>{w["version"]}</dt><dd>{e(version)} ({e(built)})</dd>
<dt>{w["licence"]}</dt><dd>{e(w["licence-text"])}</dd>
<dt>{w["source"]}</dt><dd>{e(where)}</dd>
<dt>{w["online"]}</dt><dd>{e(w["online-text"])}</dd></dl></section>
<section class="contents"><h2>{w["contents"]}</h2><ol>{"".join(rows)}</ol></section>
</body></html>"""


def print_front(page, base, path, entries, language="en"):
    """Print the title page and the contents to ``path``; returns its number of pages."""
    from pypdf import PdfReader

    body = front_matter(entries, language)
    page.route(base + FRONT_URL, lambda r: r.fulfill(body=body, content_type="text/html"))
    page.goto(base + FRONT_URL, wait_until="load")
    page.evaluate("() => document.fonts.ready.then(() => true)")
    page.pdf(path=str(path), format="A4", prefer_css_page_size=True)
    page.unroute(base + FRONT_URL)
    return len(PdfReader(path).pages)


def build(site, language="en"):
    """Print every page of ``site`` (the Korean edition's, ``site/ko``, for ``"ko"``) and join
    them into ``attention-by-hand.pdf`` beside its pages."""
    from playwright.sync_api import sync_playwright

    if not (site / "index.html").is_file():
        raise SystemExit(f"error: no built site in {site}: run `make book` first")
    start = time.perf_counter()
    server, base = serve(site)
    if language != "en":  # served from the English site's root: it shares its _static
        site = site / language
        base += f"{language}/"
    parts = Path(tempfile.mkdtemp(prefix="attn-pdf-"))
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1100, "height": 1400})
            page.route(r"re:^(?!http://127\.0\.0\.1[:/])[a-z]+://", lambda r: r.abort())
            front = parts / "front.pdf"
            pages = toc_parts(language)
            # The front matter's length, from the contents with placeholder page numbers;
            # then the pages, numbered after it; then the front matter with the real numbers.
            contents = outline(site, language)
            guess = [(p, title, 999, [(s, 999) for s in subs]) for p, title, subs in contents]
            n_front = print_front(page, base, front, guess, language)
            paths, entries, before = [], [], n_front
            for i, ((part, docname), (_, _, subs)) in enumerate(zip(pages, contents, strict=True)):
                path = parts / f"{i:02d}.pdf"
                title = print_page(page, f"{base}{docname}.html", path, before, language)
                at, count = section_pages(path, subs)
                numbered = [(s, before + 1 + p) for s, p in zip(subs, at, strict=True)]
                entries.append((part, title, before + 1, numbered))
                before += count
                print(f"  {docname}: {title} (to page {before})", flush=True)
                paths.append(path)
            if print_front(page, base, front, entries, language) != n_front:
                raise SystemExit("error: the contents changed length once numbered")
            browser.close()
        out = site / PDF_NAME
        join([front, *paths], entries, out, language)
    finally:
        server.shutdown()
        shutil.rmtree(parts, ignore_errors=True)
    size = out.stat().st_size / 2**20
    print(f"build_pdf: {out} ({before} pages, {size:.1f} MiB) after "
          f"{time.perf_counter() - start:.0f} s")  # fmt: skip
    return out


def join(paths, entries, out, language="en"):
    """Join the printed parts into ``out`` with one bookmark per page of the book (its
    sections under it) and the contents' bookmark first."""
    from pypdf import PdfWriter
    from pypdf.generic import NameObject, TextStringObject

    writer = PdfWriter()
    for path in paths:
        writer.append(str(path), import_outline=False)
    words = WORDS[language]
    writer.add_outline_item(title=words["contents"], page_number=1)
    for _, title, first, subs in entries:
        parent = writer.add_outline_item(title=title, page_number=first - 1)
        for section, page in subs:
            writer.add_outline_item(title=section, page_number=page - 1, parent=parent)
    writer.page_mode = "/UseOutlines"
    writer.add_metadata({"/Title": words["title"], "/Author": "The Attention by Hand authors"})
    writer._root_object[NameObject("/Lang")] = TextStringObject(language)  # for screen readers
    with open(out, "wb") as f:
        writer.write(f)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    args = parser.parse_args(argv)
    build(args.site.resolve())
    if (args.site / "ko" / "index.html").is_file():
        build(args.site.resolve(), "ko")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
