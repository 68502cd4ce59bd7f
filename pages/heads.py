"""What do heads do? Every head of the model measured over our probe sentences (chosen on one
set, reported on a held-out one), the contrast test on the learner's own pair and the pronoun
swap, and what an attention map does and does not show.

The numbers come from attention_core.heads (the census), attention_core.contrast (the pair
test) and attention_core.attribution (value-weighted norms, rollout); the words from
head_claims and the catalog. Three views (``?heads_view=``), of which only the chosen one is
built (attention_ui.heads_views draws each)."""

import streamlit as st

from attention_core.model import model_info
from attention_core.model_choice import is_bundled, model_label
from attention_ui.head_claims import head_summary, measured_census, parking_fields
from attention_ui.heads_views import census_view, contrast_view, head_links, pick_head, trust_view
from attention_ui.i18n import t
from attention_ui.model_access import lesson_encoding, model_name, model_unavailable
from attention_ui.problems import problem_text
from attention_ui.route import page_start, run_app
from attention_ui.url_state import url_tabs

VIEWS = ("census", "contrast", "trust")


def render() -> None:
    lesson, _ = page_start("heads")  # without the model: says why, links to the toy pages, stops
    if lesson is None:
        st.stop()
    try:
        with st.spinner(t("shell.loading_model")):
            info = model_info(model_name())
            found = measured_census(model_name())
            encoded = lesson_encoding(lesson)  # the learner's sentence, every head
    except ValueError as exc:
        st.info(t("real_model.unreadable", reason=problem_text(exc)))
        st.stop()
    if found is None or found.held_out is None:  # no census (or no held-out half): nothing to claim about a head
        model_unavailable("heads", "missing")  # says why and stops the run
        return
    held = found.held_out
    sets = {
        "n_plain": found.n_plain,
        "n_agreement": found.n_agreement,
        "n_pairs": found.n_pairs,
        "h_plain": held.n_plain,
        "h_agreement": held.n_agreement,
        "h_pairs": held.n_pairs,
    }
    parking = parking_fields(found, encoded.tokens)

    st.markdown(t("heads.intro", **sets))
    if is_bundled(info.name):
        st.caption(t("heads.english_only"))
    else:  # another model: its census was measured on this server, not read from the file
        st.caption(t("heads.english_probes", model=model_label(info.name)))

    st.subheader(t("heads.h_bench"))
    layer, head = pick_head(info.n_layers, info.n_heads)
    st.markdown(head_summary(found, layer, head))
    head_links(layer, head)

    view = url_tabs("heads_view", VIEWS, lambda v: t(f"heads.view_{v}"), VIEWS[0])
    if view["census"].open:
        with view["census"]:
            census_view(found, info, sets, parking)
    if view["contrast"].open:
        with view["contrast"]:
            contrast_view(lesson, found, layer, head)
    if view["trust"].open:
        with view["trust"]:
            trust_view(encoded, info, parking, layer, head)


if __name__ == "__main__":  # Streamlit ran this file by itself: the app's whole route (attention_ui.registry)
    run_app()
