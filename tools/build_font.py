"""Build the book's Hangul web fonts, as base64 ``@font-face`` rules in CSS.

Usage: python tools/build_font.py [--check] (``make widgets``; ``make lint`` runs ``--check``)

Two files, two subsets of Noto Sans KR:

- ``attn_book/widgets/hangul_font.css``: the Hangul the figures can show, small, since it
  travels with every figure (in JupyterLab and on the site);
- ``attn_book/lab_custom/custom.css``: every Hangul character of the book (prose, code,
  glossary), added behind JupyterLab's own fonts for prose, code and interface, so that a
  machine without a Korean font shows 쿼리 and 키 in JupyterLab as the site does (the site
  serves every Noto Sans KR slice). ``make lab`` points JupyterLab's ``custom.css`` at it.

The figures' CSS is all a figure controls in JupyterLab, and a static page must work
offline, so the font travels inside the CSS as a ``data:`` URL. The source is Noto Sans KR
(SIL Open Font License 1.1, which allows subsetting and redistribution) from the npm
package ``@fontsource/noto-sans-kr``, installed by ``npm ci`` from ``package-lock.json``.
The subset holds every Hangul syllable a figure can draw (:func:`used_hangul`); the
matplotlib plots use it too (``attn_book.style.hangul_font``). ``--check`` exits 1 when the
committed CSS does not hold exactly that subset. fontTools comes with matplotlib.
"""

from __future__ import annotations

import base64
import io
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WIDGETS = ROOT / "attn_book" / "widgets"
PACKAGE = ROOT / "node_modules" / "@fontsource" / "noto-sans-kr"
SOURCE = PACKAGE / "files" / "noto-sans-kr-korean-400-normal.woff"
OUT = WIDGETS / "hangul_font.css"
FAMILY = "ABH Hangul"
LAB_OUT = ROOT / "attn_book" / "lab_custom" / "custom.css"
LAB_FAMILY = "ABH Hangul Text"
#: JupyterLab 4.5's font lists (its light and dark themes), our family inserted before the
#: generic one; tests/test_lab_font.py holds them equal to the installed Lab's.
LAB_SANS = (
    "system-ui, -apple-system, blinkmacsystemfont, 'Segoe UI', helvetica, arial, {family}, "
    "sans-serif, 'Apple Color Emoji', 'Segoe UI Emoji', 'Segoe UI Symbol'"
)
LAB_FONT_VARIABLES = {
    "--jp-ui-font-family": LAB_SANS,
    "--jp-content-font-family": LAB_SANS,
    "--jp-code-font-family-default": "menlo, consolas, 'DejaVu Sans Mono', {family}, monospace",
}
HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")  # syllables and jamo


def used_hangul():
    """Every Hangul character a figure can draw, sorted.

    The interactive figures' sources (attn_book/widgets/src/*.js), the example sentences
    (attn_book/data.py), the matplotlib plots' labels (attn_book/plots.py), every translation
    of the figures' words (attn_book/locale/*/LC_MESSAGES/figures.po), and the code
    cells of the chapters (tokens a chapter passes to a figure); not the prose, which the
    site and JupyterLab set in their own fonts. Read as files of this checkout, not imported.
    """
    sources = sorted((WIDGETS / "src").glob("*.js"))
    sources += [ROOT / "attn_book" / "data.py", ROOT / "attn_book" / "plots.py"]
    sources += sorted((ROOT / "attn_book" / "locale").glob("*/LC_MESSAGES/figures.po"))
    texts = [p.read_text(encoding="utf-8") for p in sources]
    for chapter in sorted((ROOT / "book").glob("[0-9][0-9]_*.py")):
        lines = chapter.read_text(encoding="utf-8").splitlines()
        texts += [line for line in lines if not line.lstrip().startswith("#")]  # code only
    return "".join(sorted(set(HANGUL.findall("\n".join(texts)))))


