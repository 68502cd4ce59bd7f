"""The After attention page in a real browser, with the real model: a shared link with a second
sentence is a fresh server's very first request; the similarity Chromium shows is the core's
(held to SentenceTransformer.encode in tests/test_after_attention.py); a sentence B typed in the
page goes into the link, and the link opens the same view again; a link to the table of sentences
opens that view with its sentences."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, quote, urlparse

import numpy as np
import pytest

from attention_core.after_attention import compare_sentences, sentence_table, sentence_vector
from attention_core.lesson import TRAINED_HEAD
from attention_ui.internals import testid
from attention_ui.settings import DEFAULT_SENTENCE
from harness import download_first_csv, fresh_server, no_exception, plotly_data, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SENTENCE_A = DEFAULT_SENTENCE  # the sidebar's default
SENTENCE_B = "A kitten was sleeping on the carpet"
TYPED_B = "Interest rates rose again this year"
ROWS = "A dog barked at the mailman\nThe postman was chased by a dog\nRain is expected tomorrow"


def shown_cosine(page) -> str:
    box = page.locator(testid("stMetric")).filter(has_text="cos(e_A, e_B)")
    return box.locator(testid("stMetricValue")).inner_text().strip()


def expected_cosine(b: str) -> str:
    return f"{compare_sentences(sentence_vector(SENTENCE_A), sentence_vector(b)).cosine:.4f}"


def test_a_shared_link_with_a_second_sentence_opens_on_a_fresh_server(app_page):
    page = app_page
    link = f"after_attention?lang=en&vector_view=compare&compare={quote(SENTENCE_B)}"
    with fresh_server() as srv:
        page.goto(srv.url + link)
        wait_for_app(page)
        no_exception(page)
        assert "After attention" in page.locator(f"{testid('stMain')} h1").first.inner_text()
        assert shown_cosine(page) == expected_cosine(SENTENCE_B)
        query = parse_qs(urlparse(page.url).query)
        assert query.get("compare") == [SENTENCE_B] and query.get("vector_view") == ["compare"], page.url

        box = page.locator(testid("stMain")).get_by_label("Sentence B, to compare with your sentence A", exact=True)
        box.fill(TYPED_B)
        box.press("Enter")
        for _ in range(50):  # the rerun lands, then the browser writes the link
            wait_for_app(page)
            if parse_qs(urlparse(page.url).query).get("compare") == [TYPED_B]:
                break
            page.wait_for_timeout(200)
        no_exception(page)
        assert parse_qs(urlparse(page.url).query).get("compare") == [TYPED_B], page.url
        assert shown_cosine(page) == expected_cosine(TYPED_B)

        download = download_first_csv(page)  # a deferred CSV: written when clicked
        text = Path(download.path()).read_text(encoding="utf-8-sig")
        assert download.suggested_filename == f"concat_layer{TRAINED_HEAD[0] + 1}.csv"  # the default layer, from 1
        assert text.splitlines()[1].startswith("[CLS],") and len(text.splitlines()[0].split(",")) == 1 + 384

        page.goto(page.url)  # the link, opened again, shows the same view
        wait_for_app(page)
        no_exception(page)
        assert shown_cosine(page) == expected_cosine(TYPED_B)

        page.goto(srv.url + f"after_attention?lang=en&vector_view=table&sentences={quote(ROWS)}")
        wait_for_app(page)
        no_exception(page)
        assert parse_qs(urlparse(page.url).query).get("sentences") == [ROWS], page.url
        table = next(f for f in plotly_data(page) if f["title"].startswith("Cosine similarity of every pair"))
        np.testing.assert_allclose(np.array(table["data"][0]["z"]), sentence_table(ROWS).matrix, atol=1e-12)
        assert not page.js_errors, page.js_errors
