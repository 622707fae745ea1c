"""The explorer's chat tab: talk with a post-trained run, then open the conversation in every panel.

A turn is `glassformer chat`'s own (post/talk.py's ``ChatSession``: the run's chat template, the history,
the oldest turns dropped to fit, sample.py's ``sample`` until the end-of-turn token), so the page and the
terminal answer alike. Sessions are kept here by a random key, few and bounded (least recently used
dropped first); the Explorer's lock guards them. The answer holds the whole conversation as the run's
template renders it (post/chat.py's ``encode_chat``: its text, its ids, which of them the assistant
said, and where each starts in the text), so the page can hand that text, or its part before any
answer token, to the panels that already read a text: tokens, attention, the logit lens, next tokens,
the shape trace and the causal panel.

    chat          {message, session?, system?, max_new_tokens, seed, temperature, top_k, top_p}
                  -> {session, format, answer, dropped, history, text, tokens: [{id, text, assistant, start}]}
    chat/stream   the same request, the answer streamed as it is written: JSON lines, {"piece": text}
                  for each piece as soon as it is certain (sample's on_text), then {"done": the answer
                  above}; a refusal before the first piece is the usual JSON 4xx, one after it (a bug of
                  ours) a last line {"refused": the refusal}

Refused with 422: an empty message; a run that was not post-trained (no chat template, no end-of-turn
token: its code names the fix, ``glassformer sft``); a message too long for the model's context.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import OrderedDict

import torch
from starlette.responses import StreamingResponse

from glassformer.errors import UsageError
from glassformer.explore.requests import RequestError
from glassformer.messages import N_
from glassformer.post.chat import CHAT_FORMATS, encode_chat
from glassformer.post.talk import ChatSession, chat_format_of
from glassformer.text.specials import SpecialTokens

MAX_CHATS = 16  # conversations kept (each a list of messages: a few KiB)

# the tab's words (server.PAGE_WORDS takes them in)
WORDS = {
    "chat.title": N_("Chat"),
    "chat.help": N_(
        "Talk with the run the way it was tuned: each message is "
        "rendered with its chat template and the model answers until "
        "its end-of-turn token. Click a token of an answer to open "
        "the conversation up to it in every panel (the next-token bars "
        "then show how that token was chosen); “open all” opens the "
        "whole conversation."
    ),
    "chat.send": N_("Send"),
    "chat.new": N_("New conversation"),
    "chat.open": N_("open all"),
    "chat.system_input": N_("system message (optional)"),
    "chat.system": N_("system"),
    "chat.max_new": N_("answer at most (tokens)"),
    "chat.waiting": N_("the model is writing…"),
    "chat.dropped": N_("{n} earlier message(s) dropped to fit the model's context."),
    "chat.user": N_("you"),
    "chat.assistant": N_("model"),
    "chat.opened": N_("Opened in the panels: the conversation up to token {i} ({tok})."),
}


class Chats:
    """Open conversations by key, bounded, oldest dropped first."""

    def __init__(self, limit: int = MAX_CHATS) -> None:
        self.limit = limit
        self.sessions: OrderedDict[str, ChatSession] = OrderedDict()

    def get(self, key: str | None) -> tuple[str, ChatSession] | None:
        found = self.sessions.get(key) if key else None
        if found is None:
            return None
        self.sessions.move_to_end(key)
        return key, found

    def add(self, session: ChatSession) -> str:
        key = secrets.token_hex(8)
        self.sessions[key] = session
        while len(self.sessions) > self.limit:
            self.sessions.popitem(last=False)
        return key


def chat_format(ex) -> str:
    """The explored run's chat format; a run that has none (or a tokenizer without its control tokens)
    is refused with talk.py's own code and sentence, which name the fix."""
    try:
        name = chat_format_of(ex.config, ex.run or ex.source_text("en"))
    except UsageError as e:
        raise RequestError(e.code, e.message, 422, "needs_sft", **e.fields) from None
    specials = CHAT_FORMATS[name].specials
    if not (isinstance(ex.tokenizer, SpecialTokens) and all(tok in ex.tokenizer.ids for tok in specials)):
        raise RequestError(
            "explore.chat.no_specials",
            "{run} names the {format} chat template, but its tokenizer "
            "does not hold the template's control tokens ({tokens}) as "
            "special tokens, so no answer could end: tune it again with "
            "`glassformer sft`.",
            422,
            "needs_sft",
            run=ex.run,
            format=name,
            tokens=" ".join(specials),
        )
    return name


