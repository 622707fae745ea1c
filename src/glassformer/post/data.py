"""What each post-training stage reads, from a file or made here: conversations (SFT), preference
pairs (DPO) and prompts with a checkable answer (GRPO).

    SFT    {"messages": [{"role": "user", ...}, {"role": "assistant", ...}]}           chat.py
    DPO    {"prompt": [...messages ending with a user turn...],
            "chosen": [{"role": "assistant", "content": "5"}], "rejected": [...]}     TRL's
                                                                                       conversational
                                                                                       preference format
    GRPO   {"prompt": [...messages ending with a user turn...], "answer": "5"}

one JSON object a line. ``load`` reads any of them from a file, or makes ``builtin:arithmetic``:
two-digit additions (grpo.py's ``addition_prompts``, so every stage asks the same kind of question),
answered right in SFT, right against wrong in DPO, to be answered in GRPO. Nothing is downloaded.
``arithmetic_text`` is a plain text of the same sums, to pretrain a small base model on (its
character vocabulary then holds every character a chat of them writes).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any

from glassformer.errors import DamagedFile, UsageError
from glassformer.files import json_text, write_text_atomic
from glassformer.post.chat import Message, check_conversation, json_lines, read_conversations
from glassformer.post.grpo import addition_prompts

BUILTIN = "builtin:arithmetic"
BUILTIN_SIZE = 512  # sums made for builtin:arithmetic: enough that a few hundred steps rarely repeat a batch
BUILTIN_SEED = 0
PREFERENCE_LINE = (
    '{"prompt": [{"role": "user", "content": "2+3="}], "chosen": [{"role": "assistant", "content": "5"}], '
    '"rejected": [{"role": "assistant", "content": "6"}]}'
)
PROMPT_LINE = '{"prompt": [{"role": "user", "content": "2+3="}], "answer": "5"}'


@dataclass(frozen=True)
class Preference:
    """A prompt (a conversation ending with the user) and two answers, the first preferred."""

    prompt: list[Message]
    chosen: str
    rejected: str

    def conversations(self) -> tuple[list[Message], list[Message]]:
        """The prompt followed by the chosen answer, and by the rejected one."""
        return (
            [*self.prompt, {"role": "assistant", "content": self.chosen}],
            [*self.prompt, {"role": "assistant", "content": self.rejected}],
        )


@dataclass(frozen=True)
class Question:
    """A prompt (a conversation ending with the user) and the answer a reward checks."""

    prompt: list[Message]
    answer: str


# ---- made here: two-digit additions ------------------------------------------------------------------------------
def arithmetic_chats(n: int = BUILTIN_SIZE, seed: int = BUILTIN_SEED) -> list[list[Message]]:
    """``n`` conversations: the user writes a sum ("37+45="), the assistant its value ("82")."""
    return [[_user(q), {"role": "assistant", "content": a}] for q, a in addition_prompts(n, seed)]


def arithmetic_preferences(n: int = BUILTIN_SIZE, seed: int = BUILTIN_SEED) -> list[Preference]:
    """``n`` pairs: the right value preferred to one that is off by 1 to 9, above it for some sums and
    below it for the others (``off_by``)."""
    return [Preference([_user(q)], a, off_by(int(a))) for q, a in addition_prompts(n, seed)]


def off_by(value: int) -> str:
    """A wrong answer for ``value``: 1 to 9 away, above or below, both drawn from the value. Wrong
    answers always above the right ones would let DPO win by a shortcut, answering lower whatever the
    sum: the post-training lesson measured it (a 100% reward accuracy, every greedy answer too low)."""
    off = 1 + value % 9
    return str(value + off if (value // 9) % 2 else value - off)


def arithmetic_questions(n: int = BUILTIN_SIZE, seed: int = BUILTIN_SEED) -> list[Question]:
    """``n`` sums to be answered, each with its value."""
    return [Question([_user(q)], a) for q, a in addition_prompts(n, seed)]


def arithmetic_text(n: int = BUILTIN_SIZE, seed: int = BUILTIN_SEED) -> str:
    """A text to pretrain a base model on: the role names a chat template writes, then ``n`` sums with
    their values, one a line (the sums of a seed other than the chats' are another set of questions)."""
    return "system user assistant\n" + "".join(f"{q}{a}\n" for q, a in addition_prompts(n, seed))


def _user(content: str) -> Message:
    return {"role": "user", "content": content}


# ---- read from a file --------------------------------------------------------------------------------------------
MAKERS: dict[str, Any] = {"sft": arithmetic_chats, "dpo": arithmetic_preferences, "grpo": arithmetic_questions}


def load(method: str, source: str) -> tuple[list[Any], dict[str, str]]:
    """The examples of ``method`` ("sft", "dpo" or "grpo") from ``source`` (a JSON Lines file, or
    builtin:arithmetic), and the source's identity for config.json (a file's sha256)."""
    if source == BUILTIN:
        return MAKERS[method](), {"data": BUILTIN}
    if not os.path.isfile(source):
        raise UsageError(
            "post.no_data",
            "{path} is not a file: give a JSON Lines file of examples, or {builtin}.",
            path=source,
            builtin=BUILTIN,
        )
    identity = {"data": os.path.abspath(source), "data_sha256": file_sha256(source)}
    if method == "sft":
        return read_conversations(source, need_assistant=True), identity
    if method == "dpo":
        return [_preference(source, n, d) for n, d in json_lines(source, "prompt", PREFERENCE_LINE)], identity
    return [_question(source, n, d) for n, d in json_lines(source, "prompt", PROMPT_LINE)], identity


def write_preferences(path: str | os.PathLike, pairs: list[Preference]) -> None:
    """Write pairs as JSON Lines in the form ``load`` reads (TRL's conversational preference format),
    atomically: a failure leaves any earlier file whole."""
    lines = [
        json_text(
            {
                "prompt": check_conversation(p.prompt),
                "chosen": [{"role": "assistant", "content": p.chosen}],
                "rejected": [{"role": "assistant", "content": p.rejected}],
            },
            ensure_ascii=False,
        )
        for p in pairs
    ]
    write_text_atomic(path, "".join(line + "\n" for line in lines))


def file_sha256(path: str | os.PathLike) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _prompt(path: str, number: int, messages: Any) -> list[Message]:
    """A prompt: a well-formed conversation whose last turn is the user's (the answer comes next)."""
    try:
        prompt = check_conversation(messages)
    except UsageError as e:
        raise DamagedFile("chat.line", "{path}, line {line}: {detail}", path=path, line=number, detail=e) from None
    if prompt[-1]["role"] != "user":
        raise DamagedFile(
            "post.prompt_end",
            "{path}, line {line}: the prompt ends with a {role} turn; it "
            "must end with the user's turn, which the answer follows.",
            path=path,
            line=number,
            role=prompt[-1]["role"],
        )
    return prompt


def _answer(path: str, number: int, data: dict, key: str) -> str:
    """The content of a one-message assistant list (TRL's form), or a plain string."""
    value = data.get(key)
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        if value[0].get("role") == "assistant":
            value = value[0].get("content")
    if not isinstance(value, str) or not value.strip():
        raise DamagedFile(
            "post.answer",
            "{path}, line {line}: {key} must be a non-empty string or a "
            "list of one assistant message; write it like {example}",
            path=path,
            line=number,
            key=key,
            example=PREFERENCE_LINE,
        )
    return value


def _preference(path: str, number: int, data: dict) -> Preference:
    prompt = _prompt(path, number, data["prompt"])
    return Preference(prompt, _answer(path, number, data, "chosen"), _answer(path, number, data, "rejected"))


def _question(path: str, number: int, data: dict) -> Question:
    answer = data.get("answer")
    if not isinstance(answer, str) or not answer.strip():
        raise DamagedFile(
            "post.answer",
            "{path}, line {line}: {key} must be a non-empty string or a "
            "list of one assistant message; write it like {example}",
            path=path,
            line=number,
            key="answer",
            example=PROMPT_LINE,
        )
    return Question(_prompt(path, number, data["prompt"]), answer)
