"""Sampling: how a trained language model writes, one token at a time.

The whole idea is the loop in `generate_ids`: feed the text so far, read the distribution over the
next token at the last position (`next_logits`), pick one (`draw`), append it, repeat. Everything
else here shapes that distribution (temperature, top-k, top-p: `next_probs`) or turns ids back into
text (streaming, stop strings). The explorer's step-by-step generation and
its next-token bars (explore/explorer.py) call these same functions: there is one sampling rule.

    p_i = softmax(z_i / τ)       τ → 0: always the argmax (greedy); τ = 1: the model's own distribution
    top-k: keep the k largest z_i             (Fan et al. 2018)
    top-p: keep the smallest set of tokens whose probabilities sum to ≥ p   (Holtzman et al. 2020)

The repetition knobs (logits_processors.py's `Knobs`: penalties, no-repeat-n-gram, min-p, typical)
act where transformers' `generate` puts them: `knobs.penalize` on the raw logits, given the ids so
far, before anything else (greedy too; `generate_ids`), `knobs.cut` after top-p (`next_probs`).
No knobs (None): the logits are never touched, the text is the text without them.

Past max_len, the position scheme decides (`context_window`): a scheme with a table of positions
(learned, sinusoidal) shows the model only the last max_len tokens, a window that slides; one
without (rotary, alibi, none) shows it every token, and the KV cache grows (nn/kv_cache.py says
why). `visible` is that rule, `next_logits` applies it with or without a cache, and
`past_max_len` says which, in one line, for the CLI.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection
from typing import Callable, Iterator

import torch
import torch.nn.functional as F
from torch import nn

from glassformer.beam import Decoded, check_settings, search
from glassformer.errors import UsageError
from glassformer.logits_processors import Knobs
from glassformer.messages import t
from glassformer.nn.position import position_scheme

TINY_TEMPERATURE = 1e-3  # below it, the logits are shifted (max to 0) before they are divided


def top_k_filter(logits: torch.Tensor, k: int) -> torch.Tensor:
    """Set every logit below the k-th largest (per row) to -inf. (B, V) -> (B, V). Ties at the k-th
    value are all kept."""
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[:, -1:]  # (B, 1) the k-th largest per row
    return logits.masked_fill(logits < kth, float("-inf"))  # (B, V)


def top_p_filter(logits: torch.Tensor, p: float) -> torch.Tensor:
    """Keep the most likely tokens until their probability reaches p; -inf elsewhere. (B, V) -> (B, V).

    The most likely token is always kept, so p close to 0 is greedy-like, and p = 1 keeps all.
    """
    if p >= 1:
        return logits  # everything is kept (and float rounding of the cumsum cannot drop the tail)
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)  # (B, V), (B, V)
    probs = sorted_logits.softmax(dim=-1)  # (B, V) in sorted order
    mass_before = probs.cumsum(dim=-1) - probs  # (B, V) probability of the tokens ranked above i
    drop_sorted = mass_before >= p  # (B, V) bool: those above already reach p, so i is not needed
    drop_sorted[..., 0] = False  # the most likely token stays whatever p is (a p below float32's range is 0)
    drop = drop_sorted.scatter(-1, order, drop_sorted)  # (B, V) back in vocabulary order
    return logits.masked_fill(drop, float("-inf"))  # (B, V)


def _has_table(model: nn.Module) -> bool:
    """Does the model's position scheme know positions 0..max_len-1 only? (A model that names no
    scheme is treated as one that does: cropping is always safe.)"""
    name = getattr(model.cfg, "position", None)
    return name is None or position_scheme(name).table


def context_window(model: nn.Module, n_tokens: int) -> int:
    """How many of the last tokens the model sees while a text grows to n_tokens: max_len for a
    scheme with a position table, all n_tokens for one without."""
    return model.cfg.max_len if _has_table(model) else max(n_tokens, 1)


def visible(model: nn.Module, ids: torch.Tensor) -> torch.Tensor:
    """ids (B, T) -> (B, T'): the tokens the model reads to predict the next one (the last max_len
    with a position table, every one without)."""
    return ids[:, -context_window(model, ids.size(1)) :]  # (B, T'), T' <= T


def past_max_len(model: nn.Module) -> str:
    """One line saying what sampling does once the text is longer than max_len."""
    name, L = getattr(model.cfg, "position", "?"), model.cfg.max_len
    if _has_table(model):
        return t(
            "position={name}: a table of max_len={max_len} positions; "
            "past it the model sees only the last {max_len} tokens (the "
            "window slides).",
            name=name,
            max_len=L,
        )
    return t(
        "position={name}: no position table; past max_len={max_len} "
        "the model keeps reading every token, at distances it never "
        "trained on (the KV cache grows).",
        name=name,
        max_len=L,
    )


Run = Callable[[torch.Tensor, object], torch.Tensor]  # (context (B, T), cache or None) -> logits (B, T, V)


def open_cache(model: nn.Module, batch_size: int, use_cache: bool | None = None):
    """A KV cache for batch_size rows (nn/kv_cache.py), or None. use_cache None: whenever the model
    offers one (`model.new_cache`); True: refuse a model that does not; False: never."""
    new_cache = getattr(model, "new_cache", None)  # None: a kind that keeps no cache (an encoder)
    if use_cache and new_cache is None:
        raise UsageError(
            "sample.no_cache", "{model} has no KV cache; sample with use_cache=False.", model=type(model).__name__
        )
    return new_cache(batch_size) if use_cache is not False and new_cache is not None else None


def next_logits(model: nn.Module, ids: torch.Tensor, cache=None, run: Run | None = None) -> torch.Tensor:
    """ids (B, T) the text so far -> (B, V) the logits of the token that comes next.

    THE rule of what the model is given, for sampling, the explorer and everyone else:
    the model reads `visible(model, ids)`. With a cache — which then holds what earlier calls on
    this same text, one token shorter, computed — only the newest token is fed, except
      - at the first call (the cache is empty): the prefill, every visible token;
      - with a position table, once the cache holds max_len tokens: the window slides, which
        moves every token to a new position, so the cache is reset and the last max_len tokens
        are prefilled again (nn/kv_cache.py says why). Without a table the cache just grows.
    run(context, cache) computes the logits (B, T, V); default: the model's own forward.
    """
    if cache is None:
        context = visible(model, ids)  # (B, T'): the whole visible text, every step
    elif cache.length == 0 or (_has_table(model) and cache.length >= model.cfg.max_len):
        cache.reset()
        context = visible(model, ids)  # (B, T'): prefill
    else:
        context = ids.narrow(1, ids.size(1) - 1, 1)  # (B, 1): the older tokens' keys and values are cached
    with onednn_off():
        if run is not None:
            logits = run(context, cache)  # (B, T', V) — THE model call
        else:
            logits = model(context) if cache is None else model(context, cache=cache)  # (B, T', V)
    return logits.select(1, -1)  # (B, V): only the last position predicts the token that comes next


class onednn_off:  # noqa: N801 - used as a context manager, named like one
    """oneDNN (mkldnn) off for one step of writing, put back as found, also on error.

    On a CPU, PyTorch hands a float32 GELU to oneDNN, whose fixed cost per call dwarfs the one row
    of a cached step: about 15 µs on a (1, 1, 512) tensor against 2 µs for PyTorch's own kernel,
    four times a token at `baby` (`python bench/decode.py`). In the model's float32 forward oneDNN
    takes nothing else (products go to BLAS), so the switch changes GELU's kernel only: the same
    function to a float32 rounding, not bit for bit. Training keeps oneDNN; the switch is
    process-wide while the step runs. (A class, not @contextmanager: it runs once a token.)"""

    def __enter__(self) -> None:
        self.was = torch._C._get_mkldnn_enabled()  # torch.backends.mkldnn.enabled, without its lookups
        torch._C._set_mkldnn_enabled(False)

    def __exit__(self, *exc) -> None:
        torch._C._set_mkldnn_enabled(self.was)


def next_probs(
    logits: torch.Tensor,
    temperature: float,
    top_k: int | None,
    top_p: float | None,
    knobs: Knobs | None = None,
) -> torch.Tensor:
    """(B, V) last-position logits (already `knobs.penalize`d) -> (B, V) the probabilities a
    sampling step draws from. Greedy ignores `knobs.cut`, as transformers' greedy ignores its warpers."""
    if temperature == 0:
        # greedy: temperature 0 is the limit τ → 0, all mass on the argmax
        best = logits.argmax(dim=-1, keepdim=True)  # (B, 1)
        return torch.zeros_like(logits).scatter(-1, best, 1.0)  # (B, V) one-hot
    # temperature: τ < 1 sharpens the distribution, τ > 1 flattens it
    dtype = logits.dtype
    if temperature < TINY_TEMPERATURE:  # logits / 1e-300 overflow to inf (1e-300 is 0 in float32): NaN.
        # The same softmax, safely: the max shifted to 0 (so it stays 0 and the rest go to -inf), in float64
        logits = (logits - logits.max(dim=-1, keepdim=True).values).double()  # (B, V) <= 0
    logits = logits / temperature  # (B, V)
    # top-k and top-p cut the unlikely tail, so one bad draw cannot derail the text
    if top_k is not None:
        logits = top_k_filter(logits, top_k)  # (B, V)
    if top_p is not None:
        logits = top_p_filter(logits, top_p)  # (B, V)
    if knobs is not None:
        logits = knobs.cut(logits)  # (B, V) min-p, typical
    # softmax turns scores into probabilities (filtered tokens get exactly 0)
    return F.softmax(logits, dim=-1).to(dtype)  # (B, V)


