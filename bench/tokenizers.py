"""rjieba (jieba-rs) against jieba on the search benchmark's corpus: dictionary load time,
segmentation speed in search mode, and the postings each would put in the index.

    PYTHONPATH=<a folder with jieba> .venv/bin/python bench/tokenizers.py [--notes 10000]

jieba is not a dependency (decision 234); install it into a folder of its own to
compare: `.venv/bin/pip install --target /tmp/jieba jieba==0.42.1`. The corpus is
bench/search_corpus.py's kind of notes (the same words and phrases), generated without a database.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from search_corpus_words import BRANDS, DISHES, PHRASES


def corpus(notes: int) -> list[str]:
    rng = random.Random(24)
    texts = []
    for _ in range(notes):
        title = f"{rng.choice(BRANDS)}{rng.choice(DISHES)}｜{rng.choice(PHRASES)}"
        body = "，".join(rng.choice(PHRASES) for _ in range(rng.randint(8, 30)))
        texts.append(f"{title}\n{body}。招牌{rng.choice(DISHES)}和{rng.choice(DISHES)}都不错。")
    return texts


def measure(name: str, load: Callable[[], Callable[[str], list[str]]], texts: list[str]) -> None:
    started = time.perf_counter()
    cut = load()
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    tokens = [cut(text) for text in texts]
    took = time.perf_counter() - started
    chars = sum(map(len, texts))
    postings = sum(len({t for t in found if t.strip()}) for found in tokens)
    terms = len({t for found in tokens for t in found})
    print(
        f"| {name} | {loaded * 1000:.0f} | {chars / took / 1e6:.2f} | {took * 1000:.0f} | "
        f"{postings} | {terms} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10000)
    texts = corpus(parser.parse_args().notes)
    print(f"\n{len(texts)} notes, {sum(map(len, texts))} characters\n")
    print("| segmenter (search mode) | load ms | M chars/s | corpus ms | postings | terms |")
    print("|---|---|---|---|---|---|")

    def rjieba_() -> Callable[[str], list[str]]:
        import rjieba

        rjieba.cut("预热")
        return rjieba.cut_for_search

    measure("rjieba 0.2.2 (jieba-rs)", rjieba_, texts)
    try:
        import jieba
    except ImportError:
        print("\n(jieba not importable: see the docstring)")
        return

    def jieba_() -> Callable[[str], list[str]]:
        jieba.setLogLevel(60)
        jieba.initialize()
        return jieba.lcut_for_search

    measure(f"jieba {jieba.__version__}", jieba_, texts)


if __name__ == "__main__":
    main()
