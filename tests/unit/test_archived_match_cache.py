"""The cache of archived matches read lately: bounded in count and in age."""
from shared.archive import ArchivedMatch
from shared.archive.archived_reads import ArchivedMatchCache


def match(n: int) -> ArchivedMatch:
    return ArchivedMatch(f"m{n}", (), None, 0)


def test_the_cache_never_holds_more_than_its_bound_and_drops_the_least_recently_read() -> None:
    cache = ArchivedMatchCache(size=3, seconds=60)
    sizes = []
    for n in range(20):
        cache.put(match(n))
        assert cache.get("m17" if n >= 17 else f"m{n}") is not None
        sizes.append(len(cache))
    assert max(sizes) == 3 and len(cache) == 3
    assert cache.get("m0") is None and cache.get("m17") is not None and cache.get("m19") is not None


def test_a_match_kept_too_long_is_read_again() -> None:
    now = [0.0]
    cache = ArchivedMatchCache(size=3, seconds=10, clock=lambda: now[0])
    cache.put(match(1))
    now[0] = 9.0
    assert cache.get("m1") is not None
    now[0] = 10.5
    assert cache.get("m1") is None and len(cache) == 0
