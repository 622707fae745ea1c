"""The typed errors of the text stage (text/), the views (inspect/) and the package faces: what a
library caller gets wrong — a tokenizer's tables, ids out of range, a layer or head the model does
not have — each a key with its fields. The rest of the text stage's
words (sources, the tokenizer choice, GPT-2 directories) are in en.py."""

TEXT = {
    # ---- tokenizers (text/tokenizers.py) ------------------------------------------------------------------------
    "error.tokenizer.id_range": "ids out of range for vocab_size={vocab_size}: {ids}.",
    "error.tokenizer.no_chars": "a character vocabulary needs at least one character.",
    "error.tokenizer.chars": "chars must be distinct single characters.",
    "error.tokenizer.words_str": "pass a list of words, or use WordTokenizer.from_text(text).",
    "error.tokenizer.word": "a word must be non-empty and contain no whitespace, got {word!r}.",
    "error.tokenizer.pad": "sequence has {n} ids, longer than length={length}; truncate it first.",
    "error.tokenizer.specials": "special tokens {found} differ from {want}.",
    "error.tokenizer.word_twice": "the word {word!r} is listed twice (or is a special token); a saved vocabulary "
    "lists each word once, so every later id would shift.",
    "error.tokenizer.field": "its field {field} holds {found} {shown}, not {want}.",
    "error.tokenizer.field_missing": "it lacks the field {field} ({want}).",
    "tokenizer.want.object": "an object",
    "tokenizer.want.id": "a whole-number id",
    "tokenizer.want.merge": 'a merge ("a b" or ["a", "b"])',
    "tokenizer.want.token": 'a token (a string, or an object with a "content" string)',
    "tokenizer.want.tokens": "a list (or an object) of tokens",
    "tokenizer.want.bool": "true or false",
    "tokenizer.want.str": "a string",
    "tokenizer.want.strs": "a list of strings",
    "tokenizer.want.strs.item": "a string",
    "tokenizer.want.id_pairs": "a list of [id, id] pairs",
    "tokenizer.want.id_pairs.item": "a pair of whole-number ids [left, right]",
    # ---- byte-level BPE (text/bpe.py) ---------------------------------------------------------------------------
    "error.bpe.vocab_small": "vocab_size={vocab_size} is below {n_bytes}: byte-level BPE starts from all {n_bytes} "
    "byte values; ask for {n_bytes} or more (e.g. {example}).",
    "error.bpe.merge_order": "merge {i} = ({a}, {b}) uses an id that does not exist yet (ids so far: 0..{last}); "
    "merges must be in learned order.",
    "error.bpe.same_bytes": "two merges make the same bytes; a BPE vocabulary needs one id per token.",
    "error.bpe.too_big": "the merges make tokens of {size:,} bytes in all, more than the {limit:,} a tokenizer may "
    "hold (no text merges that far): the merges are damaged.",
    "error.bpe.pattern": "this BPE tokenizer was saved with a different pre-tokenization pattern; re-prepare the "
    "data with this version of glassformer.",
    # ---- GPT-2's tables (text/gpt2_bpe.py) ----------------------------------------------------------------------
    "error.gpt2.pretokenizer": "pretokenizer {found!r} is not GPT-2's.",
    "error.gpt2.token_twice": "token {token!r} has two ids; every token needs exactly one.",
    "error.gpt2.bytes_missing": "the vocabulary lacks {n} of the {n_bytes} byte tokens (first: {first}), so some "
    "text could not be encoded; a byte-level vocabulary holds them all.",
    "error.gpt2.specials_absent": "special tokens {tokens} are not in the vocabulary.",
    "error.gpt2.special_text": "special token {token!r} is not text UTF-8 can hold (it has a lone surrogate).",
    "error.gpt2.not_byte_alphabet": "token {token!r} is not spelled in GPT-2's byte alphabet (nor a special token).",
    "error.gpt2.merge_twice": "merge {rank} {merge!r} is listed twice.",
    "error.gpt2.merge_bad": "merge {rank} {merge!r} is not a pair of tokens whose join is a token.",
    "gpt2.added_tokens": "note: {path} names {tokens} as special, and the vocabulary lacks them: transformers "
    "adds them after it with the next ids ({first}..{last}), and so does this import.",
    # ---- Chinese number words (text/chinese.py) ---------------------------------------------------------------
    "error.zh_number.range": "to_chinese takes a whole number 0 ≤ n < {limit:,}, got {n!r}.",
    "error.zh_number.char": "{text!r} is not Chinese number words: {ch!r} is neither a digit ({digits}) nor a unit "
    "({units}).",
    "error.zh_number.form": "{text!r} is not a number written the standard way.",
    "error.zh_number.form_as": "{text!r} is not a number written the standard way (that would be {standard!r}).",
    # ---- the views (inspect/) -----------------------------------------------------------------------------------
    "error.inspect.maps_shape": "this model's attention maps differ in shape ({shapes}): they cannot be stacked; "
    "use attention_map_list(model, x).",
    "error.inspect.view_shape": "this model's attention maps differ in shape (an encoder-decoder): read "
    "view.maps[i].weights, each (H, T_q, T_k).",
    "error.inspect.labels_side": "labels has no {side!r} entry for the axis {axis!r}: give "
    "{{'S': source labels, 'T': target labels}}.",
    "error.inspect.labels_count": "{n} labels for {tokens} tokens: give one label per token (or labels=None for "
    "positions).",
    "error.inspect.head_range": "layer={layer}, head={head} is outside this model: layers 0..{last_layer}, heads "
    "0..{last_head}.",
    "error.inspect.labels_batch": "token_labels takes one sequence, (T,) or (1, T); got a batch of {n}: pass ids[i] "
    "for the sequence you want labelled.",
    # ---- a package's face (inspect/__init__.py) --------------------------------------------------------------
    "error.module.no_attribute": "module {module!r} has no attribute {name!r}",
}
