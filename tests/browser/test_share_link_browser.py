"""The sidebar's link to this view in the browser: no code block until the learner opens it;
then the link to this very view, with the page's own parameters (attention_ui/route.share_link)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from attention_ui.i18n import translate
from attention_ui.internals import testid
from harness import TOY, no_exception, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def test_the_link_appears_when_opened_and_names_this_view(app_page, server):
    page = app_page
    page.goto(server + f"step_by_step?sentence=the+dog+sat&step=3&{TOY}")
    wait_for_app(page)
    no_exception(page)
    sidebar = page.locator(testid("stSidebar"))
    assert sidebar.locator(testid("stCode")).count() == 0  # closed: nothing drawn
    sidebar.locator(f"{testid('stExpander')} summary").filter(has_text=translate("en", "shell.share")).click()
    code = sidebar.locator(testid("stCode"))
    code.first.wait_for(timeout=30_000)
    no_exception(page)
    link = urlparse(code.first.inner_text().strip())
    params = parse_qs(link.query)
    assert link.path.endswith("/step_by_step"), link
    assert params["sentence"] == ["the dog sat"] and params["step"] == ["3"] and params["toy"] == ["true"], params
