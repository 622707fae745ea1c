"""Short training runs on the built-in seed text, for the tests of the loop, the run folder and the
presets: one way to start one, its logged losses by step, and a callback that stops it (Ctrl-C)."""

from __future__ import annotations

from glassformer.train.record import MetricsLog
from glassformer.train.run import new_run


def seed_run(tmp_path, name: str, overrides: list[str], preset: str = "seed000", **kw):
    """A new run of `preset` on builtin:seed in tmp_path/name (cache in tmp_path/cache), quiet, no
    samples unless kw asks."""
    kw.setdefault("sample_chars", 0)
    return new_run(
        preset,
        overrides,
        source="builtin:seed",
        out=tmp_path / name,
        cache_dir=tmp_path / "cache",
        progress=False,
        **kw,
    )


def step_losses(run_dir) -> dict[int, float]:
    return {r["step"]: r["loss"] for r in MetricsLog(run_dir / "metrics.jsonl").read() if r["kind"] == "log"}


def stop_at(step):
    """A trainer callback that raises KeyboardInterrupt after `step`."""

    def callback(event, trainer):
        if event == "step" and trainer.step == step:
            raise KeyboardInterrupt

    return callback
