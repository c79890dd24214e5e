"""Small tables of numbers: Markdown for nbval and plain readers, HTML for Jupyter.

A table's words (its headings and its row labels) are drawn in the drawing language
(:func:`attn_book.i18n.word`): a kernel started in ``book/ko`` prints Korean headings over
the same numbers. Its output records the English cells in its metadata (``attn_table``) and
the words among them (``attn_words``), so ``tools/i18n.py`` re-renders the Korean notebook's
copy with :func:`translate_output`, without running the chapter.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from .i18n import drawing, is_word, word
from .prose import dec

__all__ = ["StepTable", "step_table", "translate_output"]

#: The mime types a table displays as, each re-rendered by :func:`translate_output`.
MIME_TYPES = ("text/plain", "text/html", "text/markdown")


class StepTable(NamedTuple):
    """A small table of strings that displays as Markdown, HTML or plain text.

    Jupyter picks the HTML; a static site whose Markdown renderer has no tables
    (CommonMark) still gets a real table; ``repr`` (and so nbval) sees the Markdown.
    ``header`` and ``rows`` hold the English; every heading and cell with words (a row's
    label, a description) is translated when the table is rendered, the numbers never.
    """

    header: tuple
    rows: tuple
    labelled: bool = False

    def drawn(self):
        """``(header, rows)`` as the drawing language shows them: every heading and cell
        through :func:`~attn_book.i18n.word` (a number or a symbol is drawn as it is)."""
        return tuple(_word(h) for h in self.header), tuple(tuple(map(_word, r)) for r in self.rows)

    def words(self):
        """The English headings and cells with words (:func:`~attn_book.i18n.is_word`), once
        each, in order."""
        cells = list(self.header) + [cell for row in self.rows for cell in row]
        return list(dict.fromkeys(str(c) for c in cells if is_word(c)))

    def record(self):
        """The output metadata a table displays with: ``attn_table`` (``header``: the English
        headings, ``rows``: the English cells, ``labelled``: whether each row's first cell is a
        label) and ``attn_words`` (:meth:`words`)."""
        table = {
            "header": [str(h) for h in self.header],
            "rows": [[str(c) for c in row] for row in self.rows],
            "labelled": bool(self.labelled),
        }
        return {"attn_table": table, "attn_words": self.words()}

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = {
            "text/plain": self.__repr__(),
            "text/html": self._repr_html_(),
            "text/markdown": self._repr_markdown_(),
        }
        return data, self.record()

    def text_columns(self):
        """Whether each column holds text (left-aligned) rather than numbers (right-aligned):
        the first column of a labelled table, and every column most of whose non-empty English
        cells have words (:func:`~attn_book.i18n.is_word`, a description, ``True``)."""
        columns = list(zip(*self.rows, strict=True)) if self.rows else [()] * len(self.header)
        text = []
        for j, column in enumerate(columns):
            filled = [c for c in column if str(c) != ""]
            worded = sum(is_word(c) for c in filled)
            text.append((j == 0 and self.labelled) or (bool(filled) and 2 * worded > len(filled)))
        return text

    def _repr_markdown_(self):
        header, rows = self.drawn()
        # labels and text left, numbers right; the first column of an unlabelled table left
        text = self.text_columns()
        rule = "|" + "".join("---|" if t or j == 0 else "---:|" for j, t in enumerate(text))
        lines = [_md_row(header), rule, *(_md_row(row) for row in rows)]
        return "\n".join(lines)

    def _repr_html_(self):
        header, rows = self.drawn()
        text = self.text_columns()
        head = "".join(
            _html_cell("th", h, "left" if text[j] and j else "center") for j, h in enumerate(header)
        )
        body = "".join(
            "<tr>"
            + "".join(
                _html_cell("td", c, "left" if text[j] or not j else "right")
                for j, c in enumerate(row)
            )
            + "</tr>"
            for row in rows
        )
        return (
            f'<table class="step-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
        )

    def __repr__(self):
        return self._repr_markdown_()


def _word(text):
    return word(text) if is_word(text) else text


def from_record(record):
    """The :class:`StepTable` an output's ``attn_table`` metadata records."""
    return StepTable(
        tuple(record["header"]),
        tuple(tuple(row) for row in record["rows"]),
        bool(record.get("labelled", False)),
    )


