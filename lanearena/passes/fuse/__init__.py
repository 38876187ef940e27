"""Launch fusion before placement: rewrite patterns that merge a launch into the next where only that launch reads
its result (`attention`: the attention group)."""
