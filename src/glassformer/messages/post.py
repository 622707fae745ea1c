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
}
