"""The words of the model code (glassformer/nn, glassformer/models): the typed errors its parts raise,
keyed by where they come from. The sentences are here; the raise sites carry a key and fields."""

TEXT = {
    "error.model.regressor_input": "SequenceRegressor expects floats of shape (B, T, {d_in}), got {shape} {dtype}; "
    "use x.unsqueeze(-1).float() for (B, T) numbers.",
    "error.model.encoder_cache": "Encoder does not support a KV cache (its keys may see the future).",
    "error.model.gpt_not_causal": "GPT is decoder-only and needs causal=True; use Encoder (kind='encoder', "
    "--kind=encoder) for bidirectional attention.",
}
