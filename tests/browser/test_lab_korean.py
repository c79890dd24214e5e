"""The Korean chapter 4 in JupyterLab (the ``lab_book`` fixture: a git copy of book/ with its
ko/ folder): it reads in Korean before running (its numbers shown, no raw markup), and after
Run All its kernel, started in ko/, answers the exercises in Korean."""

from __future__ import annotations

from test_lab_reading import (
    markdown_text,
    open_chapter,
    raw_markup,
    visible_text,
    wait_until_rendered,
)
from test_lab_run_all import RUN_FINISHED, RUN_STARTED


def test_korean_chapter_4_reads_and_answers_in_korean_in_lab(page, lab_book, open_in_lab):
    base, _ = lab_book
    url = f"{base}lab/workspaces/ko-04/tree/ko/04_worked_example.ipynb?reset"
    open_chapter(open_in_lab, page, url)
    text = markdown_text(page)
    assert "손으로 푸는 예제" in text and "0.401" in text  # the prose and its stored numbers
    assert not any(raw_markup(text).values()), raw_markup(text)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.wait_for_function(RUN_STARTED, timeout=30_000)
    page.wait_for_function(RUN_FINISHED, timeout=120_000)
    wait_until_rendered(page)
    outputs = page.locator(".jp-OutputArea-output").all_inner_texts()
    assert any("아직 답이 없음" in o for o in outputs), outputs[-3:]
    assert not any("Not answered yet" in o for o in outputs)
    assert visible_text(page, "Traceback") == []
