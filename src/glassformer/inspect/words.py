"""The words of a hook point, looked up when a view shows it: the model declares ids only.

A hook point (nn/hooks.py) carries its stage id, its axes' letters and the id of what its tensor
is; the tables below give each id its sentence in the catalogue (messages/glossary.py), written
literally so a grep for a sentence finds where it is used, and the views word them in the language
asked for. A field of a declaration that is a `Term` is worded in the same language, and a
`position` field brings its scheme's one line (`about`) with it.

A module outside the package declares its own ids and gives their words once, `add_words`.
"""

from __future__ import annotations

from glassformer.messages import N_, translated
from glassformer.nn.hooks import LETTERS, HookPoint, Term
from glassformer.nn.position import POSITION_SCHEMES

# a stage id (nn/hooks.py STAGES) -> its name, the trace table's first column
STAGE_WORDS: dict[str, str] = {
    "embedding": N_("embedding"),
    "position": N_("+ position"),
    "mla": N_("latent attention (MLA)"),
    "qkv": N_("Q/K/V split heads"),
    "qk_norm": N_("QK-norm"),
    "rotary": N_("rotary (RoPE)"),
    "alibi": N_("ALiBi bias"),
    "scores": N_("scores"),
    "weights": N_("weights"),
    "z": N_("heads' outputs (z)"),
    "merged": N_("merged heads"),
    "result": N_("each head's result"),
    "attn_out": N_("attn out"),
    "cross_out": N_("cross-attn out"),
    "residual": N_("residual"),
    "layer_norm": N_("LayerNorm {i}"),
    "rms_norm": N_("RMSNorm"),
    "final_norm": N_("final LayerNorm"),
    "identity": N_("{stage} (identity)"),
    "router": N_("router"),
    "ffn_hidden": N_("FFN hidden"),
    "moe": N_("experts"),
    "ffn_out": N_("FFN out"),
    "memory": N_("memory"),
    "logits": N_("logits"),
    "prediction": N_("prediction"),
}

