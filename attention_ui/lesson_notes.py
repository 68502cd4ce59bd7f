"""What a page says about the lesson it teaches on: which numbers are real and which illustrative
(``honesty_banner``), the words the model cannot read (``unknown_tokens_help``), and the window
over a sentence longer than a lesson reads (``window_start``, ``window_control``).
"""

from __future__ import annotations

import streamlit as st

from attention_core import Lesson
from attention_core.lesson import unknown_texts
from attention_core.model_choice import model_label
from attention_core.model_files import MODEL_ENV
from attention_core.text import has_cjk
from attention_ui.head_claims import measured_census, parking_fields
from attention_ui.i18n import t
from attention_ui.model_access import better_readers, choose_model, model_label_now, model_name
from attention_ui.notation import shown
from attention_ui.presentation import is_presenting, screen_only
from attention_ui.safe import escape_markdown
from attention_ui.url_state import keep_in_url, remember, url_value


def honesty_banner(lesson: Lesson) -> None:
    """Say exactly which numbers are real and which are illustrative, for the lesson's W; in
    presentation mode in a closed expander whose label says the gist, so that the page's
    chart fits on a 768 px projector's first screen."""
    settings = lesson.settings
    if lesson.trained:
        text = t(
            "shell.honest_trained",
            model=model_label(lesson.embedder_name),
            layer=shown(settings.layer),
            head=shown(settings.head),
            d_k=lesson.trace.d_k,
        )
        if not settings.scaled:
            text += " " + t("shell.honest_trained_unscaled")
        found = measured_census(model_name())
        if found is not None:
            text += " " + t("shell.honest_special_tokens", **parking_fields(found, lesson.tokens))
    else:
        words = (
            t("shell.honest_real_embeddings", model=model_label(lesson.embedder_name))
            if lesson.real_embeddings
            else t("shell.honest_toy_embeddings")
        )
        proj = t("shell.honest_random_w") if lesson.projections.kind == "random" else t("shell.honest_identity_w")
        text = words + " " + proj
    if is_presenting():  # on a projector the chart comes first; the whole text is one click away
        label = "shell.honest_label_real" if lesson.trained and settings.scaled else "shell.honest_label_mixed"
        with st.expander(t(label), icon=":material/info:"):
            st.caption(text)
    else:
        st.caption(text)
    if lesson.unknown:
        n_pieces = len(lesson.tokens) - (2 if lesson.trained else 0)  # [CLS] and [SEP] are no words of the sentence
        unknown_tokens_help(lesson.text, lesson.unknown_words, len(lesson.unknown), n_pieces, offer_toy=True)


MAX_LISTED = 20  # unknown words named in the message; more end in "…"


def _use_toy() -> None:
    state = st.session_state
    state["toy"] = True
    remember("toy", True)
    if state.get("w") == "trained":  # the toy embedder has no trained heads
        state["w"] = "random"
        remember("w", "random")


def listed_tokens(lesson: Lesson, encoded=None) -> list[str]:
    """The lesson's tokens as a list of them reads them (the token pickers): an unknown token
    with the learner's text it replaced beside it, "[UNK] 他" (``attention_core.lesson.unknown_texts``),
    so that a class can tell which [UNK] is which word; the others as they are. Raw text: the
    pickers escape it.

    ``encoded``: the same window through the whole model (``model_access.lesson_encoding``), for
    the pages that list its tokens: they begin with [CLS] even where the lesson's (a random W on
    the model's embeddings) do not, so ["[UNK]", "is"] of the lesson lists as
    ["[CLS]", "[UNK] 他", "is", "[SEP]"]."""
    tokens = lesson.tokens if encoded is None else list(encoded.tokens)
    shift = 1 if encoded is not None and lesson.encoded is None else 0  # the model's [CLS] comes first
    replaced = {i + shift: text for i, text in unknown_texts(lesson).items()}
    return [f"{token} {replaced[i]}" if i in replaced else token for i, token in enumerate(tokens)]


