"""The bench's lesson checks can fail: a stub app with a cache keyed on the sentence alone, or
one session's settings leaking into another, fails them; the same stub without the fault passes."""

import random

from bench import lesson_walk as L


def test_the_checker_passes_a_correct_app_and_catches_a_sentence_cache_and_a_leak():
    found = L.self_check(n=12, seed=7)
    assert found["None"] == 0
    assert found["sentence_cache"] > 0
    assert found["leak"] > 0


def test_learners_share_sentences_with_settings_of_their_own():
    learners = L.make_learners(12, "toy", seed=7)
    by_sentence: dict[str, set] = {}
    for learner in learners:
        by_sentence.setdefault(learner.own.sentence, set()).add(learner.own.settings)
    assert any(len(settings) > 1 for settings in by_sentence.values())  # what a sentence cache would mix up
    assert len({learner.own.settings for learner in learners}) == 12
    assert {learner.own.settings.w for learner in learners} == {"random", "identity"}
    assert {learner.own.settings.lang for learner in learners} == {"en", "zh"}
    by_control = [x.own.settings for x in learners if x.own.settings.seed_by_control]
    assert by_control and all("seed=" not in s.query() and s.w == "random" for s in by_control)


def test_model_learners_draw_every_w_and_heads_across_the_model():
    rng = random.Random(3)
    drawn = [L.draw_settings("model", rng) for _ in range(60)]
    assert {s.w for s in drawn} == {"trained", "random", "identity"}
    assert len({(s.layer, s.head) for s in drawn}) > 20
    assert {s.d_k for s in drawn} <= set(range(2, 17))


def test_every_step_is_checked_and_another_learners_numbers_fail():
    a, b = L.make_learners(2, "toy", seed=11)
    exp = a.own
    # step 4 with the right numbers passes both checks; with b's settings on a's sentence it fails
    view = {"step": 4, "numbers": {"products": exp.numbers["products"], "scores": exp.numbers["scores"]}}
    assert L.check(view, "next", 4, exp) == ([], 2)
    other = L.expected_lesson(exp.sentence, b.own.settings, 0)
    bad = {"step": 4, "numbers": {"products": other.numbers["products"], "scores": other.numbers["scores"]}}
    problems, passed = L.check(bad, "next", 4, exp)
    assert passed == 0 and len(problems) == 2
    # a number the step must show that is missing is a problem too
    problems, _ = L.check({"step": 5, "numbers": {}}, "next", 5, exp)
    assert problems and "scaled" in problems[0]
    assert set(L.STEP_NUMBERS) == {2, 3, 4, 5, 6, 7}


def test_the_tokens_table_is_read_from_the_page_html():
    from attention_ui.tables import table_html

    body = table_html({"i": [1, 2], "Token": ["a<b", "猫"], "Known": ["yes", "no"]})
    assert L.tokens_table(["<p>x</p>", body]) == ["a<b", "猫"]
    assert L.tokens_table(["<p>x</p>"]) is None


def test_a_lost_click_is_counted_and_ends_the_walk():
    import asyncio

    from bench.protocol import NoAnswer

    class Silent(L.StubSeat):
        async def do(self, kind, arg=None):
            if kind == "next" and self.step == 3:
                raise NoAnswer("no end of the script run within 1 s")
            return await super().do(kind, arg)

    learner = L.make_learners(1, "toy", seed=5)[0]
    asyncio.run(L.run_class([learner], [Silent(L.StubApp())]))
    assert len(learner.lost) == 1 and learner.lost[0].startswith("next (step 4)")
    assert not learner.finished and learner.errors == []
    assert learner.by_step["step 3"] >= 3 and "step 4" not in learner.by_step


def test_a_chromium_page_is_read_into_the_same_checks():
    """The Chromium seat reads the picker as a learner sees it ("7: *") and the charts from the
    page; the protocol's checks then judge it: right numbers pass, another learner's fail."""
    from bench.classroom import answer_of

    a, b = L.make_learners(2, "toy", seed=11)
    exp = L.expected_lesson(L.sentence_for(6), a.own.settings, 1)  # a sentence with "*" in it
    assert any(label != shown for label, shown in zip(exp.wire_labels, numbered(exp.tokens)))

    def page(numbers: dict) -> dict:
        charts = [
            {"key": "fig_products", "data": [{"type": "heatmap", "z": numbers["products"].tolist()}]},
            {"key": "fig_scores_row", "data": [{"type": "bar", "name": "s", "y": numbers["scores"].tolist()}]},
        ]
        return {
            "picker": [[label, i == exp.i] for i, label in enumerate(numbered(exp.tokens))],
            "charts": [c | {"layout": {"yaxis": {"ticktext": None}}} for c in charts],
            "progress": "Step 4 of 7",
            "html": [],
            "exceptions": [],
        }

    view = L.view_of(answer_of(page(exp.numbers)))
    assert view["options"] == exp.wire_labels and view["chosen"] == exp.wire_labels[exp.i]
    assert L.check(view, "switch", 0, exp) == ([], 2)
    other = L.expected_lesson(exp.sentence, b.own.settings, 1)
    problems, passed = L.check(L.view_of(answer_of(page(other.numbers))), "switch", 0, exp)
    assert passed == 0 and len(problems) == 2


def numbered(tokens: list[str]) -> list[str]:
    """Picker labels as a learner reads them."""
    return [f"{n}: {token}" for n, token in enumerate(tokens, 1)]


def test_the_doctests_of_the_new_bench_modules():
    import doctest
    import importlib

    for name in ("bench.lesson_walk", "bench.bench_sizing", "bench.classroom"):
        failures, tried = doctest.testmod(importlib.import_module(name))
        assert tried > 0 and failures == 0, name
