"""A one-line text progress bar that redraws in place, for the chapters' timing cells.

In a notebook it updates one display (so the stored output is its last state,
which a static page shows as it is); elsewhere it prints a line per update.

Examples
--------
>>> bar = TextProgress(4, width=8)
>>> bar.line(1, "n = 256")
'[██░░░░░░] 1/4  n = 256'
"""

from __future__ import annotations

from attn_book.i18n import word

__all__ = ["TextProgress", "sweep_note"]


class TextProgress:
    """A text bar ``[████░░░░] 2/4  note`` for ``total`` steps.

    Parameters
    ----------
    total : int
        The number of steps planned (the loop may stop earlier).
    width : int, default 30
        Characters in the bar.
    """

    def __init__(self, total, width=30):
        self.total, self.width, self._handle = int(total), int(width), None

    def line(self, done, note=""):
        """The bar after ``done`` steps, as text."""
        filled = round(self.width * min(done, self.total) / max(self.total, 1))
        bar = "█" * filled + "░" * (self.width - filled)
        return f"[{bar}] {done}/{self.total}  {note}".rstrip()

    def show(self, done, note=""):
        """Draw the bar, in place of the previous one where the display allows."""
        text = self.line(done, note)
        try:
            from IPython.display import Pretty, display
        except ImportError:  # no IPython: print the line
            print(text)
            return
        if self._handle is None:
            self._handle = display(Pretty(text), display_id=True)
        else:
            self._handle.update(Pretty(text))


def sweep_note(sweep, n, language=None):
    """The note of a timing sweep's bar, ``sweep`` (counted from 1) at size ``n``, in
    ``language`` (default: the reader's): a ``word`` template of ``figures.po``, so a Korean
    kernel draws its bar in Korean.

    >>> sweep_note(2, 1024, "en")
    'sweep 2, n = 1,024'
    """
    return word("sweep {sweep}, n = {n}", language).format(sweep=sweep, n=f"{n:,}")
