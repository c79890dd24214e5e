"""What the static site's answer boxes need: one JSON spec per exercise, made at build time.

The site has no kernel, but a by-hand or predict-then-run exercise needs none: its expected
value, its tolerance and each named mistake's value are known once the inputs are. This
module turns every exercise of :func:`~attn_book.exercises.all_exercises` into a dict that
``site/static/attn-answers.js`` reads to give the same one-line verdict and the same
diagnosis message as :meth:`Exercise.check`:

- ``"number"`` (a :class:`NumberExercise` whose every diagnosis has a ``site``): the
  expected array, ``atol``/``rtol``, the fixed messages, and the diagnoses in the order the
  checker tries them, each either ``values`` (recomputed here from the inputs) or a
  ``rule`` ported to JavaScript (:data:`JS_RULES`);
- ``"choice"``: the options and the checker's own feedback for each option, and for none;
- ``"kernel"``: everything else (write-the-function, find-the-bug, a design judged by what
  it computes, a number exercise with a diagnosis not ported yet), with ``why`` (for the
  reader) and, for the last kind, ``missing`` (for the author: what to port).

Arrays are ``{"shape": [...], "data": [flat, C order]}``; NaN and infinities become
``null`` (no finite answer equals them). The box reads its text as a Python literal would
be read (``0.5``, ``[1, 2]``, ``1, 2``, ``[[1, 2], [3, 4]]``, ``None``, ``nan``, ``inf``);
other text is checked as the string it is.

Examples
--------
>>> from attn_book.exercises import ch04_worked_example as ch4
>>> spec = site_spec(ch4.output_by_hand)
>>> spec["kind"], spec["expected"]["shape"], [d["name"] for d in spec["diagnoses"]][:2]
('number', [2], ['weights-not-output', 'forgot-scale'])
>>> site_spec(ch4.my_attention)["kind"]
'kernel'
"""

from __future__ import annotations

import json
import math

import numpy as np

from . import diagnose
from .kinds import _UNANSWERED_VALUE, ChoiceExercise, NumberExercise, all_exercises
from .records import Case, Trial

__all__ = ["JS_RULES", "site_spec", "site_specs", "specs_script"]

#: The rules ``site/static/attn-answers.js`` implements (tests/test_site_answers_js.py).
JS_RULES = frozenset(
    {
        "wrong-count",
        "rounding",
        "wrong-order",
        "not-summing-to-1",
        "constant-factor",
        "other",
        "first-entry-is",
        "length-is",
        "too-long",
        "ranked-but-off",
        "smaller-divisor",
    }
)

_NOT_PORTED = "its check needs Python (for now)"
_ICONS = {"correct": "✓ Correct", "wrong": "✗ Not yet", "unanswered": "… Not answered yet"}


def _array(value):
    a = np.asarray(value, dtype=float)
    data = [float(x) if math.isfinite(x) else None for x in a.ravel().tolist()]
    return {"shape": list(a.shape), "data": data}


def _line(feedback):
    return {"status": feedback.status, "message": feedback.message, "diagnosis": feedback.diagnosis}


def _kernel(ex, why, missing=None):
    spec = {"kind": "kernel", "id": ex.id, "title": ex.title, "exercise": ex.kind, "why": why}
    return spec if missing is None else {**spec, "missing": missing}


def _number_spec(ex):
    expected = ex.expected()
    trial = Trial(Case("your answer", ex._inputs), expected, None, None, ex.rtol, ex.atol)
    diagnoses = []
    for diag in ex.diagnoses + ex._generic():
        if diag.site is None:
            return _kernel(ex, _NOT_PORTED, f"the diagnosis {diag.name!r} has no site")
        try:
            site = dict(diag.site(trial))
        except Exception:  # the checker's diagnosis would not fire either
            continue
        if "values" in site:
            site["values"] = [_array(v) for v in site["values"]]
        elif site.get("rule") not in JS_RULES:
            return _kernel(ex, _NOT_PORTED, f"the rule {site.get('rule')!r} is not in JS_RULES")
        message = None if callable(diag.message) else " ".join(diag.message.split())
        diagnoses.append({"name": diag.name, "message": message, **site})
    return {
        "kind": "number",
        "id": ex.id,
        "title": ex.title,
        "expected": _array(expected),
        "atol": ex.atol,
        "rtol": ex.rtol,
        "atol_text": diagnose.tolerance_text(ex.atol, ex.rtol),
        "correct": ex.check(ex.solution).message if ex.solution is not None else None,
        "unanswered": _UNANSWERED_VALUE,
        "other": "that is not it yet; compare with the text above.",
        "diagnoses": diagnoses,
    }


def site_spec(ex):
    """The JSON-able spec of one exercise for the site's answer box (see the module doc)."""
    if isinstance(ex, ChoiceExercise):
        return {
            "kind": "choice",
            "id": ex.id,
            "title": ex.title,
            "options": list(ex.options),
            "verdicts": {opt: _line(ex.check(opt)) for opt in ex.options},
            "unanswered": _line(ex.check(...)),
        }
    if type(ex) is NumberExercise or (
        isinstance(ex, NumberExercise) and type(ex)._trials is NumberExercise._trials
    ):
        return _number_spec(ex)
    why = {
        "write the function": "your answer is a function: its check runs your Python code",
        "find the bug": "your answer is a fixed function: its check runs your Python code",
        "design": "your design is judged by what it computes, which needs Python",
    }.get(ex.kind, "its check needs Python")
    return _kernel(ex, why)


def site_specs(exercises=None):
    """``{id: spec}`` for every exercise (default: :func:`all_exercises`), in book order."""
    return {ex.id: site_spec(ex) for ex in (all_exercises() if exercises is None else exercises)}


def specs_script(specs=None):
    """The specs as a script that sets ``window.ATTN_EXERCISES`` (loads from file:// too)."""
    specs = site_specs() if specs is None else specs
    text = json.dumps(
        {"icons": _ICONS, "exercises": specs}, ensure_ascii=False, allow_nan=False, indent=None
    )
    return f"window.ATTN_EXERCISES = {text};\n"
