"""Numbered, captioned figures that read the same in JupyterLab and on the site.

A figure is an ordinary output (a matplotlib figure, or an interactive figure with a
static snapshot) followed by its caption as a Markdown output, "**Figure 4.1.** ...".
Both JupyterLab and the site show outputs, so the caption and its number appear in both,
with no glue and no cell metadata; the prose refers to a figure with
``{eval}`figures.ref("fig-convex")```, which reads "Figure 4.1".

Examples
--------
>>> figures = Figures(chapter=4)
>>> figures.number("fig-convex")
'4.1'
>>> figures.ref("fig-convex"), figures.ref("fig-unscaled")
('Figure 4.1', 'Figure 4.2')
"""

from __future__ import annotations

import json
import re
from pathlib import Path

__all__ = ["Figures", "stored_ref"]


class Figures:
    """The figures of one chapter, numbered in the order they are first named.

    Parameters
    ----------
    chapter : int
        The chapter's number, the first part of every figure number.
    """

    def __init__(self, chapter):
        self.chapter = chapter
        self._names = []

    def number(self, name):
        """``"4.1"`` for the chapter's first figure name, ``"4.2"`` for the next, ..."""
        if name not in self._names:
            self._names.append(name)
        return f"{self.chapter}.{self._names.index(name) + 1}"

    def ref(self, name):
        """How the prose names a figure: ``"Figure 4.1"``."""
        return f"Figure {self.number(name)}"

    def show(self, figure, name, caption):
        """Display ``figure`` with its numbered ``caption`` (Markdown, maths allowed) below it.

        A matplotlib figure is closed after it is shown, so it is not drawn twice.
        """
        from IPython.display import Markdown, display

        display(figure)
        display(Markdown(f"**Figure {self.number(name)}.** {caption}"))
        if type(figure).__module__.startswith("matplotlib"):
            import matplotlib.pyplot as plt

            plt.close(figure)


_CAPTION = re.compile(r"^\*\*Figure (\d+\.\d+)\.\*\*")


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
                return f"Figure {found[1]}"
    raise ValueError(f"name={name!r}: no stored caption of that figure in {path}")
