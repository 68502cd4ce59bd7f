"""The rest of the core against independent references: similarity (scipy.spatial.distance),
projections (determinism across processes), positional encoding (the paper's formula with
math.sin/cos), masks, multi-head attention, text cleaning/tokenising and the toy embedder."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial import distance

from attention_core import (
    MAX_CHARS,
    MAX_TOKENS,
    SIMILARITIES,
    Embedding,
    ToyEmbedder,
    causal_mask,
    clean_text,
    cosine_similarity,
    cross_attention,
    dot_similarity,
    identity_projections,
    make_projections,
    merge_heads,
    multi_head_attention,
    project,
    random_projections,
    scaled_dot_product_attention,
    scaled_dot_similarity,
    self_attention,
    simple_tokenize,
    sinusoidal_encoding,
    split_heads,
)

ROOT = Path(__file__).resolve().parents[1]


def run_fresh_python(code: str, hashseed: str) -> str:
    """Run ``code`` in a new interpreter (its own PYTHONHASHSEED) and return its stdout."""
    env = dict(os.environ, PYTHONHASHSEED=hashseed, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return out.stdout.strip()


# --------------------------------------------------------------------------- similarity


@pytest.mark.parametrize("t_a,t_b,d", [(1, 1, 1), (3, 4, 5), (6, 2, 64)])
def test_cosine_matches_scipy(t_a, t_b, d):
    rng = np.random.default_rng(t_a * 100 + t_b * 10 + d)
    a, b = rng.normal(size=(t_a, d)), rng.normal(size=(t_b, d))
    want = 1.0 - distance.cdist(a, b, metric="cosine")
    got = cosine_similarity(a, b)
    assert got.shape == (t_a, t_b)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    for i in range(t_a):
        for j in range(t_b):
            assert got[i, j] == pytest.approx(1.0 - distance.cosine(a[i], b[j]), rel=1e-12, abs=1e-14)


def test_cosine_ignores_length_and_bounds():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(4, 3))
    np.testing.assert_allclose(cosine_similarity(a, 7.5 * a), cosine_similarity(a, a), rtol=1e-13)
    np.testing.assert_allclose(np.diag(cosine_similarity(a, a)), 1.0, rtol=1e-14)
    np.testing.assert_allclose(np.diag(cosine_similarity(a, -a)), -1.0, rtol=1e-14)
    c = cosine_similarity(rng.normal(size=(20, 2)), rng.normal(size=(20, 2)))
    assert np.all((c >= -1.0) & (c <= 1.0))


def test_cosine_of_zero_vector_is_zero():
    got = cosine_similarity([[0.0, 0.0], [1.0, 1.0]], [[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(got, [[0.0, 0.0], [7 / (5 * math.sqrt(2)), 0.0]], rtol=1e-14)


@pytest.mark.parametrize("t_a,t_b,d", [(1, 1, 1), (3, 4, 5), (5, 5, 16)])
def test_dot_and_scaled_dot_against_loops(t_a, t_b, d):
    rng = np.random.default_rng(t_a + t_b + d)
    a, b = rng.normal(size=(t_a, d)), rng.normal(size=(t_b, d))
    want = np.array([[math.fsum(x * y for x, y in zip(ai, bj)) for bj in b.tolist()] for ai in a.tolist()])
    np.testing.assert_allclose(dot_similarity(a, b), want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(scaled_dot_similarity(a, b), want / math.sqrt(d), rtol=1e-12, atol=1e-14)
    # the scaled dot product is what attention uses before its softmax
    t = scaled_dot_product_attention(a, b, np.ones((t_b, 1)))
    np.testing.assert_allclose(t.scaled, scaled_dot_similarity(a, b), rtol=1e-12, atol=1e-14)


def test_similarity_accepts_single_vectors_and_registry():
    assert dot_similarity([1.0, 2.0], [3.0, 4.0]).tolist() == [[11.0]]
    assert set(SIMILARITIES) == {"dot", "scaled_dot", "cosine"}
    assert SIMILARITIES["dot"] is dot_similarity
    assert SIMILARITIES["scaled_dot"] is scaled_dot_similarity
    assert SIMILARITIES["cosine"] is cosine_similarity


@pytest.mark.parametrize("fn", [dot_similarity, scaled_dot_similarity, cosine_similarity])
def test_similarity_mismatched_d_names_shapes(fn):
    with pytest.raises(ValueError, match=r"\(2, 3\)") as info:
        fn(np.ones((2, 3)), np.ones((4, 5)))
    assert "(4, 5)" in str(info.value)


# --------------------------------------------------------------------------- positional encoding


def paper_pe(n, d, base=10000.0):
    """PE(pos, 2m) = sin(pos / base^(2m/d)), PE(pos, 2m+1) = cos(pos / base^(2m/d))."""
    pe = [[0.0] * d for _ in range(n)]
    for pos in range(n):
        for m in range((d + 1) // 2):
            angle = pos / base ** (2 * m / d)
            pe[pos][2 * m] = math.sin(angle)
            if 2 * m + 1 < d:
                pe[pos][2 * m + 1] = math.cos(angle)
    return np.array(pe).reshape(n, d)


@pytest.mark.parametrize("n,d", [(1, 1), (3, 4), (10, 7), (50, 16), (128, 384)])
def test_sinusoidal_matches_paper_formula(n, d):
    got = sinusoidal_encoding(n, d)
    assert got.shape == (n, d)
    np.testing.assert_allclose(got, paper_pe(n, d), rtol=1e-12, atol=1e-12)


def test_sinusoidal_custom_base_and_known_values():
    np.testing.assert_allclose(sinusoidal_encoding(6, 4, base=100.0), paper_pe(6, 4, base=100.0), atol=1e-14)
    pe = sinusoidal_encoding(4, 2)
    # d = 2: column 0 is sin(pos), column 1 is cos(pos)
    np.testing.assert_allclose(pe[:, 0], [math.sin(p) for p in range(4)], atol=1e-15)
    np.testing.assert_allclose(pe[:, 1], [math.cos(p) for p in range(4)], atol=1e-15)
    # position 0 is (0, 1, 0, 1, ...)
    np.testing.assert_array_equal(sinusoidal_encoding(1, 6)[0], [0, 1, 0, 1, 0, 1])
    assert sinusoidal_encoding(0, 8).shape == (0, 8)
    assert np.all(np.abs(sinusoidal_encoding(200, 32)) <= 1.0)


@pytest.mark.parametrize("n,d", [(-1, 4), (3, 0)])
def test_sinusoidal_bad_sizes(n, d):
    with pytest.raises(ValueError, match=str(n if n < 0 else d)):
        sinusoidal_encoding(n, d)


# --------------------------------------------------------------------------- projections


PROJ_CODE = """
    import hashlib, sys
    from attention_core import random_projections
    for seed in (0, 1, 42):
        p = random_projections(16, 8, 5, seed=seed)
        h = hashlib.sha256(p.w_q.tobytes() + p.w_k.tobytes() + p.w_v.tobytes()).hexdigest()
        print(seed, h)
