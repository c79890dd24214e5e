"""What every figure shares: the bundled ES module, the CSS, a deterministic repr, a snapshot."""

from __future__ import annotations

import base64
import json
from importlib.resources import files

import anywidget
import traitlets

from .. import i18n
from .snapshot import snapshot_key, stored_png

__all__ = ["SNAPSHOT_METADATA", "Figure", "bundle", "css", "figure_words"]

_HERE = files(__package__)
_CSS = ("hangul_font.css", "widgets.css")
SNAPSHOT_METADATA = "attn_book/snapshot"  # output metadata: the key of the PNG shown


def _read(name):
    return _HERE.joinpath(name).read_text(encoding="utf-8")


def bundle(figure_js):
    """The figure's self-contained ES module: ``src/<figure_js>`` and all it imports.

    A static page has no server to import relative modules from, so
    ``build.mjs`` (esbuild) joins each figure's modules into one committed file
    beside this one; tests/test_widget_js.py checks that it is fresh.
    """
    return _read(figure_js)


def css():
    """The CSS shared by all figures (scoped under ``.abh-fig``), the Hangul font first."""
    return "\n".join(_read(name) for name in _CSS)


def figure_words(esm, language=None):
    """The words of the figure whose bundle is ``esm`` in ``language`` (default: the drawing
    language): ``{English: translation}`` of the ``figures`` catalog's entries the bundle quotes
    (esbuild writes each ``t("...")`` msgid as one double-quoted literal), not the whole
    catalog, so a stored state carries only its own figure's words."""
    return {
        english: text
        for english, text in i18n.words(language).items()
        if json.dumps(english, ensure_ascii=False) in esm
    }


class Figure(anywidget.AnyWidget):
    """Base class: a repr with no object address or random id, so nbval can compare it.

    ``words`` is the figure's words in the drawing language (``{English: translation}``,
    :func:`figure_words`; empty in English): its JavaScript draws and announces every
    word through ``translator(model)`` (src/dom.js), so a Korean kernel's figure, a Korean
    page's stored state and its snapshot speak Korean.
    """

    _repr_traits: tuple[str, ...] = ()
    words = traitlets.Dict().tag(sync=True)

    @traitlets.default("words")
    def _words(self):
        return figure_words(self._esm)

    def __repr__(self):
        args = ", ".join(f"{n}={_short(getattr(self, n))}" for n in self._repr_traits)
        return f"{type(self).__name__}({args})"

    def _repr_mimebundle_(self, **kwargs):
        """The live view, plus the stored PNG of this state for readers with no live view.

        JupyterLab shows a notebook fresh from git untrusted, and an untrusted output is
        drawn with a "safe" renderer only: the PNG, not the widget. Once the cell runs, the
        widget view (ranked first) takes over; the static site shows the widget too. The
        PNG is the figure's own drawing, captured when a chapter is synced (snapshot.py);
        its key goes in the output's metadata, so the sync tool finds which it needs.
        """
        shown = super()._repr_mimebundle_(**kwargs)  # (data, metadata), or None
        if shown is None:
            return None
        data, metadata = shown
        key = snapshot_key(self.get_state())
        metadata = {**metadata, SNAPSHOT_METADATA: key}
        if (png := stored_png(key)) is not None:
            data = {**data, "image/png": base64.b64encode(png).decode("ascii")}
        return data, metadata


def _short(value):
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list | tuple):
        return "(" + ", ".join(_short(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)
