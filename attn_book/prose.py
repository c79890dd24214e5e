"""Numbers written as prose, for the chapters' inline ``{eval}`...``` roles.

A chapter's Markdown writes a number as ``{eval}`dec(weights[0])```: JupyterLab
(jupyterlab-myst) and the site both show what the expression returns. Defined once so
that every chapter writes numbers the same way: a true minus sign, whole numbers bare,
and three decimals where the Quanta write-up uses three.

Examples
--------
>>> plain([1, 0.5, -1])
'1, 0.5, −1'
>>> dec([0.4011, 0.1978])
'0.401, 0.198'
>>> dec(2.5, 1)
'2.5'
>>> vector([1.0, 0.70710678])
'(1, 0.707)'
>>> sci(0.000123)
'1 × 10⁻⁴'
"""

from __future__ import annotations

import numpy as np

__all__ = ["dec", "grouped", "percent", "plain", "sci", "vector"]

MINUS = "\N{MINUS SIGN}"


def _number(x, spec):
    return format(float(x), spec).replace("-", MINUS)


def plain(values, sep=", "):
    """Numbers in their shortest form (``:g``): ``1, 0.5, −1``."""
    return sep.join(_number(x, "g") for x in np.ravel(values))


def dec(values, digits=3, sep=", "):
    """Numbers to ``digits`` decimals: ``0.422, 0.155, 0.422``."""
    return sep.join(_number(x, f".{digits}f") for x in np.ravel(values))


def vector(v):
    """A vector as ``(1, 0.707)``: whole numbers bare, the others to three decimals."""
    parts = [
        _number(x, "g") if float(x).is_integer() else _number(x, ".3f")
        for x in np.ravel(np.asarray(v, dtype=float))
    ]
    return "(" + ", ".join(parts) + ")"


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def sci(values, digits=0, sep=", "):
    """Numbers in scientific notation, ``digits`` decimals in the mantissa: ``3 × 10⁻⁷``.

    Examples
    --------
    >>> sci(-2.5e-11, 1)
    '−2.5 × 10⁻¹¹'
    >>> sci([4.2e3, 2.1e-6])
    '4 × 10³, 2 × 10⁻⁶'
    """
    return sep.join(_sci(x, digits) for x in np.ravel(values))


def _sci(x, digits):
    mantissa, exponent = format(float(x), f".{digits}e").split("e")
    return f"{mantissa.replace('-', MINUS)} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def percent(values, digits=1, sep=", "):
    """Fractions as percentages: ``0.0123`` -> ``1.2%``.

    >>> percent(0.0123)
    '1.2%'
    """
    return sep.join(_number(x, f".{digits}%") for x in np.ravel(values))


def grouped(values, sep=", "):
    """Whole numbers with thousands separators: ``20000`` -> ``20,000``.

    >>> grouped(162754.8)
    '162,755'
    """
    return sep.join(_number(x, ",.0f") for x in np.ravel(values))
