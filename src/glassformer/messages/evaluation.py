"""The words of the evaluation card (`glassformer eval`: eval_card.py, cli/evaluate.py) and of its
measures (evaluation.py): the help, the table, the picture's labels and every refusal. EN in English,
ZH in Chinese: the same keys, the same {fields}.

ZH 是 EN 的中文：同样的键，同样的 {fields}。评估卡（`glassformer eval`）与它的各项度量的话：帮助、表格、
图上的文字和每一条拒绝。"""

EN = {
    # ---- help (cli/evaluate.py) -------------------------------------------------------------------------
    "help.eval": "an evaluation card of a run: bits per byte, loss by position, calibration, repetition",
    "help.eval.about": "Grade a trained run beyond its loss: bits per byte on held-out text (comparable across "
    "tokenizers), the loss at each position of the context, the calibration of its next-token probabilities, "
    "the repetition of its samples, and multiple-choice questions scored by the logits. With --against, two runs "
    "side by side and the first step their logs part. Prints a table and writes card.json and card.png.",
    "help.eval.run": "the run directory to grade, e.g. {example}",
    "help.eval.against": "a second run to compare with: scored on the same text, prompt and seeds, and the first "
    "step where the loss, learning rate, gradient norm or throughput in the two metrics.jsonl part",
    "help.eval.text": "a UTF-8 text file to score instead of the run's validation split",
    "help.eval.questions": 'a JSONL file of questions, one a line: {{"context": "...", "choices": ["...", "..."], '
    '"answer": 0}}',
    "help.eval.out": "the folder for card.json and card.png (default: the run directory)",
    "help.eval.samples": "how many samples to measure repetition on (default {default})",
    "help.eval.max_new_tokens": "tokens per sample (default {default})",
    "help.eval.prompt": "the samples' prompt (default: a newline, or the run's first word); \\n is a newline",
    "help.eval.temperature": "the samples' temperature (default {default}, as in sample)",
    "help.eval.seed": "the samples' seed (default {default}): the same card every time",
    "help.eval.max_chars": "held-out characters scored for bits per byte (default {default})",
    "help.eval.bins": "equal-width bins of the top-1 probability for the calibration error (default {default})",
    "help.eval.rtol": "one relative tolerance for where two runs part, for every quantity (default: each its own)",
    "help.eval.best": "grade best.safetensors instead of the latest weights",
    "help.eval.cache_dir": "where the prepared corpora are (the --cache-dir the run was trained with)",
    # ---- the table ------------------------------------------------------------------------------------
    "card.title": "evaluation card: {runs}",
    "card.text": "held-out text: {origin}; {chars} of its {total} characters scored for bits per byte (its first "
    "word is context)",
    "card.bpb": "bits per byte",
    "card.bpb.bytes": "  bytes scored",
    "card.bpb.tokens": "  tokens scored",
    "card.bpb.exact": "  tokenizer writes the text back",
    "card.bpb.unknown": "  unknown tokens",
    "card.yes": "yes",
    "card.no": "no",
    "card.not_exact": "{run}: its tokenizer does not write the scored text back (a word tokenizer drops line breaks "
    "and reads an unseen word as <UNK>), so its bits per byte is not comparable with the others'.",
    "card.loss_mean": "loss, mean over positions",
    "card.ece": "calibration error (ECE, {bins} bins)",
    "card.accuracy": "top-1 accuracy",
    "card.confidence": "mean top-1 probability",
    "card.distinct": "distinct-{n} of the samples",
    "card.seq_rep": "seq-rep-{n}, mean",
    "card.rep": "rep/{l}, mean",
    "card.loops": "samples ending in a loop",
    "card.of": "{k} of {n}",
    "card.acc": "multiple choice: acc",
    "card.acc_norm": "multiple choice: acc_norm",
    "card.samples": "samples: {n} of {tokens} tokens, temperature {temperature}, seed {seed}",
    "card.loop": "  {run}, sample {sample}: a loop of period {period} from token {start}: {text!r}",
    "card.position_head": "loss at each position of the context (all of them in card.json and card.png):",
    "card.position": "position",
    "card.reliability_head": "reliability: tokens in each bin of the top-1 probability, their mean "
    "probability / accuracy:",
    "card.bin": "top-1 probability",
    "card.bin_count": "{n} tok",
    "card.settings_head": "settings that differ:",
    "card.setting": "  {key}: {a!r} vs {b!r}",
    "card.same": "  none",
    "card.parts_head": "where the two logs part (metrics.jsonl, steps both recorded):",
    "card.quantity": "quantity",
    "card.first_step": "first step",
    "card.common": "steps",
    "card.never": "never",
    "card.first": "they part first at step {step}, in {quantity}",
    "card.no_parting": "they do not part within the tolerances",
    "card.replaced": "replaced {files} (the earlier card)",
    # ---- the picture ----------------------------------------------------------------------------------
    "card.picture.position": "loss by position in the context",
    "card.picture.position_x": "position",
    "card.picture.nll_y": "mean loss (nats)",
    "card.picture.reliability": "reliability of the top-1 probability",
    "card.picture.conf_x": "top-1 probability",
    "card.picture.acc_y": "accuracy",
    "card.picture.ideal": "calibrated",
    "card.picture.curves": "training loss",
    "card.picture.step_x": "step",
    "card.picture.loss_y": "loss",
    "card.picture.parts": "first parting",
    # ---- refusals --------------------------------------------------------------------------------------
    "error.eval.cannot_sample": "{run} is a {kind} model, which does not write text: the card reads a model that "
    "predicts the next token (a gpt run, e.g. `glassformer train --preset baby`).",
    "error.eval.no_split": "{run} has no training data of its own (an imported model): give a held-out text with "
    "--text FILE.",
    "error.eval.source_gone": "{run}'s config.json names the data source {source!r}, which cannot be read: "
    "{problem}. Give a held-out text with --text FILE.",
    "error.eval.data_changed": "the data of {source!r} changed since {run} was trained ({key} differs), so its "
    "validation split is not the one it was evaluated on: give a held-out text with --text FILE.",
    "fix.eval_text": "Give a UTF-8 text file of held-out text.",
    "error.eval.text_short": "the held-out text ({chars} characters) has nothing to score after its first word "
    "{context!r}, which is context: give a longer text.",
    "error.eval.windows_short": "{origin} has {n} tokens, fewer than one window of seq_len={seq_len} + 1 = "
    "{need}: give a longer text with --text FILE.",
    "error.eval.prompt_too_long": "the prompt has {n} tokens; the model reads at most {max_len} and must have room "
    "to write: shorten --prompt to {most} tokens or fewer.",
    "error.eval.stride": "the scoring stride must be in 1 … max_len={max_len}, got {stride}.",
    "error.eval.no_windows": "no held-out window to measure: the text gave none.",
    "error.eval.bins": "bins must be a whole number >= 1, got {value!r}.",
    "error.eval.calibration_sizes": "calibration reads one top-1 probability and one hit per token: got "
    "{confidence} probabilities and {correct} hits (and needs at least one).",
    "error.eval.rtol": "a relative tolerance must be a finite number >= 0, got {value!r}.",
    "fix.questions": 'Write one question a line: {{"context": "...", "choices": ["...", "..."], "answer": 0}}.',
    "error.eval.no_questions": '{path} holds no question: write one a line, {{"context": "...", "choices": '
    '["...", "..."], "answer": 0}}.',
    "error.eval.question_json": '{path}, line {line}: not JSON. Each line is one question: {{"context": "...", '
    '"choices": ["...", "..."], "answer": 0}}.',
    "error.eval.question_shape": '{path}, line {line}: a question needs "context" (text), "choices" (at least two '
    'non-empty texts) and "answer" (a whole number): {{"context": "...", "choices": ["...", "..."], "answer": 0}}.',
    "error.eval.answer_range": '{path}, line {line}: "answer" is {answer}, but there are {n} choices: give the '
    "index of the right one, counting from 0.",
    "error.eval.empty_context": '{path}, line {line}: "context" gives the model no token to start from: write the '
    "question's text there.",
    "error.eval.empty_choice": "{path}, line {line}: the choice {choice!r} adds no token after the context: write a "
    "choice the tokenizer reads there (for a word tokenizer, begin it with a space).",
    "error.eval.choice_too_long": "{path}, line {line}: a choice of {n} tokens does not fit the model's "
    "max_len={max_len}: shorten it.",
    "error.eval.out_is_file": "--out {out} is a file: give a folder for card.json and card.png.",
    "error.eval.not_a_card": "{path} is not an earlier evaluation card, and the card would replace it: move it, or "
    "give another folder with --out (now {out}).",
}