def unknown_tokens_help(sentence: str, words, n_unknown: int, n_total: int, *, offer_toy: bool) -> None:
    """Say plainly that the model cannot represent some word pieces of ``sentence``, name the
    words behind its unknown token ([UNK], <unk>), and offer what works: another installed model
    that knows more of them (a button per model, ``better_readers``), the toy embedder (a button,
    offline) and, when some of them are Chinese and no installed model reads them better, how to
    install a multilingual model; an emoji in an English sentence gets no hint about Chinese.
    On a projector (presentation mode) all that is folded under one line that says how many
    pieces the model cannot read (``_notice``)."""
    from attention_core.encoder import load_encoder

    listed = [escape_markdown(w) for w in list(words)[:MAX_LISTED]] + (["…"] if len(words) > MAX_LISTED else [])
    unk = load_encoder(model_name()).unk_token or "[UNK]"
    text = t("shell.unknown_tokens", unknown=n_unknown, total=n_total, unk=unk, model=model_label_now())
    if listed:
        text += " " + t("shell.unknown_words", words=t("shell.list_sep").join(listed))
    better = better_readers(sentence)
    short = t("shell.unknown_short", unknown=n_unknown, total=n_total, unk=unk)
    with _notice(short):
        st.warning(text)
        for found in better:
            st.button(
                t("shell.use_model", label=found.model.label, unknown=found.unknown, pieces=found.pieces),
                on_click=choose_model,
                args=(found.model.id,),
                key=f"use_model_{found.model.id}",
                icon=":material/translate:",
            )
        if offer_toy:
            st.button(t("shell.use_toy"), on_click=_use_toy, key="use_toy", icon=":material/toys:")
        else:
            st.caption(t("shell.toy_elsewhere"))
        if not better and any(has_cjk(word) for word in words):
            st.caption(t("shell.multilingual", env=MODEL_ENV))


def _notice(short: str):
    """Where the unknown-token notice goes: a bordered box, or in presentation mode a closed
    expander labelled ``short`` (one line: the room reads the count, the teacher opens the rest)."""
    if is_presenting():
        return st.expander(short, icon=":material/warning:")
    return st.container(border=True)


_WINDOW_KEY = "first_picker"  # the window slider's key; its value is the first token shown, from 1
_WINDOW_TEXT = "_first_text"  # the sentence the slider's value belongs to


def window_start(sentence: str) -> int:
    """Where the window over a long sentence starts (0-based): the slider's value, else the link's
    ``?first=`` (counted from 1), else the start; back to the start when the sentence changed."""
    state = st.session_state
    if state.get(_WINDOW_TEXT) != sentence:
        state.pop(_WINDOW_KEY, None)
        raw = url_value("first") if state.get(_WINDOW_TEXT) is None else None  # a link's, on its first run
        state[_WINDOW_TEXT] = sentence
        try:
            return max(int(raw) - 1, 0) if raw is not None else 0
        except ValueError:
            return 0
    chosen = state.get(_WINDOW_KEY)
    return int(chosen) - 1 if isinstance(chosen, int) else 0


def window_control(lesson: Lesson) -> None:
    """A long sentence: say which tokens are shown, and let the learner move the window over it."""
    shown_n = len(lesson.tokens) - (2 if lesson.trained else 0)  # [CLS] and [SEP] are no word pieces
    total = lesson.n_tokens - (2 if lesson.trained else 0)
    first, last = lesson.first + 1, lesson.first + shown_n
    key = "shell.pieces_window" if lesson.trained else "shell.tokens_window"
    st.info(t(key, total=total, first=first, last=last, shown=shown_n, cls=lesson.tokens[0], sep=lesson.tokens[-1]))
    st.session_state[_WINDOW_KEY] = first  # where the window is, also after the core moved it back
    with screen_only("window"):  # paper has no slider
        st.caption(t("shell.window_move"))
        st.slider(t("shell.window"), 1, total - shown_n + 1, key=_WINDOW_KEY, help=t("shell.window_help"))
    keep_in_url("first", first, 1)
