"""The exact search's loop (`search.py` says what it searches), compiled with numba: each node does a few passes
over the buffers and sections of its group, which cost a microsecond a step in Python and a nanosecond here.

The search is one recursive function over flat arrays. A run stops after a given number of nodes and is not
resumed: a later run starts afresh with more (the schedule doubles them, so at most half the nodes are redone).

A conflict (the decisions to blame for a failure) is a set of depths: a row of `WORD`-bit words, with a `tail` bit
standing for every depth past the row (set by `everything`). A set may only grow past what the reasons say: that
blames more decisions and so skips fewer, which keeps every search that does not backjump complete."""

from __future__ import annotations

import numpy as np
from numba import njit

# Rows of the per-buffer array `b`.
MINOFF, EXCL_AT, EXCL_DEPTH, PLACED, PLACED_DEPTH, LIFTED_DEPTH, FREE_BESIDE, OFFSET, FAILURES = range(9)
SIZE, FIRST, LAST, SMALLEST, RANK, FLOOR = range(9, 15)
BUFFER_ROWS = 15
# Rows of the per-section array `sec`.
UNPLACED, CROSSING, LOWEST = range(3)
SECTION_ROWS = 3
# Slots of the control array `ctl`.
NODES, LIMIT, DEPTH, CAPACITY, BACKJUMP, COUNT_FAILURES, SAVED, EXCLUSIONS, CHAIN, TAIL, PICK, PICK_LEVEL = range(12)
PICK_FORCED, HOW_MANY, MOST = 12, 13, 14
CONTROL = 15

FOUND, FAILED, STOPPED = 1, 0, 2
"""How a node ends: its group placed, no placement below it (the reasons in the conflict), out of nodes."""

WORD = 64
_BIG = np.int64(1 << 60)


