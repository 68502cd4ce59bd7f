"""Our NumPy BERT (attention_core.encoder) against the model's own library.

References, all computed in this file from the model as its library runs it:
* transformers' BertModel (eager attention): every hidden state (within 1e-4) and every head's
  attention weights (within 1e-5), for the same word pieces;
* forward hooks on its submodules: W^O's output, the first LayerNorm, the feed-forward network's
  hidden layer and GELU — every intermediate value a page shows;
* ``SentenceTransformer.encode`` for the sentence embedding (within 1e-5), with its own
  tokenizer and its own cut at 256 tokens;
* a small random BERT saved by transformers, to show the code follows config.json.
"""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.encoder import encode, gelu, layer_norm, load_encoder, tokenize
from attention_core.model_files import bundled_path

SENTENCES = {
    "punctuation": "She said: \"Don't stop -- don't stop!\" (twice); then... silence?",
    "accents": "Café naïve résumé: the façade of the Élysée, señor Muñoz.",
    "digits": "In 2024, 3.14159 × 42 = 131.95 and 7/8 of 1,000,000 is 875,000.",
    "pronoun": "The animal didn't cross the street because it was too tired",
    "long": " ".join(
        ["The tailor measured the customer's shoulders, chose a soft plaid cotton, and cut the cloth."] * 6
    ),
    "chinese": "我们今天在课堂上学习注意力机制，老师用裁缝店的故事来解释查询、键和值。",
}
HIDDEN_TOL, WEIGHTS_TOL, EMBEDDING_TOL = 1e-4, 1e-5, 1e-5


@pytest.fixture(scope="module")
def library():
    """The bundled model loaded by sentence-transformers, eager attention, CPU, offline."""
    from attention_core.model_reference import load_model

    return load_model()


@pytest.fixture(scope="module")
def theirs(library):
    """For each sentence: the library's tokens, hidden states, attentions and layer parts."""
    import torch

    bert = library[0].auto_model
    parts: dict[str, dict[int, np.ndarray]] = {"attention_output": {}, "norm_1": {}, "ffn_hidden": {}, "ffn": {}}

    def catch(kind, layer):
        def hook(module, inputs, output):
            out = output[0] if isinstance(output, tuple) else output
            parts[kind][layer] = out[0].double().numpy()

        return hook

    handles = []
    for layer, block in enumerate(bert.encoder.layer):
        handles.append(block.attention.output.dense.register_forward_hook(catch("attention_output", layer)))
        handles.append(block.attention.output.register_forward_hook(catch("norm_1", layer)))
        handles.append(block.intermediate.dense.register_forward_hook(catch("ffn_hidden", layer)))
        handles.append(block.intermediate.register_forward_hook(catch("ffn", layer)))
    refs = {}
    try:
        for key, text in SENTENCES.items():
            encoded = library.tokenizer(text, return_tensors="pt", truncation=True, max_length=256)
            with torch.inference_mode():
                out = bert(**encoded, output_hidden_states=True, output_attentions=True)
            refs[key] = {
                "tokens": library.tokenizer.convert_ids_to_tokens(encoded["input_ids"][0].tolist()),
                "hidden": np.stack([h[0].double().numpy() for h in out.hidden_states]),  # (L+1, T, d)
                "weights": np.stack([a[0].double().numpy() for a in out.attentions]),  # (L, H, T, T)
                **{kind: dict(found) for kind, found in parts.items()},
            }
    finally:
        for handle in handles:
            handle.remove()
    return refs


@pytest.mark.parametrize("key", SENTENCES)
def test_tokens_hidden_states_and_weights_equal_the_librarys(key, theirs):
    ref, trace = theirs[key], encode(SENTENCES[key])
    assert list(trace.tokens) == ref["tokens"]
    assert trace.hidden.shape == ref["hidden"].shape and trace.weights.shape == ref["weights"].shape
    np.testing.assert_allclose(trace.hidden, ref["hidden"], atol=HIDDEN_TOL, rtol=0)
    np.testing.assert_allclose(trace.weights, ref["weights"], atol=WEIGHTS_TOL, rtol=0)


def test_the_test_sentences_cover_what_the_issue_names(theirs):
    assert len(theirs["long"]["tokens"]) - 2 >= 100
    chinese = encode(SENTENCES["chinese"])
    assert len(chinese.unknown) >= len(chinese.tokens) // 2  # [UNK]-heavy: the vocabulary is English
    assert all(chinese.tokens[i] == "[UNK]" for i in chinese.unknown)


