"""A second model for the tests of the model choice: a small random BERT that reads Chinese.

These machines cannot download a multilingual model, so the tests build one: the bundled
WordPiece vocabulary plus every CJK character of ``CHINESE``, and random weights of BERT's
layout (``harness.random_bert``: 2 layers, 4 heads, d_model 16, d_ff 24), written with
safetensors' NumPy API, no torch.
Its numbers mean nothing; what it shows is that the app reads the model the learner chose.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from attention_core.model_files import bundled_path
from harness.random_bert import bert_tensors

CHINESE = "小猫没有过马路，因为它太累了。小狗跑得很快，它想回家。老师说注意力很有用。"
"""Every Chinese character this model knows (the bundled model knows few of them)."""

SIZES = {"d_model": 16, "n_layers": 2, "n_heads": 4, "d_ff": 24, "positions": 64}


def make_chinese_model(directory: Path, seed: int = 0) -> Path:
    """Write the model into ``directory`` (created) and return it."""
    from safetensors.numpy import save_file

    directory.mkdir(parents=True, exist_ok=True)
    tokenizer = json.loads((bundled_path() / "tokenizer.json").read_text(encoding="utf-8"))
    vocab = tokenizer["model"]["vocab"]
    for char in dict.fromkeys(CHINESE):
        if char not in vocab and not char.isspace():
            vocab[char] = len(vocab)
    (directory / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False), encoding="utf-8")

    d, d_ff, positions = SIZES["d_model"], SIZES["d_ff"], SIZES["positions"]
    config = {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_act": "gelu",
        "hidden_size": d,
        "intermediate_size": d_ff,
        "num_attention_heads": SIZES["n_heads"],
        "num_hidden_layers": SIZES["n_layers"],
        "max_position_embeddings": positions,
        "type_vocab_size": 2,
        "vocab_size": len(vocab),
        "layer_norm_eps": 1e-12,
        "position_embedding_type": "absolute",
        "pad_token_id": 0,
    }
    (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (directory / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": positions}), encoding="utf-8")

    rng = np.random.default_rng(seed)

    def normal(*shape) -> np.ndarray:
        return (0.5 * rng.standard_normal(shape)).astype(np.float32)

    tensors = bert_tensors(normal, vocab=len(vocab), d=d, d_ff=d_ff, layers=SIZES["n_layers"], positions=positions)
    save_file(tensors, str(directory / "model.safetensors"))
    return directory
