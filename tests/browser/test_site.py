"""The built site, page by page, in headless Chromium (fixtures in conftest.py).

Every page of the table of contents is opened once from a local server (the ``loaded``
fixture: pytest runs the tests below page by page) and checked, in this order:

- as loaded: no request may leave 127.0.0.1, none may fail, no JavaScript error may occur,
  every formula must be typeset by MathJax, every widget rendered, every figure inside the
  text column, and every Hangul character drawn by a font the site ships;
- its exercises' answer boxes give the Python checker's verdicts (test_site_answers.py);
- axe-core finds no critical or serious WCAG 2.2 AA violation, in light and dark mode
  (axe_audit.py).

Internal links are checked on the HTML files. A few screenshots, a JSON summary and the
audit's counts land in ``_build/screenshots/`` (next to ``html/``).
"""

from __future__ import annotations

import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml
from axe_audit import (
    COLOUR_RULES,
    NO_TRANSITIONS,
    RESULTS,
    audit,
    failing,
    set_mode,
    write_report,
)
from test_site_answers import check_boxes

ROOT = Path(__file__).resolve().parents[2]

SCREENSHOTS = {"book/intro", "book/02_softmax", "book/03_scaling", "book/glossary"}
RAW_TEX = re.compile(
    r"\$\$|\\\(|\\\)|\\\[|\\\]|\\(frac|sqrt|mathbf|sum|top|cdot)\b|\$[^$\s][^$]*\$"
)