def translate_output(output, language):
    """A table's output (a notebook's, with ``attn_table`` metadata) drawn in ``language``, in
    place: every mime type it displays as is re-rendered from the recorded English cells with
    the words in ``language``; the numbers are the recorded ones, the metadata stays.

    >>> out = {"data": {}, "metadata": step_table({"x": [1]}, index=["sum"]).record()}
    >>> translate_output(out, "en")["data"]["text/markdown"]
    '|  | x |\\n|---|---:|\\n| sum | 1.000 |'
    """
    table = from_record(output["metadata"]["attn_table"])
    with drawing(language):
        data, _ = table._repr_mimebundle_()
    shown = output.setdefault("data", {})
    for mime in [m for m in MIME_TYPES if m in shown] or MIME_TYPES:
        shown[mime] = data[mime]
    return output


def step_table(columns, *, index=None, index_label="", footer=None, digits=3):
    """A table of numbers rounded to ``digits`` decimals, one column per entry of ``columns``.

    Parameters
    ----------
    columns : dict of str to array_like
        Column header -> values (1-D, all of length N). Strings pass unchanged.
    index : sequence of str, optional
        Row labels, shown in a first column.
    index_label : str, default ""
        The first column's heading (translated as every heading is); empty by default.
    footer : tuple of (str, dict of str to number), optional
        A last row: its label and the cells it fills (e.g. ``("sum", {"e^s": 5.056})``);
        the other columns stay empty.
    digits : int, default 3
        Decimals shown for numbers.

    Returns
    -------
    StepTable

    Examples
    --------
    >>> step_table({"score": [1, 0]}, index=["k1", "k2"], footer=("sum", {"score": 1}))
    |  | score |
    |---|---:|
    | k1 | 1.000 |
    | k2 | 0.000 |
    | sum | 1.000 |
    """
    digits = _check_digits(digits)
    if not isinstance(columns, dict) or not all(isinstance(c, str) for c in columns):
        raise TypeError(f"columns must be a dict of column name (str) to values, got {columns!r}")
    cols = {name: list(np.ravel(np.asarray(v, dtype=object))) for name, v in columns.items()}
    n = len(index) if index is not None else len(next(iter(cols.values()), []))
    if any(len(vals) != n for vals in cols.values()):
        lengths = {name: len(vals) for name, vals in cols.items()}
        raise ValueError(f"columns must all have {n} rows, got lengths {lengths}")
    labelled = index is not None or footer is not None
    labels = [str(label) for label in index] if index is not None else [""] * n
    rows = [
        [labels[i]] * labelled + [_cell(cols[c][i], digits, f"{c}[{i}]") for c in cols]
        for i in range(n)
    ]
    if footer is not None:
        label, cells = _check_footer(footer)
        if set(cells) - set(cols):
            raise ValueError(f"footer names unknown columns: {sorted(set(cells) - set(cols))}")
        rows.append(
            [str(label)]
            + [_cell(cells[c], digits, f"footer[{c!r}]") if c in cells else "" for c in cols]
        )
    if not isinstance(index_label, str):
        raise TypeError(f"index_label must be a str, got {index_label!r}")
    header = [index_label] * labelled + list(cols)
    return StepTable(tuple(header), tuple(tuple(row) for row in rows), labelled)


def _check_digits(digits):
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or digits < 0:
        raise ValueError(f"digits must be an integer >= 0, got {digits!r}")
    return int(digits)


def _check_footer(footer):
    if not (isinstance(footer, tuple) and len(footer) == 2 and isinstance(footer[1], dict)):
        raise TypeError(f"footer must be a (label, {{column: value}}) pair, got {footer!r}")
    return footer


def _cell(value, digits, where):
    """A cell's text: a string as it is, a number with ``digits`` decimals; else an error."""
    if isinstance(value, str):
        return value
    try:
        return dec(float(value), digits)
    except (TypeError, ValueError):
        raise TypeError(
            f"cell {where} must be a number or a string, got {value!r} ({type(value).__name__})"
        ) from None


def _md_row(cells):
    """One Markdown row; a ``|`` inside a cell is escaped so that it cannot split the row."""
    return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"


#: The markup a cell may hold (``d<sub>c</sub>``, ``d<sub>h</sub><sup>R</sup>``): a subscript
#: Unicode has no letter for, kept as HTML; everything else is escaped.
_MARKUP = re.compile(r"&lt;(/?)(sub|sup)&gt;")


def _html_cell(tag, text, align):
    escaped = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = _MARKUP.sub(r"<\1\2>", escaped)
    return f'<{tag} style="padding:0.15em 0.9em;text-align:{align}">{escaped}</{tag}>'
