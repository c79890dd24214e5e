"""Headings' anchors: a link's ``#fragment`` lands on its heading in both editions.

- A heading with maths has two names: myst's slug, which a Markdown link names
  (``01_dot_product.ipynb#every-score-at-once``: the slug leaves the maths out), and the id
  docutils gives the section (``every-score-at-once-qk-top``). myst resolves the link inside
  the book, but the slug is no id of the page, so the same address typed or shared lands at
  the page's top. Every section also gets its slug as an id.
- A Korean heading has no Latin letters for docutils to make an id of (``1단계: 점수`` gets
  ``id2``), so the Korean glossary's links and the table of contents' anchors would differ
  from the English. On a Korean page (``language: ko``) the n-th section takes the ids and
  slug of the n-th section of its English twin (the Korean notebooks have the English cells
  and headings, in order), read from the English build's doctrees (``ATTN_ENGLISH_DOCTREES``,
  set by tools/build_book.py, else ``_build/.doctrees``); its own ids stay as extra ids. A
  page whose number of sections differs from its twin's keeps its own ids (and says so).

Loaded from ``_config.yml`` (``sphinx.local_extensions``), so in both editions.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parent.parent
DOCTREES_VARIABLE = "ATTN_ENGLISH_DOCTREES"


def add_slug_ids(doctree):
    """Give every section its myst slug as an extra id (when no other node has it).

    >>> from docutils.utils import new_document
    >>> doc = new_document("page")
    >>> doc += nodes.section(ids=["every-score-at-once-qk-top"], slug="every-score-at-once")
    >>> add_slug_ids(doc); doc[0]["ids"]
    ['every-score-at-once-qk-top', 'every-score-at-once']
    """
    for section in doctree.findall(nodes.section):
        slug = section.get("slug")
        if slug and slug[0].isalpha() and slug not in section["ids"] and slug not in doctree.ids:
            section["ids"].append(slug)
            doctree.ids[slug] = section


def sections(doctree):
    """``[(ids, slug)]`` of a page's sections, in document order."""
    return [(list(s["ids"]), s.get("slug")) for s in doctree.findall(nodes.section)]


def take_twin_ids(doctree, english, slugs):
    """Give the n-th section of ``doctree`` the ids and slug of ``english``'s n-th.

    ``english`` is :func:`sections` of the twin page; ``slugs`` is myst's ``{slug: (line,
    id, text)}`` of the page, given the English slugs (a link from another page resolves
    through it, before a Korean slug that happens to be the same). A section keeps its own
    ids after the English ones; an English id that another node of the page already has is
    left out. Returns False, changing nothing, when the pages have different numbers of
    sections.

    >>> from docutils.utils import new_document
    >>> doc = new_document("page")
    >>> doc += nodes.section(ids=["ch-worked-example", "id1"])
    >>> doc[0] += nodes.section(ids=["id2"], slug="-1")
    >>> doc.ids.update({"ch-worked-example": doc[0], "id1": doc[0], "id2": doc[0][0]})
    >>> english = [(["the-worked-example", "ch-worked-example"], "the-worked-example"),
    ...            (["step-2-divide-by-sqrt-d-k"], "step-2-divide-by")]
    >>> slugs = {}
    >>> take_twin_ids(doc, english, slugs)
    True
    >>> [s["ids"] for s in doc.findall(nodes.section)]  # doctest: +NORMALIZE_WHITESPACE
    [['the-worked-example', 'ch-worked-example', 'id1'], ['step-2-divide-by-sqrt-d-k', 'id2']]
    >>> sorted(slugs), doc[0][0]["slug"]
    (['step-2-divide-by', 'the-worked-example'], 'step-2-divide-by')
    >>> take_twin_ids(doc, english[:1], {})
    False
    """
    korean = list(doctree.findall(nodes.section))
    if len(korean) != len(english):
        return False
    for section, (ids, slug) in zip(korean, english, strict=True):
        own = list(section["ids"])
        taken = [i for i in ids if i in own or i not in doctree.ids]
        section["ids"] = taken + [i for i in own if i not in taken]
        for i in taken:
            doctree.ids[i] = section
        if slug:
            section["slug"] = slug
            title = section[0].astext() if len(section) else ""
            slugs[slug] = (section.line, section["ids"][0], title)
    return True


def english_doctrees():
    """The English build's doctrees folder, or None."""
    folder = Path(os.environ.get(DOCTREES_VARIABLE) or ROOT / "_build" / ".doctrees")
    return folder if folder.is_dir() else None


def english_sections(docname, folder):
    """:func:`sections` of the English page ``docname`` in ``folder``, or None."""
    path = folder / f"{docname}.doctree"
    if not path.is_file():
        return None
    with path.open("rb") as stream:
        return sections(pickle.load(stream))  # our own English build's doctree


def anchor_sections(app, doctree):
    """``doctree-read``, before the table of contents records the sections' anchors."""
    docname = app.env.docname
    if app.config.language == "ko":
        folder = english_doctrees()
        english = english_sections(docname, folder) if folder else None
        if english is not None:
            slugs = app.env.metadata[docname].setdefault("myst_slugs", {})
            if not take_twin_ids(doctree, english, slugs):
                count = len(list(doctree.findall(nodes.section)))
                logger.info(
                    f"attn_anchors: {docname} has {count} sections, its English twin "
                    f"{len(english)}: its headings keep their own ids"
                )
    add_slug_ids(doctree)


def setup(app):
    # Before the table of contents (sphinx.environment.collectors.toctree, priority 500).
    app.connect("doctree-read", anchor_sections, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
