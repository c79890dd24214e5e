"""The accessibility audit's parts, shared by the page audit (test_site.py, on each page
loaded once) and the figures' tests (test_a11y.py).

axe-core (npm ``axe-core``, pinned in package-lock.json, ``npm ci --ignore-scripts``) runs
its WCAG 2.0/2.1/2.2 A and AA rules (2.2 adds 2.5.8: targets of 24 × 24 CSS px), once in
light and once in dark mode (``data-theme`` on ``<html>``, as the theme's switch sets it), at
desktop width (test_site.py) and at a phone's 390 px (test_phone.py), after the maths is
typeset and the figures have rendered. The page's structure is the same in both modes, so
the dark pass runs the rules whose outcome depends on colour (:data:`COLOUR_RULES`). A
critical or serious violation fails unless :data:`ALLOWED` names it with its upstream issue
(it is empty: what the theme and Sphinx extensions caused is fixed in ``site/``). Every
page's counts per rule land in ``_build/screenshots/a11y.json`` (:func:`write_report`).
"""

from __future__ import annotations

import json
from collections import Counter

# axe-core 4.14 has no "wcag22a" tag: WCAG 2.2 added no level-A rule that axe tests.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
FAILING = ("critical", "serious")
# rule id -> (CSS selector the violation may have, the upstream issue that explains it).
# Empty: every critical or serious violation the audit found is fixed in site/.
ALLOWED: dict[str, tuple[str, str]] = {}
RESULTS: dict[str, dict[str, dict[str, int]]] = {}

RUN_AXE = """async ({tags, rules, include}) => {
    const context = include ? {include: [[include]]} : document;
    const runOnly = rules ? {type: "rule", values: rules} : {type: "tag", values: tags};
    const result = await axe.run(context, {runOnly, resultTypes: ["violations"]});
    return result.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => ({target: n.target.join(" "), html: n.html.slice(0, 160),
                                  summary: n.failureSummary}))}));
}"""

NO_TRANSITIONS = "*, ::before, ::after { transition: none !important; animation: none !important }"


def write_report(out_dir):
    """Write :data:`RESULTS` (counts per page, mode and rule) and their totals to
    ``out_dir/a11y.json``."""
    out_dir.mkdir(exist_ok=True)
    totals = Counter()
    for modes in RESULTS.values():
        for counts in modes.values():
            totals.update(counts)
    data = {"axe": AXE_VERSION, "total_nodes": dict(totals), "pages": RESULTS}
    (out_dir / "a11y.json").write_text(json.dumps(data, indent=1) + "\n")


AXE_VERSION = None


def load(page, site, docname):
    """Open a page, wait for MathJax and every figure, switch transitions off."""
    page.goto(site.url(docname), wait_until="load")
    page.wait_for_math()
    page.wait_for_widgets(timeout=30_000)
    page.settle()
    page.add_style_tag(content=NO_TRANSITIONS)


def audit(page, axe_source, include=None, rules=None):
    """axe's WCAG 2.0–2.2 A and AA violations on the page (or inside ``include``); with
    ``rules``, only those rules."""
    global AXE_VERSION
    if not page.evaluate("() => Boolean(window.axe)"):
        page.add_script_tag(path=str(axe_source))
    AXE_VERSION = page.evaluate("() => axe.version")
    return page.evaluate(RUN_AXE, {"tags": TAGS, "rules": rules, "include": include})


def set_mode(page, mode):
    """Light or dark, as the theme's own switch sets it (``data-theme`` and ``data-mode``)."""
    page.evaluate(
        """mode => {
        document.documentElement.dataset.theme = mode;
        document.documentElement.dataset.mode = mode;
    }""",
        mode,
    )
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def failing(violations):
    """Critical and serious violations that :data:`ALLOWED` does not name."""
    bad = []
    for v in violations:
        if v["impact"] not in FAILING:
            continue
        allowed = ALLOWED.get(v["id"])
        nodes = [n for n in v["nodes"] if not (allowed and allowed[0] in n["target"])]
        if nodes:
            bad.append(f"{v['impact']} {v['id']} ({v['help']}): " + "; ".join(
                f"{n['target']}: {n['summary']}" for n in nodes[:5]))  # fmt: skip
    return bad
