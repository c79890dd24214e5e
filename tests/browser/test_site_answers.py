"""The exercises' answer boxes on the built site give the Python checker's verdicts.

Every exercise of ``all_exercises()`` has a box under its answer cell (site/attn_answers.py,
site/static/attn-answers.js). For each one the site can answer, every wrong answer the
diagnosis tests use (its ``mistakes``), its solution and malformed answers are typed into
the box (its field set and its form submitted, as Enter does; one test types by keyboard
alone) and the announced verdict must be the same line
``repr(site_verdict(ex, answer))`` prints, icon included (the checker's verdict, in the
site's words where it speaks of the notebook). A choice is picked with the arrow keys
and Space. The rest say they need a kernel, beside the page's download buttons. No
request leaves 127.0.0.1 and no script error occurs. A screenshot of a checked box lands
in ``_build/screenshots/answers-*.png``. The boxes are answered by :func:`check_boxes`, which
test_site.py calls on each page it loads (one load per page serves all its checks).
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict

import pytest
from answer_inputs import as_text, inputs_for
from answer_inputs import solution as typed_solution

from attn_book.exercises import all_exercises
from attn_book.exercises.site import site_spec, site_verdict

EXERCISES = all_exercises()
SPECS = {ex.id: site_spec(ex) for ex in EXERCISES}


def by_id():
    return {ex.id: ex for ex in EXERCISES}


@functools.cache
def pages_of_boxes(site_dir):
    """{page: [exercise id, ...]} from the built HTML's ``data-exercise`` attributes."""
    found = defaultdict(list)
    for html in sorted((site_dir / "book").glob("*.html")):
        text = html.read_text(encoding="utf-8")
        for part in text.split('class="attn-answer" data-exercise="')[1:]:
            found[f"book/{html.name}"].append(part.split('"', 1)[0])
    return dict(found)


@pytest.fixture(scope="module")
def boxes(site_dir):
    return pages_of_boxes(site_dir)


def test_every_exercise_has_one_box(boxes):
    placed = [i for ids in boxes.values() for i in ids]
    assert sorted(placed) == sorted(SPECS), "each exercise's answer cell gets exactly one box"
    answerable = [i for i, s in SPECS.items() if s["kind"] != "kernel"]
    print(f"answerable on the site: {len(answerable)} of {len(SPECS)} exercises")
    assert len(answerable) >= 24


# Types each text into the box's field and submits its form (what Enter or Check does),
# reading the verdict the live region then shows. One call per exercise: ~500 answers in all.
SUBMIT_ALL = """([id, texts]) => {
  const box = document.querySelector(`div.attn-answer[data-exercise="${id}"]`);
  const field = box.querySelector("input[type=text]");
  const form = box.querySelector("form");
  return texts.map((text) => {
    field.value = text;
    field.dispatchEvent(new Event("input", { bubbles: true }));
    form.requestSubmit();
    return box.querySelector(".attn-answer-verdict").textContent.trim();
  });
}"""


#: The box renders a message's inline Markdown (attn-answers.js ``INLINE``): `code`, **bold**,
#: *emphasis*; the page's text is the message without those marks.
_INLINE = re.compile(r"`([^`]+)`|\*\*(\S(?:[^*]*\S)?)\*\*|\*(\S(?:[^*]*\S)?)\*")


def rendered(message):
    """``message`` as the box shows it: its inline Markdown marks gone, their words kept."""
    return _INLINE.sub(lambda m: next(g for g in m.groups() if g is not None), message)


def _page_with_boxes(page, site, rel):
    page.goto(site.url(rel))
    page.wait_for_selector("div.attn-answer form, div.attn-answer .attn-answer-kernel")
    return page


def _verdict(box):
    verdict = box.locator(".attn-answer-verdict")
    return verdict.inner_text().strip()


