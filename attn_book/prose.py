"""Numbers written as prose, for the chapters' inline ``{eval}`...``` roles.

A chapter's Markdown writes a number as ``{eval}`dec(weights[0])```: JupyterLab
(jupyterlab-myst) and the site both show what the expression returns. Defined once so
that every chapter writes numbers the same way: a true minus sign, whole numbers bare,
and three decimals where the seed article uses three.

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
    """Numbers to ``digits`` decimals, as the Quanta write-up has them: ``0.422, 0.155, 0.422``."""
    return sep.join(_number(x, f".{digits}f") for x in np.ravel(values))


def sci(values, digits=0, sep=", "):
    """Numbers in scientific notation with ``digits`` decimals: ``2e−06``.

    >>> sci(0.0000021)
    '2e−06'
    """
    return sep.join(_number(x, f".{digits}e") for x in np.ravel(values))


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


def vector(v):
    """A vector as ``(1, 0.707)``: whole numbers bare, the others to three decimals."""
    parts = [
        _number(x, "g") if float(x).is_integer() else _number(x, ".3f")
        for x in np.ravel(np.asarray(v, dtype=float))
    ]
    return "(" + ", ".join(parts) + ")"


# Until every chapter reads its numbers with {eval}: the glue-era helpers.
three_decimals = dec


def glue_hidden(name, value):
    """Glue ``value`` under ``name`` for ``{glue:text}`` in the prose, without showing it."""
    from myst_nb import glue

    glue(name, value, display=False)


def glue_each(prefix, values):
    """Glue each entry of ``values`` as ``{prefix}1``, ``{prefix}2``, ... (plain floats)."""
    for j, value in enumerate(np.ravel(values), start=1):
        glue_hidden(f"{prefix}{j}", float(value))
