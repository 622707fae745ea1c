"""Chinese number words and Arabic numerals, both ways: 一千二百零五 ↔ 1205.

The grammar the seq2seq lesson's model has to learn, written out as rules:

    digits   零 一 二 三 四 五 六 七 八 九                     0 … 9
    units    十 百 千 (×10, ×100, ×1000 inside a group of four digits), 万 (×10 000 between groups)
    a digit is said with its unit:            2300 = 二千三百
    trailing zeros are not said:              1500 = 一千五百
    a run of inner zeros is one 零:           1005 = 一千零五, 1050 = 一千零五十
    a group under 1000 after 万 starts with 零: 10 500 = 一万零五百
    a leading 一十 is said 十:                15 = 十五, 100 000 = 十万 (but 115 = 一百一十五)

Two is always 二 (everyday speech says 两 before 百, 千 and 万: 两千; one spelling keeps one answer).

`to_chinese(n)` applies them; `from_chinese(text)` reads a number back and refuses any text that
is not exactly what `to_chinese` would write, so "right" means one thing when a model's output is
graded. Both work for 0 ≤ n < 10⁸.
"""

from __future__ import annotations

DIGITS = "零一二三四五六七八九"
UNITS = {"十": 10, "百": 100, "千": 1000}
LIMIT = 10**8


def _group(n: int) -> str:
    """0 < n < 10 000 as words: each non-zero digit with its unit, one 零 for a gap before a digit."""
    words, gap = "", False
    for power, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit = n // power % 10
        if digit == 0:
            gap = gap or bool(words)  # a zero after something was said: 零, if a digit follows
            continue
        words += ("零" if gap else "") + DIGITS[digit] + unit
        gap = False
    return words


def to_chinese(n: int) -> str:
    """0 ≤ n < 10⁸ -> its Chinese number words, e.g. 1205 -> 一千二百零五."""
    if not isinstance(n, int) or not 0 <= n < LIMIT:
        raise ValueError(f"to_chinese takes a whole number 0 ≤ n < {LIMIT:,}, got {n!r}.")
    if n == 0:
        return DIGITS[0]
    high, low = divmod(n, 10_000)
    words = _group(high) + "万" if high else ""
    if low:
        words += ("零" if high and low < 1000 else "") + _group(low)
    return words[1:] if words.startswith("一十") else words  # 十五, not 一十五


def from_chinese(text: str) -> int:
    """Chinese number words -> the number, e.g. 一千二百零五 -> 1205. Refuses text that is not in
    the exact form to_chinese writes (so a model's slightly wrong output is not read as right)."""
    total, group, digit = 0, 0, 0
    for ch in text:
        if ch in DIGITS:
            digit = DIGITS.index(ch)
        elif ch in UNITS:
            group += (digit or 1) * UNITS[ch]  # 十 alone is 10
            digit = 0
        elif ch == "万":
            total, group, digit = (group + digit) * 10_000, 0, 0
        else:
            raise ValueError(
                f"{text!r} is not Chinese number words: {ch!r} is neither a digit ({DIGITS}) nor a unit (十百千万)."
            )
    n = total + group + digit
    if not text or n >= LIMIT or to_chinese(n) != text:
        raise ValueError(
            f"{text!r} is not a number written the standard way"
            + (f" (that would be {to_chinese(n)!r})." if text and n < LIMIT else ".")
        )
    return n