def used_hangul_in_book():
    """Every Hangul character a reader can meet in JupyterLab: the chapters, the Markdown
    pages, every catalog of every language (the prose, captions, checkers' words, figures'
    words and code comments of the translations, attn_book/locale/*/LC_MESSAGES/**/*.po), and
    what the figures show (their outputs), sorted."""
    pages = sorted((ROOT / "book").glob("*.py")) + sorted((ROOT / "book").glob("*.md"))
    pages += sorted((ROOT / "attn_book" / "locale").glob("*/LC_MESSAGES/**/*.po"))
    text = "".join(p.read_text(encoding="utf-8") for p in pages) + used_hangul()
    return "".join(sorted(set(HANGUL.findall(text))))


def subset_woff(chars):
    """A WOFF (zlib) of ``SOURCE`` holding only ``chars``, without hinting or layout extras."""
    from fontTools import subset  # matplotlib's dependency; --check does not need it
    from fontTools.ttLib import TTFont

    if not SOURCE.is_file():
        sys.exit(f"{SOURCE} is missing: run `npm ci` first (package-lock.json pins it)")
    options = subset.Options(flavor="woff", hinting=False, desubroutinize=True)
    options.layout_features = []
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # keep the copyright and licence
    font = TTFont(SOURCE, recalcTimestamp=False)  # the same bytes on every build
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in chars])
    subsetter.subset(font)
    out = io.BytesIO()
    font.flavor = "woff"
    font.save(out)
    return out.getvalue()


def css_text(chars, woff, name="hangul_font.css", family=FAMILY, what="the figures show"):
    """The @font-face rule, with the characters it covers in a comment for the tests."""
    data = base64.b64encode(woff).decode("ascii")
    return (
        f"/* {name} — generated by build_font.py: edit that, not this.\n"
        f"   {family}: Noto Sans KR (SIL Open Font License 1.1, (c) Google), subset to the\n"
        f"   Hangul {what}, from the npm package @fontsource/noto-sans-kr.\n"
        f"   covers: {chars} */\n"
        "@font-face {\n"
        f'  font-family: "{family}";\n'
        "  font-style: normal;\n"
        "  font-weight: 100 900;\n"
        "  font-display: block;\n"
        f'  src: url("data:font/woff;base64,{data}") format("woff");\n'
        "  unicode-range: U+1100-11FF, U+3130-318F, U+AC00-D7A3;\n"
        "}\n"
    )


def lab_css_text(chars, woff):
    """``custom.css`` for JupyterLab: the font, then JupyterLab's font lists with it inside.

    ``html:root`` outranks the themes' ``:root`` and yields to a reader's own font
    settings, which JupyterLab writes into the root element's style attribute.
    ``body::after`` draws one hidden glyph so that the font loads with the page.
    """
    what = "of the whole book, for JupyterLab"
    rule = css_text(chars, woff, "custom.css", LAB_FAMILY, what)
    lists = "".join(
        f"  {name}: {value.format(family=repr(LAB_FAMILY))};\n"
        for name, value in LAB_FONT_VARIABLES.items()
    )
    # Load the font with the page: Chromium, meeting Hangul before the font has loaded,
    # kept boxes in some table cells of chapter 4 even after it had (seen in Lab 4.5).
    preload = (
        "body::after {\n"
        f'  content: "{chars[0]}" / "";  /* a glyph of the font, hidden from screen readers */\n'
        f'  font-family: "{LAB_FAMILY}";\n'
        "  position: absolute;\n"
        "  left: -9999px;\n"
        "  visibility: hidden;\n"
        "}\n"
    )
    return rule + "html:root {\n" + lists + "}\n" + preload


def covered(css):
    """The characters a generated CSS file says it covers."""
    return re.search(r"covers: (\S*) \*/", css).group(1)


def main(argv):
    outputs = [
        (OUT, used_hangul(), css_text),
        (LAB_OUT, used_hangul_in_book(), lab_css_text),
    ]
    for out, chars, text in outputs:
        if "--check" in argv:
            old = covered(out.read_text(encoding="utf-8")) if out.is_file() else ""
            if old != chars:
                sys.exit(f"{out.name} is stale: run python tools/build_font.py")
            continue
        woff = subset_woff(chars)
        out.parent.mkdir(exist_ok=True)
        out.write_text(text(chars, woff), encoding="utf-8")
        print(f"{out.relative_to(ROOT)}: {len(chars)} Hangul characters, {len(woff)} B woff")


if __name__ == "__main__":
    main(sys.argv[1:])
