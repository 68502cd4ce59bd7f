"""The real model's heads for the lessons (attention_core.model): our numbers equal the model's own.

The references here are the model itself, run through transformers in this file:
* its attention probabilities, from eager attention with ``output_attentions=True``;
* its per-head context vectors, caught with a forward hook on each BertSelfAttention;
* its query/key/value ``nn.Linear`` layers applied by torch, for the projections;
* its tokenizer and word-embedding table, for ``ModelEmbedder``.

The library loads once per test session (``model_reference.load_model`` caches it).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attention_core.model import (
    MODEL_ENV,
    ModelEmbedder,
    head_projections,
    model_all_weights,
    model_attention,
    model_info,
    model_layer_attention,
    model_tokens_and_states,
)
from attention_core.model_choice import resolve_model_name
from attention_core.model_reference import compare, load_model

ROOT = Path(__file__).resolve().parents[1]

SENTENCES = [
    "The cat sat on the mat, and the cat slept.",
    "Attention is all you need!",
    "She said: \"Don't stop, don't stop!\"",
    "The tailor's customers wanted plaid shirts; the tailor's samples were cotton.",
    "Embeddings, embeddings... everywhere?",
]
N_LAYERS, N_HEADS, D_MODEL, D_HEAD = 6, 12, 384, 32
TOL = 1e-5


@pytest.fixture(scope="module")
def st_model():
    return load_model()


@pytest.fixture(scope="module")
def reference(st_model):
    """For each sentence, the model's own numbers, computed here with torch directly."""
    import torch

    bert = st_model[0].auto_model
    tokenizer = st_model.tokenizer
    assert bert.config._attn_implementation == "eager"
    contexts: dict[int, np.ndarray] = {}

    def catch(layer):
        def hook(module, inputs, output):
            contexts[layer] = output[0][0].double().numpy()  # (T, d_model), heads side by side

        return hook

    handles = [
        bert.encoder.layer[layer].attention.self.register_forward_hook(catch(layer)) for layer in range(N_LAYERS)
    ]
    refs = {}
    try:
        for text in SENTENCES:
            encoded = tokenizer(text, return_tensors="pt")
            with torch.inference_mode():
                out = bert(**encoded, output_attentions=True, output_hidden_states=True)
            refs[text] = {
                "tokens": tokenizer.convert_ids_to_tokens(encoded["input_ids"][0].tolist()),
                "attentions": np.stack([a[0].double().numpy() for a in out.attentions]),  # (L, H, T, T)
                "contexts": np.stack([contexts[layer] for layer in range(N_LAYERS)]),  # (L, T, d_model)
                "hidden": np.stack([h[0].double().numpy() for h in out.hidden_states]),  # (L+1, T, d_model)
            }
    finally:
        for handle in handles:
            handle.remove()
    return refs


# --------------------------------------------------------------------------- loading, names


def test_model_info(st_model):
    info = model_info()
    assert (info.n_layers, info.n_heads, info.d_model, info.d_head) == (N_LAYERS, N_HEADS, D_MODEL, D_HEAD)
    assert info.name == resolve_model_name()
    assert info.max_tokens == 256 and info.vocab_size == 30522
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.n_heads = 3  # frozen


# --------------------------------------------------------------------------- tokens and states


@pytest.mark.parametrize("text", SENTENCES)
def test_tokens_are_the_tokenizers_with_cls_and_sep(text, reference):
    tokens, hidden = model_tokens_and_states(text)
    assert tokens == reference[text]["tokens"]
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    assert hidden.shape == (N_LAYERS + 1, len(tokens), D_MODEL)
    assert hidden.dtype == np.float64
    np.testing.assert_allclose(hidden, reference[text]["hidden"], atol=1e-4)


