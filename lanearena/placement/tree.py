"""The greedy family's loop for large problems, compiled with numba (`greedy.py` has the orders, the fits and the
pure-Python loop for small problems; both give the same offsets).

The placed buffers are kept in a segment tree over the steps (numbered by rank among the buffers' ends), each node
holding sorted lists of disjoint byte ranges, merged where they touch. A new buffer's life splits into the O(log n)
nodes that cover it exactly, and it must clear every placed buffer live at a step of any of them. Nodes of `2^level`
steps or more (`level` is chosen from the lives, see `level`) hold `union`: every placed buffer live at any of their
steps, so one list answers for the node. Below `level`, filing each buffer in every node its life meets would cost
its life in insertions, so those nodes keep the split of a plain segment tree: `cover`, the buffers whose lives
cover the node but not its parent, and `under`, those filed anywhere under it; a node at `level` also keeps
`whole`, the buffers whose lives cover it. A node below `level` then answers with its `under`, the `cover` of its
ancestors below `level` and the `whole` of its ancestor at `level`.

The lowest offset clear of all those lists is found by leapfrog: each list in turn raises the offset to the lowest
gap at or above it that holds the buffer, until every list agrees. Where thousands of buffers live at once, the
list of one node has many gaps that another node's list fills; a union has far fewer such gaps than the split lists
of the same steps, so it takes far fewer turns (on 100k buffers with 3,300 live at each step, about 100 list
visits a buffer where the split tree needs thousands)."""

from __future__ import annotations

import numpy as np
from numba import njit


def level(first: np.ndarray, last: np.ndarray) -> int:
    """The level from which nodes hold unions: about an eighth of the life of the step-weighted buffer (a step's
    buffer is most often a long-lived one), so that a buffer is filed in a few dozen unions at most (about twice
    its life over 2^level) while the lives that matter span enough unions to need few turns."""
    life = (last - first).astype(np.float64)
    weighted = float((life * life).sum() / max(life.sum(), 1.0))
    return max(int(np.log2(max(weighted / 8, 1.0))), 0)


@njit(cache=True)
def _grow(pool, top, need):
    """`pool` with room for `need` more values past `top` (a larger copy when it has not)."""
    if top + need <= pool.shape[0]:
        return pool
    bigger = np.empty(max(2 * pool.shape[0], top + need), dtype=np.int64)
    bigger[:top] = pool[:top]
    return bigger


@njit(cache=True)
def _add(pool, top, head, cap, count, k, a, b):
    """Adds the range [a, b) to list `k` (sorted disjoint ranges, `pool[head+2j]`, `pool[head+2j+1]`), merging
    the ranges it overlaps or touches; returns the pool and its new top."""
    h, m = head[k], count[k]
    lo, hi = 0, m
    while lo < hi:  # the first range that ends at or above a
        mid = (lo + hi) >> 1
        if pool[h + 2 * mid + 1] < a:
            lo = mid + 1
        else:
            hi = mid
    i = j = lo
    while j < m and pool[h + 2 * j] <= b:  # past the ranges that start at or below b
        j += 1
    if i < j:  # ranges i..j-1 merge into one
        pool[h + 2 * i] = min(a, pool[h + 2 * i])
        pool[h + 2 * i + 1] = max(b, pool[h + 2 * j - 1])
        gone = j - i - 1
        if gone:
            for x in range(h + 2 * (i + 1), h + 2 * (m - gone)):  # ascending: the source lies above
                pool[x] = pool[x + 2 * gone]
            count[k] = m - gone
        return pool, top
    if m == cap[k]:  # full: move the list to the top of the pool with twice the room
        room = max(4, 2 * cap[k])
        pool = _grow(pool, top, 2 * room)
        pool[top : top + 2 * m] = pool[h : h + 2 * m]
        head[k], cap[k], h = top, room, top
        top += 2 * room
    for x in range(h + 2 * m + 1, h + 2 * i + 1, -1):  # descending: the target lies above
        pool[x] = pool[x - 2]
    pool[h + 2 * i] = a
    pool[h + 2 * i + 1] = b
    count[k] = m + 1
    return pool, top


@njit(cache=True)
def _clear_from(pool, head, count, k, o, size, at):
    """The lowest p >= o where [p, p + size) meets no range of list `k`; `at` is where the search starts (the
    first range that may end above o) and becomes where the next one, from p, may."""
    h, m = head[k], count[k]
    lo = at
    step = 1
    while lo + step <= m and pool[h + 2 * (lo + step) - 1] <= o:  # gallop past the ranges that end at or below o
        lo += step
        step <<= 1
    hi = min(lo + step, m)
    while lo < hi:  # then the first range that ends above o, by halves
        mid = (lo + hi) >> 1
        if pool[h + 2 * mid + 1] <= o:
            lo = mid + 1
        else:
            hi = mid
    if lo == m or pool[h + 2 * lo] >= o + size:
        return o, lo
    for j in range(lo + 1, m):
        if pool[h + 2 * j] - pool[h + 2 * j - 1] >= size:
            return pool[h + 2 * j - 1], j
    return pool[h + 2 * m - 1], m