def toc_pages():
    """Document names in ``_toc.yml``, root first (``book/intro``, ``book/01_...``)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"]]

    def walk(entries):
        for entry in entries:
            if "file" in entry:
                names.append(entry["file"])
            walk(entry.get("sections", []))

    for part in toc.get("parts", [toc]):
        walk(part.get("chapters", []))
    return names


PAGES = toc_pages()
SUMMARY = {"pages": {}, "requests": 0}
WIDGET_GLYPHS = {}  # docname -> Hangul in figures that no shipped font drew


@pytest.fixture(scope="module")
def summary(site_dir):
    """Collect per-page counts; written to _build/screenshots/summary.json at the end."""
    yield SUMMARY
    out = site_dir.parent / "screenshots"
    out.mkdir(exist_ok=True)
    (out / "summary.json").write_text(json.dumps(SUMMARY, indent=1) + "\n")


def raw_tex_left(page):
    """Visible prose text (not code, not typeset math) that still looks like TeX."""
    texts = page.evaluate(
        """() => {
        const skip = "pre, code, script, style, textarea, mjx-container, .widget-subarea,"
                   + " .cell_output, .highlight";
        const root = document.querySelector("main") || document.body;
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        const out = [];
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            if (!n.parentElement.closest(skip) && n.textContent.trim()) out.push(n.textContent);
        }
        return out;
    }"""
    )
    return [t.strip()[:80] for t in texts if RAW_TEX.search(t)]


def math_state(page):
    """(number of Sphinx math elements, how many of them MathJax did not typeset)."""
    return page.evaluate(
        """() => {
        const all = [...document.querySelectorAll("main .math")];
        const bad = all.filter(el => !el.querySelector("mjx-container")
                                   || el.textContent.includes("\\\\"));
        return [all.length, bad.map(el => el.outerHTML.slice(0, 120))];
    }"""
    )


def widget_state(page):
    """(number of widget views, descriptions of those not rendered)."""
    return page.evaluate(
        """() => {
        const views = [...document.querySelectorAll(
            'script[type="application/vnd.jupyter.widget-view+json"]')];
        const bad = [];
        views.forEach((tag, i) => {
            const area = tag.previousElementSibling;
            const box = area && area.getBoundingClientRect();
            if (!area || !area.classList.contains("widget-subarea") || !area.children.length
                || box.height < 10 || area.querySelector(".jupyter-widgets-error-widget")) {
                bad.push(`view ${i}: ${area ? area.outerHTML.slice(0, 160) : "no output area"}`);
            }
        });
        return [views.length, bad];
    }"""
    )


def load_every_font(page):
    """Load every @font-face the page declares, not only those drawn so far.

    Browsers fetch a font when a glyph first needs it, so a wrong font URL (the
    widget manager's icon fonts resolved to the wrong folder) would otherwise
    fail only in whichever test happened to draw an icon.
    """
    page.evaluate("Promise.all([...document.fonts].map(f => f.load().catch(() => null)))")
    page.settle()


@pytest.fixture(scope="module", params=PAGES)
def loaded(request, new_page, site):
    """``(docname, page)``: each page of the table of contents, loaded once, with its maths
    typeset, its figures drawn and every font it declares loaded, for the tests below."""
    docname = request.param
    with new_page() as page:
        load_page(page, site.url(f"{docname}.html"))
        yield docname, page


def load_page(page, url):
    """Load ``url`` at 1280 × 1000 and wait for its maths, figures and fonts."""
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(url, wait_until="load")
    page.wait_for_math()
    try:
        page.wait_for_widgets()
    except Exception:  # reported with details by widget_state in the first test
        pass
    page.settle()
    load_every_font(page)


@pytest.fixture(scope="module")
def a11y_report(site_dir):
    """The audit's counts per page, mode and rule: _build/screenshots/a11y.json at the end."""
    yield
    write_report(site_dir.parent / "screenshots")


MAX_FIGURE_WIDTH = 680  # px at a 1280 px window; the text column there is 688 px
FIGURE_EXTENTS = """() => {
  const article = document.querySelector("article.bd-article");
  const a = article.getBoundingClientRect(), cs = getComputedStyle(article);
  const col = [a.left + parseFloat(cs.paddingLeft), a.right - parseFloat(cs.paddingRight)];
  return [...document.querySelectorAll(".abh-fig")].map((fig) => {
    let [left, right] = [Infinity, -Infinity];
    // options have no real box; the screen-reader-only live region is clipped to nothing
    for (const e of [fig, ...fig.querySelectorAll(":not(option):not(.abh-sr-only)")]) {
      const r = e.getBoundingClientRect();
      if (r.width > 0) [left, right] = [Math.min(left, r.left), Math.max(right, r.right)];
    }
    return { cls: fig.className, left, right, col };
  });
}"""


def figures_outside_the_column(page):
    """Figures (with all they draw: SVG overflow, tables) wider than the column or outside it."""
    bad = []
    for f in page.evaluate(FIGURE_EXTENTS):
        (c0, c1), width = f["col"], f["right"] - f["left"]
        assert c1 - c0 == pytest.approx(688, abs=1), "the theme's text column changed width"
        if width > MAX_FIGURE_WIDTH + 0.5 or not (c0 - 0.5 <= f["left"] and f["right"] <= c1 + 0.5):
            bad.append((f["cls"], round(f["left"]), round(f["right"]), (c0, c1)))
    return bad


def test_page_offline_and_clean(loaded, site, site_dir, summary, glyphs):
    """The page loads from 127.0.0.1 only, with no failure, no error, math and widgets live,
    every figure inside the text column, and every Hangul character of its prose drawn by a
    shipped font."""
    docname, page = loaded
    n_math, untypeset = math_state(page)
    n_widgets, unrendered = widget_state(page)
    hangul_checked, no_glyph = glyphs(page)
    WIDGET_GLYPHS[docname] = [g for g in no_glyph if g["widget"]]
    prose_boxes = [g for g in no_glyph if not g["widget"]]
    summary["pages"][docname] = {
        "requests": len(page.requests),
        "math": n_math,
        "widgets": n_widgets,
        "hangul_text_nodes": hangul_checked,
    }
    summary["requests"] += len(page.requests)
    if docname in SCREENSHOTS:
        out = site_dir.parent / "screenshots"
        out.mkdir(exist_ok=True)
        stem = docname.replace("/", "_")
        page.screenshot(path=str(out / f"{stem}.png"), full_page=True)
        if n_widgets:
            area = page.locator(".widget-subarea").first
            area.scroll_into_view_if_needed()
            area.screenshot(path=str(out / f"{stem}_widget.png"))

    outside = [u for u in page.requests if not site.is_local(u)]
    assert not outside, f"{docname}: requests left 127.0.0.1: {outside}"
    assert not page.failed_requests, f"{docname}: failed requests: {page.failed_requests}"
    assert not page.errors, f"{docname}: JavaScript errors: {page.errors}"
    assert not untypeset, f"{docname}: math not typeset by MathJax: {untypeset}"
    assert not raw_tex_left(page), f"{docname}: raw TeX in the prose: {raw_tex_left(page)}"
    assert not unrendered, f"{docname}: widgets not rendered: {unrendered}"
    assert not prose_boxes, f"{docname}: Hangul no shipped font drew (boxes): {prose_boxes}"
    spilled = figures_outside_the_column(page)
    assert not spilled, f"{docname}: figures wider than the text column or outside it: {spilled}"


def test_answer_boxes_answer_as_python(loaded, site, site_dir):
    """The page's answer boxes give the Python checkers' verdicts (test_site_answers.py);
    a page that is not a chapter has none."""
    docname, page = loaded
    checked = check_boxes(page, site, site_dir, docname)
    if not re.match(r"book/(0[1-9]|1[0-9])_", docname):
        assert checked is None, f"{docname} is not a chapter but has answer boxes"


def test_page_meets_wcag_aa_in_light_and_dark_mode(loaded, axe_source, a11y_report):
    """No critical or serious axe violation on the page, in either colour mode (axe_audit.py;
    after its answer boxes have shown verdicts, so their colours are checked too)."""
    docname, page = loaded
    page.add_style_tag(content=NO_TRANSITIONS)
    problems = []
    for mode, rules in (("light", None), ("dark", COLOUR_RULES)):
        set_mode(page, mode)
        violations = audit(page, axe_source, rules=rules)
        RESULTS.setdefault(docname, {})[mode] = {v["id"]: len(v["nodes"]) for v in violations}
        problems += [f"[{mode}] {p}" for p in failing(violations)]
    assert not problems, f"{docname}:\n" + "\n".join(problems)


def test_pages_have_content(summary):
    """Sanity of the checks above: the site has math, and at least one live widget."""
    if len(summary["pages"]) < len(PAGES):
        pytest.skip("needs every page test to have run first")
    assert sum(p["math"] for p in summary["pages"].values()) > 0
    assert summary["requests"] > len(PAGES)
    for part in ("prose", "widget"):  # the glyph check saw Hangul to check
        assert sum(p["hangul_text_nodes"][part] for p in summary["pages"].values()) > 0, part


def test_widget_hangul_is_drawn_by_shipped_fonts():
    """Every Hangul character inside a figure is drawn by a font the site ships."""
    if len(WIDGET_GLYPHS) < len(PAGES):
        pytest.skip("needs every page test to have run first")
    boxes = {d: g for d, g in WIDGET_GLYPHS.items() if g}
    assert not boxes, f"Hangul in figures that no shipped font drew: {boxes}"


def test_the_glyph_check_sees_a_missing_glyph(page, site, glyphs):
    """Sanity of the check: Hangul outside the shipped font is reported, inside it is not."""
    page.goto(site.url("book/glossary.html"))
    load_every_font(page)
    page.evaluate(
        """() => {
        const add = (family, text) => {
            const p = document.createElement("p");
            p.style.fontFamily = family;
            p.textContent = text;
            document.querySelector("main").append(p);
        };
        add("monospace", "벡터 no web font");
        add('"Noto Sans KR"', "벡터 shipped font");
    }"""
    )
    page.evaluate("document.fonts.ready.then(() => true)")
    texts = [g["text"] for g in glyphs(page)[1]]
    assert "벡터 no web font" in texts
    assert "벡터 shipped font" not in texts


def test_chapter_downloads_and_launch(page, site, site_dir):
    """A chapter's top bar offers .ipynb and .py (downloads resolve); the repository and
    Binder buttons appear exactly when the site was built with ATTN_REPOSITORY_URL."""
    chapter = next(d for d in PAGES if re.match(r"book/\d\d_", d))
    page.goto(site.url(f"{chapter}.html"))
    page.locator(".dropdown-download-buttons > button").click()
    page.wait_for_selector(".btn-download-py-button", state="visible")
    (site_dir.parent / "screenshots").mkdir(exist_ok=True)
    page.screenshot(
        path=str(site_dir.parent / "screenshots" / "download_menu.png"),
        clip={"x": 600, "y": 0, "width": 680, "height": 300},
    )
    hrefs = page.eval_on_selector_all(
        ".article-header-buttons a[href]", "els => els.map(e => e.href)"
    )
    name = chapter.split("/")[-1]
    for suffix in (".ipynb", ".py"):
        link = next((h for h in hrefs if h.endswith(f"_sources/{chapter}{suffix}")), None)
        assert link, f"no {suffix} download among {hrefs}"
        response = page.request.get(link)
        assert response.ok, f"{link}: HTTP {response.status}"
        if suffix == ".py":
            assert "# %%" in response.text(), "the .py download is not the jupytext source"
        else:
            assert json.loads(response.text())["cells"], "the .ipynb download has no cells"
    repository = os.environ.get("ATTN_REPOSITORY_URL", "").strip().rstrip("/")
    binder = [h for h in hrefs if "/v2/gh/" in h]
    github = [h for h in hrefs if urlsplit(h).hostname == "github.com"]
    if not repository:
        assert not binder and not github, f"buttons to a repository nobody set: {hrefs}"
        return
    owner_name = urlsplit(repository).path.strip("/")
    assert any(f"/v2/gh/{owner_name}/" in h and h.endswith(f"{name}.ipynb") for h in binder)
    assert repository in github, hrefs


@pytest.mark.parametrize("query", ["softmax", "소프트맥스"])
def test_search_works_offline(page, site, query):
    """Full-text search finds a word of the book, English or Korean, with no server but ours."""
    page.goto(site.url(f"search.html?q={query}"))
    page.wait_for_selector("#search-results ul.search li", timeout=20_000)
    hits = page.locator("#search-results ul.search li").count()
    assert hits >= 1
    assert not [u for u in page.requests if not site.is_local(u)]
    assert not page.errors, page.errors


class _Links(HTMLParser):
    """Collect the ids and the hrefs/srcs of one HTML file."""

    def __init__(self):
        super().__init__()
        self.ids, self.refs = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        ref = attrs.get("href") if tag in ("a", "link") else attrs.get("src")
        if ref and tag in ("a", "link", "img", "script"):
            self.refs.append(ref)


def test_internal_links_resolve(site_dir):
    """Every relative href/src of every page points at an existing file (and anchor)."""
    parsed = {}
    for path in site_dir.rglob("*.html"):
        if "_static" in path.relative_to(site_dir).parts:
            continue  # theme template fragments, not pages
        links = _Links()
        links.feed(path.read_text(encoding="utf-8"))
        parsed[path.resolve()] = links
    broken, checked = [], 0
    for path, links in parsed.items():
        for ref in links.refs:
            parts = urlsplit(ref)
            if parts.scheme or ref.startswith(("//", "mailto:", "javascript:")):
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            checked += 1
            if not target.exists():
                broken.append(f"{path.relative_to(site_dir)} -> {ref}")
            elif parts.fragment and target.suffix == ".html":
                if parts.fragment not in parsed.get(target, _Links()).ids:
                    broken.append(f"{path.relative_to(site_dir)} -> {ref} (no such anchor)")
    assert checked > 0
    assert not broken, f"{len(broken)} broken internal links:\n" + "\n".join(broken[:30])
