"""Byte-level BPE (attn_book/tokenizer.py): GPT-2's byte map, a small vocabulary whose ids are
worked out by hand, and the real model's merges, whose order is quoted from the file."""

import pytest

from attn_book import tokenizer as T


def test_byte_map():
    table = T.byte_to_unicode()
    assert len(table) == 256 and len(set(table.values())) == 256
    assert table[ord("A")] == "A" and table[ord("~")] == "~" and table[0xAE] == "®"
    # the 68 moved bytes in order: 0-32 are the first 33, so 32 (space) -> 256 + 32 = 'Ġ'
    assert table[0] == chr(256) and table[32] == "Ġ" and table[10] == "Ċ"
    assert table[127] == chr(256 + 33) and table[0xAD] == chr(256 + 67)


@pytest.fixture
def toy():
    # ids:        0    1    2    3    4     5     6      7      8     9
    tokens = ["a", "b", "c", "Ġ", "ab", "Ġa", "abc", "Ġab", "1", "2", "<|x|>"]
    merges = ["a b", "Ġ a", "ab c", "Ġa b"]  # ranks 0, 1, 2, 3
    return T.Tokenizer(tokens, merges, [1] * 10 + [3])


def test_toy_merges_by_hand(toy):
    # "abc": a b c -> (a b, rank 0) ab c -> (ab c, rank 2) abc = [6]
    assert toy.encode("abc") == [6]
    # " ab": Ġ a b; pairs (Ġ a) rank 1, (a b) rank 0 -> Ġ ab; (Ġ ab) is no merge -> [3, 4]
    # ("Ġa b" never fires: "a b" comes first in the list and takes the a)
    assert toy.encode(" ab") == [3, 4]
    # " ac": Ġ a c -> (Ġ a, rank 1) Ġa c -> no merge -> [5, 2]
    assert toy.encode(" ac") == [5, 2]
    # "ba": no merge -> [1, 0]; "abab": both (a b) at once -> ab ab -> [4, 4]
    assert toy.encode("ba") == [1, 0] and toy.encode("abab") == [4, 4]


def test_toy_digits_split_and_special_whole(toy):
    # digits are split one by one, then the special token is cut out whole
    assert toy.encode("12<|x|>a") == [8, 9, 10, 0]
    assert toy.decode([8, 9, 10, 0]) == "12<|x|>a"
    assert toy.words("ab 12 c") == ["ab", " ", "1", "2", " c"]


def test_toy_errors(toy):
    with pytest.raises(T.TokenizerError, match="no token spells"):
        toy.encode("d")
    with pytest.raises(T.TokenizerError, match="not in the vocabulary"):
        toy.decode([11])
    with pytest.raises(TypeError, match="must be a str"):
        toy.encode(b"ab")


@pytest.fixture(scope="module")
def tok(real_gguf):
    return T.Tokenizer.from_gguf(real_gguf)


def test_attention_merge_by_merge(tok, real_gguf):
    merges = real_gguf.metadata["tokenizer.ggml.merges"]
    # a t t e n t i o n: the pairs present, by their place in the list (read from the file)
    order = ["o n", "a t", "e n", "i on", "en t", "ent ion", "at t", "att ention"]
    ranks = [merges.index(m) for m in order]
    assert ranks == [6, 9, 12, 33, 41, 1196, 1940, 26004]
    # after each, the pairs left: o n (6) first; then a t (9); e n (12); i on (33);
    # en t (41); ent ion (1196); at t (1940); att ention (26004): one symbol
    steps = []
    assert tok.bpe("attention", steps) == ["attention"]
    assert [" ".join(pair) for pair, _, _ in steps] == order
    assert [rank for _, rank, _ in steps] == ranks
    assert steps[0][2] == ["a", "t", "t", "e", "n", "t", "i", "on"]
    assert steps[4][2] == ["at", "t", "ent", "ion"]
    assert tok.tokens[26256] == "attention" and tok.encode("attention") == [26256]
    # with a space before it, another token (GPT-2's Ġ marks the space)
    assert tok.encode(" attention") == [tok.tokens.index("Ġattention")] == [2674]


def test_real_strings(tok):
    assert tok.encode("Hello world") == [19556, 905]  # 'Hello', 'Ġworld'
    assert [tok.tokens[i] for i in tok.encode("Paris")] == ["Paris"]
    ids = tok.encode("In 2024")  # digits one by one, the space its own token
    assert [tok.tokens[i] for i in ids] == ["In", "Ġ", "2", "0", "2", "4"]
    korean = "주의는 필요한 모든 것이다"
    assert tok.decode(tok.encode(korean)) == korean
    assert len(tok.encode(korean)) == 28  # against 5 for "Attention is all you need"
    assert len(tok.encode("Attention is all you need")) == 5


def test_chat_prompt_tokens(tok):
    ids = tok.encode(T.chat_prompt("What is the capital of France?"))
    im_start, im_end, newline = 1, 2, 198
    assert tok.tokens[im_start] == "<|im_start|>" and tok.tokens[im_end] == "<|im_end|>"
    assert tok.tokens[newline] == "Ċ"
    assert ids[:3] == [im_start, tok.ids["system"], newline]
    assert ids[-4:] == [im_start, tok.ids["ass"], tok.ids["istant"], newline]
    assert ids.count(im_start) == 3 and ids.count(im_end) == 2 and len(ids) == 37


def test_chat_template_in_file_matches(real_gguf):
    template = real_gguf.metadata["tokenizer.chat_template"]
    for part in (
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by "
        "Hugging Face<|im_end|>\n",
        "'<|im_start|>' + message['role'] + '\n'",
        "'<|im_start|>assistant\n'",
    ):
        assert part in template


def test_unspellable_byte_is_refused(tok):
    assert 4 in tok.unspellable
    with pytest.raises(T.TokenizerError, match="no token spells"):
        tok.encode("a\x04b")
