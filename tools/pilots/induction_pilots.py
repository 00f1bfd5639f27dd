"""The torch trainer of lesson 13's attention-only GPT, with every pilot switch.

    python3 tools/pilots/induction_pilots.py --out data/induction   # as shipped (F3)
    python3 tools/pilots/induction_pilots.py --steps 400 --out build/induction/try

This is the script that made ``data/induction/`` (until 2026-12-04 it was
``tools/train_induction.py``; ``tools/train_induction.py --torch`` runs its
defaults). Its options are the pilots of data/README.md, induction/: each
row there says which switches it used.

The model is GPT-2's layout (learned positions, pre-LayerNorm blocks, tied
unembedding), attention only: its MLP weights are zero and never trained, so
``transformers.GPT2LMHeadModel.from_pretrained(folder)`` loads it and computes
the same function. Nothing in training looks at an attention pattern: the loss
is ordinary next-token cross-entropy on the windows below. The heads are named
afterwards, by measurement (``report.json``).

The data, in the shipped recipe (the defaults):

* the vocabulary is ``VOCAB - 1`` readable symbols (common English nouns from
  ``data/lexicon.csv``; id 0 is ``<|endoftext|>``);
* every window (64 tokens, batches of 16) is an **in-context Markov chain**
  (``markov_window``): BOS, then words from an alphabet of 6-24 random words,
  new in every window, arranged in one random cycle; each word is followed by
  its successor on the cycle with probability ``--follow`` (0.65), else by a
  random word of the alphabet. No word predicts another across windows: only
  a head that finds the current word earlier in the window, and reads what
  came after it, can predict. The random jumps matter: with fewer of them
  the pilots grew other copying circuits (data/README.md); after a jump the
  word before the current one is no clue, which spoils a circuit that
  matches it instead of the current word;
* from step 11,000 (``--phase2-from``), once the head has formed, half of
  the windows are plain repeats (8-20 random words written twice after 0-23
  random words, then more repeats to the end), the chains follow their
  cycle with probability 0.9, and the learning rate falls on a cosine to a
  tenth by the last step: the head grows sharper and more confident;
* 2 layers of 2 heads, ``d_model`` 64, AdamW with a warm-up to a constant
  3e-3, 16,000 steps.

What grows (``report.json``, data/README.md ``induction/``): a
previous-token head in layer 0 and an induction head in layer 1 whose key
reads it (K-composition), found by measurement; before about position 20
the two layers use a shifted pair (heads 3 and 2 back, the key 3 after the
earlier occurrence). The other options (the two-back rule, fuzzy copies,
random position offsets, short repeats, sin/cos positions, ...) are the
pilots recorded there; all are off by default.

torch is never a project dependency: like ``tools/train_gpt.py`` the script
runs itself in the throwaway environment ``build/gpt/venv`` (made if missing).

Every ``--log-every`` steps it measures, on fixed probes (repeats of 8-20
tokens after 0-23 random tokens, seeds 424200-424215, never the lesson's or
the bar's): the train loss, the mean loss on the first and the second copy,
and every head's previous-token, prefix-matching and one-key-later scores.
The log goes to ``training_log.csv`` in the output folder. Seeded
throughout; on another CPU the last bits differ.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from train_gpt import ensure_torch, hf_config  # noqa: E402

OUT = ROOT / "data" / "induction"
VOCAB = 128  # 127 symbols + <|endoftext|>
CONFIG = dict(n_layer=2, n_head=2, n_embd=64, n_positions=256, vocab_size=VOCAB)
PROBE_SEEDS = range(424200, 424216)


# ------------------------------------------------------------------ vocabulary
def symbols(n: int = VOCAB - 1) -> list[str]:
    """``n`` readable symbols: English nouns of 3-6 letters from data/lexicon.csv,
    in the file's order (its groups start with everyday words)."""
    words = []
    for line in (
        (ROOT / "data" / "lexicon.csv").read_text(encoding="utf-8").splitlines()
    ):
        if not line or line.startswith("#"):
            continue
        cols = line.split(",")
        w = cols[0]
        if cols[1] == "en" and cols[2] == "noun" and w.isalpha() and 3 <= len(w) <= 6:
            if w not in words:
                words.append(w)
    if len(words) < n:
        raise SystemExit(f"data/lexicon.csv has only {len(words)} nouns of 3-6 letters")
    return words[:n]


