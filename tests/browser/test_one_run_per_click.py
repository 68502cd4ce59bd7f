"""Every click starts exactly one script run (issue "Every click as quick as a bare Streamlit
app"): a second run per click, or a run cut short for a rerun, doubles what a learner waits for.

The page counts the runs itself: an init script wraps the WebSocket and counts Streamlit's
``script_finished`` messages (ForwardMsg field 6) with their status, so a fragment's run counts
too. No timing is asserted; ``bench/bench_clicks.py`` measures the time.
"""

from __future__ import annotations

import re

import pytest

from attention_ui.internals import testid
from harness import COUNT_RUNS_JS, EARLY_FOR_RERUN, VIEWPORT, no_exception, runs_of, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]


def sidebar_link(page, label: str):
    return page.locator(f"{testid('stSidebar')} {testid('stPageLink')} a").filter(has_text=label).first


def button_in(page, where: str, label: str):
    return page.locator(f"{testid(where)} {testid('stButtonGroup')} button").filter(has_text=label).first


def test_each_click_is_one_script_run(server, chromium):
    context = chromium.new_context(viewport=VIEWPORT)
    context.set_default_timeout(120_000)
    context.add_init_script(COUNT_RUNS_JS)
    page = context.new_page()
    try:
        page.goto(server + "matrices?lang=en")
        wait_for_app(page)
        no_exception(page)
        main = page.locator(testid("stMain"))
        clicks = {  # what a learner does, in order: name -> the action
            "matrices: the Scores view": lambda: main.get_by_role("radio", name=re.compile("Scores")).click(),
            "sidebar: scaling off": lambda: (
                page.locator(testid("stSidebar")).get_by_text("Divide scores by √d_k").click()
            ),
            "sidebar: scaling on": lambda: (
                page.locator(testid("stSidebar")).get_by_text("Divide scores by √d_k").click()
            ),
            "page: Step by step": lambda: sidebar_link(page, "Step by step").click(),
            "step by step: Next": lambda: main.get_by_role("button", name=re.compile("Next")).click(),
            "step by step: Back": lambda: main.get_by_role("button", name=re.compile("Back")).click(),
            "step by step: a token": lambda: button_in(page, "stMain", "3:").click(),
            "sidebar: random W": lambda: button_in(page, "stSidebar", "Random").click(),
            "page: Similarity": lambda: sidebar_link(page, "Similarity").click(),
            "similarity: a token (a fragment)": lambda: button_in(page, "stMain", "2:").click(),
            "page: Real model heads": lambda: sidebar_link(page, "Real model").click(),
            "real model: a layer": lambda: button_in(page, "stMain", "3").click(),  # 2 is the chosen one
        }
        found = {}
        for name, act in clicks.items():
            found[name] = runs_of(page, act)
            no_exception(page)
        wrong = {name: runs for name, runs in found.items() if len(runs) != 1 or EARLY_FOR_RERUN in runs}
        assert not wrong, f"clicks that did not start exactly one whole run (statuses): {wrong}"
    finally:
        context.close()
