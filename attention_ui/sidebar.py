"""The sidebar every page shares: the language switch, the page links, the sentence and the
settings (``sidebar``), and the choices of a trained head that pages offer too (``choose_head``).

``route.run_app`` draws it on every run of every page, before the page, so its widgets keep
their values and URL parameters when another page opens (widgets drawn by a page lose theirs).
"""

from __future__ import annotations

import streamlit as st

from attention_core import MAX_TOKENS, LessonSettings
from attention_core.lesson import PROJECTIONS
from attention_core.text import CJK_MODES, has_cjk, word_segmenter_available
from attention_ui.busy import BUSY_SCRIPT, busy_note, slow_run
from attention_ui.head_claims import head_summary, measured_census
from attention_ui.i18n import LANGS, t
from attention_ui.model_access import model_control, model_name, model_or_problem, model_shape, toy_dim
from attention_ui.notation import shown
from attention_ui.preload import PRELOAD_SCRIPT
from attention_ui.presentation import presentation_toggle
from attention_ui.registry import PAGES, page, page_link
from attention_ui.sentence_box import ENTER_SCRIPT, PHONE_SCRIPT, sentence_box
from attention_ui.settings import DEFAULTS, init_lang, link_params
from attention_ui.style import sidebar_script
from attention_ui.url_state import keep_in_url, remember, remembered, seed_choice, url_choice, url_int, url_picker
from attention_ui.watchdog import WATCHDOG_SCRIPT

D_K_RANGE = (2, 16)
CLIENT_SCRIPT = BUSY_SCRIPT + ENTER_SCRIPT + PHONE_SCRIPT + PRELOAD_SCRIPT + WATCHDOG_SCRIPT
"""The sidebar's own scripts, the waiting note's (``busy``), the sentence box's Enter and its
phone button (``sentence_box``), the early load of the charts' code (``preload``) and the reload
of a page stuck disconnected (``watchdog``), in one element: each script element takes a line of
the sidebar."""


def sidebar(page_id: str) -> tuple[str, str, LessonSettings, object]:
    """Draw the shared sidebar for page ``page_id``; return (sentence, source, settings) and the
    sidebar's empty slot at its foot, for the link to this view (``route.share_link``)."""
    with st.sidebar:
        language_switch()
        nav = st.container()  # filled last, once the widgets have put their values in the URL
        busy_note(t("shell.busy"), t("shell.click_lost"))  # first: "Working…", a lost click (busy.py)
        slow_run()  # a slow run on purpose, only when $ATTENTION_LAB_SLOW_RUN says so
        st.header(t("shell.your_sentence"))
        sentence = sentence_box(
            t("shell.sentence"), DEFAULTS["sentence"], t("shell.sentence_help", max_tokens=MAX_TOKENS)
        )
        st.header(t("shell.settings"))
        toy = st.toggle(t("shell.toy"), key="toy", bind="query-params", help=t("shell.toy_help"), value=DEFAULTS["toy"])
        model = model_control(sentence or "", toy)
        down = not toy and model_or_problem()[0] is None  # the toy embedder stands in for the model
        cjk = _cjk_control(sentence or "", toy or down)
        w = w_control(toy, down=down)  # the learner's choice, kept for when the model is back
        applied = "random" if down and w == "trained" else w  # what the page uses (route.page_start)
        layer, head = trained_head(model_shape(), show_pickers=pickers_in_sidebar(applied, page_id))
        d_k = d_k_control(applied, toy)
        seed = st.number_input(
            t("shell.seed"),
            0,
            10_000,
            step=1,
            key="seed",
            bind="query-params",
            disabled=applied != "random",
            value=DEFAULTS["seed"],
        )
        scaled = st.toggle(t("shell.scaled"), key="scaled", bind="query-params", value=DEFAULTS["scaled"])
        trained = applied == PROJECTIONS[0]
        positional = st.toggle(
            t("shell.positional"),
            key="positional",
            bind="query-params",
            value=DEFAULTS["positional"],
            disabled=trained,
            help=t("shell.positional_trained") if trained else None,
        )
        presentation_toggle()
        share_box = st.container()  # filled after the page (route.share_link)
        sidebar_script()
        st.html(CLIENT_SCRIPT, unsafe_allow_javascript=True)
    values = {
        "sentence": sentence,
        "toy": toy,
        "w": w,
        "layer": layer,
        "head": head,
        "d_k": d_k,
        "seed": seed,
        "scaled": scaled,
        "positional": positional,
        "cjk": cjk,
        "model": model,
    }
    for key, value in values.items():
        remember(key, value)
    other, same = link_params(**values), link_params(same_page=True, **values)
    with nav:
        for entry in PAGES:
            page_link(entry.id, same if entry.id == page_id else other)
    source = "toy" if toy else "model"
    settings = LessonSettings(
        projection=w,
        layer=int(layer),
        head=int(head),
        d_k=int(d_k),
        seed=int(seed),
        scaled=bool(scaled),
        positional=bool(positional),
        max_tokens=MAX_TOKENS,
        cjk=cjk,
    )
    return sentence or "", source, settings, share_box


