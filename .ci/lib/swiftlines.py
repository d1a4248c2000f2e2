"""Reads Swift source the way the mutation run needs it: which characters are code (not a
comment, not inside a string), how deep each line sits in brackets, and the statements as a tree
(a statement's extent found by bracket balance and continuation lines). Not a parser: it reads
what swift-format writes, and whatever it reads wrongly the compiler rejects."""

import re

OPENERS = "([{"
CLOSERS = ")]}"


def mask(text):
    """Two copies of `text`, each character kept or blanked: `code` blanks comments; `bare` also
    blanks what is inside string literals (interpolations too), keeping the quotes."""
    code, bare = list(text), list(text)
    stack = ["code"]  # "code", ("interp", parens), ("string", hashes, multiline), ("block", n)
    i, n = 0, len(text)

    def blank(start, end, both):
        for k in range(start, end):
            if text[k] != "\n":
                bare[k] = " "
                if both:
                    code[k] = " "

    while i < n:
        top = stack[-1]
        c = text[i]
        if top == "code" or top[0] == "interp":
            if text.startswith("//", i):
                end = text.find("\n", i)
                end = n if end < 0 else end
                blank(i, end, True)
                i = end
                continue
            if text.startswith("/*", i):
                stack.append(("block", 1))
                blank(i, i + 2, True)
                i += 2
                continue
            m = re.match(r'(#*)("""|")', text[i:])
            if m:
                stack.append(("string", len(m.group(1)), m.group(2) == '"""'))
                i += len(m.group(0))
                continue
            if top != "code":
                if c == "(":
                    stack[-1] = ("interp", top[1] + 1)
                elif c == ")":
                    if top[1] == 0:
                        stack.pop()
                    else:
                        stack[-1] = ("interp", top[1] - 1)
                blank(i, i + 1, False)
            i += 1
        elif top[0] == "block":
            if text.startswith("*/", i):
                blank(i, i + 2, True)
                stack[-1] = ("block", top[1] - 1)
                if top[1] == 1:
                    stack.pop()
                i += 2
            elif text.startswith("/*", i):
                blank(i, i + 2, True)
                stack[-1] = ("block", top[1] + 1)
                i += 2
            else:
                blank(i, i + 1, True)
                i += 1
        else:  # a string literal
            _, hashes, multiline = top
            close = ('"""' if multiline else '"') + "#" * hashes
            escape = "\\" + "#" * hashes
            if text.startswith(close, i):
                stack.pop()
                i += len(close)
            elif text.startswith(escape + "(", i):
                blank(i, i + len(escape) + 1, False)
                stack.append(("interp", 0))
                i += len(escape) + 1
            elif text.startswith(escape, i):
                blank(i, i + len(escape) + 1, False)
                i += len(escape) + 1
            elif c == "\n" and not multiline:
                stack.pop()  # unterminated: the compiler will say so
                i += 1
            else:
                blank(i, i + 1, False)
                i += 1
    return "".join(code), "".join(bare)


class Source:
    """One Swift file: its lines, masked, with each line's bracket depth."""

    def __init__(self, text):
        self.text = text
        self.lines = text.split("\n")
        code, bare = mask(text)
        self.code = code.split("\n")
        self.bare = bare.split("\n")
        self.depth = []  # depth at the start of each line
        self.opener = []  # column of the `{` that opens a block on this line, or None
        depth = 0
        for line in self.bare:
            self.depth.append(depth)
            unmatched = []
            for column, c in enumerate(line):
                if c in OPENERS:
                    unmatched.append((c, column))
                elif c in CLOSERS and unmatched:
                    unmatched.pop()
                if c in OPENERS:
                    depth += 1
                elif c in CLOSERS:
                    depth -= 1
            block = None
            if unmatched and unmatched[-1][0] == "{":
                rest = line[unmatched[-1][1] + 1 :].strip()
                if rest == "" or re.search(r"\bin$", rest):
                    block = unmatched[-1][1]
            self.opener.append(block)
        self.depth.append(depth)

    def delta(self, i):
        return self.depth[i + 1] - self.depth[i]

    def stripped(self, i):
        return self.bare[i].strip()


CONTINUES_BEFORE = (".", "?.", "&&", "||", "??", "+ ", "- ", "* ", "/ ", "== ", "!= ", "< ",
                    "> ", "<= ", ">= ", "? ", ": ", "->", "else", "where", "throws", "async",
                    "rethrows", "{", "in ")
CONTINUES_AFTER = ("=", ",", "&&", "||", "+", "-", "*", "/", "??", "->", ".", "(", "[")