def test_states_are_cached_and_read_only():
    text = SENTENCES[0]
    tokens, hidden = model_tokens_and_states(text)
    tokens.append("changed")  # the caller's copy only
    again, hidden_again = model_tokens_and_states(text)
    assert again[-1] == "[SEP]"
    assert hidden_again is hidden
    with pytest.raises(ValueError):
        hidden[0, 0, 0] = 1.0


def test_word_pieces_and_repeats_are_kept():
    tokens, _ = model_tokens_and_states("Embeddings, embeddings... everywhere?")
    assert tokens == [
        "[CLS]",
        "em",
        "##bed",
        "##ding",
        "##s",
        ",",
        "em",
        "##bed",
        "##ding",
        "##s",
        ".",
        ".",
        ".",
        "everywhere",
        "?",
        "[SEP]",
    ]


# --------------------------------------------------------------------------- projections


@pytest.mark.parametrize("layer, head", [(0, 0), (2, 7), (5, 11)])
def test_head_projections_match_the_models_linear_layers(st_model, layer, head):
    import torch

    p = head_projections(layer, head)
    assert p.kind == "model"
    assert p.w_q.shape == p.w_k.shape == p.w_v.shape == (D_MODEL, D_HEAD)
    assert p.b_q.shape == p.b_k.shape == p.b_v.shape == (D_HEAD,)
    _, hidden = model_tokens_and_states(SENTENCES[0])
    a = hidden[layer]  # (T, d_model)
    attention = st_model[0].auto_model.encoder.layer[layer].attention.self
    features = slice(head * D_HEAD, (head + 1) * D_HEAD)
    with torch.inference_mode():
        x = torch.tensor(a, dtype=torch.float32)  # (T, d_model)
        for w, b, linear in (
            (p.w_q, p.b_q, attention.query),
            (p.w_k, p.b_k, attention.key),
            (p.w_v, p.b_v, attention.value),
        ):
            theirs = linear(x)[:, features].double().numpy()  # (T, d_head)
            np.testing.assert_allclose(a @ w + b, theirs, atol=1e-5)


def test_head_projections_are_copies(st_model):
    p = head_projections(1, 1)
    original = float(p.w_q[0, 0])
    p.w_q[0, 0] += 100.0
    assert float(head_projections(1, 1).w_q[0, 0]) == original


# --------------------------------------------------------------------------- attention: ours = theirs


@pytest.mark.parametrize("text", SENTENCES)
def test_every_head_weights_and_outputs_equal_the_models_own(text, reference):
    ref = reference[text]
    t = len(ref["tokens"])
    for layer in range(N_LAYERS):
        for head in range(N_HEADS):
            tokens, trace = model_attention(text, layer, head)
            assert tokens == ref["tokens"]
            assert trace.weights.shape == (t, t)
            assert trace.d_k == D_HEAD
            assert trace.scale == pytest.approx(1 / np.sqrt(D_HEAD))
            assert trace.mask is None
            np.testing.assert_allclose(
                trace.weights,
                ref["attentions"][layer, head],
                atol=TOL,
                rtol=0,
                err_msg=f"weights, layer {layer} head {head}",
            )
            context = ref["contexts"][layer][:, head * D_HEAD : (head + 1) * D_HEAD]  # (T, d_head)
            np.testing.assert_allclose(
                trace.outputs, context, atol=TOL, rtol=0, err_msg=f"outputs, layer {layer} head {head}"
            )


@pytest.mark.parametrize("text", SENTENCES)
def test_all_weights_equal_the_models_own(text, reference):
    ref = reference[text]
    tokens, ours = model_all_weights(text)
    t = len(tokens)
    assert tokens == ref["tokens"]
    assert ours.shape == ref["attentions"].shape == (N_LAYERS, N_HEADS, t, t)
    np.testing.assert_allclose(ours, ref["attentions"], atol=TOL, rtol=0)
    np.testing.assert_allclose(ours.sum(axis=-1), 1.0, atol=1e-12)