"""


def test_random_projections_identical_across_processes():
    first = run_fresh_python(PROJ_CODE, hashseed="1")
    second = run_fresh_python(PROJ_CODE, hashseed="2")
    assert first == second
    lines = dict(line.split() for line in first.splitlines())
    assert len(set(lines.values())) == 3, "different seeds must give different matrices"
    # and this process computes the same bytes
    import hashlib

    p = random_projections(16, 8, 5, seed=42)
    here = hashlib.sha256(p.w_q.tobytes() + p.w_k.tobytes() + p.w_v.tobytes()).hexdigest()
    assert lines["42"] == here


def test_random_projections_shapes_and_spread():
    p = random_projections(6, 4, seed=3)
    assert (p.w_q.shape, p.w_k.shape, p.w_v.shape) == ((6, 4), (6, 4), (6, 4))
    assert (p.d_model, p.d_k, p.d_v) == (6, 4, 4)
    assert p.kind == "random"
    for b in (p.b_q, p.b_k, p.b_v):
        np.testing.assert_array_equal(b, 0.0)
    p = random_projections(5, 3, 7, seed=3)
    assert p.w_v.shape == (5, 7) and p.d_v == 7
    assert not np.array_equal(p.w_q, p.w_k)  # three independent matrices
    # entries N(0, 1/d_model): with 256·256 samples the sample std is within a few percent
    big = random_projections(256, 256, seed=0)
    assert big.w_q.std() == pytest.approx(1 / 16, rel=0.03)
    assert abs(big.w_q.mean()) < 0.003
    assert not np.array_equal(random_projections(4, 4, seed=0).w_q, random_projections(4, 4, seed=1).w_q)


@pytest.mark.parametrize("dims", [(0, 4, 4), (4, 0, 4), (4, 4, 0)])
def test_random_projections_bad_dims(dims):
    with pytest.raises(ValueError, match=">= 1"):
        random_projections(*dims)


def test_identity_projections_give_the_inputs_back():
    rng = np.random.default_rng(4)
    a = rng.normal(size=(5, 3))
    p = identity_projections(3)
    assert p.kind == "identity" and (p.d_model, p.d_k, p.d_v) == (3, 3, 3)
    q, k, v = project(a, p)
    assert np.array_equal(q, a) and np.array_equal(k, a) and np.array_equal(v, a)
    t = self_attention(a, p)
    ref = scaled_dot_product_attention(a, a, a)
    assert np.array_equal(t.weights, ref.weights) and np.array_equal(t.outputs, ref.outputs)


def test_project_with_biases_against_loops():
    rng = np.random.default_rng(5)
    d_model, d_k, d_v, t = 4, 3, 2, 5
    w = [rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v))]
    b = [rng.normal(size=d_k), rng.normal(size=d_k), rng.normal(size=d_v)]
    p = make_projections(*w, *b)
    assert p.kind == "model"
    a = rng.normal(size=(t, d_model))
    for got, wm, bm in zip(project(a, p), w, b):
        want = [
            [math.fsum(a[i, r] * wm[r, c] for r in range(d_model)) + bm[c] for c in range(wm.shape[1])]
            for i in range(t)
        ]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_make_projections_validation():
    with pytest.raises(ValueError, match=r"\(4, 3\).*\(4, 2\)"):
        make_projections(np.ones((4, 3)), np.ones((4, 2)), np.ones((4, 3)))
    with pytest.raises(ValueError, match=r"\(5, 3\)"):
        make_projections(np.ones((4, 3)), np.ones((4, 3)), np.ones((5, 3)))
    with pytest.raises(ValueError, match="bias"):
        make_projections(np.ones((4, 3)), np.ones((4, 3)), np.ones((4, 3)), b_q=np.ones(4))


def test_project_wrong_input_width_names_shapes():
    with pytest.raises(ValueError, match=r"\(T, 4\).*\(3, 5\)"):
        project(np.ones((3, 5)), random_projections(4, 2))
    with pytest.raises(ValueError, match=r"\(4,\)"):
        project(np.ones(4), random_projections(4, 2))


def test_self_and_cross_attention_against_manual_projection():
    rng = np.random.default_rng(6)
    p = random_projections(6, 4, 3, seed=9)
    a_q, a_m = rng.normal(size=(2, 6)), rng.normal(size=(5, 6))
    t = cross_attention(a_q, a_m, p)
    assert t.weights.shape == (2, 5) and t.outputs.shape == (2, 3)
    assert t.q.shape == (2, 4) and t.k.shape == (5, 4) and t.v.shape == (5, 3)
    ref = scaled_dot_product_attention(a_q @ p.w_q, a_m @ p.w_k, a_m @ p.w_v)
    np.testing.assert_allclose(t.outputs, ref.outputs, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(t.weights, ref.weights, rtol=1e-12, atol=1e-14)
    # cross-attention of a sequence with itself is self-attention
    s = self_attention(a_m, p, mask=causal_mask(5), scale=1.0)
    c = cross_attention(a_m, a_m, p, mask=causal_mask(5), scale=1.0)
    np.testing.assert_allclose(s.outputs, c.outputs, rtol=1e-12, atol=1e-14)
    assert s.scale == 1.0
    # a cross-attention mask has shape (T_q, T_k)
    m = np.array([[True, False, True, False, False], [False, True, True, True, True]])
    tm = cross_attention(a_q, a_m, p, mask=m)
    assert np.all(tm.weights[~m] == 0.0)


# --------------------------------------------------------------------------- multi-head


def test_split_and_merge_heads_round_trip_and_layout():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(5, 12))
    for h in (1, 2, 3, 4, 6, 12):
        s = split_heads(x, h)
        assert s.shape == (h, 5, 12 // h)
        for i in range(h):  # head i is the i-th contiguous block of features
            np.testing.assert_array_equal(s[i], x[:, i * (12 // h) : (i + 1) * (12 // h)])
        np.testing.assert_array_equal(merge_heads(s), x)
    y = rng.normal(size=(3, 4, 2))
    np.testing.assert_array_equal(split_heads(merge_heads(y), 3), y)
    np.testing.assert_array_equal(merge_heads(y), np.concatenate(list(y), axis=-1))


@pytest.mark.parametrize("h", [0, 5, -1])
def test_split_heads_bad_count(h):
    with pytest.raises(ValueError, match=f"12 features into {h}"):
        split_heads(np.ones((2, 12)), h)


@pytest.mark.parametrize("n_heads,d_k,seed", [(1, 4, 0), (3, 2, 5), (4, 8, 100)])
def test_multi_head_each_head_is_a_seeded_single_head(n_heads, d_k, seed):
    rng = np.random.default_rng(8)
    a = rng.normal(size=(6, 10))
    r = multi_head_attention(a, n_heads=n_heads, d_k=d_k, seed=seed)
    assert r.heads.weights.shape == (n_heads, 6, 6)
    assert r.outputs.shape == (6, n_heads * d_k)
    assert len(r.projections) == n_heads
    for h in range(n_heads):
        p = random_projections(10, d_k, seed=seed + h)
        assert np.array_equal(r.projections[h].w_q, p.w_q)
        assert np.array_equal(r.projections[h].w_v, p.w_v)
        single = self_attention(a, p)
        np.testing.assert_allclose(r.heads.head(h).weights, single.weights, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(r.heads.head(h).outputs, single.outputs, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(r.outputs[:, h * d_k : (h + 1) * d_k], single.outputs, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(split_heads(r.outputs, n_heads), r.heads.outputs)


def test_multi_head_mixes_the_heads_with_a_seeded_w_o():
    """MultiHead(a) = Concat(head_1 … head_H) W^O, summed by hand; W^O is seeded and N(0, 1/width)."""
    from attention_core.multihead import random_output_projection

    rng = np.random.default_rng(10)
    a = rng.normal(size=(5, 6))
    r = multi_head_attention(a, n_heads=3, d_k=2, seed=4)
    width = 3 * 2
    assert r.w_o.shape == (width, 6) and r.attention_output.shape == (5, 6)
    np.testing.assert_array_equal(r.w_o, random_output_projection(width, 6, seed=4))
    assert not np.array_equal(r.w_o, random_output_projection(width, 6, seed=5))
    for i in range(5):
        for c in range(6):
            by_hand = sum(r.outputs[i, m] * r.w_o[m, c] for m in range(width))
            assert r.attention_output[i, c] == pytest.approx(by_hand, abs=1e-12)
    big = random_output_projection(400, 300, seed=0)
    assert big.std() == pytest.approx(1 / np.sqrt(400), rel=0.02) and abs(big.mean()) < 0.002
    with pytest.raises(ValueError, match="W\\^O needs"):
        random_output_projection(0, 3)


def test_multi_head_with_mask():
    rng = np.random.default_rng(9)
    a, mem = rng.normal(size=(3, 8)), rng.normal(size=(7, 8))
    r = multi_head_attention(a, n_heads=2, d_k=4, seed=1)
    assert r.heads.weights.shape == (2, 3, 3)
    assert not r.outputs.flags.writeable  # frozen like the heads' trace
    rc = multi_head_attention(mem, n_heads=3, d_k=2, mask=causal_mask(7))
    rows, cols = np.indices((7, 7))
    assert np.all(rc.heads.weights[:, cols > rows] == 0.0)
    with pytest.raises(ValueError, match="at least one head"):
        multi_head_attention(a, n_heads=0, d_k=4)


# --------------------------------------------------------------------------- masks


@pytest.mark.parametrize("t_q,t_k", [(1, None), (4, None), (3, 5), (5, 2)])
def test_causal_mask_against_loop(t_q, t_k):
    m = causal_mask(t_q, t_k)
    n_k = t_q if t_k is None else t_k
    assert m.dtype == bool and m.shape == (t_q, n_k)
    want = [[j <= i for j in range(n_k)] for i in range(t_q)]
    np.testing.assert_array_equal(m, want)


@pytest.mark.parametrize("args", [(0,), (3, 0), (-2, 2)])
def test_causal_mask_bad_sizes(args):
    with pytest.raises(ValueError, match="T_q"):
        causal_mask(*args)


# --------------------------------------------------------------------------- text


@pytest.mark.parametrize(
    "raw,clean",
    [
        ("  the\u200b cat\n\tsat  ", "the cat sat"),
        ("zero\u200bwidth\u200c\u200d\u2060joined\ufeff", "zerowidthjoined"),
        ("bidi \u202atext\u202c \u2066here\u2069", "bidi text here"),
        ("bell\x07and\x00nul", "bell and nul"),
        ("line\r\nbreak\u2028sep", "line break sep"),
        ("cafe\u0301", "caf\u00e9"),  # NFC composes e + combining acute
        ("猫\u200b咪 ", "猫咪"),
        ("", ""),
        ("   ", ""),
    ],
)
def test_clean_text(raw, clean):
    assert clean_text(raw) == clean


def test_clean_text_removes_soft_hyphen_instead_of_splitting_the_word():
    """U+00AD SOFT HYPHEN is invisible (format character, as in HTML &shy;); text pasted from
    a web page carries it inside words. It must vanish, not become a space."""
    assert clean_text("co\u00adoperate") == "cooperate"
    assert simple_tokenize("co\u00adoperate") == ["cooperate"]


@pytest.mark.parametrize("bad", [None, 3, b"bytes", ["a"]])
def test_clean_text_rejects_non_strings(bad):
    with pytest.raises(ValueError, match="string"):
        clean_text(bad)


@pytest.mark.parametrize(
    "text,tokens",
    [
        ("我爱自然语言处理", ["我", "爱", "自", "然", "语", "言", "处", "理"]),
        ("注意力机制很重要。", ["注", "意", "力", "机", "制", "很", "重", "要", "。"]),
        ("我爱Python，你呢？", ["我", "爱", "Python", "，", "你", "呢", "？"]),
        ("2024年 GPT-4", ["2024", "年", "GPT", "-", "4"]),
        ("The cat sat on the mat.", ["The", "cat", "sat", "on", "the", "mat", "."]),
        ("don't stop, it's fine!", ["don't", "stop", ",", "it's", "fine", "!"]),
        ("naïve café", ["naïve", "café"]),
        ("ひらがな カタカナ", ["ひ", "ら", "が", "な", "カ", "タ", "カ", "ナ"]),
        ("한국어", ["한", "국", "어"]),
        ("a\u200bb", ["ab"]),
        ("", []),
    ],
)
def test_simple_tokenize(text, tokens):
    assert simple_tokenize(text) == tokens


@pytest.mark.parametrize(
    "text,tokens",
    [
        ("I \u2764\ufe0f you", ["I", "\u2764\ufe0f", "you"]),  # heart + emoji variation selector
        ("thumbs \U0001f44d\U0001f3fd up", ["thumbs", "\U0001f44d\U0001f3fd", "up"]),  # + skin tone
        ("नमस्ते दुनिया", ["नमस्ते", "दुनिया"]),  # Hindi: vowel signs are combining marks
    ],
)
def test_simple_tokenize_keeps_marks_and_modifiers_with_their_base(text, tokens):
    """A combining mark, a variation selector or an emoji modifier has no glyph of its own:
    as a separate token it shows as an empty (invisible) label on the heatmap."""
    assert simple_tokenize(text) == tokens


def test_limits_are_sane():
    assert isinstance(MAX_CHARS, int) and isinstance(MAX_TOKENS, int)
    assert MAX_CHARS >= 100 and 2 <= MAX_TOKENS <= MAX_CHARS


# --------------------------------------------------------------------------- toy embedder


EMBED_CODE = """
    import json
    from attention_core import ToyEmbedder
    out = {}
    for dim in (4, 16):
        e = ToyEmbedder(dim=dim).embed("The cat sat on the mat. 我爱猫")
        out[dim] = [e.tokens, e.vectors.dtype.str, e.vectors.tobytes().hex()]
    print(json.dumps(out, ensure_ascii=True))
