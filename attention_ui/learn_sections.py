"""Watch a head learn, what the page shows of a finished run (``learn_training.View``), one
section each: the attention maps it passed through (2), its W^Q·W^Kᵀ (3), one query row step by
step (4), the model writing with a temperature (5) and what it learned, every claim with its
number from the trained weights (6). Section 1, the training, is ``learn_training``.

Each section draws itself from a ``View``: ``snapshots_section(view)``, ``qk_section(view)``
(which returns the head the next section explains), ``row_section(view, layer, head)``,
``write_section(view)``, ``learned_section(view, runs)``.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core import explain
from attention_core.learning import decode, forward, generate, qk_circuit, sample_many
from attention_ui.exports import show_figure
from attention_ui.formulas import causal_weights
from attention_ui.fragments import page_part
from attention_ui.heatmaps import heatmap, heatmap_row
from attention_ui.i18n import t
from attention_ui.learn_figures import next_token_bars
from attention_ui.learn_training import DEFAULT_PROMPT, HELD_OUT, SEED_RANGE, View, head_name, percent, shared_run
from attention_ui.notation import SCORE, component_labels, output_row, scaled_row, scores_row, shown, softmax_row
from attention_ui.presentation import explained_around
from attention_ui.registry import page_link
from attention_ui.safe import escape_markdown, numbered_labels
from attention_ui.tables import number_table
from attention_ui.url_state import url_choice, url_picker, url_tabs
from attention_ui.vector_figures import key_bars

TEMPERATURE_RANGE = (0.0, 5.0)  # wide: at T = 2 a trained model still writes its greedy text in most draws
DRAWS = 200  # continuations drawn at once to show what the temperature changes
SURE = 0.99  # a first token this probable barely moves with T: the page says why and points to a snapshot


# ---------------------------------------------------------------- 2 · the attention appears


@page_part("learn_snapshots")
def snapshots_section(view: View) -> None:
    """The attention maps of every head at a snapshot of training, the last by default: a part of
    the page that reruns alone when the learner moves the snapshot slider, which changes nothing
    else on the page (only ``?snapshot=`` in the URL; ``fragments.page_part``)."""
    held = view.run.held_out
    labels = numbered_labels(view.tokens)
    st.subheader(t("learn.snapshots_header"))
    st.markdown(t("learn.snapshots_text", example=escape_markdown("".join(view.tokens))))
    snapshots = {s.step: s for s in view.history.snapshots}
    step = url_choice(
        t("learn.snapshot"),
        "snapshot",
        tuple(snapshots),
        view.history.steps,
        lambda s: t("learn.snapshot_option", step=s),
        widget=st.select_slider,
        key=f"snapshot_{view.task_id}_{view.seed}_{view.steps}",
    )
    snap = snapshots[step]
    written = decode(view.task, snap.probs[view.predicting].argmax(axis=-1))  # the most probable next tokens
    st.markdown(
        t("learn.snapshot_line", step=step, written=escape_markdown(written), accuracy=percent(held[step]), n=HELD_OUT)
    )
    show_figure(
        heatmap_row(
            [(name, snap.weights[layer, h]) for (layer, h), name in zip(view.heads, view.names)],
            labels,  # columns by number: the same tokens as the rows (token labels under 4 panels would tilt)
            scale=(0.0, 1.0),
            y_title=t("learn.query_axis"),
            x_title=t("learn.key_axis"),
            title=t("learn.snapshot_title", step=step),
            tr=t,
        ),
        "fig_snapshot",
        matrix=np.hstack([snap.weights[layer, h] for layer, h in view.heads]),
        row_labels=labels,
        col_labels=[f"{name} · {label}" for name in view.names for label in labels],
        filename=f"attention_{view.task_id}_seed{view.seed}_after{step}",
    )
    st.caption(t(f"learn.pattern_{view.task_id}"))


# ---------------------------------------------------------------- 3 · W^Q W^Kᵀ


def qk_map(matrix, rows: list[str], cols: list[str], units: tuple[str, str], title: str, name: str, stem: str) -> None:
    """One of the chosen head's W^Q W^Kᵀ maps, through queries and keys of ``units`` (each
    "position" or "token"), with its download: chart ``fig_<name>``, file ``<name>_<stem>``."""
    y_unit, x_unit = units
    show_figure(
        heatmap(
            matrix,
            rows,
            cols,
            title=title,
            diverging=True,
            y_title=t(f"learn.query_{y_unit}_axis"),
            x_title=t(f"learn.key_{x_unit}_axis"),
            digits=1,
            tr=t,
        ),
        f"fig_{name}",
        matrix=matrix,
        row_labels=rows,
        col_labels=cols,
        filename=f"{name}_{stem}",
    )


def qk_section(view: View) -> tuple[int, int]:
    """The chosen head's W^Q W^Kᵀ / √d_k, through the positions, the tokens, or as it is.
    Returns the chosen head (layer, head), which the next section explains row by row."""
    task, heads, names = view.task, view.heads, view.names
    st.subheader(t("learn.qk_header"))
    which = url_picker(
        t("learn.head_picker"),
        "learn_head",
        len(heads),
        names.__getitem__,
        default=heads.index((view.answer_layer, view.lead)),
    )
    layer, head = heads[which]
    name = names[which]
    circuit = qk_circuit(view.history.params, layer, head)
    st.markdown(t("learn.qk_text", head=head_name(layer, head), d_k=task.d_model // task.n_heads))
    views = url_tabs("qk", ("positions", "tokens", "mixed", "matrix"), lambda v: t(f"learn.qk_tab_{v}"))
    stem = f"{view.task_id}_seed{view.seed}_{layer + 1}_{head + 1}"
    by_view = {  # view id -> (W^Q W^K^T through it, its labels, the axes' unit)
        "positions": (circuit.positions, [str(shown(i)) for i in range(task.n_positions)], "position"),
        "tokens": (circuit.tokens, list(task.alphabet), "token"),
    }
    for view_id, (matrix, labels, unit) in by_view.items():
        if views[view_id].open:
            with views[view_id]:
                title = t(f"learn.qk_{view_id}_title", head=name)
                qk_map(matrix, labels, labels, (unit, unit), title, f"qk_{view_id}", stem)
                st.caption(t(f"learn.qk_{view_id}_text"))
    if views["mixed"].open:
        with views["mixed"]:
            positions = [str(shown(i)) for i in range(task.n_positions)]
            tokens = list(task.alphabet)
            left, right = st.columns(2)
            for box, part, matrix, rows, cols, y_unit, x_unit in (
                (left, "tp", circuit.token_position, tokens, positions, "token", "position"),
                (right, "pt", circuit.position_token, positions, tokens, "position", "token"),
            ):
                with box:
                    title = t(f"learn.qk_mixed_{part}_title", head=name)
                    qk_map(matrix, rows, cols, (y_unit, x_unit), title, f"qk_mixed_{part}", stem)
            st.caption(t("learn.qk_mixed_text"))
    if views["matrix"].open:
        with views["matrix"]:
            components = component_labels("a", task.d_model)
            show_figure(
                heatmap(
                    circuit.matrix,
                    components,
                    components,
                    title=t("learn.qk_matrix_title", head=name, d=task.d_model),
                    diverging=True,
                    tr=t,
                ),
                "fig_qk_matrix",
                matrix=circuit.matrix,
                row_labels=components,
                col_labels=components,
                filename=f"qk_matrix_{stem}",
                defer_csv=True,
            )
            st.caption(t("learn.qk_matrix_text", d=task.d_model))
    mixed_tp, mixed_pt = circuit.mixed_spans
    spans = {"positions": circuit.position_span, "tokens": circuit.token_span, "mixed": max(mixed_tp, mixed_pt)}
    st.markdown(
        t(
            "learn.qk_spans_later" if layer > 0 else "learn.qk_spans",
            positions=f"{circuit.position_span:.1f}",
            tokens=f"{circuit.token_span:.1f}",
            mixed_tp=f"{mixed_tp:.1f}",
            mixed_pt=f"{mixed_pt:.1f}",
            winner=t(f"learn.qk_winner_{max(spans, key=lambda view_id: spans[view_id])}"),
        )
    )
    return layer, head


# ---------------------------------------------------------------- 4 · one row, step by step


def explain_step(formula: str, text: str = "") -> None:
    """A step's formula and, when given, the words under it: what ``explained_around`` puts beside
    the step's chart."""
    st.latex(formula)
    if text:
        st.caption(text)


