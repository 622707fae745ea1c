"""The words of post-training (post/: conversations and chat templates, SFT, LoRA, DPO, GRPO) and of the
special tokens a chat adds to a tokenizer (text/specials.py): the typed errors a user meets when a
conversation file, a template, a LoRA setting, a preference batch or a reward function is wrong.

ZH 是 EN 的中文：后训练（对话与聊天模板、SFT、LoRA、DPO、GRPO）和特殊词元的类型化错误。"""

EN = {
    # ---- special tokens (text/specials.py) -------------------------------------------------------------------
    "error.specials.empty": "a special token must be a non-empty string, got {token!r}.",
    "error.specials.twice": "special token {token!r} is listed twice; each special token gets exactly one id.",
    # ---- conversations (post/chat.py) ------------------------------------------------------------------------
    "error.chat.not_list": "a conversation is a list of messages, each with a role and a content; got {found}.",
    "error.chat.empty": "the conversation has no messages; write at least a user turn and the assistant's answer.",
    "error.chat.message": "message {index} is not an object with a role and a content (got {found}).",
    "error.chat.role": "message {index} has role {role!r}; a role is one of {roles}.",
    "error.chat.content": "message {index} ({role}) has no text: its content must be a string.",
    "error.chat.order": "message {index} is from the {role} where the {expected} was expected: a conversation is "
    "an optional system message first, then user and assistant turns in turn, starting with the user.",
    "error.chat.empty_assistant": "message {index} is an empty assistant turn: it is what the model learns to say; "
    "write its answer or drop the turn.",
    "error.chat.no_assistant": "the conversation has no assistant turn, so supervised fine-tuning has nothing to "
    "learn from it; add the answer the model should give.",
    "error.chat.line_json": "{path}, line {line}: not JSON ({reason}, column {column}). Each line of a "
    "conversation file is one JSON object, like {example}",
    "error.chat.line_shape": "{path}, line {line}: a line holds one object with a messages list, got {found}. "
    "Write it like {example}",
    "error.chat.line": "{path}, line {line}: {detail}",
    "error.chat.no_lines": "{path} holds no conversation; write one JSON object per line, like {example}",
    "error.chat.template_syntax": "the chat template does not parse at its line {line}: {detail}. Fix the Jinja "
    "source.",
    "error.chat.template": "the chat template stopped while rendering: {detail}.",
    # ---- supervised fine-tuning (post/sft.py) ----------------------------------------------------------------
    "error.sft.too_long": "conversation {index} is {n} tokens, longer than seq_len={seq_len}: raise seq_len or "
    "shorten the conversation.",
    "error.sft.no_examples": "there are no conversations to put in a batch.",
    "error.sft.mask_length": "conversation {index} has {n} ids but a mask of {m}: each id needs one mask entry.",
    "error.sft.seq_len": "seq_len={seq_len} must be a whole number of at least {least}.",
    "error.sft.packed_needs_mask": "this batch packs several conversations into one row, and the model reads token "
    "ids only, so they would attend to each other: use pad_batch, or a model that reads the batch's attention mask.",
    # ---- LoRA (post/lora.py) ---------------------------------------------------------------------------------
    "error.lora.rank": "LoRA rank r={r} for {name} ({d_out} × {d_in}) must be a whole number from 1 to {most}: a "
    "rank above min(out, in) adds parameters, not expressiveness.",
    "error.lora.alpha": "LoRA alpha={alpha} must be a positive number (the update is scaled by alpha / r).",
    "error.lora.dropout": "LoRA dropout={p} must be at least 0 and below 1.",
    "error.lora.no_match": "the pattern {pattern!r} matches no linear layer by its full name; the linear layers "
    "are: {names}.",
    "error.lora.merged": "{name} is merged already: unmerge it before merging again or training it.",
    "error.lora.not_merged": "{name} is not merged, so there is nothing to unmerge.",
    # ---- preferences (post/preference.py) --------------------------------------------------------------------
    "error.dpo.beta": "beta={beta} must be a positive number: it weighs the pull towards the reference model, "
    "and the implicit reward is beta times the log-ratio.",
    "error.dpo.smoothing": "label_smoothing={smoothing} must be at least 0 and below one half: it is the "
    "probability that a preference label is flipped.",
    "error.dpo.shapes": "the log-probabilities of chosen and rejected, policy and reference, must have one shape "
    "(one number per pair); got {shapes}.",
    "error.dpo.variant": "DPO variant {variant!r} is not one of {names}.",
    "error.dpo.ipo_tokens": "the IPO loss averages over the response tokens: pass chosen_tokens and "
    "rejected_tokens (the mask's sum per response).",
    # ---- GRPO (post/grpo.py) ---------------------------------------------------------------------------------
    "error.grpo.group": "a group of {size} completion per prompt cannot be compared with itself: the advantage is "
    "each reward minus its group's mean, so give each prompt at least two completions.",
    "error.grpo.groups_split": "{n} rewards do not split into groups of {size}: give every prompt the same number "
    "of completions.",
    "error.grpo.scale": "scale_rewards={scale!r} is not one of {names}.",
    "error.grpo.loss_type": "loss_type={loss_type!r} is not one of {names}.",
    "error.grpo.epsilon": "epsilon={epsilon} must be a positive number: the ratio is clipped to [1 - epsilon, "
    "1 + epsilon_high].",
    "error.grpo.beta": "beta={beta} must be zero or a positive number: it weighs the KL penalty to the reference.",
    "error.grpo.needs_ref": "beta={beta} asks for a KL penalty, so the reference model's log-probabilities are "
    "needed: pass ref_logps.",
    "error.grpo.max_len": "loss_type 'dr_grpo' divides by max_completion_length: pass it as a positive whole number.",
    "error.grpo.shapes": "the per-token tensors must share one shape (completions × tokens) and the advantages one "
    "per completion; got {shapes}.",
    "error.grpo.reward_raised": "the reward function {name} raised {error} on completion {index}: {detail}. A "
    "reward function must return a number for every completion; fix it or handle that case.",
    "error.grpo.reward_nan": "the reward function {name} returned {value!r} for completion {index}; a reward "
    "must be a finite number.",
    # ---- post-training runs (post/tune.py, post/data.py) and their verbs (cli/post.py) ------------------------------
    "error.post.no_data": "{path} is not a file: give a JSON Lines file of examples, or {builtin}.",
    "error.post.prompt_end": "{path}, line {line}: the prompt ends with a {role} turn; it must end with the user's "
    "turn, which the answer follows.",
    "error.post.answer": "{path}, line {line}: {key} must be a non-empty string or a list of one assistant message; "
    "write it like {example}",
    "error.post.example": "example {index}: {detail}",
    "error.post.model_field": "{keys} would change the base model's weights, which post-training keeps: set only "
    "training settings (max_steps, lr, batch_size ...) and dropout.",
    "error.post.method": "post-training method {method!r} is not one of {names}.",
    "error.post.base_kind": "{dir} holds a {kind} model, which does not write text: post-training needs a base run "
    "of a model that reads and writes tokens.",
    "error.post.out_exists": "{dir} exists already, and a post-training run never writes into a directory it did "
    "not make: choose a new --out, or continue that run with --resume.",
    "error.post.too_long": "the longest example takes {n} positions, more than the base model's max_len={max_len} "
    "({base}): shorten the examples (or, for grpo, --max-new-tokens).",
    "error.post.not_post": "{dir} is not a post-training run (its config.json has no post section): start one "
    "with glassformer sft BASE_RUN --data FILE.",
    "error.run.post_resume": "{dir} is a {method} run: resume it with `glassformer {method} --resume {dir}`.",
    "error.post.merged": "{dir} is finished and its LoRA merged into its weights: to train it further, start a "
    "new stage with it as the base (glassformer {method} {dir} --data FILE).",
    "error.post.base_changed": "the base run {base} of {dir} has other weights than when {dir} began (their "
    "sha256 differs): its reference model would not be the one it started from. Restore the base run.",
    "error.post.data_changed": "{data}, the data of {dir}, has changed since the run began (its sha256 differs): "
    "restore it, or start a new run on the new data.",
    "post.about": "{method} of {base}",
    "post.resume_alone": "--resume continues a run with its own base, data and output: leave out BASE_RUN, --data "
    "and --out (glassformer {method} --resume RUN).",
    "post.need_base_data": "glassformer {method} needs a base run and its data: glassformer {method} BASE_RUN "
    "--data FILE.jsonl (or --data {builtin}).",
    "post.lora_both": "LoRA needs both --lora-r and --lora-alpha (the update is scaled by alpha / r).",
    "post.started": "{method}: {dir}, from the base run {base}, on {data}",
    "post.model": "vocabulary {vocab} tokens with the chat's control tokens; {trained:,} of {total:,} parameters train",
    "post.resume_with": "continue with: {glassformer} {method} --resume {dir}",
    "post.done": "done after {steps} steps: {figures}",
    "post.merged": "LoRA merged into {dir}/model.safetensors; its A and B are in {dir}/lora.safetensors",
    "help.sft": "supervised fine-tuning of a base run on conversations (a new run)",
    "help.sft.about": "Fine-tune a base run on conversations, learning only the assistant's tokens, through the "
    "one trainer. The chat's control tokens are added to the base's tokenizer (its ids unchanged) and the "
    "embedding and head grow for them. Conversations are padded, one a row. The base run is never modified. "
    "Training settings as --key=value (--max_steps=200 --lr=3e-4 --batch_size=8).",
    "help.dpo": "direct preference optimization of a run on preference pairs (a new run)",
    "help.dpo.about": "Train a run to prefer the chosen answer of each pair to the rejected one (DPO), against a "
    "frozen copy of the run as the reference, through the one trainer. The base run is never modified.",
    "help.grpo": "group relative policy optimization of a run on questions with checkable answers (a new run)",
    "help.grpo.about": "Sample several answers to each question, reward those whose last number is the answer, "
    "and train on the group-relative advantages with a KL penalty to a frozen copy of the run (GRPO), through "
    "the one trainer. The base run is never modified.",
    "help.post.base": "the run to start from (as {example}); it is read, never written",
    "help.sft.data": 'conversations, one JSON object a line: {{"messages": [...]}}; or {builtin}',
    "help.dpo.data": 'preference pairs, one JSON object a line: {{"prompt": [...], "chosen": [...], '
    '"rejected": [...]}}; or {builtin}',
    "help.grpo.data": 'questions, one JSON object a line: {{"prompt": [...], "answer": "82"}}; or {builtin}',
    "help.post.out": "the new run's directory (default: runs/<base>-<method>-<time>); it must not exist",
    "help.post.resume": "continue the post-training run in this directory",
    "help.post.format": "the chat template (default: chatml)",
    "help.post.lora_r": "train a LoRA of this rank instead of every weight (merged into the weights at the end)",
    "help.post.lora_alpha": "LoRA's alpha: the update is scaled by alpha / r",
    "help.post.lora_target": "a regular expression the full names of LoRA's linear layers match (default: {default})",
    "help.sft.pack": "pack several conversations into one row (refused for now: the model does not read an "
    "attention mask yet)",
    "help.dpo.beta": "how strongly the policy is held to the reference (default: 0.1)",
    "help.grpo.beta": "the weight of the KL penalty to the reference (default: 0.04)",
    "help.grpo.group": "answers sampled per question (default: {default})",
    "help.grpo.max_new_tokens": "the longest answer sampled, in tokens (default: {default})",
    "help.grpo.temperature": "the sampling temperature of the answers (default: {default})",
    # ---- chat (post/talk.py, `glassformer chat`) ---------------------------------------------------------------
    "error.talk.not_chat": "{run} was not post-trained, so it has no chat template and no end-of-turn token: "
    "make a chat run first with `glassformer sft {run} --data FILE.jsonl` (or --data builtin:arithmetic), then chat "
    "with that run.",
    "error.talk.too_long": "this message makes a prompt of {n} tokens, and with --max-new-tokens={max_new_tokens} it "
    "does not fit the model's max_len={max_len}: write a shorter message or lower --max-new-tokens.",
    "chat.ready": "chatting with {run} ({format} template): a line is a turn; {reset} forgets the history, {quit} "
    "(or end of input) leaves.",
    "chat.was_reset": "the history is forgotten; a new conversation starts.",
    "chat.dropped": "(the {n} oldest turns were dropped so the conversation fits the model's context)",
    "help.chat": "talk with a post-trained run in the terminal, turn by turn",
    "help.chat.about": "Read a user turn per line of standard input, render the history with the run's chat "
    "template, and stream the answer, written by the one sampling path, until the end-of-turn token. The oldest "
    "turns are dropped when the history outgrows the model's context. /reset forgets the history; /quit or the "
    "end of input leaves.",
    "help.chat.run": "the post-trained run to talk with (made by sft, dpo or grpo, e.g. {example})",
    "help.chat.system": "a system message put before every conversation",
    # ---- what changed (post/diff.py, `glassformer diff`) -------------------------------------------------------
    "error.diff.kind": "{base} holds a {a} model and {tuned} a {b} model: diff compares two runs of the same "
    "kind of text model, a base and a run tuned from it.",
    "error.diff.shapes": "{base} and {tuned} differ in {fields}, so their weights do not line up: compare a "
    "base with a run tuned from it (sft, dpo, grpo, or train --resume).",
    "error.diff.vocab": "{base} has {a} tokens and {tuned} {b}, and {tuned}'s tokenizer is not {base}'s (nor "
    "{base}'s plus a chat's special tokens): compare a base with a run tuned from it.",
    "error.diff.no_prompt": "the tuned run has no data of its own to read prompts from: give one or more "
    "--prompt TEXT.",
    "diff.layers.title": "Weight change of each layer, ‖ΔW‖ / ‖W‖",
    "diff.weights.title": "Weight change of each parameter",
    "diff.heads.title": "Weight change of each head's share of the attention projections, ‖ΔW_h‖ / ‖W_h‖",
    "diff.lora.title": "LoRA's update ΔW = (α/r)·B·A of each layer",
    "diff.lora.note": "r = {r}, α = {alpha}; the rank of ΔW is at most r.",
    "diff.tokens.title": "Next tokens whose probability moved most",
    "diff.tokens.note": "over every position of {n} prompt(s); p is the probability of that next token.",
    "diff.tokens.row": "prompt {prompt} @{position} {context} → {token}",
    "diff.grown": "the base grew {n} vocabulary rows for the chat's special tokens (each the mean of its old "
    "rows), as the run did when it started; ΔW counts from there.",
    "diff.col.relative": "‖ΔW‖/‖W‖",
    "diff.col.delta": "‖ΔW‖",
    "diff.col.norm": "‖W‖",
    "diff.col.rank": "rank",
    "diff.col.head": "head {h}",
    "diff.col.p_base": "p base",
    "diff.col.p_tuned": "p tuned",
    "diff.col.change": "change",
    "help.diff": "show what tuning changed inside a model: weights by layer, parameter and head, LoRA's "
    "update, and the next tokens that moved most",
    "help.diff.about": "Compare a base run with a run tuned from it: the relative weight change of every "
    "layer, parameter and attention head, a LoRA run's low-rank update and its rank, and the next tokens "
    "whose probability moved most on a few prompts (given with --prompt, or the tuned run's own data). "
    "Each view is printed as a table and written as PNG, HTML and JSON.",
    "help.diff.base": "the run before tuning (e.g. {example})",
    "help.diff.tuned": "the run tuned from it (sft, dpo, grpo ...)",
    "help.diff.prompt": "a prompt for the tokens view (repeat it for several); default: the tuned run's own data",
    "help.diff.out": "the folder for the PNG, HTML and JSON files (default: out/diff)",
}

