"""post/chat.py and text/specials.py: conversations and their files, chat templates rendered byte for
byte as transformers' apply_chat_template renders them (our two built-in templates, and TRL's copies of
the real Qwen3 and Llama-3 templates), special tokens that leave every old id alone, and the mask of
the assistant's tokens equal to transformers' return_assistant_tokens_mask. No download: the Hugging
Face tokenizers are built here from our own tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

transformers = pytest.importorskip("transformers")
trl = pytest.importorskip("trl")
import tokenizers as hf  # noqa: E402

from glassformer.errors import DamagedFile, UsageError  # noqa: E402
from glassformer.post.chat import (  # noqa: E402
    CHAT_FORMATS,
    CHATML,
    LLAMA3,
    ChatTemplate,
    chat_tokenizer,
    check_conversation,
    encode_chat,
    read_conversations,
    write_conversations,
)
from glassformer.text import BPETokenizer, CharTokenizer, HFBPETokenizer, WordTokenizer, load_tokenizer  # noqa: E402
from glassformer.text.specials import SpecialTokens, with_specials  # noqa: E402

TRL_TEMPLATES = Path(trl.__file__).parent / "chat_templates"

CONVERSATIONS = [
    [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}],
    [
        {"role": "system", "content": "Answer with a number."},
        {"role": "user", "content": "2+3="},
        {"role": "assistant", "content": "5"},
        {"role": "user", "content": "十二加三十四等于几？"},
        {"role": "assistant", "content": "  46\n"},
    ],
    [
        {"role": "user", "content": "sort: 3 1 2"},
        {"role": "assistant", "content": "1 2 3"},
        {"role": "user", "content": "and 9 7?\n\nplease"},
    ],
]
TEXT = "".join(m["content"] for c in CONVERSATIONS for m in c) + "Hello world, sort and please system user assistant"


def hf_char_tokenizer(ours: CharTokenizer, specials: tuple[str, ...], template: str, bos: str | None = None):
    """transformers' tokenizer with our character vocabulary (a BPE model with no merges: one token a
    character) and the same special tokens added after it."""
    model = hf.models.BPE(vocab={c: i for i, c in enumerate(ours.chars)}, merges=[])
    tok = transformers.PreTrainedTokenizerFast(tokenizer_object=hf.Tokenizer(model))
    tok.add_tokens(list(specials), special_tokens=True)
    tok.chat_template = template
    if bos is not None:
        tok.bos_token = bos
    return tok


def hf_bpe_tokenizer(ours: BPETokenizer, specials: tuple[str, ...], template: str):
    """transformers' tokenizer running our merges (HFBPETokenizer's pipeline) with the specials added."""
    pipeline = HFBPETokenizer(ours.merges).hf
    tok = transformers.PreTrainedTokenizerFast(tokenizer_object=pipeline)
    tok.add_tokens(list(specials), special_tokens=True)
    tok.chat_template = template
    return tok


def trl_template(name: str) -> str:
    return (TRL_TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8")


# ---- rendering: byte for byte what apply_chat_template renders ------------------------------------------------------
TEMPLATES = {
    "chatml": (CHATML.source, CHATML.specials, None),
    "llama3": (LLAMA3.source, LLAMA3.specials, "<|begin_of_text|>"),
    "trl-qwen3": (trl_template("qwen3"), CHATML.specials, None),
    "trl-qwen3-training": (trl_template("qwen3_training"), CHATML.specials, None),
    "trl-llama3": (trl_template("llama3"), LLAMA3.specials, "<|begin_of_text|>"),
    "trl-llama3-training": (trl_template("llama3_training"), LLAMA3.specials, "<|begin_of_text|>"),
    # no whitespace control: trim_blocks and lstrip_blocks decide every newline and indent
    "blocks": (
        "{% for m in messages %}\n  {% if m.role == 'user' %}\nU: {{ m.content }}\n  {% else %}\n"
        "A: {{ m.content }}\n  {% endif %}\n{% endfor %}\n{% if add_generation_prompt %}\nA:{% endif %}",
        (),
        None,
    ),
    "tojson": ("{{ messages | tojson }}<{{ messages[-1] | tojson(indent=2) }}>", (), None),  # non-ASCII and < kept
}


@pytest.mark.parametrize("name", sorted(TEMPLATES))
@pytest.mark.parametrize("add_generation_prompt", [False, True])
def test_rendering_equals_apply_chat_template(name, add_generation_prompt):
    source, specials, bos = TEMPLATES[name]
    chars = CharTokenizer.from_text(TEXT + "".join(specials) + source + '[]{}":,')
    tok = hf_char_tokenizer(chars, specials, source, bos)
    ours = ChatTemplate(source, **({"bos_token": bos} if bos else {}))
    for conversation in CONVERSATIONS:
        theirs = tok.apply_chat_template(conversation, tokenize=False, add_generation_prompt=add_generation_prompt)
        assert ours.render(conversation, add_generation_prompt=add_generation_prompt) == theirs


def test_the_built_in_templates_render_the_two_families_shapes():
    """Pinned once, so a change to a template is seen (the renderer itself is checked above)."""
    conversation = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"}]
    assert CHATML.template().render(conversation, add_generation_prompt=False) == (
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nYo<|im_end|>\n"
    )
    assert LLAMA3.template().render(conversation[:1], add_generation_prompt=True) == (
        "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )


def test_the_generation_tags_change_no_byte_of_the_text():
    """Our templates with their {% generation %} tags removed render the same string."""
    for fmt in CHAT_FORMATS.values():
        plain = fmt.source.replace("{%- generation %}", "").replace("{%- endgeneration %}", "")
        assert plain != fmt.source
        for conversation in CONVERSATIONS:
            assert ChatTemplate(plain, **fmt.variables).render(conversation) == fmt.template().render(conversation)


# ---- special tokens ----------------------------------------------------------------------------------------------
def base_tokenizers():
    return {
        "char": CharTokenizer.from_text(TEXT),
        "word": WordTokenizer.from_text(TEXT),
        "bpe": BPETokenizer.from_text(TEXT * 3, 300),
    }


@pytest.mark.parametrize("kind", ["char", "word", "bpe"])
def test_special_tokens_keep_every_old_id_and_append_the_new(kind, tmp_path):
    base = base_tokenizers()[kind]
    tok = chat_tokenizer(base, LLAMA3)
    V = base.vocab_size
    assert tok.vocab_size == V + 4
    assert [tok.ids[s] for s in LLAMA3.specials] == [V, V + 1, V + 2, V + 3]
    for i in range(V):  # every old id decodes as before and encodes back the same way
        text = base.decode([i])
        assert tok.decode([i]) == text
        assert tok.encode(text) == base.encode(text)
    for text in (TEXT, "Hello world", "十二加三"):
        assert tok.encode(text) == base.encode(text)  # no special token in the text: the base's ids exactly
    marked = "<|begin_of_text|>Hi<|eot_id|><|eot_id|>sort"
    assert tok.encode(marked) == [V, *base.encode("Hi"), V + 3, V + 3, *base.encode("sort")]
    tok.save(tmp_path / "tokenizer.json")
    again = load_tokenizer(tmp_path / "tokenizer.json")
    assert isinstance(again, SpecialTokens) and again.encode(marked) == tok.encode(marked)
    assert again.vocab_size == tok.vocab_size and again.base.vocab_size == V


def test_special_tokens_decode_and_are_added_once():
    base = CharTokenizer.from_text("abc<|>")
    tok = with_specials(base, ["<|a|>", "<|a|>b"])  # a token that starts with another: the longer wins
    assert tok.encode("<|a|>b<|a|>c") == [7, 6, 4]  # ids 0..5: < > a b c |
    assert tok.decode([7, 6, 4]) == "<|a|>b<|a|>c"
    again = with_specials(tok, ["<|a|>", "<|z|>"])
    assert again.tokens == ["<|a|>", "<|a|>b", "<|z|>"] and again.base is base and again.ids["<|z|>"] == 8
    assert tok.show_work("a<|a|>")["piece_ids"] == [[2], [6]]


@pytest.mark.parametrize(("tokens", "key"), [([""], "specials.empty"), (["<x>", "<x>"], "specials.twice")])
def test_bad_special_tokens_are_refused(tokens, key):
    with pytest.raises(UsageError) as e:
        SpecialTokens(CharTokenizer.from_text("ab"), tokens)
    assert e.value.key == key and e.value.fields["token"] == tokens[-1]


def test_special_tokens_match_transformers_added_tokens():
    base = CharTokenizer.from_text(TEXT + "<|>_abcdefghijklmnopqrstuvwxyz")
    tok = chat_tokenizer(base, CHATML)
    theirs = hf_char_tokenizer(base, CHATML.specials, CHATML.source)
    text = "<|im_start|>user\nHi<|im_end|>x<|im_start|><|im_end|>"
    assert tok.encode(text) == theirs.encode(text, add_special_tokens=False)
    assert len(theirs) == tok.vocab_size


# ---- the assistant's tokens ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["chatml", "llama3", "trl-qwen3-training", "trl-llama3-training"])
def test_ids_and_assistant_mask_equal_transformers_with_a_character_vocabulary(name):
    source, specials, bos = TEMPLATES[name]
    base = CharTokenizer.from_text(TEXT + "".join(specials) + source)
    tok = with_specials(base, specials)
    theirs = hf_char_tokenizer(base, specials, source, bos)
    template = ChatTemplate(source, **({"bos_token": bos} if bos else {}))
    for conversation in CONVERSATIONS[:2]:
        ours = encode_chat(tok, template, conversation)
        out = theirs.apply_chat_template(
            conversation, tokenize=True, return_dict=True, return_assistant_tokens_mask=True
        )
        assert ours.ids == out["input_ids"] == tok.encode(ours.text)
        assert ours.assistant_mask == out["assistant_masks"]
        assert 0 < sum(ours.assistant_mask) < len(ours.ids)


@pytest.mark.parametrize("fmt", [CHATML, LLAMA3], ids=lambda f: f.name)
def test_ids_and_assistant_mask_equal_transformers_with_byte_level_bpe(fmt):
    base = BPETokenizer.from_text(TEXT * 3, 320)
    tok = chat_tokenizer(base, fmt)
    theirs = hf_bpe_tokenizer(base, fmt.specials, fmt.source)
    if fmt.variables:
        theirs.bos_token = fmt.variables["bos_token"]
    for conversation in CONVERSATIONS[:2]:
        ours = encode_chat(tok, fmt.template(), conversation)
        out = theirs.apply_chat_template(
            conversation, tokenize=True, return_dict=True, return_assistant_tokens_mask=True
        )
        assert ours.ids == out["input_ids"] == tok.encode(ours.text)  # cutting at the spans changed no id
        assert ours.assistant_mask == out["assistant_masks"]


def test_the_assistant_mask_covers_the_answer_and_its_end_token_only():
    tok = chat_tokenizer(CharTokenizer.from_text(TEXT + "<|>_abcdefghijklmnopqrstuvwxyz\n"), CHATML)
    enc = encode_chat(tok, CHATML.template(), CONVERSATIONS[1])
    said = [i for i, m in zip(enc.ids, enc.assistant_mask, strict=True) if m]
    answers = [m["content"] for m in CONVERSATIONS[1] if m["role"] == "assistant"]  # "5" and "  46\n", as given
    assert tok.decode(said) == "".join(answer + "<|im_end|>" for answer in answers)  # each answer and its end


# ---- conversations and their files ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("messages", "key", "fields"),
    [
        ([], "chat.empty", {}),
        ("hi", "chat.not_list", {"found": "str"}),
        ([{"content": "hi"}], "chat.message", {"index": 0}),
        ([{"role": "bot", "content": "hi"}], "chat.role", {"index": 0, "role": "bot"}),
        ([{"role": "user", "content": 3}], "chat.content", {"index": 0, "role": "user"}),
        ([{"role": "assistant", "content": "hi"}], "chat.order", {"index": 0, "expected": "user"}),
        (
            [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}],
            "chat.order",
            {"index": 1, "role": "user", "expected": "assistant"},
        ),
        (
            [
                {"role": "user", "content": "a"},
                {"role": "assistant", "content": "b"},
                {"role": "system", "content": "c"},
            ],
            "chat.order",
            {"index": 2, "role": "system", "expected": "user"},
        ),
        ([{"role": "user", "content": "a"}, {"role": "assistant", "content": " \n"}], "chat.empty_assistant", {}),
    ],
)
def test_a_malformed_conversation_is_named(messages, key, fields):
    with pytest.raises(UsageError) as e:
        check_conversation(messages)
    assert e.value.key == key
    assert {k: e.value.fields[k] for k in fields} == fields


def test_a_conversation_without_an_assistant_turn_is_refused_only_when_one_is_needed():
    prompt = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    assert check_conversation(prompt) == prompt
    with pytest.raises(UsageError) as e:
        check_conversation(prompt, need_assistant=True)
    assert e.value.code == "chat.no_assistant"


def test_conversations_write_and_read_back(tmp_path):
    path = tmp_path / "chats.jsonl"
    write_conversations(path, CONVERSATIONS)
    assert read_conversations(path) == CONVERSATIONS
    asked = CONVERSATIONS[1][3]["content"]  # a question in Chinese
    assert asked in path.read_text(encoding="utf-8") and not asked.isascii()  # readable, not \\u escapes


@pytest.mark.parametrize(
    ("line", "key", "fields"),
    [
        ('{"messages": [', "chat.line_json", {"line": 3, "column": 15}),
        ("[1, 2]", "chat.line_shape", {"line": 3}),
        ('{"messages": [{"role": "user"}]}', "chat.line", {"line": 3}),
    ],
)
def test_a_bad_line_is_named_by_its_number(tmp_path, line, key, fields):
    path = tmp_path / "chats.jsonl"
    good = json.dumps({"messages": CONVERSATIONS[0]})
    path.write_text(f"{good}\n\n{line}\n{good}\n", encoding="utf-8")
    with pytest.raises(DamagedFile) as e:
        read_conversations(path)
    assert e.value.key == key and e.value.fields["path"] == path
    assert {k: e.value.fields[k] for k in fields} == fields
    before = path.read_text(encoding="utf-8")
    with pytest.raises(UsageError):
        write_conversations(path, [[{"role": "bot", "content": "x"}]])
    assert path.read_text(encoding="utf-8") == before  # a refused write leaves the file as it was


def test_the_inner_error_of_a_bad_line_is_kept():
    path = Path(__file__)  # any existing file will do for the fields; build the error as read_conversations does
    with pytest.raises(DamagedFile) as e:
        try:
            check_conversation([{"role": "user", "content": "a"}, {"role": "assistant", "content": ""}])
        except UsageError as inner:
            raise DamagedFile("chat.line", "{path}, line {line}: {detail}", path=path, line=7, detail=inner) from None
    assert e.value.fields["detail"].code == "chat.empty_assistant"


def test_a_file_of_blank_lines_holds_no_conversation(tmp_path):
    path = tmp_path / "chats.jsonl"
    path.write_text("\n \n\n", encoding="utf-8")
    with pytest.raises(DamagedFile) as e:
        read_conversations(path)
    assert e.value.code in ("files.blank", "chat.no_lines")


# ---- template errors ---------------------------------------------------------------------------------------------
def test_a_template_that_does_not_parse_names_its_line():
    with pytest.raises(UsageError) as e:
        ChatTemplate("{% for m in messages %}\n{{ m.content }\n{% endfor %}")
    assert e.value.code == "chat.template_syntax" and e.value.fields["line"] == 2


def test_a_template_that_raises_is_a_usage_error_with_its_message():
    template = ChatTemplate("{% if messages[0].role != 'user' %}{{ raise_exception('user-first') }}{% endif %}ok")
    assert template.render([{"role": "user", "content": "a"}]) == "ok"
    with pytest.raises(UsageError) as e:
        template.render([{"role": "system", "content": "a"}])
    assert e.value.code == "chat.template" and str(e.value.fields["detail"]) == "user-first"  # the template's own


def test_the_sandbox_refuses_python_internals():
    template = ChatTemplate("{{ messages.__class__.__mro__ }}")
    with pytest.raises(UsageError) as e:
        template.render([{"role": "user", "content": "a"}])
    assert e.value.code == "chat.template"


@pytest.mark.parametrize(
    "saved",
    [
        {"kind": "specials", "tokens": ["<x>"]},
        {"kind": "specials", "base": {"kind": "nope"}, "tokens": ["<x>"]},
        {"kind": "specials", "base": {"kind": "char", "chars": ["a"], "unk": False}, "tokens": [3]},
    ],
)
def test_a_damaged_special_tokens_file_is_named(tmp_path, saved):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(saved), encoding="utf-8")
    with pytest.raises(DamagedFile) as e:
        load_tokenizer(path)
    assert e.value.fields["path"] == path and e.value.fields["kind"] == "specials"


def test_tojson_in_a_template_writes_json_proper():
    """A template's tojson writes through the one JSON writer (files.json_text): a tool's NaN
    default is null, not a bare NaN (what transformers' own tojson would write); the options stay."""
    template = ChatTemplate("{{ tools | tojson }}|{{ tools | tojson(indent=1, sort_keys=true) }}")
    out = template.render([{"role": "user", "content": "中"}], tools={"z": float("nan"), "a": "中"})
    tools = {"z": None, "a": "中"}  # NaN written as null; characters as they are; the order kept unless sorted
    assert out == json.dumps(tools, ensure_ascii=False) + "|" + json.dumps(
        tools, ensure_ascii=False, indent=1, sort_keys=True
    )
    assert out.split("|")[0].index('"z"') < out.split("|")[0].index('"a"') and "\\u" not in out