@njit(cache=True)
def _lowest(pool, head, count, lists, nlists, size, o, at):
    """The lowest p >= o where [p, p + size) meets no range of the lists: each list in turn raises p to its own
    lowest such p, until `nlists` turns in a row leave it. `at` holds each list's place (see `_clear_from`): p only
    rises, so each list is searched from where the last turn left it."""
    agreed = 0
    t = 0
    while agreed < nlists:
        p, at[t] = _clear_from(pool, head, count, lists[t], o, size, at[t])
        if p > o:
            o = p
            agreed = 1
        else:
            agreed += 1
        t = t + 1 if t + 1 < nlists else 0
    return o


@njit(cache=True)
def _tightest(pool, head, count, lists, nlists, size, at):
    """The start of the tightest gap between the merged ranges of the lists that holds `size` (the lowest among
    equals), or the top of the ranges where none does: the gaps that hold it, lowest first, each found by `_lowest`
    and ended by the lowest range that starts above it."""
    best, best_gap, o = -1, 0, 0
    while True:
        p = _lowest(pool, head, count, lists, nlists, size, o, at)
        end = -1
        for t in range(nlists):
            k = lists[t]
            h, m = head[k], count[k]
            lo, hi = 0, m
            while lo < hi:  # the first range that starts above p
                mid = (lo + hi) >> 1
                if pool[h + 2 * mid] <= p:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < m and (end < 0 or pool[h + 2 * lo] < end):
                end = pool[h + 2 * lo]
        if end < 0:  # nothing above p: it is the top
            return p if best < 0 else best
        if best < 0 or end - p < best_gap:
            best, best_gap = p, end - p
            if best_gap == size:  # none is tighter, and it is the lowest of its size
                return best
        o = end


@njit(cache=True)
def place(first, last, units, size, order, best_fit, alignment, stop, level):
    """Offsets in units for buffers live over leaves [first, last) of `units` units (`size` bytes), placed in
    `order`, first fit or best fit, with unions from `level` up; stops after the first that ends above `stop`
    bytes when `stop` >= 0. Returns the offsets and how many were placed."""
    n = units.shape[0]
    leaves, top_level = 1, 0
    while leaves < last.max():
        leaves <<= 1
        top_level += 1
    level = min(level, top_level)
    span = 1 << level
    # List k: the union or the `under` of node v is k = v; the `cover` of a node below `level` and the `whole` of
    # a node at `level` are k = 2 * leaves + v.
    head = np.zeros(4 * leaves, dtype=np.int64)
    cap = np.zeros(4 * leaves, dtype=np.int64)
    count = np.zeros(4 * leaves, dtype=np.int64)
    pool = np.empty(16 * n + 64, dtype=np.int64)
    top = 0
    seen = np.zeros(4 * leaves, dtype=np.int64)  # the buffer (+: read, -: filed) that last met a list
    offsets = np.zeros(n, dtype=np.int64)
    nodes = np.empty(128, dtype=np.int64)  # the nodes of a life
    heights = np.empty(128, dtype=np.int64)
    lists = np.empty(256, dtype=np.int64)
    at = np.empty(256, dtype=np.int64)  # where each list's search has got to
    placed = 0
    for step in range(n):
        i = order[step]
        mark = step + 1
        f, l_ = first[i], last[i]
        # The nodes that cover [f, l_) exactly, bottom up, and their heights.
        canonical, height = 0, 0
        lo, hi = f + leaves, l_ + leaves
        while lo < hi:
            if lo & 1:
                nodes[canonical], heights[canonical] = lo, height
                canonical += 1
                lo += 1
            if hi & 1:
                hi -= 1
                nodes[canonical], heights[canonical] = hi, height
                canonical += 1
            lo >>= 1
            hi >>= 1
            height += 1
        total = 0
        for c in range(canonical):
            v = nodes[c]
            lists[total] = v  # its union, or below `level` its `under`
            total += 1
            if heights[c] < level:  # the `cover` of its ancestors below `level`, then the `whole` of the one at it
                for up in range(1, level - heights[c] + 1):
                    k = 2 * leaves + (v >> up)
                    if seen[k] != mark:
                        seen[k] = mark
                        lists[total] = k
                        total += 1
        u = units[i]
        at[:total] = 0
        if best_fit:
            o = _tightest(pool, head, count, lists, total, u, at)
        else:
            o = _lowest(pool, head, count, lists, total, u, 0, at)
        offsets[i] = o
        placed += 1
        for c in range(canonical):  # below `level`: its `cover` and the `under` of it and its ancestors there
            v, height = nodes[c], heights[c]
            if height < level:
                pool, top = _add(pool, top, head, cap, count, 2 * leaves + v, o, o + u)
                for up in range(level - height):
                    k = v >> up
                    if seen[k] != -mark:
                        seen[k] = -mark
                        pool, top = _add(pool, top, head, cap, count, k, o, o + u)
        for height in range(level, top_level + 1):  # the unions of every node it meets from `level` up
            for v in range((f >> height) + (leaves >> height), ((l_ - 1) >> height) + (leaves >> height) + 1):
                pool, top = _add(pool, top, head, cap, count, v, o, o + u)
        if level > 0:  # the `whole` of every node at `level` inside its life
            for w in range(-(-f // span), l_ // span):
                pool, top = _add(pool, top, head, cap, count, 2 * leaves + (leaves >> level) + w, o, o + u)
        if stop >= 0 and o * alignment + size[i] > stop:
            break
    return offsets, placed
