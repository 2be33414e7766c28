"""A shop's score arithmetic, shared by the writes that keep it and the answers that
show it (its own module: serializers and services both need it)."""


def mean_x10(total: int, count: int) -> int | None:
    """`count` ratings' mean x10, from their stars added up, rounded half up as the
    score is; None when there are none."""
    if not count:
        return None
    return (total * 20 + count) // (count * 2)
