"""The static picture of a figure: its own ES module, drawn in headless Chromium, captured.

JupyterLab shows a notebook fresh from git untrusted, and draws only its "safe" outputs:
an ``image/png``, not a widget view. So each figure's output carries a PNG of its state,
made from the same code that draws the live figure: :func:`capture` loads the figure's
bundle (``_esm``) and CSS into a blank page of headless Chromium, renders it with a fake
anywidget model holding the synced state, and screenshots the drawing. Nothing here draws
a figure a second time.

Capturing needs Chromium, so it runs when a chapter is synced (tools/sync_chapters.py),
never in a reader's kernel. The PNGs are committed in ``snapshots/``, one per state, named
by :func:`snapshot_key` (the figure's class, its own synced traits, and its bundle and CSS
without the font, so a change to the figure's code is a new picture). The kernel only looks
a PNG up (:func:`stored_png`): a figure in a state nobody synced simply has none.

Examples
--------
>>> key = snapshot_key({"_anywidget_id": "m.Pad", "query": [1.0, 0.0], "layout": "IPY_MODEL_1"})
>>> key == snapshot_key({"_anywidget_id": "m.Pad", "query": [1.0, 0.0], "layout": "IPY_MODEL_2"})
True
>>> key == snapshot_key({"_anywidget_id": "m.Pad", "query": [0.0, 1.0]}), len(key)
(False, 16)
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
from pathlib import Path

__all__ = [
    "CHROMIUM",
    "SNAPSHOTS",
    "WIDTH",
    "can_capture",
    "capture",
    "snapshot_key",
    "stored_png",
]

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
CHROMIUM = os.environ.get("ATTN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [  # as tests/browser/conftest.py launches it
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--font-render-hinting=none",  # the same glyph shapes on every run
]
WIDTH = 680  # px: the book's text column, the widest a figure lays out (widgets.css)
#: ipywidgets' own synced traits: bookkeeping (a random layout model id), not the figure.
_BOOKKEEPING = frozenset(
    "_dom_classes _model_module _model_module_version _model_name _view_count _view_module "
    "_view_module_version _view_name layout tabbable tooltip _anywidget_id _esm _css".split()
)
_FONT_FACE = re.compile(r"/\*.*?\*/|@font-face\s*\{[^}]*\}", re.DOTALL)
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")


def snapshot_key(state):
    """A 16-hex-digit name for a figure's picture, from its synced ``state`` (a dict).

    The same for the kernel's ``widget.get_state()`` and the JSON state a notebook stores.
    It covers the class (``_anywidget_id``), every trait the figure itself defines (numbers
    to 10 significant digits), and the figure's bundle and CSS with the embedded font left
    out (the font subset grows when a chapter uses a new syllable, which changes no figure
    already drawn).
    """
    own = {k: _rounded(v) for k, v in state.items() if k not in _BOOKKEEPING}
    code = state.get("_esm", "") + _FONT_FACE.sub("", state.get("_css", ""))
    if _lang(state) != "en":  # the page's rule for its language draws the picture too
        code += _LANG_STYLE
    text = json.dumps(
        [state.get("_anywidget_id"), own, hashlib.sha256(code.encode()).hexdigest()],
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _rounded(value):
    """``value`` with every number as a float to 10 significant digits: ``2`` and ``2.0``
    are one state (a notebook saved as JupyterLab saves it writes ``2``), and another BLAS
    kernel's last-bit differences (numpy picks one per CPU) are none; figures show 3 decimals."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(f"{value:.10g}")
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def stored_png(key):
    """The committed snapshot named ``key``, as bytes, or None."""
    path = SNAPSHOTS / f"{key}.png"
    return path.read_bytes() if path.is_file() else None


def can_capture():
    """None if :func:`capture` can run here, else why not (a sentence)."""
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM} (Debian package `chromium`; or set ATTN_CHROMIUM)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Python playwright is not installed (the `browser` extra)"
    return None


_PAGE = """<!doctype html><html lang="{lang}"><head><meta charset="utf-8">
<style>html, body {{ margin: 0; background: #fff; }}
#host {{ width: {width}px; padding: 6px; }}
{lang_style}</style>
</head><body><div id="host"></div></body></html>"""
#: The site's rule for Korean text (site/static/attn-site.css): a line breaks only between
#: words, at spaces, never inside one ("하나/에"); a word longer than its line still wraps.
_LANG_STYLE = ":lang(ko) { word-break: keep-all; overflow-wrap: break-word; }"


def _lang(state):
    """The language a figure's state draws in: ``"ko"`` if its words (the ``words`` trait,
    empty in English) are Hangul, else ``"en"``."""
    words = state.get("words") or {}
    return "ko" if any(_HANGUL.search(str(w)) for w in words.values()) else "en"


