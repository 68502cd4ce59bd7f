"""What the app says about a head, in words, with the number measured beside every claim.

The numbers come from ``attention_core.heads`` (the census of every head over the probe set);
this module only picks which to say and words them through the catalogs. A sentence about a
head is a claim, so none is written here without its measurement.

>>> from attention_core.heads import census
>>> from functools import partial
>>> from attention_ui.i18n import translate
>>> head_summary(census(), 0, 2, tr=partial(translate, "en")).startswith("Layer 1, head 3, measured")
True
"""

from __future__ import annotations

from attention_core.heads import Census, heads_with_a_job, parking_heads, profile

from .i18n import t
from .notation import shown

AGREEMENT_SAID = 0.75
"""A head's he/she result is said beside it when it gets at least this share of the sentences
right (a head that ignores gender gets about half)."""


def measured_census(name: str | None = None) -> Census | None:
    """The census of every head of model ``name`` (default: the default model) over the probe set
    (``attention_core.heads.census``, once per process and model), or None when the model cannot
    be read (then nothing is claimed about a head)."""
    from attention_core.heads import census
    from attention_core.model_files import ModelUnavailable

    try:
        return census(name)
    except (ModelUnavailable, MemoryError, OSError):
        return None


def role_share(role: str, share: float, tr=t) -> str:
    """ "the previous token 99 %": one role of a head and its share of a row's weight."""
    return tr("heads.share", role=tr(f"heads.role_{role}_short"), share=share)


def head_summary(found: Census, layer: int, head: int, *, tr=t, brief: bool = False) -> str:
    """One paragraph on head (``layer``, ``head``), 0-based, every statement with its number:
    where its rows put their weight (the two largest shares), its he/she result when it is
    high, and its minimal-pair result; for the default head, why the lessons open on it.
    ``brief`` (the sidebar): without the head's name and the minimal pairs."""
    from attention_core.lesson import TRAINED_HEAD

    p = profile(found, layer, head)
    shares = tr("heads.list_sep").join(role_share(role, share, tr) for role, share in p.top[:2])
    summary = "heads.summary_brief" if brief else "heads.summary"
    text = tr(summary, layer=shown(layer), head=shown(head), n=p.n_plain, shares=shares)
    if p.agreement_correct >= AGREEMENT_SAID * p.n_agreement:
        text += " " + tr(
            "heads.summary_agreement",
            correct=p.agreement_correct,
            n=p.n_agreement,
            referent=p.agreement_referent,
            other=p.agreement_other,
        )
    if not brief:
        text += " " + tr("heads.summary_pairs", resolved=p.pairs_resolved, same=p.pairs_same, n=p.n_pairs)
    if (layer, head) == TRAINED_HEAD and p.agreement_correct >= AGREEMENT_SAID * p.n_agreement:
        text += " " + tr("heads.why_default")  # the bundled model's he/she head; another model's may be none
    return text


def parking_fields(found: Census, tokens) -> dict:
    """The fields of the catalog sentences about the start and end markers: the model's own
    (``tokens``, a sentence as the model reads it, begins and ends with them: [CLS] and [SEP],
    or <s> and </s>), and how many of how many heads park more than half of a row's weight on
    them, over how many probe sentences."""
    n_layers, n_heads = found.roles["cls"].shape
    return {
        "parking": parking_heads(found),
        "n_heads": n_layers * n_heads,
        "n_plain": found.n_plain,
        "cls": tokens[0],
        "sep": tokens[-1],
    }


def jobs_fields(found: Census) -> dict | None:
    """The fields of ``multi_head.intro_measured``: the previous-token head and the he/she head
    with their scores (positions from 1), or None when the census finds no such head."""
    jobs = {job.job: job for job in heads_with_a_job(found)}
    if "previous" not in jobs or "agreement" not in jobs:
        return None
    previous, agreement = jobs["previous"], jobs["agreement"]
    return {
        "prev_layer": shown(previous.layer),
        "prev_head": shown(previous.head),
        "previous": previous.score,
        "agr_layer": shown(agreement.layer),
        "agr_head": shown(agreement.head),
        "correct": int(found.agreement_correct[agreement.layer, agreement.head]),
        "n": found.n_agreement,
    }
