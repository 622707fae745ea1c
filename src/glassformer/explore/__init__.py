"""The local web explorer: type text, watch your own model think (`glassformer explore`).

structure.py   what to show, read from the model's hook declarations (never by name), and the
               logit lens and the stream's norms at its stream points
explorer.py    Explorer: one model fixed at start; analyze / attention / vectors / next / generate,
               and the causal panel: patching, patch_cell
requests.py    what a request may say (limits, types); every refusal a RequestError (4xx, a
               catalogue key error.explore.* and its fields)
render.py      tensors -> rounded JSON, only what a panel draws
generation.py  the next token: its bars, shaped as sampling shapes them, and step-by-step
               generation with a KV cache kept between clicks
app.py         the Starlette app: JSON API + the static page (static/), nothing from the network;
               the page's words come from the one catalogue (explore.page.*) via GET /api/words
serve.py       which model (a run, the latest run, or a preset), then uvicorn on 127.0.0.1
"""

from glassformer.explore.explorer import Explorer
from glassformer.explore.requests import LIMITS, Limits, RequestError

__all__ = ["Explorer", "LIMITS", "Limits", "RequestError"]