def test_compare_reports_the_differences_the_page_shows(reference):
    """model_reference.compare (the page's "Check against PyTorch") agrees with this file's run."""
    from attention_core.encoder import encode

    text = SENTENCES[0]
    found = compare(encode(text))
    _, ours = model_all_weights(text)
    assert 0.0 <= found.weights < TOL and found.hidden < 1e-4 and found.sentence_embedding < 1e-5
    assert found.weights == pytest.approx(float(np.abs(ours - reference[text]["attentions"]).max()), abs=1e-9)


def test_layer_trace_heads_equal_single_heads():
    text = SENTENCES[1]
    _, layer_trace = model_layer_attention(text, 3)
    assert layer_trace.weights.shape[0] == N_HEADS
    for head in (0, 5, 11):
        _, single = model_attention(text, 3, head)
        np.testing.assert_allclose(layer_trace.head(head).weights, single.weights, atol=1e-12)
        np.testing.assert_allclose(layer_trace.head(head).outputs, single.outputs, atol=1e-12)


def test_the_comparison_can_fail(reference):
    """Guard against a vacuous check: a neighbouring head's weights are far from the model's."""
    text = SENTENCES[0]
    _, trace = model_attention(text, 2, 4)
    assert np.abs(trace.weights - reference[text]["attentions"][2, 5]).max() > 1e-2


# --------------------------------------------------------------------------- ModelEmbedder


@pytest.mark.parametrize("text", SENTENCES)
def test_model_embedder_vectors_are_the_word_embedding_rows(text, st_model):
    embedder = ModelEmbedder()
    assert embedder.real is True and embedder.dim == D_MODEL
    assert embedder.name == resolve_model_name()
    e = embedder.embed(text)
    tokens, _ = model_tokens_and_states(text)
    assert e.tokens == tokens[1:-1]  # the same tokens, without [CLS] and [SEP]
    assert "[CLS]" not in e.tokens and "[SEP]" not in e.tokens
    table = st_model[0].auto_model.embeddings.word_embeddings.weight.detach().double().numpy()
    ids = st_model.tokenizer.convert_tokens_to_ids(e.tokens)
    assert e.vectors.dtype == np.float64 and e.vectors.shape == (len(e.tokens), D_MODEL)
    np.testing.assert_array_equal(e.vectors, table[ids])
    assert e.unknown == ()


def test_model_embedder_repeated_words_share_a_vector():
    e = ModelEmbedder().embed("the cat saw the cat")
    assert e.tokens == ["the", "cat", "saw", "the", "cat"]
    np.testing.assert_array_equal(e.vectors[0], e.vectors[3])
    np.testing.assert_array_equal(e.vectors[1], e.vectors[4])


def test_model_embedder_reports_unknown_chinese():
    e = ModelEmbedder().embed("注意力机制")
    assert len(e.tokens) == 5
    assert len(e.unknown) >= 4  # the English vocabulary knows only a few hundred CJK characters
    assert all(e.tokens[i] == "[UNK]" for i in e.unknown)
    assert all(e.tokens[i] != "[UNK]" for i in range(len(e.tokens)) if i not in e.unknown)


@pytest.mark.parametrize("text", ["The tailoring of shirts, 2 cats!", "注意力 😀 naïve café", "a " * 600])
def test_model_embedder_matches_the_librarys_tokenizer_and_table(text, st_model):
    """The files read without torch give the same tokens, ids and rows as the loaded library."""
    e = ModelEmbedder().embed(text)
    ids = st_model.tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"]
    assert e.tokens == st_model.tokenizer.convert_ids_to_tokens(ids)  # no truncation at 128 or 512, no padding
    table = st_model[0].auto_model.embeddings.word_embeddings.weight.detach().double().numpy()
    np.testing.assert_array_equal(e.vectors, table[ids])
    assert e.unknown == tuple(i for i, token_id in enumerate(ids) if token_id == st_model.tokenizer.unk_token_id)


