"""The book's generated font CSS, read back for the tests (test_widget_js, test_lab_font)."""

import base64
import io
import re
import unicodedata

import pytest


def hangul_in(text):
    """Hangul syllables and jamo, found by their Unicode names (not by build_font's regex)."""
    return {c for c in text if unicodedata.name(c, "").startswith("HANGUL")}


def css_font(path):
    """(family, fontTools TTFont) of the first ``@font-face`` with a base64 source in ``path``."""
    TTFont = pytest.importorskip("fontTools.ttLib").TTFont  # comes with matplotlib
    css = path.read_text(encoding="utf-8")
    rule = re.search(r'font-family: "([^"]+)";.*base64,([A-Za-z0-9+/=]+)"', css, re.S)
    family, data = rule.groups()
    return family, TTFont(io.BytesIO(base64.b64decode(data)))
