"""parse_user_id: ASCII decimal digits in 0..2**63-1 (leading zeros allowed), everything else None."""

import re

from hypothesis import example, given
from hypothesis import strategies as st

from backends.ids import MAX_USER_ID, parse_user_id

ASCII_DIGITS = re.compile(r"[0-9]+")


@given(st.integers(min_value=0, max_value=MAX_USER_ID), st.integers(min_value=0, max_value=30))
def test_in_range_with_leading_zeros(value: int, zeros: int) -> None:
    assert parse_user_id("0" * zeros + str(value)) == value


@given(st.integers(min_value=MAX_USER_ID + 1, max_value=10**40))
@example(MAX_USER_ID + 1)
def test_too_large(value: int) -> None:
    assert parse_user_id(str(value)) is None


@given(st.text())
@example("")
@example("-1")
@example("+1")
@example(" 1")
@example("1 ")
@example("1\n")
@example("1_000")
@example("0x10")
@example("1e3")
@example("١٢٣")  # Arabic-Indic digits: str.isdigit() and int() accept them
@example("²")  # superscript two: isdigit() is True, int() fails
@example("１２")  # fullwidth digits
def test_only_ascii_digit_strings_parse(text: str) -> None:
    result = parse_user_id(text)
    if ASCII_DIGITS.fullmatch(text) and int(text) <= MAX_USER_ID:
        assert result == int(text)
    else:
        assert result is None


@given(st.text(alphabet=st.characters(categories=["Nd"]), min_size=1))
def test_unicode_digits_rejected_unless_ascii(text: str) -> None:
    if text.isascii():
        assert parse_user_id(text) == (int(text) if int(text) <= MAX_USER_ID else None)
    else:
        assert parse_user_id(text) is None


def test_huge_digit_string_is_cheap_and_none() -> None:
    # int() would raise ValueError past sys.get_int_max_str_digits() (4300).
    assert parse_user_id("9" * 100_000) is None
    assert parse_user_id("0" * 100_000 + "7") == 7


def test_edges() -> None:
    assert parse_user_id("0") == 0
    assert parse_user_id(str(MAX_USER_ID)) == MAX_USER_ID
    assert parse_user_id("00000000000000000000009223372036854775807") == MAX_USER_ID
