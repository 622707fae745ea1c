"""The words of the model code (glassformer/nn, glassformer/models): the typed errors its parts raise,
keyed by where they come from. The sentences are here; the raise sites carry a key and fields."""

TEXT = {
    "error.mask.dtype": "attention mask must be boolean (True = may attend), got dtype {dtype}. Convert a 0/1 "
    "mask with mask.bool(); an additive float mask with (mask == 0).",
    "error.mask.shape": "attention mask of shape {mask} cannot broadcast to the scores' shape {scores} (B, H, "
    "T_q, T_k). Give it one of the shapes (T_q, T_k), (B, T_q, T_k), (B, 1, T_q, T_k), (B, H, T_q, T_k) or (B, 1, 1, "
    "T_k), with T_q and T_k equal to the query and key lengths.",
    "error.mask.padding_ids": "padding_mask expects token ids of shape (B, T), got {shape}.",
    "error.mask.combine": "cannot combine masks of shapes {a} and {b}: they do not broadcast. Give each mask the "
    "layout (B or 1, H or 1, T_q or 1, T_k).",
    "error.init.scheme": "init={scheme!r} is not one of {names}.",
    "error.formula.syntax": "parameter formula {formula!r} is not algebra glassformer can read.",
    "error.formula.letter": "parameter formula {formula!r} uses {letter!r}, but its module gives only {letters}.",
    "error.formula.operator": "parameter formula {formula!r} may only use whole numbers, letters, +, -, · and "
    "parentheses.",
    "error.ffn.activation": "activation={activation!r} is not one of {names}.",
    "error.hook.shape": "hook on {name!r} returned shape {got}, expected {want}: a hook may change values, not shapes.",
    "hook.did_you_mean": " (did you mean {near!r}?)",
    "error.hook.unknown": "unknown hook point(s) {hints}; model.hook_names() lists them all.",
    "error.rotary.odd_head": "position='rotary' turns pairs of features, so d_head must be even; got "
    "d_head={d_head}. Choose d_model and n_heads so that d_model // n_heads is even.",
    "error.ids.type": "token ids must be a torch.Tensor of integers, got {type}; wrap them with "
    "torch.tensor(ids, dtype=torch.long).",
    "error.ids.dtype": "token ids must be integers (torch.long), got dtype {dtype}; convert with ids.long() — "
    "or, for numbers, use SequenceRegressor.",
    "error.ids.shape": "token ids must have shape (B, T), got {shape}; add a batch axis with ids.unsqueeze(0).",
    "model.ids_outside_on_device": "token ids outside the vocabulary [0, {vocab_size}): encode with the model's "
    "tokenizer",
    "error.ids.outside": "token ids {bad} are outside the vocabulary [0, {vocab_size}): encode with the model's "
    "own tokenizer, or build the model with a larger vocab_size.",
    "error.loss.shapes": "logits {logits} and targets {targets} disagree: targets must be (B, T) for logits (B, T, V).",
    "error.loss.smoothing": "label smoothing must be in [0, 1), got {smoothing}.",
    "error.loss.mse_shapes": "predictions {pred} and targets {target} disagree: a regressor's targets have the "
    "shape of its output (B, T, d_out).",
    "error.kv_cache.full": "KV cache is full: {cached} cached + {new} new > max_len {max_len}. Reset it and "
    "prefill the last max_len tokens.",
    "error.seq2seq.pad_id": "seq2seq needs pad_id: sentences of different lengths are padded, and both sides "
    "mask the padding. Set pad_id to the tokenizer's <PAD> id (--pad_id=0).",
    "error.seq2seq.cache_not_causal": "this decoder has no causal mask (causal=False): each new token changes "
    "the earlier positions too, so their cached keys would be stale. Decode with use_cache=False.",
    "error.seq2seq.inputs": "seq2seq reads (src (B, S), tgt_in (B, T)) id tensors with the same B; got {src} and "
    "{tgt}. Call model(src, tgt_in).",
    "error.model.regressor_input": "SequenceRegressor expects floats of shape (B, T, {d_in}), got {shape} "
    "{dtype}; use x.unsqueeze(-1).float() for (B, T) numbers.",
    "error.model.encoder_cache": "Encoder does not support a KV cache (its keys may see the future).",
    "error.model.gpt_not_causal": "GPT is decoder-only and needs causal=True; use Encoder (kind='encoder', "
    "--kind=encoder) for bidirectional attention.",
    "error.model.too_big": "this model needs about {need:.3g} GiB of memory ({params:,} parameters, "
    "{buffers:.3g} GiB of tables such as position encodings), more than this machine's {memory:.3g} GiB. "
    "Make it smaller (--d_model, --n_layers, --d_ff, --max_len, --vocab_size).",
    "error.model.too_big_train": "training this model needs about {need:.3g} GiB of memory ({params:,} parameters, "
    "their gradients and AdamW moments, one step's activations, {buffers:.3g} GiB of tables), more than this "
    "machine's {memory:.3g} GiB. Make it smaller (--d_model, --n_layers, --d_ff, --max_len, --vocab_size) or the "
    "batch (--batch_size, --seq_len).",
}