def draw(
    logits: torch.Tensor,
    temperature: float,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
    knobs: Knobs | None = None,
) -> torch.Tensor:
    """(B, V) last-position logits (already `knobs.penalize`d) -> (B, 1) next ids: the argmax at
    τ = 0, else one draw per row from `next_probs`."""
    if temperature == 0:
        return logits.argmax(dim=-1, keepdim=True)  # (B, 1): no randomness consumed
    probs = next_probs(logits, temperature, top_k, top_p, knobs)  # (B, V)
    return torch.multinomial(probs, num_samples=1, generator=generator)  # (B, 1)


def generate_ids(
    model: nn.Module,
    ids: torch.Tensor,
    max_new_tokens: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
    use_cache: bool | None = None,
    knobs: Knobs | None = None,
) -> Iterator[torch.Tensor]:
    """Yield the next token id of every row, (B,), max_new_tokens times. ids: (B, T0) prompt ids.

    use_cache: keep the keys and values of earlier tokens (nn/kv_cache.py) so each step feeds
    only the newest token. None = whenever the model offers one (`model.new_cache`). The tokens
    are the same either way; tests/reference/test_kv_cache.py checks it. Every token goes through
    the model's own forward (with the cache: the same forward, fed the new token), under inference
    mode: no autograd bookkeeping at all, cheaper per operation than no_grad. What a forward grows
    and keeps (a KV cache that doubles, the rotary tables) is made with it switched off
    (nn/kv_cache.py, nn/position.py), so training can go on after sampling.
    knobs: the repetition knobs (logits_processors.Knobs); they read every id so far, prompt included.
    """
    cache = open_cache(model, ids.size(0), use_cache)
    was_training = model.training
    model.eval()  # no dropout while writing
    try:
        for _ in range(max_new_tokens):
            # 1) the logits of the next token, the model given what it may see (next_logits)
            with torch.inference_mode():
                logits = next_logits(model, ids, cache)  # (B, V)
            if knobs is not None:
                logits = knobs.penalize(logits, ids)  # (B, V) the penalties read the text so far
            # 2) shape them and pick one per row: temperature, top-k, top-p, softmax, draw
            next_id = draw(logits, temperature, top_k, top_p, generator, knobs)  # (B, 1)
            # 3) append it: the new token is part of the context of the next step
            ids = torch.cat([ids, next_id], dim=1)  # (B, T0 + steps)
            yield next_id.view(-1)  # (B,)
    finally:
        model.train(was_training)


