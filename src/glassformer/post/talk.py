"""A conversation with a post-trained run, turn by turn: what `glassformer chat RUN` does (cli/post.py).

Each turn renders the history with the run's own chat template (the format its config.json's ``post``
section names, the one it was trained on), ending with the assistant's header, and lets the model write
through sample.py's ``sample``, the one sampling path, until the format's end-of-turn token. The answer
joins the history, so the next turn's prompt holds it.

The history must fit the model's context with room to answer: while the rendered prompt and
``max_new_tokens`` would pass ``max_len``, the oldest user and assistant turns are dropped (a system
message is always kept), and the turn says how many went. A user message that does not fit even alone is
refused, and the history is left as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from torch import nn

from glassformer.errors import UsageError
from glassformer.post.chat import CHAT_FORMATS, END_OF_TURN, ChatTemplate, Message
from glassformer.text.tokenizers import Tokenizer


def chat_format_of(config: dict, run: str | Path) -> str:
    """The chat format a run was post-trained with; a run that was not is refused, naming the fix."""
    post = config.get("post")
    name = post.get("format") if isinstance(post, dict) else None
    if name not in CHAT_FORMATS:
        raise UsageError(
            "talk.not_chat",
            "{run} was not post-trained, so it has no chat template and "
            "no end-of-turn token: make a chat run first with "
            "`glassformer sft {run} --data FILE.jsonl` (or --data "
            "builtin:arithmetic), then chat with that run.",
            run=run,
        )
    return name


@dataclass(frozen=True)
class Turn:
    """One answer: its text, the prompt it was written after, and how many earlier turns were dropped."""

    answer: str
    prompt: str
    dropped: int


class ChatSession:
    """The history of one conversation and how to answer its next user message."""

    def __init__(
        self,
        model: nn.Module,
        tokenizer: Tokenizer,
        chat_format: str,
        system: str | None = None,
        max_new_tokens: int = 64,
        **sampling,
    ) -> None:
        self.model, self.tokenizer, self.max_new_tokens, self.sampling = model, tokenizer, max_new_tokens, sampling
        self.template: ChatTemplate = CHAT_FORMATS[chat_format].template()
        self.end = END_OF_TURN[chat_format]
        self.system: list[Message] = [{"role": "system", "content": system}] if system else []
        self.history: list[Message] = []

    def reset(self) -> None:
        self.history = []

    def fit(self, turns: list[Message]) -> tuple[str, int]:
        """The prompt of ``turns`` (oldest first, ending with a user message) and how many of the oldest
        turns were dropped so that it and ``max_new_tokens`` fit ``max_len``."""
        max_len = self.model.cfg.max_len
        dropped = 0
        while True:
            prompt = self.template.render(self.system + turns[dropped:], add_generation_prompt=True)
            if len(self.tokenizer.encode(prompt)) + self.max_new_tokens <= max_len:
                return prompt, dropped
            if len(turns) - dropped <= 1:  # the user's message alone is too long
                raise UsageError(
                    "talk.too_long",
                    "this message makes a prompt of {n} tokens, and with "
                    "--max-new-tokens={max_new_tokens} it does not fit the "
                    "model's max_len={max_len}: write a shorter message or lower "
                    "--max-new-tokens.",
                    n=len(self.tokenizer.encode(prompt)),
                    max_len=max_len,
                    max_new_tokens=self.max_new_tokens,
                )
            dropped += 2  # a user turn and the assistant's answer to it

    def ask(self, text: str, on_text: Callable[[int, str], None] | None = None) -> Turn:
        """Answer the user's ``text``, streaming each certain piece to ``on_text``; the history keeps the
        turn (and loses the turns dropped to fit). An empty answer is kept out of the history with its
        question: a conversation's assistant turns are never empty (chat.py checks)."""
        from glassformer.sample import sample

        turns = [*self.history, {"role": "user", "content": text}]
        prompt, dropped = self.fit(turns)
        answer = sample(
            self.model,
            self.tokenizer,
            prompt,
            self.max_new_tokens,
            stop=self.end,
            on_text=on_text,
            **self.sampling,
        )[0]
        self.history = (
            turns[dropped:] + [{"role": "assistant", "content": answer}] if answer.strip() else turns[dropped:-1]
        )
        return Turn(answer, prompt, dropped)