def write_tokenizer(path: Path) -> None:
    """A word-level tokenizer: id 0 ``<|endoftext|>``, ids 1.. the symbols,
    words split on whitespace."""
    from tokenizers import Tokenizer, models, pre_tokenizers, decoders

    vocab = {"<|endoftext|>": 0}
    for i, w in enumerate(symbols(VOCAB - 1), start=1):
        vocab[w] = i
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<|endoftext|>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.decoder = decoders.WordPiece(prefix="##")  # joins words with spaces
    tok.add_special_tokens(["<|endoftext|>"])
    tok.save(str(path))


# ------------------------------------------------------------------------ data
def window(
    rng,
    T: int,
    seg=(4, 24),
    lag=(0, 16),
    lead=(0, 24),
    skip=0.0,
    rule=None,
    classes=0,
    edit=0.0,
):
    """One training window of ``T`` ids: BOS, ``lead`` filler tokens, then,
    until full, a segment of ``seg`` random tokens, ``lag`` filler tokens and
    the segment again, followed by ``lag`` filler tokens. (T,) int64.

    Filler tokens are random, except that with probability ``skip`` a filler
    token is ``rule[token two places back]`` (``rule``: a fixed permutation
    of the ids, the same in every window): a dependence on the token before
    the previous one, which natural text has plenty of and which only a head
    that looks one token back can use."""
    import numpy as np

    V = VOCAB
    out = [0]
    ruled = [False]  # whether each token came from the rule (no chains of it)

    def filler(k):
        for _ in range(k):
            if (
                skip
                and len(out) >= 2
                and rule[out[-2]]
                and not ruled[-1]
                and rng.random() < skip
            ):
                if classes:  # pilot: a random word of the class of the word two back
                    k = int(rule[out[-2]]) % classes
                    n_k = (V - 1 - k) // classes + (k > 0)
                    word = k + classes * int(rng.integers(0 if k else 1, n_k))
                    out.append(word)
                else:
                    out.append(int(rule[out[-2]]))
                ruled.append(True)
            else:
                out.append(int(rng.integers(1, V)))
                ruled.append(False)

    filler(int(rng.integers(lead[0], lead[1] + 1)))
    while len(out) < T:
        s = [int(x) for x in rng.integers(1, V, size=rng.integers(seg[0], seg[1] + 1))]
        out += s
        ruled += [False] * len(s)
        filler(int(rng.integers(lag[0], lag[1] + 1)))
        if edit:  # pilot: a fuzzy copy, with words left out and words put in
            s2 = []
            for w in s:
                r = rng.random()
                if r < edit / 2:
                    continue
                if r < edit:
                    s2.append(int(rng.integers(1, V)))
                s2.append(w)
            s = s2
        out += s
        ruled += [False] * len(s)
        filler(int(rng.integers(lag[0], lag[1] + 1)))
    return np.array(out[:T], dtype=np.int64)


def markov_window(
    rng, T: int, alphabet=(4, 24), follow=0.8, cycle=False, burn=0, lead=0
):
    """Pilot: an in-context Markov chain of ``T`` ids. BOS, then words from a
    random alphabet of ``alphabet`` words (new in every window); each word has
    a successor (a random permutation of the alphabet) that follows it with
    probability ``follow``, else a random word of the alphabet comes. Only a
    head that finds earlier occurrences of the current word, and reads what
    came after them, predicts well. (T,) int64."""
    import numpy as np

    k = int(rng.integers(alphabet[0], alphabet[1] + 1))
    S = 1 + rng.choice(VOCAB - 1, size=k, replace=False)
    if cycle:  # one cycle through the whole alphabet: no short loops
        succ = dict(zip(S.tolist(), np.roll(S, 1).tolist()))
    else:
        succ = dict(zip(S.tolist(), S[rng.permutation(k)].tolist()))
    out = [0, int(S[rng.integers(k)])]
    cut = int(rng.integers(0, burn + 1)) if burn else 0  # pilot: start mid-chain
    while len(out) < T + cut:
        if rng.random() < follow:
            out.append(succ[out[-1]])
        else:
            out.append(int(S[rng.integers(k)]))
    if cut:
        out = [0] + out[1 + cut :]
    if lead:  # pilot: random words of the whole vocabulary before the chain
        n = int(rng.integers(0, lead + 1))
        out = [0] + [int(x) for x in rng.integers(1, VOCAB, size=n)] + out[1:]
    return np.array(out[:T], dtype=np.int64)