def check_max_new(max_new_tokens: int) -> None:
    if not (isinstance(max_new_tokens, numbers.Integral) and max_new_tokens >= 0):
        raise UsageError(
            "sample.max_new_tokens", "max_new_tokens must be a whole number >= 0, got {value!r}", value=max_new_tokens
        )


class LanguageModelStepper:
    """beam.search's stepper for a decoder-only model: each step reads every beam's visible text
    through `next_logits` (the one rule of what the model is given), the knobs' penalties applied
    as in `generate_ids`. Without a KV cache: the beams are reordered every step, and the model's
    cache (nn/kv_cache.py) keeps no rows to reorder; the whole visible text is read again instead."""

    def __init__(self, model: nn.Module, knobs: Knobs | None = None) -> None:
        self.model, self.knobs = model, knobs

    def next_log_probs(self, ids: torch.Tensor) -> torch.Tensor:
        """ids (N, T) every beam's text so far -> (N, V) log P(next token)."""
        with torch.inference_mode():
            logits = next_logits(self.model, ids)  # (N, V)
        if self.knobs is not None:
            logits = self.knobs.penalize(logits, ids)  # (N, V) the penalties read the text so far
        return F.log_softmax(logits.float(), dim=-1)  # (N, V)

    def reorder(self, rows: torch.Tensor) -> None:
        pass  # nothing kept between steps


