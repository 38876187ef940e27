"""The exact search's loop (`search.py` says what it searches), one source for two ways: as plain Python over lists
for short runs of small problems, and compiled by numba over arrays (`compiled.twin` runs this module's source
again with numba's `njit` as `jit`) for the rest, where each node's passes over the buffers and sections cost a
nanosecond a step rather than a microsecond. Both visit the same nodes: every array is flat (row r of a table of
width w at `r * w`), every value an integer below 2^62 or a 64-bit word of a conflict, and nothing here calls
numpy.

The search is one recursive function. A run stops after a given number of nodes and is not resumed: a later run
starts afresh with more (the schedule doubles them, so at most half the nodes are redone).

A conflict (the decisions to blame for a failure) is a set of depths: a row of `WORD`-bit words, with a `tail` bit
standing for every depth past the row (set by `everything`). A set may only grow past what the reasons say: that
blames more decisions and so skips fewer, which keeps every search that does not backjump complete."""

from __future__ import annotations

if "jit" not in globals():  # plain Python; `compiled.twin` runs this source again with numba's njit as `jit`

    def jit(f):
        return f


# Rows of the per-buffer table `b` (width: the buffers).
MINOFF, EXCL_AT, EXCL_DEPTH, PLACED, PLACED_DEPTH, LIFTED_DEPTH, FREE_BESIDE, OFFSET, FAILURES = range(9)
SIZE, FIRST, LAST, SMALLEST, RANK, FLOOR = range(9, 15)
BUFFER_ROWS = 15
# Rows of the per-section table `sec` (width: the sections).
UNPLACED, CROSSING, LOWEST = range(3)
SECTION_ROWS = 3
# Slots of the control array `ctl`.
NODES, LIMIT, DEPTH, CAPACITY, BACKJUMP, COUNT_FAILURES, SAVED, EXCLUSIONS, CHAIN, TAIL, PICK, PICK_LEVEL = range(12)
PICK_FORCED, HOW_MANY, MOST, BUFFERS, SECTIONS, SAVED_WIDTH, DEEPEST = range(12, 19)
CONTROL = 19
# Rows of the table `exclusions` (width: `DEEPEST`): the buffer excluded, its exclusion before, the depth of that,
# and (for the chain of conflicts) the depth of the exclusion.
EXCLUDED, BEFORE_AT, BEFORE_DEPTH, CHAIN_DEPTH = range(4)

FOUND, FAILED, STOPPED = 1, 0, 2
"""How a node ends: its group placed, no placement below it (the reasons in the conflict), out of nodes."""

WORD = 64
BIG = 1 << 60


