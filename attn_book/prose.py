"""Numbers written as prose, for the chapters' inline ``{eval}`...``` roles.

A chapter's Markdown writes a number as ``{eval}`dec(weights[0])```: JupyterLab
(jupyterlab-myst) and the site both show what the expression returns. Defined once so
that every chapter writes numbers the same way: a true minus sign, whole numbers bare,
and three decimals where the Quanta write-up uses three. The formats live in
:mod:`attn_book.style`, shared with the plots.

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

from attn_book.style import dec, grouped, percent, plain, sci, vector

__all__ = ["dec", "grouped", "percent", "plain", "sci", "vector"]
