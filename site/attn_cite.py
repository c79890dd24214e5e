"""In-text citations that land on their entry of the references page, labelled as the text cites.

A chapter cites as CONTRIBUTING says, ``([Vaswani et al., 2017](references.md))``: a plain
Markdown link, which JupyterLab opens as the references file. On the site this extension
gives each such link the anchor of its entry: ``bibtex_cite_id`` (``_config.yml``) names
every entry of the bibliography ``cite-KEY``, and :func:`citation_key` finds KEY from the
link's text, the first author's surname (or a team's name) and the year. A link whose text
names no entry (such as "[references](references.md)") keeps the top of the page.

The references list shows the same words: :func:`labels` gives every entry its author–year
label ("Dao, 2023a", "Dao & Gu, 2024", "Vaswani et al., 2017"; a ``shortauthor`` field
overrides the names, for a text that writes three authors out), and the pybtex style
``attn`` registered here (``bibtex_default_style``) prints those labels, in the order
of :func:`sort_key`. One ordering gives the letters of the list and of the text: the
entries of one first author and year in the order of their titles, case aside.
``tests/test_site_cite.py`` holds every citation of the book to exactly one entry, and to
its label in the list.
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
    """A BibTeX field as plain text: no protecting braces, accents as letters (R{\\'e} = Ré)."""
    from pybtex.richtext import Text

    return Text.from_latex(text).render_as("text")


def _surname(person):
    return _plain(" ".join(person.last_names) or " ".join(person.first_names))


def describe(key, entry):
    """(key, first surname or team name, year, title, names of the label) of a pybtex entry."""
    people = entry.persons.get("author", [])
    if people:
        surname = _surname(people[0])
        if len(people) == 1:
            names = surname
        elif len(people) == 2:
            names = f"{surname} & {_surname(people[1])}"
        else:
            names = f"{surname} et al."
    else:  # an entry with a key field only (the Korean articles)
        surname = names = _plain(entry.fields.get("key", ""))
    names = _plain(entry.fields.get("shortauthor", names))
    year = entry.fields.get("year", "n.d.")
    return (key, surname, year, _plain(entry.fields.get("title", "")), names)


def read_entries(bib_path):
    """[describe(key, entry)] of every entry of a .bib file."""
    from pybtex.database import parse_file

    return [describe(key, entry) for key, entry in parse_file(str(bib_path)).entries.items()]


def _title_order(entry):
    return entry[3].lower()


def sort_key(entry):
    """The references list's order: first author (or team), year (n.d. last), title."""
    key, surname, year = entry[:3]
    return (surname.lower(), year == "n.d.", year, _title_order(entry), key)


def labels(entries):
    """{key: "Names, year" with a, b, ... where one first author has two entries in a year}."""
    groups = {}
    for entry in entries:
        groups.setdefault((entry[1], entry[2]), []).append(entry)
    found = {}
    for group in groups.values():
        group.sort(key=_title_order)
        for index, entry in enumerate(group):
            suffix = chr(ord("a") + index) if len(group) > 1 else ""
            found[entry[0]] = f"{entry[4]}, {entry[2]}{suffix}"
    return found


def citation_key(text, entries):
    """The key of the entry an author–year link text names, or None.

    >>> entries = [("dao2023", "Dao", "2023", "FlashAttention-2", "Dao"),
    ...            ("dao2023flashattn", "Dao", "2023", "flash-attn: the library", "Dao")]
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
    matches.sort(key=_title_order)
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


def register_style():
    """The pybtex style ``attn``: the unsrt entries, labelled and ordered as above."""
    from pybtex.plugin import register_plugin
    from pybtex.style.formatting.unsrt import Style
    from pybtex.style.labels import BaseLabelStyle
    from pybtex.style.sorting import BaseSortingStyle

    class AuthorYearLabels(BaseLabelStyle):
        def format_labels(self, sorted_entries):
            sorted_entries = list(sorted_entries)
            found = labels([describe(e.key, e) for e in sorted_entries])
            return (found[e.key] for e in sorted_entries)

    class AuthorYearOrder(BaseSortingStyle):
        def sorting_key(self, entry):
            return sort_key(describe(entry.key, entry))

    class AttnStyle(Style):
        default_label_style = AuthorYearLabels
        default_sorting_style = AuthorYearOrder

    register_plugin("pybtex.style.formatting", "attn", AttnStyle, force=True)
    return AttnStyle


def setup(app):
    register_style()
    app.connect("builder-inited", load_entries)
    app.connect("doctree-resolved", link_citations)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