def skip_rule(seed: int, kind: str = "same"):
    """The fixed map of ``window``'s skip rule, ``(VOCAB,)`` ids: ``"same"``,
    the token itself (A B -> A, as in "bang, bang" or "tick tock tick");
    ``"perm"``, a random permutation of ``1 .. VOCAB - 1`` (pilot P6)."""
    import numpy as np

    if kind == "same":
        return np.arange(VOCAB)
    if kind in ("trigger", "trigger-same"):  # 64 trigger words; 0: no rule
        rng = np.random.default_rng(seed)
        rule = np.zeros(VOCAB, dtype=np.int64)
        triggers = 1 + rng.permutation(VOCAB - 1)[:64]
        rule[triggers] = (
            triggers if kind == "trigger-same" else rng.integers(1, VOCAB, size=64)
        )
        return rule
    return np.concatenate([[0], 1 + np.random.default_rng(seed).permutation(VOCAB - 1)])


def probe_ids(seed: int):
    """A probe: BOS, 0-23 random tokens, then 8-20 random tokens written twice.
    Returns (ids, start of the first copy, repeat length)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    L, P = int(rng.integers(8, 21)), int(rng.integers(0, 24))
    p = rng.integers(1, VOCAB, size=P)
    r = rng.integers(1, VOCAB, size=L)
    return np.concatenate([[0], p, r, r]).astype(np.int64), 1 + P, L


# ----------------------------------------------------------------------- model
def build_model(torch, cfg):
    nn = torch.nn
    d, h, V, n_pos = cfg["n_embd"], cfg["n_head"], cfg["vocab_size"], cfg["n_positions"]

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(d)
            self.c_attn = nn.Linear(d, 3 * d)
            self.c_proj = nn.Linear(d, d)
            nn.init.normal_(self.c_attn.weight, std=0.02)
            nn.init.zeros_(self.c_attn.bias)
            nn.init.normal_(
                self.c_proj.weight, std=0.02 / math.sqrt(2 * cfg["n_layer"])
            )
            nn.init.zeros_(self.c_proj.bias)

        def forward(self, x, want_att=False, ablate=()):
            B, T, _ = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=-1)
            q, k, v = (t.view(B, T, h, d // h).transpose(1, 2) for t in (q, k, v))
            att = None
            if want_att:
                s = (q @ k.transpose(-1, -2)) / math.sqrt(d // h)
                mask = torch.ones(T, T, dtype=torch.bool).tril()
                att = s.masked_fill(~mask, float("-inf")).softmax(-1)
                y = att @ v
            else:
                y = torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, is_causal=True
                )
            if ablate:
                y = y.clone()
                y[:, list(ablate)] = 0
            return x + self.c_proj(y.transpose(1, 2).reshape(B, T, d)), att

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(V, d)
            self.wpe = nn.Embedding(n_pos, d)
            nn.init.normal_(self.wte.weight, std=cfg.get("wte_std", 0.02))
            nn.init.normal_(self.wpe.weight, std=cfg.get("wpe_std", 0.01))
            if cfg.get("wpe_kind") == "sin":  # pilot: sin/cos positions
                pos = torch.arange(n_pos, dtype=torch.float32)[:, None]
                freq = torch.exp(-math.log(10000.0) * torch.arange(0, d, 2).float() / d)
                pe = torch.zeros(n_pos, d)
                pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * freq), torch.cos(pos * freq)
                with torch.no_grad():
                    self.wpe.weight.copy_(pe * cfg.get("wpe_scale", 1.0))
                self.wpe.weight.requires_grad_(not cfg.get("freeze_wpe", False))
            self.h = nn.ModuleList(Block() for _ in range(cfg["n_layer"]))
            self.ln_f = nn.LayerNorm(d)

        def forward(self, idx, offset=None, want_att=False, ablate=()):
            B, T = idx.shape
            pos = torch.arange(T)[None, :].expand(B, T)
            if offset is not None:
                pos = pos + offset[:, None]
            x = self.wte(idx) + self.wpe(pos)
            atts = []
            for i, block in enumerate(self.h):
                x, a = block(x, want_att, {hh for (ll, hh) in ablate if ll == i})
                atts.append(a)
            return self.ln_f(x) @ self.wte.weight.T, atts

    return Model()


def hf_state_dict(torch, model, cfg):
    """GPT-2's tensor names and Conv1D layout (W as (d_in, d_out)); the MLP
    and ``ln_2`` that this model does not use are written as zero / identity."""
    d = cfg["n_embd"]
    out = {
        "transformer.wte.weight": model.wte.weight,
        "transformer.wpe.weight": model.wpe.weight,
        "transformer.ln_f.weight": model.ln_f.weight,
        "transformer.ln_f.bias": model.ln_f.bias,
    }
    for i, b in enumerate(model.h):
        p = f"transformer.h.{i}."
        out[p + "ln_1.weight"], out[p + "ln_1.bias"] = b.ln_1.weight, b.ln_1.bias
        out[p + "attn.c_attn.weight"] = b.c_attn.weight.T
        out[p + "attn.c_attn.bias"] = b.c_attn.bias
        out[p + "attn.c_proj.weight"] = b.c_proj.weight.T
        out[p + "attn.c_proj.bias"] = b.c_proj.bias
        out[p + "ln_2.weight"], out[p + "ln_2.bias"] = torch.ones(d), torch.zeros(d)
        out[p + "mlp.c_fc.weight"] = torch.zeros(d, 4 * d)
        out[p + "mlp.c_fc.bias"] = torch.zeros(4 * d)
        out[p + "mlp.c_proj.weight"] = torch.zeros(4 * d, d)
        out[p + "mlp.c_proj.bias"] = torch.zeros(d)
    return {k: v.detach().float().contiguous().clone() for k, v in out.items()}


# -------------------------------------------------------------------- measures
def measure(torch, model, cfg, ablate=()):
    """On the fixed probes: mean first- and second-copy loss, and every head's
    previous-token, prefix-matching and one-key-later score (the weight of a
    second-copy query on the key two after its token's first occurrence),
    (n_layer, n_head) each."""
    import numpy as np

    first, second, prev, pm, nxt = [], [], [], [], []
    with torch.no_grad():
        for seed in PROBE_SEEDS:
            ids, o, L = probe_ids(seed)
            x = torch.tensor(ids)[None]
            logits, atts = model(x, want_att=True, ablate=ablate)
            nll = torch.nn.functional.cross_entropy(
                logits[0, :-1], x[0, 1:], reduction="none"
            )
            nll = nll.numpy()
            first.append(nll[o : o + L - 1].mean())
            second.append(nll[o + L - 1 : o + 2 * L - 1].mean())
            A = np.stack([a[0].numpy() for a in atts])  # (layers, heads, n, n)
            i = np.arange(1, len(ids))
            prev.append(A[..., i, i - 1].mean(-1))
            j = np.arange(L - 1)
            pm.append(A[..., o + L + j, o + 1 + j].mean(-1))
            nxt.append(A[..., o + L + j, o + 2 + j].mean(-1))
    return (
        float(np.mean(first)),
        float(np.mean(second)),
        np.mean(prev, axis=0),
        np.mean(pm, axis=0),
        np.mean(nxt, axis=0),
    )


# ----------------------------------------------------------------------- train
def train(args):
    import numpy as np
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    cfg = dict(
        CONFIG,
        n_layer=args.layers,
        n_head=args.heads,
        n_embd=args.d,
        n_positions=args.n_positions,
        vocab_size=VOCAB,
        wte_std=args.wte_std,
        wpe_std=args.wpe_std,
        wpe_kind=args.wpe,
        wpe_scale=args.wpe_scale,
        freeze_wpe=args.freeze_wpe,
    )
    model = build_model(torch, cfg)
    opt = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad],
        lr=args.lr,
        betas=(0.9, 0.98),
        weight_decay=args.wd,
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    nl, nh = cfg["n_layer"], cfg["n_head"]
    rule = skip_rule(args.seed + 1, args.rule)
    heads = [f"{la}_{hh}" for la in range(nl) for hh in range(nh)]
    cols = ["step", "seconds", "train_loss", "copy1_loss", "copy2_loss"]
    cols += [f"prev_{x}" for x in heads] + [f"pm_{x}" for x in heads]
    cols += [f"next_{x}" for x in heads]
    rows, running, t0 = [], [], time.time()

    def log(step):
        torch.save(model.state_dict(), out / "checkpoint.pt")  # for a look mid-run
        model.eval()
        c1, c2, prev, pm, nxt = measure(torch, model, cfg)
        model.train()
        tl = float(np.mean(running)) if running else float("nan")
        running.clear()
        rows.append(
            [step, round(time.time() - t0), round(tl, 4), round(c1, 4), round(c2, 4)]
            + [round(float(v), 4) for v in prev.ravel()]
            + [round(float(v), 4) for v in pm.ravel()]
            + [round(float(v), 4) for v in nxt.ravel()]
        )
        bp = np.unravel_index(prev[0].argmax(), prev[0].shape)
        bm = np.unravel_index(pm[1:].argmax(), pm[1:].shape)
        print(
            f"step {step:6d} {time.time() - t0:6.0f}s train {tl:.3f}  copy1 {c1:.3f} "
            f"copy2 {c2:.3f}  prev L0H{bp[0]} {prev[0].max():.2f}  "
            f"pm L{bm[0] + 1}H{bm[1]} {pm[1:].max():.2f}",
            flush=True,
        )
        return c1, c2

    for step in range(args.steps + 1):
        if step % args.log_every == 0:
            log(step)
        if step == args.steps:
            break
        T = args.window if step >= args.short_steps else args.short_window
        if step >= args.long_from:
            T = args.long_window
        f = min(1.0, T / args.window)  # short windows: shorter segments, lags, leads
        seg = (
            min(args.seg_min, max(2, round(args.seg_max * f))),
            max(2, round(args.seg_max * f)),
        )
        if step >= args.late_from:  # the late phase: short repeats
            seg = tuple(args.late_seg)
        late = step >= args.phase2_from
        share = args.phase2_markov if late else args.markov
        follow = args.phase2_follow if late else args.follow

        def one():
            if share and rng.random() < share:
                return markov_window(
                    rng,
                    T,
                    tuple(args.alphabet),
                    follow,
                    args.cycle,
                    args.burn,
                    args.chain_lead,
                )
            return window(
                rng,
                T,
                seg=seg,
                lag=(0, round(args.lag * f)),
                lead=(0, round(args.lead * f)),
                skip=args.skip if step < args.skip_steps else 0.0,
                rule=rule,
                classes=args.classes,
                edit=args.edit if step >= args.edit_from else 0.0,
            )

        batch = np.stack([one() for _ in range(args.batch)])
        x = torch.tensor(batch)
        off = None
        if args.offsets:
            off = torch.tensor(
                rng.integers(0, cfg["n_positions"] - T + 1, size=args.batch)
            )
        logits, _ = model(x[:, :-1], off)
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, VOCAB), x[:, 1:].reshape(-1)
        )
        lr = args.lr * min(1.0, (step + 1) / args.warmup)
        if step >= args.decay_from:  # a cosine down to a tenth, to the last step
            t = (step - args.decay_from) / max(1, args.steps - args.decay_from)
            lr *= 0.1 + 0.45 * (1 + math.cos(math.pi * t))
        for g in opt.param_groups:
            g["lr"] = lr
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        running.append(loss.item())
    seconds = round(time.time() - t0)

    (out / "checkpoint.pt").unlink(missing_ok=True)
    with open(out / "training_log.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        w.writerows(rows)
    export(torch, model, cfg, out, args, seconds)


def export(torch, model, cfg, out, args, seconds):
    """config.json, model.safetensors, tokenizer.json and report.json: heads
    named by measurement on the probes (ablation included)."""
    import numpy as np
    from safetensors.torch import save_file

    model.eval()
    save_file(
        hf_state_dict(torch, model, cfg),
        str(out / "model.safetensors"),
        metadata={"format": "pt"},
    )
    config = hf_config(cfg, 0.0)
    (out / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    write_tokenizer(out / "tokenizer.json")

    c1, c2, prev, pm, nxt = measure(torch, model, cfg)
    layer, head = (int(i) for i in np.unravel_index(pm[1:].argmax(), pm[1:].shape))
    ind = (layer + 1, head)
    _, c2_ind = measure(torch, model, cfg, ablate={ind})[:2]
    # the layer-0 heads the induction head reads: ablating each alone raises
    # the second copy, and its previous-token score is high
    prev_heads = [(0, hh) for hh in range(cfg["n_head"]) if prev[0, hh] >= 0.3]
    _, c2_prev = measure(torch, model, cfg, ablate=set(prev_heads))[:2]
    ablation = {
        f"{la} {hh}": round(measure(torch, model, cfg, ablate={(la, hh)})[1] / c2, 3)
        for la in range(cfg["n_layer"])
        for hh in range(cfg["n_head"])
    }
    report = {
        "recipe": vars(args),
        "train_seconds": seconds,
        "steps": args.steps,
        "threads": args.threads,
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "induction_head": list(ind),
        "induction_prefix_matching": round(float(pm[ind]), 4),
        "previous_token_heads": [list(x) for x in prev_heads],
        "previous_token_scores": [round(float(prev[x]), 4) for x in prev_heads],
        "probe_first_copy_loss": round(c1, 4),
        "probe_second_copy_loss": round(c2, 4),
        "second_copy_loss_without_induction_head": round(c2_ind, 4),
        "second_copy_loss_without_previous_token_heads": round(c2_prev, 4),
        "second_copy_loss_ratio_with_each_head_ablated": ablation,
        "prefix_matching": [[round(float(x), 4) for x in row] for row in pm],
        "previous_token": [[round(float(x), 4) for x in row] for row in prev],
        "one_key_later": [[round(float(x), 4) for x in row] for row in nxt],
    }
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--steps", type=int, default=16000)
    ap.add_argument("--seed", type=int, default=1313)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--layers", type=int, default=CONFIG["n_layer"])
    ap.add_argument("--heads", type=int, default=CONFIG["n_head"])
    ap.add_argument("--d", type=int, default=CONFIG["n_embd"])
    ap.add_argument("--n-positions", type=int, default=CONFIG["n_positions"])
    ap.add_argument("--window", type=int, default=64)
    ap.add_argument("--short-window", type=int, default=64)
    ap.add_argument(
        "--short-steps",
        type=int,
        default=0,
        help="steps on --short-window before --window",
    )
    ap.add_argument(
        "--long-window",
        type=int,
        default=96,
        help="the window from --long-from on (longer positions trained)",
    )
    ap.add_argument("--long-from", type=int, default=10**9)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--wd", type=float, default=0.01)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--decay-from", type=int, default=11000)
    ap.add_argument("--seg-min", type=int, default=8)
    ap.add_argument("--seg-max", type=int, default=20)
    ap.add_argument("--lag", type=int, default=0)
    ap.add_argument("--lead", type=int, default=23)
    ap.add_argument(
        "--skip",
        type=float,
        default=0.0,
        help="share of filler tokens that follow the fixed rule on the "
        "token two places back",
    )
    ap.add_argument(
        "--skip-steps",
        type=int,
        default=10**9,
        help="use the skip rule only for the first N steps",
    )
    ap.add_argument(
        "--late-from",
        type=int,
        default=10**9,
        help="from this step on, repeats are --late-seg tokens long",
    )
    ap.add_argument("--late-seg", type=int, nargs=2, default=(2, 4))
    ap.add_argument(
        "--rule", choices=("same", "perm", "trigger", "trigger-same"), default="same"
    )
    ap.add_argument(
        "--classes",
        type=int,
        default=0,
        help="pilot: the rule gives a random word of the class (id mod N) of the "
        "word two back, not that word",
    )
    ap.add_argument(
        "--wte-std",
        type=float,
        default=0.02,
        help="initial scale of the token embeddings",
    )
    ap.add_argument(
        "--wpe-std",
        type=float,
        default=0.01,
        help="initial scale of the position embeddings",
    )
    ap.add_argument(
        "--offsets", action="store_true", help="random position offsets (pilots P1, P2)"
    )
    ap.add_argument("--log-every", type=int, default=250)
    ap.add_argument(
        "--markov", type=float, default=1.0, help="pilot: share of Markov windows"
    )
    ap.add_argument("--alphabet", type=int, nargs=2, default=(6, 24))
    ap.add_argument("--follow", type=float, default=0.65)
    ap.add_argument("--cycle", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--burn", type=int, default=0)
    ap.add_argument("--chain-lead", type=int, default=0)
    ap.add_argument("--phase2-from", type=int, default=11000)
    ap.add_argument("--phase2-markov", type=float, default=0.5)
    ap.add_argument("--phase2-follow", type=float, default=0.9)
    ap.add_argument("--vocab", type=int, default=VOCAB)
    ap.add_argument("--edit", type=float, default=0.0)
    ap.add_argument("--edit-from", type=int, default=0)
    ap.add_argument("--wpe", choices=("learned", "sin"), default="learned")
    ap.add_argument("--wpe-scale", type=float, default=1.0)
    ap.add_argument("--freeze-wpe", action="store_true")
    args = ap.parse_args()
    globals()["VOCAB"] = args.vocab
    ensure_torch()
    train(args)


if __name__ == "__main__":
    main()
