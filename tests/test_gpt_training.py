"""Lesson 13's numpy trainer (helpers.models.gpt_training): the written-out
backward pass against central finite differences, the optimiser and data,
a saved folder read back by helpers.models.gpt, a short seeded run, and the
live monitor (helpers.widgets.lesson13_training)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from helpers.models import gpt, gpt_training as gt

SMALL = {"n_layer": 2, "n_head": 2, "n_embd": 8, "n_positions": 12, "vocab_size": 11}


def _off_start(params, seed=0, noise=0.3):
    """The parameters moved off the symmetric start (LayerNorm gains 1,
    biases 0), so that every gradient is non-trivial."""
    rng = np.random.default_rng(seed)
    return {k: v + rng.normal(0, noise, v.shape).astype(v.dtype)
            for k, v in params.items()}


@pytest.fixture(scope="module")
def small():
    params = _off_start(gt.init_params(SMALL, seed=1, dtype=np.float64))
    ids = np.random.default_rng(2).integers(0, SMALL["vocab_size"], size=(3, 9))
    return params, ids


def test_every_parameter_group_is_there(small):
    params, ids = small
    _, grads = gt.loss_and_grads(params, ids)
    assert set(grads) == set(params)
    for k, g in grads.items():
        assert g.shape == params[k].shape and g.dtype == np.float64


@pytest.mark.parametrize("name", sorted(gt.init_params(SMALL)))
def test_backward_equals_central_finite_differences(small, name):
    params, ids = small
    _, grads = gt.loss_and_grads(params, ids)
    p = {k: v.copy() for k, v in params.items()}
    flat = p[name].reshape(-1)
    pick = np.random.default_rng(3).permutation(flat.size)[:24]
    h = 1e-6
    for i in pick:
        old = flat[i]
        flat[i] = old + h
        up = gt.loss_and_grads(p, ids)[0]
        flat[i] = old - h
        down = gt.loss_and_grads(p, ids)[0]
        flat[i] = old
        numeric = (up - down) / (2 * h)
        assert grads[name].reshape(-1)[i] == pytest.approx(numeric, abs=1e-8, rel=1e-6)


def test_forward_is_causal(small):
    params, ids = small
    a = gt.forward(params, ids)
    changed = ids.copy()
    changed[:, 5:] = (changed[:, 5:] + 1) % SMALL["vocab_size"]
    b = gt.forward(params, changed)
    np.testing.assert_allclose(a[:, :5], b[:, :5], atol=1e-12)
    assert np.abs(a[:, 5:] - b[:, 5:]).max() > 1e-6


def test_adamw_lowers_the_loss_on_a_tiny_problem():
    params = gt.init_params(SMALL, seed=4)
    rng = np.random.default_rng(5)
    ids = gt.markov_windows(rng, 8, 12, SMALL["vocab_size"], (3, 4), 1.0)
    opt = gt.AdamW(params, weight_decay=0.0)
    losses = []
    for _ in range(150):
        loss, grads = gt.loss_and_grads(params, ids)
        opt.step(params, grads, 1e-2)
        losses.append(loss)
    assert losses[-1] < 0.6 * losses[0]
    assert all(v.dtype == np.float32 for v in params.values())


def test_learning_rate_warms_up_and_decays():
    r = dict(gt.RECIPE, lr=1e-3, warmup=10, decay_from=100, steps=200, final_lr=0.1)
    assert gt.learning_rate(0, r) == pytest.approx(1e-4)
    assert gt.learning_rate(50, r) == pytest.approx(1e-3)
    assert gt.learning_rate(150, r) == pytest.approx(0.55e-3)
    assert gt.learning_rate(200, r) == pytest.approx(1e-4)


def test_markov_windows_walk_a_small_cycle():
    rng = np.random.default_rng(6)
    w = gt.markov_windows(rng, 200, 64, 128, (6, 24), 1.0)
    assert w.shape == (200, 64) and (w[:, 0] == 0).all() and (w[:, 1:] > 0).all()
    for row in w:
        words = set(row[1:].tolist())
        assert len(words) <= 24
        succ = {}
        for a, b in zip(row[1:-1], row[2:]):  # follow 1.0: one successor each
            assert succ.setdefault(int(a), int(b)) == int(b)
    jumpy = gt.markov_windows(rng, 400, 64, 128, (24, 24), 0.5)
    same = np.mean([len(set(r[1:])) for r in jumpy])
    assert 20 <= same <= 24  # random jumps visit most of the alphabet


def test_repeat_window():
    w = gt.repeat_window(np.random.default_rng(7), 64, seg=(8, 8), lead=(0, 0))
    assert w[0] == 0 and (w[1:9] == w[9:17]).all() and len(w) == 64


def test_a_saved_folder_is_read_back_by_helpers_gpt(tmp_path):
    params = _off_start(gt.init_params(seed=8), noise=0.05)
    log = [{"step": 0, "seconds": 0.0, "train_loss": float("nan"),
            "copy1_loss": 5.0, "copy2_loss": 4.0,
            "prev": np.zeros((2, 2)), "pm": np.zeros((2, 2))}]
    report = gt.save(params, tmp_path, log=log, recipe=dict(gt.RECIPE, steps=0))
    files = {p.name for p in tmp_path.iterdir()}
    assert files == {"config.json", "model.safetensors", "tokenizer.json",
                     "training_log.csv", "report.json"}
    assert json.loads((tmp_path / "report.json").read_text()) == report
    assert report["induction_head"][0] >= 1 and report["previous_token_heads"]
    model = gpt.load(tmp_path)
    assert model.vocab_size == 128 and model.n_layers == 2 and model.n_heads == 2
    assert np.all(model.blocks[0]["mlp.c_fc.weight"] == 0)
    ids = np.random.default_rng(9).integers(1, 128, size=64)
    ids[0] = 0
    ours = gt.forward(params, ids[None])[0]
    np.testing.assert_allclose(model.run(ids).logits, ours, atol=1e-5)
    np.testing.assert_allclose(gt.as_model(params).run(ids).logits, ours, atol=1e-5)
    from helpers.analysis import induction

    assert induction.training_log(tmp_path)["copy2_loss"][0] == 4.0
    if (induction.FOLDER / "tokenizer.json").exists():  # the same words
        shipped = json.loads((induction.FOLDER / "tokenizer.json").read_text())
        ours_tok = json.loads((tmp_path / "tokenizer.json").read_text())
        assert ours_tok["model"]["vocab"] == shipped["model"]["vocab"]


def test_a_short_run_is_deterministic_from_its_seed():
    a, log_a, recipe = gt.train(steps=200, every=100, seed=11)
    b, log_b, _ = gt.train(steps=200, every=100, seed=11)
    c, _, _ = gt.train(steps=20, every=100, seed=12)
    assert recipe["steps"] == 200 and [r["step"] for r in log_a] == [0, 100, 200]
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    assert not np.array_equal(a["wte.weight"], c["wte.weight"])
    assert [r["copy2_loss"] for r in log_a] == [r["copy2_loss"] for r in log_b]
    assert log_a[-1]["train_loss"] < log_a[1]["train_loss"] + 0.5
    assert log_a[-1]["prev"].shape == (2, 2) and log_a[-1]["pm"].shape == (2, 2)


def test_the_live_monitor_updates_with_its_text_alternative():
    from helpers.widgets.lesson13_training import TrainingMonitor, train_live

    before = TrainingMonitor(200).alt
    params, log, monitor = train_live(every=100, show=False, steps=200)
    assert len(log) == 3 and monitor.draws == 4  # the empty figure, then 3 rows
    assert monitor.alt != before and monitor.alt.startswith("Step 200 of 200")
    assert monitor.bar.value == 200
    assert monitor.figure.alt == monitor.alt
    assert "second copy" in monitor.alt and "layer 1 head 0" in monitor.alt
    assert monitor.png[:8] == b"\x89PNG\r\n\x1a\n"
    bundle = monitor._repr_mimebundle_()
    assert bundle["text/plain"] == monitor.alt and "image/png" in bundle
    labels = [t.get_text() for ax in monitor.figure.axes
              for t in ax.get_legend().get_texts()]
    assert any(t.startswith("chance") for t in labels)
    assert sum("layer 0" in t for t in labels) == 2
    assert sum("layer 1" in t for t in labels) == 2


def test_phase_two_starts_after_the_measured_phase_change(monkeypatch):
    real = gt.probe_scores
    seen = []

    def fake(params, *args, **kwargs):  # the probes "copy" from step 250 on
        s = real(params, *args, **kwargs)
        seen.append(len(seen))
        late = len(seen) > 1  # the first look is at step 0
        return dict(s, copy2=0.4 * s["copy1"] if late else s["copy1"])

    monkeypatch.setattr(gt, "probe_scores", fake)
    monkeypatch.setattr(gt, "CHECK_EVERY", 50)
    rows = []
    _, log, r = gt.train(steps=5000, phase2_after=20, phase2_steps=30, warmup=10,
                         callback=rows.append, every=50)
    assert r["phase_change_step"] == 50
    assert r["phase2_from"] == 70 and r["steps"] == 100
    assert log[-1]["step"] == 100 and rows[-1]["phase_change_step"] == 50
    assert gt.learning_rate(70, r) == pytest.approx(r["lr"])
    assert gt.learning_rate(100, r) == pytest.approx(r["final_lr"] * r["lr"])


def test_training_panel_trains_only_when_started_and_keeps_the_model():
    from helpers.widgets.lesson13_training import TrainingPanel

    panel = TrainingPanel(every=50, steps=100, phase2_from=60, phase2_steps=40)
    assert panel.params is None and panel.model is None  # nothing ran yet
    assert panel.stop_button.disabled and "one BLAS thread" in panel.status.value
    before = panel.alt
    panel.start(wait=True)
    assert panel.params is not None and not panel.button.disabled  # train again
    assert panel.alt != before and "100" in panel.alt
    assert panel.status.value.startswith("one BLAS thread; done: 100 steps")
    assert panel.button.description == "Trained: see panel.model. Train again?"
    run = panel.model.run(list(range(1, 17)))
    assert run.attention.shape[-2:] == (16, 16)
    first = panel.model
    panel.start(wait=True)  # after a run: a new run, from scratch
    assert panel.model is not first and [r["step"] for r in panel.monitor.rows] == [
        0, 50, 100]
    assert panel.status.value.startswith("one BLAS thread; done: 100 steps")


def test_training_panel_leaves_the_other_explorers_working_and_stops():
    """The run goes on in its own thread: start() returns at once, the
    lesson's explorer answers its "New random repeat" button meanwhile, and
    Stop ends the run early with the model so far."""
    from helpers.widgets import induction_explorer
    from helpers.widgets.lesson13_training import TrainingPanel

    panel = TrainingPanel(every=20)  # the live recipe: thousands of steps
    explorer = induction_explorer()
    panel.start()
    assert panel.running and panel.button.disabled and not panel.stop_button.disabled
    before, count = explorer.text.value, explorer.update_count
    explorer.new.click()                        # while the model trains
    assert explorer.text.value != before and explorer.update_count > count
    assert panel.running
    thread = panel.thread
    panel.start()                               # a press while it runs does nothing
    assert panel.thread is thread
    panel.stop()
    panel.wait(120)
    assert not panel.running and panel.model is not None
    last = panel.log[-1]["step"]
    assert 0 < last < 16000 and panel.monitor.rows[-1]["step"] == last
    assert panel.button.description == (f"Stopped at step {last:,}: see panel.model. "
                                        "Train again?")
    assert panel.stop_button.disabled and not panel.button.disabled
    assert f"stopped at step {last:,} after" in panel.status.value


def test_time_left_counts_the_steps_at_the_recent_pace():
    from helpers.widgets.lesson13_training import time_left

    rows = [{"step": s, "seconds": t} for s, t in
            [(0, 0.0), (100, 50.0), (200, 60.0), (300, 70.0), (400, 80.0), (500, 90.0)]]
    # the last five rows: 400 steps in 40 s, so 0.1 s a step; 1,000 steps left
    assert time_left(rows, 1500) == "1,000 steps left, 1 min 40 s at this pace"
    assert time_left(rows, 1500, known=False) == (
        "at most 1,000 steps left, at most 1 min 40 s at this pace")
    assert time_left(rows[:2], 110) == "10 steps left, 5 s at this pace"
    assert time_left(rows, 500) == "done: 500 steps in 1 min 30 s"
    assert time_left([], 500) == "not started"


def test_first_rise_names_the_first_row_and_head_at_the_level():
    from helpers.widgets.lesson13_training import first_rise, rises

    steps = [0, 250, 500, 750]
    scores = [[0.1, 0.1], [0.1, 0.18], [0.2, 0.3], [0.5, 0.3]]
    assert first_rise(steps, scores, 0.17) == (250, 1)
    assert first_rise(steps, scores, 0.4) == (750, 0)
    assert first_rise(steps, scores, 0.9) is None
    rows = [{"step": s, "prev": np.array([p, [0.0, 0.0]]),
             "pm": np.array([[0.0, 0.0], [0.03, 0.02 + k * 0.03]])}
            for k, (s, p) in enumerate(zip(steps, scores))]
    found = rises(rows, {"prev": 0.085, "pm": 0.033})
    assert found == {"prev": (250, 1), "pm": (500, 1)}  # 2 x chance: 0.17, 0.066


def test_the_monitor_marks_the_rises_in_its_figure_and_text():
    from helpers.widgets.lesson13_training import TrainingMonitor

    monitor = TrainingMonitor(1000)
    for step, prev, pm in [(0, 0.09, 0.03), (250, 0.2, 0.03), (500, 0.3, 0.2)]:
        monitor.update({"step": step, "seconds": step / 100, "train_loss": 4.0,
                        "copy1_loss": 4.8, "copy2_loss": 4.0,
                        "prev": np.array([[0.05, prev], [0.05, 0.05]]),
                        "pm": np.array([[0.03, 0.03], [pm, 0.03]])})
    assert monitor.marks == {"prev": (250, 1), "pm": (500, 0)}
    assert ("A previous-token score first reached twice chance at step 250 "
            "(layer 0 head 1)") in monitor.alt
    assert "prefix-matching score first reached twice chance at step 500" in monitor.alt
    notes = [t.get_text() for t in monitor.figure.axes[1].texts]
    assert "previous token: twice chance\n(L0H1, step 250)" in notes
    assert "prefix matching: twice chance\n(L1H0, step 500)" in notes
