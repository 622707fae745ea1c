"""`glassformer chat RUN` through the real dispatcher, on a tiny SFT run: stdin piped a line a turn, each
answer equal to what the library's `sample` writes after the run's template, the history in the next
turn's prompt, /reset and /quit, the oldest turns dropped to fit, and a run that cannot chat refused."""

from __future__ import annotations

import io

import pytest
from helpers import arithmetic_base, said

from glassformer.cli import main
from glassformer.errors import UsageError
from glassformer.messages import t
from glassformer.post.chat import CHAT_FORMATS, END_OF_TURN
from glassformer.post.data import BUILTIN
from glassformer.post.talk import ChatSession, chat_format_of
from glassformer.sample import sample
from glassformer.train.run import load_model

TINY = ["--max_steps=4", "--eval_interval=4", "--eval_iters=1", "--batch_size=4", "--threads=1"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("chat-cli")
    base = arithmetic_base(tmp, steps=4, n_sums=200)
    chat = tmp / "chat"
    assert main(["sft", str(base), "--data", BUILTIN, "--out", str(chat), "--no-progress", *TINY]) == 0
    return base, chat


def chat_cli(capsys, monkeypatch, lines: str, *argv):
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    capsys.readouterr()
    with said() as heard:
        code = main(["chat", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err, heard


def expected(run, messages, max_new_tokens):
    """The library's answer: `sample` on the run's template of `messages`, greedy, to the end of turn."""
    model, tokenizer, _ = load_model(run)
    prompt = CHAT_FORMATS["chatml"].template().render(messages, add_generation_prompt=True)
    return sample(model, tokenizer, prompt, max_new_tokens, temperature=0.0, stop=END_OF_TURN["chatml"])[0]


def test_answers_are_sample_on_the_template_and_keep_the_history(runs, capsys, monkeypatch):
    _, chat = runs
    code, out, _, heard = chat_cli(capsys, monkeypatch, "12+30=\n7+5=\n", str(chat), "--max-new-tokens", "6")
    assert code == 0
    first = expected(chat, [{"role": "user", "content": "12+30="}], 6)
    second = expected(
        chat,
        [
            {"role": "user", "content": "12+30="},
            {"role": "assistant", "content": first},
            {"role": "user", "content": "7+5="},
        ],
        6,
    )
    assert first.strip() and second.strip()  # greedy SFT answers (a digit at least), or this test proves little
    assert out.splitlines()[1:] == [first, second]  # after the ready line, one answer a line
    ready = {"run": str(chat), "format": "chatml", "reset": "/reset", "quit": "/quit"}
    assert [fields for _, fields in heard if set(fields) == set(ready)] == [ready]  # the ready line: how to talk


def test_reset_forgets_and_quit_leaves(runs, capsys, monkeypatch):
    _, chat = runs
    code, out, _, heard = chat_cli(
        capsys, monkeypatch, "12+30=\n/reset\n7+5=\n/quit\n9+9=\n", str(chat), "--max-new-tokens", "6"
    )
    alone = expected(chat, [{"role": "user", "content": "7+5="}], 6)  # no history after /reset
    assert code == 0 and out.splitlines()[3:] == [alone]  # the ready line, an answer, the reset line; none after /quit
    ready = [i for i, (_, fields) in enumerate(heard) if fields.get("reset") == "/reset"][-1]
    [(reset, fields)] = heard[ready + 1 :]  # after the ready line, one sentence: the reset's
    assert fields == {} and out.splitlines()[2] == t(reset)


def test_oldest_turns_are_dropped_to_fit(runs, capsys, monkeypatch):
    """max_len is 128 positions: with 100 new tokens allowed, a second turn only fits without the first."""
    _, chat = runs
    code, out, _, heard = chat_cli(capsys, monkeypatch, "12+30=\n7+5=\n", str(chat), "--max-new-tokens", "100")
    assert code == 0
    assert [fields for _, fields in heard if "n" in fields] == [{"n": 2}]  # the 2 oldest turns were dropped
    alone = expected(chat, [{"role": "user", "content": "7+5="}], 100)
    assert out.endswith("\n" + alone + "\n")  # an answer may hold line breaks


def test_a_message_too_long_is_refused_and_the_chat_goes_on(runs, capsys, monkeypatch):
    _, chat = runs
    lines = "1+" * 70 + "\nhello\n7+5=\n"  # too long; letters the tiny vocabulary lacks; a sum
    code, out, err, heard = chat_cli(capsys, monkeypatch, lines, str(chat), "--max-new-tokens", "6")
    assert code == 0 and [f["max_len"] for f in heard.of("talk.too_long")] == [128]
    assert len(err.strip().splitlines()) == 2  # one line for each refused turn
    assert out.splitlines()[-1] == expected(chat, [{"role": "user", "content": "7+5="}], 6)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_run_that_was_not_post_trained_is_one_line_naming_sft(runs, capsys, monkeypatch, lang):
    base, _ = runs
    code, out, err, heard = chat_cli(capsys, monkeypatch, "hi\n", str(base), "--lang", lang)
    assert code == 2 and heard.of("talk.not_chat") == [{"run": str(base)}]
    with pytest.raises(UsageError) as refusal:  # the library's refusal, which names the fix (glassformer sft)
        chat_format_of({}, str(base))
    assert (
        refusal.value.code == "talk.not_chat"
        and len(err.splitlines()) == 1
        and err.endswith(refusal.value.words(lang) + "\n")
    )


def test_the_second_prompt_holds_the_first_turn(runs):
    """The library's session: the second turn's prompt is the template of the whole history."""
    _, chat = runs
    model, tokenizer, _ = load_model(chat)
    session = ChatSession(model, tokenizer, "chatml", system="1+1=2", max_new_tokens=6, temperature=0.0)
    first = session.ask("12+30=")
    second = session.ask("7+5=")
    history = [
        {"role": "system", "content": "1+1=2"},
        {"role": "user", "content": "12+30="},
        {"role": "assistant", "content": first.answer},
        {"role": "user", "content": "7+5="},
    ]
    assert second.prompt == CHAT_FORMATS["chatml"].template().render(history, add_generation_prompt=True)
    assert (first.dropped, second.dropped) == (0, 0)
    assert session.history == [*history[1:], {"role": "assistant", "content": second.answer}]


def test_a_terminal_sees_a_prompt_mark_before_each_turn(runs, capsys, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    _, chat = runs
    monkeypatch.setattr("sys.stdin", Terminal("7+5=\n"))
    capsys.readouterr()
    assert main(["chat", str(chat), "--max-new-tokens", "6"]) == 0
    alone = expected(chat, [{"role": "user", "content": "7+5="}], 6)
    assert capsys.readouterr().out.splitlines()[1:] == ["> " + alone, "> "]  # the last mark met the end of input


def test_an_empty_answer_leaves_the_history_as_it_was(runs):
    """An answer that is only the end of turn is not kept (a conversation's assistant turns are never
    empty): the history does not gain a user turn without an answer, and the next turn still renders."""
    _, chat = runs
    model, tokenizer, _ = load_model(chat)
    session = ChatSession(model, tokenizer, "chatml", max_new_tokens=0, temperature=0.0)
    assert session.ask("12+30=").answer == "" and session.history == []
    session.max_new_tokens = 6
    assert session.ask("7+5=").answer == expected(chat, [{"role": "user", "content": "7+5="}], 6)
