"""The ``{eval}`` role for the site, from the values stored in the notebook.

A chapter's prose writes its numbers as ``{eval}`expression```. ``tools/sync_chapters.py``
evaluates each expression when the run reaches its Markdown cell and stores the result in
that cell's ``user_expressions`` metadata, which is what jupyterlab-myst shows in JupyterLab.
This role shows the same stored result on the site, through myst-nb's own output renderer,
so the two readers see the same digits and the build needs no live kernel (myst-nb's own
``eval`` role works only with ``execute_notebooks: inline``). An expression with no stored
value is a warning, so a ``-W`` build fails until the chapter is synced.
"""

from __future__ import annotations

from myst_nb.core.variables import VariableOutput, render_variable_outputs
from sphinx.util import logging
from sphinx.util.docutils import SphinxRole

logger = logging.getLogger(__name__)


def stored_expressions(notebook):
    """Map each stored expression of ``notebook`` to its result (``user_expressions``)."""
    found = {}
    for cell in notebook.get("cells", []):
        for entry in cell.get("metadata", {}).get("user_expressions", []):
            found[entry["expression"]] = entry["result"]
    return found


class StoredEvalRole(SphinxRole):
    """``{eval}`expr```: the result stored for ``expr`` in the chapter's notebook."""

    def run(self):
        element = self.inliner.document.get("nb_renderer")
        notebook = element.renderer.nb_client.notebook if element is not None else {}
        result = stored_expressions(notebook).get(self.text)
        if result is None or result.get("status") != "ok":
            logger.warning(
                "{eval}`%s` has no stored value: run `make sync` on this chapter",
                self.text,
                location=self.get_location(),
                type="attn",
                subtype="eval",
            )
            return [], []
        output = VariableOutput(
            data=result["data"],
            metadata={**result.get("metadata", {}), "strip_text_quotes": True},
            nb_renderer=element,
            vtype="eval",
        )
        return render_variable_outputs(
            [output], self.inliner.document, self.lineno, self.get_source_info()[0], inline=True
        ), []


def override_eval(app):
    app.add_role("eval", StoredEvalRole(), override=True)


def setup(app):
    # After every extension's setup, so that this role replaces myst-nb's.
    app.connect("builder-inited", override_eval)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