"""


def test_toy_embedder_identical_across_processes():
    first = run_fresh_python(EMBED_CODE, hashseed="3")
    second = run_fresh_python(EMBED_CODE, hashseed="4")
    assert first == second
    got = json.loads(first)
    for dim in (4, 16):
        e = ToyEmbedder(dim=dim).embed("The cat sat on the mat. 我爱猫")
        tokens, dtype, hexbytes = got[str(dim)]
        assert tokens == e.tokens
        assert dtype == "<f8"
        assert hexbytes == e.vectors.tobytes().hex()


def test_toy_embedder_behaviour():
    emb = ToyEmbedder(dim=6)
    assert emb.real is False and emb.dim == 6 and "6" in emb.name
    e = emb.embed("The cat saw the other cat")
    assert isinstance(e, Embedding)
    assert e.tokens == ["The", "cat", "saw", "the", "other", "cat"]
    assert e.vectors.shape == (6, 6) and e.vectors.dtype == np.float64
    np.testing.assert_array_equal(e.vectors[0], e.vectors[3])  # case-insensitive: The == the
    np.testing.assert_array_equal(e.vectors[1], e.vectors[5])
    assert not np.array_equal(e.vectors[1], e.vectors[2])
    np.testing.assert_array_equal(emb.vector("cat"), e.vectors[1])
    # a different dimension gives a different-sized vector
    assert ToyEmbedder(dim=3).vector("cat").shape == (3,)
    # many words: entries look N(0, 1/dim), so |x| is about 1
    vecs = ToyEmbedder(dim=64).embed(" ".join(f"w{i}" for i in range(200))).vectors
    assert abs(vecs.mean()) < 0.05 / 8 and vecs.std() == pytest.approx(1.0 / 8, rel=0.05)


@pytest.mark.parametrize("text", ["", "   ", "\u200b\u200b"])
def test_toy_embedder_empty_text(text):
    with pytest.raises(ValueError, match="no tokens"):
        ToyEmbedder().embed(text)


def test_toy_embedder_bad_dim_and_embedding_validation():
    with pytest.raises(ValueError, match="dim"):
        ToyEmbedder(dim=0)
    with pytest.raises(ValueError, match=r"2 tokens.*\(3, 4\)"):
        Embedding(tokens=["a", "b"], vectors=np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"\(4,\)"):
        Embedding(tokens=["a"], vectors=np.zeros(4))


# --------------------------------------------------------------------------- the lesson's inputs, measured


def test_input_scales_and_the_self_weight_by_hand():
    """input_scales: the root mean square of x, √d·x and PE, summed in loops; mean_self_weight:
    the diagonal of the weights, averaged in a loop."""
    from attention_core import LessonSettings, ToyEmbedder, build_lesson
    from attention_core.lesson import input_scales, mean_self_weight

    for positional in (True, False):
        lesson = build_lesson("the cat sat on the mat", ToyEmbedder(dim=8), LessonSettings(positional=positional))
        x, pe = lesson.word_vectors, lesson.positional
        T, d = x.shape
        squares = [x[i, c] ** 2 for i in range(T) for c in range(d)]
        pe_squares = [pe[i, c] ** 2 for i in range(T) for c in range(d)]
        sizes = input_scales(lesson)
        assert sizes.word == pytest.approx(math.sqrt(sum(squares) / (T * d)), rel=1e-12)
        assert sizes.scaled_word == pytest.approx(math.sqrt(d) * sizes.word, rel=1e-12)
        assert sizes.position == pytest.approx(math.sqrt(sum(pe_squares) / (T * d)), abs=1e-12)
        assert (sizes.position > 0) == positional
        w = lesson.trace.weights
        assert mean_self_weight(w) == pytest.approx(sum(w[i, i] for i in range(T)) / T, rel=1e-12)
    with pytest.raises(ValueError, match="square"):
        mean_self_weight(np.ones((2, 3)))


def test_identity_w_keeps_each_token_on_itself():
    """What the identity lesson says, measured: with W = I on the bundled model's word vectors,
    the default sentence's tokens give themselves almost all their attention (q_i·k_i = |a_i|²),
    and far more than seeded random W does."""
    from attention_core import LessonSettings, build_lesson
    from attention_core.lesson import mean_self_weight
    from attention_core.model import ModelEmbedder

    sentence = "The cat sat on the mat because it was tired"
    identity = build_lesson(sentence, ModelEmbedder(), LessonSettings(projection="identity"))
    random_w = build_lesson(sentence, ModelEmbedder(), LessonSettings(projection="random"))
    assert mean_self_weight(identity.trace.weights) > 0.95
    assert mean_self_weight(random_w.trace.weights) < 0.5


def test_the_warm_up_computes_what_first_visits_would():
    """model_access.warm_caches (the server's background thread) leaves Why √d_k's sweep and Intuition's
    blurred scene ready, so those pages' first visits do not pay for them."""

    from attention_core.scaling import scaling_sweep
    from attention_ui import intuition_figures, model_access

    intuition_figures._coarse_scene.cache_clear()
    model_access.warm_caches()
    assert intuition_figures._coarse_scene.cache_info().currsize == 1
    assert scaling_sweep() is scaling_sweep()  # cached: the page gets the warm-up's result