@pytest.mark.parametrize("key", ["pronoun", "digits"])
def test_every_intermediate_of_every_layer_equals_the_librarys(key, theirs):
    ref, trace = theirs[key], encode(SENTENCES[key])
    for layer in range(len(trace.hidden) - 1):
        lt = trace.layer(layer)
        np.testing.assert_array_equal(lt.inputs, trace.hidden[layer])
        np.testing.assert_array_equal(lt.outputs, trace.hidden[layer + 1])  # the same function as encode
        np.testing.assert_allclose(lt.attention_output, ref["attention_output"][layer], atol=HIDDEN_TOL)
        np.testing.assert_allclose(lt.norm_1.outputs, ref["norm_1"][layer], atol=HIDDEN_TOL)
        np.testing.assert_allclose(lt.ffn_hidden, ref["ffn_hidden"][layer], atol=HIDDEN_TOL)
        np.testing.assert_allclose(lt.ffn_activation, ref["ffn"][layer], atol=HIDDEN_TOL)


def test_a_layers_parts_add_up_as_the_formulas_say():
    """The trace's own values satisfy each step's formula (a loop written here)."""
    trace = encode(SENTENCES["pronoun"])
    enc = load_encoder()
    lt, w = trace.layer(2), enc.layers[2]
    d_k = enc.config.d_head
    for h in range(enc.config.n_heads):
        np.testing.assert_allclose(lt.concat[:, h * d_k : (h + 1) * d_k], lt.attention.outputs[h], atol=1e-12)
    np.testing.assert_allclose(lt.attention_output, lt.concat @ w.w_o.astype(float) + w.b_o, atol=1e-4)
    x = lt.inputs + lt.attention_output
    np.testing.assert_allclose(lt.norm_1.mean, [row.sum() / len(row) for row in x], atol=1e-10)
    np.testing.assert_allclose(lt.norm_1.var, [((row - row.mean()) ** 2).mean() for row in x], atol=1e-10)
    np.testing.assert_allclose(lt.ffn_output, lt.ffn_activation @ w.w_2.astype(float) + w.b_2, atol=1e-4)


def test_sentence_embeddings_equal_sentence_transformers_encode(library):
    texts = list(SENTENCES.values()) + ["word " * 300]  # the last one is cut at 256 tokens by both
    theirs = library.encode(texts, convert_to_numpy=True, batch_size=4).astype(np.float64)
    ours = np.stack([encode(text).sentence_embedding for text in texts])
    np.testing.assert_allclose(ours, theirs, atol=EMBEDDING_TOL, rtol=0)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-12)
    long = encode("word " * 300)
    assert len(long.tokens) == 256 and long.n_pieces == 300 and long.truncated


def test_the_comparison_can_fail(theirs):
    """Guard against a vacuous check: another head, or another sentence, is far off."""
    trace = encode(SENTENCES["pronoun"])
    assert np.abs(trace.weights[5, 10] - theirs["pronoun"]["weights"][5, 11]).max() > 1e-2
    assert np.abs(trace.hidden[3] - trace.hidden[4]).max() > 1e-1


def test_gelu_and_layer_norm_match_torch():
    import torch

    x = np.linspace(-8, 8, 1001)
    np.testing.assert_allclose(gelu(x), torch.nn.functional.gelu(torch.tensor(x)).numpy(), atol=1e-12)
    rows = np.random.default_rng(0).normal(size=(5, 16)) * 3 + 1
    gamma, beta = np.linspace(0.5, 2, 16), np.linspace(-1, 1, 16)
    theirs = torch.nn.functional.layer_norm(torch.tensor(rows), (16,), torch.tensor(gamma), torch.tensor(beta), 1e-5)
    np.testing.assert_allclose(layer_norm(rows, (gamma, beta), 1e-5).outputs, theirs.numpy(), atol=1e-12)


def test_the_cut_follows_max_pieces_and_counts_the_whole_text():
    enc = load_encoder()
    tokens, ids, n = tokenize(enc, "the tailoring of shirts", max_pieces=2)
    assert tokens == ["[CLS]", "the", "tailor", "[SEP]"] and n == 5 and len(ids) == 4
    trace = encode("one two three four five six", max_pieces=3)
    assert trace.tokens == ("[CLS]", "one", "two", "three", "[SEP]") and trace.n_pieces == 6 and trace.truncated
    alone = encode("one two three")
    np.testing.assert_allclose(trace.hidden, alone.hidden, atol=1e-12)  # the cut text is what is read


@pytest.mark.parametrize("text", ["", "   ", "\u200b", "\x00\x01"])
def test_nothing_to_read_is_a_value_error(text):
    with pytest.raises(ValueError):
        encode(text)


