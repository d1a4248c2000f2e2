"""The `negate` operator: the clauses of a condition (`if`, `guard`, `while`,
`precondition`, `assert`) that bind nothing, and the value of a function returning `Bool`."""

import re


def negations(source, every, mine, add, replaced):
    """Negate a condition (`if`, `guard`, `while`, `precondition`, `assert`: each clause without a
    binding), and a Bool function's value."""
    for statement in every:
        i = statement.start
        if i not in mine:
            continue
        bare, line = source.bare[i], source.lines[i]
        spans = []
        m = re.match(r"\s*(?:if|while|guard)\s+", bare)
        if m and statement.kind in ("if", "while", "guard"):
            end = condition_end(bare, m.end())
            if end is not None:
                spans += clauses(bare, m.end(), end)
        m = re.search(r"\b(?:precondition|assert)\(", bare)
        if m:
            end = top_level_comma(bare, m.end())
            if end is not None:
                spans.append((m.end(), end))
        spans += bool_values(source, statement)
        for start, end in spans:
            clause = line[start:end].strip()
            if re.match(r"(let|var|case)\b", clause):
                continue
            negated = f"!{clause}" if re.fullmatch(r"[\w.]+", clause) else f"!({clause})"
            span = line[start:end]
            lead = span[: len(span) - len(span.lstrip())]
            trail = span[len(span.rstrip()):]
            add("negate", statement, i,
                replaced(i, i, [line[:start] + lead + negated + trail + line[end:]]))


def condition_end(bare, start):
    """Where a condition that starts at `start` ends: at the body's `{` or at `else`."""
    depth = 0
    for k in range(start, len(bare)):
        if depth == 0 and (bare[k] == "{" or re.match(r"\selse\b", bare[k:])):
            return k
        depth += bare[k] in "(["
        depth -= bare[k] in ")]"
    return None


def clauses(bare, start, end):
    """The comma-separated clauses of a condition list, as (start, end) spans."""
    spans, depth, begin = [], 0, start
    for k in range(start, end):
        c = bare[k]
        depth += c in "([{"
        depth -= c in ")]}"
        if c == "," and depth == 0:
            spans.append((begin, k))
            begin = k + 1
    spans.append((begin, end))
    return spans


def top_level_comma(bare, start):
    depth = 0
    for k in range(start, len(bare)):
        c = bare[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return k
            depth -= 1
        elif c == "," and depth == 0:
            return k
    return None


def bool_values(source, statement):
    """The value a Bool function gives: the expression of its single-expression body, of a
    `return`, or of a `case …:` of a switch that is its body."""
    function = statement.function()
    if function is None or function[0] != "func":
        return []
    if not re.search(r"->\s*Bool\??\s*(\{|$)", function[1]):
        return []
    i = statement.start
    if statement.start != statement.end:
        return []
    bare = source.bare[i]
    m = re.match(r"(\s*return\s+)(.+?)\s*$", bare) if statement.kind == "return" else None
    if m is None and statement.kind == "case":
        m = re.match(r"(\s*case\s+[^:]+:\s*)(.+?)\s*$", bare)
    if m is None and statement.kind == "expression" and len(statement.siblings) == 1:
        m = re.match(r"(\s*)(.+?)\s*$", bare)
    return [(m.start(2), m.end(2))] if m else []
