"""A small decoder trained for real, in NumPy, with its backward pass written out by hand.

Every page says W^Q, W^K, W^V are "learned by backpropagation". This module does it: a tiny
decoder starts from random W, is trained by Adam on a task whose answer needs attention, and
an attention pattern appears as the loss falls. The model, for token ids x_1 … x_T:

    h⁰_i = E[x_i] + P_i                                   token + position embedding
    for each layer ℓ (one or two), each head h (one to four):
        q = h W^Q_h,  k = h W^K_h,  v = h W^V_h            (T, d_k), d_k = d_model / n_heads
        head_h = softmax(q kᵀ / √d_k + causal mask) v       (T, d_k), query i sees keys j <= i
        hˡ⁺¹ = hˡ + concat(head_1, …, head_H) W^O           residual
    logits_i = h_i U                                      unembedding, (T, V)
    loss = mean over scored positions of −log softmax(logits_i)[target_i]

The attention itself is ``attention.scaled_dot_product_attention`` with the causal mask of
``masks.causal_mask``, so the trace a page shows (q, k, scores, weights, outputs) is the one
every other page shows. The backward pass is the chain rule through those same named values
(``loss_and_grads``); ``tests/test_learning.py`` checks it against finite differences.

The package's modules, each on the ones before it:

    tasks        the tasks, their tokens, seeded examples and the held-out part
    model        parameters, the forward pass, the backward pass by hand
    training     Adam, the loss and held-out accuracy over a run, snapshots to replay
    generation   writing one token at a time, greedy or sampled; sampling many times
    learned      what each head is for (accuracy without it) and what it matches (W^QK)

Every public name is also importable from ``attention_core.learning`` itself.

Randomness is seeded only: the initial W come from ``default_rng([seed, INIT_STREAM])``, the
training batch of step s from ``default_rng([seed, TRAIN_STREAM, s])``, held-out examples from
``default_rng([seed, HELD_OUT_STREAM])``. Held-out also means *never trained on*: a fixed
hash puts one example in eight in the held-out part (``HELD_OUT_EVERY``), and training batches
are drawn from the other seven only.

    >>> history = train("reverse", steps=3, seed=0)
    >>> history.loss.shape, [s.step for s in history.snapshots]
    ((3,), [0, 3])
    >>> decode("reverse", encode("reverse", "abc|"))
    'abc|'
"""

from __future__ import annotations

from .generation import (
    Generation,
    GenerationStep,
    Samples,
    generate,
    sample_many,
    tempered,
)
from .learned import (
    HeadReport,
    QKCircuit,
    head_report,
    qk_circuit,
    without_head,
)
from .model import (
    INIT_OUT,
    INIT_QK,
    MAX_HEADS,
    MAX_LAYERS,
    ForwardTrace,
    LayerTrace,
    forward,
    init_params,
    loss_and_grads,
    sizes,
)
from .tasks import (
    COPY,
    DEFAULT_TASK,
    DIGITS,
    EXAMPLE_STREAM,
    HELD_OUT_EVERY,
    HELD_OUT_STREAM,
    IGNORE,
    INDUCTION,
    INIT_STREAM,
    LETTERS,
    N_CONTEXT,
    N_ITEMS,
    REVERSE,
    SEP,
    SORT,
    TASKS,
    TRAIN_STREAM,
    Task,
    decode,
    encode,
    get_task,
    make_batch,
)
from .training import (
    ADAM_BETAS,
    ADAM_EPS,
    SNAPSHOT_STEPS,
    History,
    Snapshot,
    Trainer,
    accuracy,
    train,
)

__all__ = [
    "IGNORE",
    "INIT_STREAM",
    "TRAIN_STREAM",
    "HELD_OUT_STREAM",
    "EXAMPLE_STREAM",
    "HELD_OUT_EVERY",
    "Task",
    "LETTERS",
    "DIGITS",
    "SEP",
    "N_ITEMS",
    "N_CONTEXT",
    "COPY",
    "REVERSE",
    "SORT",
    "INDUCTION",
    "TASKS",
    "DEFAULT_TASK",
    "get_task",
    "encode",
    "decode",
    "make_batch",
    "MAX_LAYERS",
    "MAX_HEADS",
    "INIT_QK",
    "INIT_OUT",
    "init_params",
    "sizes",
    "LayerTrace",
    "ForwardTrace",
    "forward",
    "loss_and_grads",
    "SNAPSHOT_STEPS",
    "ADAM_BETAS",
    "ADAM_EPS",
    "accuracy",
    "Snapshot",
    "History",
    "Trainer",
    "train",
    "GenerationStep",
    "Generation",
    "tempered",
    "generate",
    "Samples",
    "sample_many",
    "HeadReport",
    "without_head",
    "head_report",
    "QKCircuit",
    "qk_circuit",
]