@njit(cache=True)
def _has(res, ctl, d):
    if d >= res.shape[0] * WORD:
        return ctl[TAIL] != 0
    return (res[d // WORD] >> np.uint64(d % WORD)) & np.uint64(1) != 0


@njit(cache=True)
def _add(res, d):
    if d < res.shape[0] * WORD:
        res[d // WORD] |= np.uint64(1) << np.uint64(d % WORD)


@njit(cache=True)
def _drop(res, d):
    if d < res.shape[0] * WORD:
        res[d // WORD] &= ~(np.uint64(1) << np.uint64(d % WORD))


@njit(cache=True)
def everything(res, ctl):
    """Sets the conflict `res` to every decision."""
    res[:] = ~np.uint64(0)
    ctl[TAIL] = 1


@njit(cache=True)
def _nothing(res, ctl):
    res[:] = np.uint64(0)
    ctl[TAIL] = 0


@njit(cache=True)
def _group(b, by_first, first_at, lo, hi, out):
    """The unplaced buffers of the group over sections `[lo, hi)` (no unplaced buffer crosses its ends), in
    `out`; how many."""
    k = 0
    for p in range(first_at[lo], first_at[hi]):
        i = by_first[p]
        if b[PLACED, i] == 0:
            out[k] = i
            k += 1
    return k


@njit(cache=True)
def _unplaced_in(b, by_first, first_at, lo, hi):
    """Whether an unplaced buffer starts in sections `[lo, hi)`."""
    for p in range(first_at[lo], first_at[hi]):  # noqa: SIM110 (numba compiles the loop, not a generator)
        if b[PLACED, by_first[p]] == 0:
            return True
    return False


@njit(cache=True)
def _blame_section(b, mem_ptr, mem_idx, ctl, res, s):
    """The decisions that leave section `s` short of room: for each of its unplaced buffers, its exclusion or the
    placement that last lifted its floor, when either alone lifts it high enough (else every decision)."""
    total = 0
    for p in range(mem_ptr[s], mem_ptr[s + 1]):
        u = mem_idx[p]
        if b[PLACED, u] == 0:
            total += b[SIZE, u]
    low = ctl[CAPACITY] - total + 1
    _nothing(res, ctl)
    for p in range(mem_ptr[s], mem_ptr[s + 1]):
        u = mem_idx[p]
        if b[PLACED, u] != 0:
            continue
        excluded = b[EXCL_AT, u] == b[MINOFF, u]
        if excluded and b[EXCL_AT, u] + b[SMALLEST, u] >= low:
            _add(res, b[EXCL_DEPTH, u])
        elif b[MINOFF, u] >= low:
            _add(res, b[LIFTED_DEPTH, u])
        else:
            everything(res, ctl)
            return


@njit(cache=True)
def _blame_stranded(b, bes_ptr, bes_idx, ctl, res, j):
    """The decisions that leave excluded buffer `j` nothing to rest on: its exclusion and every placement beside
    it."""
    _nothing(res, ctl)
    _add(res, b[EXCL_DEPTH, j])
    for p in range(bes_ptr[j], bes_ptr[j + 1]):
        _add(res, b[PLACED_DEPTH, bes_idx[p]])


@njit(cache=True)
def _decide(b, sec, ctl, mem_ptr, mem_idx, bes_ptr, bes_idx, by_first, first_at, res, free, lo, hi):
    """FOUND when the group over `[lo, hi)` is all placed; FAILED when this node fails (its reasons in `res`);
    else STOPPED, with the buffer to decide next, its level and whether it is placed without a branch in `ctl`."""
    k = _group(b, by_first, first_at, lo, hi, free)
    if k == 0:
        return FOUND
    capacity = ctl[CAPACITY]
    any_excluded = False
    level = _BIG
    for q in range(k):
        i = free[q]
        if b[EXCL_AT, i] == b[MINOFF, i]:
            any_excluded = True
        elif b[MINOFF, i] < level:
            level = b[MINOFF, i]
    if any_excluded:
        if level == _BIG:  # every unplaced buffer is excluded where it stands
            everything(res, ctl)
            return FAILED
        stranded = -1
        for q in range(k):
            i = free[q]
            if b[EXCL_AT, i] == b[MINOFF, i]:
                if b[MINOFF, i] + b[SIZE, i] <= level:  # it fits below: that placement is searched already
                    everything(res, ctl)
                    return FAILED
                if b[FREE_BESIDE, i] == 0 and (stranded < 0 or i < stranded):
                    stranded = i
        if stranded >= 0:
            _blame_stranded(b, bes_ptr, bes_idx, ctl, res, stranded)
            return FAILED
        for q in range(k):
            i = free[q]
            excluded = b[EXCL_AT, i] == b[MINOFF, i]
            b[FLOOR, i] = level + b[SMALLEST, i] if excluded else b[MINOFF, i]
    else:
        for q in range(k):
            b[FLOOR, free[q]] = b[MINOFF, free[q]]
    # The lowest floor of each section's unplaced buffers (each lies inside the group's sections).
    lowest = sec[LOWEST]
    lowest[lo:hi] = _BIG
    for q in range(k):
        i = free[q]
        floor = b[FLOOR, i]
        for s in range(b[FIRST, i], b[LAST, i]):
            if floor < lowest[s]:
                lowest[s] = floor
    worst, worst_need = -1, -_BIG
    for s in range(lo, hi):
        need = min(lowest[s], capacity) + sec[UNPLACED, s]
        if need > worst_need:
            worst, worst_need = s, need
    if worst_need > capacity:
        if ctl[COUNT_FAILURES]:
            for p in range(mem_ptr[worst], mem_ptr[worst + 1]):
                b[FAILURES, mem_idx[p]] += 1
        if ctl[BACKJUMP]:
            _blame_section(b, mem_ptr, mem_idx, ctl, res, worst)
        else:
            everything(res, ctl)
        return FAILED
    hatless, best = -1, -1
    for q in range(k):
        i = free[q]
        if b[MINOFF, i] != level or b[EXCL_AT, i] == b[MINOFF, i]:
            continue
        if b[FREE_BESIDE, i] == 0:
            if hatless < 0 or i < hatless:
                hatless = i
        elif best < 0 or b[RANK, i] < b[RANK, best] or (b[RANK, i] == b[RANK, best] and i < best):
            best = i
    ctl[PICK_LEVEL] = level
    if hatless >= 0:
        ctl[PICK], ctl[PICK_FORCED] = hatless, 1
    else:
        ctl[PICK], ctl[PICK_FORCED] = best, 0
    return STOPPED


@njit(cache=True)
def node(b, sec, ctl, mem_ptr, mem_idx, bes_ptr, bes_idx, by_first, first_at, saved, exclusions, chain, bits, res,
         free, lo, hi):  # fmt: skip
    """Searches the unplaced buffers of the group over sections `[lo, hi)`: FOUND (their offsets in `b`), FAILED
    (the decisions to blame in `res`) or STOPPED."""
    ctl[NODES] += 1
    if ctl[NODES] > ctl[LIMIT]:
        return STOPPED
    ex_base, chain_base = ctl[EXCLUSIONS], ctl[CHAIN]
    outcome = FAILED
    while True:
        decision = _decide(b, sec, ctl, mem_ptr, mem_idx, bes_ptr, bes_idx, by_first, first_at, res, free, lo, hi)
        if decision != STOPPED:
            outcome = decision
            break
        c, level, forced = ctl[PICK], ctl[PICK_LEVEL], ctl[PICK_FORCED]
        d = ctl[DEPTH]
        # Place c at level.
        ctl[DEPTH] += 1
        b[PLACED, c], b[OFFSET, c], b[PLACED_DEPTH, c] = 1, level, d
        top = level + b[SIZE, c]
        base = ctl[SAVED]
        for p in range(bes_ptr[c], bes_ptr[c + 1]):
            j = bes_idx[p]
            before = b[MINOFF, j]
            saved[0, base + p - bes_ptr[c]] = before
            saved[1, base + p - bes_ptr[c]] = b[LIFTED_DEPTH, j]
            if before < top:
                b[MINOFF, j] = top
                if ctl[BACKJUMP]:
                    b[LIFTED_DEPTH, j] = d
            b[FREE_BESIDE, j] -= 1
        ctl[SAVED] = base + bes_ptr[c + 1] - bes_ptr[c]
        ctl[HOW_MANY] += 1
        ctl[MOST] = max(ctl[MOST], ctl[HOW_MANY])
        first, last = b[FIRST, c], b[LAST, c]
        for s in range(first, last):
            sec[UNPLACED, s] -= b[SIZE, c]
        for s in range(first, last - 1):
            sec[CROSSING, s] -= 1
        # Search on: the stretches between sections that no unplaced buffer crosses apart, each in turn.
        x, y = max(first, lo), min(last - 1, hi - 1)
        apart = False
        for s in range(x, y):
            if sec[CROSSING, s] == 0:
                apart = True
                break
        if not apart:
            result = node(b, sec, ctl, mem_ptr, mem_idx, bes_ptr, bes_idx, by_first, first_at, saved, exclusions,
                          chain, bits, res, free, lo, hi)  # fmt: skip
        else:
            result, start = FOUND, lo
            for s in range(x, y + 1):
                if s < y and sec[CROSSING, s] != 0:
                    continue
                end = s + 1 if s < y else hi
                if _unplaced_in(b, by_first, first_at, start, end):
                    result = node(b, sec, ctl, mem_ptr, mem_idx, bes_ptr, bes_idx, by_first, first_at, saved,
                                  exclusions, chain, bits, res, free, start, end)  # fmt: skip
                    if result != FOUND:
                        break
                start = end
        # Take c back.
        for s in range(first, last - 1):
            sec[CROSSING, s] += 1
        for s in range(first, last):
            sec[UNPLACED, s] += b[SIZE, c]
        ctl[SAVED] = base
        for p in range(bes_ptr[c], bes_ptr[c + 1]):
            j = bes_idx[p]
            b[FREE_BESIDE, j] += 1
            b[MINOFF, j] = saved[0, base + p - bes_ptr[c]]
            b[LIFTED_DEPTH, j] = saved[1, base + p - bes_ptr[c]]
        b[PLACED, c] = 0
        ctl[HOW_MANY] -= 1
        ctl[DEPTH] -= 1
        if result != FAILED:
            outcome = result
            break
        if forced:
            if _has(res, ctl, d):
                everything(res, ctl)
            break
        if not _has(res, ctl, d):  # placing c was not to blame: neither is leaving it out
            break
        # Leave c out at this level, remembering why placing it failed.
        e = ctl[EXCLUSIONS]
        if e == exclusions.shape[1]:  # deeper than the rows made for it: end the run unfinished
            outcome = STOPPED
            break
        exclusions[0, e], exclusions[1, e], exclusions[2, e] = c, b[EXCL_AT, c], b[EXCL_DEPTH, c]
        ctl[EXCLUSIONS] = e + 1
        h = ctl[CHAIN]
        exclusions[3, h] = d
        bits[h, :] = res
        chain[h] = ctl[TAIL]
        ctl[CHAIN] = h + 1
        b[EXCL_AT, c], b[EXCL_DEPTH, c] = level, d
        ctl[DEPTH] += 1
    for e in range(ctl[EXCLUSIONS] - 1, ex_base - 1, -1):
        c = exclusions[0, e]
        b[EXCL_AT, c], b[EXCL_DEPTH, c] = exclusions[1, e], exclusions[2, e]
    ctl[DEPTH] -= ctl[EXCLUSIONS] - ex_base
    ctl[EXCLUSIONS] = ex_base
    if outcome == FAILED:
        for h in range(ctl[CHAIN] - 1, chain_base - 1, -1):
            d = exclusions[3, h]
            if _has(res, ctl, d):
                if ctl[BACKJUMP]:
                    res |= bits[h]
                    ctl[TAIL] |= chain[h]
                    _drop(res, d)
                else:
                    everything(res, ctl)
    ctl[CHAIN] = chain_base
    return outcome
