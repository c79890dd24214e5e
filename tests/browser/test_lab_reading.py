"""Every chapter as a reader meets it in JupyterLab: opened from the file browser, not run.

Starts ``jupyter lab`` (as ``make lab`` sets it up: jupyterlab-myst, the settings overrides,
the server extension attn_book.jupyter_server_extension with the pre-save hook and the
Hangul custom.css) on a git repository holding a copy of book/, opens each chapter in
headless Chromium and checks what a reader sees:

- the prose shows no raw MyST markup (roles, targets, directive fences or options) and no
  error box, and chapter 4's prose carries the worked example's numbers;
- every Hangul character on the page (prose, code, figures) is drawn by a font the book
  ships (``custom.css``), not left to the machine's fonts;
- every captioned figure of the site is there, and every interactive figure shows a picture
  (its snapshot) before anything runs;
- no solution is unfolded and no "✓ Correct" shows;
- saving without an edit leaves ``git status`` clean;
- a chapter's ``.py`` opens as a notebook on double-click.

``make test`` reads chapter 4 (``ATTN_LAB_CHAPTERS``) and CI's ``make test-ci`` every
chapter. Run All of every chapter in Lab is test_lab_run_all.py (CI); in ``make test``
nbval runs every chapter and tests/test_pairs.py holds the stored outputs, which nbval
shows a fresh run reproduces, to no error and no answer shown. Screenshots land in
``_build/screenshots/lab/``.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
CHAPTERS = sorted(p.stem for p in BOOK.glob("[0-9][0-9]_*.ipynb"))
# The chapters read here: all of them, or those $ATTN_LAB_CHAPTERS names (comma-separated;
# `make test` reads chapter 4 and leaves every chapter to CI's `make test-ci`).
READ = [c for c in os.environ.get("ATTN_LAB_CHAPTERS", "").split(",") if c] or CHAPTERS
if set(READ) - set(CHAPTERS):
    raise pytest.UsageError(f"ATTN_LAB_CHAPTERS names no chapter: {set(READ) - set(CHAPTERS)}")
SHOTS = ROOT / "_build" / "screenshots" / "lab"
RAW_MARKUP = {
    "role": re.compile(r"\{(glue|glue:\w+|eval|eq|ref|numref|cite|cite:\w+|doc|term)\}`"),
    "target": re.compile(r"^\([\w-]+\)=\s*$", re.MULTILINE),
    "directive fence": re.compile(r"(`{3,}|:{3,})\{[\w:-]+\}"),
    "directive option": re.compile(r"^:(label|class|name|width|align|figwidth):", re.MULTILINE),
}
ERROR_TEXT = ("Unknown Directive", "Unknown Role", "Unknown directive", "Unknown role")
WORKED_EXAMPLE = ("0.401", "0.198", "1.203", "0.797", "5.056", "2.028")
CAPTION = re.compile(r"^Figure \d+\.\d+\.$")  # the bold label that opens a caption
SITE_CAPTION = re.compile(r"<strong>Figure \d+\.\d+\.</strong>")


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)


def chapter_url(base, chapter, purpose):
    """The chapter alone in a fresh workspace: no tab of an earlier test is restored."""
    return f"{base}lab/workspaces/{purpose}-{chapter}/tree/{chapter}.ipynb?reset"


def open_chapter(open_in_lab, page, url):
    page.set_viewport_size({"width": 1300, "height": 1000})
    open_in_lab(page, url)
    wait_until_rendered(page)


def wait_until_rendered(page):
    """Lab and jupyterlab-myst render the cells (Markdown, outputs, pictures) asynchronously, a
    batch at a time: wait until the rendered parts stop growing for a second (at most 20 s)."""
    count = "() => document.querySelectorAll('.jp-RenderedMarkdown, .jp-OutputArea-output').length"
    seen, steady = -1, 0
    for _ in range(80):
        page.wait_for_timeout(250)
        now = page.evaluate(count)
        steady = steady + 1 if now == seen else 0
        seen = now
        if steady >= 4 and now > 0:
            break


def scroll_through(page):
    """Scroll the notebook from top to bottom and back, a screen at a time."""
    page.evaluate(
        """async () => {
            const pane = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');
            for (let y = 0; y <= pane.scrollHeight; y += pane.clientHeight) {
                pane.scrollTop = y;
                await new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)));
            }
            pane.scrollTop = 0;
            await document.fonts.ready;
        }"""
    )


def markdown_text(page):
    return page.evaluate(
        "() => Array.from(document.querySelectorAll('.jp-MarkdownCell .jp-InputArea'))"
        ".map(e => e.innerText).join('\\n')"
    )


def raw_markup(text):
    return {kind: pattern.findall(text) for kind, pattern in RAW_MARKUP.items()}


def visible_text(page, needle):
    return [e for e in page.get_by_text(needle).all() if e.is_visible()]


def site_captions(chapter):
    page = ROOT / "_build" / "html" / "book" / f"{chapter}.html"
    if not page.exists():
        return None
    return len(SITE_CAPTION.findall(page.read_text(encoding="utf-8")))


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def test_raw_markup_patterns_catch_what_stock_lab_showed():
    # What stock JupyterLab showed before jupyterlab-myst and {eval} (issue 9): all caught.
    shown = (
        "The scores are {glue:text}`ch4_score1:.0f` and {eval}`dec(w)`, see {eq}`eq-a`\n"
        "(ch-worked-example)=\n```{exercise} Title\n:label: ex-1\n"
    )
    found = raw_markup(shown)
    assert {kind: len(items) for kind, items in found.items()} == {
        "role": 3, "target": 1, "directive fence": 1, "directive option": 1,
    }  # fmt: skip


@pytest.mark.parametrize("chapter", READ)
def test_chapter_in_lab_reads_before_running(page, lab_book, chapter, capsys, open_in_lab, glyphs):
    """One visit per chapter: read it as opened, then save it without an edit."""
    base, work = lab_book
    open_chapter(open_in_lab, page, chapter_url(base, chapter, "read"))
    shot(page, f"{chapter}_opened")
    text = markdown_text(page)
    raw = {kind: items for kind, items in raw_markup(text).items() if items}
    assert raw == {}, f"{chapter}: raw MyST in the rendered prose: {raw}"
    errors = page.locator(".myst-RenderedExpressionError, .jp-RenderedMarkdown .error").count()
    errors += sum(text.count(e) for e in ERROR_TEXT)
    assert errors == 0, f"{chapter}: {errors} error boxes in the prose"
    if chapter.startswith("04_"):
        missing = [n for n in WORKED_EXAMPLE if n not in text]
        assert missing == [], f"the worked example's {missing} are not in chapter 4's prose"

    outputs = page.locator(".jp-OutputArea-output")
    bold = page.locator(".jp-OutputArea-output strong").all_inner_texts()
    captions = sum(bool(CAPTION.match(t.strip())) for t in bold)
    pictures = page.locator(".jp-OutputArea-output img").count()
    on_site = site_captions(chapter)
    if on_site is not None:
        assert captions == on_site, f"{chapter}: {captions} figures in Lab, {on_site} on the site"
    assert pictures >= captions, f"{chapter}: {captions} captions but {pictures} pictures"
    reprs = [t for t in outputs.all_inner_texts() if re.match(r"^\w+\(.*\)$", t.strip())]
    assert [r for r in reprs if r.split("(")[0] in {"QueryPad", "SoftmaxBars"}] == []
    assert visible_text(page, "✓ Correct") == []
    assert page.locator("details[open]").filter(has_text="Solution").count() == 0
    scroll_through(page)  # Chromium lays out, and picks fonts for, what comes into view
    hangul_checked, boxes = glyphs(page)  # drawn by the book's fonts, not by a system's
    assert hangul_checked["prose"] > 0, f"{chapter}: no Hangul in the prose to check"
    assert boxes == [], f"{chapter}: Hangul that no font of the book drew (boxes): {boxes[:3]}"
    with capsys.disabled():
        print(
            f"\n[lab] {chapter}: {captions} figures, {pictures} pictures, raw markup 0, "
            f"Hangul text nodes drawn by the book's fonts: {hangul_checked}"
        )

    # Save without an edit: neither file of the pair changes.
    pair = [work / f"{chapter}{suffix}" for suffix in (".ipynb", ".py")]
    before = [p.stat().st_mtime_ns for p in pair]
    page.locator(".jp-NotebookPanel .jp-Notebook").first.click()
    page.keyboard.press("Control+s")
    for _ in range(100):  # until both files are written again (at most 10 s)
        page.wait_for_timeout(100)
        if all(p.stat().st_mtime_ns != t for p, t in zip(pair, before, strict=True)):
            break
    page.wait_for_timeout(300)  # the second file's write may still be flushing
    status = git("status", "--porcelain", cwd=work).stdout
    assert status == "", f"{chapter}: saving without an edit changed files:\n{status}"


def test_a_chapter_py_opens_as_a_notebook(page, lab_book):
    base, _ = lab_book
    page.set_viewport_size({"width": 1300, "height": 900})
    page.goto(f"{base}lab/workspaces/open-py?reset", wait_until="load")
    item = page.locator(".jp-DirListing-item", has_text=f"{CHAPTERS[0]}.py")
    item.wait_for(timeout=60_000)
    item.dblclick()
    tab = page.locator(".lm-TabBar-tab.lm-mod-current", has_text=f"{CHAPTERS[0]}.py")
    tab.wait_for(timeout=60_000)
    page.wait_for_timeout(2000)
    shot(page, "py_double_click")
    assert page.locator(".jp-NotebookPanel:visible").count() == 1, "the .py is not a notebook"
    assert page.locator(".jp-FileEditor:visible").count() == 0, "the .py opened as text"
