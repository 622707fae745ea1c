"""The post-training lesson, at its --fast size: every stage's accuracy is what post/tune.py's GRPO
evaluation scores on the run the stage wrote, the held-out sums were never trained on, each stage's
"moved most" is post/diff.py's own figure, GRPO's reward curve is its metrics.jsonl, DPO's pairs are
the SFT model's own wrong answers, the Chinese run speaks Chinese, and a second lesson into the same
folder is refused without touching the first."""

from __future__ import annotations

import re

import pytest
import torch
from helpers import said
from lesson_checks import assert_valid_png

from glassformer.cli import main
from glassformer.errors import UsageError
from glassformer.lessons import LESSONS, post_training
from glassformer.post import diff, tune
from glassformer.post.chat import CHAT_FORMATS, END_OF_TURN
from glassformer.post.data import Preference, arithmetic_questions, load, off_by
from glassformer.post.grpo import addition_prompts, exact_answer
from glassformer.post.preference import sequence_logprobs
from glassformer.post.sft import pad_batch
from glassformer.train.checkpoint import load_model
from glassformer.train.record import MetricsLog

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread is fastest

CJK = re.compile(r"[\u4e00-\u9fff]")
PREVIOUS = {"sft": "base", "lora": "base", "dpo": "sft", "grpo": "dpo"}  # the run each stage starts from


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    lines: list[str] = []
    out = tmp_path_factory.mktemp("post-training")
    with said() as heard:
        result = post_training.run(out=out, fast=True, explain=True, echo=lines.append, seed=3)
    return result, "\n".join(lines), heard, out


def scored(run_dir, questions) -> float:
    """GRPO's evaluation (tune.GRPO.measure) of a run on the questions, set up here as a GRPO run is."""
    model, tokenizer, config = load_model(run_dir)
    fmt = config["post"]["format"]
    prompts = tune.encode_examples("grpo", tokenizer, CHAT_FORMATS[fmt].template(), questions)
    end_id = tokenizer.encode(END_OF_TURN[fmt])[0]
    grpo = tune.GRPO(model.eval(), model, tokenizer, end_id, 2, post_training.MAX_NEW_TOKENS, 0.0, 0.0)
    return float(grpo.measure(model, prompts)["accuracy"])


def test_it_is_a_lesson_of_the_cli():
    assert "post-training" in LESSONS


def test_the_held_out_sums_were_never_trained_on(lesson):
    result = lesson[0]
    budget = post_training.FAST
    asked = result["questions"]
    assert len(asked) == budget.held_out == len(set(asked))
    trained = {q for q, _ in addition_prompts(budget.sums, post_training.PRETRAIN_SEED)}
    trained |= {q for q, _ in addition_prompts(512, 0)}  # builtin:arithmetic, every stage's data
    assert not trained & set(asked)
    drawn = [q for q, _ in addition_prompts(4 * len(asked) + 100, result["held_out_seed"])]
    assert asked == [q for q in drawn if q not in trained][: len(asked)]  # the first sums of their seed not trained on


def test_dpo_trains_on_the_sft_models_own_wrong_answers_to_training_sums(lesson):
    """DPO's data is the pairs file the lesson wrote: tune.own_mistakes of the SFT run on
    builtin:arithmetic's sums, every rejected answer wrong, none of the held-out sums asked."""
    result, _, heard, _ = lesson
    path = result["runs"]["base"].parent / post_training.PAIRS_FILE
    post = load_model(result["runs"]["dpo"])[2]["post"]
    assert post["data"] == str(path.resolve()) and post["beta"] == post_training.DPO_BETA
    pairs, _ = load("dpo", str(path))
    training = arithmetic_questions()
    assert pairs == tune.own_mistakes(
        result["runs"]["sft"], training, post_training.PAIR_SAMPLES, post_training.MAX_NEW_TOKENS, seed=3
    )
    asked = {q.prompt[0]["content"]: q.answer for q in training}
    assert all(asked[p.prompt[0]["content"]] == p.chosen for p in pairs)  # the right sum of a training question
    assert all(not exact_answer(p.rejected, p.chosen) for p in pairs)
    assert not {p.prompt[0]["content"] for p in pairs} & set(result["questions"])
    assert result["stages"]["dpo"]["pairs"] == len(pairs) > 0
    assert heard.carrying(n=len(pairs), total=len(training), samples=post_training.PAIR_SAMPLES)


def test_each_accuracy_is_grpos_own_evaluation_of_the_stages_run(lesson):
    result = lesson[0]
    questions = post_training.held_out(post_training.FAST.held_out, post_training.FAST.sums)
    assert [q.prompt[0]["content"] for q in questions] == result["questions"]
    for stage in post_training.TUNINGS:
        assert result["accuracy"][stage] == scored(result["runs"][stage], questions)
        entry = result["stages"][stage]
        assert entry["after"] == result["accuracy"][stage]
        assert entry["before"] == result["accuracy"][PREVIOUS[stage]]  # where the stage started
        assert entry["steps"] == getattr(post_training.FAST, stage)
    assert 0.0 <= result["accuracy"]["base_plain"] <= 1.0


