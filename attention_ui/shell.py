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
]


def sidebar() -> tuple[str, str, LessonSettings]:
    """Draw the shared sidebar; return (sentence, source, settings)."""
    with st.sidebar:
        for path, label, icon in NAV:
            st.page_link(path, label=label, icon=icon)
        st.header("Your sentence")
        sentence = st.text_input("Sentence", value=DEFAULT_SENTENCE, max_chars=MAX_CHARS, key="sentence",
                                 bind="query-params", help="Press Enter to apply. Up to "
                                 f"{MAX_TOKENS} tokens are shown.")
        st.header("Settings")
        toy = st.toggle("Toy embedder (8-d, illustrative) instead of the real model", value=False, key="toy",
                        bind="query-params", help="The real model is all-MiniLM-L6-v2, bundled and offline.")
        source = "toy" if toy else "model"
        identity = st.toggle("Identity W^Q, W^K, W^V (q = k = v = a)", value=False, key="identity",
                             bind="query-params")
        d_k = st.slider("d_k (size of q and k)", *D_K_RANGE, value=4, key="d_k", bind="query-params",
                        disabled=identity)
        seed = st.number_input("Random seed for W^Q, W^K, W^V", 0, 10_000, value=0, step=1, key="seed",
                               bind="query-params", disabled=identity)
        scaled = st.toggle("Divide scores by √d_k", value=True, key="scaled", bind="query-params")
        positional = st.toggle("Add positional encoding", value=True, key="positional", bind="query-params")
    settings = LessonSettings(d_k=int(d_k), projection="identity" if identity else "random", seed=int(seed),
                              scaled=bool(scaled), positional=bool(positional), max_tokens=MAX_TOKENS)
    return sentence or "", source, settings


def page_start(title: str) -> tuple[Lesson | None, str]:
    """Page config, sidebar and the lesson for the current sentence.

    Returns (lesson, source); lesson is None (and a friendly message is shown) when the
    sentence cannot be used.
    """
    st.set_page_config(page_title=f"{title} · Attention Lab", page_icon="🔎", layout="wide")
    sentence, source, settings = sidebar()
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