def _page(state, width):
    """The blank page a figure is drawn in: its language on the html element, as the site's
    pages say it, and the site's rule for that language."""
    return _PAGE.format(width=width, lang=_lang(state), lang_style=_LANG_STYLE)


_RENDER = """async ([esm, css, state]) => {
  const style = document.createElement("style");
  style.textContent = css;
  document.head.appendChild(style);
  const url = URL.createObjectURL(new Blob([esm], { type: "text/javascript" }));
  const module = await import(url);
  let widget = module.default ?? module;
  if (typeof widget === "function") widget = await widget();
  const listeners = {};
  const model = {  // the part of anywidget's model a figure may use, holding the state
    get: (name) => state[name],
    set: (name, value) => {
      state[name] = value;
      for (const f of listeners[`change:${name}`] ?? []) f();
    },
    on: (event, f) => (listeners[event] ??= []).push(f),
    off: () => {},
    save_changes: () => {},
    send: () => {},
  };
  const host = document.getElementById("host");
  await widget.initialize?.({ model });
  await widget.render({ model, el: host });
  for (const face of document.fonts) await face.load();  // the Hangul font, before drawing
  await document.fonts.ready;
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return host.textContent;
}"""


def capture(states, *, width=WIDTH):
    """PNG snapshots of figures, each drawn by its own bundle in headless Chromium.

    Parameters
    ----------
    states : list of dict
        Synced widget states (``widget.get_state()`` or a notebook's stored state), each
        with the ``_esm`` and ``_css`` that draw it.
    width : int
        The width the figure lays out in, in CSS pixels.

    Returns
    -------
    list of bytes
        One PNG per state: ``width`` plus a 6 px margin (what a label drawn over the
        edge needs) by the drawing's height, 256 colours, no metadata, so the same state
        on the same machine gives the same bytes.

    Raises
    ------
    RuntimeError
        If :func:`can_capture` says no, if a figure logs an error while it draws, or if a
        Hangul character of it was not drawn by the figure's web font (it would be a box).
    """
    if (reason := can_capture()) is not None:
        raise RuntimeError(f"cannot capture figure snapshots: {reason}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": width + 40, "height": 600})
            context.route("**/*", lambda route: route.abort())  # offline: nothing is fetched
            return [_capture_one(context, state, width) for state in states]
        finally:
            browser.close()


def _capture_one(context, state, width):
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.set_content(_page(state, width))
        text = page.evaluate(_RENDER, [state["_esm"], state["_css"], state])
        if errors:
            raise RuntimeError(f"{state.get('_anywidget_id')} failed to draw: {errors}")
        _check_hangul(page, text, state)
        png = page.locator("#host").screenshot(animations="disabled", caret="hide")
    finally:
        page.close()
    return _small_png(png)


def _check_hangul(page, text, state):
    """Raise unless every Hangul character of the figure is drawn by its web font.

    Two ways to fail: a character the font subset lacks (Chromium then draws the font's
    empty glyph: no box, but nothing), and text that does not use the font at all
    (Chromium's DevTools protocol says which fonts drew each text node: a box).
    """
    name = state.get("_anywidget_id")
    covered = re.search(r"covers: (\S*) \*/", state["_css"])
    lacking = sorted(set(_HANGUL.findall(text)) - set(covered.group(1) if covered else ""))
    if lacking:
        raise RuntimeError(
            f"{name}: Hangul drawn without the figures' font (the subset lacks "
            f"{''.join(lacking)}); rebuild it: python tools/build_font.py"
        )
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
        boxes = []
        for node in _text_nodes(root):
            hangul = len(_HANGUL.findall(node["nodeValue"]))
            if hangul:
                fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})
                drawn = sum(f["glyphCount"] for f in fonts["fonts"] if f["isCustomFont"])
                if fonts["fonts"] and drawn < hangul:
                    boxes.append(node["nodeValue"].strip())
    finally:
        cdp.detach()
    if boxes:
        raise RuntimeError(
            f"{name}: Hangul drawn without the figures' font (boxes) in {boxes}: "
            "does widgets.css still name the font of hangul_font.css?"
        )


def _text_nodes(node):
    if node.get("nodeType") == 3:
        yield node
    for child in node.get("children", []):
        yield from _text_nodes(child)


def _small_png(png):
    """``png`` as a 256-colour PNG without metadata: a third of the size, the same to see."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        quantized = image.convert("RGB").quantize(256, dither=Image.Dither.NONE)
    out = io.BytesIO()
    quantized.save(out, format="png", optimize=True)
    return out.getvalue()
