"""The local web explorer: type text, watch your own model think (`glassformer explore`).

explorer.py    Explorer: one model fixed at start; analyze / attention / vectors / next / generate
               (generation sessions: a KV cache kept between clicks), and the causal panel:
               patching, patch_cell
panels.py      what the panels show and the JSON they draw: what to show, read from the model's hook
               declarations (never by name), the logit lens and the stream's norms at its stream
               points, the next-token bars, tensors -> rounded JSON
repeats.py     why a model repeats itself (`glassformer repeats`): the loop greedy decoding falls into,
               the heads that copy it, the logit lens there (panels.readout), those heads zeroed
conversation.py the chat tab: a turn of post/talk.py's ChatSession (the run's chat template, the
               history kept per page session), the conversation rendered and encoded by post/chat.py
diffview.py    `explore BASE --against TUNED`: post/diff.py's views of what tuning changed
requests.py    what a request may say (limits, types); every refusal a RequestError (4xx, a
               catalogue key error.explore.* and its fields)
server.py      which model (a run, the latest run, or a preset), the Starlette app (JSON API + the
               static page, static/, nothing from the network; the page's words come from the one
               catalogue, server.PAGE_WORDS, via GET /api/words), then uvicorn on 127.0.0.1
"""

from glassformer.explore.explorer import Explorer
from glassformer.explore.requests import LIMITS, Limits, RequestError

__all__ = ["Explorer", "LIMITS", "Limits", "RequestError"]