def check_boxes(page, site, site_dir, docname):
    """Answer every box of the loaded page ``docname`` as the module docstring says and
    assert the verdicts are Python's. Returns how many answers were compared (None when the
    page has no box). Called by test_site.py on each page it loads."""
    ids = pages_of_boxes(site_dir).get(f"{docname}.html")
    if not ids:
        assert page.locator("div.attn-answer").count() == 0
        return None
    page.wait_for_selector("div.attn-answer form, div.attn-answer .attn-answer-kernel")
    exercises = by_id()
    checked, diffs = 0, []
    for exercise_id in ids:
        ex, spec = exercises[exercise_id], SPECS[exercise_id]
        box = page.locator(f'div.attn-answer[data-exercise="{exercise_id}"]')
        if spec["kind"] == "kernel":
            note = box.locator(".attn-answer-kernel")
            assert "is checked in the notebook" in note.inner_text()
            links = note.locator("a").evaluate_all("(links) => links.map((a) => a.href)")
            stem = docname.removeprefix("book/")
            assert links == [site.url(f"_sources/book/{stem}.{x}") for x in ("ipynb", "py")]
            assert all(
                (site_dir / "_sources" / "book" / f"{stem}.{x}").is_file() for x in ("ipynb", "py")
            )
            continue
        live = box.locator(".attn-answer-verdict")
        assert live.get_attribute("aria-live") == "polite"
        assert live.get_attribute("role") == "status"
        if spec["kind"] == "number":
            assert box.get_by_label("Your answer", exact=False).count() == 1
            rows = inputs_for(ex)
            got = page.evaluate(SUBMIT_ALL, [exercise_id, [text for _, text, _ in rows]])
            for (value, text, label), shown in zip(rows, got, strict=True):
                want = rendered(repr(site_verdict(ex, value)))
                checked += 1
                if shown != want:
                    diffs.append((exercise_id, label, text, want, shown))
        else:
            box.locator("button.attn-answer-check").click()  # nothing picked yet
            want = rendered(repr(site_verdict(ex, ...)))
            if _verdict(box) != want:
                diffs.append((exercise_id, "nothing picked", "", want, _verdict(box)))
            first = box.locator("input[type=radio]").first
            first.focus()
            for k, option in enumerate(ex.options):
                if k:
                    page.keyboard.press("ArrowRight")  # moves and picks the next option
                page.keyboard.press("Space")
                assert box.locator("input[type=radio]:checked").get_attribute("value") == option
                page.keyboard.press("Enter")  # Enter in a radio group submits its form
                want, got = repr(site_verdict(ex, option)), _verdict(box)
                checked += 1
                if got != want:
                    diffs.append((exercise_id, option, option, want, got))
    if docname == "book/04_worked_example":
        shots = site_dir.parent / "screenshots"
        shots.mkdir(exist_ok=True)
        box = page.locator('div.attn-answer[data-exercise="ch4-weights-by-hand"]')
        box.locator("input[type=text]").fill("[0.570, 0.140, 0.284]")
        box.locator("button.attn-answer-check").click()
        box.scroll_into_view_if_needed()
        box.screenshot(path=str(shots / "answers-ch4-weights.png"))
        kernel = page.locator('div.attn-answer[data-exercise="ch4-my-attention"]')
        kernel.screenshot(path=str(shots / "answers-ch4-kernel.png"))
    assert not diffs, "the site and Python disagree:\n" + "\n".join(map(repr, diffs))
    assert not page.errors, page.errors
    assert not page.failed_requests
    assert all(site.is_local(u) for u in page.requests)
    return checked


def test_box_by_keyboard_alone(page, site):
    """Tab reaches the field and the Check button; the verdict is announced politely."""
    _page_with_boxes(page, site, "book/01_dot_product.html")
    box = page.locator('div.attn-answer[data-exercise="ch1-scores-by-hand"]')
    field = box.locator("input[type=text]")
    field.focus()
    solution = as_text(typed_solution(by_id()["ch1-scores-by-hand"]))
    page.keyboard.type(solution)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Check"
    page.keyboard.press("Enter")
    verdict = box.locator("[role=status][aria-live=polite]")
    assert verdict.inner_text().startswith("✓ Correct")
    first = verdict.text_content()
    page.keyboard.press("Enter")  # the same answer again: the region's text still changes
    assert verdict.text_content() != first
    assert verdict.text_content().strip() == first.strip()
    # The field is named by its label and described by the verdict, for a screen reader.
    label = box.locator("label").inner_text()
    assert field.evaluate("(el) => el.labels[0].textContent") == label
    assert field.get_attribute("aria-describedby") == verdict.get_attribute("id")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("End")
    page.keyboard.type("x")  # back in the field
    assert field.input_value() == solution + "x"