def test_the_pairs_accuracy_is_dpos_log_probability_of_each_answer(lesson):
    """The share of held-out pairs whose right sum has the higher log π(y|x) (preference.py's
    sequence_logprobs), each answer scored alone here, unpadded."""
    result = lesson[0]
    questions = post_training.held_out(post_training.FAST.held_out, post_training.FAST.sums)
    for stage in post_training.TUNINGS:
        model, tokenizer, _ = load_model(result["runs"][stage])
        template = CHAT_FORMATS["chatml"].template()
        right = 0
        for q in questions:
            pair = Preference(q.prompt, q.answer, off_by(int(q.answer)))
            logps = []
            for chat in tune.encode_examples("dpo", tokenizer, template, [pair])[0]:
                batch = pad_batch([chat], pad_id=0)
                with torch.no_grad():
                    logps.append(float(sequence_logprobs(model.eval()(batch.ids), batch.labels)))
            right += logps[0] > logps[1]
        assert result["preference"][stage] == pytest.approx(right / len(questions))
        assert result["stages"][stage]["preference_after"] == result["preference"][stage]
        assert result["stages"][stage]["preference_before"] == result["preference"][PREVIOUS[stage]]


def test_each_stage_ran_through_post_tune_from_the_run_before(lesson):
    result = lesson[0]
    for stage in post_training.TUNINGS:
        _, _, config = load_model(result["runs"][stage])
        post = config["post"]
        assert post["method"] == {"lora": "sft"}.get(stage, stage)
        assert post["base"] == str(result["runs"][PREVIOUS[stage]].resolve())
        assert config["train"]["seed"] == result["seed"] == 3
    assert load_model(result["runs"]["lora"])[2]["post"]["lora"]["r"] == post_training.LORA.r


def test_what_moved_most_is_diffs_own_figure(lesson):
    result = lesson[0]
    for stage in post_training.TUNINGS:
        pair = diff.open_pair(result["runs"][PREVIOUS[stage]], result["runs"][stage])
        layers, _ = diff.weight_views(pair)
        heads = diff.head_view(pair)
        moved = result["stages"][stage]["diff"]
        by_layer = dict(zip(layers.rows, (v[0] for v in layers.values), strict=True))
        assert moved["layer_change"] == by_layer[moved["layer"]] == max(by_layer.values())
        row = heads.rows.index(moved["head_row"])
        assert moved["head_change"] == heads.values[row][moved["head"]] == max(max(v) for v in heads.values)
    lora = result["stages"]["lora"]["diff"]
    assert lora["lora_ranks"] == [post_training.LORA.r] and lora["lora_layers"] > 0
    assert "lora_ranks" not in result["stages"]["sft"]["diff"]  # a full SFT has no low-rank update


def test_the_reward_curve_is_the_runs_own_log(lesson):
    result = lesson[0]
    logged = [r for r in MetricsLog(result["runs"]["grpo"] / "metrics.jsonl").read() if r["kind"] == "grpo"]
    assert result["stages"]["grpo"]["rewards"] == [r["reward"] for r in logged]
    assert len(logged) == post_training.FAST.grpo
    assert result["stages"]["grpo"]["kl"][0] == 0.0  # the policy starts as its reference
    assert 0.0 <= result["stages"]["dpo"]["reward_accuracy"] <= 1.0


def test_the_figures_said_are_the_measured_ones(lesson):
    result, text, heard, _ = lesson
    for stage in post_training.TUNINGS:
        entry = result["stages"][stage]
        assert heard.carrying(before=f"{entry['before']:.1%}", after=f"{entry['after']:.1%}")
        assert heard.carrying(layer=entry["diff"]["layer"], head=entry["diff"]["head"])
    assert heard.carrying(n=post_training.FAST.held_out, seed=result["held_out_seed"])
    assert f"{result['accuracy']['grpo']:.1%}" in text


def test_files_are_valid_pngs(lesson):
    files = lesson[0]["files"]
    assert [f.name for f in files] == ["accuracy.png", "grpo_reward.png"] + [
        f"diff_heads_{s}.png" for s in post_training.TUNINGS
    ]
    for f in files:
        assert_valid_png(f)


def test_a_second_lesson_into_the_same_folder_is_refused_and_the_first_kept(lesson):
    out = lesson[3]
    weights = out / "runs" / "grpo" / "model.safetensors"
    before = weights.read_bytes()
    with pytest.raises(UsageError) as e:
        post_training.run(out=out, fast=True, echo=lambda line: None)
    assert e.value.code == "lesson.runs_exist" and e.value.fields == {"dir": out / "runs"}
    assert weights.read_bytes() == before


def test_bad_options_are_refused_by_the_cli(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["lesson", "post-training", "--seed", "-1", "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2 and "--seed" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_chinese_lesson_speaks_chinese(tmp_path, monkeypatch):
    tiny = post_training.Budget(pretrain=10, sums=100, sft=2, lora=2, dpo=2, grpo=2, held_out=4, batch=4)
    monkeypatch.setattr(post_training, "FAST", tiny)
    runs = {}
    for lang in ("en", "zh"):
        lines: list[str] = []
        result = post_training.run(lang=lang, out=tmp_path / lang, fast=True, echo=lines.append)
        runs[lang] = (result, [line.strip() for line in lines if line.strip()])
    (en, en_lines), (zh, zh_lines) = runs["en"], runs["zh"]
    assert zh["accuracy"] == en["accuracy"]  # the language changes the words, never the figures
    assert len(zh_lines) == len(en_lines)
    titles = [line for line in zh_lines if line.startswith("== ")]
    assert titles and all(CJK.search(line) for line in titles)
    assert not any(CJK.search(line) for line in en_lines)
