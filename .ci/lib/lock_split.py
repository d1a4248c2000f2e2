"""The `decided outside the lock` operator: a check of a lock's state, made inside the
`withLock` that acts on it, moved to a `withLock` of its own just before. The decision and the
act it allows then fall under two locks, and another caller may act in between: two callers
that both saw a free slot both take it."""

import re

from negations import clauses, condition_end

CONTROL = ("if", "guard", "while", "for", "repeat", "do", "switch", "case", "default")


def decided_outside(source, every, mine, add, replaced):
    for statement in every:
        i = statement.start
        if i not in mine or statement.kind not in ("if", "guard", "while"):
            continue
        bare = source.bare[i]
        m = re.match(r"\s*(?:if|while|guard)\s+", bare)
        end = condition_end(bare, m.end()) if m else None
        if end is None:
            continue
        spans = clauses(bare, m.end(), end)
        line = source.lines[i]
        parts = [line[start:stop].strip() for start, stop in spans]
        if any(re.match(r"(let|var|case)\b", part) for part in parts):
            continue  # a binding cannot be carried out of the closure as a Bool
        holder = lock_closure(statement)
        if holder is None:
            continue
        node, lock, parameter = holder
        if not any(re.search(rf"(?<![\w.]){re.escape(parameter)}\b", part) for part in parts):
            continue  # a check of something else than the lock's state
        joined = " && ".join(f"({part})" if "||" in part else part for part in parts)
        inside = joined if parameter == "$0" else f"{parameter} in {joined}"
        indent = re.match(r"\s*", source.lines[node.start]).group(0)
        decision = f"{indent}let decidedOutsideTheLock = {lock}.withLock {{ {inside} }}"
        start, stop = spans[0][0], spans[-1][1]
        span = line[start:stop]
        lead = span[: len(span) - len(span.lstrip())]
        trail = span[len(span.rstrip()):]
        changed = line[:start] + lead + "decidedOutsideTheLock" + trail + line[stop:]
        lines = replaced(i, i, [changed])
        lines = lines[: node.start] + [decision] + lines[node.start:]
        add("decided outside the lock", statement, i, lines)


def lock_closure(statement):
    """The statement of a function body that holds the `withLock` closure the statement runs
    in, the lock's expression, and the closure's parameter name (`$0` when it names none); or
    None."""
    node, owner = statement.parent, statement.owner_line
    while node is not None:
        code = node.source.code[owner]
        if node.kind in CONTROL or re.match(r"\s*\}\s*(else|catch)", code):
            node, owner = node.parent, node.owner_line
            continue
        m = re.search(r"([\w.]+)\.withLock\s*\{\s*(?:(\w+)(?:\s*->\s*[^{}]+?)?\s+in\b)?\s*$", code)
        if m is None or node.context() != "body":
            return None
        return node, m.group(1), m.group(2) or "$0"
    return None
