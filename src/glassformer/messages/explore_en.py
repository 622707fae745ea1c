"""The explorer's words in English (glassformer explore; src/glassformer/explore): what the page
shows (explore.page.*, served to it as JSON by GET /api/words?lang=..., the page's {fields}
filled in by its own JavaScript the same way), every refusal of a request (error.explore.*,
a RequestError's key) and the server's log line for a bug (explore.failed). explore_zh.py holds
the same keys with the same {fields}.
"""

TEXT = {
    # -------- the page
    "explore.page.app.explore": "explore",
    "explore.page.model.line": "{source} · {layers} layers × {heads} heads · d_model {d_model} · {params} parameters",
    "explore.page.input.title": "Your text",
    "explore.page.input.help": (
        "Type anything: every panel follows as you type. Each box is one token — its text, and below it its id in the "
        "vocabulary. Hover a token to see where the chosen head makes it look; click it for its Q, K, V vectors."
    ),
    "explore.page.input.help_numbers": (
        "Type numbers separated by spaces, one per step. Each box is one step the model reads."
    ),
    "explore.page.note.cropped": "The model has {kept} positions: it sees the last {kept} of your {total} tokens.",
    "explore.page.err.network": "The explorer did not answer ({msg}). Is `glassformer explore` still running?",
    "explore.page.next.title": "Next token",
    "explore.page.next.help": (
        "The 20 tokens with the highest scores after the last token. Bar: probability after temperature, top-k and "
        "top-p — what sampling draws from. Thin mark: the model's own probability (temperature 1, nothing cut). "
        "Hatched: cut by top-k or top-p."
    ),
    "explore.page.next.temperature": "temperature",
    "explore.page.next.top_k": "top-k (0 = off)",
    "explore.page.next.top_p": "top-p",
    "explore.page.next.kept": "{kept} of {vocab} tokens can be drawn.",
    "explore.page.next.base": "Grey mark: the intact model, before any head was zeroed.",
    "explore.page.next.cut": "cut",
    "explore.page.next.tip": "id {id}: p {p} · model {m}",
    "explore.page.next.tip_base": " · intact {b}",
    "explore.page.gen.step": "+1 token",
    "explore.page.gen.run": "Run",
    "explore.page.gen.stop": "Stop",
    "explore.page.gen.seed": "seed",
    "explore.page.gen.status": "Generated {n} token(s). KV cache: {cached} positions{how}.",
    "explore.page.gen.resumed": ", kept from the step before (only the new token was computed)",
    "explore.page.gen.fresh": ", filled from the whole text",
    "explore.page.gen.no_cache": (
        "This model has no KV cache (its tokens see the future), so each step recomputes everything."
    ),
    "explore.page.pred.title": "Prediction",
    "explore.page.pred.help": (
        "Blue: the numbers you typed. Orange: what the model outputs at each step. Dashed: the intact model, when "
        "heads are zeroed."
    ),
    "explore.page.attn.title": "Attention",
    "explore.page.attn.stage": "stage",
    "explore.page.attn.layer": "layer",
    "explore.page.attn.head": "head",
    "explore.page.attn.grid_help": (
        'Every layer (rows) × head (columns) at this stage. Click a map to open it below. "zero" ablates a head — '
        "its output z is multiplied by 0 — and every panel shows the model without it."
    ),
    "explore.page.attn.zero": "zero",
    "explore.page.attn.ablated": "Zeroed: {list}.",
    "explore.page.attn.none": "No head is zeroed.",
    "explore.page.attn.clear": "restore all",
    "explore.page.attn.matrix_help": (
        "Rows: the token that looks (query). Columns: the token looked at (key). Grey hatching: masked, it may not "
        "look there. Hover a cell."
    ),
    "explore.page.attn.cell": "query {q} “{qt}” → key {k} “{kt}”: {v}",
    "explore.page.attn.masked": "masked",
    "explore.page.attn.scale.absolute": "colour: 0 (dark) to 1 (bright)",
    "explore.page.attn.scale.per_head": "colour: each head from its own lowest (dark) to highest (bright) value",
    "explore.page.attn.layer_n": "layer {n}",
    "explore.page.attn.head_n": "head {n}",
    "explore.page.vec.title": "Q, K, V of one token",
    "explore.page.vec.help": (
        "Click a token. Each square is one number of the chosen head's vector for that token (blue < 0 < red); hover "
        "for the value."
    ),
    "explore.page.vec.of": "token {i} “{t}”, layer {l}, head {h}",
    "explore.page.stream.title": "Residual stream and logit lens",
    "explore.page.stream.help": (
        "The length ‖x‖ of each token's vector in the residual stream, at every point the model declares as the "
        "stream: entering block 0, then after each attention and each feed-forward. Orange: the chosen token. Grey: "
        "the mean over tokens."
    ),
    "explore.page.stream.point": "stream point",
    "explore.page.stream.norm": "‖x‖",
    "explore.page.lens.title": "Logit lens",
    "explore.page.lens.help": (
        "What the model would predict if it stopped at each point: its final norm and head applied to the stream "
        "there. Each cell is the most likely next token at that position; darker = more sure. Hover for the top 3."
    ),
    "explore.page.lens.help_numbers": (
        "What the model would output if it stopped at each point: its final norm and output layer applied to the "
        "stream there."
    ),
    "explore.page.trace.title": "Shape trace",
    "explore.page.trace.help": (
        "Every named tensor of one forward pass on this input, in the order it was made, with the meaning of each axis."
    ),
    # -------- refused requests
    "error.explore.body.constant": "the body contains {constant}, which is not JSON: send finite numbers.",
    "error.explore.body.not_utf8": "the body is not UTF-8 text.",
    "error.explore.body.not_json": "the body is not valid JSON ({reason} at character {pos}).",
    "error.explore.body.not_object": "the body must be a JSON object ({{...}}), not a {kind}.",
    "error.explore.body.content_type": "send the request as JSON with Content-Type: application/json (got {got}).",
    "error.explore.body.too_large": "the request body is {size} bytes; at most {most} are accepted.",
    "error.explore.body.over": "the request body is over {most} bytes, the most accepted.",
    "error.explore.field.unknown": "unknown field(s) {unknown}; this endpoint reads {known}.",
    "error.explore.field.int": "'{field}' must be a whole number, got {got}.",
    "error.explore.field.float": "'{field}' must be a number, got {got}.",
    "error.explore.field.str": "'{field}' must be a string, got {got}.",
    "error.explore.field.bool": "'{field}' must be true or false, got {got}.",
    "error.explore.field.ints": "'{field}' must be a list of whole numbers, got {got}.",
    "error.explore.field.pairs": "'{field}' must be a list of [layer, head] pairs, got {got}.",
    "error.explore.field.choice": "'{field}' must be one of {choices}, got {got}.",
    "error.explore.field.at_least": "'{field}' must be at least {lo}, got {got}.",
    "error.explore.field.between": "'{field}' must be between {lo} and {hi}, got {got}.",
    "error.explore.field.too_long.str": "'{field}' is too long: {length} characters, at most {most}.",
    "error.explore.field.too_long.list": "'{field}' is too long: {length} entries, at most {most}.",
    "error.explore.range.layers": (
        "{field}={value} is out of range: this model has {size} attention layers (0 to {last})."
    ),
    "error.explore.range.heads": "{field}={value} is out of range: this model has {size} heads (0 to {last}).",
    "error.explore.range.tokens": "{field}={value} is out of range: this input has {size} tokens (0 to {last}).",
    "error.explore.no_endpoint": "no endpoint '{endpoint}'; there are {endpoints}.",
    "error.explore.wrong_host": "this explorer answers requests addressed to {hosts} only, not to '{host}'.",
    "error.explore.internal": "internal error in {endpoint}: {error}",
    "explore.failed": "explore {endpoint} failed:\n{traceback}",  # the server's log, beside that 500 answer
    "error.explore.http": (
        "{method} {path}: {detail}. The API is GET /api/model, GET /api/words and POST /api/{endpoints}."
    ),
    "error.explore.empty": "the input is empty: type some text (or numbers, for a regressor).",
    "error.explore.no_z_hook": "attention layer {layer} declares no heads' output hook: it cannot be ablated.",
    "error.explore.no_stages": "this model declares no attention matrices (no hook on B H T_q T_k).",
    "error.explore.stage": "stage '{stage}' is not an attention stage of this model; it has {stages}.",
    "error.explore.generate_empty": "generate needs 'ids': the token ids so far (from analyze), at least one.",
    "error.explore.numbers_only.next": (
        "this model ({kind}) reads numbers and predicts numbers: there are no next-token probabilities. Its "
        "predictions come with /api/analyze."
    ),
    "error.explore.numbers_only.generate": (
        "this model ({kind}) reads numbers and predicts numbers: there is no generation. Its predictions come with "
        "/api/analyze."
    ),
    "error.explore.no_text.next": "a {kind} model does not write text: it has no next-token probabilities.",
    "error.explore.no_text.generate": "a {kind} model does not write text: it cannot generate.",
    "error.explore.text_or_ids": "send exactly one of 'text' (what was typed) and 'ids' (token ids).",
    "error.explore.ids_outside": "token ids {ids} are outside the vocabulary (0 to {last}).",
    "error.explore.no_tokenizer": "this model has no tokenizer: send 'ids' instead of 'text'.",
    "error.explore.unknown_chars": (
        "{n} character(s) are not in this model's vocabulary of {vocab} (learned from its training text): {shown}. "
        "Type text made of characters it knows."
    ),
    "error.explore.numbers.send_text": "this model reads numbers: send 'text' with numbers like \"{example}\".",
    "error.explore.numbers.not_numbers": (
        'this model reads numbers: {text} is not a list of numbers (write them like "{example}").'
    ),
    "error.explore.numbers.finite": "numbers must be finite (no nan or inf).",
    "error.explore.numbers.per_step": "this model reads {d_in} numbers per step: give a multiple of {d_in}.",
    "error.explore.no_readout": (
        "{model} has no Linear layer from d_model={d_model} to its {n_out} outputs among its top-level modules: the "
        "logit lens needs one."
    ),
}
