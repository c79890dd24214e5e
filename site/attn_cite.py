"""In-text citations that land on their entry of the references page, not on its top.

A chapter cites as CONTRIBUTING says, ``([Vaswani et al., 2017](references.md))``: a plain
Markdown link, which JupyterLab opens as the references file. On the site this extension
gives each such link the anchor of its entry: ``bibtex_cite_id`` (``_config.yml``) names
every entry of the bibliography ``cite-KEY``, and :func:`citation_key` finds KEY from the
link's text, the first author's surname (or a team's name) and the year, as
sphinxcontrib-bibtex's author–year labels write them ("Dao, 2023a": the entries of one
author and year in the order of their titles). A link whose text names no entry (such as
"[references](references.md)") keeps the top of the page. ``tests/test_site_cite.py`` holds
every citation of the book to exactly one entry.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes

REFERENCES_DOC = "book/references"
# "Vaswani et al., 2017", "Rabe & Staats (2021)", "Wolchover, n.d.", "Dao, 2023b"
CITATION = re.compile(r"^(?P<names>.+?)[, ]+\(?(?P<year>\d{4}|n\.d\.)(?P<suffix>[a-z]?)\)?$")
FIRST_NAME_END = re.compile(r",| et al\.| & | and ")


def _plain(text):
    """A BibTeX field without its case-protecting braces and LaTeX accents' backslashes."""
    return re.sub(r"[{}\\]", "", text)


def read_entries(bib_path):
    """[(key, first author's surname or team name, year, title)] of a .bib file."""
    from pybtex.database import parse_file

    data = parse_file(str(bib_path))
    entries = []
    for key, entry in data.entries.items():
        people = entry.persons.get("author", [])
        if people:
            person = people[0]
            surname = " ".join(person.last_names) or " ".join(person.first_names)
        else:  # an entry with a key field only (the Korean articles)
            surname = entry.fields.get("key", "")
        year = entry.fields.get("year", "n.d.")
        entries.append((key, _plain(surname), year, _plain(entry.fields.get("title", ""))))
    return entries


def citation_key(text, entries):
    """The key of the entry an author–year link text names, or None.

    >>> entries = [("dao2023", "Dao", "2023", "FlashAttention-2"),
    ...            ("dao2023flashattn", "Dao", "2023", "flash-attn: the library")]
    >>> citation_key("Dao, 2023a", entries), citation_key("Dao, 2023b", entries)
    ('dao2023flashattn', 'dao2023')
    >>> citation_key("references", entries) is None
    True
    """
    found = CITATION.match(text.strip())
    if not found:
        return None
    surname = FIRST_NAME_END.split(found["names"])[0].strip()
    matches = [e for e in entries if e[1] == surname and e[2] == found["year"]]
    matches.sort(key=lambda e: e[3].lower())
    if found["suffix"]:
        index = ord(found["suffix"]) - ord("a")
        return matches[index][0] if index < len(matches) else None
    return matches[0][0] if len(matches) == 1 else None


def anchor(key):
    """The HTML id sphinxcontrib-bibtex gives the entry, from ``bibtex_cite_id``."""
    return nodes.make_id(f"cite-{key}")


def link_citations(app, doctree, docname):
    """Point every author–year link to the references page at its entry (doctree-resolved)."""
    entries = app.env.attn_cite_entries
    target = app.builder.get_relative_uri(docname, REFERENCES_DOC)
    for ref in doctree.findall(nodes.reference):
        uri = ref.get("refuri", "")
        if uri.split("#")[0] != target:
            continue
        key = citation_key(ref.astext(), entries)
        if key:
            ref["refuri"] = f"{target}#{anchor(key)}"


def load_entries(app):
    """Read the bibliography once per build (builder-inited)."""
    bib_files = app.config.bibtex_bibfiles or []
    app.env.attn_cite_entries = [
        e for bib in bib_files for e in read_entries(Path(app.srcdir) / bib)
    ]


def setup(app):
    app.connect("builder-inited", load_entries)
    app.connect("doctree-resolved", link_citations)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
