"""A weights file cut short under a running `streamlit run`, in Chromium (issue 44).

A copy of the bundled model is named by $ATTENTION_LAB_MODEL; three learners have Home, Step by
step and Real model heads open on it. The copy's model.safetensors is really cut short (a copy
over it that failed half way); each learner applies a new sentence in the same session: the
pages explain and fall back, a learner who opens the app now too, the server stays up and its
log says it once. Then the file is put back the safe way (a new file renamed over it), and each
open session's next sentence has the model again, without a restart.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

from attention_core import model_files as mf
from attention_ui.i18n import translate
from attention_ui.internals import testid
from harness import no_exception, streamlit_server, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

BOX = ".st-key-sentence textarea"
PAGES = {"": "home", "step_by_step": "step_by_step", "real_model": "real_model"}  # URL path → page id
PROBLEM = translate("en", "shell.problem_checksum")
EXPLAINED = {  # what each page says while the model is unavailable (as at start)
    "home": translate("en", "shell.model_fallback", problem=PROBLEM),
    "step_by_step": translate("en", "shell.model_fallback", problem=PROBLEM),
    "real_model": translate("en", "real_model.unavailable", reason=PROBLEM),
}


def apply_sentence(page, sentence: str) -> None:
    """A learner types a sentence in the sidebar and presses Enter: a rerun of the same session."""
    box = page.locator(BOX)
    box.fill(sentence)
    box.press("Enter")
    wait_for_app(page)


def main_text(page) -> str:
    return page.locator(testid("stMain")).inner_text()


def tokens_shown(page) -> list[str]:
    return [t.strip() for t in page.locator(f"{testid('stMain')} {testid('stButtonGroup')} button").all_inner_texts()]


def test_a_model_cut_short_under_a_running_server_is_explained_and_taken_up_again(tab, tmp_path):
    copy = tmp_path / "model"
    shutil.copytree(mf.bundled_path(), copy)
    weights = copy / mf.WEIGHTS_FILE
    good = weights.read_bytes()
    with streamlit_server(env={mf.MODEL_ENV: str(copy)}) as server:
        learners = {}
        for path, page_id in PAGES.items():
            page = learners[page_id] = tab()
            page.goto(f"{server.url}{path}?lang=en&sentence=the+tailoring+of+shirts")
            wait_for_app(page)
            no_exception(page)
            assert EXPLAINED[page_id] not in main_text(page), page_id
        assert "4: ##ing" in tokens_shown(learners["step_by_step"]), "the model's word pieces, before the cut"

        with open(weights, "r+b") as f:  # a copy over it that failed half way
            f.truncate(len(good) // 2)
        for page_id, page in learners.items():
            apply_sentence(page, "the tailoring of coats")
            no_exception(page)
            assert EXPLAINED[page_id] in main_text(page), f"{page_id}: {main_text(page)[:600]}"
        assert tokens_shown(learners["step_by_step"]) == ["1: the", "2: tailoring", "3: of", "4: coats"]  # the toy's
        newcomer = tab()
        newcomer.goto(f"{server.url}real_model?lang=en")
        wait_for_app(newcomer)
        no_exception(newcomer)
        assert EXPLAINED["real_model"] in main_text(newcomer)
        assert server.process.poll() is None, "the server is still up"

        new = weights.with_name("model.safetensors.new")  # put back the safe way: written beside, renamed over
        new.write_bytes(good)
        os.replace(new, weights)
        started = time.monotonic()
        for page_id, page in learners.items():
            apply_sentence(page, "the tailoring of hats")
            no_exception(page)
            assert EXPLAINED[page_id] not in main_text(page), f"{page_id} has not taken the model up again"
            print(f"{page_id}: the model back {time.monotonic() - started:.2f} s after the file was put back")
        assert "4: ##ing" in tokens_shown(learners["step_by_step"]), "the model's word pieces again"
        assert learners["real_model"].locator(testid("stPlotlyChart")).count() >= 1, "the heads grid is back"
        log = server.log(tail=200_000)
        for page in [*learners.values(), newcomer]:
            page.goto("about:blank")  # these sessions end before their server
    assert log.count("the real model is unavailable") == 1, log[-3000:]
    assert log.count("the real model is readable again") == 1, log[-3000:]
    assert "Traceback" not in log and "Bus error" not in log, log[-3000:]
