"""A class answers together, for real: deploy/serve.sh with two app processes behind nginx
(under a base path; the deployment test_deploy_browser.py shares: ``tests/browser/deployment.py``),
a teacher and three students, each in a browser context of their own (their own cookies).

1. The teacher (1024 × 768, presentation mode, English) starts a class; the link on the
   projector starts with serve.sh's ``--base-url``, and the QR code holds that link.
2. Three students (390 px, phones) open the link; two choose one key, one another; one taps
   Send twice. The teacher's bars show 3 answers, 67 % and 33 %, without a reload.
3. A student's page has no teacher button, and the Class page opened with the class code alone
   (what a student could type from the projector) is a student's view.
4. The teacher reveals; each student's phone says right or wrong.
5. One app process is killed (serve.sh starts it again), then the whole of serve.sh is stopped
   and started again on the same database: the teacher's page comes back (its cookie), still with
   the three answers, revealed; a student's answer is still theirs.
6. A second class, in Chinese, with three other students: its bars count only its own answers;
   the first class's are unchanged.

Waits are generous (two cores shared with other tests); the delay from an answer to the bar is
measured by bench/bench_class.py, not asserted here.
"""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from attention_core import class_questions as cq
from attention_ui.i18n import translate
from classroom.store import open_store
from harness import testid, wait_for_app


def verdict_words(key: str) -> str:
    """The words after the answer in a student's verdict (``class.yours_right`` / ``yours_wrong``):
    "Right!" or "Not quite.", which only the revealed verdict shows."""
    return translate("en", f"class.{key}", answer="\0").split("\0")[1].strip(" .")


pytestmark = [pytest.mark.browser, pytest.mark.timeout(1500)]

WAIT = 90_000  # ms


def counts_text(lang: str, joined: int, answered: int) -> str:
    return translate(lang, "class.counts", joined=joined, answered=answered)


def start_class(browser, url: str, lang: str):
    ctx = browser.new_context(viewport={"width": 1024, "height": 768})
    ctx.set_default_timeout(WAIT)
    page = ctx.new_page()
    page.goto(f"{url}class?lang={lang}&present=true")
    wait_for_app(page, timeout=WAIT)
    page.get_by_role("button", name=translate(lang, "class.start")).click()
    page.wait_for_selector(".al-class-code")
    code = page.locator(".al-class-code").inner_text().replace(" ", "")
    link = page.locator(".al-class-link").inner_text()
    return ctx, page, code, link


def student(browser, link: str, lang: str):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    ctx.set_default_timeout(WAIT)
    page = ctx.new_page()
    page.goto(f"{link}&lang={lang}")
    page.wait_for_selector(testid("stForm"))
    wait_for_app(page, timeout=WAIT)
    return ctx, page


def answer(page, lang: str, j: int, taps: int = 1) -> None:
    page.locator(f'{testid("stMain")} {testid("stRadio")} [role="radiogroup"] label').nth(j).click()
    button = page.get_by_role("button", name=translate(lang, "class.send"))
    for _ in range(taps):
        button.click()
    page.get_by_text(translate(lang, "class.may_change")).wait_for()


def wait_for_counts(page, lang: str, joined: int, answered: int) -> None:
    page.get_by_text(counts_text(lang, joined, answered)).wait_for(timeout=WAIT)


def bar_numbers(page) -> list[str]:
    return [t.strip() for t in page.locator(".al-class-bars tbody .al-num").all_inner_texts()]


def started_again(srv, port: int, timeout: float = 120) -> None:
    """Until serve.sh says it started the app process of ``port``, which died, again (it waits
    5 s before it does)."""
    again = re.compile(rf"started the app process on port {port} again")
    deadline = time.monotonic() + timeout
    while not again.search(srv.output(20000)):
        assert time.monotonic() < deadline, f"the killed app process was not started again:\n{srv.logs()}"
        time.sleep(0.2)


