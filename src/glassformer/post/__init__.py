"""Post-training: from a language model to an assistant (docs/post.md).

- ``chat``: conversations (system / user / assistant; JSON Lines), chat templates rendered as
  transformers renders them, the control tokens as special tokens, the assistant's tokens marked.
- ``sft``: supervised fine-tuning's batches (padded or packed, labels -100 where the assistant does
  not speak) and its loss, the next-token cross-entropy on the assistant's tokens only.
- ``lora``: LoRA written out: a frozen linear layer plus a trainable low-rank update, merged and
  unmerged exactly; applied to a model's projections by a name pattern.
- ``preference``: DPO (its sigmoid loss, the conservative and IPO variants), the implicit rewards.
- ``grpo``: GRPO's group-relative advantages, its clipped objective with the KL to the reference,
  and a reward that can be checked (an arithmetic answer, exactly).
- ``data``: what each stage reads (conversations, preference pairs, questions) from JSON Lines, or
  made here (``builtin:arithmetic``).
- ``tune``: a base run taken through SFT, DPO or GRPO by the one trainer, into a new run directory
  (the verbs ``glassformer sft``, ``dpo``, ``grpo``).
"""