def row_section(view: View, layer: int, head: int) -> None:
    """One query row of the chosen head on the example, in the lesson's steps: q and k, α = q·k,
    ÷√d_k and the causal mask, α̂, b and the next token."""
    task, tokens = view.task, view.tokens
    T = task.n_positions
    labels = numbered_labels(tokens)
    name = view.names[view.heads.index((layer, head))]
    st.subheader(t("learn.row_header"))
    fwd = forward(view.history.params, view.history.example)
    trace = fwd.layers[layer].attention.head(head)  # q, k, v (T, d_k); scores, weights (T, T)
    i = url_picker(t("learn.query_picker"), "learn_query", T, labels.__getitem__, default=view.predicting[0])
    e = explain(trace, i)
    n = shown(i)
    read = tokens[: i + 1]
    st.markdown(t("learn.row_text", head=head_name(layer, head), i=n, token=escape_markdown(tokens[i]), d_k=trace.d_k))
    steps = url_tabs("learn_step", ("qk", "scores", "mask", "weights", "output"), lambda v: t(f"learn.step_{v}"))
    if steps["qk"].open:
        with steps["qk"], explained_around(lambda: explain_step(SCORE, t("learn.step_qk_text"))):
            show_figure(
                heatmap_row(
                    [("q_j", trace.q), ("k_j", trace.k)],
                    labels,
                    y_title=t("learn.token_axis"),
                    title=t("learn.qk_title", head=name, d_k=trace.d_k),
                    tr=t,
                ),
                "fig_row_qk",
                matrix=np.hstack([trace.q, trace.k]),
                row_labels=labels,
                col_labels=component_labels("q", trace.d_k) + component_labels("k", trace.d_k),
                filename=f"q_k_{view.task_id}_seed{view.seed}",
            )
    if steps["scores"].open:
        with steps["scores"], explained_around(lambda: explain_step(scores_row(i, e.scores[: i + 1]))):
            show_figure(
                key_bars(e.scores[: i + 1], read, percent=False, title=t("learn.scores_title", i=n), tr=t),
                "fig_row_scores",
                matrix=e.scores[: i + 1],
                row_labels=[labels[i]],
                col_labels=labels[: i + 1],
                filename=f"scores_row_{n}",
            )
            st.caption(t("learn.step_scores_text", i=n))
    if steps["mask"].open:
        with steps["mask"]:
            st.latex(causal_weights(masked=True, scaled=True, scale=e.scale))
            st.latex(scaled_row(i, e.scaled[: i + 1], trace.d_k))
            show_figure(
                key_bars(e.scaled[: i + 1], read, percent=False, title=t("learn.scaled_title", i=n), tr=t),
                "fig_row_scaled",
                matrix=e.scaled,
                row_labels=[labels[i]],
                col_labels=labels,
                filename=f"scaled_row_{n}",
            )
            if i + 1 < T:
                st.caption(t("learn.step_mask_text", i=n, first=n + 1, last=T))
            else:
                st.caption(t("learn.step_mask_last", i=n))
    if steps["weights"].open:
        with (
            steps["weights"],
            explained_around(lambda: explain_step(softmax_row(i, e.weights[: i + 1], e.row_max, e.row_sum))),
        ):
            show_figure(
                key_bars(e.weights, tokens, title=t("learn.weights_title", i=n), highlight=e.top_key, tr=t),
                "fig_row_weights",
                matrix=e.weights,
                row_labels=[labels[i]],
                col_labels=labels,
                filename=f"weights_row_{n}",
            )
            top = e.top_key
            st.caption(
                t(
                    "learn.step_weights_text",
                    j=shown(top),
                    token=escape_markdown(tokens[top]),
                    weight=percent(e.weights[top]),
                )
            )
    if steps["output"].open:
        with steps["output"]:
            st.latex(output_row(i, e.weights[: i + 1]))
            probs = fwd.probs[i]  # (V,)
            best = int(np.argmax(probs))
            show_figure(
                next_token_bars(probs, task.alphabet, chosen=best, title=t("learn.next_title", i=n), tr=t),
                "fig_row_next",
                matrix=probs,
                row_labels=[labels[i]],
                col_labels=list(task.alphabet),
                filename=f"next_token_{n}",
            )
            st.caption(
                t(
                    "learn.step_output_text",
                    i=n,
                    heads=task.n_heads,
                    token=escape_markdown(task.alphabet[best]),
                    p=percent(probs[best]),
                )
            )


