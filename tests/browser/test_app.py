"""The real app in a real browser: Streamlit server + Debian's Chromium through Playwright.

What AppTest cannot see is checked here: the page the browser actually draws, the Plotly
figures as Plotly holds them, the URL as a shared link, a fresh server's first request.
Most tests use the toy embedder (fast); the home and sentence tests use the real model.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from attention_ui.internals import testid
from harness import TOY, fresh_server, matrix_tables, no_exception, plotly_data, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

HTML_SENTENCE = "<b>bold</b><script>window.__pwned=1</script>"


def sidebar_link(page, label: str):
    return page.locator(f"{testid('stSidebar')} {testid('stPageLink')}").filter(has_text=label)


def sentence_input(page):
    return page.locator(testid("stSidebar")).get_by_label("Sentence", exact=True)


def type_sentence(page, text: str) -> None:
    box = sentence_input(page)
    box.fill(text)
    box.press("Enter")
    wait_for_app(page)


def token_choice(page, label: str):
    """One option of the token picker (st.segmented_control: buttons with role="radio")."""
    return page.locator(f"{testid('stMain')} {testid('stButtonGroup')} button").filter(
        has_text=re.compile(f"^{re.escape(label)}$")
    )


def weights_figure(page) -> dict:
    figures = plotly_data(page)
    found = [f for f in figures if f["title"].startswith("Weights")]
    assert found, f"no weights heatmap among {[f['title'] for f in figures]}"
    return found[0]


def weights_table(page) -> dict:
    """Attention matrices' weights, drawn as a table that prints every number."""
    found = [m for m in matrix_tables(page) if m["title"].startswith("Weights")]
    assert found, f"no weights table among {[m['title'] for m in matrix_tables(page)]}"
    return found[0]


def heading(page) -> str:
    return page.locator(f"{testid('stMain')} h1").first.inner_text()


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def step_indicator(page) -> tuple[int, int]:
    text = page.locator(testid("stProgress")).inner_text()
    m = re.search(r"Step (\d+) of (\d+)", text)
    assert m, f"no step indicator in {text!r}"
    return int(m.group(1)), int(m.group(2))


def assert_rows_sum_to_one(z: list[list[float]]) -> None:
    for i, row in enumerate(z):
        assert abs(sum(row) - 1.0) < 1e-6, f"row {i} of the weights sums to {sum(row)}"


def test_home_renders_with_the_real_model(open_app):
    page = open_app("")
    no_exception(page)
    assert "Attention Lab" in heading(page)
    assert page.get_by_text("Page not found").count() == 0
    captions = page.locator(testid("stCaptionContainer")).all_inner_texts()
    assert any("all-MiniLM-L6-v2" in c for c in captions), captions  # the real model, not a fallback
    assert not page.js_errors, page.js_errors


def test_typed_sentence_with_repeated_word_reaches_the_weights_table_and_chart(open_app):
    """Real model: type a sentence, press Enter, open the matrices page from the sidebar."""
    page = open_app("")
    type_sentence(page, "the dog chased the cat")
    assert query(page).get("sentence") == ["the dog chased the cat"]  # shareable link
    sidebar_link(page, "Attention matrices").click()
    wait_for_app(page)
    assert urlparse(page.url).path.rstrip("/").endswith("matrices")
    no_exception(page)

    table = weights_table(page)  # a trained head by default: the model's [CLS] and [SEP] come with the words
    assert len(table["z"]) == 7 and all(len(row) == 7 for row in table["z"])
    assert_rows_sum_to_one(table["z"])
    assert table["texts"] == [[f"{x:.2f}" for x in row] for row in table["z"]]
    assert table["rows"] == table["cols"] and table["rows"][0] == "1: [CLS]" and table["rows"][-1] == "7: [SEP]"

    page.locator(testid("stMain")).get_by_text("Interactive chart").click()  # the same numbers, hover-able
    wait_for_app(page)
    no_exception(page)
    assert query(page).get("chart") == ["true"], page.url
    fig = weights_figure(page)
    z = fig["data"][0]["z"]
    assert z == table["z"]
    ticks = fig["layout"]["yaxis"]
    assert ticks["tickvals"] == list(range(1, 8)), ticks  # integer positions from 1, not categories
    labels = ticks["ticktext"]
    assert labels[0].endswith("[CLS]") and labels[-1].endswith("[SEP]"), labels
    the_rows = [t for t in labels if t.split(": ", 1)[-1] == "the"]
    assert len(the_rows) == 2 and len(set(the_rows)) == 2, labels  # "the … the" stay two rows
    drawn = page.locator(".js-plotly-plot").nth(plotly_data(page).index(fig)).locator(".ytick text")
    assert drawn.count() == 7


