"""Our code, shown as it runs, and the same attention in PyTorch for comparison.

``source_of(fn)`` reads a function's real source from its file (what "The code" page
prints, so the page can never drift from the code). ``torch_attention`` is the same
formula written in PyTorch twice — by hand and with PyTorch's own
``torch.nn.functional.scaled_dot_product_attention`` — and ``compare_with_torch`` runs it
on a trace's q, k, v in float64 and returns the largest differences from our numbers.

torch is imported inside the functions only: ``import attention_core`` stays NumPy-only.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .attention import AttentionTrace
from .isolated import run_isolated, torch_installed


@dataclass(frozen=True)
class SourceCode:
    """A function's source as it is in its file.

    name : "scaled_dot_product_attention"
    file : the path relative to the package's parent, e.g. "attention_core/attention.py"
    first_line : the line number of its ``def`` (or first decorator)
    text : the source, exactly ``inspect.getsource(fn)``
    """

    name: str
    file: str
    first_line: int
    text: str


def source_of(fn) -> SourceCode:
    """The real source of ``fn``, read from its file.

    >>> from attention_core import softmax
    >>> src = source_of(softmax)
    >>> src.file, src.text.startswith("def softmax(")
    ('attention_core/attention.py', True)
    """
    lines, first_line = inspect.getsourcelines(fn)
    source_file = inspect.getsourcefile(fn)
    if source_file is None:  # a builtin or C function: no Python source to show
        raise TypeError(f"{fn!r} has no Python source file")
    path = Path(source_file).resolve()
    package_parent = Path(__file__).resolve().parents[1]
    try:
        file = path.relative_to(package_parent).as_posix()
    except ValueError:
        file = path.name
    return SourceCode(name=fn.__name__, file=file, first_line=first_line, text="".join(lines))


def torch_attention(q, k, v, scale=None):
    """softmax(Q Kᵀ / √d_k) V in PyTorch, by hand and built in; float64 numpy arrays out.

    ``scale`` replaces 1/√d_k when given (1.0 = unscaled), as in our own function.

    Returns (weights, outputs, builtin_outputs): the hand-written weights (T_q, T_k) and
    outputs (T_q, d_v), and PyTorch's own scaled_dot_product_attention (T_q, d_v).

    >>> w, b, b_torch = torch_attention(np.eye(2), np.eye(2), np.eye(2), scale=1.0)
    >>> w.round(4)
    array([[0.7311, 0.2689],
           [0.2689, 0.7311]])
    >>> bool(np.allclose(b, b_torch))
    True
    """
    import torch
    import torch.nn.functional as F

    Q, K, V = (torch.tensor(np.asarray(x), dtype=torch.float64) for x in (q, k, v))
    d_k = Q.shape[-1]
    if scale is None:
        scale = 1 / math.sqrt(d_k)

    scores = Q @ K.transpose(-2, -1)  # (T_q, T_k)
    weights = torch.softmax(scores * scale, dim=-1)  # (T_q, T_k), rows sum to 1
    outputs = weights @ V  # (T_q, d_v)

    builtin = F.scaled_dot_product_attention(Q, K, V, scale=scale)  # (T_q, d_v)
    return weights.numpy(), outputs.numpy(), builtin.numpy()


@dataclass(frozen=True)
class TorchComparison:
    """The largest absolute differences between PyTorch's numbers and ours (float64).

    weights : max |α̂ (torch, by hand) − α̂ (ours)|
    outputs : max |b (torch, by hand) − b (ours)|
    builtin_outputs : max |b (torch.nn.functional.scaled_dot_product_attention) − b (ours)|
    torch_version : torch.__version__
    """

    weights: float
    outputs: float
    builtin_outputs: float
    torch_version: str

    @property
    def largest(self) -> float:
        return max(self.weights, self.outputs, self.builtin_outputs)


def torch_available() -> bool:
    """Whether PyTorch is installed here (found without importing it: ``isolated.torch_installed``)."""
    return torch_installed()


def torch_run(q, k, v, scale) -> tuple:
    """``torch_attention`` and torch's version, as the child process of ``compare_with_torch`` returns them."""
    import torch

    return (*torch_attention(q, k, v, scale=scale), str(torch.__version__))


def compare_with_torch(trace: AttentionTrace, *, while_waiting=None) -> TorchComparison | None:
    """Run ``torch_attention`` on the trace's q, k, v and scale; None when torch is missing.

    Only unmasked single-head traces (2-D weights), the kind a lesson has. PyTorch runs in a
    child process (``isolated.run_isolated``): the server itself never imports it.
    ``while_waiting`` is called while the child runs; what it raises stops the check.

    >>> from attention_core import scaled_dot_product_attention
    >>> rng = np.random.default_rng(0)
    >>> c = compare_with_torch(scaled_dot_product_attention(*(rng.normal(size=(5, 4)) for _ in range(3))))
    >>> c.largest < 1e-12
    True
    """
    if trace.mask is not None or trace.weights.ndim != 2:
        raise ValueError("compare_with_torch takes an unmasked single-head trace (2-D weights)")
    if not torch_available():
        return None
    q, k, v = (np.asarray(x) for x in (trace.q, trace.k, trace.v))
    weights, outputs, builtin, version = run_isolated(
        "attention_core.reference", "torch_run", q, k, v, trace.scale, while_waiting=while_waiting
    )
    return TorchComparison(
        weights=float(np.abs(weights - trace.weights).max()),
        outputs=float(np.abs(outputs - trace.outputs).max()),
        builtin_outputs=float(np.abs(builtin - trace.outputs).max()),
        torch_version=version,
    )