@jit
def _has(res, ctl, d):
    if d >= len(res) * WORD:
        return ctl[TAIL] != 0
    return (res[d // WORD] >> (d % WORD)) & 1 != 0


@jit
def _add(res, d):
    if d < len(res) * WORD:
        res[d // WORD] |= 1 << (d % WORD)


@jit
def _drop(res, d):
    if d < len(res) * WORD:
        res[d // WORD] &= ~(1 << (d % WORD))


@jit
def everything(res, ctl):
    """Sets the conflict `res` to every decision."""
    for w in range(len(res)):
        res[w] = -1
    ctl[TAIL] = 1


@jit
def _nothing(res, ctl):
    for w in range(len(res)):
        res[w] = 0
    ctl[TAIL] = 0


@jit
def _group(b, ctl, by_first, first_at, lo, hi, out):
    """The unplaced buffers of the group over sections `[lo, hi)` (no unplaced buffer crosses its ends), in
    `out`; how many."""
    n = ctl[BUFFERS]
    k = 0
    for p in range(first_at[lo], first_at[hi]):
        i = by_first[p]
        if b[PLACED * n + i] == 0:
            out[k] = i
            k += 1
    return k


@jit
def _unplaced_in(b, ctl, by_first, first_at, lo, hi):
    """Whether an unplaced buffer starts in sections `[lo, hi)`."""
    n = ctl[BUFFERS]
    for p in range(first_at[lo], first_at[hi]):  # noqa: SIM110 (numba compiles the loop, not a generator)
        if b[PLACED * n + by_first[p]] == 0:
            return True
    return False


@jit
def _blame_section(b, mem_ptr, mem_idx, ctl, res, s):
    """The decisions that leave section `s` short of room: for each of its unplaced buffers, its exclusion or the
    placement that last lifted its floor, when either alone lifts it high enough (else every decision)."""
    n = ctl[BUFFERS]
    total = 0
    for p in range(mem_ptr[s], mem_ptr[s + 1]):
        u = mem_idx[p]
        if b[PLACED * n + u] == 0:
            total += b[SIZE * n + u]
    low = ctl[CAPACITY] - total + 1
    _nothing(res, ctl)
    for p in range(mem_ptr[s], mem_ptr[s + 1]):
        u = mem_idx[p]
        if b[PLACED * n + u] != 0:
            continue
        excluded = b[EXCL_AT * n + u] == b[MINOFF * n + u]
        if excluded and b[EXCL_AT * n + u] + b[SMALLEST * n + u] >= low:
            _add(res, b[EXCL_DEPTH * n + u])
        elif b[MINOFF * n + u] >= low:
            _add(res, b[LIFTED_DEPTH * n + u])
        else:
            everything(res, ctl)
            return


@jit
def _blame_stranded(b, bes_ptr, bes_idx, ctl, res, j):
    """The decisions that leave excluded buffer `j` nothing to rest on: its exclusion and every placement beside
    it."""
    n = ctl[BUFFERS]
    _nothing(res, ctl)
    _add(res, b[EXCL_DEPTH * n + j])
    for p in range(bes_ptr[j], bes_ptr[j + 1]):
        _add(res, b[PLACED_DEPTH * n + bes_idx[p]])


@jit
def _decide(b, sec, ctl, mem_ptr, mem_idx, bes_ptr, bes_idx, by_first, first_at, res, free, lo, hi):
    """FOUND when the group over `[lo, hi)` is all placed; FAILED when this node fails (its reasons in `res`);
    else STOPPED, with the buffer to decide next, its level and whether it is placed without a branch in `ctl`."""
    k = _group(b, ctl, by_first, first_at, lo, hi, free)
    if k == 0:
        return FOUND
    if not _floors(b, ctl, bes_ptr, bes_idx, res, free, k):
        return FAILED
    if _short_of_room(b, sec, ctl, mem_ptr, mem_idx, res, free, k, lo, hi):
        return FAILED
    _pick(b, ctl, free, k)
    return STOPPED


@jit
def _floors(b, ctl, bes_ptr, bes_idx, res, free, k):
    """Sets the level of the next decision (`ctl[PICK_LEVEL]`: the lowest offset an unplaced buffer not excluded
    there may take) and each of the `k` unplaced buffers' floor (an excluded buffer's is above the level); False
    where the node fails on its exclusions (the reasons in `res`)."""
    n = ctl[BUFFERS]
    level, stranded = BIG, -1
    for q in range(k):
        i = free[q]
        if b[EXCL_AT * n + i] != b[MINOFF * n + i] and b[MINOFF * n + i] < level:
            level = b[MINOFF * n + i]
    ctl[PICK_LEVEL] = level
    for q in range(k):
        i = free[q]
        if b[EXCL_AT * n + i] != b[MINOFF * n + i]:
            b[FLOOR * n + i] = b[MINOFF * n + i]
            continue
        # Every unplaced buffer excluded where it stands, or this one fits below: that placement is searched already.
        if level == BIG or b[MINOFF * n + i] + b[SIZE * n + i] <= level:
            everything(res, ctl)
            return False
        if b[FREE_BESIDE * n + i] == 0 and (stranded < 0 or i < stranded):
            stranded = i
        b[FLOOR * n + i] = level + b[SMALLEST * n + i]
    if stranded >= 0:
        _blame_stranded(b, bes_ptr, bes_idx, ctl, res, stranded)
        return False
    return True


@jit
def _short_of_room(b, sec, ctl, mem_ptr, mem_idx, res, free, k, lo, hi):
    """Whether a section of `[lo, hi)` has no room for its unplaced buffers above the lowest of their floors: the
    section that needs the most is blamed (in `res`) and, where failures are counted, its buffers'."""
    n, m = ctl[BUFFERS], ctl[SECTIONS]
    capacity = ctl[CAPACITY]
    # The lowest floor of each section's unplaced buffers (each lies inside the group's sections).
    for s in range(lo, hi):
        sec[LOWEST * m + s] = BIG
    for q in range(k):
        i = free[q]
        floor = b[FLOOR * n + i]
        for s in range(b[FIRST * n + i], b[LAST * n + i]):
            if floor < sec[LOWEST * m + s]:
                sec[LOWEST * m + s] = floor
    worst, worst_need = -1, -BIG
    for s in range(lo, hi):
        need = min(sec[LOWEST * m + s], capacity) + sec[UNPLACED * m + s]
        if need > worst_need:
            worst, worst_need = s, need
    if worst_need <= capacity:
        return False
    if ctl[COUNT_FAILURES]:
        for p in range(mem_ptr[worst], mem_ptr[worst + 1]):
            b[FAILURES * n + mem_idx[p]] += 1
    if ctl[BACKJUMP]:
        _blame_section(b, mem_ptr, mem_idx, ctl, res, worst)
    else:
        everything(res, ctl)
    return True


@jit
def _pick(b, ctl, free, k):
    """Sets the buffer to decide next (`ctl[PICK]`) among the `k` unplaced buffers that may stand at the level: one
    with no buffer left beside it, placed without a branch (`ctl[PICK_FORCED]`), else the best ranked."""
    n, level = ctl[BUFFERS], ctl[PICK_LEVEL]
    hatless, best = -1, -1
    for q in range(k):
        i = free[q]
        if b[MINOFF * n + i] != level or b[EXCL_AT * n + i] == b[MINOFF * n + i]:
            continue
        if b[FREE_BESIDE * n + i] == 0:
            if hatless < 0 or i < hatless:
                hatless = i
        elif best < 0 or b[RANK * n + i] < b[RANK * n + best] or (b[RANK * n + i] == b[RANK * n + best] and i < best):
            best = i
    if hatless >= 0:
        ctl[PICK], ctl[PICK_FORCED] = hatless, 1
    else:
        ctl[PICK], ctl[PICK_FORCED] = best, 0


@jit
def node(b, sec, ctl, mem_ptr, mem_idx, bes_ptr, bes_idx, by_first, first_at, saved, exclusions, chain, bits, res,
         free, lo, hi):  # fmt: skip
    """Searches the unplaced buffers of the group over sections `[lo, hi)`: FOUND (their offsets in `b`), FAILED
    (the decisions to blame in `res`) or STOPPED."""
    ctl[NODES] += 1
    if ctl[NODES] > ctl[LIMIT]:
        return STOPPED
    n, m = ctl[BUFFERS], ctl[SECTIONS]
    ex_base, chain_base = ctl[EXCLUSIONS], ctl[CHAIN]
    outcome = FAILED
    while True:
        decision = _decide(b, sec, ctl, mem_ptr, mem_idx, bes_ptr, bes_idx, by_first, first_at, res, free, lo, hi)
        if decision != STOPPED:
            outcome = decision
            break
        c, level, forced = ctl[PICK], ctl[PICK_LEVEL], ctl[PICK_FORCED]
        d = ctl[DEPTH]
        base = _place(b, sec, ctl, bes_ptr, bes_idx, saved, c, level, d)
        # Search on: the stretches between sections that no unplaced buffer crosses apart, each in turn.
        first, last = b[FIRST * n + c], b[LAST * n + c]
        x, y = max(first, lo), min(last - 1, hi - 1)
        apart = False
        for s in range(x, y):
            if sec[CROSSING * m + s] == 0:
                apart = True
                break
        if not apart:
            result = node(b, sec, ctl, mem_ptr, mem_idx, bes_ptr, bes_idx, by_first, first_at, saved, exclusions,
                          chain, bits, res, free, lo, hi)  # fmt: skip
        else:
            result, start = FOUND, lo
            for s in range(x, y + 1):
                if s < y and sec[CROSSING * m + s] != 0:
                    continue
                end = s + 1 if s < y else hi
                if _unplaced_in(b, ctl, by_first, first_at, start, end):
                    result = node(b, sec, ctl, mem_ptr, mem_idx, bes_ptr, bes_idx, by_first, first_at, saved,
                                  exclusions, chain, bits, res, free, start, end)  # fmt: skip
                    if result != FOUND:
                        break
                start = end
        _take_back(b, sec, ctl, bes_ptr, bes_idx, saved, c, base)
        if result != FAILED:
            outcome = result
            break
        if forced:
            if _has(res, ctl, d):
                everything(res, ctl)
            break
        if not _has(res, ctl, d):  # placing c was not to blame: neither is leaving it out
            break
        if not _exclude(b, ctl, exclusions, chain, bits, res, c, level, d):
            outcome = STOPPED  # deeper than the rows made for it: end the run unfinished
            break
    _restore(b, ctl, exclusions, ex_base)
    if outcome == FAILED:
        _blame_exclusions(ctl, exclusions, chain, bits, res, chain_base)
    ctl[CHAIN] = chain_base
    return outcome


@jit
def _place(b, sec, ctl, bes_ptr, bes_idx, saved, c, level, d):
    """Places buffer `c` at `level`, the decision at depth `d`: lifts the buffers beside it above it (saving their
    offsets and depths from `ctl[SAVED]` on, which it returns) and takes it from its sections."""
    n, m, width = ctl[BUFFERS], ctl[SECTIONS], ctl[SAVED_WIDTH]
    ctl[DEPTH] += 1
    b[PLACED * n + c], b[OFFSET * n + c], b[PLACED_DEPTH * n + c] = 1, level, d
    top = level + b[SIZE * n + c]
    base = ctl[SAVED]
    for p in range(bes_ptr[c], bes_ptr[c + 1]):
        j = bes_idx[p]
        before = b[MINOFF * n + j]
        saved[base + p - bes_ptr[c]] = before
        saved[width + base + p - bes_ptr[c]] = b[LIFTED_DEPTH * n + j]
        if before < top:
            b[MINOFF * n + j] = top
            if ctl[BACKJUMP]:
                b[LIFTED_DEPTH * n + j] = d
        b[FREE_BESIDE * n + j] -= 1
    ctl[SAVED] = base + bes_ptr[c + 1] - bes_ptr[c]
    ctl[HOW_MANY] += 1
    ctl[MOST] = max(ctl[MOST], ctl[HOW_MANY])
    first, last = b[FIRST * n + c], b[LAST * n + c]
    for s in range(first, last):
        sec[UNPLACED * m + s] -= b[SIZE * n + c]
    for s in range(first, last - 1):
        sec[CROSSING * m + s] -= 1
    return base


@jit
def _take_back(b, sec, ctl, bes_ptr, bes_idx, saved, c, base):
    """Undoes `_place` of buffer `c`, whose saved values start at `base`."""
    n, m, width = ctl[BUFFERS], ctl[SECTIONS], ctl[SAVED_WIDTH]
    first, last = b[FIRST * n + c], b[LAST * n + c]
    for s in range(first, last - 1):
        sec[CROSSING * m + s] += 1
    for s in range(first, last):
        sec[UNPLACED * m + s] += b[SIZE * n + c]
    ctl[SAVED] = base
    for p in range(bes_ptr[c], bes_ptr[c + 1]):
        j = bes_idx[p]
        b[FREE_BESIDE * n + j] += 1
        b[MINOFF * n + j] = saved[base + p - bes_ptr[c]]
        b[LIFTED_DEPTH * n + j] = saved[width + base + p - bes_ptr[c]]
    b[PLACED * n + c] = 0
    ctl[HOW_MANY] -= 1
    ctl[DEPTH] -= 1


@jit
def _exclude(b, ctl, exclusions, chain, bits, res, c, level, d):
    """Leaves buffer `c` out at `level` (the decision at depth `d`), remembering its exclusion before and why
    placing it failed (`res`, chained); False where that is deeper than the rows made for it."""
    n, deepest, words = ctl[BUFFERS], ctl[DEEPEST], len(res)
    e = ctl[EXCLUSIONS]
    if e == deepest:
        return False
    exclusions[EXCLUDED * deepest + e] = c
    exclusions[BEFORE_AT * deepest + e] = b[EXCL_AT * n + c]
    exclusions[BEFORE_DEPTH * deepest + e] = b[EXCL_DEPTH * n + c]
    ctl[EXCLUSIONS] = e + 1
    h = ctl[CHAIN]
    exclusions[CHAIN_DEPTH * deepest + h] = d
    for w in range(words):
        bits[h * words + w] = res[w]
    chain[h] = ctl[TAIL]
    ctl[CHAIN] = h + 1
    b[EXCL_AT * n + c], b[EXCL_DEPTH * n + c] = level, d
    ctl[DEPTH] += 1
    return True


@jit
def _restore(b, ctl, exclusions, ex_base):
    """Undoes the exclusions made since `ex_base`, latest first."""
    n, deepest = ctl[BUFFERS], ctl[DEEPEST]
    for e in range(ctl[EXCLUSIONS] - 1, ex_base - 1, -1):
        c = exclusions[EXCLUDED * deepest + e]
        b[EXCL_AT * n + c] = exclusions[BEFORE_AT * deepest + e]
        b[EXCL_DEPTH * n + c] = exclusions[BEFORE_DEPTH * deepest + e]
    ctl[DEPTH] -= ctl[EXCLUSIONS] - ex_base
    ctl[EXCLUSIONS] = ex_base


@jit
def _blame_exclusions(ctl, exclusions, chain, bits, res, chain_base):
    """A failed node's conflict: an exclusion made since `chain_base` that is blamed is replaced by the reasons its
    placement failed (with backjumping; else every decision is blamed)."""
    deepest, words = ctl[DEEPEST], len(res)
    for h in range(ctl[CHAIN] - 1, chain_base - 1, -1):
        d = exclusions[CHAIN_DEPTH * deepest + h]
        if _has(res, ctl, d):
            if ctl[BACKJUMP]:
                for w in range(words):
                    res[w] |= bits[h * words + w]
                ctl[TAIL] |= chain[h]
                _drop(res, d)
            else:
                everything(res, ctl)