@pytest.mark.parametrize("text", ["😀😀😀", "a\tb\nc\x07d", "<b>bold</b> & <script>x</script>", "😀" * 1000])
def test_odd_input_is_read(text):
    trace = encode(text)
    assert trace.tokens[0] == "[CLS]" and trace.tokens[-1] == "[SEP]"
    assert np.isfinite(trace.hidden).all() and np.isfinite(trace.sentence_embedding).all()
    assert len(trace.tokens) <= 256


def test_traces_are_cached_and_read_only():
    trace = encode(SENTENCES["digits"])
    assert encode(SENTENCES["digits"]) is trace
    for array in (trace.hidden, trace.weights, trace.sentence_embedding, trace.ids, trace.layer(0).ffn_hidden):
        with pytest.raises(ValueError):
            array.flat[0] = 1


def test_weights_stay_float32_in_memory():
    enc = load_encoder()
    assert enc.word.dtype == np.float32 and enc.layers[0].w_1.dtype == np.float32
    assert not enc.layers[0].w_q.flags.writeable
    assert load_encoder() is enc


def test_another_bert_directory_is_read_from_its_own_config(tmp_path):
    """A small random BERT saved by transformers: 2 layers, 4 heads, d_model 16, d_ff 24."""
    import shutil

    import torch
    from transformers import BertConfig, BertModel

    config = BertConfig(
        vocab_size=30522,
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=24,
        max_position_embeddings=64,
        layer_norm_eps=1e-7,
        attn_implementation="eager",
    )
    torch.manual_seed(0)
    model = BertModel(config).eval()
    model.save_pretrained(tmp_path, safe_serialization=True)
    shutil.copy(bundled_path() / "tokenizer.json", tmp_path / "tokenizer.json")
    trace = encode("the cat sat on the mat", name=str(tmp_path))
    assert trace.hidden.shape == (3, 8, 16) and trace.weights.shape == (2, 4, 8, 8)
    with torch.inference_mode():
        out = model(torch.tensor([trace.ids.tolist()]), output_hidden_states=True, output_attentions=True)
    np.testing.assert_allclose(trace.hidden, np.stack([h[0].numpy() for h in out.hidden_states]), atol=1e-5)
    np.testing.assert_allclose(trace.weights, np.stack([a[0].numpy() for a in out.attentions]), atol=1e-6)
    assert load_encoder(str(tmp_path)).config.max_tokens == 64  # no sentence_bert_config.json: the positions


def test_a_layer_is_computed_once_and_kept_for_the_next_rerun():
    """EncoderTrace.layer keeps its last LAYERS_KEPT results: a page and its lesson ask for the
    same layer in one rerun (bench_clicks found it computed twice per run), and the same word
    pieces give the same object even from another trace of the same sentence."""
    from attention_core import encoder

    trace = encode("the kept layers of a sentence")
    first = trace.layer(4)
    assert trace.layer(4) is first
    again = encode("the kept layers of a sentence", max_pieces=50)  # another trace, the same word pieces
    assert again is not trace and again.layer(4) is first
    for n in range(encoder.LAYERS_KEPT + 1):  # enough other layers to push it out
        encode(f"sentence number {n} pushes the memo").layer(4)
    fresh = trace.layer(4)
    assert fresh is not first
    np.testing.assert_array_equal(fresh.outputs, first.outputs)


def _tiny_sizes() -> dict:
    return dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=4, intermediate_size=24, layer_norm_eps=1e-7)