def test_a_class_answers_together_through_two_processes(chromium, deployment):
    db, base = deployment.db, deployment.base_url
    contexts = []
    try:
        srv = deployment.running()  # shared: it may have served another test before
        ctx, teacher, code, link = start_class(chromium, srv.url, "en")
        contexts.append(ctx)
        assert link == f"{base}/exercises?class={code}"
        assert teacher.locator("img.al-qr-img").get_attribute("src").startswith("data:image/svg+xml")
        assert "teacher" not in teacher.url

        store = open_store(db)
        state = store.state(code)
        keys = len(cq.outcomes(state.round.kind, state.round.seed))
        assert keys >= 2
        phones = []
        for _ in range(3):
            sctx, page = student(chromium, link, "en")
            contexts.append(sctx)
            phones.append(page)
        wait_for_counts(teacher, "en", 3, 0)
        answer(phones[0], "en", 0)
        answer(phones[1], "en", 0, taps=2)  # a double tap
        answer(phones[2], "en", 1)
        wait_for_counts(teacher, "en", 3, 3)  # redrawn by the fragment: no reload
        numbers = bar_numbers(teacher)
        assert numbers[0] == "67 % (2)" and numbers[1] == "33 % (1)", numbers
        assert store.counts(code, 1) == {"key:0": 2, "key:1": 1}

        # a student has no teacher button, on the Exercises page or on the Class page
        reveal = translate("en", "class.reveal")
        assert phones[0].get_by_role("button", name=reveal).count() == 0
        phones[0].goto(f"{srv.url}class?class={code}&lang=en")
        phones[0].wait_for_selector(testid("stForm"))
        wait_for_app(phones[0], timeout=WAIT)
        assert phones[0].get_by_role("button", name=reveal).count() == 0
        assert store.state(code).students == 3  # the same student, not a fourth

        teacher.get_by_role("button", name=reveal).click()
        teacher.locator(".al-class-bars tr.al-right").first.wait_for()
        right = state and cq.right_outcomes(state.round.kind, state.round.seed)
        for n, page in enumerate(phones):
            mine = "key:0" if n < 2 else "key:1"
            page.get_by_text(verdict_words("yours_right" if mine in right else "yours_wrong")).first.wait_for()

        # one app process dies: serve.sh starts it again; nothing is lost
        port, pid = next(iter(srv.app_pids().items()))
        os.kill(pid, signal.SIGKILL)
        started_again(srv, port)
        teacher.reload()
        wait_for_counts(teacher, "en", 3, 3)

        # serve.sh stopped: every process is gone. Start it again on the same database.
        srv = deployment.restart()
        teacher.reload()
        wait_for_counts(teacher, "en", 3, 3)  # the teacher's cookie, the stored answers
        assert teacher.locator(".al-class-bars tr.al-right").count() >= 1
        assert bar_numbers(teacher)[:2] == ["67 % (2)", "33 % (1)"]
        phones[2].reload()
        phones[2].get_by_text(verdict_words("yours_right")).or_(
            phones[2].get_by_text(verdict_words("yours_wrong"))
        ).first.wait_for()

        # another class, in Chinese: none of the first class's answers
        ctx2, teacher2, code2, link2 = start_class(chromium, srv.url, "zh")
        contexts.append(ctx2)
        assert code2 != code
        wait_for_counts(teacher2, "zh", 0, 0)
        for n in range(3):
            sctx, page = student(chromium, link2, "zh")
            contexts.append(sctx)
            answer(page, "zh", 1 if n else 0)
        wait_for_counts(teacher2, "zh", 3, 3)
        numbers = bar_numbers(teacher2)
        assert numbers[0] == "33 % (1)" and numbers[1] == "67 % (2)", numbers
        assert store.counts(code, 1) == {"key:0": 2, "key:1": 1}
        assert store.counts(code2, 1) == {"key:0": 1, "key:1": 2}
    finally:
        for ctx in contexts:
            ctx.close()
