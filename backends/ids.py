"""Parse the {id} path segment of /mongo/.../{id}: ASCII decimal digits in 0..2**63-1, else None."""

MAX_USER_ID = 2**63 - 1
_MAX_DIGITS = len(str(MAX_USER_ID))
_ASCII_DIGITS = frozenset("0123456789")


def parse_user_id(text: str) -> int | None:
    """Return the id, or None (the route answers 404) for anything but plain ASCII digits in range.

    str.isdigit() and int() accept Unicode digits ("١٢", "²") and int() also accepts
    signs, spaces and underscores, so the characters are checked explicitly.
    """
    if not isinstance(text, str) or not text or not _ASCII_DIGITS.issuperset(text):
        return None
    # Leading zeros are allowed; stripping them first keeps int() off huge strings.
    digits = text.lstrip("0") or "0"
    if len(digits) > _MAX_DIGITS:
        return None
    value = int(digits)
    return value if value <= MAX_USER_ID else None
