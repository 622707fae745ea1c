"""The words of writing with a model, as the library says them: sample.py's typed errors and its two notes
on what the model reads past max_len; translate.py's typed errors of greedy and beam search. (The `sample`
command's help and printed lines are with the rest of the command line's, in en.py.)"""

TEXT = {
    # ---- sampling (sample.py) ---------------------------------------------------------------------------
    "error.sample.no_cache": "{model} has no KV cache; sample with use_cache=False.",
    "error.sample.max_new_tokens": "max_new_tokens must be a whole number >= 0, got {value!r}",
    "error.sample.num_samples": "num_samples must be a whole number >= 1, got {value!r}",
    "error.sample.temperature": "temperature must be a finite number >= 0 (0 = greedy), got {value}",
    "error.sample.top_k": "top_k must be a whole number >= 1, got {value!r}",
    "error.sample.top_p": "top_p must be in (0, 1], got {value}",
    "error.sample.empty_prompt": "the prompt is empty: give the model at least one token to continue",
    "error.sample.stop_unseen": "the stop string {stop!r} can never appear in this model's text: {chars} cannot "
    "be written with its vocabulary, so sampling would never stop there. Use a stop string made of what the model "
    "writes.",
    "sample.window_slides": "position={name}: a table of max_len={max_len} positions; past it the model sees only the "
    "last {max_len} tokens (the window slides).",
    "sample.cache_grows": "position={name}: no position table; past max_len={max_len} the model keeps reading every "
    "token, at distances it never trained on (the KV cache grows).",
    # ---- greedy and beam search (translate.py) ------------------------------------------------------
    "error.translate.max_new_tokens": "max_new_tokens must be in {low} … {high} (the model's max_len), got {value}.",
    "error.translate.beam_width": "beam_width must be in {low} … {high} (the vocabulary minus <PAD> and <BOS>), "
    "got {value}.",
    "error.translate.length_penalty": "the length penalty α must be >= {low}, got {value}.",
}