# what a hook point's tensor is, by its means id (HookPoint's third argument)
MEANS_WORDS: dict[str, str] = {
    "router.logits": N_("router logits x·W_rᵀ: one score per expert, before the rule"),
    "router.softmax": N_("softmax of the logits over the experts: each token's scores sum to 1"),
    "router.sigmoid": N_("sigmoid of each logit alone (DeepSeek-V3): a token's scores need not sum to 1"),
    "router.experts": N_("the K experts each token goes to, best first"),
    "router.weights": N_("each chosen expert's weight in the token's output"),
    "moe.expert": N_("expert {e}'s weighted output: zero for the tokens not routed to it"),
    "moe.routed": N_("the routed experts' outputs summed"),
    "moe.out": N_("routed experts plus shared ones: what the layer adds to the stream"),
    "mla.q_latent": N_("the query latent c_q = RMSNorm(x·W_DQ), one R_q-vector per token"),
    "mla.kv_latent": N_("the key-value latent c_kv = RMSNorm(x·W_DKV): what the cache keeps of keys and values"),
    "mla.q": N_("queries per head: [q_nope ; RoPE(q_rope)]"),
    "mla.k": N_("keys per head: [c_kv·W_UK ; RoPE(k_rope)], the rotary part the same in every head"),
    "mla.v": N_("values per head: c_kv·W_UV"),
    "mla.scores": N_("q·kᵀ × softmax scale (1/√(D_n + D_r), × YaRN's mscale²), masked cells = -inf"),
    "embedding": N_("token vectors looked up in the (V, C) table"),
    "embedding.numbers": N_("each step's numbers projected to width C"),
    "position": N_("position {position}: {about}; one vector per place, broadcast over B"),
    "resid_pre": N_("embedding + position: the residual stream enters block 0"),
    "resid_pre.no_stream": N_("the embedding alone enters block 0 (position {position}: {about})"),
    "attn.q": N_("queries, already split into H heads of D"),
    "attn.k": N_("keys, split into heads"),
    "attn.v": N_("values, split into heads"),
    "attn.scores": N_("Q·Kᵀ/√D, masked cells = -inf"),
    "attn.weights": N_("softmax over keys: each row sums to 1"),
    "attn.z": N_("weights · V, one D-wide result per head"),
    "merged": N_("z with heads put side by side: H·D = C"),
    "attn.result": N_("what each head adds to the stream (its z through its columns of W_O); sum + bias = attn out"),
    "attn.out": N_("output projection of the merged heads"),
    "rotary.q": N_("queries turned by position: pair i of the query at p by angle p·θ_i"),
    "rotary.k": N_("keys turned the same way, so q·k sees only the distance between them"),
    "alibi": N_("-m_h·|i - j|: added to the scores, larger for keys farther away"),
    "ffn_hidden": N_("after the first Linear and the activation"),
    "ffn_out": N_("the second Linear: what the FFN adds to the stream"),
    "ln1.pre": N_("normalised stream fed to attention"),
    "ln1.post": N_("attention's residual sum, normalised (fed to the FFN)"),
    "ln2.pre": N_("normalised stream fed to the FFN"),
    "ln2.post": N_("the FFN's residual sum, normalised: the block's output"),
    "resid_mid": N_("stream after adding attention"),
    "resid_post": N_("stream after adding the FFN: the block's output"),
    "identity": N_("no normalisation in this config: the hook sees its input unchanged"),
    "final_norm": N_("last normalisation before the head"),
    "logits": N_("one score per vocabulary entry"),
    "prediction": N_("the regressor's numbers out"),
    "src_embed": N_("source token vectors from the (V, C) table, ×√C = {root:.3g}"),
    "src_pos": N_("position {position} of each source token: {about}"),
    "src_resid_pre": N_("embedding + position: the source enters encoder block 0"),
    "memory": N_("the encoder's output, read by every cross-attention"),
    "memory.normalised": N_("normalised: the encoder's output, read by every cross-attention"),
    "tgt_embed": N_("target token vectors from the (V, C) table, ×√C = {root:.3g}"),
    "tgt_pos": N_("position {position} of each target token"),
    "tgt_resid_pre": N_("embedding + position: the target enters decoder block 0"),
    "dec_ln.pre": N_("normalised stream fed to the {sublayer}"),
    "dec_ln.post": N_("the {sublayer} sublayer's residual sum, normalised"),
    "resid_self": N_("stream after adding masked self-attention"),
    "resid_cross": N_("stream after adding cross-attention"),
    "dec_resid_post": N_("stream after adding the FFN: the block's sum"),
    "dec_final_norm": N_("the decoder's last normalisation, fed to the head"),
    "dec_logits": N_("one score per vocabulary entry, for each next target token"),
    "cross.q": N_("queries from the target stream (the decoder), split into heads"),
    "cross.k": N_("keys from the encoder's output: one per source token"),
    "cross.v": N_("values from the encoder's output: one per source token"),
    "cross.scores": N_("Q·Kᵀ/√D of each target query against every source key; padding = -inf"),
    "cross.weights": N_("softmax over the source tokens: where each target token reads the source"),
    "cross.z": N_("weights · V: what each head read from the source"),
    "cross.result": N_("what each head adds to the stream; summed + bias = cross-attn out"),
    "cross.out": N_("output projection: what the source adds to the stream"),
    "rms_norm.scale": N_("√(mean(x²) + ε) of each vector: what it is divided by before the gain"),
    "glu.gate": N_("the gate: act(x·W_gate), one number per hidden unit"),
    "glu.up": N_("the value path: x·W_up, no activation"),
    "glu.hidden": N_("gate ⊙ up: what the down projection reads"),
    "qk_norm.q": N_("queries with each head's D features RMS-normalised, before the rotation"),
    "qk_norm.k": N_("keys normalised the same way (one gain shared by every key-value head)"),
}

# a shape letter (nn/hooks.py LETTERS) -> what it stands for
LETTER_WORDS: dict[str, str] = {
    "B": N_("batch"),
    "T": N_("sequence length"),
    "T_q": N_("queries"),
    "T_k": N_("keys"),
    "S": N_("source length"),
    "C": N_("d_model"),
    "H": N_("heads"),
    "H_kv": N_("key-value heads (n_kv_heads): each serves H / H_kv query heads"),
    "D": N_("d_head"),
    "D_n": N_("query/key features per head without position (qk_nope_head_dim)"),
    "D_r": N_("rotary features per head (qk_rope_head_dim)"),
    "D_v": N_("value features per head (v_head_dim)"),
    "R_q": N_("query latent width (q_lora_rank)"),
    "R_kv": N_("key-value latent width (kv_lora_rank): with D_r, what the cache holds per token"),
    "F": N_("d_ff"),
    "E": N_("routed experts (n_experts)"),
    "F_e": N_("one routed expert's hidden width (moe_d_ff), where it differs from d_ff"),
    "K": N_("experts chosen per token (top_k)"),
    "N_e": N_("tokens routed to one expert"),
    "V": N_("vocab_size"),
    "L": N_("max_len"),
    "d_in": N_("numbers per input step"),
    "d_out": N_("numbers per output step"),
}

