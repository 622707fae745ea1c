"""Runnable lessons that re-create the tutorials' examples with glassformer, print every step
with numbers computed at run time, and say where the published figures differ.

    tiny         the first tutorial's TinyTransformer: its tokenizer, windows, parameter count,
                 training loop and sampling, and its claims linked to the lab  (seed 000)
    fruit        attention by hand in NumPy on apple/banana/orange, multi-head shapes,
                 sinusoidal positions                                 (seed 004, §2-3)
    hello_world  the one-layer word model, and the future leak of training it without a mask
                                                                      (seed 002)
    sine         a Transformer for numbers: the tutorial's ill-posed task, its learning-rate
                 schedule, and a well-posed forecasting task          (seed 004, §5)
    seq2seq      the original Transformer, encoder-decoder with cross-attention, on Chinese
                 number words ↔ numerals: masks, teacher forcing, greedy and beam search
                                                                      (seed 002 §1, seed 004 §3)
    ladder       from GPT-2 to Qwen3 one change at a time (RMSNorm, SwiGLU, RoPE, GQA, QK-norm,
                 Qwen3's head width, no biases), each rung trained the same way and measured
                                                                      (issue 46)
    post_training  from a language model to an assistant: pretraining on sums, SFT, LoRA, DPO
                 and GRPO (post/), each measured on held-out sums, and post/diff.py after each

Run one with `glassformer lesson tiny|fruit|hello-world|sine|seq2seq|ladder|post-training`; each module's `run(...)`
prints the lesson and returns what it computed.
"""

LESSONS = ("tiny", "fruit", "hello-world", "sine", "seq2seq", "ladder", "post-training")