# ---------------------------------------------------------------- 5 · let it write


def prompt_problem(prompt: str, task) -> str | None:
    """What is wrong with ``prompt`` for ``task``, in the learner's words, or None."""
    if not prompt:
        return t("learn.prompt_empty", tokens=escape_markdown(task.alphabet))
    unknown = sorted({c for c in prompt if c not in task.alphabet}, key=prompt.index)
    if unknown:
        listed = t("learn.list_sep").join(escape_markdown(repr(c)) for c in unknown[:10])
        return t("learn.prompt_unknown", chars=listed, tokens=escape_markdown(task.alphabet))
    if len(prompt) > task.n_positions:
        return t("learn.prompt_long", positions=task.n_positions, got=len(prompt))
    return None


def write_section(view: View) -> None:
    task = view.task
    T = task.n_positions
    st.subheader(t("learn.write_header"))
    st.markdown(t("learn.write_text", tokens=escape_markdown(task.alphabet), positions=T))
    snapshots = {s.step: s for s in view.history.snapshots}
    step = url_choice(
        t("learn.write_from"),
        "write_from",
        tuple(snapshots),
        view.history.steps,
        lambda s: t("learn.write_from_option", step=s),
        widget=st.select_slider,
        key=f"write_from_{view.task_id}_{view.seed}_{view.steps}",
    )
    params = snapshots[step].params  # the trained model, or a snapshot from earlier in training
    prompt_col, temperature_col, seed_col = st.columns([2, 2, 1], vertical_alignment="bottom")
    with prompt_col:
        prompt = st.text_input(
            t("learn.prompt"),
            value=DEFAULT_PROMPT[view.task_id],
            key="prompt",
            bind="query-params",
            help=t("learn.prompt_help", tokens=escape_markdown(task.alphabet), positions=T),
        )
    with temperature_col:
        temperature = st.slider(
            t("learn.temperature"),
            *TEMPERATURE_RANGE,
            1.0,
            step=0.1,
            key="temperature",
            bind="query-params",
            help=t("learn.temperature_help"),
        )
    with seed_col:
        sample_seed = st.number_input(
            t("learn.sample_seed"),
            *SEED_RANGE,
            SEED_RANGE[0],
            step=1,
            key="sample_seed",
            bind="query-params",
            help=t("learn.sample_seed_help"),
        )
    temperature = float(temperature)
    sample_seed = int(sample_seed) if sample_seed is not None else SEED_RANGE[0]
    if temperature > 0:
        st.markdown(t("learn.temperature_text", T=f"{temperature:g}", beta=f"{1 / temperature:.2f}"))
    else:
        st.markdown(t("learn.temperature_zero"))
    page_link("tailor_shop", label=t("learn.tailor_link"))

    problem = prompt_problem(prompt or "", task)
    if problem is not None:
        st.warning(problem)
        return
    n_new = T - len(prompt) + 1
    made = generate(params, prompt, n_new, temperature, seed=sample_seed, task=view.task_id)
    st.markdown(t("learn.written", prompt=escape_markdown(prompt), written=escape_markdown(made.text or ""), n=n_new))
    draws = sample_many(params, prompt, n_new, temperature, DRAWS, sample_seed, task=view.task_id)
    greedy = escape_markdown(decode(task, draws.greedy))
    if temperature > 0:
        st.markdown(
            t(
                "learn.draws",
                n=DRAWS,
                T=f"{temperature:g}",
                seed=sample_seed,
                greedy=greedy,
                n_greedy=draws.n_greedy,
                n_distinct=draws.n_distinct,
            )
        )
    else:
        st.markdown(t("learn.draws_zero", greedy=greedy))
    top = float(made.steps[0].probs.max())  # the model's own (T = 1) probability of its first choice
    if top >= SURE:
        st.caption(t("learn.why_still", top=f"{100 * top:.2f} %"))
    step_labels = [f"{shown(s.position + 1)}: {task.alphabet[s.token]}" for s in made.steps]
    g = url_picker(t("learn.gen_picker"), "gen_step", len(made.steps), step_labels.__getitem__)
    chosen = made.steps[g]
    read = numbered_labels(list(decode(task, made.sequence[: chosen.position + 1])))
    left, right = st.columns(2, gap="medium")
    with left:
        show_figure(
            next_token_bars(
                chosen.sampling_probs,
                task.alphabet,
                chosen=chosen.token,
                probs=chosen.probs,
                title=t("learn.gen_next_title", n=shown(chosen.position + 1), T=f"{temperature:g}"),
                tr=t,
            ),
            "fig_gen_next",
            matrix=np.stack([chosen.sampling_probs, chosen.probs]),
            row_labels=[t("learn.fig_sampled_name"), t("learn.fig_model_name")],
            col_labels=list(task.alphabet),
            filename=f"next_token_T{temperature:g}",
        )
        st.caption(
            t(
                "learn.gen_next_text",
                token=escape_markdown(task.alphabet[chosen.token]),
                p=percent(chosen.sampling_probs[chosen.token]),
                p1=percent(chosen.probs[chosen.token]),
            )
        )
    with right:
        rows = np.stack([chosen.weights[layer, h, -1] for layer, h in view.heads])  # (heads, t): the row that predicts
        show_figure(
            heatmap(
                rows,
                view.names,
                read,
                title=t("learn.gen_attention_title", i=shown(chosen.position)),
                zmin=0.0,
                zmax=1.0,
                x_title=t("learn.key_axis"),
                tr=t,
            ),
            "fig_gen_attention",
            matrix=rows,
            row_labels=view.names,
            col_labels=read,
            filename="attention_while_writing",
        )
        st.caption(t("learn.gen_attention_text", i=shown(chosen.position)))