def test_model_embedder_with_explicit_name():
    from attention_core.model_files import bundled_path

    path = str(bundled_path())
    assert ModelEmbedder(path).embed("cat").tokens == ["cat"]


# --------------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    "layer, head, match",
    [
        (6, 0, r"layer must be in 0\.\.5 \(the model has 6 layers\), got 6"),
        (-1, 0, r"layer must be in 0\.\.5 .*got -1"),
        (0, 12, r"head must be in 0\.\.11 \(the model has 12 heads\), got 12"),
        (0, -3, r"head must be in 0\.\.11 .*got -3"),
        (1.5, 0, r"layer must be an integer in 0\.\.5, got 1\.5"),
        (0, True, r"head must be an integer in 0\.\.11, got True"),
        ("0", 0, r"layer must be an integer"),
    ],
)
def test_layer_or_head_out_of_range(layer, head, match):
    with pytest.raises(ValueError, match=match):
        model_attention("the cat", layer, head)
    with pytest.raises(ValueError, match=match):
        head_projections(layer, head)


def test_numpy_integers_are_accepted():
    _, trace = model_attention("the cat", np.int64(5), np.int32(11))
    assert trace.weights.shape == (4, 4)


def test_layer_out_of_range_for_a_whole_layer():
    with pytest.raises(ValueError, match=r"layer must be in 0\.\.5"):
        model_layer_attention("the cat", 6)


@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
@pytest.mark.parametrize(
    "call",
    [
        lambda t: model_attention(t, 0, 0),
        lambda t: model_tokens_and_states(t),
        lambda t: model_all_weights(t),
        lambda t: ModelEmbedder().embed(t),
    ],
)
def test_empty_text(text, call):
    with pytest.raises(ValueError, match="text is empty: expected at least one word"):
        call(text)


def test_text_without_tokens_and_non_strings():
    with pytest.raises(ValueError, match="no word pieces"):
        model_tokens_and_states("\u200b")
    with pytest.raises(ValueError, match="no tokens"):
        ModelEmbedder().embed("\u200b")
    with pytest.raises(ValueError, match="text must be a string, got int"):
        model_attention(3, 0, 0)


def test_too_many_tokens_are_cut_as_sentence_transformers_cuts():
    tokens, hidden = model_tokens_and_states("cat " * 300)
    assert len(tokens) == 256 and tokens[-1] == "[SEP]" and hidden.shape[1] == 256


# --------------------------------------------------------------------------- lazy imports


def _run_fresh(code: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop(MODEL_ENV, None)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_model_is_used_without_torch():
    code = (
        "import json, sys\n"
        "heavy = ('torch', 'transformers', 'sentence_transformers')\n"
        "def loaded():\n"
        "    return sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in heavy})\n"
        "import attention_core, attention_core.model\n"
        "from attention_core.model import ModelEmbedder\n"
        "before = loaded()\n"
        "embedder = ModelEmbedder()\n"
        "after_init = loaded()\n"
        "tokens = embedder.embed('the cat').tokens\n"
        "after_embed = loaded()\n"
        "lazy_tokens, _ = attention_core.model_attention('the cat', 0, 0)\n"
        "after_attention = loaded()\n"
        "print(json.dumps({'before': before, 'after_init': after_init, 'after_embed': after_embed,\n"
        "                  'tokens': tokens, 'lazy_tokens': lazy_tokens, 'after_attention': after_attention}))\n"
    )
    result = _run_fresh(code)
    assert result["before"] == [], f"importing the core pulled in {result['before']}"
    assert result["after_init"] == [], "constructing a ModelEmbedder must not load the model"
    assert result["after_embed"] == [], "the word embeddings come from the files, without torch"
    assert result["tokens"] == ["the", "cat"]
    assert result["lazy_tokens"] == ["[CLS]", "the", "cat", "[SEP]"]
    assert result["after_attention"] == [], "the heads are computed by our NumPy encoder, without torch"
