"""Numbered, captioned figures that read the same in JupyterLab and on the site.

A figure is an ordinary output (a matplotlib figure, or an interactive figure with a
static snapshot) followed by its caption as a Markdown output, "**Figure 4.1.** ...".
Both JupyterLab and the site show outputs, so the caption and its number appear in both,
with no glue and no cell metadata; the prose refers to a figure with
``{eval}`figures.ref("fig-convex")```, which reads "Figure 4.1".

A caption is a ``str.format`` template whose computed parts are named values,
``figures.show(fig, "fig-x", "Weights for {scores}.", scores=plain(scores))``, so that a
translation is a second template with the same names: a kernel started in ``book/ko`` (see
:func:`attn_book.exercises.catalog.language`) shows chapter N's figures with the captions of
its page's catalog (``attn_book/locale/ko/LC_MESSAGES/NN_name.po``, ``msgctxt "figure fig-x"``,
:mod:`attn_book.i18n`) and calls them 그림 N.M. The caption's output records its name, English
template and values in its metadata, from which ``tools/i18n.py`` writes the Korean notebook's
caption without running the code.

A matplotlib figure drawn by :mod:`attn_book.plots` speaks the drawing language too. Shown
by an English kernel, it is drawn again in every other language (``_attn_redraw`` under
:func:`attn_book.i18n.drawing`) and that copy's PNG is stored in the image output's metadata,
``{"attn_translations": {"ko": "<base64 PNG>"}, "attn_words": [English words drawn]}``;
``tools/i18n.py`` swaps it in for the Korean notebook (:func:`translate_png`). A Korean
kernel draws in Korean directly and records no copy.

Examples
--------
>>> figures = Figures(chapter=4)
>>> figures.number("fig-convex")
'4.1'
>>> figures.ref("fig-convex"), figures.ref("fig-unscaled")
('Figure 4.1', 'Figure 4.2')
"""

from __future__ import annotations

import base64
import json
import re
from io import BytesIO
from pathlib import Path

from attn_book.i18n import LANGUAGES, LOCALE, drawing, drawing_language, gettext

__all__ = ["Figures", "figure_metadata", "stored_ref", "translate_png", "translated_caption"]

#: How each language names a figure.
WORD = {"en": "Figure", "ko": "그림"}


def translated_caption(template, name, chapter, language):
    """Figure ``name``'s caption template in ``language``: its chapter's catalog's translation,
    else the English ``template``."""
    pages = sorted((LOCALE / language / "LC_MESSAGES").glob(f"{chapter:02d}_*.po"))
    return gettext(template, pages[0].stem, language, f"figure {name}") if pages else template


def caption_text(language, number, template, values):
    """The caption's Markdown: ``**Figure 4.1.** `` and the template filled with ``values``."""
    filled = template.format(**values) if values else template
    return f"**{WORD[language]} {number}.** {filled}"


class Figures:
    """The figures of one chapter, numbered in the order they are first named.

    Parameters
    ----------
    chapter : int
        The chapter's number, the first part of every figure number.
    language : str, optional
        ``"en"`` or ``"ko"``; by default the kernel's (see
        :func:`attn_book.exercises.catalog.language`).
    """

    def __init__(self, chapter, language=None):
        from attn_book.exercises.catalog import LANGUAGE

        self.chapter = chapter
        self.language = language or LANGUAGE
        self._names = []

    def number(self, name):
        """``"4.1"`` for the chapter's first figure name, ``"4.2"`` for the next, ..."""
        if name not in self._names:
            self._names.append(name)
        return f"{self.chapter}.{self._names.index(name) + 1}"

    def ref(self, name):
        """How the prose names a figure: ``"Figure 4.1"`` (``"그림 4.1"`` in Korean)."""
        return f"{WORD[self.language]} {self.number(name)}"

    def show(self, figure, name, caption, **values):
        """Display ``figure`` with its numbered ``caption`` (Markdown, maths allowed) below it.

        ``caption`` is a ``str.format`` template when ``values`` are given (its computed
        parts, each formatted as the text shows it); in another language the template is the
        translated page's, filled with the same values. A matplotlib figure is closed after it
        is shown, so it is not drawn twice.
        """
        from IPython.display import Markdown, display

        values = {k: v if isinstance(v, str) else format(v) for k, v in values.items()}
        template = translated_caption(caption, name, self.chapter, self.language)
        record = {"name": name, "caption": caption, "values": values}
        display(figure, metadata=figure_metadata(figure) or None)
        display(
            Markdown(caption_text(self.language, self.number(name), template, values)),
            metadata={"attn_figure": record},
        )
        if type(figure).__module__.startswith("matplotlib"):
            import matplotlib.pyplot as plt

            plt.close(figure)


