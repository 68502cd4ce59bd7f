"""The lesson path (attention_ui/lesson_path.py): every lesson page ends with Back and Next to its
neighbours in the registry's order (the Class page is no step of it), the links keep the sentence
and settings, a page that stops early keeps them, and in presentation mode the route folds the
sidebar after a navigation, not on a rerun of the same page."""

from __future__ import annotations

import pytest

from attention_ui.i18n import translate
from attention_ui.lesson_path import lesson_pages, neighbours
from attention_ui.registry import PAGES, page
from tests.helpers import open_link, open_page_link, path_links

STEPS = [entry.id for entry in PAGES if entry.id != "class"]
"""The lesson path written out here: the menu's order without the Class page."""
FOLD = "stSidebarCollapseButton"
"""What the script that folds the sidebar clicks (``internals.fold_sidebar_script``)."""


def test_the_path_is_the_menu_without_the_class_page():
    assert lesson_pages() == tuple(STEPS)
    assert STEPS[0] == "home" and STEPS[-1] == "code"
    for before, after in zip(STEPS, STEPS[1:]):
        assert neighbours(before)[1] == after and neighbours(after)[0] == before
    assert neighbours("home") == (None, "intuition")
    assert neighbours("exercises") == ("heads", "code")
    assert neighbours("code") == ("exercises", None)
    assert neighbours("class") == (None, None)


def expected_links(page_id: str, lang: str) -> dict[str, tuple[str, str]]:
    """Back and Next of ``page_id``, as (page, label), from ``STEPS``."""
    if page_id not in STEPS:
        return {}
    at = STEPS.index(page_id)
    out = {}
    if at > 0:
        out["back"] = (
            STEPS[at - 1],
            translate(lang, "shell.path_back", page=translate(lang, page(STEPS[at - 1]).nav_key)),
        )
    if at + 1 < len(STEPS):
        out["next"] = (
            STEPS[at + 1],
            translate(lang, "shell.path_next", page=translate(lang, page(STEPS[at + 1]).nav_key)),
        )
    return out


def shown(links: dict) -> dict[str, tuple[str, str]]:
    """The links as (page, label); the first page's link names no page (it is ``/``)."""
    return {name: (link.page or PAGES[0].id, link.label) for name, link in links.items()}


@pytest.mark.parametrize("page_id", [entry.id for entry in PAGES])
def test_each_page_ends_with_back_and_next_to_its_neighbours(page_id):
    at = open_link(page_id, sentence="the cat sat on the mat")
    assert shown(path_links(at)) == expected_links(page_id, "en")


@pytest.mark.parametrize("page_id", ["home", "step_by_step", "exercises", "code"])
def test_back_and_next_in_chinese(page_id):
    links = shown(path_links(open_link(page_id, "zh", sentence="猫坐在垫子上")))
    assert links == expected_links(page_id, "zh")
    assert all(label.startswith(("上一页：", "下一页：")) for _, label in links.values()), links


def test_next_keeps_the_sentence_and_the_settings():
    settings = {"w": "random", "d_k": "8", "seed": "3", "scaled": "false", "present": "true"}
    at = open_link("step_by_step", sentence="the dog chased the ball", **settings)
    following = open_page_link(at, path_links(at)["next"])
    state = following.session_state
    assert path_links(following)["back"].page == "step_by_step"  # it opened Attention matrices
    assert state["sentence"] == "the dog chased the ball"
    assert (state["_keep_w"], state["d_k"], state["seed"], state["scaled"], state["present"]) == (
        "random",
        8,
        3,
        False,
        True,
    )
    assert following.query_params["w"] == "random"


@pytest.mark.parametrize("page_id", ["similarity", "code"])
def test_a_page_that_stops_early_keeps_its_links(page_id):
    """No sentence: the page says so and stops (``st.stop``); Back and Next are still under it."""
    at = open_link(page_id, sentence="   ")
    assert translate("en", f"{page_id}.no_sentence") in [box.value for box in at.info]
    assert shown(path_links(at)) == expected_links(page_id, "en")


def scripts(at) -> str:
    """Every script the run put on the page."""
    return "".join(node.proto.body for node in at.main.get("html"))


def test_presentation_mode_folds_the_sidebar_after_a_navigation_only():
    at = open_link("matrices", present="true", sentence="the cat sat")
    assert FOLD in scripts(at)  # a session's first page (a link opened on the projector)
    at.run()
    assert FOLD not in scripts(at)  # a rerun of the same page: the sidebar stays as the teacher left it
    at.toggle(key="present").set_value(False).run()
    assert FOLD not in scripts(at)
    at.toggle(key="present").set_value(True).run()
    assert FOLD in scripts(at)  # presentation mode turned on again
    assert FOLD not in scripts(open_link("matrices", sentence="the cat sat"))  # not presenting


def test_home_cards_keep_the_sentence_and_the_settings():
    """A card on Home opens its page with the session's sentence and settings, as Next does."""
    at = open_link("home", toy=False, sentence="the dog chased the ball", w="random", seed="3")
    cards = {link.proto.page: link.proto for link in at.main.get("page_link")}
    following = open_page_link(at, cards["matrices"])
    assert following.session_state["sentence"] == "the dog chased the ball"
    assert following.session_state["_keep_w"] == "random" and following.session_state["seed"] == 3
    assert following.query_params["w"] == "random"