def test_step_by_step_pick_a_token_and_walk_to_the_last_step(open_app):
    page = open_app(f"step_by_step?sentence=the+dog+chased+the+cat&{TOY}")
    no_exception(page)
    choice = token_choice(page, "3: chased")  # tokens count from 1
    choice.click()
    wait_for_app(page)
    assert choice.get_attribute("aria-checked") == "true"
    assert query(page).get("token") == ["3"]  # the number shown, not the index
    step, total = step_indicator(page)
    assert step == 1 and total > 1
    next_button = page.locator(testid("stMain")).get_by_role("button", name=re.compile("Next"))
    seen = [step]
    while step < total:
        next_button.click()
        wait_for_app(page)
        no_exception(page)
        step, _ = step_indicator(page)
        assert step == seen[-1] + 1, f"Next went from step {seen[-1]} to {step}"
        seen.append(step)
        assert query(page).get("step") == [str(step)]  # the step shown, from 1
        assert query(page).get("token") == ["3"], "the picked token is kept"
    assert next_button.is_disabled()
    titles = [f["title"] for f in plotly_data(page)]
    assert any(t.startswith("b_3") for t in titles), f"the last step charts b_3 for the picked token: {titles}"


def test_html_sentence_is_shown_as_literal_text(open_app):
    page = open_app(f"step_by_step?{TOY}")
    type_sentence(page, HTML_SENTENCE)
    no_exception(page)
    assert page.evaluate("() => window.__pwned") is None
    injected = page.evaluate(
        """() => [...document.querySelectorAll('b, strong, script')]
                  .filter(e => /bold|__pwned/.test(e.textContent)).map(e => e.outerHTML)"""
    )
    assert injected == [], injected
    picker = page.locator(f"{testid('stMain')} {testid('stButtonGroup')}").first.inner_text()
    assert "<" in picker and ">" in picker, picker  # the angle brackets are shown, not parsed

    sidebar_link(page, "Attention matrices").click()
    wait_for_app(page)
    no_exception(page)
    assert page.evaluate("() => window.__pwned") is None
    assert (
        page.evaluate(
            "() => [...document.querySelectorAll('b, script')].filter(e => /bold|__pwned/.test(e.textContent)).length"
        )
        == 0
    )
    table = weights_table(page)
    labels = " ".join(table["rows"])
    assert "<" in labels and "script" in labels, labels
    assert_rows_sum_to_one(table["z"])


def test_fresh_server_first_request_is_a_shared_link_to_an_inner_page(app_page):
    """A hosted app waking from sleep gets exactly this request (the fresh-server catch in
    attention_ui/url_state.py)."""
    page = app_page
    with fresh_server() as srv:
        page.goto(srv.url + "matrices?sentence=hello+world+hello&" + TOY)
        wait_for_app(page)
        no_exception(page)
        assert page.get_by_text("Page not found").count() == 0
        assert "matrices" in heading(page).lower()
        assert sentence_input(page).input_value() == "hello world hello"
        table = weights_table(page)
        assert len(table["z"]) == 3
        assert_rows_sum_to_one(table["z"])
        assert table["rows"] == ["1: hello", "2: world", "3: hello"]
        sidebar_link(page, "Step by step").click()  # and the app around it works
        wait_for_app(page)
        no_exception(page)
        assert "step" in heading(page).lower()
        # the settings stay in the URL from page to page, so a refresh loses nothing
        assert query(page).get("sentence") == ["hello world hello"], page.url
        assert query(page).get("toy") == ["true"], page.url
        page.reload()
        wait_for_app(page)
        assert sentence_input(page).input_value() == "hello world hello"
        assert "step" in heading(page).lower()