ZH = {
    # ---- 特殊词元 ----------------------------------------------------------------------------------------------
    "error.specials.empty": "特殊词元必须是非空字符串，得到的是 {token!r}。",
    "error.specials.twice": "特殊词元 {token!r} 出现了两次；每个特殊词元只能有一个编号。",
    # ---- 对话 --------------------------------------------------------------------------------------------------
    "error.chat.not_list": "对话是消息的列表，每条消息有角色（role）和内容（content）；得到的是 {found}。",
    "error.chat.empty": "这段对话没有任何消息；至少写一轮用户提问和助手的回答。",
    "error.chat.message": "第 {index} 条消息不是带有角色和内容的对象（得到的是 {found}）。",
    "error.chat.role": "第 {index} 条消息的角色是 {role!r}；角色只能是 {roles} 之一。",
    "error.chat.content": "第 {index} 条消息（{role}）没有文字：它的内容必须是字符串。",
    "error.chat.order": "第 {index} 条消息来自 {role}，而这里应当是 {expected}：对话先是可选的一条系统消息，"
    "然后由用户开始，用户与助手轮流发言。",
    "error.chat.empty_assistant": "第 {index} 条消息是空的助手回合：这正是模型要学会说的话；"
    "请写上回答，或删去这一回合。",
    "error.chat.no_assistant": "这段对话没有助手回合，监督微调无从学习；请加上模型应当给出的回答。",
    "error.chat.line_json": "{path} 第 {line} 行：不是 JSON（{reason}，第 {column} 列）。对话文件的每一行是一个 "
    "JSON 对象，例如 {example}",
    "error.chat.line_shape": "{path} 第 {line} 行：每行应是一个带 messages 列表的对象，得到的是 {found}。"
    "请写成 {example}",
    "error.chat.line": "{path} 第 {line} 行：{detail}",
    "error.chat.no_lines": "{path} 里没有对话；请每行写一个 JSON 对象，例如 {example}",
    "error.chat.template_syntax": "聊天模板在第 {line} 行无法解析：{detail}。请修改 Jinja 源码。",
    "error.chat.template": "聊天模板在渲染时中止：{detail}。",
    # ---- 监督微调 ----------------------------------------------------------------------------------------------
    "error.sft.too_long": "第 {index} 段对话有 {n} 个词元，超过 seq_len={seq_len}：请调大 seq_len，或缩短这段对话。",
    "error.sft.no_examples": "没有可以放进批次的对话。",
    "error.sft.mask_length": "第 {index} 段对话有 {n} 个编号，掩码却有 {m} 个：每个编号需要一个掩码值。",
    "error.sft.seq_len": "seq_len={seq_len} 必须是不小于 {least} 的整数。",
    "error.sft.packed_needs_mask": "这个批次把几段对话装进了同一行，而模型只读词元编号，"
    "它们会互相注意：请改用 pad_batch，或使用能读取批次注意力掩码的模型。",
    # ---- LoRA ----------------------------------------------------------------------------------------------------
    "error.lora.rank": "{name}（{d_out} × {d_in}）的 LoRA 秩 r={r} 必须是 1 到 {most} 之间的整数："
    "超过 min(out, in) 的秩只会增加参数，不会增加表达能力。",
    "error.lora.alpha": "LoRA 的 alpha={alpha} 必须是正数（更新量按 alpha / r 缩放）。",
    "error.lora.dropout": "LoRA 的 dropout={p} 必须不小于 0 且小于 1。",
    "error.lora.no_match": "模式 {pattern!r} 按全名匹配不到任何线性层；现有的线性层是：{names}。",
    "error.lora.merged": "{name} 已经合并：再次合并或训练之前，请先拆开（unmerge）。",
    "error.lora.not_merged": "{name} 没有合并，无从拆开。",
    # ---- 偏好 ----------------------------------------------------------------------------------------------------
    "error.dpo.beta": "beta={beta} 必须是正数：它决定向参考模型靠拢的力度，隐式奖励就是 beta 乘以对数比。",
    "error.dpo.smoothing": "label_smoothing={smoothing} 必须不小于 0 且小于二分之一：它是偏好标签被弄反的概率。",
    "error.dpo.shapes": "被选与被拒、策略与参考这四组对数概率必须形状相同（每对一个数）；得到的是 {shapes}。",
    "error.dpo.variant": "DPO 变体 {variant!r} 不是 {names} 之一。",
    "error.dpo.ipo_tokens": "IPO 损失要对回答的词元取平均：请传入 chosen_tokens 和 rejected_tokens"
    "（每个回答的掩码之和）。",
    # ---- GRPO ----------------------------------------------------------------------------------------------------
    "error.grpo.group": "每个提示只有 {size} 个回答，无法与自己比较：优势是每个奖励减去组内均值，"
    "所以每个提示至少要有两个回答。",
    "error.grpo.groups_split": "{n} 个奖励无法分成每组 {size} 个：请让每个提示的回答数相同。",
    "error.grpo.scale": "scale_rewards={scale!r} 不是 {names} 之一。",
    "error.grpo.loss_type": "loss_type={loss_type!r} 不是 {names} 之一。",
    "error.grpo.epsilon": "epsilon={epsilon} 必须是正数：比值被截断在 [1 - epsilon, 1 + epsilon_high] 之内。",
    "error.grpo.beta": "beta={beta} 必须是零或正数：它是对参考模型的 KL 惩罚的权重。",
    "error.grpo.needs_ref": "beta={beta} 要求 KL 惩罚，因此需要参考模型的对数概率：请传入 ref_logps。",
    "error.grpo.max_len": "loss_type 'dr_grpo' 要除以 max_completion_length：请把它作为正整数传入。",
    "error.grpo.shapes": "逐词元的张量必须同形（回答数 × 词元数），优势每个回答一个；得到的是 {shapes}。",
    "error.grpo.reward_raised": "奖励函数 {name} 在第 {index} 个回答上抛出了 {error}：{detail}。"
    "奖励函数必须对每个回答都返回一个数；请修正它，或处理这种情况。",
    "error.grpo.reward_nan": "奖励函数 {name} 对第 {index} 个回答返回了 {value!r}；奖励必须是有限的数。",
    # ---- 后训练的运行与命令 ------------------------------------------------------------------------------------
    "error.post.no_data": "{path} 不是文件：请给出每行一个样例的 JSON Lines 文件，或 {builtin}。",
    "error.post.prompt_end": "{path} 第 {line} 行：提示以 {role} 的回合结束；它必须以用户的回合结束，回答接在其后。",
    "error.post.answer": "{path} 第 {line} 行：{key} 必须是非空字符串，或只含一条助手消息的列表；请照此书写：{example}",
    "error.post.example": "第 {index} 个样例：{detail}",
    "error.post.model_field": "{keys} 会改变基础模型的权重，而后训练保留这些权重：只能设置训练参数"
    "（max_steps、lr、batch_size 等）和 dropout。",
    "error.post.method": "后训练方法 {method!r} 不是 {names} 之一。",
    "error.post.base_kind": "{dir} 中是 {kind} 模型，它不写文本：后训练需要一个读写词元的模型的基础运行。",
    "error.post.out_exists": "{dir} 已经存在，而后训练从不写入不是它创建的目录：请换一个新的 --out，"
    "或用 --resume 继续那个运行。",
    "error.post.too_long": "最长的样例占 {n} 个位置，超过基础模型的 max_len={max_len}（{base}）："
    "请缩短样例（grpo 则可减小 --max-new-tokens）。",
    "error.post.not_post": "{dir} 不是后训练运行（它的 config.json 没有 post 部分）：请用 "
    "glassformer sft BASE_RUN --data FILE 开始一个。",
    "error.run.post_resume": "{dir} 是一次 {method} 运行：请用 `glassformer {method} --resume {dir}` 继续。",
    "error.post.merged": "{dir} 已经完成，其 LoRA 已合并进权重：若要继续训练，请以它为基础开始新的阶段"
    "（glassformer {method} {dir} --data FILE）。",
    "error.post.base_changed": "{dir} 的基础运行 {base} 的权重与开始时不同（sha256 不一致）："
    "参考模型将不再是起点的那个。请恢复基础运行。",
    "error.post.data_changed": "{dir} 的数据 {data} 自运行开始后已改变（sha256 不一致）："
    "请恢复它，或在新数据上开始新的运行。",
    "post.about": "{base} 的 {method}",
    "post.resume_alone": "--resume 用运行自己的基础、数据和输出目录继续：请不要再给 BASE_RUN、--data 和 --out"
    "（glassformer {method} --resume RUN）。",
    "post.need_base_data": "glassformer {method} 需要基础运行和数据：glassformer {method} BASE_RUN "
    "--data FILE.jsonl（或 --data {builtin}）。",
    "post.lora_both": "LoRA 需要同时给出 --lora-r 和 --lora-alpha（更新按 alpha / r 缩放）。",
    "post.started": "{method}：{dir}，基础运行 {base}，数据 {data}",
    "post.model": "词表 {vocab} 个词元（含对话的控制词元）；{total:,} 个参数中有 {trained:,} 个参与训练",
    "post.resume_with": "继续：{glassformer} {method} --resume {dir}",
    "post.done": "训练 {steps} 步后完成：{figures}",
    "post.merged": "LoRA 已合并进 {dir}/model.safetensors；它的 A 和 B 在 {dir}/lora.safetensors",
    "help.sft": "在对话上对基础运行做监督微调（得到新的运行）",
    "help.sft.about": "在对话上微调基础运行，只学习助手的词元，经由唯一的训练器。对话的控制词元加入基础的"
    "分词器（原有编号不变），嵌入与输出头为它们增加行。对话按行填充。基础运行从不被修改。"
    "训练参数写作 --key=value（--max_steps=200 --lr=3e-4 --batch_size=8）。",
    "help.dpo": "在偏好对上对运行做直接偏好优化（得到新的运行）",
    "help.dpo.about": "以运行的冻结副本为参考模型，训练它在每对回答中偏好被选的一个（DPO），经由唯一的训练器。"
    "基础运行从不被修改。",
    "help.grpo": "在答案可检验的问题上对运行做组相对策略优化（得到新的运行）",
    "help.grpo.about": "对每个问题采样多个回答，最后一个数等于答案的得到奖励，按组内相对优势训练，"
    "并以对运行冻结副本的 KL 为惩罚（GRPO），经由唯一的训练器。基础运行从不被修改。",
    "help.post.base": "起点运行（如 {example}）；只读取，从不写入",
    "help.sft.data": '对话，每行一个 JSON 对象：{{"messages": [...]}}；或 {builtin}',
    "help.dpo.data": '偏好对，每行一个 JSON 对象：{{"prompt": [...], "chosen": [...], '
    '"rejected": [...]}}；或 {builtin}',
    "help.grpo.data": '问题，每行一个 JSON 对象：{{"prompt": [...], "answer": "82"}}；或 {builtin}',
    "help.post.out": "新运行的目录（默认：runs/<基础>-<方法>-<时间>）；它必须尚不存在",
    "help.post.resume": "继续此目录中的后训练运行",
    "help.post.format": "对话模板（默认：chatml）",
    "help.post.lora_r": "训练此秩的 LoRA，而不是全部权重（结束时合并进权重）",
    "help.post.lora_alpha": "LoRA 的 alpha：更新按 alpha / r 缩放",
    "help.post.lora_target": "LoRA 所作用的线性层的完整名称须匹配的正则表达式（默认：{default}）",
    "help.sft.pack": "把多段对话打包进一行（暂不支持：模型还不读取注意力掩码）",
    "help.dpo.beta": "策略被约束在参考模型附近的强度（默认：0.1）",
    "help.grpo.beta": "对参考模型的 KL 惩罚的权重（默认：0.04）",
    "help.grpo.group": "每个问题采样的回答数（默认：{default}）",
    "help.grpo.max_new_tokens": "采样回答的最大长度，以词元计（默认：{default}）",
    "help.grpo.temperature": "采样回答的温度（默认：{default}）",
    # ---- 对话（post/talk.py，`glassformer chat`）--------------------------------------------------------------
    "error.talk.not_chat": "{run} 没有经过后训练，因此没有对话模板，也没有回合结束词元：请先用 "
    "`glassformer sft {run} --data FILE.jsonl`（或 --data builtin:arithmetic）得到一个对话运行，再与它对话。",
    "error.talk.too_long": "这条消息使提示长达 {n} 个词元，加上 --max-new-tokens={max_new_tokens} 就超出了模型的 "
    "max_len={max_len}：请写短一些，或减小 --max-new-tokens。",
    "chat.ready": "正在与 {run} 对话（{format} 模板）：每行是一个回合；{reset} 清空历史，{quit}（或输入结束）退出。",
    "chat.was_reset": "历史已清空；新的对话开始。",
    "chat.dropped": "（为放进模型的上下文，丢弃了最早的 {n} 个回合）",
    "help.chat": "在终端中与后训练的运行逐回合对话",
    "help.chat.about": "从标准输入每行读一个用户回合，用运行的对话模板渲染历史，并经由唯一的采样路径流式写出回答，"
    "直到回合结束词元。历史超出模型的上下文时丢弃最早的回合。/reset 清空历史；/quit 或输入结束时退出。",
    "help.chat.run": "要对话的后训练运行（由 sft、dpo 或 grpo 得到，如 {example}）",
    "help.chat.system": "放在每段对话前面的系统消息",
    # ---- 改变了什么（post/diff.py，`glassformer diff`）-------------------------------------------------------
    "error.diff.kind": "{base} 中是 {a} 模型，{tuned} 中是 {b} 模型：diff 比较同一种文本模型的两个运行，"
    "一个基础运行和一个由它调出的运行。",
    "error.diff.shapes": "{base} 与 {tuned} 在 {fields} 上不同，它们的权重对不上：请比较一个基础运行和由它调出的运行"
    "（sft、dpo、grpo 或 train --resume）。",
    "error.diff.vocab": "{base} 有 {a} 个词元，{tuned} 有 {b} 个，且 {tuned} 的分词器不是 {base} 的"
    "（也不是 {base} 的加上对话的特殊词元）：请比较一个基础运行和由它调出的运行。",
    "error.diff.no_prompt": "调出的运行没有自己的数据可供读取提示：请给出一个或多个 --prompt TEXT。",
    "diff.layers.title": "每层的权重变化，‖ΔW‖ / ‖W‖",
    "diff.weights.title": "每个参数的权重变化",
    "diff.heads.title": "每个头在注意力投影中那一份的权重变化，‖ΔW_h‖ / ‖W_h‖",
    "diff.lora.title": "每层 LoRA 的更新 ΔW = (α/r)·B·A",
    "diff.lora.note": "r = {r}，α = {alpha}；ΔW 的秩至多为 r。",
    "diff.tokens.title": "概率变化最大的下一个词元",
    "diff.tokens.note": "遍历 {n} 个提示的每个位置；p 是该下一个词元的概率。",
    "diff.tokens.row": "提示 {prompt} @{position} {context} → {token}",
    "diff.grown": "基础模型为对话的特殊词元增加了 {n} 行词表（每行是原有各行的均值），与运行开始时相同；"
    "ΔW 从那里算起。",
    "diff.col.relative": "‖ΔW‖/‖W‖",
    "diff.col.delta": "‖ΔW‖",
    "diff.col.norm": "‖W‖",
    "diff.col.rank": "秩",
    "diff.col.head": "头 {h}",
    "diff.col.p_base": "基础 p",
    "diff.col.p_tuned": "调后 p",
    "diff.col.change": "变化",
    "help.diff": "显示调优在模型内部改变了什么：按层、参数和头的权重，LoRA 的更新，以及变化最大的下一个词元",
    "help.diff.about": "比较基础运行与由它调出的运行：每层、每个参数和每个注意力头的相对权重变化，LoRA 运行的"
    "低秩更新及其秩，以及在几个提示（用 --prompt 给出，或调出运行自己的数据）上概率变化最大的下一个词元。"
    "每个视图打印为表格，并写成 PNG、HTML 和 JSON。",
    "help.diff.base": "调优前的运行（如 {example}）",
    "help.diff.tuned": "由它调出的运行（sft、dpo、grpo 等）",
    "help.diff.prompt": "词元视图的提示（可重复给出多个）；默认：调出运行自己的数据",
    "help.diff.out": "PNG、HTML 和 JSON 文件的目录（默认：out/diff）",
}
