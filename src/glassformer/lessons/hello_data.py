"""Lesson 2's data: the tutorial's one sentence, a built-in set of greetings, or the user's lines.

Every source becomes the same thing: a WordTokenizer and a (N, L) tensor of rows
[<BOS>, w1, ..., wn, <EOS>, <PAD>, ...], all padded to one length L. The model then reads
rows[:, :-1] and is trained to predict rows[:, 1:] (the same rows shifted by one).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from glassformer.files import read_text
from glassformer.lessons.published import TUTORIAL_VOCAB
from glassformer.text.tokenizers import WordTokenizer

TUTORIAL_SENTENCE, TUTORIAL_ROWS, TUTORIAL_LENGTH = "hello world", 100, 5  # seed 002, §4.1
MAX_WORDS, MAX_LINES = 24, 5000  # a lesson trains in seconds: longer data belongs to `glassformer train`

# Our own short greetings and replies, so the model has more than one sentence to learn.
GREETINGS = """\
hello world
hello there
hello how are you
hi how are you today
i am fine thank you
i am very well thank you
fine thank you and you
not bad thank you
good morning
good morning to you
good morning how did you sleep
i slept well thank you
good afternoon
good afternoon how is your day
my day is going well
good evening
good evening nice to see you
nice to see you too
good night
good night sleep well
see you tomorrow
see you later
see you soon
thank you very much
you are welcome
no problem at all
how is the weather today
the weather is nice today
it is raining today
what is your name
my name is tom
nice to meet you
nice to meet you too
where are you from
i am from the city
have a nice day
you too
goodbye
bye for now
take care
"""


@dataclass
class WordData:
    name: str
    tokenizer: WordTokenizer
    lines: list[str]
    rows: torch.Tensor  # (N, L) token ids, padded with <PAD>

    @property
    def inputs(self) -> torch.Tensor:
        return self.rows[:, :-1]  # (N, L-1)

    @property
    def targets(self) -> torch.Tensor:
        return self.rows[:, 1:]  # (N, L-1)


def encode_rows(tok: WordTokenizer, lines: list[str], length: int) -> torch.Tensor:
    rows = [tok.pad(tok.encode(line, add_bos=True, add_eos=True), length) for line in lines]
    return torch.tensor(rows, dtype=torch.long)  # (N, L)


def tutorial_data() -> WordData:
    """The tutorial's setup: its own word list, and "hello world" 100 times, padded to 5."""
    specials = len(WordTokenizer.SPECIALS)
    assert TUTORIAL_VOCAB[:specials] == WordTokenizer.SPECIALS, "the tutorial's specials come first"
    tok = WordTokenizer(words=TUTORIAL_VOCAB[specials:])  # a repeated word keeps its first id
    lines = [TUTORIAL_SENTENCE] * TUTORIAL_ROWS
    return WordData("tutorial", tok, lines, encode_rows(tok, lines, TUTORIAL_LENGTH))


def read_lines(path: Path) -> list[str]:
    """The non-empty lines of a UTF-8 text file, or a clear error saying what is wrong with it."""
    if not path.exists():
        raise FileNotFoundError(f"--data {path}: no such file (give 'tutorial', 'greetings' or a text file).")
    if path.is_dir():
        raise ValueError(f"--data {path} is a directory; give a text file with one sentence per line.")
    text = read_text(path, "Give a UTF-8 text file with one sentence per line.", allow_empty=True)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        raise ValueError(f"--data {path} has no non-empty lines; put one sentence per line.")
    if len(lines) > MAX_LINES:
        raise ValueError(
            f"--data {path} has {len(lines)} lines; this lesson trains on at most "
            f"{MAX_LINES}. For larger text use `glassformer train`."
        )
    for i, line in enumerate(lines, 1):
        if len(line.split()) > MAX_WORDS:
            raise ValueError(
                f"--data {path}: line {i} has {len(line.split())} words; the lesson's "
                f"model reads at most {MAX_WORDS} per line. Split it into shorter lines."
            )
    return lines


def load(source: str) -> WordData:
    """'tutorial', 'greetings', or the path of a text file with one sentence per line."""
    if source == "tutorial":
        return tutorial_data()
    lines = GREETINGS.splitlines() if source == "greetings" else read_lines(Path(source))
    tok = WordTokenizer.from_text("\n".join(lines))
    length = max(len(line.split()) for line in lines) + 2  # + <BOS> and <EOS>
    return WordData(source, tok, lines, encode_rows(tok, lines, length))
