"""The explorer's engine: one model, fixed at start, and the answers the page asks for.

    analyze    everything the panels show for one input: tokens, one attention head's matrix
               and the layer × head thumbnails, the stream's norms, the logit lens, the
               next-token bars (a regressor: its predictions)
    trace      the shape trace (inspect/trace.py); it depends only on the input's length and the
               language, so it is kept per (T, lang) and fetched only when one of them changes
    attention  another head, layer or stage (and, on request, its thumbnails)
    vectors    the per-token vectors (q, k, v) one head made for one token
    rope       a model with rotary positions: one query head's and its key-value head's q and k at a
               few positions, pair by pair, before and after the turn by p·θ_i, and the angles —
               read from the rotary module's own hook points, paired and angled by the module itself
    next       the bars again, for new temperature / top-k / top-p
    generate   n more tokens, the KV cache kept between requests (generation sessions, below)
    experts    a mixture of experts' routing of the input: the token × expert map and load of each
               layer, MaxVio, routing entropy (explore/experts.py)

Each answer is computed under one lock, in eval mode without gradients: hook functions are
attached to the shared model for the length of a call (run_with_hooks), so two calls must not
overlap. Requests are plain dicts checked by requests.py; answers are JSON-ready and rounded,
holding only what a panel draws (panels.py). Ablating a head multiplies its slice of the attention
module's z hook (found by declaration, panels.py) by 0, in every computation of the request.

Generation sessions (after the Explorer): the next token, one per click, the keys and values kept
between clicks.

    p_i = softmax(filter(z / τ))        τ = 0: all mass on the argmax (greedy)

Neither the shaping nor the drawing is written here: `next_probs` and `draw` are `glassformer.sample`'s
own (imported), the very functions `generate_ids` calls, so the bars show the distribution a
generation step draws from, and a seeded step here draws the same token as `generate_ids`.

A click asks for n more tokens after the ids the page holds. The first click (or one whose ids or
ablated heads differ from what a session has seen) prefills a KV cache with the context; every
later click feeds only the newest token. What the model is given at each step is not decided
here: `glassformer.sample.next_logits` decides it, for `generate_ids` and for the page alike
(prefill what the model may see; then one token a step; with a position table, reset and prefill
the last max_len again once the cache is full; without one, keep every token and let the cache
grow), and `draw` picks the token. So a click writes exactly what `generate_ids` writes, past
max_len too (tests/explore/test_explorer.py, for every registered position scheme).

A model without a cache (an encoder sees the future, so its past changes) recomputes every step.
Sessions are few and bounded (least recently used dropped first); the Explorer's lock guards them.

The causal panel (at the end of this file): what the answer depends on, not only where heads look.

    patching    the clean text and a corrupted one of the same length: the patching grids over
                layers × positions (resid_post) and over layers × heads (attn.z, every position),
                normalised clean = 1, corrupted = 0, for the logit difference between the clean
                run's top next token (the answer) and the corrupted run's (the wrong one); without
                a corrupted text, each head's zero-ablation effect on the answer's log-probability
    patch_cell  the corrupted run with one cell of one of those grids copied from the clean run:
                its next-token bars, the unpatched corrupted run as their grey marks ("base": "corrupted")

The same texts, or a clean–corrupted gap too small or inverted to normalise by, are refused with
HTTP 400 and the views' own key (inspect/causal_views.py: check_gap), never answered with NaN.

Both read the model only through inspect/causal_views.py, the same functions `glassformer patch`
calls, so the page and the command line show the same numbers.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass

import torch

import glassformer.explore.conversation as conversation
import glassformer.explore.diffview as diffview
import glassformer.explore.panels as panels
from glassformer.errors import UsageError
from glassformer.explore.conversation import Chats
from glassformer.explore.diffview import Against
from glassformer.explore.panels import bars, find_structure, readout
from glassformer.explore.repeats import panel as repeats_panel
from glassformer.explore.repeats import zero_heads
from glassformer.explore.requests import LIMITS, SPECS, RequestError, check_range, knobs, read
from glassformer.inspect.trace import token_labels, trace
from glassformer.logits_processors import Knobs
from glassformer.messages import N_, translated
from glassformer.sample import draw, next_logits, next_probs, open_cache, visible

# why next and generate refuse a model: it reads numbers, not tokens; it writes no text
NEEDS_TOKENS = {
    "next": (
        N_(
            "this model ({kind}) reads numbers and predicts numbers: "
            "there are no next-token probabilities. Its predictions come "
            "with /api/analyze."
        ),
        N_("a {kind} model does not write text: it has no next-token probabilities."),
    ),
    "generate": (
        N_(
            "this model ({kind}) reads numbers and predicts numbers: "
            "there is no generation. Its predictions come with "
            "/api/analyze."
        ),
        N_("a {kind} model does not write text: it cannot generate."),
    ),
}
MAX_TRACES = 256  # shape traces kept, one per (input length, language): a few KiB each


class Explorer:
    def __init__(self, model, tokenizer=None, source="", limits=LIMITS, example: str | None = None) -> None:
        """source: what the page's header names, a plain string or (catalogue key, fields) said in
        each language the page asks for; example: the first input (a run's own training text)."""
        if model.inputs not in ("tokens", "numbers"):  # an encoder-decoder reads two sequences: no page for it
            raise UsageError(
                "explore.kind",
                "the explorer shows a model that reads one sequence (tokens "
                "or numbers); this run is kind {kind!r}, which reads "
                "{inputs}. Look inside it with glassformer trace --run or "
                "glassformer attention --run instead.",
                kind=model.kind,
                inputs=model.inputs,
            )
        self.model, self.tokenizer, self.source, self.limits = model.eval(), tokenizer, source, limits
        self.example = example
        if model.cfg.attention != "glass":  # the fused path forms no matrices to show
            model.set_attention("glass")
        self.structure = find_structure(model)
        self.readout = readout(model)
        self.reads_tokens = model.inputs == "tokens"
        self.lock = threading.Lock()
        self.generations = Generations()
        self.traces: OrderedDict[tuple[int, str], dict] = OrderedDict()  # (T, lang) -> table
        self.run: str | None = None  # the run's folder and config.json (open_run): the chat tab reads them
        self.config: dict = {}
        self.chats = Chats()  # the chat tab's conversations (conversation.py)
        self.against: Against | None = None  # the tuned run the diff view compares with (diffview.py)

    # ------------------------------------------------------------------ the one entry point
    def handle(self, endpoint: str, body: dict) -> dict:
        if endpoint not in SPECS:
            raise RequestError(
                "explore.no_endpoint",
                "no endpoint '{endpoint}'; there are {endpoints}.",
                404,
                "not_found",
                endpoint=endpoint,
                endpoints=", ".join(SPECS),
            )
        req = read(body, SPECS[endpoint])
        with self.lock, torch.no_grad():
            return getattr(self, endpoint)(req)

    def info(self) -> dict:
        return {**panels.info(self), "chat": self.config.get("post") is not None, "against": self.against is not None}

    def source_text(self, lang: str) -> str:
        """The header's name of the model in `lang`."""
        if isinstance(self.source, tuple):
            key, fields = self.source
            return translated(key, lang).format(**fields)
        return self.source

    # ------------------------------------------------------------------ inputs and runs
    def _input(self, req: dict) -> tuple[torch.Tensor, list[int], list[dict]]:
        """The request's input as the (1, T) or (1, T, d_in) batch the model reads (its last
        max_len steps), the full id list (token models) and notes for the page."""
        max_len, notes = self.model.cfg.max_len, []
        if self.reads_tokens:
            ids = panels.encode(self, req)
        else:
            ids = panels.numbers(self, req)
        if not ids:
            raise RequestError(
                "explore.empty", "the input is empty: type some text (or numbers, for a regressor).", 422, "empty"
            )
        steps = len(ids) if self.reads_tokens else len(ids) // self.model.cfg.d_in
        if steps > max_len:
            notes.append({"code": "cropped", "kept": max_len, "total": steps})
        if self.reads_tokens:
            return torch.tensor([ids[-max_len:]]), ids, notes  # (1, T)
        x = torch.tensor(ids, dtype=torch.float32).reshape(1, steps, self.model.cfg.d_in)  # (1, T, d_in)
        return x[:, -max_len:], [], notes  # (1, T, d_in)

    def _ablation(self, req: dict) -> tuple[frozenset, dict]:
        """Validated (layer, head) pairs and the z-hook functions that zero them."""
        pairs = frozenset(
            (
                check_range(
                    "layer",
                    layer,
                    len(self.structure.layers),
                    "explore.range.layers",
                    N_("{field}={value} is out of range: this model has {size} attention layers (0 to {last})."),
                ),
                check_range(
                    "head",
                    h,
                    self.model.cfg.n_heads,
                    "explore.range.heads",
                    N_("{field}={value} is out of range: this model has {size} heads (0 to {last})."),
                ),
            )
            for layer, h in req["ablate"]
        )
        z_points: dict[int, str] = {}  # layer -> its heads' outputs, where a head is zeroed
        for layer in sorted({lay for lay, _ in pairs}):
            z = self.structure.layers[layer].z
            if z is None:
                raise RequestError(
                    "explore.no_z_hook",
                    "attention layer {layer} declares no heads' output hook: it cannot be ablated.",
                    422,
                    layer=layer,
                )
            z_points[layer] = z
        return pairs, zero_heads(self.model.cfg.n_heads, pairs, z_points.__getitem__)

    def _run(self, x: torch.Tensor, hooks: dict, keep: list[str]) -> tuple[torch.Tensor, dict]:
        """One forward with the ablation hooks attached, keeping the named activations of row 0.
        (What is kept — matrices, vectors, the stream — never includes the ablated z hooks.)"""
        cache: dict[str, torch.Tensor] = {}

        def store(t: torch.Tensor, name: str) -> None:
            cache[name] = t[0]

        out = self.model.run_with_hooks(x, hooks={**{n: store for n in keep}, **hooks})  # (1, T, ·)
        return out[0], cache  # (T, V) or (T, d_out)

    def _view(self, req: dict) -> tuple[int, int, str]:
        stages = self.structure.stages
        if not stages:
            raise RequestError(
                "explore.no_stages", "this model declares no attention matrices (no hook on B H T_q T_k).", 422
            )
        stage = req["stage"] or stages[-1]  # default: the last matrix a layer makes (the softmax weights)
        if stage not in stages:
            raise RequestError(
                "explore.stage",
                "stage '{stage}' is not an attention stage of this model; it has {stages}.",
                422,
                "out_of_range",
                field="stage",
                stage=stage,
                stages=", ".join(stages),
            )
        layer = check_range(
            "layer",
            req["layer"],
            len(self.structure.layers),
            "explore.range.layers",
            N_("{field}={value} is out of range: this model has {size} attention layers (0 to {last})."),
        )
        return (
            layer,
            check_range(
                "head",
                req["head"],
                self.model.cfg.n_heads,
                "explore.range.heads",
                N_("{field}={value} is out of range: this model has {size} heads (0 to {last})."),
            ),
            stage,
        )

    def _shape(self, req: dict) -> tuple[float, int | None, float | None, Knobs | None]:
        top_k, top_p = req["top_k"] or None, req["top_p"] if req["top_p"] < 1 else None
        return req["temperature"], top_k, top_p, knobs(req)

    def _probs(self, logits: torch.Tensor, ids: torch.Tensor, req: dict) -> torch.Tensor:
        """(V,) last-position logits, (1, T) every id so far -> (V,) what a generation step draws from:
        the knobs' penalties on the raw logits, then sample.next_probs (generate_ids' own order)."""
        temperature, top_k, top_p, chosen = self._shape(req)
        z = logits[None] if chosen is None else chosen.penalize(logits[None], ids)  # (1, V)
        return next_probs(z, temperature, top_k, top_p, chosen)[0]  # (V,)

    def _bars(self, logits: torch.Tensor, x: torch.Tensor, req: dict, ablated: bool, ids=None) -> dict:
        """Next-token bars from the last position's logits (V,); with ablation, the intact model's too.
        ids (1, T): every id so far, which the penalties read (default: x, what the model sees)."""
        ids = x if ids is None else ids
        probs = self._probs(logits, ids, req)  # (V,)
        base = None
        if ablated:
            base = self._probs(self.model(x)[0, -1], ids, req)  # (V,) the intact model
        return bars(logits, probs, self.labels, base)

    def labels(self, ids: list[int]) -> list[str]:
        """Readable text of each token (whitespace made visible), or its id without a tokenizer."""
        return token_labels(ids, self.tokenizer) if self.tokenizer is not None else [str(i) for i in ids]

    # ------------------------------------------------------------------ endpoints
    def analyze(self, req: dict) -> dict:
        x, ids, notes = self._input(req)
        layer, head, stage = self._view(req)
        pairs, hooks = self._ablation(req)
        keep = [n for lay in self.structure.layers for n in lay.matrices.values()] + self.structure.stream
        out, cache = self._run(x, hooks, keep)  # (T, V) or (T, d_out)
        answer = {
            "tokens": panels.tokens(self, x),
            "ids": ids,
            "notes": notes,
            "ablated": sorted(map(list, pairs)),
            "attention": panels.attention(self.structure, cache, layer, head, stage, grid=True),
            **panels.stream(self, cache),
        }
        if self.reads_tokens:
            answer["next"] = self._bars(out[-1], x, req, bool(pairs))
        else:
            base = self.model(x)[0] if pairs else None  # (T, d_out) the intact model
            answer["prediction"] = panels.prediction(x, out, base)
        return answer

    def trace(self, req: dict) -> dict:
        """The shape trace of this input's length: every hooked tensor's shape and axes, in the
        order they fire (blocks after the first collapsed when they repeat it). No tokenizer is
        given, so no row depends on the text itself and the table can be kept per (T, lang)."""
        x, _, _ = self._input(req)
        key = (x.size(1), req["lang"])
        if key not in self.traces:
            self.traces[key] = panels.trace_table(trace(self.model, x, collapse=True, lang=req["lang"]))
            while len(self.traces) > MAX_TRACES:
                self.traces.popitem(last=False)
        self.traces.move_to_end(key)
        return self.traces[key]

    def attention(self, req: dict) -> dict:
        x, _, _ = self._input(req)
        layer, head, stage = self._view(req)
        _, hooks = self._ablation(req)
        layers = self.structure.layers if req["grid"] else [self.structure.layers[layer]]
        _, cache = self._run(x, hooks, [n for lay in layers for n in lay.matrices.values()])
        return panels.attention(self.structure, cache, layer, head, stage, grid=req["grid"])

    def vectors(self, req: dict) -> dict:
        x, _, _ = self._input(req)
        layer, head, _ = self._view(req)
        token = check_range(
            "token",
            req["token"],
            x.size(1),
            "explore.range.tokens",
            N_("{field}={value} is out of range: this input has {size} tokens (0 to {last})."),
        )
        _, hooks = self._ablation(req)
        lay = self.structure.layers[layer]
        _, cache = self._run(x, hooks, lay.vectors)
        points = self.model.hook_points()

        def of(name: str) -> int:  # a key-value hook (grouped-query attention) holds the head's kv head
            return lay.kv_head(head) if points[name].axes == panels.KV_AXES else head

        return {
            "layer": layer,
            "head": head,
            "kv_head": lay.kv_head(head),
            "token": token,
            "vectors": [
                {**self.structure.describe[n][req["lang"]], "values": panels.rounded(cache[n][of(n), token], 3)}
                for n in lay.vectors
            ],
        }

    def rope(self, req: dict) -> dict:
        """The rotation RoPE gives q and k: one layer's query head and the key-value head it reads, at
        a few positions (default the first eight), from the model's own hook points and rotary module."""
        x, _, _ = self._input(req)
        layer, head, _ = self._view({**req, "stage": None})
        lay = self.structure.layers[layer]
        rotary = panels.rotary_of(self.model, lay)
        if rotary is None:
            raise RequestError(
                "explore.rope.none",
                "this model turns no queries and keys by position (position "
                "is {position!r}): there is no RoPE rotation to show. Open a "
                "model with rotary positions, e.g. --preset baby-llama.",
                422,
                "no_rope",
                position=self.model.cfg.position,
            )
        T = x.size(1)
        positions = [
            check_range(
                "positions",
                p,
                T,
                "explore.range.tokens",
                N_("{field}={value} is out of range: this input has {size} tokens (0 to {last})."),
            )
            for p in (req["positions"] if req["positions"] is not None else range(min(T, 8)))
        ]
        points = panels.rotation_points(self.model, lay)
        _, cache = self._run(x, {}, [n for pair in points.values() for n in pair])
        kept = x[0].tolist() if self.reads_tokens else []
        return {
            "layer": layer,
            "head": head,
            "kv_head": lay.kv_head(head),
            "tokens": [self.labels([kept[p]])[0] for p in positions] if kept else [],
            **panels.rope(rotary, cache, points, head, lay.kv_head(head), positions, T),
        }

    def next(self, req: dict) -> dict:
        self._needs_tokens("next")
        x, ids, _ = self._input(req)
        pairs, hooks = self._ablation(req)
        out, _ = self._run(x, hooks, [])  # (T, V)
        return self._bars(out[-1], x, req, bool(pairs), torch.tensor([ids]))

    def generate(self, req: dict) -> dict:
        self._needs_tokens("generate")
        if not req["ids"]:
            raise RequestError(
                "explore.generate_empty",
                "generate needs 'ids': the token ids so far (from analyze), at least one.",
                422,
                "empty",
            )
        ids = panels.encode(self, {"ids": req["ids"], "text": None})
        pairs, hooks = self._ablation(req)
        found = self.generations.resume(req["session"], ids, pairs)
        resumed = found is not None
        key, session = found or self.generations.start(self.model, ids, pairs, hooks, req["seed"])
        new = [step(self.model, session, hooks, *self._shape(req)) for _ in range(req["n"])]  # knobs too
        x = visible(self.model, torch.tensor([session.ids]))  # (1, T) what the intact model reads next
        return {
            "session": key,
            "resumed": resumed,
            "ids": list(session.ids),
            "tokens": [{"id": i, "text": text} for i, text in zip(new, self.labels(new), strict=False)],
            "text": panels.appended_text(self, ids, session.ids),
            "cached": session.cache.length if session.cache is not None else 0,
            "next": self._bars(session.logits[0], x, req, bool(pairs), torch.tensor([session.ids])),
        }

    def patching(self, req: dict) -> dict:
        """The causal panel's grids (`patching`, at the end of this file)."""
        return patching(self, req)

    def patch_cell(self, req: dict) -> dict:
        """The bars with one activation patched from the clean run (`patch_cell`, at the end)."""
        return patch_cell(self, req)

    def experts(self, req: dict) -> dict:
        """The routing panel: each expert layer's token × expert map and load (explore/experts.py)."""
        from glassformer.explore.experts import experts

        return experts(self, req)

    def chat(self, req: dict) -> dict:
        """One turn of the chat tab (explore/conversation.py)."""
        return conversation.chat(self, req)

    def diff(self, req: dict) -> dict:
        """What tuning changed, post/diff.py's views (explore/diffview.py)."""
        return diffview.diff(self, req)

    def repeats(self, req: dict) -> dict:
        """The repeats panel: `glassformer repeats`' two tables (explore/repeats.py, `panel`)."""
        self._needs_tokens("generate")
        return repeats_panel(self, req)

    def _needs_tokens(self, endpoint: str) -> None:
        """next and generate need a model that reads and writes tokens."""
        numbers_only, no_text = NEEDS_TOKENS[endpoint]
        if not self.reads_tokens:
            raise RequestError(f"explore.numbers_only.{endpoint}", numbers_only, 422, "no_tokens", kind=self.model.kind)
        if not self.model.samples:
            raise RequestError(f"explore.no_text.{endpoint}", no_text, 422, "no_tokens", kind=self.model.kind)


# ────────────────────────────────────────────────────────────────────────────────────────────────
# Generation sessions: a KV cache kept between clicks
# ────────────────────────────────────────────────────────────────────────────────────────────────

MAX_SESSIONS = 16  # each holds a KV cache: baby's is 4 layers × 2 × 64 × 128 floats, 256 KiB


@dataclass
class Session:
    ids: list[int]  # every id so far (may exceed max_len; sample.visible says what the model sees)
    ablate: frozenset  # the heads zeroed while this cache was filled
    cache: object | None  # a KVCache, or None for a model without one
    logits: torch.Tensor  # (1, V) the last position's logits: what the next token is drawn from
    generator: torch.Generator


class Generations:
    """Open sessions by id, bounded, oldest dropped first."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self.sessions: OrderedDict[str, Session] = OrderedDict()

    def resume(self, key: str | None, ids: list[int], ablate: frozenset) -> tuple[str, Session] | None:
        """The session `key` if it stands exactly where the page says it does, else None."""
        s = self.sessions.get(key) if key else None
        if s is None or s.ids != ids or s.ablate != ablate:
            return None
        self.sessions.move_to_end(key)
        return key, s

    def start(self, model, ids: list[int], ablate: frozenset, hooks: dict, seed: int) -> tuple[str, Session]:
        cache = open_cache(model, 1)
        generator = torch.Generator().manual_seed(seed)
        session = Session(list(ids), ablate, cache, torch.empty(0), generator)
        session.logits = _forward(model, session, hooks)  # an empty cache: the prefill
        key = secrets.token_hex(8)
        self.sessions[key] = session
        while len(self.sessions) > self.limit:
            self.sessions.popitem(last=False)
        return key, session


def _forward(model, s: Session, hooks: dict) -> torch.Tensor:
    """The next token's logits (1, V) after the session's ids, the ablation hooks attached."""

    def run(context: torch.Tensor, cache) -> torch.Tensor:
        kwargs = {"cache": cache} if cache is not None else {}
        return model.run_with_hooks(context, hooks=hooks, **kwargs)  # (1, T, V)

    return next_logits(model, torch.tensor([s.ids]), s.cache, run)  # (1, V)


def step(
    model, s: Session, hooks: dict, temperature: float, top_k: int | None, top_p: float | None, chosen=None
) -> int:
    """Draw one token from the session's logits, append it, and compute the logits after it. chosen:
    the repetition knobs, applied as generate_ids applies them (penalties on every id so far, then draw)."""
    logits = s.logits if chosen is None else chosen.penalize(s.logits, torch.tensor([s.ids]))  # (1, V)
    next_id = draw(logits, temperature, top_k, top_p, s.generator, chosen)  # (1, 1)
    s.ids.append(int(next_id))
    s.logits = _forward(model, s, hooks)  # (1, V)
    return s.ids[-1]


# ────────────────────────────────────────────────────────────────────────────────────────────────
# The causal panel
# ────────────────────────────────────────────────────────────────────────────────────────────────

PATCH_KINDS = {"position": ("resid_post", ("T",)), "head": ("attn.z", ("H",))}


@contextmanager
def _refused_as_request():
    """The views' refusal of the inputs (the same texts, a gap too small or inverted to normalise by)
    as the request's fault: HTTP 400 with the view's code, sentence and fields, never a grid of NaN."""
    try:
        yield
    except UsageError as e:
        raise RequestError(e.code, e.message, 400, "degenerate", **e.fields) from None


def _causal_prompts(ex, req: dict) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(1, T) clean and, if typed, (1, T) corrupted ids; different lengths and the same ids are refused."""
    from glassformer.inspect import causal_views as views

    ex._needs_tokens("next")
    max_len = ex.model.cfg.max_len
    clean = panels.encode(ex, {"text": req["text"]})[-max_len:]
    if not clean:
        raise RequestError(
            "explore.empty", "the input is empty: type some text (or numbers, for a regressor).", 422, "empty"
        )
    if not req["corrupt"]:
        return torch.tensor([clean]), None
    corrupt = panels.encode(ex, {"text": req["corrupt"]})[-max_len:]
    if len(corrupt) != len(clean):
        raise RequestError(
            "explore.causal.lengths",
            "The corrupted text has {corrupt} tokens and the text "
            "{clean}; patching copies position by position, so make them "
            "the same number of tokens.",
            422,
            "lengths",
            clean=len(clean),
            corrupt=len(corrupt),
        )
    with _refused_as_request():
        views.different(clean, corrupt, ex.tokenizer)
    return torch.tensor([clean]), torch.tensor([corrupt])  # (1, T), (1, T)


def _answer_and_wrong(ex, clean: torch.Tensor, corrupt: torch.Tensor) -> tuple[int, int]:
    a = int(ex.model(clean)[0, -1].argmax())
    other = ex.model(corrupt)[0, -1].clone()  # (V,)
    other[a] = -float("inf")  # the corrupted run's likeliest token other than the answer
    return a, int(other.argmax())


def patching(ex, req: dict) -> dict:
    from glassformer.inspect import causal_views as views  # loaded when the panel is first used

    clean, corrupt = _causal_prompts(ex, req)
    tokens = ex.labels(clean[0].tolist())
    if corrupt is None:
        a = int(ex.model(clean)[0, -1].argmax())
        base, ablated = views.head_ablation(ex.model, clean, lambda z: z[:, -1].log_softmax(-1)[:, a])
        return {"tokens": tokens, "answer": {"id": a, "text": ex.labels([a])[0]},
                "ablation": [[round(float(v - base), 4) for v in row] for row in ablated]}  # fmt: skip
    a, w = _answer_and_wrong(ex, clean, corrupt)
    with _refused_as_request():
        grids = {by: views.patch_view(ex.model, ex.tokenizer, clean, corrupt, a, w, by) for by in PATCH_KINDS}
    first = grids["position"]
    return {
        "tokens": tokens,
        "answer": {"id": a, "text": ex.labels([a])[0]},
        "wrong": {"id": w, "text": ex.labels([w])[0]},
        "clean": round(first.extra["clean"], 4),
        "corrupt": round(first.extra["corrupt"], 4),
        "gap": round(first.extra["gap"], 4),
        "positions": {"rows": first.rows, "values": [[round(v, 4) for v in r] for r in first.values]},
        "heads": {"rows": grids["head"].rows, "values": [[round(v, 4) for v in r] for r in grids["head"].values]},
    }


def patch_cell(ex, req: dict) -> dict:
    from glassformer.inspect import causal_views as views

    clean, corrupt = _causal_prompts(ex, req)
    if corrupt is None:
        raise RequestError(
            "explore.causal.no_corrupt",
            "Type a corrupted text first: a patch copies from the text into it.",
            422,
            "empty",
        )
    point, by = PATCH_KINDS[req["kind"]]
    layer = check_range(
        "layer",
        req["layer"],
        ex.model.cfg.n_layers,
        "explore.range.layers",
        N_("{field}={value} is out of range: this model has {size} attention layers (0 to {last})."),
    )
    size = clean.shape[1] if req["kind"] == "position" else ex.model.cfg.n_heads
    out_of_range = (
        ("explore.range.tokens", N_("{field}={value} is out of range: this input has {size} tokens (0 to {last})."))
        if req["kind"] == "position"
        else ("explore.range.heads", N_("{field}={value} is out of range: this model has {size} heads (0 to {last})."))
    )
    index = check_range("index", req["index"], size, *out_of_range)
    a, w = _answer_and_wrong(ex, clean, corrupt)
    with _refused_as_request():  # the grids' own refusal: a cell means nothing without a gap either
        views.check_gap(*views._gap(ex.model, clean, corrupt, a, w))
    name = f"blocks.{layer}.{point}"
    _, cache = ex.model.run_with_cache(clean, names=[name])
    axes = ex.model.hook_points()[name].axes.split()

    def hook(t: torch.Tensor, name: str) -> torch.Tensor:
        return views._patch_rows(t, cache[name], axes, by, [0], [(index,)])

    logits = ex.model.run_with_hooks(corrupt, hooks={name: hook})[0, -1]  # (V,)
    base = ex.model(corrupt)[0, -1]  # (V,)
    out = bars(logits, ex._probs(logits, corrupt, req), ex.labels, ex._probs(base, corrupt, req))
    return {
        **out,
        "base": "corrupted",
        "kind": req["kind"],
        "layer": layer,
        "index": index,
        "logit_diff": round(float(logits[a] - logits[w]), 4),
    }
