"""The Streamlit shell every page shares: the sidebar settings, the cached embedder and the
honesty banner. The one place for st.cache_*.

Each page calls ``page_start()`` first. It works whether the page runs inside app.py's
st.navigation or alone (the first request of a fresh server can route a shared link
straight to a page file, see GUIDE.md §5).
"""

from __future__ import annotations

import streamlit as st

from attention_core import MAX_CHARS, MAX_TOKENS, Lesson, LessonSettings, ToyEmbedder, build_lesson

DEFAULT_SENTENCE = "The cat sat on the mat because it was tired"
D_K_RANGE = (2, 16)


@st.cache_resource(show_spinner=False)
def _model_embedder():
    """Load the bundled model once per server. Returns (embedder, None) or (None, reason)."""
    from attention_core.model import ModelEmbedder, ModelUnavailable, load_model

    try:
        load_model()
        return ModelEmbedder(), None
    except ModelUnavailable as exc:
        return None, str(exc)
    except MemoryError:
        return None, "not enough memory to load the model"


@st.cache_resource(show_spinner=False)
def _toy_embedder():
    return ToyEmbedder(dim=8)


def get_embedder(source: str):
    """The embedder for ``source`` ("model" or "toy"), and a message if it had to fall back."""
    if source == "model":
        with st.spinner("Loading the real model (all-MiniLM-L6-v2) — only the first time, a few seconds…"):
            embedder, problem = _model_embedder()
        if embedder is not None:
            return embedder, None
        return _toy_embedder(), f"The real model could not be loaded ({problem}); showing the toy embedder instead."
    return _toy_embedder(), None


NAV = [
    ("pages/home.py", "Home", "🏠"),
    ("pages/step_by_step.py", "Step by step", "👣"),
    ("pages/matrices.py", "Attention matrices", "🧮"),
    ("pages/why_scaling.py", "Why √d_k", "📏"),
    ("pages/real_model.py", "Real model heads", "🤖"),
]


DEFAULTS = {"sentence": DEFAULT_SENTENCE, "toy": False, "identity": False, "d_k": 4, "seed": 0,
            "scaled": True, "positional": True}
"""The shared settings and their defaults; each is bound to the URL parameter of its name."""


def _carry_over_settings(page: str) -> None:
    """Keep the shared settings when another page opens.

    Streamlit forgets a page's widget state when another page opens, so every run stores
    the values under "_keep_<key>"; the first run of a newly opened page puts them back
    before its widgets are created.
    """
    state = st.session_state
    if state.get("_page") != page:
        for key in DEFAULTS:
            if f"_keep_{key}" in state:
                state[key] = state[f"_keep_{key}"]
    state["_page"] = page


def sidebar(page: str) -> tuple[str, str, LessonSettings]:
    """Draw the shared sidebar for ``page``; return (sentence, source, settings)."""
    _carry_over_settings(page)
    with st.sidebar:
        nav = st.container()  # filled last, once the widgets have put their values in the URL
        st.header("Your sentence")
        sentence = st.text_input("Sentence", max_chars=MAX_CHARS, key="sentence", bind="query-params",
                                 help=f"Press Enter to apply. Up to {MAX_TOKENS} tokens are shown.",
                                 value=DEFAULTS["sentence"])
        st.header("Settings")
        toy = st.toggle("Toy embedder (8-d, illustrative) instead of the real model", key="toy",
                        bind="query-params", help="The real model is all-MiniLM-L6-v2, bundled and offline.",
                        value=DEFAULTS["toy"])
        identity = st.toggle("Identity W^Q, W^K, W^V (q = k = v = a)", key="identity", bind="query-params",
                             value=DEFAULTS["identity"])
        d_k = st.slider("d_k (size of q and k)", *D_K_RANGE, key="d_k", bind="query-params", disabled=identity,
                        value=DEFAULTS["d_k"])
        seed = st.number_input("Random seed for W^Q, W^K, W^V", 0, 10_000, step=1, key="seed",
                               bind="query-params", disabled=identity, value=DEFAULTS["seed"])
        scaled = st.toggle("Divide scores by √d_k", key="scaled", bind="query-params", value=DEFAULTS["scaled"])
        positional = st.toggle("Add positional encoding", key="positional", bind="query-params",
                               value=DEFAULTS["positional"])
    values = {"sentence": sentence, "toy": toy, "identity": identity, "d_k": d_k, "seed": seed,
              "scaled": scaled, "positional": positional}
    for key, value in values.items():
        st.session_state[f"_keep_{key}"] = value
    shared = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in values.items() if v != DEFAULTS[k]}
    with nav:
        for path, label, icon in NAV:
            st.page_link(path, label=label, icon=icon, query_params=shared)
    source = "toy" if toy else "model"
    settings = LessonSettings(d_k=int(d_k), projection="identity" if identity else "random", seed=int(seed),
                              scaled=bool(scaled), positional=bool(positional), max_tokens=MAX_TOKENS)
    return sentence or "", source, settings


def page_start(title: str) -> tuple[Lesson | None, str]:
    """Page config, sidebar and the lesson for the current sentence.

    Returns (lesson, source); lesson is None (and a friendly message is shown) when the
    sentence cannot be used.
    """
    st.set_page_config(page_title=f"{title} · Attention Lab", page_icon="🔎", layout="wide")
    sentence, source, settings = sidebar(title)
    embedder, warning = get_embedder(source)
    if warning:
        st.warning(warning)
    try:
        lesson = build_lesson(sentence, embedder, settings)
    except ValueError as exc:
        st.info(f"Type a sentence in the sidebar to begin ({exc}).")
        return None, source
    if lesson.truncated:
        st.info(f"Your sentence has {lesson.n_tokens} tokens; the first {len(lesson.tokens)} are shown "
                "so every number stays readable.")
    return lesson, source


def honesty_banner(lesson: Lesson) -> None:
    """Say which numbers are real and which are illustrative."""
    if lesson.real_embeddings:
        words = "**Real:** the learned word embeddings of all-MiniLM-L6-v2 and the formula. "
    else:
        words = "**Illustrative:** the toy embedder's word vectors carry no meaning. **Real:** the formula. "
    proj = ("**Illustrative:** W^Q, W^K, W^V are seeded random matrices, not trained ones."
            if lesson.projections.kind == "random" else "W^Q = W^K = W^V = I: the inputs themselves are q, k and v.")
    st.caption("ℹ️ " + words + proj)
    if lesson.unknown:
        st.warning(f"{len(lesson.unknown)} of {len(lesson.tokens)} tokens are [UNK]: the model does not know them "
                   "(the bundled model's vocabulary is English). Try the toy embedder for Chinese text.")


def url_int(name: str, count: int, default: int = 0) -> int:
    """Session value ``name`` (seeded once from the URL), clamped to 0..count-1, kept in the URL.

    Hand-typed values (``?token=999``, ``?step=abc``) fall back to ``default`` silently.
    """
    state = st.session_state
    seeded = f"_seeded_{name}"
    if not state.get(seeded):
        state[seeded] = True
        raw = st.query_params.get(name)
        try:
            state[name] = int(raw) if raw is not None else default
        except ValueError:
            state[name] = default
    value = state.get(name)
    if not isinstance(value, int) or not 0 <= value < count:
        value = default
    state[name] = value
    st.query_params[name] = str(value)
    return value
