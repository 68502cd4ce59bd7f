"""BERT's weights, random: the tensors of a model directory that tests and benches write.

The machines here cannot download a second model, so the model-choice tests write a small one
(``tests/chinese_model.py``) and ``bench/bench_mmap.py`` one the size of a multilingual model.
Both need the same names and shapes, those of the bundled all-MiniLM-L6-v2's model.safetensors
(what ``attention_core.model_files`` reads); only the sizes and the random numbers differ.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def bert_tensors(
    normal: Callable[..., np.ndarray], *, vocab: int, d: int, d_ff: int, layers: int, positions: int
) -> dict[str, np.ndarray]:
    """Every tensor of a BERT encoder by its safetensors name: weights and biases from
    ``normal(*shape)`` (drawn in this order, so a seeded ``normal`` gives the same model each
    time), LayerNorm scales 1 and shifts 0. Linear layers in torch's layout, (out, in).

    >>> import numpy as np
    >>> tensors = bert_tensors(lambda *shape: np.zeros(shape), vocab=10, d=4, d_ff=8, layers=1, positions=16)
    >>> tensors["encoder.layer.0.intermediate.dense.weight"].shape, len(tensors)
    ((8, 4), 21)
    """
    tensors = {
        "embeddings.word_embeddings.weight": normal(vocab, d),
        "embeddings.position_embeddings.weight": normal(positions, d),
        "embeddings.token_type_embeddings.weight": normal(2, d),
        "embeddings.LayerNorm.weight": np.ones(d, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(d, np.float32),
    }
    for layer in range(layers):
        at = f"encoder.layer.{layer}."
        for name, (n_out, n_in) in {
            "attention.self.query": (d, d),
            "attention.self.key": (d, d),
            "attention.self.value": (d, d),
            "attention.output.dense": (d, d),
            "intermediate.dense": (d_ff, d),
            "output.dense": (d, d_ff),
        }.items():
            tensors[at + name + ".weight"] = normal(n_out, n_in)
            tensors[at + name + ".bias"] = normal(n_out)
        for name in ("attention.output.LayerNorm", "output.LayerNorm"):
            tensors[at + name + ".weight"] = np.ones(d, np.float32)
            tensors[at + name + ".bias"] = np.zeros(d, np.float32)
    return tensors