def _set_lang() -> None:
    chosen = st.session_state.get("lang_picker")
    if chosen in LANGS:
        st.session_state["lang"] = chosen
        keep_in_url("lang", chosen)


def language_switch() -> str:
    """The English / 中文 switch at the top of the sidebar; returns the language."""
    lang = init_lang()
    st.session_state["lang_picker"] = lang  # widget state is dropped on page change: set it each run
    st.segmented_control(
        t("shell.language"),
        list(LANGS),
        format_func=LANGS.__getitem__,
        key="lang_picker",
        on_change=_set_lang,
        label_visibility="collapsed",
    )
    return lang


def _cjk_control(sentence: str, toy: bool) -> str:
    """How Chinese text is cut ("chars" or "words"): a sidebar choice shown only when the
    sentence has CJK characters, kept in the URL as ?cjk= and across pages. It applies to
    the toy embedder; the real model always uses its own tokenizer."""
    mode = url_choice(
        t("shell.cjk"),
        "cjk",
        CJK_MODES,
        DEFAULTS["cjk"],
        lambda m: t(f"shell.cjk_{m}"),
        shown=has_cjk(sentence),
        required=False,  # clicking the chosen option off keeps it
        selection_mode="single",
        disabled=not toy,
        help=t("shell.cjk_help") if toy else t("shell.cjk_model_help"),
    )
    if mode == "words" and toy and not word_segmenter_available():
        st.caption(t("shell.segmenter_missing"))
    return mode


TOY_PROJECTIONS = PROJECTIONS[1:]
"""What W can be with the toy embedder, which has no trained heads: random or identity."""


def w_control(toy: bool, *, down: bool = False) -> str:
    """The choice of W^Q, W^K, W^V, kept in the URL as ``?w=``: trained, random or identity with
    the real model; with the toy embedder only what applies to it (``TOY_PROJECTIONS``; random
    instead of trained), so that the sidebar never names a trained head the page does not use.

    ``down``: the real model is unavailable (a damaged or missing weights file), so the pages run
    on the toy embedder and random W stands in for a trained head: the control offers
    ``TOY_PROJECTIONS`` too, and a learner's trained choice is kept (returned, in the URL) under a
    control that shows random, so that the trained head comes back with the model (``_w_down``).

    >>> TOY_PROJECTIONS
    ('random', 'identity')
    """
    if not toy and not down:
        return url_choice(t("shell.w"), "w", PROJECTIONS, DEFAULTS["w"], _w_label, help=t("shell.w_help"))
    help_text = t("shell.w_toy_help") if toy else t("shell.w_down_help")
    if down and seed_choice("w", PROJECTIONS, DEFAULTS["w"]) == "trained":
        st.segmented_control(
            t("shell.w"),
            TOY_PROJECTIONS,
            format_func=_w_label,
            default="random",  # what the page uses for the trained head it cannot read
            required=True,
            key="w_down",
            on_change=_w_down,
            help=help_text,
        )
        return url_choice(t("shell.w"), "w", PROJECTIONS, DEFAULTS["w"], _w_label, shown=False)
    return url_choice(  # ?w=random is written too: the URL and the links say W against the shared default
        t("shell.w"), "w", TOY_PROJECTIONS, "random", _w_label, url_default=DEFAULTS["w"], help=help_text
    )