def png(figure):
    """``figure`` as the notebook stores it: a base64 PNG, rendered by the kernel's own
    ``image/png`` formatter (the inline backend's, with its dpi and ``bbox_inches``) when
    there is one, else as matplotlib_inline renders it by default."""
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:
        shell = None
    data = None
    if shell is not None:
        data = shell.display_formatter.format(figure, include={"image/png"})[0].get("image/png")
    if data is None:
        out = BytesIO()
        style = {"facecolor": figure.get_facecolor(), "edgecolor": figure.get_edgecolor()}
        figure.savefig(out, format="png", bbox_inches="tight", dpi=figure.dpi, **style)
        data = out.getvalue()
    return base64.b64encode(data).decode("ascii") if isinstance(data, bytes) else data


def figure_metadata(figure):
    """The image output's metadata of a figure drawn by :mod:`attn_book.plots`: the English
    words it drew (``attn_words``) and, drawn by an English kernel, its copy in every other
    language (``attn_translations``: ``{language: base64 PNG}``); ``{}`` for another figure."""
    redraw = getattr(figure, "_attn_redraw", None)
    if redraw is None:
        return {}
    import matplotlib.pyplot as plt

    metadata = {}
    if figure._attn_words:
        metadata["attn_words"] = list(figure._attn_words)
    if drawing_language() == "en":
        translations = {}
        for language in LANGUAGES:
            if language != "en":
                with drawing(language):
                    copy = redraw()
                try:
                    translations[language] = png(copy)
                finally:
                    plt.close(copy)
        metadata["attn_translations"] = translations
    return metadata


def translate_png(output, language):
    """A figure's image output (a notebook's, with ``attn_translations`` metadata) in
    ``language``, in place: its PNG becomes the copy drawn in ``language`` (if recorded), and
    the copies are dropped, as a kernel in that language records none."""
    translations = output.get("metadata", {}).pop("attn_translations", {})
    if language in translations:
        output["data"]["image/png"] = translations[language]
    return output


_CAPTION = re.compile(r"^\*\*(?:Figure|그림) (\d+\.\d+)\.\*\*")


def stored_ref(notebook, name):
    """How another page names a chapter's figure, ``"Figure 1.3"``, as its notebook stores it.

    The number is read from the caption that :meth:`Figures.show` wrote below the cell
    that shows ``name``, in the committed notebook ``notebook`` (``"01_dot_product"``,
    found from the working directory, the book's folder): the figure gallery links each
    figure to the chapter where it appears, under the chapter's own number.
    """
    path = Path(notebook).with_suffix(".ipynb")
    if not path.is_file():
        raise FileNotFoundError(f"notebook={notebook!r}: no {path} in {Path.cwd()}")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] != "code" or f'"{name}"' not in "".join(cell["source"]):
            continue
        for output in cell.get("outputs", []):
            found = _CAPTION.match("".join(output.get("data", {}).get("text/markdown", "")))
            if found:
                from attn_book.exercises.catalog import LANGUAGE

                return f"{WORD[LANGUAGE]} {found[1]}"
    raise ValueError(f"name={name!r}: no stored caption of that figure in {path}")
