"""Conversations and chat templates: what an assistant's training text looks like, and which of its
tokens the assistant says.

**A conversation** is a list of messages ``{"role": ..., "content": ...}``: an optional ``system``
message, then ``user`` and ``assistant`` turns in turn, starting with the user (the "conversational"
format of Hugging Face datasets and TRL). A conversation file is JSON Lines, one conversation a line:
``{"messages": [...]}``. ``read_conversations`` names the line of any mistake.

**A chat template** turns a conversation into the one string the model reads. Templates are Jinja
programs (the ``chat_template`` of a Hugging Face tokenizer); ``ChatTemplate`` renders one the way
``transformers``' ``apply_chat_template`` does (``utils/chat_template_utils.py``): Jinja's sandbox
(``ImmutableSandboxedEnvironment``, so a template cannot reach Python's internals), ``trim_blocks``
and ``lstrip_blocks`` on, the ``loopcontrols`` extension, ``raise_exception``, ``strftime_now`` and a
``tojson`` that keeps non-ASCII text; the variables are ``messages``, ``add_generation_prompt`` and
the tokenizer's special tokens (``bos_token`` ...). Two small templates are built in, in the two
families' shapes (``tests/post/test_chat.py`` renders them, and TRL's copies of the real Qwen3 and
Llama-3 templates, byte for byte as transformers does):

    chatml  (Qwen)     <|im_start|>user\\nHi<|im_end|>\\n<|im_start|>assistant\\nHello<|im_end|>\\n
    llama3             <|begin_of_text|><|start_header_id|>user<|end_header_id|>\\n\\nHi<|eot_id|>...

With ``add_generation_prompt`` the string ends with the header of an assistant turn, which is where a
chat asks the model to go on.

**The assistant's tokens.** Supervised fine-tuning learns only what the assistant says (sft.py). A
template marks it with ``{% generation %} ... {% endgeneration %}`` (transformers' convention for
``return_assistant_tokens_mask``): rendering records each such block's character span. ``encode_chat``
cuts the text at those spans' edges, encodes each stretch with a tokenizer that knows the template's
control tokens as special tokens (text/specials.py), and marks the ids that came from inside a span.
Cutting there changes no id when an edge is a boundary the tokenizer would cut at anyway (after a
special token or a newline, as in both built-in templates; the tests check the ids equal the whole
text's); transformers instead encodes the whole text and marks every token that overlaps a span.
"""

from __future__ import annotations

import json
import os
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

from glassformer.errors import DamagedFile, UsageError
from glassformer.files import json_text, read_text, write_text_atomic
from glassformer.text.specials import SpecialTokens, with_specials
from glassformer.text.tokenizers import Tokenizer

ROLES = ("system", "user", "assistant")
EXAMPLE_LINE = '{"messages": [{"role": "user", "content": "2+3="}, {"role": "assistant", "content": "5"}]}'

Message = dict[str, str]


# ---- 1. conversations ------------------------------------------------------------------------------------------------
def check_conversation(messages: Any, need_assistant: bool = False) -> list[Message]:
    """``messages`` if it is a well-formed conversation, else UsageError naming the first bad message
    (by its index from 0): a role that is not one of ROLES, content that is not a string, turns out
    of order, an empty assistant turn; with ``need_assistant``, a conversation with no assistant turn."""
    if not isinstance(messages, list):
        raise UsageError(
            "chat.not_list",
            "a conversation is a list of messages, each with a role and a content; got {found}.",
            found=type(messages).__name__,
        )
    if not messages:
        raise UsageError(
            "chat.empty", "the conversation has no messages; write at least a user turn and the assistant's answer."
        )
    start = 1 if isinstance(messages[0], dict) and messages[0].get("role") == "system" else 0
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or "role" not in message:
            raise UsageError(
                "chat.message",
                "message {index} is not an object with a role and a content (got {found}).",
                index=i,
                found=repr(message)[:60],
            )
        role = message["role"]
        if role not in ROLES:
            raise UsageError(
                "chat.role",
                "message {index} has role {role!r}; a role is one of {roles}.",
                index=i,
                role=role,
                roles=", ".join(ROLES),
            )
        if not isinstance(message.get("content"), str):
            raise UsageError(
                "chat.content",
                "message {index} ({role}) has no text: its content must be a string.",
                index=i,
                role=role,
            )
        expected = "user" if (i - start) % 2 == 0 else "assistant"  # the system message only at index 0
        if i >= start and role != expected:
            raise UsageError(
                "chat.order",
                "message {index} is from the {role} where the {expected} was "
                "expected: a conversation is an optional system message "
                "first, then user and assistant turns in turn, starting with "
                "the user.",
                index=i,
                role=role,
                expected=expected,
            )
        if role == "assistant" and not message["content"].strip():
            raise UsageError(
                "chat.empty_assistant",
                "message {index} is an empty assistant turn: it is what the "
                "model learns to say; write its answer or drop the turn.",
                index=i,
            )
    if need_assistant and not any(m["role"] == "assistant" for m in messages):
        raise UsageError(
            "chat.no_assistant",
            "the conversation has no assistant turn, so supervised "
            "fine-tuning has nothing to learn from it; add the answer "
            "the model should give.",
        )
    return messages