def test_an_xlm_roberta_model_is_refused_because_read_as_bert_it_would_be_misread(tmp_path):
    """A small random XLM-RoBERTa saved by transformers has BERT's tensor names, so the encoder
    used to run it without a word. It is now refused; relabelled "bert" (what the check guards
    against) our numbers equal BertModel's on the same files and are far from XLMRobertaModel's,
    which numbers positions from pad_token_id + 1."""
    import json
    import shutil

    import torch
    from transformers import BertModel, XLMRobertaConfig, XLMRobertaModel

    from attention_core.model_files import ModelUnavailable

    config = XLMRobertaConfig(
        vocab_size=30522, max_position_embeddings=70, attn_implementation="eager", **_tiny_sizes()
    )
    torch.manual_seed(0)
    xlmr = XLMRobertaModel(config, add_pooling_layer=False).eval()
    xlmr.save_pretrained(tmp_path / "xlmr", safe_serialization=True)
    shutil.copy(bundled_path() / "tokenizer.json", tmp_path / "xlmr" / "tokenizer.json")
    assert json.loads((tmp_path / "xlmr" / "config.json").read_text())["model_type"] == "xlm-roberta"
    with pytest.raises(ModelUnavailable) as caught:
        load_encoder(str(tmp_path / "xlmr"))
    assert caught.value.reason == "unsupported" and "model_type 'xlm-roberta'" in str(caught.value)
    with pytest.raises(ModelUnavailable):
        encode("the cat sat", name=str(tmp_path / "xlmr"))

    relabelled = tmp_path / "as-bert"
    shutil.copytree(tmp_path / "xlmr", relabelled)
    fields = json.loads((relabelled / "config.json").read_text())
    (relabelled / "config.json").write_text(json.dumps(dict(fields, model_type="bert", architectures=["BertModel"])))
    trace = encode("the cat sat on the mat", name=str(relabelled))
    ids = torch.tensor([trace.ids.tolist()])
    with torch.inference_mode():
        as_bert = BertModel.from_pretrained(relabelled, add_pooling_layer=False, attn_implementation="eager").eval()
        bert_hidden = as_bert(ids, output_hidden_states=True).hidden_states[-1][0].numpy()
        xlmr_hidden = xlmr(ids, output_hidden_states=True).hidden_states[-1][0].numpy()
    np.testing.assert_allclose(trace.hidden[-1], bert_hidden, atol=1e-5)  # the same arithmetic as BERT …
    assert np.abs(trace.hidden[-1] - xlmr_hidden).max() > 1e-1  # … which is not XLM-RoBERTa's

    assert load_encoder().config.n_layers == 6  # the bundled model still loads


def _sentencepiece_tokenizer():
    """A small SentencePiece-style (Unigram) tokenizer built in memory, laid out like XLM-R's:
    <s> 0, <pad> 1, </s> 2, <unk> 3, pieces marked with ▁, and <s> … </s> around a sentence."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    words = ["▁the", "▁cat", "▁sat", "▁on", "▁mat", "▁"] + list("abcdefghijklmnopqrstuvwxyz")
    vocab = [(piece, 0.0) for piece in specials] + [(piece, -1.0 - n) for n, piece in enumerate(words)]
    tokenizer = Tokenizer(models.Unigram(vocab, unk_id=3))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.add_special_tokens(specials)
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    return tokenizer, len(vocab)


def test_a_sentencepiece_tokenizers_unknown_piece_and_markers_are_its_own(tmp_path):
    """The unknown piece and the markers come from the tokenizer, not from BERT's names: with
    <unk>, <s> and </s> the unknown pieces are found (a Unigram token shows the original text,
    so only the id says it is unknown), the cut leaves room for the markers, and the numbers
    equal transformers' BertModel on the same ids."""
    import torch
    from transformers import BertConfig, BertModel

    tokenizer, size = _sentencepiece_tokenizer()
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    config = BertConfig(vocab_size=size, max_position_embeddings=32, attn_implementation="eager", **_tiny_sizes())
    torch.manual_seed(1)
    model = BertModel(config, add_pooling_layer=False).eval()
    model.save_pretrained(tmp_path, safe_serialization=True)

    enc = load_encoder(str(tmp_path))
    assert enc.unk_token == "<unk>" and enc.unk_id == 3 and enc.markers == ("<s>", "</s>")
    trace = encode("The cat sat on the 猫 mat, 狗", name=str(tmp_path))
    assert trace.tokens[0] == "<s>" and trace.tokens[-1] == "</s>"
    # the pieces the vocabulary lacks (two characters and the comma: no piece spells them), found by id
    assert [trace.tokens[i] for i in trace.unknown] == ["猫", ",", "狗"]
    assert all(trace.ids[i] == 3 for i in trace.unknown) and "<unk>" not in trace.tokens
    with torch.inference_mode():
        out = model(torch.tensor([trace.ids.tolist()]), output_hidden_states=True, output_attentions=True)
    np.testing.assert_allclose(trace.hidden, np.stack([h[0].numpy() for h in out.hidden_states]), atol=1e-5)
    np.testing.assert_allclose(trace.weights, np.stack([a[0].numpy() for a in out.attentions]), atol=1e-6)

    cut = encode("the cat sat on the mat", name=str(tmp_path), max_pieces=3)
    assert cut.tokens == ("<s>", "▁the", "▁cat", "▁sat", "</s>") and cut.truncated and cut.n_pieces == 6
    full = encode("the cat sat on the mat", name=str(tmp_path))
    assert len(full.tokens) == 8 and not full.truncated


def test_the_bundled_models_unknown_piece_and_markers_are_berts():
    enc = load_encoder()
    assert enc.unk_token == "[UNK]" and enc.unk_id == enc.tokenizer.token_to_id("[UNK]") == 100
    assert enc.markers == ("[CLS]", "[SEP]")