# ---------------------------------------------------------------- 6 · what it learned


def learned_section(view: View, runs: list) -> None:
    """What was learned, every claim with its number from the trained weights (``head_report``)."""
    task, report, history = view.task, view.report, view.history
    layer, lead = view.answer_layer, view.lead
    n_layers = task.n_layers
    st.subheader(t("learn.learned_header"))
    st.markdown(
        t(
            "learn.learned_data",
            before=percent(view.run.held_out[0]),
            after=percent(report.accuracy),
            chance=percent(1 / task.n_answers),
            answers=task.n_answers,
            steps=history.steps,
            batch=history.batch_size,
            examples=history.steps * history.batch_size,
            n=report.n,
        )
    )
    answer, without = report.on_answer[layer], report.without[layer]  # (H,) each
    st.markdown(
        t(
            "learn.lead_head",
            head=head_name(layer, lead, start=True),
            share=percent(answer[lead]),
            accuracy=percent(report.accuracy),
            without=percent(without[lead]),
        )
    )
    if task.n_heads > 1:
        cost = report.accuracy - without  # (H,) the accuracy lost without each head
        if cost.max() <= 0.05:
            verdict = t("learn.verdict_each", cost=f"{100 * max(cost.max(), 0.0):.1f}")
        elif cost.min() > 0.2:
            verdict = t("learn.verdict_split", worst=percent(without.max()))
        else:
            verdict = t("learn.verdict_one", head=head_name(layer, int(np.argmax(cost))))
        st.markdown(verdict)
    if n_layers > 1:
        prev = int(np.argmax(report.on_previous[0]))
        st.markdown(
            t(
                "learn.previous_head",
                head=head_name(0, prev, start=True),
                share=percent(report.on_previous[0, prev]),
                without=percent(report.without[0, prev]),
            )
        )
    number_table(
        {
            t("learn.col_answer"): [report.on_answer[lay, h] for lay, h in view.heads],
            t("learn.col_previous"): [report.on_previous[lay, h] for lay, h in view.heads],
            t("learn.col_without"): [report.without[lay, h] for lay, h in view.heads],
        },
        index=view.names,
        number="{:.3f}",
    )
    st.caption(t("learn.table_text", n=report.n, accuracy=percent(report.accuracy)))

    mine = [key for key in runs if key[0] == view.task_id and shared_run(*key).done]
    if len(mine) < 2:
        st.markdown(t("learn.runs_hint", seed=view.seed))
    else:
        st.markdown(t("learn.runs_text"))
        columns: dict[str, list] = {
            t(f"learn.col_{c}"): [] for c in ("seed", "steps", "accuracy", "lead", "lead_share")
        }
        for _, seed, steps in mine:
            _, other = shared_run(view.task_id, seed, steps).finished()
            on = other.on_answer[layer]  # (H,)
            top = int(np.argmax(on))
            for column, value in zip(
                columns.values(), (seed, steps, other.accuracy, head_name(layer, top, start=True), on[top])
            ):
                column.append(value)
        number_table(columns, number="{:.3f}")
    st.caption(t("learn.honest"))