def beam_continue(
    model: nn.Module,
    ids: torch.Tensor,
    max_new_tokens: int,
    beam_width: int = 4,
    knobs: Knobs | None = None,
) -> Decoded:
    """ids (B, T0) prompts -> Decoded: for each, the most likely continuation of max_new_tokens
    tokens that beam_width beams find (beam.search, the encoder-decoder's search too). No end token:
    every beam writes max_new_tokens, so the length penalty changes no ranking (α = 0)."""
    check_max_new(max_new_tokens)
    V = model.cfg.vocab_size
    check_settings(beam_width, V, 0.0)
    was_training = model.training
    model.eval()  # no dropout while writing
    try:
        return search(LanguageModelStepper(model, knobs), ids, beam_width, V, max_new_tokens, 0.0)
    finally:
        model.train(was_training)


def _held_back(text: str, stop: str | None) -> int:
    """How many trailing characters of `text` are not safe to show yet: a "\ufffd" that may be the
    first bytes of a character the next token completes (byte-level BPE splits characters), and
    what might be the start of `stop`."""
    unfinished = len(text) - len(text.rstrip("\ufffd"))
    text = text[: len(text) - unfinished]
    if not stop:
        return unfinished
    for n in range(min(len(stop) - 1, len(text)), 0, -1):
        if stop.startswith(text[-n:]):
            return unfinished + n
    return unfinished


def check_stop(tokenizer, stop: str | None) -> None:
    """Refuse a stop string the model can never write (it would never stop a sample)."""
    if stop and not _writable(tokenizer, stop):
        unseen = [c for c in dict.fromkeys(stop) if not _writable(tokenizer, c)]
        raise UsageError(
            "sample.stop_unseen",
            "the stop string {stop!r} can never appear in this model's "
            "text: {chars} cannot be written with its vocabulary, so "
            "sampling would never stop there. Use a stop string made of "
            "what the model writes.",
            stop=stop,
            chars=", ".join(map(repr, unseen[:20])) or repr(stop),
        )