class Statement:
    def __init__(self, source, start, end, parent, owner_line):
        self.source = source
        self.start, self.end = start, end
        self.parent = parent  # the statement whose block holds this one, or None
        self.owner_line = owner_line  # the line that opens that block, or None (top level)
        self.own = []  # lines of its own, not in a nested block
        self.blocks = []  # (opener line, [Statement]) in order
        self.index = 0  # position among its siblings
        self.siblings = []

    @property
    def head(self):
        """The code before its first block, one line."""
        parts = []
        for i in self.own:
            code = self.source.code[i]
            if self.source.opener[i] is not None:
                parts.append(code[: self.source.opener[i] + 1])
                break
            parts.append(code)
        return collapse(" ".join(parts))

    @property
    def text(self):
        """Its code on one line, a nested block shown as `…`."""
        parts, inside = [], False
        for i in range(self.start, self.end + 1):
            if i in self.own:
                parts.append(self.source.code[i])
                inside = self.source.opener[i] is not None
                if inside:
                    parts.append("…")
        text = collapse(" ".join(parts))
        return text if len(text) <= 120 else text[:119] + "…"

    @property
    def kind(self):
        head = re.sub(r"^(@\w+(\([^)]*\))?\s+)+", "", self.head)
        head = re.sub(r"^((public|private|fileprivate|internal|package|open|final|static|override"
                      r"|convenience|required|lazy|mutating|nonmutating|indirect|dynamic|class"
                      r"(?=\s+(func|var|let))|nonisolated(\(unsafe\))?)\s+)+", "", head)
        m = re.match(r"(\w+|@\w+)", head)
        word = m.group(1) if m else ""
        if word in ("class", "struct", "enum", "actor", "extension", "protocol"):
            return "type"
        if word in ("func", "init", "deinit", "subscript"):
            return "func"
        if word.startswith("@") and head == word:
            return "attribute"
        if word in ("let", "var", "case", "default", "if", "guard", "while", "for", "repeat", "do",
                    "switch", "defer", "return", "throw", "break", "continue", "typealias"):
            return word
        return "expression"

    def context(self):
        """Where the statement sits: "type" (a member, or at the top level), "switch" (a case of a
        switch), or "body" (a statement of a function or closure)."""
        if self.parent is None:
            return "type"
        kind = self.parent.kind
        if kind == "type":
            return "type"
        if kind == "switch":
            return "switch"
        return "body"

    def function(self):
        """The innermost function or closure around it: ("func", head), ("closure", head),
        ("defer", head), or None."""
        node, owner = self.parent, self.owner_line
        while node is not None:
            kind = node.kind
            if kind == "type":
                return None
            if kind == "defer":
                return ("defer", node.head)
            owner_code = node.source.code[owner].strip()
            control = kind in ("if", "guard", "while", "for", "repeat", "do", "switch", "case",
                               "default") or re.match(r"\}\s*(else|catch)", owner_code)
            body = node.blocks and node.blocks[0][0] == owner
            if kind == "func" and body:
                return ("func", node.head)
            if kind == "var" and body and "=" not in node.head:
                return ("func", node.head)
            if not control:
                return ("closure", node.head)
            node, owner = node.parent, node.owner_line
        return None

    def walk(self):
        yield self
        for _, children in self.blocks:
            for child in children:
                yield from child.walk()


def collapse(text):
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"([(\[]) | ([)\]])", r"\1\2", text)


def statements(source):
    """The file's statements, as a tree: the top level's list."""
    return _parse(source, 0, len(source.lines), None, None)


def _continues(source, j, end):
    after = source.bare[j].rstrip()
    if after.endswith(CONTINUES_AFTER) or (after.endswith(":") and not after.endswith("::")):
        return True
    n = j + 1
    while n < end and not source.stripped(n):
        n += 1
    return n < end and source.stripped(n).startswith(CONTINUES_BEFORE)


def _parse(source, a, b, parent, owner_line):
    found = []
    i = a
    while i < b:
        s = source.stripped(i)
        if not s or s[0] in CLOSERS or re.match(r"#(if|else|elseif|endif)\b", s):
            i += 1
            continue
        j, balance = i, 0
        while True:
            balance += source.delta(j)
            if j + 1 >= b or (balance <= 0 and not _continues(source, j, b)):
                break
            j += 1
        statement = Statement(source, i, j, parent, owner_line)
        k = i
        while k <= j:
            statement.own.append(k)
            column = source.opener[k]
            if column is None:
                k += 1
                continue
            inner = source.depth[k + 1]
            m = k + 1
            while m <= j and not (source.depth[m] == inner and source.stripped(m).startswith("}")):
                m += 1
            if m > j:
                break
            statement.blocks.append((k, _parse(source, k + 1, m, statement, k)))
            k = m
        for index, child in enumerate(found):
            child.index = index
        found.append(statement)
        i = j + 1
    for index, statement in enumerate(found):
        statement.index = index
        statement.siblings = found
    return found
