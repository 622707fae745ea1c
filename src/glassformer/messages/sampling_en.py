"""The words of writing with a model that came with its own area: the typed errors of translate.py's
greedy and beam search. (sample.py's errors and lines are in en.py.)"""

TEXT = {
    # ---- greedy and beam search (translate.py) ------------------------------------------------------
    "error.translate.max_new_tokens": "max_new_tokens must be in {low} … {high} (the model's max_len), got {value}.",
    "error.translate.beam_width": "beam_width must be in {low} … {high} (the vocabulary minus <PAD> and <BOS>), "
    "got {value}.",
    "error.translate.length_penalty": "the length penalty α must be >= {low}, got {value}.",
}