def _writable(tokenizer, text: str) -> bool:
    """Can the model's text ever hold `text`? Only if the tokenizer has ids that decode back to it
    (a character outside a character vocabulary, or a line break for a word tokenizer, cannot)."""
    try:
        return tokenizer.decode(tokenizer.encode(text)) == text
    except ValueError:
        return False


def sample(
    model: nn.Module,
    tokenizer,
    prompt: str,
    max_new_tokens: int = 300,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    num_samples: int = 1,
    seed: int | None = None,
    stop: str | None = None,
    on_text: Callable[[int, str], None] | None = None,
    use_cache: bool | None = None,
    knobs: Knobs | None = None,
    end_ids: Collection[int] = (),
) -> list[str]:
    """Write num_samples continuations of `prompt` (as one batch); return them, prompt excluded.

    seed: the same seed gives the same text (a private torch.Generator; the global RNG is untouched).
    stop: a sample ends just before the first occurrence of this string (which is not returned).
    on_text(i, piece): called with each new piece of sample i's text as soon as it is certain, so a
    caller can stream; text that might be the start of the stop string waits until it is not.
    knobs: the repetition knobs (logits_processors.Knobs), None for none.
    end_ids: a sample ends at the first of these tokens (not returned), as `generate` ends at eos.
    """
    check_max_new(max_new_tokens)
    if not (isinstance(num_samples, numbers.Integral) and num_samples >= 1):
        raise UsageError(
            "sample.num_samples", "num_samples must be a whole number >= 1, got {value!r}", value=num_samples
        )
    if not (temperature >= 0 and math.isfinite(temperature)):
        raise UsageError(
            "sample.temperature",
            "temperature must be a finite number >= 0 (0 = greedy), got {value}",
            value=temperature,
        )
    if top_k is not None and not (isinstance(top_k, numbers.Integral) and top_k >= 1):
        raise UsageError("sample.top_k", "top_k must be a whole number >= 1, got {value!r}", value=top_k)
    if top_p is not None and not 0 < top_p <= 1:
        raise UsageError("sample.top_p", "top_p must be in (0, 1], got {value}", value=top_p)
    prompt_ids = tokenizer.encode(prompt)
    if not prompt_ids:
        raise UsageError("sample.empty_prompt", "the prompt is empty: give the model at least one token to continue")
    check_stop(tokenizer, stop)
    device = next(model.parameters()).device
    generator = torch.Generator(device=device)
    if seed is None:
        generator.seed()  # fresh randomness, without touching the global RNG
    else:
        generator.manual_seed(seed)
    ids = torch.tensor([prompt_ids] * num_samples, dtype=torch.long, device=device)  # (N, T0)

    new_ids = [[] for _ in range(num_samples)]
    texts, shown, done = [""] * num_samples, [0] * num_samples, [False] * num_samples
    for next_ids in generate_ids(model, ids, max_new_tokens, temperature, top_k, top_p, generator, use_cache, knobs):
        for i, token in enumerate(next_ids.tolist()):
            if done[i]:
                continue
            if token in end_ids:  # the model's end of text: this sample is finished
                done[i] = True
                continue
            new_ids[i].append(token)
            if not (stop or on_text):
                continue  # nothing to look for or to show: decode once, at the end
            texts[i] = tokenizer.decode(new_ids[i])
            if stop and stop in texts[i]:
                texts[i], done[i] = texts[i][: texts[i].index(stop)], True
            ready = len(texts[i]) if done[i] else len(texts[i]) - _held_back(texts[i], stop)
            if on_text and ready > shown[i]:
                on_text(i, texts[i][shown[i] : ready])
            shown[i] = max(shown[i], ready)
        if all(done):
            break
    if not (stop or on_text):
        texts = [tokenizer.decode(ids_i) for ids_i in new_ids]
    if on_text:  # the end of the budget: whatever was held back is now certain
        for i in range(num_samples):
            if len(texts[i]) > shown[i]:
                on_text(i, texts[i][shown[i] :])
    return texts