def _w_down() -> None:
    """The learner chose W while the model is down: from now on that choice is theirs, kept as
    with the toy embedder (random stays random when the model is back)."""
    chosen = st.session_state.get("w_down")
    if chosen in TOY_PROJECTIONS:
        st.session_state["w"] = chosen
        remember("w", chosen)


def _w_label(kind: str) -> str:
    return t(f"shell.w_{kind}")


def d_k_control(w: str, toy: bool) -> int:
    """The d_k slider when W is random (trained W without the model, on the toy embedder or when
    the model is unavailable, falls back to random);
    otherwise no slider, which would show a d_k the page does not use, but a line with the d_k
    that is: the trained head's own, or d_model for the identity. Returns the random W's d_k."""
    embedder, _ = (None, None) if toy else model_or_problem()
    if w == "random" or (w == "trained" and embedder is None):  # no model (toy, or unavailable): random W
        return st.slider(t("shell.d_k"), *D_K_RANGE, key="d_k", bind="query-params", value=DEFAULTS["d_k"])
    if w == "trained" and embedder is not None:
        from attention_core.model import model_info

        info = model_info(embedder.name)
        st.caption(t("shell.d_k_fixed_trained", d_k=info.d_head, d_model=info.d_model, n_heads=info.n_heads))
    else:
        st.caption(t("shell.d_k_fixed_identity", d_k=embedder.dim if embedder else toy_dim()))
    return int(remembered("d_k", DEFAULTS["d_k"]))


def pickers_in_sidebar(w: str | None, page_id: str) -> bool:
    """Whether the sidebar draws the layer and head pickers: with trained W, on every page but
    those that draw them beside their grid of heads (``registry.Page.head_pickers``). A page that
    needs a layer without them (After attention, whose model runs whatever W is) draws its own.

    >>> pickers_in_sidebar("trained", "matrices"), pickers_in_sidebar("random", "matrices")
    (True, False)
    >>> pickers_in_sidebar("trained", "heads")
    False
    """
    return w == "trained" and not page(page_id).head_pickers


def trained_head(shape: tuple[int, int], *, show_pickers: bool) -> tuple[int, int]:
    """The trained head (layer, head), kept in the URL as ?layer=&head= and across pages.

    With ``show_pickers`` the layer and head are chosen here (segmented controls); the Real
    model heads page draws the same pickers itself, next to its grid of heads."""
    n_layers, n_heads = shape
    if not show_pickers:
        return (
            url_int("layer", n_layers, DEFAULTS["layer"], clamp=True),
            url_int("head", n_heads, DEFAULTS["head"], clamp=True),
        )
    layer = url_picker(t("shell.layer"), "layer", n_layers, default=DEFAULTS["layer"], clamp=True)
    head = url_picker(t("shell.head"), "head", n_heads, default=DEFAULTS["head"], clamp=True)
    found = measured_census(model_name())
    if found is not None:
        st.caption(head_summary(found, layer, head, brief=True))
        heads_with_a_job_buttons()
    return layer, head


def choose_head(layer: int, head: int) -> None:
    """Make (``layer``, ``head``) the trained head, 0-based: a callback (a button, a click on a
    grid of heads), so it runs before the pickers are drawn and they show the new head."""
    state = st.session_state
    state["layer"] = state["layer_picker"] = int(layer)
    state["head"] = state["head_picker"] = int(head)
    remember("layer", int(layer))
    remember("head", int(head))


def heads_with_a_job_buttons() -> None:
    """One button per head with a measured job (previous token, next token, he/she): a click
    makes it the trained head."""
    from attention_core.heads import heads_with_a_job

    found = measured_census(model_name())
    if found is None:
        return
    st.caption(t("shell.jobs_label"))
    with st.container(horizontal=True, gap="small"):
        for job in heads_with_a_job(found):
            st.button(
                t(f"heads.job_{job.job}", layer=shown(job.layer), head=shown(job.head), score=job.score),
                key=f"job_{job.job}",
                on_click=choose_head,
                args=(job.layer, job.head),
                help=t(f"heads.job_{job.job}_help", **vars(job.held_out)),  # the held-out figure
                type="secondary",
            )
