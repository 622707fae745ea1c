"""How fast does the explorer answer? Every request the page makes, on the `baby` model, timed as
a browser sees it (a real server on 127.0.0.1, one kept-alive connection, TCP_NODELAY as browsers
set it), beside a plain forward pass of the same input, so the figure is also a ratio that other
load on the machine moves less.

    python bench/explore.py                       # baby, random weights, 65-character vocabulary
    python bench/explore.py runs/baby-...         # a trained run instead (same shape)
    python bench/explore.py --rounds 50 --threads 1

Targets (docs/explore.md): a 64-token input answers everything a view needs (`analyze`) in
<= 150 ms, and one generation step (`generate`, n=1, the KV cache resumed) in <= 20 ms, on the
2-core development CPU. Rounds are interleaved (each round runs every request once, then the
plain forward), and medians are printed with the fastest run. One torch thread by default, as
`glassformer explore` runs. Not a test.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import string
import time
from dataclasses import replace

import torch

from glassformer.config import get_preset
from glassformer.devices import using_threads
from glassformer.explore import Explorer
from glassformer.explore.server import Background, open_run
from glassformer.files import json_text
from glassformer.models import build_model
from glassformer.text import CharTokenizer

TARGETS_MS = {"analyze": 150, "generate": 20}


def baby_explorer() -> Explorer:
    """baby with random weights and a 65-character vocabulary: Shakespeare's size, so the head and
    the logit lens cost what they cost on the trained run."""
    tokenizer = CharTokenizer.from_text(string.ascii_letters + " \n!$&',-.3:;?")
    torch.manual_seed(0)
    cfg = replace(get_preset("baby").model, vocab_size=tokenizer.vocab_size)
    return Explorer(build_model(cfg), tokenizer, "baby, random weights")


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", nargs="?", help="a run directory (default: baby with random weights)")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    ex = open_run(args.run) if args.run else baby_explorer()
    with Background(ex) as url:
        port = int(url.rstrip("/").rpartition(":")[2])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.connect()
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        measure(ex, conn, args)


def measure(ex: Explorer, conn: http.client.HTTPConnection, args) -> None:
    T = ex.model.cfg.max_len
    ids = [i % ex.model.cfg.vocab_size for i in range(7, 7 + 3 * T, 3)][:T]  # (T,) a fixed input
    x = torch.tensor([ids])  # (1, T)

    def post(endpoint: str, body: dict) -> dict:
        conn.request("POST", f"/api/{endpoint}", json_text(body).encode(), {"Content-Type": "application/json"})
        r = conn.getresponse()
        data = r.read()
        assert r.status == 200, data
        return json.loads(data)

    session = {}

    def restart() -> None:  # a fresh session on the first half of the input (cache prefilled)
        r = post("generate", {"ids": ids[: T // 2], "n": 1})
        session.update(ids=r["ids"], key=r["session"])

    def step() -> None:  # one token after the last, the cache kept from the step before
        r = post("generate", {"ids": session["ids"], "session": session["key"], "n": 1, "seed": 0})
        assert r["resumed"]
        session.update(ids=r["ids"], key=r["session"])

    lengths = iter(range(10**9))

    def trace_cold() -> None:  # a length not seen before: the trace forward runs
        ex.traces.clear()
        post("trace", {"ids": ids, "lang": "zh" if next(lengths) % 2 else "en"})

    requests = {
        "analyze": lambda: post("analyze", {"ids": ids}),
        "trace (new length)": trace_cold,
        "trace (seen length)": lambda: post("trace", {"ids": ids}),
        "attention": lambda: post("attention", {"ids": ids, "layer": 2, "head": 1}),
        "attention+grid": lambda: post("attention", {"ids": ids, "stage": "scores", "grid": True}),
        "vectors": lambda: post("vectors", {"ids": ids, "layer": 1, "head": 3, "token": 10}),
        "next": lambda: post("next", {"ids": ids, "temperature": 0.7, "top_k": 20}),
        "analyze, 2 heads zeroed": lambda: post("analyze", {"ids": ids, "ablate": [[0, 1], [2, 3]]}),
        "generate": step,
    }
    with using_threads(args.threads), torch.no_grad():
        restart()
        for fn in requests.values():  # warm up
            fn()
        times = {name: [] for name in [*requests, "forward (T tokens)", "forward (1 token, cached)"]}
        for _ in range(args.rounds):
            if len(session["ids"]) >= T - 1:  # never time the refill of a full window (untimed restart)
                restart()
            for name, fn in requests.items():
                times[name].append(timed(fn))
            times["forward (T tokens)"].append(timed(lambda: ex.model(x)))
            cache = ex.model.new_cache(1)
            ex.model(x[:, : T // 2], cache=cache)
            times["forward (1 token, cached)"].append(
                timed(lambda cache=cache: ex.model(x[:, T // 2 : T // 2 + 1], cache=cache))
            )
    size = len(json_text(post("analyze", {"ids": ids})))
    fwd = statistics.median(times["forward (T tokens)"])
    step_fwd = statistics.median(times["forward (1 token, cached)"])
    print(
        f"# {ex.source}; T = {T} tokens; {args.rounds} rounds; {args.threads} thread(s); "
        f"analyze answer {size / 1024:.0f} KiB of JSON"
    )
    print(f"{'request':<28}{'median ms':>10}{'fastest ms':>11}{'/ forward':>10}  target")
    for name, ts in times.items():
        med = statistics.median(ts)
        base = step_fwd if name == "generate" else fwd
        target = TARGETS_MS.get(name)
        verdict = "" if target is None else f"<= {target} ms: {'met' if med * 1000 <= target else 'MISSED'}"
        ratio = "" if name.startswith("forward") else f"{med / base:>9.1f}x"
        print(f"{name:<28}{med * 1000:>10.1f}{min(ts) * 1000:>11.1f}{ratio:>10}  {verdict}")
    print(
        "(/ forward: analyze and the views against one plain forward of T tokens; generate against one "
        "cached single-token forward)"
    )


if __name__ == "__main__":
    main()
