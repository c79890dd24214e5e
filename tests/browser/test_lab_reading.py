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
- saving without an edit leaves ``git status`` clean;
- then, in the same tab, after Run All no answer is visible (no "✓ Correct", no open
  solution), nothing raised, and the live figures' Hangul is drawn too;
- a chapter's ``.py`` opens as a notebook on double-click.

Screenshots land in ``_build/screenshots/lab/`` (before and after Run All).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
CHAPTERS = sorted(p.stem for p in BOOK.glob("[0-9][0-9]_*.ipynb"))
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


@pytest.fixture(scope="module")
def lab(tmp_path_factory, browser, start_lab):  # `browser` first: it skips when Chromium is missing
    config, prefix = ROOT / "jupyter-config", Path(sys.prefix)
    setup = {  # what pip (data-files) or `make lab` (an editable install) puts in the prefix
        config / f"{inner}/attn-book.json": prefix / f"{where}/{inner}/attn-book.json"
        for where, inner in [
            ("etc/jupyter", "jupyter_server_config.d"),
            ("share/jupyter", "lab/settings/overrides.d"),
        ]
    }
    for source, installed in setup.items():
        if not installed.exists() or installed.read_text() != source.read_text():
            pytest.fail(f"{installed} is not {source.name}: run `make lab` (or `make test`) first")
    work = tmp_path_factory.mktemp("lab-book")
    for path in BOOK.iterdir():
        if path.suffix in {".py", ".ipynb", ".md", ".toml"} and not path.name.startswith("."):
            shutil.copy(path, work / path.name)
    (work / ".gitignore").write_text(".ipynb_checkpoints/\n")
    git("init", "-q", cwd=work)
    git("add", "-A", cwd=work)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "book", cwd=work)
    with start_lab(work, tmp_path_factory.mktemp("lab-book-state")) as base:
        yield base, work


def chapter_url(base, chapter, purpose):
    """The chapter alone in a fresh workspace: no tab of an earlier test is restored."""
    return f"{base}lab/workspaces/{purpose}-{chapter}/tree/{chapter}.ipynb?reset"


def open_chapter(open_in_lab, page, url):
    page.set_viewport_size({"width": 1300, "height": 1000})
    open_in_lab(page, url)
    # Lab and jupyterlab-myst render the cells (Markdown, outputs, pictures) asynchronously, a
    # batch at a time: wait until the rendered parts stop growing for a second (at most 20 s).
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


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_in_lab_reads_before_running_and_hides_answers_after(
    page, lab, chapter, capsys, open_in_lab, glyphs
):
    """One visit per chapter: read it as opened, save it, then Run All (the gallery is not run)."""
    base, work = lab
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
    if not chapter.startswith("99"):  # the gallery has no exercise to hide
        run_all_reveals_no_answer(page, work, chapter, glyphs)


def run_all_reveals_no_answer(page, work, chapter, glyphs):
    """Run All in the open chapter: no error, every Hangul glyph drawn, no answer shown."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.wait_for_timeout(1000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
    page.wait_for_timeout(2000)
    shot(page, f"{chapter}_run_all")
    scroll_through(page)
    checked, boxes = glyphs(page)  # the live figures now, and their outputs
    assert checked["prose"] > 0, f"{chapter} after Run All: no Hangul to check"
    assert boxes == [], f"{chapter} after Run All: Hangul no font of the book drew: {boxes[:3]}"
    errors = page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
    tracebacks = [t for t in errors.all_inner_texts() if "Traceback" in t or "Error" in t]
    assert tracebacks == [], f"{chapter}: Run All raised: {tracebacks[:1]}"
    assert visible_text(page, "✓ Correct") == [], f"{chapter}: an answer shows after Run All"
    open_solutions = page.locator("details[open]").filter(has_text="Solution")
    assert open_solutions.count() == 0, f"{chapter}: a solution unfolded after Run All"
    subprocess.run(["git", "checkout", "-q", "."], cwd=work, check=True)  # Run All saved nothing


def test_a_chapter_py_opens_as_a_notebook(page, lab):
    base, _ = lab
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