def test_fresh_server_first_request_to_a_function_page_draws_the_whole_route(app_page):
    """The same first request to another page, with a step and a click: Streamlit runs the page
    file alone, and its last line runs the app's route around it, once: one sidebar, one title,
    the link's sentence, the page's own widgets working."""
    page = app_page
    with fresh_server() as srv:
        page.goto(srv.url + "step_by_step?sentence=hello+world+hello&step=2&" + TOY)
        wait_for_app(page)
        no_exception(page)
        assert page.get_by_text("Page not found").count() == 0
        assert page.locator(f"{testid('stMain')} h1").count() == 1 and "step" in heading(page).lower()
        assert page.locator(testid("stSidebar")).get_by_label("Sentence", exact=True).count() == 1
        assert sentence_input(page).input_value() == "hello world hello"
        assert step_indicator(page)[0] == 2
        token_choice(page, "2: world").click()  # the page's own widgets answer
        wait_for_app(page)
        no_exception(page)
        assert query(page).get("token") == ["2"], page.url


@pytest.mark.parametrize("path", ["step_by_step", "matrices", ""])
def test_bad_url_parameters_give_a_working_page(open_app, path):
    page = open_app(f"{path}?token=999&d_k=-3&step=77&source=xx&toy=maybe&seed=1e99")
    no_exception(page)
    assert page.get_by_text("Page not found").count() == 0
    assert heading(page)
    if path == "step_by_step":
        step, total = step_indicator(page)
        assert 1 <= step <= total
        # ?token=999 fell back to the default query token: left out of the URL, as every default
        assert "token" not in query(page) and "step" not in query(page), page.url
        chosen = page.locator(f'{testid("stMain")} .st-key-token_picker button[aria-checked="true"]')
        assert chosen.count() == 1, "one token is chosen"
    if path == "matrices":
        assert_rows_sum_to_one(weights_table(page)["z"])


CJK = re.compile(r"[\u4e00-\u9fff]")


def test_switch_to_chinese_every_page_and_a_chinese_sentence(open_app):
    """The 中文 switch turns every page Chinese (titles and prose, not just the menu); whatever
    pages the app lists (new ones too), each opens from its sidebar link with a title, keeps
    ?lang=zh and ?toy= from page to page; a Chinese sentence gives one token per character.

    (The walk over the links is done once, in Chinese: the links and the URL they keep are the
    same code in both languages, and every page opens in English in test_drawn_once.py and
    test_screens.py.)"""
    from attention_ui.i18n import translate

    page = open_app(f"?{TOY}&lang=en")
    assert heading(page) == translate("en", "home.title")
    page.locator(f"{testid('stSidebar')} {testid('stButtonGroup')} button").filter(has_text="中文").click()
    wait_for_app(page)
    assert heading(page) == translate("zh", "home.title")
    assert query(page).get("lang") == ["zh"], page.url
    links = page.locator(f"{testid('stSidebar')} {testid('stPageLink')} a")
    labels = [" ".join(t.split()) for t in links.all_inner_texts()]
    assert len(labels) >= 3 and all(CJK.search(label) for label in labels), labels
    for n, label in enumerate(labels):
        links.nth(n).click()
        wait_for_app(page)
        no_exception(page)
        assert page.get_by_text("Page not found").count() == 0, label
        assert CJK.search(heading(page)), f"{label}: the title is not Chinese: {heading(page)!r}"
        main = page.locator(testid("stMain")).inner_text()
        assert len(CJK.findall(main)) > 20, f"{label}: little Chinese text on the page"
        assert query(page).get("lang") == ["zh"], f"{label} lost ?lang=zh: {page.url}"
        assert query(page).get("toy") == ["true"], f"{label!r} lost the settings in the URL: {page.url}"
    sidebar_link(page, translate("zh", "shell.nav_step_by_step")).click()
    wait_for_app(page)
    box = page.locator(testid("stSidebar")).get_by_label(translate("zh", "shell.sentence"), exact=True)
    box.fill("我爱猫")
    box.press("Enter")
    wait_for_app(page)
    no_exception(page)
    picker = page.locator(f"{testid('stMain')} {testid('stButtonGroup')}").first.inner_text()
    assert all(ch in picker for ch in "我爱猫"), picker
    assert query(page).get("sentence") == ["我爱猫"], page.url