# a position scheme's one line, for a scheme registered without its own words (nn/position.py)
POSITION_WORDS: dict[str, str] = {
    "learned": N_("a trained (max_len, C) table added to the stream (GPT-2)"),
    "sinusoidal": N_("fixed sin/cos waves added to the stream (Vaswani et al. 2017)"),
    "none": N_("no position information (NoPE): only a causal mask can tell order"),
    "rotary": N_(
        "queries and keys turned by angles that grow with position: scores see distance only (RoPE, Su et al. 2021)"
    ),
    "alibi": N_("no position vectors; each head subtracts slope·distance from its scores (ALiBi, Press et al. 2022)"),
    "rope": N_(
        "RoPE as Llama, Qwen3 and Mistral write it: q and k turned "
        "by position, features i and i + D/2 paired, with a base and "
        "a scaling (rope_base, rope_scaling)"
    ),
}


# a decoder sublayer, as a Term names it in a norm's words ("normalised stream fed to the {sublayer}")
SUBLAYER_WORDS: dict[str, str] = {
    "self_attention": N_("self-attention"),
    "cross_attention": N_("cross-attention"),
    "ffn": N_("FFN"),
}

# the tables a glossary id ("stage.layer_norm", as a Term or add_words names one) is found in, by kind
GLOSSARY = {"stage": STAGE_WORDS, "means": MEANS_WORDS, "sublayer": SUBLAYER_WORDS}

# words a module outside the package gave for its own ids, per language, by (kind, id) (add_words)
ADDED: dict[str, dict[tuple[str, str], str]] = {"en": {}, "zh": {}}


def add_words(en: dict[str, str], zh: dict[str, str]) -> None:
    """Words for ids the glossary does not hold (`{"stage.toy": "toy stage"}`), in both languages."""
    for lang, words in (("en", en), ("zh", zh)):
        ADDED[lang].update({tuple(key.split(".", 1)): text for key, text in words.items()})  # type: ignore[misc]


def _lang(lang: str) -> str:
    return "zh" if lang == "zh" else "en"


def word(kind: str, id: str, lang: str = "en", **fields) -> str:
    """The words of the glossary id `id` of `kind` (a key of GLOSSARY) in `lang`, with its fields
    worded; an id nobody gave words for shows as itself, never as nothing."""
    lang = _lang(lang)
    key = GLOSSARY.get(kind, {}).get(id)
    text = ADDED[lang].get((kind, id)) or (translated(key, lang) if key is not None else None)
    if text is None:
        return id
    if "position" in fields:
        fields = {"about": scheme_about(fields["position"], lang), **fields}
    return text.format(**{k: term(v, lang) if isinstance(v, Term) else v for k, v in fields.items()})


def term(value: Term, lang: str = "en") -> str:
    """A Term in `lang`: its key is a glossary id with its kind ("stage.layer_norm", "sublayer.ffn")."""
    return word(value.kind, value.id, lang, **value.fields)


def scheme_about(name: str, lang: str = "en") -> str:
    """A position scheme's one line: the words it was registered with, else the glossary's."""
    scheme = POSITION_SCHEMES.get(name)
    given = (scheme.zh if lang == "zh" else scheme.about) if scheme is not None else ""
    return given or (translated(POSITION_WORDS[name], _lang(lang)) if name in POSITION_WORDS else "")


def meaning(letter: str, lang: str = "en") -> str:
    """What a letter stands for, or "?" for a letter nobody has explained yet."""
    return translated(LETTER_WORDS[letter], _lang(lang)) if letter in LETTER_WORDS else "?"


def letter_order(letter: str) -> int:
    """Where a letter sits in the views' order (LETTERS); an unknown one comes last."""
    return LETTERS.index(letter) if letter in LETTERS else len(LETTERS)


def describe(point: HookPoint, lang: str = "en") -> dict[str, str]:
    """A hook point's declaration as plain data, worded in one language: name, stage, axes, means."""
    return {
        "name": point.name,
        "stage": word("stage", point.stage, lang, **point.fields),
        "axes": point.axes,
        "means": word("means", point.means, lang, **point.fields),
    }
