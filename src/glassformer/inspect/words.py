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
    "embedding": N_("stage.embedding"),
    "position": N_("stage.position"),
    "mla": N_("stage.mla"),
    "qkv": N_("stage.qkv"),
    "qk_norm": N_("stage.qk_norm"),
    "rotary": N_("stage.rotary"),
    "alibi": N_("stage.alibi"),
    "scores": N_("stage.scores"),
    "weights": N_("stage.weights"),
    "z": N_("stage.z"),
    "merged": N_("stage.merged"),
    "result": N_("stage.result"),
    "attn_out": N_("stage.attn_out"),
    "cross_out": N_("stage.cross_out"),
    "residual": N_("stage.residual"),
    "layer_norm": N_("stage.layer_norm"),
    "rms_norm": N_("stage.rms_norm"),
    "final_norm": N_("stage.final_norm"),
    "identity": N_("stage.identity"),
    "router": N_("stage.router"),
    "ffn_hidden": N_("stage.ffn_hidden"),
    "moe": N_("stage.moe"),
    "ffn_out": N_("stage.ffn_out"),
    "memory": N_("stage.memory"),
    "logits": N_("stage.logits"),
    "prediction": N_("stage.prediction"),
}

# what a hook point's tensor is, by its means id (HookPoint's third argument)
MEANS_WORDS: dict[str, str] = {
    "router.logits": N_("means.router.logits"),
    "router.softmax": N_("means.router.softmax"),
    "router.sigmoid": N_("means.router.sigmoid"),
    "router.experts": N_("means.router.experts"),
    "router.weights": N_("means.router.weights"),
    "moe.expert": N_("means.moe.expert"),
    "moe.routed": N_("means.moe.routed"),
    "moe.out": N_("means.moe.out"),
    "mla.q_latent": N_("means.mla.q_latent"),
    "mla.kv_latent": N_("means.mla.kv_latent"),
    "mla.q": N_("means.mla.q"),
    "mla.k": N_("means.mla.k"),
    "mla.v": N_("means.mla.v"),
    "mla.scores": N_("means.mla.scores"),
    "embedding": N_("means.embedding"),
    "embedding.numbers": N_("means.embedding.numbers"),
    "position": N_("means.position"),
    "resid_pre": N_("means.resid_pre"),
    "resid_pre.no_stream": N_("means.resid_pre.no_stream"),
    "attn.q": N_("means.attn.q"),
    "attn.k": N_("means.attn.k"),
    "attn.v": N_("means.attn.v"),
    "attn.scores": N_("means.attn.scores"),
    "attn.weights": N_("means.attn.weights"),
    "attn.z": N_("means.attn.z"),
    "merged": N_("means.merged"),
    "attn.result": N_("means.attn.result"),
    "attn.out": N_("means.attn.out"),
    "rotary.q": N_("means.rotary.q"),
    "rotary.k": N_("means.rotary.k"),
    "alibi": N_("means.alibi"),
    "ffn_hidden": N_("means.ffn_hidden"),
    "ffn_out": N_("means.ffn_out"),
    "ln1.pre": N_("means.ln1.pre"),
    "ln1.post": N_("means.ln1.post"),
    "ln2.pre": N_("means.ln2.pre"),
    "ln2.post": N_("means.ln2.post"),
    "resid_mid": N_("means.resid_mid"),
    "resid_post": N_("means.resid_post"),
    "identity": N_("means.identity"),
    "final_norm": N_("means.final_norm"),
    "logits": N_("means.logits"),
    "prediction": N_("means.prediction"),
    "src_embed": N_("means.src_embed"),
    "src_pos": N_("means.src_pos"),
    "src_resid_pre": N_("means.src_resid_pre"),
    "memory": N_("means.memory"),
    "memory.normalised": N_("means.memory.normalised"),
    "tgt_embed": N_("means.tgt_embed"),
    "tgt_pos": N_("means.tgt_pos"),
    "tgt_resid_pre": N_("means.tgt_resid_pre"),
    "dec_ln.pre": N_("means.dec_ln.pre"),
    "dec_ln.post": N_("means.dec_ln.post"),
    "resid_self": N_("means.resid_self"),
    "resid_cross": N_("means.resid_cross"),
    "dec_resid_post": N_("means.dec_resid_post"),
    "dec_final_norm": N_("means.dec_final_norm"),
    "dec_logits": N_("means.dec_logits"),
    "cross.q": N_("means.cross.q"),
    "cross.k": N_("means.cross.k"),
    "cross.v": N_("means.cross.v"),
    "cross.scores": N_("means.cross.scores"),
    "cross.weights": N_("means.cross.weights"),
    "cross.z": N_("means.cross.z"),
    "cross.result": N_("means.cross.result"),
    "cross.out": N_("means.cross.out"),
    "rms_norm.scale": N_("means.rms_norm.scale"),
    "glu.gate": N_("means.glu.gate"),
    "glu.up": N_("means.glu.up"),
    "glu.hidden": N_("means.glu.hidden"),
    "qk_norm.q": N_("means.qk_norm.q"),
    "qk_norm.k": N_("means.qk_norm.k"),
}

# a shape letter (nn/hooks.py LETTERS) -> what it stands for
LETTER_WORDS: dict[str, str] = {
    "B": N_("letter.B"),
    "T": N_("letter.T"),
    "T_q": N_("letter.T_q"),
    "T_k": N_("letter.T_k"),
    "S": N_("letter.S"),
    "C": N_("letter.C"),
    "H": N_("letter.H"),
    "H_kv": N_("letter.H_kv"),
    "D": N_("letter.D"),
    "D_n": N_("letter.D_n"),
    "D_r": N_("letter.D_r"),
    "D_v": N_("letter.D_v"),
    "R_q": N_("letter.R_q"),
    "R_kv": N_("letter.R_kv"),
    "F": N_("letter.F"),
    "E": N_("letter.E"),
    "K": N_("letter.K"),
    "N_e": N_("letter.N_e"),
    "V": N_("letter.V"),
    "L": N_("letter.L"),
    "d_in": N_("letter.d_in"),
    "d_out": N_("letter.d_out"),
}

# a position scheme's one line, for a scheme registered without its own words (nn/position.py)
POSITION_WORDS: dict[str, str] = {
    "learned": N_("position.learned"),
    "sinusoidal": N_("position.sinusoidal"),
    "none": N_("position.none"),
    "rotary": N_("position.rotary"),
    "alibi": N_("position.alibi"),
    "rope": N_("position.rope"),
}


# a decoder sublayer, as a Term names it in a norm's words ("normalised stream fed to the {sublayer}")
SUBLAYER_WORDS: dict[str, str] = {
    "self_attention": N_("sublayer.self_attention"),
    "cross_attention": N_("sublayer.cross_attention"),
    "ffn": N_("sublayer.ffn"),
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