def read_conversations(path: str | os.PathLike, need_assistant: bool = False) -> list[list[Message]]:
    """Every conversation of a JSON Lines file, one ``{"messages": [...]}`` a line (blank lines skipped).
    A line that is not JSON, not such an object, or not a well-formed conversation is a DamagedFile
    naming the file and the line (counted from 1)."""
    conversations = []
    for number, data in json_lines(path, "messages", EXAMPLE_LINE):
        try:
            conversations.append(check_conversation(data["messages"], need_assistant))
        except UsageError as e:
            raise DamagedFile("chat.line", "{path}, line {line}: {detail}", path=path, line=number, detail=e) from None
    return conversations


def json_lines(path: str | os.PathLike, key: str, example: str) -> list[tuple[int, dict]]:
    """(line number, object) of every non-blank line of a JSON Lines file, each an object holding
    `key`; a line that is not, or a file with none, is a DamagedFile naming the file and the line
    (counted from 1) beside an example line. Conversations, preference pairs and prompts read it."""
    out = []
    for number, line in enumerate(read_text(path, example).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as e:
            raise DamagedFile(
                "chat.line_json",
                "{path}, line {line}: not JSON ({reason}, column {column}). "
                "Each line of a conversation file is one JSON object, like "
                "{example}",
                path=path,
                line=number,
                reason=e.msg,
                column=e.colno,
                example=example,
            ) from None
        if not isinstance(data, dict) or key not in data:
            raise DamagedFile(
                "chat.line_shape",
                "{path}, line {line}: a line holds one object with a "
                "messages list, got {found}. Write it like {example}",
                path=path,
                line=number,
                found=repr(data)[:60],
                example=example,
            )
        out.append((number, data))
    if not out:
        raise DamagedFile(
            "chat.no_lines",
            "{path} holds no conversation; write one JSON object per line, like {example}",
            path=path,
            example=example,
        )
    return out


def write_conversations(path: str | os.PathLike, conversations: list[list[Message]]) -> None:
    """Write conversations as JSON Lines (UTF-8, non-ASCII kept readable), atomically: a failure
    leaves any earlier file whole. Each is checked first, so the file always reads back."""
    lines = [json_text({"messages": check_conversation(c)}, ensure_ascii=False) for c in conversations]
    write_text_atomic(path, "".join(line + "\n" for line in lines))


# ---- 2. chat templates --------------------------------------------------------------------------------------------
# The render in progress: the blocks yielded so far and the spans of the {% generation %} blocks.
_RENDERING: ContextVar[tuple[list[str], list[tuple[int, int]]] | None] = ContextVar("chat_rendering", default=None)


class GenerationSpans(jinja2.ext.Extension):
    """``{% generation %} body {% endgeneration %}`` renders ``body`` unchanged and, during
    ``render_spans``, records where it landed: the length of everything rendered before it, and after."""

    tags = {"generation"}

    def parse(self, parser: jinja2.parser.Parser) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_record", []), [], [], body).set_lineno(lineno)

    def _record(self, caller: Any) -> str:
        body = caller()
        rendering = _RENDERING.get()
        if rendering is not None:
            blocks, spans = rendering
            start = sum(len(b) for b in blocks)  # the generator has yielded everything before this block
            spans.append((start, start + len(body)))
        return body


def _raise_exception(message: str) -> None:
    raise jinja2.exceptions.TemplateError(message)


def _tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None, sort_keys: bool = False):
    """Jinja's own tojson escapes <, > and & for HTML; a chat template wants plain JSON (the one
    writer's: transformers' tojson, except that a NaN is null rather than a bare NaN)."""
    return json_text(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _environment() -> jinja2.Environment:
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[GenerationSpans, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    return env


class ChatTemplate:
    """A Jinja chat template, compiled once; ``variables`` are passed to every render (the special
    tokens a template reads, such as ``bos_token``), a render's own keywords win over them."""

    def __init__(self, source: str, **variables: Any) -> None:
        self.source, self.variables = source, variables
        try:
            self._template = _environment().from_string(source)
        except jinja2.TemplateSyntaxError as e:
            raise UsageError(
                "chat.template_syntax",
                "the chat template does not parse at its line {line}: {detail}. Fix the Jinja source.",
                line=e.lineno,
                detail=e.message,
            ) from None

    def render(self, messages: list[Message], add_generation_prompt: bool = False, **variables: Any) -> str:
        """The conversation as the one string the model reads."""
        return self.render_spans(messages, add_generation_prompt, **variables)[0]

    def render_spans(
        self, messages: list[Message], add_generation_prompt: bool = False, **variables: Any
    ) -> tuple[str, list[tuple[int, int]]]:
        """The string and the (start, end) character spans of its ``{% generation %}`` blocks."""
        blocks: list[str] = []
        spans: list[tuple[int, int]] = []
        context = {**self.variables, **variables}
        plain = json.loads(json.dumps(messages))  # the template sees plain data, a copy: never the caller's
        token = _RENDERING.set((blocks, spans))
        try:
            for block in self._template.generate(
                messages=plain, add_generation_prompt=add_generation_prompt, **context
            ):
                blocks.append(block)
        except jinja2.TemplateError as e:  # raise_exception, an undefined name, the sandbox refusing
            raise UsageError(
                "chat.template", "the chat template stopped while rendering: {detail}.", detail=e
            ) from None
        finally:
            _RENDERING.reset(token)
        return "".join(blocks), spans


@dataclass(frozen=True)
class ChatFormat:
    """A named template with the control tokens it writes (to add to a tokenizer as special tokens) and
    the variables it reads."""

    name: str
    source: str
    specials: tuple[str, ...]
    variables: dict[str, str] = field(default_factory=dict)

    def template(self) -> ChatTemplate:
        return ChatTemplate(self.source, **self.variables)


# Qwen's shape (ChatML): each turn between <|im_start|>role\n and <|im_end|>\n. The assistant's span is
# its words and the <|im_end|> that ends them (the model must learn to stop), not the header or the \n.
CHATML = ChatFormat(
    "chatml",
    "{%- for message in messages %}\n"
    "{%- if message.role == 'assistant' %}\n"
    "{{- '<|im_start|>assistant\\n' }}\n"
    "{%- generation %}{{- message.content + '<|im_end|>' }}{%- endgeneration %}\n"
    "{{- '\\n' }}\n"
    "{%- else %}\n"
    "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}\n"
    "{%- endif %}\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}\n",
    ("<|im_start|>", "<|im_end|>"),
)

# Llama 3's shape: <|begin_of_text|> once, then <|start_header_id|>role<|end_header_id|>\n\n, the content
# (trimmed, as Meta's template does) and <|eot_id|>. The assistant's span: its words and <|eot_id|>.
LLAMA3 = ChatFormat(
    "llama3",
    "{{- bos_token }}\n"
    "{%- for message in messages %}\n"
    "{{- '<|start_header_id|>' + message.role + '<|end_header_id|>\\n\\n' }}\n"
    "{%- if message.role == 'assistant' %}\n"
    "{%- generation %}{{- message.content | trim + '<|eot_id|>' }}{%- endgeneration %}\n"
    "{%- else %}\n"
    "{{- message.content | trim + '<|eot_id|>' }}\n"
    "{%- endif %}\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}\n",
    ("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
    {"bos_token": "<|begin_of_text|>"},
)

CHAT_FORMATS = {f.name: f for f in (CHATML, LLAMA3)}
END_OF_TURN = {"chatml": "<|im_end|>", "llama3": "<|eot_id|>"}  # where an assistant's answer ends


def chat_tokenizer(tokenizer: Tokenizer, chat_format: ChatFormat) -> SpecialTokens:
    """``tokenizer`` with the format's control tokens appended as special tokens (old ids unchanged)."""
    return with_specials(tokenizer, chat_format.specials)


# ---- 3. ids and the assistant's mask --------------------------------------------------------------------------------
@dataclass
class EncodedChat:
    """A rendered conversation's ids and, for each id, 1 if the assistant says it (inside a
    ``{% generation %}`` block), else 0. ``text`` is what was encoded."""

    text: str
    ids: list[int]
    assistant_mask: list[int]


def encode_chat(
    tokenizer: Tokenizer,
    template: ChatTemplate,
    messages: list[Message],
    add_generation_prompt: bool = False,
    **variables: Any,
) -> EncodedChat:
    """Render ``messages`` and encode the text stretch by stretch, cut at the edges of the assistant's
    spans, so each id is known to lie inside a span or outside all of them."""
    text, spans = template.render_spans(check_conversation(messages), add_generation_prompt, **variables)
    edges = sorted({0, len(text), *(i for span in spans for i in span)})
    ids: list[int] = []
    mask: list[int] = []
    for start, end in zip(edges, edges[1:], strict=False):
        piece = tokenizer.encode(text[start:end])
        inside = any(a <= start and end <= b for a, b in spans)
        ids += piece
        mask += [int(inside)] * len(piece)
    return EncodedChat(text, ids, mask)
