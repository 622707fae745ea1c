"""Byte-level BPE encoders on the Shakespeare corpus: ours (Python) vs the Hugging Face library.

    python bench/bpe.py [--vocab-size 512] [--reps 3] [--cache-dir DIR]

Learns merges once with our trainer, then encodes the whole corpus (5.06M characters) with:

    ours                  BPETokenizer.encode_array: the readable algorithm, piece by piece
    hf, as shipped        HFBPETokenizer.encode_array: each distinct piece once through the library's
                          BPE model (model.tokenize), gathered
    hf, library alone     the library's own pipeline (its Split regex, byte-level, BPE), one batch of
                          ~64K-character parts cut at safe cuts, on all cores (encode_batch_fast)
    hf, pipeline, distinct  the distinct pieces through the library's whole pipeline in one batch
                          (what the shipped encoder did first; shows what the pipeline costs per call)
    ours, distinct pieces our encoder with the same distinct-piece trick (not shipped; it shows how much
                          of the shipped gain is the trick rather than the library)

Then the two pre-tokenizers alone (the same pieces): Python's re on our pattern, and the library's
Split + byte-level step as its pipeline runs them. Each is run --reps times in this one process,
each time with a freshly built tokenizer (the library
keeps a cache of recent words); the median is reported and the ratio is ours / that. All of them must
return identical ids, or the benchmark stops. The goal in issue 14 is the shipped hf >= 20x ours.
"""

import argparse
import statistics
import time
from itertools import chain

import numpy as np

from glassformer.text import BPETokenizer, HFBPETokenizer, load_text
from glassformer.text.bpe import pretokenize

PART_CHARS = 1 << 16
GOAL = 20.0


def library_alone(tok: HFBPETokenizer, text: str) -> np.ndarray:
    """The library's whole pipeline on parts of the text cut at safe cuts (so the ids do not change)."""
    parts, start = [], 0
    while start < len(text):
        end = start + PART_CHARS
        cut = tok.safe_cut(text[start:end]) if end < len(text) else 0
        parts.append(text[start : start + (cut or PART_CHARS)])
        start += cut or PART_CHARS
    batch = tok.hf.encode_batch_fast(parts, add_special_tokens=False)
    return np.fromiter(chain.from_iterable(e.ids for e in batch), dtype=np.int64)  # (N,)


def pipeline_distinct(tok: HFBPETokenizer, text: str) -> np.ndarray:
    """Each distinct piece once, through the library's whole pipeline (encode_batch_fast), gathered."""
    pieces = pretokenize(text)
    distinct = list(dict.fromkeys(pieces))
    encoded = tok.hf.encode_batch_fast(distinct, add_special_tokens=False)
    ids_of = dict(zip(distinct, (e.ids for e in encoded), strict=False))
    return np.fromiter(chain.from_iterable(map(ids_of.__getitem__, pieces)), dtype=np.int64)  # (N,)


def ours_distinct(tok: BPETokenizer, text: str) -> np.ndarray:
    """Our merge loop, run once per distinct piece, gathered like the shipped hf path."""
    pieces = pretokenize(text)
    ids_of = {p: tok._merge_piece(list(p.encode("utf-8"))) for p in dict.fromkeys(pieces)}
    return np.fromiter(chain.from_iterable(map(ids_of.__getitem__, pieces)), dtype=np.int64)  # (N,)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vocab-size", type=int, default=512)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cache-dir", help="where the Shakespeare text is cached (default: glassformer's cache)")
    args = ap.parse_args()
    text = load_text("shakespeare", args.cache_dir)
    t0 = time.perf_counter()
    merges = BPETokenizer.from_text(text, args.vocab_size).merges
    print(
        f"corpus      shakespeare, {len(text):,} chars; {len(pretokenize(text)):,} pieces, "
        f"{len(set(pretokenize(text))):,} distinct"
    )
    print(f"train       vocab_size {args.vocab_size} with our trainer: {time.perf_counter() - t0:.1f} s")

    contenders = {
        "ours": lambda: BPETokenizer(merges).encode_array(text),
        "hf, as shipped": lambda: HFBPETokenizer(merges).encode_array(text),
        "hf, library alone": lambda: library_alone(HFBPETokenizer(merges), text),
        "hf, pipeline, distinct": lambda: pipeline_distinct(HFBPETokenizer(merges), text),
        "ours, distinct pieces": lambda: ours_distinct(BPETokenizer(merges), text),
    }
    medians, reference = {}, None
    for name, encode in contenders.items():
        times = []
        for _ in range(args.reps):
            start = time.perf_counter()
            ids = encode()
            times.append(time.perf_counter() - start)
        if reference is None:
            reference = ids
        elif not np.array_equal(ids, reference):
            raise SystemExit(f"{name} returned different ids from ours: the benchmark is void")
        medians[name] = statistics.median(times)
        print(
            f"{name:22s} median {medians[name]:6.2f} s  ({', '.join(f'{t:.2f}' for t in times)})  "
            f"{len(text) / medians[name] / 1e6:5.2f} M chars/s  {medians['ours'] / medians[name]:5.1f}x ours"
        )
    print(f"tokens      {len(reference):,} (identical from all)")
    split = HFBPETokenizer(merges).hf.pre_tokenizer
    for name, cut in {
        "pre-tokenize, ours (re)": lambda: pretokenize(text),
        "pre-tokenize, library": lambda: split.pre_tokenize_str(text),
    }.items():
        times = []
        for _ in range(args.reps):
            start = time.perf_counter()
            pieces = cut()
            times.append(time.perf_counter() - start)
        print(
            f"{name:22s} median {statistics.median(times):6.2f} s  ({len(pieces):,} pieces; part of the "
            f"encoders' time, shown alone)"
        )
    ratio = medians["ours"] / medians["hf, as shipped"]
    print(f"goal        hf as shipped >= {GOAL:.0f}x ours: {'met' if ratio >= GOAL else 'NOT met'} ({ratio:.1f}x)")


if __name__ == "__main__":
    main()