ZH = {
    # ---- 帮助（cli/evaluate.py） -------------------------------------------------------------------------
    "help.eval": "一次运行的评估卡：每字节比特数、按位置的损失、校准、重复",
    "help.eval.about": "在损失之外给训练好的运行打分：留出文本上的每字节比特数（不同分词器之间可比）、上下文中每个位置"
    "的损失、下一个词元概率的校准、样本的重复程度，以及按 logits 打分的选择题。加 --against 时，两次运行并排，"
    "并给出它们的日志第一次分开的步数。打印一张表，并写出 card.json 和 card.png。",
    "help.eval.run": "要评估的运行目录，例如 {example}",
    "help.eval.against": "用来比较的第二次运行：在同样的文本、提示词和种子上打分，并找出两个 metrics.jsonl 里损失、"
    "学习率、梯度范数或吞吐量第一次分开的步数",
    "help.eval.text": "用这个 UTF-8 文本文件打分，代替运行自己的验证集",
    "help.eval.questions": '选择题的 JSONL 文件，一行一题：{{"context": "...", "choices": ["...", "..."], '
    '"answer": 0}}',
    "help.eval.out": "card.json 和 card.png 写入的文件夹（默认：运行目录）",
    "help.eval.samples": "测量重复所用的样本数（默认 {default}）",
    "help.eval.max_new_tokens": "每个样本的词元数（默认 {default}）",
    "help.eval.prompt": "样本的提示词（默认：一个换行，或运行的第一个词）；\\n 表示换行",
    "help.eval.temperature": "样本的温度（默认 {default}，与 sample 相同）",
    "help.eval.seed": "样本的种子（默认 {default}）：每次得到同一张卡",
    "help.eval.max_chars": "计算每字节比特数时打分的留出文本字符数（默认 {default}）",
    "help.eval.bins": "计算校准误差时 top-1 概率的等宽分箱数（默认 {default}）",
    "help.eval.rtol": "判断两次运行分开的相对容差，所有量共用一个（默认：各量各自的）",
    "help.eval.best": "评估 best.safetensors，而不是最新的权重",
    "help.eval.cache_dir": "预处理语料所在的位置（训练该运行时用的 --cache-dir）",
    # ---- 表格 --------------------------------------------------------------------------------------------
    "card.title": "评估卡：{runs}",
    "card.text": "留出文本：{origin}；其 {total} 个字符中的 {chars} 个用于计算每字节比特数（第一个词作为上下文）",
    "card.bpb": "每字节比特数",
    "card.bpb.bytes": "  打分的字节数",
    "card.bpb.tokens": "  打分的词元数",
    "card.bpb.exact": "  分词器能原样写回文本",
    "card.bpb.unknown": "  未知词元数",
    "card.yes": "是",
    "card.no": "否",
    "card.not_exact": "{run}：它的分词器不能原样写回打分的文本（词级分词器会丢掉换行，把没见过的词读成 <UNK>），"
    "所以它的每字节比特数与其他运行不可比。",
    "card.loss_mean": "损失（各位置的平均）",
    "card.ece": "校准误差（ECE，{bins} 个分箱）",
    "card.accuracy": "top-1 准确率",
    "card.confidence": "平均 top-1 概率",
    "card.distinct": "样本的 distinct-{n}",
    "card.seq_rep": "seq-rep-{n}（平均）",
    "card.rep": "rep/{l}（平均）",
    "card.loops": "以循环结尾的样本",
    "card.of": "{n} 个中 {k} 个",
    "card.acc": "选择题：acc",
    "card.acc_norm": "选择题：acc_norm",
    "card.samples": "样本：{n} 个，每个 {tokens} 个词元，温度 {temperature}，种子 {seed}",
    "card.loop": "  {run}，样本 {sample}：从第 {start} 个词元起、周期为 {period} 的循环：{text!r}",
    "card.position_head": "上下文中每个位置的损失（全部位置见 card.json 和 card.png）：",
    "card.position": "位置",
    "card.reliability_head": "可靠性：top-1 概率每个分箱中的词元数，及其平均概率 / 准确率：",
    "card.bin": "top-1 概率",
    "card.bin_count": "{n} 个",
    "card.settings_head": "不同的设置：",
    "card.setting": "  {key}：{a!r} 对 {b!r}",
    "card.same": "  无",
    "card.parts_head": "两份日志分开的地方（metrics.jsonl，两者都记录了的步）：",
    "card.quantity": "量",
    "card.first_step": "第一步",
    "card.common": "步数",
    "card.never": "从未",
    "card.first": "它们最早在第 {step} 步分开，在 {quantity} 上",
    "card.no_parting": "在容差之内它们没有分开",
    "card.replaced": "已替换 {files}（之前的评估卡）",
    # ---- 图 ----------------------------------------------------------------------------------------------
    "card.picture.position": "按上下文位置的损失",
    "card.picture.position_x": "位置",
    "card.picture.nll_y": "平均损失（奈特）",
    "card.picture.reliability": "top-1 概率的可靠性",
    "card.picture.conf_x": "top-1 概率",
    "card.picture.acc_y": "准确率",
    "card.picture.ideal": "完全校准",
    "card.picture.curves": "训练损失",
    "card.picture.step_x": "步",
    "card.picture.loss_y": "损失",
    "card.picture.parts": "第一次分开",
    # ---- 拒绝 --------------------------------------------------------------------------------------------
    "error.eval.cannot_sample": "{run} 是 {kind} 模型，不会写文本：评估卡读取预测下一个词元的模型（gpt 运行，例如 "
    "`glassformer train --preset baby`）。",
    "error.eval.no_split": "{run} 没有自己的训练数据（导入的模型）：请用 --text FILE 给出留出文本。",
    "error.eval.source_gone": "{run} 的 config.json 写的数据源 {source!r} 读不了：{problem}。请用 --text FILE "
    "给出留出文本。",
    "error.eval.data_changed": "{source!r} 的数据自 {run} 训练以来变了（{key} 不同），它的验证集已不是训练时评估的"
    "那一份：请用 --text FILE 给出留出文本。",
    "fix.eval_text": "请给出一个 UTF-8 编码的留出文本文件。",
    "error.eval.text_short": "留出文本（{chars} 个字符）在第一个词 {context!r}（作为上下文）之后没有可打分的内容："
    "请给出更长的文本。",
    "error.eval.windows_short": "{origin} 只有 {n} 个词元，不够一个 seq_len={seq_len} + 1 = {need} 的窗口：请用 "
    "--text FILE 给出更长的文本。",
    "error.eval.prompt_too_long": "提示词有 {n} 个词元；模型最多读 {max_len} 个，还必须留出写的位置：请把 --prompt "
    "缩短到 {most} 个词元以内。",
    "error.eval.stride": "打分的步长必须在 1 … max_len={max_len} 之间，收到的是 {stride}。",
    "error.eval.no_windows": "没有可测量的留出窗口：文本一个也没给出。",
    "error.eval.bins": "分箱数必须是 >= 1 的整数，收到的是 {value!r}。",
    "error.eval.calibration_sizes": "校准读取每个词元的一个 top-1 概率和一个是否命中：收到 {confidence} 个概率和 "
    "{correct} 个命中（且至少需要一个）。",
    "error.eval.rtol": "相对容差必须是 >= 0 的有限数，收到的是 {value!r}。",
    "fix.questions": '请一行写一题：{{"context": "...", "choices": ["...", "..."], "answer": 0}}。',
    "error.eval.no_questions": '{path} 里没有题目：请一行写一题，{{"context": "...", "choices": ["...", "..."], '
    '"answer": 0}}。',
    "error.eval.question_json": '{path} 第 {line} 行：不是 JSON。每行是一道题：{{"context": "...", "choices": '
    '["...", "..."], "answer": 0}}。',
    "error.eval.question_shape": '{path} 第 {line} 行：一道题需要 "context"（文本）、"choices"（至少两个非空文本）'
    '和 "answer"（整数）：{{"context": "...", "choices": ["...", "..."], "answer": 0}}。',
    "error.eval.answer_range": '{path} 第 {line} 行："answer" 是 {answer}，但只有 {n} 个选项：请给出正确选项的'
    "序号，从 0 数起。",
    "error.eval.empty_context": '{path} 第 {line} 行："context" 没有给模型任何可以开始的词元：请在那里写上题目的文本。',
    "error.eval.empty_choice": "{path} 第 {line} 行：选项 {choice!r} 在上下文之后没有增加任何词元：请写一个分词器"
    "在那里能读出的选项（词级分词器的选项要以空格开头）。",
    "error.eval.choice_too_long": "{path} 第 {line} 行：一个 {n} 个词元的选项放不进模型的 max_len={max_len}："
    "请缩短它。",
    "error.eval.out_is_file": "--out {out} 是一个文件：请给出放 card.json 和 card.png 的文件夹。",
    "error.eval.not_a_card": "{path} 不是之前的评估卡，而评估卡会替换它：请移走它，或用 --out 换一个文件夹"
    "（现在是 {out}）。",
}
