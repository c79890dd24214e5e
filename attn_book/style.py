"""The book's look, defined once: how numbers are written, the colours, the Hangul font.

Used by the prose (:mod:`attn_book.prose` re-exports the number formats for ``{eval}``),
the captions and the static plots (:mod:`attn_book.plots`); the interactive figures'
JavaScript carries the same palette (``attn_math.js``, held equal by
tests/test_widget_js.py) and the same font (``widgets/hangul_font.css``).

Examples
--------
>>> plain([1, 0.5, -1])
'1, 0.5, −1'
>>> dec([0.4011, 0.1978]), dec(-0.0001)
('0.401, 0.198', '0.000')
>>> vector([1.0, 0.70710678])
'(1, 0.707)'
>>> number(2.0), number(-0.4011)
('2', '−0.401')
"""

from __future__ import annotations

import functools
import re

import numpy as np

__all__ = [
    "MASKED",
    "MINUS",
    "OKABE_ITO",
    "SCALED",
    "UNSCALED",
    "dec",
    "grouped",
    "hangul_font",
    "hangul_rc",
    "number",
    "percent",
    "plain",
    "sci",
    "vector",
]

MINUS = "\N{MINUS SIGN}"
#: Okabe–Ito (colour-blind safe), for keys and values; black is kept for the query.
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#F0E442")
MASKED = "#e8e8e8"  # a masked (hidden) heatmap cell, as the figures draw it
#: Chapter 3's two cases in every figure, static and interactive (scaling_explorer.js):
#: the unscaled score q·k in Okabe–Ito vermillion, the scaled q·k/√dₖ in its blue.
UNSCALED, SCALED = OKABE_ITO[5], OKABE_ITO[4]


def _format(x, spec):
    """``x`` formatted by ``spec``, with a true minus sign and never "−0"."""
    text = format(float(x), spec)
    if text.startswith("-") and not text.strip("-0.,%e+"):
        text = text[1:]  # -0.0001 to 3 decimals is 0.000, not −0.000
    return text.replace("-", MINUS)


def plain(values, sep=", "):
    """Numbers in their shortest form (``:g``): ``1, 0.5, −1``."""
    return sep.join(_format(x, "g") for x in np.ravel(values))


def dec(values, digits=3, sep=", "):
    """Numbers to ``digits`` decimals, as the book writes weights: ``0.422, 0.155, 0.422``."""
    return sep.join(_format(x, f".{digits}f") for x in np.ravel(values))


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def sci(values, digits=0, sep=", "):
    """Numbers in scientific notation, ``digits`` decimals in the mantissa: ``3 × 10⁻⁷``.

    >>> sci(-2.5e-11, 1), sci([4.2e3, 2.1e-6]), sci(0.0)
    ('−2.5 × 10⁻¹¹', '4 × 10³, 2 × 10⁻⁶', '0')
    """
    return sep.join(_sci(x, digits) for x in np.ravel(values))


def _sci(x, digits):
    if x == 0:  # exactly zero: no power of ten to show
        return "0"
    mantissa, exponent = format(float(x), f".{digits}e").split("e")
    return f"{mantissa.replace('-', MINUS)} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def percent(values, digits=1, sep=", "):
    """Fractions as percentages: ``0.0123`` -> ``1.2%``.

    >>> percent(0.0123)
    '1.2%'
    """
    return sep.join(_format(x, f".{digits}%") for x in np.ravel(values))


def grouped(values, sep=", "):
    """Whole numbers with thousands separators: ``20000`` -> ``20,000``.

    >>> grouped(162754.8)
    '162,755'
    """
    return sep.join(_format(x, ",.0f") for x in np.ravel(values))


def number(x):
    """One number: a whole number bare (``2``), any other to three decimals (``0.707``)."""
    return _format(x, "g") if float(x).is_integer() else _format(x, ".3f")


def vector(v):
    """A vector as ``(1, 0.707)``: each entry written by :func:`number`."""
    return "(" + ", ".join(number(x) for x in np.ravel(np.asarray(v, dtype=float))) + ")"


# ---------------------------------------------------------------- the Hangul font

#: Fonts with Hangul that a machine may have; else the book's own subset is used.
HANGUL_FONTS = ("NanumGothic", "Noto Sans CJK KR", "Noto Sans KR", "UnDotum", "Baekmuk Gulim")


@functools.lru_cache(maxsize=1)
def hangul_font():
    """The family name of a font with Hangul that matplotlib can use, or None.

    The first of :data:`HANGUL_FONTS` that matplotlib knows, else the book's own Noto
    Sans KR subset (``widgets/hangul_font.css``, every Hangul the figures and plots
    show), written out as TrueType with fontTools: matplotlib's FreeType reads no WOFF.
    """
    from matplotlib import font_manager

    known = {f.name for f in font_manager.fontManager.ttflist}
    for name in HANGUL_FONTS:
        if name in known:
            return name
    path = _shipped_font_as_ttf()
    if path is None:
        return None
    font_manager.fontManager.addfont(str(path))
    return font_manager.FontProperties(fname=str(path)).get_name()


def hangul_rc():
    """matplotlib rc settings for text with Korean: DejaVu Sans, then the Hangul font."""
    return {"font.family": ["DejaVu Sans"] + ([hangul_font()] if hangul_font() else [])}


def _shipped_font_as_ttf():
    """``hangul_font.css``'s font as a .ttf in the temporary folder, or None without one."""
    import base64
    import hashlib
    import io
    import tempfile
    from pathlib import Path

    css = (Path(__file__).parent / "widgets" / "hangul_font.css").read_text(encoding="utf-8")
    found = re.search(r"base64,([A-Za-z0-9+/=]+)", css)
    if found is None:
        return None
    woff = base64.b64decode(found.group(1))
    path = Path(tempfile.gettempdir()) / f"attn-book-hangul-{hashlib.sha1(woff).hexdigest()}.ttf"
    if not path.is_file():
        from fontTools.ttLib import TTFont  # a dependency of matplotlib

        font = TTFont(io.BytesIO(woff))
        font.flavor = None  # WOFF -> plain TrueType, which FreeType reads
        font.save(str(path))
    return path
