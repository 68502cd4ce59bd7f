"""How long the NumPy decoder of attention_core.learning takes to learn each task, on one BLAS thread.

    python -m bench.bench_learning                 # every task, seed 0, 3 runs each (~30 s)
    python -m bench.bench_learning --seeds 0 1 2   # the same for three seeds
    python -m bench.bench_learning --tasks reverse --runs 5

What is timed, per task and seed, with ``threadpoolctl.threadpool_limits(1)`` (one BLAS thread,
as a page on a shared server would get): ``Trainer(task, seed)`` from its random initial W,
then slices of ``--every`` Adam updates (default 10), each followed by the held-out accuracy
on 500 examples (``accuracy(params, task, 500, seed)``, the check a page would show), until
that accuracy reaches ``--target`` (0.95) or ``--max-steps`` pass. The clock runs over all of
it: initialisation, training and the checks. The run is repeated ``--runs`` times (3) and the
median wall time is printed; the steps are the same every run (the training is seeded).

The accuracy printed is measured afterwards on 5000 other held-out examples
(``accuracy(..., n=5000, seed=seed + 1)``), so stopping on a lucky check does not flatter it.
Then each task's full recipe (``train(task, seed)``: ``Task.steps`` updates, the tests' run)
is timed once and its held-out accuracy printed the same way.

The machine may be shared: the load average (``os.getloadavg``) is printed before and after.
The script prints; it never asserts a time. Target: the default task reaches 95 % held-out
accuracy within 5 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from threadpoolctl import threadpool_info, threadpool_limits

from attention_core.learning import DEFAULT_TASK, TASKS, Trainer, accuracy, train
from bench.core import machine

TARGET_SECONDS = 5.0


def time_to_target(task: str, seed: int, target: float, every: int, max_steps: int) -> tuple[int, float, Trainer]:
    """(steps, seconds, trainer) of one run: train in slices until the check reaches ``target``."""
    start = time.perf_counter()
    trainer = Trainer(task, seed)
    while trainer.step < max_steps:
        trainer.run(every)
        if accuracy(trainer.params, task, n=500, seed=seed) >= target:
            break
    return trainer.step, time.perf_counter() - start, trainer


def load() -> str:
    return machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--runs", type=int, default=3, help="timed runs per task and seed (median)")
    parser.add_argument("--every", type=int, default=10, help="Adam updates between accuracy checks")
    parser.add_argument("--target", type=float, default=0.95)
    parser.add_argument("--max-steps", type=int, default=3000)
    args = parser.parse_args()

    print(f"before: {load()}")
    with threadpool_limits(1):
        blas = [f"{p['internal_api']} {p['version']} ({p['num_threads']} thread)" for p in threadpool_info()]
        print(f"BLAS: {', '.join(blas) or 'none found'}; Python {sys.version.split()[0]}")
        print(f"\nTo {args.target:.0%} held-out accuracy (checked every {args.every} steps on 500 examples):")
        print(f"{'task':<10} {'seed':>4} {'layers':>6} {'steps':>6} {'median s':>9} {'runs s':<22} {'held-out':>8}")
        results = {}
        for task in args.tasks:
            for seed in args.seeds:
                runs = [time_to_target(task, seed, args.target, args.every, args.max_steps) for _ in range(args.runs)]
                steps, _, trainer = runs[0]
                each = [r[1] for r in runs]  # seconds of each run
                held_out = accuracy(trainer.params, task, n=5000, seed=seed + 1)
                results[task, seed] = (steps, statistics.median(each), held_out)
                reached = "" if held_out >= args.target else "  (target not reached)"
                print(
                    f"{task:<10} {seed:>4} {TASKS[task].n_layers:>6} {steps:>6} {statistics.median(each):>9.2f} "
                    f"{' '.join(f'{s:.2f}' for s in each):<22} {held_out:>8.2%}{reached}"
                )

        print("\nThe full recipe, train(task, seed) (what tests/test_learning.py runs), one run each:")
        print(f"{'task':<10} {'seed':>4} {'steps':>6} {'lr':>7} {'seconds':>8} {'held-out':>8}")
        for task in args.tasks:
            for seed in args.seeds:
                start = time.perf_counter()
                history = train(task, seed=seed)
                seconds = time.perf_counter() - start
                held_out = accuracy(history.params, task, n=5000, seed=seed + 1)
                print(f"{task:<10} {seed:>4} {history.steps:>6} {history.lr:>7g} {seconds:>8.2f} {held_out:>8.2%}")

    print(f"\nafter: {load()}")
    if DEFAULT_TASK in args.tasks:
        for seed in args.seeds:
            steps, seconds, held_out = results[DEFAULT_TASK, seed]
            ok = seconds <= TARGET_SECONDS and held_out >= args.target
            print(
                f"target: {DEFAULT_TASK} (the default task), seed {seed}: {held_out:.1%} held-out after {steps} steps "
                f"in {seconds:.2f} s (median) — {'met' if ok else 'NOT met'} "
                f"(>= {args.target:.0%} within {TARGET_SECONDS:g} s)"
            )


if __name__ == "__main__":
    main()