def chat(ex, req: dict, on_text=None) -> dict:
    if not req["message"] or not req["message"].strip():
        raise RequestError(
            "explore.chat.empty", "the message is empty: type what the user says to the model.", 422, "empty"
        )
    name = chat_format(ex)
    found = ex.chats.get(req["session"])
    if found is None:
        session = ChatSession(ex.model, ex.tokenizer, name, system=req["system"] or None)
        found = ex.chats.add(session), session
    key, session = found
    temperature, top_k, top_p, chosen = ex._shape(req)  # the chat's answer follows the page's knobs too
    session.max_new_tokens = req["max_new_tokens"]
    session.sampling = {
        "temperature": temperature,
        "top_k": top_k,
        "top_p": top_p,
        "seed": req["seed"],
        "knobs": chosen,
    }
    try:
        turn = session.ask(req["message"], on_text)
    except UsageError as e:  # talk.too_long: the message does not fit the context with room to answer
        raise RequestError(e.code, e.message, 422, "too_long", **e.fields) from None
    messages = session.system + session.history
    return {"session": key, "format": name, "answer": turn.answer, "dropped": turn.dropped, "history": messages,
            **rendered(ex, session, messages)}  # fmt: skip


def rendered(ex, session: ChatSession, messages: list) -> dict:
    """The conversation as the template renders it (no generation prompt: it ends with the last answer),
    each token with its label, whether the assistant said it, and where it starts in the text."""
    if not any(m["role"] == "user" for m in messages):  # the first answer was empty: nothing is kept
        return {"text": "", "tokens": []}
    encoded = encode_chat(ex.tokenizer, session.template, messages)
    labels = ex.labels(encoded.ids)
    starts = [len(ex.tokenizer.decode(encoded.ids[:i])) for i in range(len(encoded.ids))]
    tokens = [
        {"id": i, "text": label, "assistant": bool(a), "start": s}
        for i, label, a, s in zip(encoded.ids, labels, encoded.assistant_mask, starts, strict=True)
    ]
    return {"text": encoded.text, "tokens": tokens}


async def streamed(explorer, req: dict, line, internal_error) -> StreamingResponse:
    """POST /api/chat/stream's answer (the route is server.py's): the turn computed in a worker thread
    under the Explorer's lock, each event a JSON line (``line(event) -> bytes``) sent while the model
    writes. The first event decides: a refusal before any piece (an empty message, no chat template, a
    message too long) is raised, to be the JSON 4xx every endpoint gives; a bug of ours becomes
    ``internal_error(endpoint, e)``'s 500, logged where it was caught."""
    loop = asyncio.get_running_loop()
    events: asyncio.Queue = asyncio.Queue()

    def put(event: dict) -> None:
        loop.call_soon_threadsafe(events.put_nowait, event)

    def work() -> None:
        try:
            with explorer.lock, torch.no_grad():
                put({"done": chat(explorer, req, lambda i, piece: put({"piece": piece}))})
        except RequestError as e:
            put({"refused": e})
        except Exception as e:  # ours: the same logged 500 the other endpoints give
            put({"refused": internal_error("chat/stream", e)})

    loop.run_in_executor(None, work)
    first = await events.get()
    if "refused" in first:
        raise first["refused"]

    async def lines():
        event = first
        while "refused" not in event:
            yield line(event)
            if "done" in event:
                return
            event = await events.get()
        yield line({"refused": event["refused"]})  # after a piece was sent: the status is out, the line says it

    return StreamingResponse(lines(), media_type="application/x-ndjson", headers={"Cache-Control": "no-store"})
