"""Which model the explorer opens, and the server that shows it.

open_run(path)        a trained run (any kind), via train.run.load_model
latest_run(runs/)     the run whose checkpoint was written last
open_preset(name)     a preset with random weights (token models get a character vocabulary
                      that covers English and common Chinese, unseen characters -> <unk>)
serve(explorer, ...)  uvicorn on 127.0.0.1 until Ctrl-C; another host only when asked
"""

from __future__ import annotations

import socket
import string
import sys
import threading
from dataclasses import replace
from pathlib import Path

import torch

from glassformer.config import apply_overrides, get_preset
from glassformer.errors import NotFound, UsageError
from glassformer.explore.app import LOCAL_HOSTS, create_app
from glassformer.explore.explorer import Explorer
from glassformer.messages import language, say
from glassformer.models import build_model, model_class
from glassformer.text import CharTokenizer
from glassformer.train.checkpoint import MODEL_FILE
from glassformer.train.run import RUNS_DIR, load_model

# A preset's random model needs a vocabulary that lets a reader type: printable ASCII, newline,
# and a few hundred frequent Chinese characters with common punctuation (others become <unk>).
PRESET_CHARS = (
    string.printable[:95]
    + "\n"
    + (
        "的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可里"
        "后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从"
        "动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给"
        "等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入"
        "先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感"
        "金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林"
        "题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往"
        "展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李"
        "息写呢识极令黄德收脸钱党倒未持音注意模型词向量训练字，。！？、：；“”（）《》"
    )
)


def latest_run(runs_dir=RUNS_DIR) -> Path:
    """The run under `runs_dir` whose checkpoint is newest; a clear error when there is none."""
    runs = [p.parent for p in Path(runs_dir).glob(f"*/{MODEL_FILE}") if (p.parent / "config.json").exists()]
    if not runs:
        raise NotFound("explore.no_run", runs_dir=runs_dir, weights=MODEL_FILE)
    return max(runs, key=lambda r: (r / MODEL_FILE).stat().st_mtime)


def open_run(run_dir) -> Explorer:
    """A trained run, named in the page's language; it opens on its own training text when
    config.json keeps an example of it (runs made since issue 27)."""
    model, tokenizer, config = load_model(run_dir)
    if isinstance(config.get("imported"), dict):  # imported GPT-2 files: no preset, say where from
        source = ("explore.source.imported", {"run": str(run_dir), "kind": model.kind})
    else:
        source = ("explore.source.run", {"run": str(run_dir), "kind": model.kind, "preset": config.get("preset", "?")})
    example = config.get("example") if isinstance(config.get("example"), str) else None
    return Explorer(model, tokenizer, source, example=example)


def open_preset(name: str, seed: int = 0, overrides=()) -> Explorer:
    preset = apply_overrides(get_preset(name), list(overrides))
    tokenizer = None
    if model_class(preset.model.kind).inputs == "tokens":
        tokenizer = CharTokenizer.from_text(PRESET_CHARS, unk=True)
        preset.model = replace(preset.model, vocab_size=tokenizer.vocab_size, pad_id=None)
    torch.manual_seed(seed)
    model = build_model(preset.model)
    return Explorer(model, tokenizer, ("explore.source.preset", {"preset": name, "kind": model.kind, "seed": seed}))


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: a free one), or an error that says what to do."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must say TCP: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on connections whose
    # socket says so, and with it on, every answer waited ~40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise UsageError("explore.cannot_listen", host=host, port=port, reason=e.strerror) from None
    sock.listen(64)
    return sock


def check_host(host: str, allow_remote: bool) -> tuple[str, ...] | None:
    """The host names the app answers to (None: any); refuses a non-local host unless allow_remote."""
    if host in LOCAL_HOSTS:
        return LOCAL_HOSTS
    if not allow_remote:
        raise UsageError("explore.remote_host", host=host, local=LOCAL_HOSTS[0])
    return None


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def make_server(explorer: Explorer, hosts):
    import uvicorn  # the server, only when serving

    config = uvicorn.Config(
        create_app(explorer, hosts), log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2
    )
    return uvicorn.Server(config)


def page_address(url: str, lang: str) -> str:
    """The page's address in a language: English is the page's default, any other says ?lang=."""
    return url if lang == "en" else f"{url}?lang={lang}"


def serve(explorer: Explorer, host: str = "127.0.0.1", port: int = 8321, allow_remote: bool = False) -> None:
    """Serve until Ctrl-C (uvicorn finishes the requests in flight, then returns). The address
    printed opens the page in the command's language (`--lang zh` or GLASSFORMER_LANG=zh)."""
    hosts = check_host(host, allow_remote)
    if hosts is None:
        say("explore.open_to_all", file=sys.stderr, host=host)
    sock = bind(host, port)
    server = make_server(explorer, hosts)
    say("explore.serving", source=explorer.source_text(language()), url=page_address(url_of(sock), language()))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    say("explore.stopped")


class Background:
    """The server in a background thread (tests, notebooks): `with Background(ex) as url: ...`."""

    def __init__(self, explorer: Explorer, host: str = "127.0.0.1", port: int = 0) -> None:
        self.sock = bind(host, port)
        self.url = url_of(self.sock)
        self.server = make_server(explorer, check_host(host, allow_remote=False))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        while not self.server.started and self.thread.is_alive():
            threading.Event().wait(0.02)
        return self.url

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()
